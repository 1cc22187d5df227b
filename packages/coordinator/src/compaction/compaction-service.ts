/**
 * Compactions as the coordinator runs them: plan, jobs, one COMPACT snapshot or nothing.
 *
 *   POST …/compactions ─ plan (@tributary/table planTableCompaction: one unit per (partition, bucket)
 *                        that needs it, against the latest snapshot) ─ no unit: COMMITTED, no snapshot
 *   RUNNING     ─ each job's input files' metadata staged (.tributary/compactions/<id>/<job>/inputs.manifest),
 *                 the plan persisted in Redis (head + one entry per job), one `compact-bucket` job per
 *                 unit carrying its vote token; a job's first finished attempt is accepted with its
 *                 vote (the worker's ledger, only while RUNNING)
 *               ─ a job failed for good ─► FAILED (COMPACTION_JOB_FAILED), nothing committed
 *   COMMITTING  ─ every job accepted: no more accepts; each accepted blob loaded and verified (plan,
 *                 token, vote), all their messages published as ONE `COMPACT` snapshot under the
 *                 compaction's own commit identity (a retry finds it: idempotent)
 *   COMMITTED   ─ the snapshot id recorded; the staged blobs deleted
 *   CONFLICT    ─ the commit found a file it rewrote no longer live (another compaction, or an
 *                 overwrite, replaced it since the plan) and no snapshot carries the compaction's
 *                 identity: COMMIT_CONFLICT, nothing committed; the rewritten files are deleted
 *                 (nothing references them). A failed publish whose identity is found is COMMITTED.
 *
 * Two coordinators may drive one compaction for a while (the new one resumes it on start while the
 * old one finishes): only the driver whose move ended the compaction deletes its files.
 *
 * A sync never waits for or fails because of a compaction: a load only adds files, which a COMPACT
 * commit does not touch; the compaction gives way instead. Files of a killed attempt of a committed
 * compaction are never referenced: the orphan cleanup removes them.
 *
 * A coordinator that restarts drives the compactions it finds RUNNING or COMMITTING again.
 *
 * Records: a compaction's id is in the live set (compactionLiveKey) from its plan until it ends, so
 * the maintenance finds a table's live compactions without reading every compaction recorded; once
 * it ends, its record, plan and ledger expire after `recordRetentionMs` (default 7 days), and the
 * index of all compactions drops ids started longer ago than that as new compactions start.
 */
import { createHash, randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Queue, type ConnectionOptions } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import {
  COMPACTION_QUEUE,
  CompactionPlanHead,
  CompactionVote,
  PLAN_HEAD_FIELD,
  compactionEntryDigest,
  compactionIndexKey,
  compactionJobId,
  compactionLiveKey,
  compactionPlanFingerprint,
  compactionRedisKeys,
  compactionStagingPrefix,
  compactionVoteToken,
  dataFileMarker,
  encodeVoteToken,
  errorFrom,
  isTributaryError,
  planJobField,
  stagedCompactionBlobKey,
  stagedCompactionInputsKey,
  toErrorData,
  type CompactionJob,
  type CompactionPhase,
  type ErrorData,
  type PlannedCompactionEntry,
} from '@tributary/protocol';
import { encodeCompactionInputs, planTableCompaction, type BucketCompaction, type CompactTableRequest, type TableRef, type Tables } from '@tributary/table';
import { coordinatorErrors } from '../errors.ts';
import { claimIdempotencyKey, idempotencyHash } from '../idempotency.ts';
import type { FaultPoint } from '../sync/committer.ts';
import { loadShardBlob } from '../sync/staging.ts';

export interface CompactionServiceDeps {
  readonly redis: Redis;
  readonly connection: ConnectionOptions;
  readonly prefix: string;
  readonly tables: Tables;
  readonly warehouse: string;
  readonly clusterSecret: Uint8Array;
  readonly logger?: Logger;
  /** How often a running compaction's jobs are looked at (default 250 ms). */
  readonly pollMs?: number;
  /** Tries per job (BullMQ attempts, default 3). */
  readonly jobAttempts?: number;
  /** How long an ended compaction's record, plan and ledger stay in Redis (default COMPACTION_RECORD_RETENTION_MS). */
  readonly recordRetentionMs?: number;
  /**
   * Fault injection for the coordinator-crash tests, the sync commit's hook: called just before the
   * COMPACT snapshot is published and just after, before COMMITTED is recorded. Production leaves it unset.
   */
  readonly faultPoint?: (point: FaultPoint) => void;
}

/** A compaction as the API shows it. */
export interface CompactionView {
  readonly id: string;
  readonly table: TableRef;
  readonly phase: CompactionPhase;
  readonly full: boolean;
  readonly partitions: readonly string[] | null;
  readonly createdAt: string;
  readonly updatedAt: string;
  /** The snapshot planned against (null: the table had none). */
  readonly baseSnapshotId: number | null;
  /** The COMPACT snapshot (COMMITTED with jobs; null otherwise). */
  readonly snapshotId: number | null;
  readonly jobs: number;
  readonly acceptedJobs: number;
  /** Live files of the planned partitions at planning, and how many the jobs rewrite. */
  readonly liveFiles: number;
  readonly filesBefore: number;
  /** Files the rewrite wrote (known once COMMITTED). */
  readonly filesAfter: number | null;
  readonly error: ErrorData | null;
}

type StoredView = Omit<CompactionView, 'acceptedJobs'>;

const TERMINAL: readonly CompactionPhase[] = ['COMMITTED', 'FAILED', 'CONFLICT'];
/** BullMQ job id of a compaction job. */
const bullJobId = (compactionId: string, jobId: string) => `${compactionId}-${jobId}`;
/** How long a repeated request waits for the first one with its Idempotency-Key to plan. */
const START_WAIT_MS = 10_000;
/** The planning claim's expiry: longer than any plan takes. */
const START_CLAIM_MS = 60_000;
/** The short claim of whoever plans compaction `id`. */
const startClaimKey = (prefix: string, id: string): string => `${compactionRedisKeys(prefix, id).record}:starting`;
/** Jobs' inputs objects written at once while planning. */
const INPUTS_STAGED_AT_ONCE = 16;
/** An ended compaction's record, plan and ledger stay this long (GET answers 404 after). */
export const COMPACTION_RECORD_RETENTION_MS = 7 * 24 * 3600 * 1000;
/** Long.MAX_VALUE: a batch commit's identifier (the commit user is the compaction's own). */
const BATCH_IDENTIFIER = 2n ** 63n - 1n;

// KEYS: record, live set, then the compaction's other keys (plan, ledger). ARGV: expected phase(s)
// joined by ',', new phase, view JSON, compaction id, retention ms ('' unless the new phase ends it).
// 1: moved, 0: not in an expected phase. Ending it leaves the live set and starts every key's expiry.
const MOVE_SCRIPT = `
local phase = redis.call('HGET', KEYS[1], 'phase')
for p in string.gmatch(ARGV[1], '[^,]+') do
  if phase == p then
    redis.call('HSET', KEYS[1], 'phase', ARGV[2], 'view', ARGV[3])
    if ARGV[5] ~= '' then
      redis.call('SREM', KEYS[2], ARGV[4])
      redis.call('PEXPIRE', KEYS[1], ARGV[5])
      for i = 3, #KEYS do redis.call('PEXPIRE', KEYS[i], ARGV[5]) end
    end
    return 1
  end
end
return 0
`;

export class CompactionService {
  readonly #d: CompactionServiceDeps;
  readonly #queue: Queue;
  readonly #driving = new Map<string, Promise<void>>();
  #closed = false;
  /** Whether this coordinator has put the index's live compactions into the live set (once). */
  #indexMigrated = false;

  get #retentionMs(): number {
    return this.#d.recordRetentionMs ?? COMPACTION_RECORD_RETENTION_MS;
  }

  constructor(deps: CompactionServiceDeps) {
    this.#d = deps;
    this.#queue = new Queue(COMPACTION_QUEUE, { connection: deps.connection, prefix: deps.prefix });
    this.#queue.on('error', (error) => deps.logger?.warn({ error: error.message }, 'compaction queue error'));
  }

  get queue(): Queue {
    return this.#queue;
  }

  /**
   * Plans a compaction of the table and starts its jobs. With an idempotency key, a repeated request
   * (same table and body) returns the compaction the first one started (`created` false).
   * @throws TABLE_NOT_FOUND, TABLE_OPTION_INVALID, IDEMPOTENCY_KEY_REUSED, COMPACTION_STARTING
   */
  async start(ref: TableRef, request: CompactTableRequest, idempotencyKey?: string): Promise<{ view: CompactionView; created: boolean }> {
    let id = `compact-${randomUUID()}`;
    if (idempotencyKey !== undefined) {
      const asked = { compaction: { database: ref.database, table: ref.table }, full: request.full, partitions: request.partitions ?? null };
      const bound = await claimIdempotencyKey(this.#d.redis, this.#d.prefix, idempotencyKey, idempotencyHash(asked), id);
      if (bound !== undefined) {
        const existing = await this.#startedBy(bound);
        if (existing !== undefined) return { view: existing, created: false };
        id = bound; // the first request died before planning: plan now, under its id
      } else {
        await this.#claimStart(id);
      }
      try {
        return { view: await this.#plan(id, ref, request), created: true };
      } catch (error) {
        // Planning failed (no such table, a bad option): a repeat plans again at once and gets the
        // same answer, rather than waiting for a planner that has given up.
        await this.#d.redis.del(startClaimKey(this.#d.prefix, id)).catch(() => {});
        throw error;
      }
    }
    return { view: await this.#plan(id, ref, request), created: true };
  }

  /**
   * The compaction a first request with the same key started: waits (up to START_WAIT_MS) while that
   * request is planning; undefined when no request is planning it any more (it died): the caller
   * holds the claim then and plans it. @throws COMPACTION_STARTING when the first request is still planning
   */
  async #startedBy(id: string): Promise<CompactionView | undefined> {
    const deadline = Date.now() + START_WAIT_MS;
    for (;;) {
      if ((await this.#d.redis.hexists(compactionRedisKeys(this.#d.prefix, id).record, 'view')) === 1) return this.get(id);
      if (await this.#claimStart(id)) return undefined;
      if (Date.now() > deadline) {
        throw errorFrom(coordinatorErrors, 'COMPACTION_STARTING', `compaction ${id} of this Idempotency-Key is still being planned; retry`, { compactionId: id });
      }
      await sleep(100);
    }
  }

  /** The short claim of whoever plans compaction `id` (a key with an expiry: a dead planner frees it). */
  async #claimStart(id: string): Promise<boolean> {
    return (await this.#d.redis.set(startClaimKey(this.#d.prefix, id), '1', 'PX', START_CLAIM_MS, 'NX')) === 'OK';
  }

  async #plan(id: string, ref: TableRef, request: CompactTableRequest): Promise<CompactionView> {
    const { tables, warehouse, redis, prefix } = this.#d;
    const table = await tables.openTable(warehouse, ref);
    const plan = await planTableCompaction(table, request);
    const now = new Date().toISOString();
    const view: StoredView = {
      id,
      table: { database: ref.database, table: ref.table },
      phase: plan.buckets.length === 0 ? 'COMMITTED' : 'RUNNING',
      full: request.full,
      partitions: request.partitions === undefined ? null : [...request.partitions],
      createdAt: now,
      updatedAt: now,
      baseSnapshotId: plan.baseSnapshotId,
      snapshotId: null,
      jobs: plan.buckets.length,
      liveFiles: plan.liveFiles,
      filesBefore: plan.buckets.reduce((n, b) => n + b.unit.files.length, 0),
      filesAfter: plan.buckets.length === 0 ? 0 : null,
      error: null,
    };
    const keys = compactionRedisKeys(prefix, id);
    if (plan.buckets.length > 0 && plan.baseSnapshotId !== null) {
      const entries = await this.#stageInputs(id, plan.buckets);
      const basics = { compactionId: id, warehouse, table: view.table, schemaId: table.schema.id, baseSnapshotId: plan.baseSnapshotId, full: request.full, jobs: entries.length };
      const entryDigests = entries.map(compactionEntryDigest);
      const head = CompactionPlanHead.parse({ ...basics, entryDigests, fingerprint: compactionPlanFingerprint(basics, entryDigests) });
      const fields: string[] = [PLAN_HEAD_FIELD, JSON.stringify(head)];
      entries.forEach((e, i) => fields.push(planJobField(compactionJobId(i)), JSON.stringify(e)));
      await redis.hset(keys.plan, ...fields);
      await redis
        .multi()
        .hset(keys.record, 'phase', view.phase, 'view', JSON.stringify(view))
        .sadd(compactionLiveKey(prefix), id)
        .zadd(compactionIndexKey(prefix), Date.now(), id)
        .exec();
      await this.#queue.addBulk(
        entries.map((_, i) => {
          const jobId = compactionJobId(i);
          const data: CompactionJob = { compactionId: id, jobId, token: encodeVoteToken(compactionVoteToken(this.#d.clusterSecret, id, jobId, head.fingerprint)) };
          return {
            name: 'compact',
            data,
            opts: {
              jobId: bullJobId(id, jobId),
              attempts: this.#d.jobAttempts ?? 3,
              backoff: { type: 'exponential', delay: 1000 },
              removeOnComplete: { age: 3600 },
              removeOnFail: { age: 86_400 },
            },
          };
        }),
      );
      this.#drive(id);
    } else {
      // Nothing to do: ended at once.
      await redis
        .multi()
        .hset(keys.record, 'phase', view.phase, 'view', JSON.stringify(view))
        .pexpire(keys.record, this.#retentionMs)
        .zadd(compactionIndexKey(prefix), Date.now(), id)
        .exec();
    }
    await redis.zremrangebyscore(compactionIndexKey(prefix), '-inf', Date.now() - this.#retentionMs);
    this.#d.logger?.info({ compactionId: id, table: `${ref.database}.${ref.table}`, jobs: view.jobs, files: view.filesBefore, full: request.full }, 'compaction planned');
    return { ...view, acceptedJobs: 0 };
  }

  /**
   * Each job's input files' metadata, staged before the plan exists in Redis: a job never scans the
   * manifests for it, and its entry carries the object's SHA-256 (bound by the fingerprint). What
   * was staged is deleted again when staging fails (no record would ever own it).
   */
  async #stageInputs(id: string, buckets: readonly BucketCompaction[]): Promise<PlannedCompactionEntry[]> {
    const store = this.#d.tables.warehouseStore(this.#d.warehouse);
    const staged: string[] = [];
    const entries: PlannedCompactionEntry[] = [];
    try {
      for (let at = 0; at < buckets.length; at += INPUTS_STAGED_AT_ONCE) {
        const batch = buckets.slice(at, at + INPUTS_STAGED_AT_ONCE).map(async (b, j): Promise<PlannedCompactionEntry> => {
          const i = at + j;
          const inputs = encodeCompactionInputs(b);
          const key = stagedCompactionInputsKey(id, compactionJobId(i));
          await store.put(key, inputs);
          staged.push(key);
          return {
            partition: Buffer.from(b.partition).toString('base64'),
            partitionPath: b.partitionPath,
            bucket: b.bucket,
            totalBuckets: b.totalBuckets,
            outputLevel: b.unit.outputLevel,
            dropDelete: b.unit.dropDelete,
            files: b.unit.files.length,
            inputsSha256: createHash('sha256').update(inputs).digest('hex'),
            rows: b.unit.files.reduce((n, f) => n + Number(f.rowCount), 0),
            bytes: b.unit.files.reduce((n, f) => n + Number(f.fileSize), 0),
          };
        });
        // Every put settled before a failure is thrown: the cleanup below sees all that was written.
        const settled = await Promise.allSettled(batch);
        for (const r of settled) if (r.status === 'rejected') throw r.reason;
        entries.push(...settled.map((r) => (r as PromiseFulfilledResult<PlannedCompactionEntry>).value));
      }
      return entries;
    } catch (error) {
      await store.deleteMany(staged).catch(() => {});
      throw error;
    }
  }

  /**
   * A sync's `compactAfter`, once it is COMMITTED: a compaction by Paimon's rules (not full) of the
   * whole table. Never fails the committed sync: a failure is logged, and the next request plans again.
   */
  async startAfterCommit(ref: TableRef, syncId: string): Promise<void> {
    try {
      const { view } = await this.start(ref, { full: false });
      this.#d.logger?.info({ syncId, compactionId: view.id, jobs: view.jobs }, 'compaction after the sync planned');
    } catch (error) {
      this.#d.logger?.warn(
        { syncId, table: `${ref.database}.${ref.table}`, code: isTributaryError(error) ? error.code : undefined, error: error instanceof Error ? error.message : String(error) },
        'compaction after the sync could not be planned; the sync stays committed',
      );
    }
  }

  /** @throws COMPACTION_NOT_FOUND */
  async get(id: string): Promise<CompactionView> {
    const keys = compactionRedisKeys(this.#d.prefix, id);
    const [json, accepted] = await Promise.all([this.#d.redis.hget(keys.record, 'view'), this.#d.redis.hlen(keys.accepted)]);
    if (json === null) throw errorFrom(coordinatorErrors, 'COMPACTION_NOT_FOUND', `compaction ${id} does not exist`, { compactionId: id });
    return { ...(JSON.parse(json) as StoredView), acceptedJobs: accepted };
  }

  /**
   * The table's compactions not yet ended, for the maintenance: their ids (their files are named
   * after them), base snapshots (their jobs read its manifests) and whether one is COMMITTING.
   */
  async liveOf(ref: TableRef): Promise<{ ids: string[]; bases: number[]; committing: boolean }> {
    const { redis, prefix } = this.#d;
    const live = { ids: [] as string[], bases: [] as number[], committing: false };
    for (const id of await this.#liveIds()) {
      const json = await redis.hget(compactionRedisKeys(prefix, id).record, 'view');
      if (json === null) {
        await redis.srem(compactionLiveKey(prefix), id); // the record is gone (deleted from outside)
        continue;
      }
      const view = JSON.parse(json) as StoredView;
      if (TERMINAL.includes(view.phase) || view.table.database !== ref.database || view.table.table !== ref.table) continue;
      live.ids.push(id);
      if (view.baseSnapshotId !== null) live.bases.push(view.baseSnapshotId);
      if (view.phase === 'COMMITTING') live.committing = true;
    }
    return live;
  }

  /**
   * Whose a compaction's staging (`.tributary/compactions/<id>/`) is, for the orphan cleanup: its
   * table, and whether it ended (COMMITTED, FAILED or CONFLICT); undefined when no such compaction
   * is recorded.
   */
  async ownerOf(id: string): Promise<{ table: TableRef; ended: boolean } | undefined> {
    const json = await this.#d.redis.hget(compactionRedisKeys(this.#d.prefix, id).record, 'view');
    if (json === null) return undefined;
    const view = JSON.parse(json) as StoredView;
    return { table: view.table, ended: TERMINAL.includes(view.phase) };
  }

  /**
   * The ids of the compactions not yet ended: the live set, and (for records written before the set
   * existed) the index's ids not ended, which are added to the set.
   */
  async #liveIds(): Promise<string[]> {
    const { redis, prefix } = this.#d;
    const live = new Set(await redis.smembers(compactionLiveKey(prefix)));
    if (!this.#indexMigrated) {
      for (const id of await redis.zrange(compactionIndexKey(prefix), '0', '-1')) {
        if (live.has(id)) continue;
        const phase = await redis.hget(compactionRedisKeys(prefix, id).record, 'phase');
        if (phase === 'RUNNING' || phase === 'COMMITTING') {
          await redis.sadd(compactionLiveKey(prefix), id);
          live.add(id);
        }
      }
      this.#indexMigrated = true;
    }
    return [...live];
  }

  /** Drives again the compactions left RUNNING or COMMITTING (a coordinator restarted). */
  async resume(): Promise<void> {
    for (const id of await this.#liveIds()) {
      const phase = await this.#d.redis.hget(compactionRedisKeys(this.#d.prefix, id).record, 'phase');
      if (phase === 'RUNNING' || phase === 'COMMITTING') this.#drive(id);
    }
  }

  /** Waits for nothing new: the drivers stop at their next step (a restarted coordinator resumes them). */
  async close(): Promise<void> {
    this.#closed = true;
    await Promise.allSettled([...this.#driving.values()]);
    await this.#queue.close();
  }

  #drive(id: string): void {
    if (this.#driving.has(id)) return;
    const run = this.#run(id)
      .catch((error: unknown) => this.#d.logger?.warn({ compactionId: id, error: error instanceof Error ? error.message : String(error) }, 'compaction driver stopped; resumed on restart'))
      .finally(() => this.#driving.delete(id));
    this.#driving.set(id, run);
  }

  async #run(id: string): Promise<void> {
    const keys = compactionRedisKeys(this.#d.prefix, id);
    for (;;) {
      if (this.#closed) return;
      const view = await this.get(id);
      if (TERMINAL.includes(view.phase)) return;
      if (view.phase === 'COMMITTING' || view.acceptedJobs >= view.jobs) {
        await this.#commit(id, view);
        return;
      }
      const accepted = new Set(await this.#d.redis.hkeys(keys.accepted));
      for (let i = 0; i < view.jobs; i++) {
        const jobId = compactionJobId(i);
        if (accepted.has(jobId)) continue;
        const job = await this.#queue.getJob(bullJobId(id, jobId));
        // Failed, and still not accepted once seen failed: a job accepted between the read above and its
        // state's (then failed after its vote, a lapsed lock's re-run) is waited for by the next round.
        if (job !== undefined && (await job.getState()) === 'failed' && (await this.#d.redis.hexists(keys.accepted, jobId)) === 0) {
          // Read again: the job may have failed between the read above and its state's.
          const reason = (await this.#queue.getJob(bullJobId(id, jobId)))?.failedReason ?? job.failedReason;
          const error = errorFrom(coordinatorErrors, 'COMPACTION_JOB_FAILED', `${jobId} of compaction ${id} failed: ${reason}`, { compactionId: id, job: jobId });
          // Its files go only if this driver ended it: another driver of the compaction (a coordinator
          // that resumed it on start while this one still runs it) may have seen every job accepted
          // (a lapsed lock's first execution voting after the state read above) and moved it to
          // COMMITTING; its commit then publishes the very files deleted here.
          if (await this.#move(id, ['RUNNING'], 'FAILED', { error: toErrorData(error) })) await this.#deleteStaged(id, view, true);
          return;
        }
      }
      await sleep(this.#d.pollMs ?? 250);
    }
  }

  async #commit(id: string, view: CompactionView): Promise<void> {
    const { redis, prefix, tables, warehouse } = this.#d;
    if (!(await this.#move(id, ['RUNNING', 'COMMITTING'], 'COMMITTING', {}))) return;
    const keys = compactionRedisKeys(prefix, id);
    const [accepted, votes, headJson] = await Promise.all([redis.hgetall(keys.accepted), redis.hgetall(keys.votes), redis.hget(keys.plan, PLAN_HEAD_FIELD)]);
    const head = CompactionPlanHead.parse(JSON.parse(headJson ?? 'null'));
    const store = tables.warehouseStore(warehouse);
    const tablePath = tables.tablePath(view.table);
    const messages = [];
    for (let i = 0; i < view.jobs; i++) {
      const jobId = compactionJobId(i);
      const attemptId = accepted[jobId];
      if (attemptId === undefined) {
        const error = errorFrom(coordinatorErrors, 'COMPACTION_JOB_MISSING', `${jobId} of compaction ${id} has no accepted attempt`, { compactionId: id, job: jobId });
        await this.#move(id, ['COMMITTING'], 'FAILED', { error: toErrorData(error) });
        return;
      }
      const loaded = await loadShardBlob(store, { id, plan: { schemaId: head.schemaId } }, tablePath, jobId, attemptId, {
        voteToken: (job) => compactionVoteToken(this.#d.clusterSecret, id, job, head.fingerprint),
        vote: (job) => Promise.resolve(votes[job] === undefined ? undefined : CompactionVote.parse(JSON.parse(votes[job] as string))),
        blobKey: (job, attempt) => stagedCompactionBlobKey(id, job, attempt),
      });
      messages.push(...loaded.messages);
    }
    const identity = { commitUser: `tributary-${id}`, commitIdentifier: BATCH_IDENTIFIER };
    const filesAfter = messages.reduce((n, m) => n + m.compactIncrement.compactAfter.length, 0);
    try {
      this.#d.faultPoint?.('before-publish');
      const result = await tables.publish(warehouse, view.table, {
        messages,
        identity,
        kind: 'COMPACT',
        baseSnapshotId: head.baseSnapshotId,
        properties: { 'tributary.compaction': id },
      });
      this.#d.faultPoint?.('after-publish');
      await this.#committed(id, view, result.snapshotId, filesAfter);
    } catch (error) {
      // Unknown outcome until the table says otherwise: look for our identity before giving up. Another
      // driver of this compaction (a coordinator that resumed it on start while this one still commits)
      // may have published the same COMPACT snapshot inside this publish, after its look for the
      // identity: this one then finds the files it rewrites no longer live (COMMIT_CONFLICT, with
      // itself), and deleting "its" rewritten files would delete the ones that snapshot references.
      // A snapshot of ours can only land before the conflict was seen (the same inputs, so a later
      // try of the other driver conflicts too), so one look after the failure is enough.
      const landed = await tables.findCommitted(warehouse, view.table, identity, head.baseSnapshotId);
      if (landed !== undefined) {
        await this.#committed(id, view, landed, filesAfter);
        return;
      }
      if (isTributaryError(error) && error.code === 'COMMIT_CONFLICT') {
        // The rewritten files go only if this driver ended it (never under a record another one moved on).
        if (await this.#move(id, ['COMMITTING'], 'CONFLICT', { error: toErrorData(error) })) {
          this.#d.logger?.info({ compactionId: id, error: error.message }, 'compaction gave way: a file it rewrote is no longer live');
          await this.#deleteStaged(id, view, true);
        }
        return;
      }
      if (isTributaryError(error) && !error.retryable) {
        await this.#move(id, ['COMMITTING'], 'FAILED', { error: toErrorData(error) });
        return;
      }
      throw error; // left COMMITTING: the next start drives it again (the publish finds its identity)
    }
  }

  /** The COMPACT snapshot is the table's: recorded, then the staged blobs go (the rewritten files are the snapshot's). */
  async #committed(id: string, view: StoredView, snapshotId: number, filesAfter: number): Promise<void> {
    await this.#move(id, ['COMMITTING'], 'COMMITTED', { snapshotId, filesAfter });
    this.#d.logger?.info({ compactionId: id, snapshotId, filesBefore: view.filesBefore, filesAfter }, 'compaction committed');
    await this.#deleteStaged(id, view, false);
  }

  async #move(id: string, from: readonly CompactionPhase[], to: CompactionPhase, patch: Partial<StoredView>): Promise<boolean> {
    const keys = compactionRedisKeys(this.#d.prefix, id);
    const json = await this.#d.redis.hget(keys.record, 'view');
    if (json === null) return false;
    const view: StoredView = { ...(JSON.parse(json) as StoredView), ...patch, phase: to, updatedAt: new Date().toISOString() };
    const others = [keys.plan, keys.accepted, keys.attempts, keys.attemptSeq, keys.votes];
    const retention = TERMINAL.includes(to) ? String(this.#retentionMs) : '';
    const moved = await this.#d.redis.eval(MOVE_SCRIPT, 2 + others.length, keys.record, compactionLiveKey(this.#d.prefix), ...others, from.join(','), to, JSON.stringify(view), id, retention);
    return moved === 1;
  }

  /** The staged blobs; with `files`, also every data file the compaction wrote (only when nothing of it can be referenced). */
  async #deleteStaged(id: string, view: StoredView, files: boolean): Promise<void> {
    try {
      const store = this.#d.tables.warehouseStore(this.#d.warehouse);
      const keys: string[] = [];
      for await (const o of store.list(compactionStagingPrefix(id))) keys.push(o.key);
      if (files) {
        const marker = dataFileMarker(id);
        for await (const o of store.list(`${this.#d.tables.tablePath(view.table)}/`)) if (o.key.includes(marker)) keys.push(o.key);
      }
      await store.deleteMany(keys);
    } catch (error) {
      this.#d.logger?.warn({ compactionId: id, code: isTributaryError(error) ? error.code : undefined }, 'deleting a compaction\'s staged files failed; the orphan cleanup removes them');
    }
  }
}
