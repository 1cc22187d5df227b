/**
 * Jobs of one sync queue taken off the real queue and run through the worker's real processor in
 * this process, each when the test says so: a test chooses the order shards finish in, or does
 * something between a job's work and its completion (completing its BullMQ job is what lets the
 * sync's next step run).
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { Worker, type Job } from 'bullmq';
import { Redis } from 'ioredis';
import { services } from '@tributary/testkit';
import type { SyncEnv } from './harness.ts';

export class HeldJobs<Result> {
  readonly #redis: Redis;
  readonly #worker: Worker;
  readonly #process: (job: Job) => Promise<Result>;
  readonly #held = new Map<string, { job: Job; token: string }>();
  readonly #idOf: (job: Job) => string;

  /** `processor`: the worker's processor for this queue, built on the Redis connection given to it. */
  constructor(e: SyncEnv, queue: string, processor: (redis: Redis) => (job: Job) => Promise<Result>, idOf: (job: Job) => string) {
    const connection = { host: services.redis.host, port: services.redis.port, maxRetriesPerRequest: null };
    this.#redis = new Redis(connection);
    // No processor and no autorun: jobs are only fetched by getNextJob below.
    this.#worker = new Worker(queue, null, { connection, prefix: e.prefix, lockDuration: 300_000, autorun: false });
    this.#process = processor(this.#redis);
    this.#idOf = idOf;
  }

  /** Takes jobs until `count` of the sync's are held. */
  async take(syncId: string, count: number): Promise<void> {
    const deadline = Date.now() + 30_000;
    while ([...this.#held.values()].filter((h) => h.job.data.syncId === syncId).length < count) {
      if (Date.now() > deadline) throw new Error(`jobs of ${syncId} did not arrive`);
      const token = randomUUID();
      const job = (await this.#worker.getNextJob(token, { block: true })) as Job | undefined;
      if (job !== undefined) this.#held.set(`${job.data.syncId}/${this.#idOf(job)}`, { job, token });
    }
  }

  /** The ids of the sync's held jobs. */
  held(syncId: string): string[] {
    return [...this.#held.values()].filter((h) => h.job.data.syncId === syncId).map((h) => this.#idOf(h.job)).sort();
  }

  /** Runs one held job through the processor; `between` runs after its work and before its completion. */
  async finish(syncId: string, id: string, between?: () => Promise<void>): Promise<Result> {
    const held = this.#held.get(`${syncId}/${id}`);
    assert.ok(held !== undefined, `job ${id} of ${syncId} is held`);
    this.#held.delete(`${syncId}/${id}`);
    const result = await this.#process(held.job);
    await between?.();
    await held.job.moveToCompleted(result, held.token, false);
    return result;
  }

  async close(): Promise<void> {
    await this.#worker.close();
    await this.#redis.quit();
  }
}
