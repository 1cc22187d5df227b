/**
 * Starts the schedules part of a coordinator: the `schedules` queue, the service, and a worker on
 * that queue that processes fires. Every coordinator runs one; BullMQ gives each fire job to one of
 * them at a time, and a fire delivered twice still starts one sync or compaction (./fire.ts).
 */
import type { Logger } from 'pino';
import { Queue, Worker, type ConnectionOptions } from 'bullmq';
import type { Redis } from 'ioredis';
import { parsePayload } from '@tributary/protocol';
import type { CompactionService } from '../compaction/compaction-service.ts';
import type { SyncService } from '../sync/service.ts';
import type { SyncStore } from '../sync/store.ts';
import type { Tables } from '@tributary/table';
import { SCHEDULE_QUEUE, ScheduleFireJob, fireTimeOf } from './fire.ts';
import { ScheduleService, type ScheduleLimits } from './service.ts';
import { ScheduleStore } from './store.ts';

export interface SchedulesDeps {
  readonly connection: ConnectionOptions;
  readonly redis: Redis;
  readonly prefix: string;
  readonly syncs: SyncService;
  readonly syncStore: SyncStore;
  readonly compactions: CompactionService;
  readonly tables: Tables;
  readonly warehouse: string;
  readonly logger?: Logger;
  readonly limits?: ScheduleLimits;
}

export interface Schedules {
  readonly service: ScheduleService;
  readonly queue: Queue;
  /** The worker that fires schedules (its Redis connections count for the coordinator's readiness and close). */
  readonly worker: Worker;
  close(): Promise<void>;
}

export async function startSchedules(deps: SchedulesDeps): Promise<Schedules> {
  const { connection, prefix, logger } = deps;
  const queue = new Queue(SCHEDULE_QUEUE, { connection, prefix });
  const service = new ScheduleService({ ...deps, schedules: new ScheduleStore(deps.redis, prefix), queue });
  const worker = new Worker(
    SCHEDULE_QUEUE,
    async (job) => {
      const { scheduleId } = parsePayload(ScheduleFireJob, job.data, 'schedule fire job');
      const fireMs = fireTimeOf(job.id, job.opts.prevMillis) ?? job.timestamp;
      return (await service.fire(scheduleId, fireMs)) ?? null;
    },
    { connection, prefix, concurrency: 4 },
  );
  queue.on('error', (error) => logger?.warn({ error: error.message }, 'schedule queue error'));
  worker.on('error', (error) => logger?.warn({ error: error.message }, 'schedule worker error'));
  worker.on('failed', (job, error) => logger?.warn({ jobId: job?.id, error: error.message }, 'schedule fire failed'));
  const armed = await service.rearm();
  if (armed > 0) logger?.info({ armed }, 're-armed schedules');
  return {
    service,
    queue,
    worker,
    async close() {
      await worker.close();
      await queue.close();
    },
  };
}
