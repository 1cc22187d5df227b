/**
 * A running shard worker: a BullMQ Worker on the `write-shard` queue with the write-shard processor
 * and one on the `merge-bucket` queue with the merge-bucket processor (the bucketed layout's second
 * stage: any worker merges any bucket),
 * its metrics and readiness (served by http.ts when configured), and a graceful close.
 */
import { Worker, type Job } from 'bullmq';
import { Redis } from 'ioredis';
import { pino, type Logger } from 'pino';
import { COMPACTION_QUEUE, SYNC_QUEUES, checkClusterSecret, checkReadiness, queueConnections, redisProbe, type Readiness, type SyncShardResult } from '@tributary/protocol';
import { noSourceAccess, type SourceAccess } from '@tributary/sources';
import { ManifestCache, warehouseTables, type S3ConnectionOptions } from '@tributary/table';
import { WorkerMetrics } from './metrics.ts';
import type { WorkerTables } from './shard-write.ts';
import { mergeBucketProcessor } from './merge-bucket.ts';
import { compactBucketProcessor } from './compact-bucket.ts';
import { writeShardProcessor } from './write-shard.ts';

/**
 * Times a shard, bucket or compaction job may be run again after its lock lapsed (its worker
 * starved, frozen or killed past `lockDurationMs`) before BullMQ fails it. A re-run is safe: every
 * execution numbers its own attempt (its own blob and data files) and only the first to finish is
 * accepted, so a starved first run and its re-run may both go on and one vote counts. BullMQ's
 * default (1) failed a job on its second stall, and its sync or compaction then went on without it
 * (an abort) although nothing was wrong. Bounded so that a job that kills every worker taking it
 * still fails, after about ten re-runs (lock plus stall check each, a minute at the defaults).
 */
export const WORKER_JOB_MAX_STALLS = 10;

export interface WorkerConfig {
  readonly redis: { readonly host: string; readonly port: number };
  /** The deployment's key prefix (the coordinator's). */
  readonly prefix: string;
  /**
   * The cluster secret, the same as the coordinator's (at least 32 bytes): the worker runs only
   * jobs that carry their shard's token under it. The CLI reads it from the configuration.
   */
  readonly clusterSecret: Uint8Array;
  readonly s3?: S3ConnectionOptions;
  /** Named connections and source roots (loadSourceAccess); default: no database source and no file source allowed. */
  readonly sources?: SourceAccess;
  /** Shard jobs run at once in this process. */
  readonly concurrency?: number;
  /**
   * Bucket jobs (bucketed layout) run at once in this process (default: `concurrency`). A bucket
   * job's memory is small and bounded (one row group per run), a shard job's is its run budget, so
   * the two may be sized apart.
   */
  readonly bucketConcurrency?: number;
  /** BullMQ lock; a killed worker's shard is re-run after about lockDuration + stalledInterval. */
  readonly lockDurationMs?: number;
  readonly stalledIntervalMs?: number;
  /** How often a running attempt re-reads its sync's phase, to stop soon after an abort (default 500 ms). */
  readonly phaseCheckMs?: number;
  /** How often a running attempt reports its rows and bytes so far (default 250 ms). */
  readonly progressMs?: number;
  /** JSON log lines (pino); default: none. Each shard attempt's lines carry syncId, shardId, attempt. */
  readonly logger?: Logger;
  /** The table library; default @tributary/table (tests wrap it to inject storage faults). */
  readonly tables?: WorkerTables;
  /** Where /readyz checks storage: a warehouse URI whose store must answer (default: storage is not checked). */
  readonly storageProbe?: string;
  /**
   * Bucketed layout: the rows (default 1,000,000) and estimated bytes (default 56 MiB) a shard attempt
   * buffers over all its buckets before it spills them, as one run object holding a segment per
   * bucket; whichever is reached first (the shard's memory budget). A bucket job's memory does not
   * depend on it: it holds one small block per run, of a bounded number of runs at once (more are
   * merged in passes, @tributary/table's bucket-merge.ts).
   */
  readonly runBufferRows?: number;
  readonly runBufferBytes?: number;
  /** Test hook: a pause after each merged batch of a bucket job or a compaction job (a test kills a worker mid-merge). */
  readonly mergeDelayMsPerBatch?: number;
  /** Test hook: at most this many runs merged at once by a bucket job (a test makes a few shards' runs need passes). */
  readonly mergeFanIn?: number;
}

export interface CloseOptions {
  /**
   * How long running shards may take to finish once the worker stops taking jobs; after it they are
   * released (stopped, their files deleted, their jobs put back in the queue for another worker).
   * Default: wait for them however long they take.
   */
  readonly graceMs?: number;
}

export interface ShardWorker {
  readonly worker: Worker;
  /** The `merge-bucket` queue's worker (its own concurrency, `bucketConcurrency`). */
  readonly bucketWorker: Worker;
  /** The `compact-bucket` queue's worker (same concurrency): a compaction's jobs. */
  readonly compactionWorker: Worker;
  readonly metrics: WorkerMetrics;
  /** Whether Redis and (with `storageProbe`) storage answer now. */
  readiness(): Promise<Readiness>;
  /** Stops taking jobs, lets the running ones finish (or releases them after `graceMs`), then disconnects. */
  close(options?: CloseOptions): Promise<void>;
}

export function startShardWorker(config: WorkerConfig): ShardWorker {
  const clusterSecret = checkClusterSecret(config.clusterSecret);
  const logger = config.logger ?? pino({ level: 'silent' });
  const redis = new Redis({ ...config.redis, maxRetriesPerRequest: null });
  // ioredis reconnects by itself; log instead of an unhandled 'error' event while Redis is away.
  redis.on('error', (error: Error) => logger.warn(`redis: ${error.message}`));
  const tables = config.tables ?? warehouseTables(config.s3);
  const concurrency = config.concurrency ?? 1;
  const metrics = new WorkerMetrics(concurrency);
  const processor = writeShardProcessor({
    redis,
    prefix: config.prefix,
    clusterSecret,
    tables,
    sources: config.sources ?? noSourceAccess(),
    phaseCheckMs: config.phaseCheckMs,
    progressMs: config.progressMs,
    logger,
    ...(config.runBufferRows === undefined ? {} : { runBufferRows: config.runBufferRows }),
    ...(config.runBufferBytes === undefined ? {} : { runBufferBytes: config.runBufferBytes }),
  });
  // Three parameters, so BullMQ hands the processor its cancellation signal (a shutdown's release).
  const measured = async (job: Job, token?: string, signal?: AbortSignal): Promise<SyncShardResult> => {
    const started = performance.now();
    const seconds = () => (performance.now() - started) / 1000;
    metrics.started();
    try {
      const result = await processor(job, token, signal);
      // A settled execution ran nothing: its rows were counted by the attempt that wrote them.
      if (result.settled === true) metrics.ended('settled', seconds());
      else metrics.ended('succeeded', seconds(), result);
      return result;
    } catch (error) {
      metrics.ended(signal?.aborted === true ? 'released' : 'failed', seconds());
      throw error;
    }
  };
  // Every queue's worker: the same connection, locks and stall policy; its own concurrency.
  const queueWorker = <R>(queue: string, run: (job: Job, token?: string, signal?: AbortSignal) => Promise<R>, jobs: number) =>
    new Worker(queue, (job: Job, token?: string, signal?: AbortSignal) => run(job, token, signal), {
      connection: { ...config.redis, maxRetriesPerRequest: null },
      prefix: config.prefix,
      concurrency: jobs,
      lockDuration: config.lockDurationMs ?? 30_000,
      stalledInterval: config.stalledIntervalMs ?? 30_000,
      maxStalledCount: WORKER_JOB_MAX_STALLS,
    });
  const worker = queueWorker(SYNC_QUEUES.writeShard, measured, concurrency);
  const merge = mergeBucketProcessor({
    redis,
    prefix: config.prefix,
    clusterSecret,
    tables,
    manifestCache: new ManifestCache(),
    phaseCheckMs: config.phaseCheckMs,
    progressMs: config.progressMs,
    logger,
    ...(config.mergeDelayMsPerBatch === undefined ? {} : { mergeDelayMsPerBatch: config.mergeDelayMsPerBatch }),
    ...(config.mergeFanIn === undefined ? {} : { mergeFanIn: config.mergeFanIn }),
  });
  const bucketWorker = queueWorker(SYNC_QUEUES.mergeBucket, merge, config.bucketConcurrency ?? concurrency);
  const compact = compactBucketProcessor({
    redis,
    prefix: config.prefix,
    clusterSecret,
    tables,
    phaseCheckMs: config.phaseCheckMs,
    progressMs: config.progressMs,
    logger,
    ...(config.mergeDelayMsPerBatch === undefined ? {} : { mergeDelayMsPerBatch: config.mergeDelayMsPerBatch }),
  });
  const compactionWorker = queueWorker(COMPACTION_QUEUE, compact, concurrency);
  compactionWorker.on('failed', (job, error) => logger.warn({ jobId: job?.id, jobAttempt: job?.attemptsMade, error: error.message }, 'compaction job failed'));
  compactionWorker.on('error', (error) => logger.warn({ error: error.message }, 'compaction worker error'));
  bucketWorker.on('failed', (job, error) => logger.warn({ jobId: job?.id, jobAttempt: job?.attemptsMade, error: error.message }, 'bucket job failed'));
  bucketWorker.on('error', (error) => logger.warn({ error: error.message }, 'bucket worker error'));
  worker.on('failed', (job, error) => logger.warn({ jobId: job?.id, jobAttempt: job?.attemptsMade, error: error.message }, 'shard job failed'));
  worker.on('error', (error) => logger.warn({ error: error.message }, 'worker error'));
  // A job whose lock lapsed is run again (WORKER_JOB_MAX_STALLS): the worker whose stall check found
  // it logs the stall (the worker that lost the lock logs its failed renewal as a worker error), a
  // line worth having when a sync or compaction seems to wait or a job shows two attempts.
  for (const [kind, w] of [['shard', worker], ['bucket', bucketWorker], ['compaction', compactionWorker]] as const) {
    w.on('stalled', (jobId) => logger.warn({ jobId }, `${kind} job stalled (its lock lapsed); BullMQ runs it again`));
  }
  const queueLinks = queueConnections([worker, bucketWorker, compactionWorker]);
  const probes = {
    redis: redisProbe(redis, queueLinks),
    ...(config.storageProbe === undefined ? {} : { storage: async () => void (await tables.warehouseStore(config.storageProbe as string).stat('.tributary/readyz')) }),
  };
  return {
    worker,
    bucketWorker,
    compactionWorker,
    metrics,
    readiness: () => checkReadiness(probes),
    async close(options: CloseOptions = {}) {
      const release =
        options.graceMs === undefined
          ? undefined
          : setTimeout(() => {
              logger.warn({ graceMs: options.graceMs }, 'shutdown grace over: releasing the running shards');
              worker.cancelAllJobs('shutdown');
              bucketWorker.cancelAllJobs('shutdown');
              compactionWorker.cancelAllJobs('shutdown');
            }, options.graceMs);
      try {
        // BullMQ's graceful close hangs on a connection between reconnection attempts (queue-connections.ts).
        await queueLinks.settled();
        await Promise.all([worker.close(), bucketWorker.close(), compactionWorker.close()]);
      } finally {
        clearTimeout(release);
      }
      await redis.quit();
    },
  };
}
