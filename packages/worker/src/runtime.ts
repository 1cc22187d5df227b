/**
 * A running shard worker: a BullMQ Worker on the `write-shard` queue with the write-shard processor.
 */
import { Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { SYNC_QUEUES, checkClusterSecret } from '@tributary/protocol';
import { noSourceAccess, type SourceAccess } from '@tributary/sources';
import type { S3ConnectionOptions } from '@tributary/table';
import { tablePort } from './table-adapter.ts';
import type { TablePort } from './table-port.ts';
import { writeShardProcessor } from './write-shard.ts';

export interface WorkerConfig {
  readonly redis: { readonly host: string; readonly port: number };
  /** The deployment's key prefix (the coordinator's). */
  readonly prefix: string;
  /**
   * The cluster secret, the same as the coordinator's (at least 32 bytes): the worker runs only
   * jobs that carry their shard's token under it. server.ts reads it from the environment.
   */
  readonly clusterSecret: Uint8Array;
  readonly s3?: S3ConnectionOptions;
  /** Named connections and source roots (loadSourceAccess); default: no database source and no file source allowed. */
  readonly sources?: SourceAccess;
  /** Shard jobs run at once in this process. */
  readonly concurrency?: number;
  /** BullMQ lock; a killed worker's shard is re-run after about lockDuration + stalledInterval. */
  readonly lockDurationMs?: number;
  readonly stalledIntervalMs?: number;
  /** How often a running attempt re-reads its sync's phase, to stop soon after an abort (default 500 ms). */
  readonly phaseCheckMs?: number;
  readonly log?: (message: string) => void;
  /** The table library; default @tributary/table (tests wrap it to inject storage faults). */
  readonly tables?: TablePort;
}

export interface ShardWorker {
  readonly worker: Worker;
  close(): Promise<void>;
}

export function startShardWorker(config: WorkerConfig): ShardWorker {
  const clusterSecret = checkClusterSecret(config.clusterSecret);
  const redis = new Redis({ ...config.redis, maxRetriesPerRequest: null });
  // ioredis reconnects by itself; log instead of an unhandled 'error' event while Redis is away.
  redis.on('error', (error: Error) => config.log?.(`redis: ${error.message}`));
  const processor = writeShardProcessor({
    redis,
    prefix: config.prefix,
    clusterSecret,
    tables: config.tables ?? tablePort(config.s3),
    sources: config.sources ?? noSourceAccess(),
    phaseCheckMs: config.phaseCheckMs,
  });
  const worker = new Worker(SYNC_QUEUES.writeShard, processor, {
    connection: { ...config.redis, maxRetriesPerRequest: null },
    prefix: config.prefix,
    concurrency: config.concurrency ?? 1,
    lockDuration: config.lockDurationMs ?? 30_000,
    stalledInterval: config.stalledIntervalMs ?? 30_000,
  });
  worker.on('failed', (job, error) => config.log?.(`shard job ${job?.id ?? '?'} failed (attempt ${job?.attemptsMade ?? '?'}): ${error.message}`));
  return {
    worker,
    async close() {
      await worker.close();
      await redis.quit();
    },
  };
}
