/**
 * The BullMQ flow of a sync: a parent `commit` job with one `write-shard` child per planned shard.
 *
 * - Children use `ignoreDependencyOnFailure`: the parent runs once every child has finished, failed
 *   or not, and decides commit or abort having seen every outcome (without an on-failure option a
 *   failed child leaves the parent waiting forever, a BullMQ flow behaviour).
 * - Job ids are derived from the sync and shard ids, so enqueueing the same flow again (a
 *   coordinator that crashed between persisting the plan and enqueueing, then resumed) adds nothing.
 * - The shard jobs are added in slices of ENQUEUE_SLICE, not in one call: BullMQ builds every job of
 *   a flow in memory at once (10,000 children grew the coordinator by over 200 MB). The parent is
 *   added first with one child of its own, a gate job on a queue no worker takes, so it cannot run
 *   while slices are still being added, however fast the early shards finish; once every shard job
 *   is added the gate is removed, which releases the parent (BullMQ moves a parent on when its last
 *   pending child goes). A crash mid-way leaves the sync PLANNED with the parent still gated; the
 *   resume enqueues again: the parent, the gate and the jobs already added are found by their ids
 *   and not added twice, the missing ones are added, then the gate goes.
 * - Shard jobs carry pointers (sync id, shard id) and the shard's vote token, never data (the
 *   Kafka 1 MB lesson) and never the source: the worker reads that from the persisted plan.
 * - The bucketed layout has a second flow, enqueued by the committer once every shard is accepted
 *   and the sync is MERGING: a parent `commit` job (`commit-buckets-<sync>`) with one `merge-bucket`
 *   child per (partition, bucket) of the persisted bucket plan, any worker taking any bucket. Its
 *   parent drives the sync on to its commit once every bucket job has finished.
 */
import { FlowProducer, Queue, type ConnectionOptions } from 'bullmq';
import {
  SYNC_QUEUES,
  bucketJobId,
  bucketVoteToken,
  encodeVoteToken,
  shardVoteToken,
  type SyncBucketJob,
  type SyncCommitJob,
  type SyncShardJob,
} from '@tributary/protocol';
import type { SyncRecord } from './state.ts';

export interface FlowOptions {
  readonly connection: ConnectionOptions;
  /** The BullMQ key prefix; the sync records use the same prefix. */
  readonly prefix: string;
  /** Signs each shard job (vote-token.ts in @tributary/protocol). */
  readonly clusterSecret: Uint8Array;
  /** The first wait before a failed shard or bucket job runs again, doubling after (JOB_BACKOFF_MS in a coordinator). */
  readonly shardBackoffMs: number;
  readonly commitAttempts: number;
  /** Shard jobs added per call (ENQUEUE_SLICE unless set; tests use small slices). */
  readonly enqueueSlice?: number;
  /** For tests (a crash, a pause): awaited after each slice of shard jobs is added, with how many are added so far. */
  readonly sliceAdded?: (added: number) => void | Promise<void>;
}

/**
 * The commit jobs' retry delays: doubling from 500 ms, never more than COMMIT_BACKOFF_CAP_MS apart
 * (BullMQ's own exponential backoff has no ceiling: after a dozen failed tries a sync would wait
 * half an hour for the next one). The commit worker registers it as its backoff strategy.
 */
export const COMMIT_BACKOFF = { type: 'commit-capped' } as const;
export const COMMIT_BACKOFF_CAP_MS = 30_000;
/** Tries per commit job (about ten minutes of them at the cap). */
export const COMMIT_ATTEMPTS = 25;
export function commitBackoffMs(attemptsMade: number, random: () => number = Math.random): number {
  const base = Math.min(COMMIT_BACKOFF_CAP_MS, 500 * 2 ** Math.max(0, attemptsMade - 1));
  return Math.round(base * (0.8 + 0.4 * random()));
}
/** Times a commit job may be re-run after its lock lapsed before it fails (and the sync waits for a redrive). */
export const COMMIT_MAX_STALLS = 20;
/** A sync whose commit jobs all failed is driven again this long after the last one. */
export const REDRIVE_DELAY_MS = 60_000;
export const REDRIVE_JOB = 'redrive';

/** Shard jobs added per BullMQ call: a slice's jobs are what the enqueue holds in memory at once. */
export const ENQUEUE_SLICE = 500;
/** The queue of the flows' gate jobs: no worker takes from it, so a gate job never runs. */
const GATE_QUEUE = 'flow-gate';

const commitJobId = (syncId: string): string => `commit-${syncId}`;
const timeoutJobId = (syncId: string): string => `timeout-${syncId}`;
export const PREPARE_TIMEOUT_JOB = 'prepare-timeout';
const abortGraceJobId = (syncId: string): string => `abort-grace-${syncId}`;
export const ABORT_GRACE_JOB = 'abort-grace';
const shardJobId = (syncId: string, shardId: string): string => `shard-${syncId}-${shardId}`;
const gateJobId = (syncId: string): string => `gate-${syncId}`;
const bucketParentJobId = (syncId: string): string => `commit-buckets-${syncId}`;
const bucketQueueJobId = (syncId: string, bucketId: string): string => `${bucketId}-${syncId}`;

/** Where the bucket stage's parent job stands: never enqueued, some bucket job not ended yet, or every bucket job ended. */
export type BucketFlowState = 'absent' | 'pending' | 'finished';

export class SyncFlows {
  readonly #options: FlowOptions;
  readonly #producer: FlowProducer;
  readonly commitQueue: Queue;
  readonly shardQueue: Queue;
  readonly bucketQueue: Queue;
  readonly #gateQueue: Queue;

  constructor(options: FlowOptions) {
    this.#options = options;
    const { connection, prefix } = options;
    this.#producer = new FlowProducer({ connection, prefix });
    this.commitQueue = new Queue(SYNC_QUEUES.commit, { connection, prefix });
    this.shardQueue = new Queue(SYNC_QUEUES.writeShard, { connection, prefix });
    this.bucketQueue = new Queue(SYNC_QUEUES.mergeBucket, { connection, prefix });
    this.#gateQueue = new Queue(GATE_QUEUE, { connection, prefix });
  }

  /** Reports the connection errors of the producer and both queues (BullMQ prints a stack trace for each when nobody listens). */
  onError(listener: (error: Error) => void): void {
    this.#producer.on('error', listener);
    this.commitQueue.on('error', listener);
    this.shardQueue.on('error', listener);
    this.bucketQueue.on('error', listener);
    this.#gateQueue.on('error', listener);
  }

  /**
   * Enqueues the flow in slices (see the module comment); `fingerprint` is planFingerprint(record.plan),
   * which the worker plan carries too. Safe to call again after a crash at any point.
   */
  async enqueue(record: SyncRecord, fingerprint: string): Promise<void> {
    const { prefix, clusterSecret, shardBackoffMs, commitAttempts } = this.#options;
    const plan = record.plan;
    const commitData: SyncCommitJob = { syncId: record.id, keyPrefix: prefix };
    const parentId = commitJobId(record.id);
    await this.#producer.add({
      name: 'commit',
      queueName: SYNC_QUEUES.commit,
      data: commitData,
      opts: { jobId: parentId, attempts: commitAttempts, backoff: COMMIT_BACKOFF },
      children: [{ name: 'gate', queueName: GATE_QUEUE, data: commitData, opts: { jobId: gateJobId(record.id) } }],
    });
    const parent = { id: parentId, queue: this.commitQueue.qualifiedName };
    const slice = this.#options.enqueueSlice ?? ENQUEUE_SLICE;
    for (let from = 0; from < plan.shards.length; from += slice) {
      await this.shardQueue.addBulk(
        plan.shards.slice(from, from + slice).map((shard) => {
          const data: SyncShardJob = {
            syncId: record.id,
            shardId: shard.id,
            token: encodeVoteToken(shardVoteToken(clusterSecret, record.id, shard.id, fingerprint)),
          };
          return {
            name: 'write-shard',
            data,
            opts: {
              jobId: shardJobId(record.id, shard.id),
              parent,
              // Transient failures retry; deterministic ones (UnrecoverableError) fail at once.
              attempts: plan.options.maxAttempts,
              backoff: { type: 'exponential', delay: shardBackoffMs, jitter: 0.2 },
              ignoreDependencyOnFailure: true,
              removeOnComplete: { age: 7 * 24 * 3600 },
            },
          };
        }),
      );
      await this.#options.sliceAdded?.(Math.min(plan.shards.length, from + slice));
    }
    // Every shard job is a child of the parent now: removing the gate releases it (at once if every
    // shard job has already finished). Removing a gate that is already gone does nothing.
    await this.#gateQueue.remove(gateJobId(record.id));
  }

  /**
   * Enqueues the bucket stage: `buckets` merge-bucket jobs (`bucket-0` …), each with its bucket's
   * vote token, under a parent commit job. Job ids are the sync's and the bucket's, so enqueueing
   * again after a crash adds nothing.
   */
  async enqueueBuckets(record: SyncRecord, fingerprint: string, buckets: number): Promise<void> {
    const { prefix, clusterSecret, shardBackoffMs, commitAttempts } = this.#options;
    const commitData: SyncCommitJob = { syncId: record.id, keyPrefix: prefix };
    await this.#producer.add({
      name: 'commit',
      queueName: SYNC_QUEUES.commit,
      data: commitData,
      opts: { jobId: bucketParentJobId(record.id), attempts: commitAttempts, backoff: COMMIT_BACKOFF },
      children: Array.from({ length: buckets }, (_, i) => {
        const bucketId = bucketJobId(i);
        const data: SyncBucketJob = { syncId: record.id, bucketId, token: encodeVoteToken(bucketVoteToken(clusterSecret, record.id, bucketId, fingerprint)) };
        return {
          name: 'merge-bucket',
          queueName: SYNC_QUEUES.mergeBucket,
          data,
          opts: {
            jobId: bucketQueueJobId(record.id, bucketId),
            attempts: record.plan.options.maxAttempts,
            backoff: { type: 'exponential', delay: shardBackoffMs, jitter: 0.2 },
            ignoreDependencyOnFailure: true,
            removeOnComplete: { age: 7 * 24 * 3600 },
          },
        };
      }),
    });
  }

  /** Where the sync's bucket stage parent job stands. */
  async bucketFlowState(syncId: string): Promise<BucketFlowState> {
    const job = await this.commitQueue.getJob(bucketParentJobId(syncId));
    if (job === undefined) return 'absent';
    // BullMQ moves a parent out of waiting-children only once every child has ended (completed, or
    // failed: ignoreDependencyOnFailure). From then on the bucket jobs' outcomes are final, whether
    // the parent waits, runs (it may be the very job driving the sync now) or has ended.
    return (await job.getState()) === 'waiting-children' ? 'pending' : 'finished';
  }

  /** A delayed job on the commit queue that aborts the sync if it is still preparing by then. */
  async scheduleTimeout(record: SyncRecord): Promise<void> {
    const delay = record.plan.options.prepareTimeoutMs;
    if (delay === undefined) return;
    const data: SyncCommitJob = { syncId: record.id, keyPrefix: this.#options.prefix };
    await this.commitQueue.add(PREPARE_TIMEOUT_JOB, data, { jobId: timeoutJobId(record.id), delay, removeOnComplete: true });
  }

  /**
   * A delayed job on the commit queue that finishes the sync's abort after `delayMs`, whether or
   * not its shard jobs have ended by then (a dead or frozen worker may hold one for ever). Adding it
   * again while it waits adds nothing (the job id is the sync's).
   */
  async scheduleAbortGrace(syncId: string, delayMs: number): Promise<void> {
    const data: SyncCommitJob = { syncId, keyPrefix: this.#options.prefix };
    await this.commitQueue.add(ABORT_GRACE_JOB, data, { jobId: abortGraceJobId(syncId), delay: delayMs, removeOnComplete: true, attempts: 5, backoff: { type: 'exponential', delay: 1000 } });
  }

  /**
   * Drives the sync again in `delayMs`: for a sync still not ended after its commit job used every
   * attempt (nothing else would move it before the coordinator restarts). The job is removed when
   * it ends, so the next redrive can be added under the same id; adding it while one waits adds nothing.
   */
  async scheduleRedrive(syncId: string, delayMs: number, attempts: number): Promise<void> {
    const data: SyncCommitJob = { syncId, keyPrefix: this.#options.prefix };
    await this.commitQueue.add(REDRIVE_JOB, data, { jobId: `redrive-${syncId}`, delay: delayMs, attempts, backoff: COMMIT_BACKOFF, removeOnComplete: true, removeOnFail: true });
  }

  /** Whether any shard job (or bucket job, for a sync in MERGING) of the sync is running now. */
  async anyShardActive(record: SyncRecord): Promise<boolean> {
    for (const shard of record.plan.shards) {
      const job = await this.shardQueue.getJob(shardJobId(record.id, shard.id));
      if (job !== undefined && (await job.getState()) === 'active') return true;
    }
    const buckets = record.state.phase === 'MERGING' ? record.state.buckets : 0;
    for (let i = 0; i < buckets; i++) {
      const job = await this.bucketQueue.getJob(bucketQueueJobId(record.id, bucketJobId(i)));
      if (job !== undefined && (await job.getState()) === 'active') return true;
    }
    return false;
  }

  /** Whether one of the sync's parent jobs (the shards' flow, or the buckets') still exists and has not finished. */
  async parentPending(syncId: string): Promise<boolean> {
    const job = await this.commitQueue.getJob(commitJobId(syncId));
    if (job !== undefined) {
      const state = await job.getState();
      if (state !== 'completed' && state !== 'failed' && state !== 'unknown') return true;
    }
    return (await this.bucketFlowState(syncId)) === 'pending';
  }

  async close(): Promise<void> {
    await Promise.all([this.#producer.close(), this.commitQueue.close(), this.shardQueue.close(), this.bucketQueue.close(), this.#gateQueue.close()]);
  }
}
