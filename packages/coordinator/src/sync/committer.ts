/**
 * Drives one sync from wherever its record says it is to a terminal state. Runs as the flow's
 * parent `commit` job (after every shard job finished), and again for each non-terminal sync when
 * a coordinator starts. Every step is safe to repeat: each transition is persisted before its
 * effect, and each effect is idempotent (the publish finds its own identity; deleting is idempotent).
 *
 *   PREPARING  ─ every planned shard accepted and every blob verifies? ─ yes ─► COMMITTING (direct)
 *              │                                                          └─► MERGING (bucketed: the bucket
 *              │      plan is written from the accepted blobs, then the bucket flow is enqueued)
 *              └─ no ─► ABORTING (reason: the shard's own error, or the blob's BLOB_* error)
 *   MERGING    ─ every bucket accepted and every bucket blob verifies? ─ yes ─► COMMITTING
 *              ├─ the bucket flow is still running ─► wait (its parent job drives the sync again)
 *              ├─ the bucket flow was never enqueued (a crash) ─► enqueue it
 *              └─ no ─► ABORTING (reason: the bucket's own error, or the blob's)
 *   COMMITTING ─ a snapshot with our identity exists? ─ yes ─► COMMITTED
 *              └─ no ─► publish (put-if-absent; the table retries conflicts) ─► COMMITTED
 *                 a non-retryable failure, and still no snapshot with our identity ─► ABORTING, files kept
 *   ABORTING   ─ delete staged files (only if the commit never started) ─► ABORTED
 *   ABORTED    ─ the staged files were deleted? delete them again (late sweep, below)
 *
 * Late sweep: an abort does not wait for ever for its shards (SyncService's abort grace), so an
 * attempt of a dead or frozen worker may write files after the cleanup. Its job ends some day (the
 * attempt fails as SYNC_NOT_ACCEPTING, or BullMQ re-runs it and the new attempt refuses to start),
 * and only then does the flow's parent run; finding the sync ABORTED with its staged files deleted,
 * it deletes the sync's staged files again. A sync whose commit started is never swept.
 */
import type { Logger } from 'pino';
import {
  PLAN_HEAD_FIELD,
  PLAN_POSITIONS_FIELD,
  PlannedBucketEntry,
  bucketJobId,
  bucketVoteToken,
  checkPlanSeal,
  errorFrom,
  isTributaryError,
  planBucketField,
  planFingerprint,
  planSeal,
  planShardField,
  protocolError,
  sealedShardEntry,
  shardVoteToken,
  syncPlanBasics,
  syncPlanFingerprint,
  verifiedSyncPlanHead,
  stagedBucketBlobKey,
  syncRunsPath,
  toErrorData,
  type ErrorData,
  type SealedBucketEntry,
  type ShardAttempt,
  type ShardVote,
} from '@tributary/protocol';
import { coordinatorErrors } from '../errors.ts';
import { partitionRowOf, type CommitIdentity, type CommitMessage, type Tables, type WriterKeyRanges } from '@tributary/table';
import { fullExtractBuckets } from './load-checks.ts';
import { foldPositions, SOURCE_ID_PROPERTY } from './positions.ts';
import { PrefetchQueue } from './prefetch-queue.ts';
import { planJson } from './record-json.ts';
import type { BucketFlowState } from './flow.ts';
import {
  deleteRuns,
  deleteStaged,
  loadAcceptedBlobs,
  loadAcceptedRuns,
  loadBucketBlobs,
  loadShardBlob,
  summariseRuns,
  writeOutcome,
  type LoadedShards,
  type ShardBucketRuns,
  type ShardRunsSummary,
  type ShardTrust,
  type VerifiedShard,
} from './staging.ts';
import { isTerminal, stagedDiscardable, type AcceptedAttempt, type SyncRecord } from './state.ts';
import { historyKeyOf, type SyncStore } from './store.ts';

export interface CommitterDeps {
  readonly store: SyncStore;
  readonly tables: Tables;
  readonly warehouse: string;
  /** Derives each shard's vote token, which the shard's blob must carry. */
  readonly clusterSecret: Uint8Array;
  readonly logger?: Logger;
  /**
   * Fault injection for the coordinator-crash tests: called just before the snapshot is
   * published and just after, before the outcome is recorded. Production leaves it unset.
   */
  readonly faultPoint?: (point: FaultPoint) => void;
  /** Told how many tries each published snapshot took (metrics). */
  readonly published?: (attempts: number, conflicts: number) => void;
  /**
   * Called once a drive recorded COMMITTED (snapshot expiration, as Paimon does after a commit);
   * must not throw: the sync is committed whatever it does.
   */
  readonly committed?: (record: SyncRecord) => Promise<void>;
  /** The bucket stage's flow (bucketed layout): SyncFlows' enqueueBuckets and bucketFlowState. */
  readonly bucketFlows?: BucketFlows;
}

export interface BucketFlows {
  enqueueBuckets(record: SyncRecord, fingerprint: string, buckets: number): Promise<void>;
  bucketFlowState(syncId: string): Promise<BucketFlowState>;
}

export type FaultPoint = 'before-publish' | 'after-publish';

/** A PREPARING sync's record, with its plan's fingerprint (computed once: it reads every shard). */
interface PlanContext {
  readonly record: SyncRecord;
  readonly fingerprint: string;
  /**
   * What a direct sync's prefetch readies of each verified shard's messages for the commit
   * (#aheadOfCommit): their manifest records encoded, and their key ranges (returned; undefined for an
   * append table). Undefined for a bucketed sync, or when the table did not open.
   */
  readonly ahead?: ((messages: readonly CommitMessage[]) => WriterKeyRanges | undefined) | undefined;
}

const PREFETCH_IN_FLIGHT = 8;
/** At most this many shards' votes are read by id (HMGET) for a commit; more, and all of them are (HGETALL). */
const VOTES_BY_ID = 1000;

/** Commit failures that are the sync's reason as they are (nothing was published), not wrapped in SYNC_COMMIT_ABANDONED. */
const OWN_REASONS = new Set(['COMMIT_CHANGELOG_STALE', 'COMMIT_BASE_SUPERSEDED', 'SYNC_TABLE_REPLACED', 'SYNC_PLAN_ALTERED']);

/** Entries of missing jobs a failed sync checks against its record (SYNC_PLAN_ALTERED), at most. */
const PLAN_CHECKS = 100;

export class SyncCommitter {
  readonly #deps: CommitterDeps;
  /** Messages verified by #prepareCommit or #finishMerge, handed to #publish in the same drive (saves reading every blob twice). */
  readonly #verified = new Map<string, CommitInputs>();
  /**
   * Blobs verified while the sync still PREPAREs, as each shard's accepted attempt finishes
   * (`prefetch`), so the commit after the last shard reads one blob instead of all of them. Only
   * an optimisation: the commit reads and verifies whatever is missing or of another attempt.
   * Direct layout: the verified messages (the commit publishes them).
   */
  readonly #prefetched = new Map<string, Map<string, VerifiedShard>>();
  /**
   * The same for a bucketed sync, whose shard blobs name runs: only each verified blob's runs
   * summary (attempt, position, runs per bucket), which is all the bucket plan and the folded
   * positions need; the decoded messages are dropped once verified.
   */
  readonly #prefetchedRuns = new Map<string, Map<string, ShardRunsSummary>>();
  /**
   * The record of each sync being prefetched, as first read in PREPARING: only its plan (shard ids,
   * table, schema id) is used, and the plan never changes once persisted. Reading and parsing the
   * whole record (the plan lists every shard) per finished shard made PREPARING O(N²).
   */
  readonly #plans = new Map<string, Promise<PlanContext | undefined>>();
  /** At most PREFETCH_IN_FLIGHT prefetches run at once, so a burst of finished shards stays cheap. */
  readonly #prefetchQueue = new PrefetchQueue(PREFETCH_IN_FLIGHT);

  /** Each plan's fingerprint, by the plan object it was computed from (#fingerprint). */
  readonly #fingerprints = new WeakMap<SyncRecord['plan'], string>();

  /** The drive of each sync running in this process now (see drive). */
  readonly #driving = new Map<string, Promise<SyncRecord>>();

  constructor(deps: CommitterDeps) {
    this.#deps = deps;
  }

  /**
   * Moves the sync as far as it can go now; returns the record it leaves. Drives of one sync in this
   * process run one after the other: a commit job whose lock lapsed (a starved event loop) is run
   * again by BullMQ while its first run may still be at work, and the second run then starts from
   * what the first one left instead of redoing its reads and its publish beside it.
   */
  drive(syncId: string): Promise<SyncRecord> {
    const previous = this.#driving.get(syncId);
    const run = (previous === undefined ? this.#driveNow(syncId) : previous.catch(() => undefined).then(() => this.#driveNow(syncId))).finally(() => {
      if (this.#driving.get(syncId) === run) this.#driving.delete(syncId);
    });
    this.#driving.set(syncId, run);
    return run;
  }

  async #driveNow(syncId: string): Promise<SyncRecord> {
    let record = await this.#stored(syncId);
    const wasTerminal = isTerminal(record.state.phase);
    if (wasTerminal) {
      this.#forget(syncId);
      if (stagedDiscardable(record.state)) await this.#sweepLate(record);
      return record;
    }
    try {
      for (let step = 0; step < 8; step++) {
        const next = await this.#step(record);
        if (next === undefined) break;
        record = next;
      }
    } finally {
      if (record.state.phase !== 'PREPARING') this.#forget(syncId);
    }
    if (isTerminal(record.state.phase)) await this.#writeOutcome(record);
    if (record.state.phase === 'COMMITTED' && record.state.bucketStage !== undefined) await this.#deleteRuns(record);
    if (record.state.phase === 'COMMITTED') await this.#deps.committed?.(record);
    return record;
  }

  /** A committed bucketed sync's runs: never referenced by the table, deleted once it committed (best effort). */
  async #deleteRuns(record: SyncRecord): Promise<void> {
    try {
      await deleteRuns(this.#deps.tables.warehouseStore(this.#deps.warehouse), record.id);
    } catch (error) {
      this.#deps.logger?.warn({ syncId: record.id, error: error instanceof Error ? error.message : String(error) }, 'sorted runs not deleted');
    }
  }

  /** An aborted sync's staged files, deleted once more: what late attempts wrote after the cleanup. */
  async #sweepLate(record: SyncRecord): Promise<void> {
    const { tables, warehouse } = this.#deps;
    const deleted = await deleteStaged(tables.warehouseStore(warehouse), record.id, tables.tablePath(record.plan.table));
    if (deleted > 0) this.#deps.logger?.info({ syncId: record.id, deleted }, 'deleted objects staged after the abort');
  }

  /** The sync's summary beside its staged files, written even on failure. */
  async #writeOutcome(record: SyncRecord): Promise<void> {
    try {
      await writeOutcome(this.#deps.tables.warehouseStore(this.#deps.warehouse), record);
    } catch (error) {
      this.#deps.logger?.warn({ syncId: record.id, error: error instanceof Error ? error.message : String(error) }, 'outcome.json not written');
    }
  }

  /** Reads and verifies a shard's accepted blob ahead of the commit (best effort, bounded concurrency). */
  prefetch(syncId: string, shardId: string, attemptId: string): void {
    this.#prefetchQueue.push(syncId, () => this.#prefetchOne(syncId, shardId, attemptId));
  }

  /** Stops prefetching and waits for the prefetches running now: call before closing the Redis connection. */
  async close(): Promise<void> {
    await this.#prefetchQueue.close();
    this.#prefetched.clear();
    this.#prefetchedRuns.clear();
    this.#plans.clear();
  }

  /** The sync left PREPARING (or is gone): drop what was prefetched for it and what is still queued. */
  #forget(syncId: string): void {
    this.#prefetched.delete(syncId);
    this.#prefetchedRuns.delete(syncId);
    this.#plans.delete(syncId);
    this.#prefetchQueue.drop(syncId);
  }

  /** Constant work per shard: one HGET of the phase, one HGET of the shard's accepted attempt, one blob read. */
  async #prefetchOne(syncId: string, shardId: string, attemptId: string): Promise<void> {
    const { store, tables, warehouse } = this.#deps;
    try {
      if ((await store.phase(syncId)) !== 'PREPARING') {
        this.#forget(syncId); // another coordinator (or an abort) drove it on
        return;
      }
      if ((await store.acceptedAttempt(syncId, shardId)) !== attemptId) return;
      const plan = await this.#planOf(syncId);
      if (plan === undefined) return;
      const { record } = plan;
      const trust = this.#trust(plan, (shard) => store.vote(syncId, shard));
      const bucketed = record.plan.options.layout === 'bucketed';
      const tablePath = bucketed ? syncRunsPath(syncId) : tables.tablePath(record.plan.table);
      const shard = await loadShardBlob(tables.warehouseStore(warehouse), record, tablePath, shardId, attemptId, trust);
      if (!this.#plans.has(syncId)) return; // forgotten while the blob was read: the sync moved on
      if (bucketed) remember(this.#prefetchedRuns, syncId, shardId, summariseRuns(shard));
      else remember(this.#prefetched, syncId, shardId, plan.ahead === undefined ? shard : { ...shard, keyRanges: plan.ahead(shard.messages) });
    } catch {
      // The commit reads this blob again and records the typed reason if it is bad; a Redis or
      // storage hiccup here only costs the commit one more read.
    }
  }

  /**
   * The stored record. While a sync PREPAREs, the prefetch holds the record it read (#plans); if
   * the stored version is still that record's, the stored record is that very record (every write
   * bumps the version in its compare-and-set: SyncStore.pageRecord's reasoning), so the commit
   * after the last shard neither reads and parses the whole plan again (~2 MB at 10,000 shards)
   * nor hashes it again for its fingerprint (#fingerprint keeps it by plan object). Any other
   * version, or nothing held: read from the store.
   */
  async #stored(syncId: string): Promise<SyncRecord> {
    const held = await this.#plans.get(syncId)?.catch(() => undefined);
    if (held !== undefined && (await this.#deps.store.version(syncId)) === held.record.version) return held.record;
    return this.#deps.store.require(syncId);
  }

  /** The sync's record for its plan: read once per sync (the concurrent first prefetches share the read), then from memory. */
  async #planOf(syncId: string): Promise<PlanContext | undefined> {
    let pending = this.#plans.get(syncId);
    if (pending === undefined) {
      pending = this.#deps.store.get(syncId).then(async (r) => {
        if (r?.state.phase !== 'PREPARING') return undefined;
        // Made now, while the shards run: the commit drives this very record (#stored), and its
        // record writes splice the plan's text (record-json.ts) and reuse its fingerprint.
        planJson(r.plan);
        return { record: r, fingerprint: this.#fingerprint(r), ahead: await this.#aheadOfCommit(r) };
      });
      this.#plans.set(syncId, pending);
    }
    try {
      const plan = await pending;
      if (plan === undefined && this.#plans.get(syncId) === pending) this.#plans.delete(syncId);
      return plan;
    } catch (error) {
      if (this.#plans.get(syncId) === pending) this.#plans.delete(syncId); // read again next time
      throw error;
    }
  }

  /**
   * What a direct sync's prefetch readies of each verified shard for the commit, with the table the
   * sync planned for (its schema pinned by id), opened once per sync: the manifest records of its
   * files (Table.encodeFilesAhead: the commit's manifests copy them) and, for a primary-key table,
   * its key ranges (Table.writerKeyRanges: the colliding-key count only sorts and merges them). Both
   * are of the verified messages themselves and used only for them. Undefined for a bucketed sync
   * (its commit is the bucket jobs') or a table that does not open now (the commit does it all).
   */
  async #aheadOfCommit(record: SyncRecord): Promise<PlanContext['ahead']> {
    if (record.plan.options.layout === 'bucketed') return undefined;
    try {
      const table = await this.#deps.tables.openTable(this.#deps.warehouse, record.plan.table, record.plan.schemaId);
      const keyed = table.schema.primaryKeys.length > 0;
      return (messages) => {
        table.encodeFilesAhead(messages);
        return keyed ? table.writerKeyRanges(messages) : undefined;
      };
    } catch {
      return undefined;
    }
  }

  /** What the blobs of a sync must agree with: each shard's vote token and its accepted vote. */
  #trust(plan: PlanContext, vote: (shardId: string) => Promise<ShardVote | undefined>): ShardTrust {
    const { record, fingerprint } = plan;
    return { voteToken: (shardId) => shardVoteToken(this.#deps.clusterSecret, record.id, shardId, fingerprint), vote };
  }

  /**
   * For a whole-sync load: the votes it will check, read before it (a Redis error here retries the
   * commit job; it is no reason to abort). A shard a prefetch verified at the attempt now accepted
   * (`verified`, `attempts`: loadAccepted's own test) is not verified again, so its vote is not
   * read: with every shard but the last prefetched, one HMGET of a vote instead of an HGETALL of
   * all of them (10,000 votes: ~90 ms). More than VOTES_BY_ID shards to verify: every vote at once.
   */
  async #trustAll(
    record: SyncRecord,
    attempts?: Readonly<Record<string, string>>,
    verified?: ReadonlyMap<string, { readonly attempt: { readonly attemptId: string } }>,
  ): Promise<ShardTrust> {
    const { store } = this.#deps;
    const toVerify = attempts === undefined || verified === undefined ? undefined : record.plan.shards.filter((s) => verified.get(s.id)?.attempt.attemptId !== attempts[s.id]).map((s) => s.id);
    const votes = toVerify === undefined || toVerify.length > VOTES_BY_ID ? await store.votes(record.id) : await store.votesOf(record.id, toVerify);
    const read = new Set(toVerify);
    return this.#trust({ record, fingerprint: this.#fingerprint(record) }, (shardId) =>
      // Only a shard outside toVerify would ask (none does: the same test picks them); it reads its vote then.
      toVerify === undefined || read.has(shardId) ? Promise.resolve(votes.get(shardId)) : store.vote(record.id, shardId),
    );
  }

  async #step(record: SyncRecord): Promise<SyncRecord | undefined> {
    switch (record.state.phase) {
      case 'PLANNED':
        return this.#start(record);
      case 'COMMITTED':
      case 'ABORTED':
        return undefined;
      case 'PREPARING':
        return this.#prepareCommit(record);
      case 'MERGING':
        return this.#finishMerge(record);
      case 'COMMITTING':
        return this.#publish(record);
      case 'ABORTING':
        return this.#cleanUp(record, record.state.deleteStaged);
    }
  }

  /**
   * A PLANNED sync reaches a drive only through its flow's commit job (a resume enqueues a PLANNED
   * sync first, an abort moves it out of PLANNED): every shard job has finished before the start
   * that follows the enqueue was written (a start slower than the whole flow, or a coordinator gone
   * in between). Left PLANNED, the sync would wait for a commit job that has already run. The drive
   * makes that start itself and goes on; the service's own start then finds the sync started.
   */
  async #start(record: SyncRecord): Promise<SyncRecord> {
    try {
      return await this.#deps.store.apply(record.id, { type: 'start' });
    } catch (error) {
      // Moved out of PLANNED in between (an abort): the drive goes on from where that left it.
      if (isTributaryError(error) && error.code === 'SYNC_ILLEGAL_TRANSITION') return this.#deps.store.require(record.id);
      throw error;
    }
  }

  async #prepareCommit(record: SyncRecord): Promise<SyncRecord> {
    const { store, tables } = this.#deps;
    const attempts = await store.acceptedAttempts(record.id);
    const missing = record.plan.shards.filter((s) => attempts[s.id] === undefined);
    if (missing.length > 0) {
      const altered = await this.#planAltered(record, missing.slice(0, PLAN_CHECKS).map((s) => planShardField(s.id)));
      return store.apply(record.id, { type: 'abort', reason: altered ?? firstFailure(await store.attempts(record.id), missing.map((s) => s.id), SHARD_JOBS) });
    }
    // The shards whose prefetch has not run yet are read below, at the load's own concurrency.
    await this.#prefetchQueue.settle(record.id);
    const bucketed = record.plan.options.layout === 'bucketed';
    const prefetched = bucketed ? this.#prefetchedRuns.get(record.id) : this.#prefetched.get(record.id);
    // Outside the try: a Redis hiccup retries the commit job, it is no reason to abort.
    const trust = await this.#trustAll(record, attempts, prefetched);
    if (bucketed) return this.#beginMerge(record, attempts, trust);
    let loaded;
    let collidingKeys: number | null;
    try {
      const prefetched = this.#prefetched.get(record.id);
      loaded = await loadAcceptedBlobs(tables.warehouseStore(this.#deps.warehouse), record, tables.tablePath(record.plan.table), attempts, trust, prefetched);
      // Keys in several shards went to the later shard in plan order: count them for the status.
      collidingKeys = await tables.countCollidingKeys(this.#deps.warehouse, record.plan.table, loaded.shards, loaded.keyRanges);
    } catch (error) {
      if (isTributaryError(error) && error.retryable) throw error;
      return store.apply(record.id, { type: 'abort', reason: toErrorData(error) });
    }
    const counted = collidingKeys === null ? {} : { collidingKeys };
    const committing = await store.apply(record.id, { type: 'beginCommit', accepted: loaded.accepted, ...counted }, undefined, record);
    if (committing.state.phase === 'COMMITTING' && sameAttempts(committing.state.accepted, loaded.accepted)) {
      this.#verified.set(record.id, { messages: loaded.messages, positions: { shards: loaded.positions } });
    }
    return committing;
  }

  /**
   * Bucketed: the shards' accepted blobs (naming runs under the sync's runs path) are verified, the
   * bucket plan is derived from them and persisted, then the sync enters MERGING (no shard attempt
   * is accepted any more: the accept script only accepts in PLANNED and PREPARING) and only then is
   * the bucket flow enqueued. A bucket job therefore reads exactly the accepted attempts' runs.
   * The shards' source positions are folded now, from the same blobs, and kept with the bucket
   * plan (the full list, when large, beside the sync's staging): the commit reads no shard blob.
   */
  async #beginMerge(record: SyncRecord, attempts: Readonly<Record<string, string>>, trust: ShardTrust): Promise<SyncRecord> {
    const { store, tables } = this.#deps;
    let loaded;
    try {
      const prefetched = this.#prefetchedRuns.get(record.id);
      loaded = await loadAcceptedRuns(tables.warehouseStore(this.#deps.warehouse), record, syncRunsPath(record.id), attempts, trust, prefetched);
    } catch (error) {
      if (isTributaryError(error) && error.retryable) throw error;
      return store.apply(record.id, { type: 'abort', reason: toErrorData(error) });
    }
    let entries = bucketPlan(loaded.shards.map((shard) => shard.buckets));
    const extract = record.plan.options.deletes?.fullExtract;
    if (extract !== undefined) {
      try {
        const { schema } = await tables.openTable(this.#deps.warehouse, record.plan.table, record.plan.schemaId);
        entries = fullExtractBuckets(entries, partitionRowOf(schema, extract.partition), Number(schema.options['bucket']));
      } catch (error) {
        if (isTributaryError(error) && error.retryable) throw error;
        return store.apply(record.id, { type: 'abort', reason: toErrorData(error) });
      }
    }
    const folded = foldPositions(record.id, loaded.positions);
    if (folded.object !== undefined) await tables.warehouseStore(this.#deps.warehouse).put(folded.object.key, folded.object.bytes);
    // Sealed under the plan's fingerprint: a bucket job, and this committer reading them back, refuse them changed in Redis.
    const fingerprint = this.#fingerprint(record);
    const seal = (field: string, value: unknown): string => planSeal(this.#deps.clusterSecret, record.id, field, fingerprint, value);
    await store.writeFoldedPositions(record.id, { properties: folded.properties, seal: seal(PLAN_POSITIONS_FIELD, folded.properties) });
    await store.writeBucketPlan(
      record.id,
      entries.map((e, i): SealedBucketEntry => {
        const entry = PlannedBucketEntry.parse(e); // the form a bucket job hashes
        return { ...entry, seal: seal(planBucketField(bucketJobId(i)), entry) };
      }),
    );
    const merging = await store.apply(record.id, { type: 'beginMerge', accepted: loaded.accepted, buckets: entries.length }, undefined, record);
    if (merging.state.phase === 'MERGING' && entries.length > 0) await this.#bucketFlows().enqueueBuckets(merging, fingerprint, entries.length);
    return merging;
  }

  /**
   * The fingerprint of the record's plan, which every vote token and plan seal of the sync binds
   * (plan-binding.ts). Hashed once per plan object (10,000 shard digests: ~35 ms): a record's plan
   * is never changed in place, and a record read again from the store is another object, hashed
   * again, so a plan changed in Redis still fails every token.
   */
  #fingerprint(record: SyncRecord): string {
    let fingerprint = this.#fingerprints.get(record.plan);
    if (fingerprint === undefined) {
      fingerprint = planFingerprint(record.plan, this.#deps.warehouse);
      this.#fingerprints.set(record.plan, fingerprint);
    }
    return fingerprint;
  }

  /**
   * Writes what the workers read of a planned sync (`:plan`: the head with the plan's basics and
   * fingerprint, each shard's sealed entry) and returns the fingerprint, which the shard jobs' tokens bind.
   */
  async writeWorkerPlan(record: SyncRecord): Promise<string> {
    const basics = syncPlanBasics(record.plan, this.#deps.warehouse);
    const fingerprint = syncPlanFingerprint(basics);
    const secret = this.#deps.clusterSecret;
    await this.#deps.store.writeWorkerPlan(record, { ...basics, fingerprint }, (field, slot, spec) => sealedShardEntry(secret, record.id, field, fingerprint, slot, spec));
    return fingerprint;
  }

  /**
   * Why jobs of a failed sync are missing, when its plan in Redis no longer is the record's: the
   * head not the one the record makes, or an entry of a missing job (`fields`) without its seal.
   * A job refused for that reports no attempt, so its own error is not in the attempts.
   */
  async #planAltered(record: SyncRecord, fields: readonly string[]): Promise<ErrorData | undefined> {
    const [headJson, ...values] = await this.#deps.store.planFields(record.id, [PLAN_HEAD_FIELD, ...fields]);
    const fingerprint = this.#fingerprint(record);
    try {
      if (headJson === null || headJson === undefined) return undefined;
      if (verifiedSyncPlanHead(record.id, headJson).fingerprint !== fingerprint) throw protocolError('SYNC_PLAN_ALTERED', `the plan head of sync ${record.id} is not the one its record makes`, { syncId: record.id, field: PLAN_HEAD_FIELD });
      fields.forEach((field, i) => {
        const json = values[i];
        if (json === null || json === undefined) return;
        const { seal, ...entry } = JSON.parse(json) as { seal: string };
        checkPlanSeal(this.#deps.clusterSecret, record.id, field, fingerprint, entry, seal);
      });
      return undefined;
    } catch (error) {
      return isTributaryError(error) ? toErrorData(error) : toErrorData(protocolError('SYNC_PLAN_ALTERED', `the plan of sync ${record.id} does not parse`, { syncId: record.id }));
    }
  }

  #bucketFlows(): BucketFlows {
    const flows = this.#deps.bucketFlows;
    if (flows === undefined) throw new Error('a bucketed sync needs the committer to have bucketFlows');
    return flows;
  }

  /** MERGING: commit once every bucket job has an accepted attempt whose blob verifies. */
  async #finishMerge(record: SyncRecord): Promise<SyncRecord | undefined> {
    if (record.state.phase !== 'MERGING') return record;
    const { store, tables, warehouse } = this.#deps;
    const buckets = record.state.buckets;
    // The flow's state first, then the accepted attempts: a bucket job is accepted before it ends,
    // and the parent leaves 'pending' only once every bucket job ended, so a flow seen finished
    // here has every acceptance it will ever have in the read below. Read the other way round, a
    // drive that read no acceptance, then saw the flow finish (the bucket jobs ending in between),
    // aborted a sync whose buckets were all accepted.
    const flow = await this.#bucketFlows().bucketFlowState(record.id);
    const attempts = await store.bucketAcceptedAttempts(record.id);
    const missing = Array.from({ length: buckets }, (_, i) => `bucket-${i}`).filter((id) => attempts[id] === undefined);
    if (missing.length > 0) {
      if (flow === 'pending') return undefined; // its parent job drives the sync once every bucket job ended
      if (flow === 'absent') {
        // A crash between MERGING and the enqueue: enqueue now (job ids make it idempotent).
        await this.#bucketFlows().enqueueBuckets(record, this.#fingerprint(record), buckets);
        return undefined;
      }
      const altered = await this.#planAltered(record, missing.slice(0, PLAN_CHECKS).map(planBucketField));
      return store.apply(record.id, { type: 'abort', reason: altered ?? firstFailure(await store.bucketAttempts(record.id), missing, BUCKET_JOBS) });
    }
    const votes = await store.bucketVotes(record.id);
    let loaded;
    try {
      loaded = await loadBucketBlobs(tables.warehouseStore(warehouse), record, tables.tablePath(record.plan.table), buckets, attempts, this.#bucketTrust(record, votes));
    } catch (error) {
      if (isTributaryError(error) && error.retryable) throw error;
      return store.apply(record.id, { type: 'abort', reason: toErrorData(error) });
    }
    const files = Object.values(loaded.accepted).reduce((n, a) => n + (a.files ?? 0), 0);
    const hasKeys = (await tables.describeTable(warehouse, record.plan.table))?.primaryKeys.length !== 0;
    const colliding = [...votes.values()].reduce((n, v) => n + v.collidingKeys, 0);
    const committing = await store.apply(record.id, {
      type: 'bucketsDone',
      bucketStage: { accepted: loaded.accepted, files },
      ...(hasKeys ? { collidingKeys: colliding } : {}),
    });
    if (committing.state.phase === 'COMMITTING') this.#verified.set(record.id, { messages: loaded.messages, positions: await this.#foldedPositions(record) });
    return committing;
  }

  /** What the bucket jobs' blobs must agree with: each bucket's vote token (under the plan's fingerprint) and its recorded vote. */
  #bucketTrust(record: SyncRecord, votes: ReadonlyMap<string, ShardVote>): ShardTrust {
    const fingerprint = this.#fingerprint(record);
    return {
      voteToken: (id) => bucketVoteToken(this.#deps.clusterSecret, record.id, id, fingerprint),
      vote: (id) => Promise.resolve(votes.get(id)),
      blobKey: (id, attemptId) => stagedBucketBlobKey(record.id, id, attemptId),
    };
  }

  /**
   * Bucketed: the folded source positions written at MERGING. A sync that entered MERGING without
   * them (a coordinator of an earlier version) has them folded from its shards' accepted blobs.
   */
  async #foldedPositions(record: SyncRecord): Promise<CommitInputs['positions']> {
    const { store, tables, warehouse } = this.#deps;
    const sealed = await store.foldedPositions(record.id);
    if (sealed !== undefined) {
      try {
        checkPlanSeal(this.#deps.clusterSecret, record.id, PLAN_POSITIONS_FIELD, this.#fingerprint(record), sealed.properties, sealed.seal);
        return { properties: sealed.properties };
      } catch (error) {
        // Changed in Redis after MERGING: folded again below from the accepted blobs, which are verified.
        this.#deps.logger?.warn({ syncId: record.id, code: isTributaryError(error) ? error.code : undefined }, 'folded positions do not carry their seal; folding them again from the blobs');
      }
    }
    const loaded = await loadAcceptedRuns(tables.warehouseStore(warehouse), record, syncRunsPath(record.id), await store.acceptedAttempts(record.id), await this.#trustAll(record));
    return { shards: loaded.positions };
  }

  async #publish(record: SyncRecord): Promise<SyncRecord> {
    const { store, tables, warehouse } = this.#deps;
    if (record.state.phase !== 'COMMITTING') return record;
    const identity: CommitIdentity = { commitUser: record.plan.commitUser, commitIdentifier: BigInt(record.plan.commitIdentifier) };
    const ref = record.plan.table;
    const found = await tables.findCommitted(warehouse, ref, identity, record.plan.baseSnapshotId);
    if (found !== undefined) return store.apply(record.id, { type: 'committed', snapshotId: found });
    const attempts = Object.fromEntries(Object.entries(record.state.accepted).map(([shard, a]) => [shard, a.attemptId]));
    const verified = this.#verified.get(record.id);
    this.#verified.delete(record.id);
    let loading = true;
    try {
      const { messages, positions } = verified ?? (await this.#committedMessages(record, attempts));
      loading = false;
      // The shards' source positions: a bounded property, and the full list beside the sync's staging when it is large
      // (bucketed: folded, and the list written, at MERGING).
      const folded = 'properties' in positions ? { properties: positions.properties } : foldPositions(record.id, positions.shards);
      if (folded.object !== undefined) await tables.warehouseStore(warehouse).put(folded.object.key, folded.object.bytes);
      await this.#checkSameTable(record);
      const baseBuckets = await this.#baseBuckets(record);
      this.#deps.faultPoint?.('before-publish');
      const published = await tables.publish(warehouse, ref, {
        messages,
        identity,
        kind: record.plan.mode === 'overwrite' ? 'OVERWRITE' : 'APPEND',
        // "overwrite" replaces the partitions the load touches, not the whole table.
        ...(record.plan.mode === 'overwrite' ? { overwritePartitions: touchedPartitions(messages) } : {}),
        baseSnapshotId: record.plan.baseSnapshotId,
        properties: { ...record.plan.options.snapshotProperties, ...folded.properties, 'tributary.sync-id': record.id, 'tributary.shards': String(record.plan.shards.length) },
        // Planned from the snapshots up to the base (newFilesOnly, incremental): no load of the same source may have committed since.
        ...(historyKeyOf(record) === '' ? {} : { exclusive: { key: SOURCE_ID_PROPERTY, value: record.plan.options.snapshotProperties[SOURCE_ID_PROPERTY] ?? '' } }),
        ...(baseBuckets === undefined ? {} : { baseBuckets }),
      });
      this.#deps.faultPoint?.('after-publish');
      this.#deps.published?.(published.attempts, published.conflicts);
      return await store.apply(record.id, { type: 'committed', snapshotId: published.snapshotId }, undefined, record);
    } catch (error) {
      // Unknown outcome until the table says otherwise: look for our identity before giving up.
      const landed = await tables.findCommitted(warehouse, ref, identity, record.plan.baseSnapshotId);
      if (landed !== undefined) return store.apply(record.id, { type: 'committed', snapshotId: landed });
      if (!isTributaryError(error) || error.retryable) throw error; // the commit job retries with backoff
      this.#deps.logger?.error({ syncId: record.id, code: error.code, error: error.message }, 'commit abandoned');
      // A blob refused while loading (a bad token, a blob changed after its vote) is its own reason.
      // A stale changelog (another writer changed a bucket after the base snapshot) is its own reason: nothing was published.
      // So is a plan superseded by another load of the same source.
      const reason = loading || OWN_REASONS.has(error.code) ? error : errorFrom(coordinatorErrors, 'SYNC_COMMIT_ABANDONED', `commit failed for good: ${error.message}`, { cause: error.code });
      return store.apply(record.id, { type: 'abandonCommit', reason: toErrorData(reason) });
    }
  }

  /**
   * The table is still the one the sync planned for: its `schema-<schemaId>` file is the one it
   * read then. A table dropped and made again under its name has another, and the files written
   * for the first (their types, buckets, sequence numbers, before-images) must not land in it.
   * @throws SYNC_TABLE_REPLACED
   */
  async #checkSameTable(record: SyncRecord): Promise<void> {
    const planned = record.plan.schemaSha256;
    if (planned === undefined) return;
    const { table, schemaId } = record.plan;
    const now = await this.#deps.tables.schemaSha256(this.#deps.warehouse, table, schemaId);
    if (now === planned) return;
    throw errorFrom(
      coordinatorErrors,
      'SYNC_TABLE_REPLACED',
      `table ${table.database}.${table.table} ${now === undefined ? 'is gone' : 'was dropped and created again'} since the sync planned (its schema ${schemaId} is not the one the files were written for): nothing was published`,
      { ...table, schemaId },
    );
  }

  /**
   * The buckets whose jobs computed their outcome from the base snapshot's rows: every bucket of
   * the plan when the table has a changelog (before-images) or the load is a full extract (its
   * deletes). A bucket where nothing changed stages nothing, so the commit must be told of it to
   * refuse it when another writer changed it since (COMMIT_CHANGELOG_STALE). Undefined otherwise.
   */
  async #baseBuckets(record: SyncRecord): Promise<{ partition: Uint8Array; bucket: number }[] | undefined> {
    const state = record.state;
    if (state.phase !== 'COMMITTING' || state.bucketStage === undefined) return undefined;
    const { tables, warehouse, store } = this.#deps;
    const fullExtract = record.plan.options.deletes?.fullExtract !== undefined;
    const producer = fullExtract ? undefined : (await tables.openTable(warehouse, record.plan.table, record.plan.schemaId)).schema.options['changelog-producer'];
    if (!fullExtract && (producer ?? 'none').trim().toLowerCase() !== 'input') return undefined;
    const fingerprint = this.#fingerprint(record);
    const entries = await store.bucketEntries(record.id, Object.keys(state.bucketStage.accepted).sort());
    return entries.map(({ field, entry: { seal, ...entry } }) => {
      checkPlanSeal(this.#deps.clusterSecret, record.id, field, fingerprint, entry, seal);
      return { partition: new Uint8Array(Buffer.from(entry.partition, 'base64')), bucket: entry.bucket };
    });
  }

  /** What the commit publishes: the bucket jobs' blobs (bucketed), else the shards'. */
  async #committedMessages(record: SyncRecord, attempts: Readonly<Record<string, string>>): Promise<CommitInputs> {
    const { store, tables, warehouse } = this.#deps;
    const state = record.state;
    const stage = state.phase === 'COMMITTING' ? state.bucketStage : undefined;
    if (stage === undefined) {
      const loaded = await loadAcceptedBlobs(tables.warehouseStore(warehouse), record, tables.tablePath(record.plan.table), attempts, await this.#trustAll(record));
      return { messages: loaded.messages, positions: { shards: loaded.positions } };
    }
    const trust = this.#bucketTrust(record, await store.bucketVotes(record.id));
    const frozen = Object.fromEntries(Object.entries(stage.accepted).map(([id, a]) => [id, a.attemptId]));
    const { messages } = await loadBucketBlobs(tables.warehouseStore(warehouse), record, tables.tablePath(record.plan.table), Object.keys(frozen).length, frozen, trust);
    return { messages, positions: await this.#foldedPositions(record) };
  }

  async #cleanUp(record: SyncRecord, deleteFiles: boolean): Promise<SyncRecord> {
    if (deleteFiles) {
      const { tables, warehouse } = this.#deps;
      await deleteStaged(tables.warehouseStore(warehouse), record.id, tables.tablePath(record.plan.table));
    }
    return this.#deps.store.apply(record.id, { type: 'cleaned' });
  }
}

/** What #publish commits: the messages, and the source positions (the shards', or already folded into properties). */
interface CommitInputs {
  readonly messages: CommitMessage[];
  readonly positions: { readonly shards: LoadedShards['positions'] } | { readonly properties: Readonly<Record<string, string>> };
}

/** The jobs of one stage, as a missing job's reason names them. */
interface JobKind {
  /** The context key naming the job (`shard`, `bucket`). */
  readonly key: string;
  readonly plural: string;
  readonly missingCode: 'SYNC_SHARD_MISSING' | 'SYNC_BUCKET_MISSING';
}

const SHARD_JOBS: JobKind = { key: 'shard', plural: 'shard(s)', missingCode: 'SYNC_SHARD_MISSING' };
const BUCKET_JOBS: JobKind = { key: 'bucket', plural: 'bucket job(s)', missingCode: 'SYNC_BUCKET_MISSING' };

/**
 * The reason to give for the first job without an accepted attempt: its last failure (one pass
 * over the attempts, oldest first per job; a fenced attempt's SYNC_NOT_ACCEPTING is no reason), or
 * the stage's "missing" error when none failed.
 */
function firstFailure(attempts: readonly ShardAttempt[], missing: readonly string[], kind: JobKind): ErrorData {
  const lastFailure = new Map<string, ErrorData>();
  for (const a of attempts) {
    if (a.error !== undefined && a.error.code !== 'SYNC_NOT_ACCEPTING') lastFailure.set(a.shardId, a.error);
  }
  for (const id of missing) {
    const last = lastFailure.get(id);
    if (last !== undefined) return { ...last, context: { ...last.context, [kind.key]: id } };
  }
  return toErrorData(
    errorFrom(coordinatorErrors, kind.missingCode, `no accepted attempt for ${kind.plural} ${missing.slice(0, 5).join(', ')}`, {
      [kind.key]: missing[0],
      missing: missing.length,
    }),
  );
}

function sameAttempts(a: Readonly<Record<string, AcceptedAttempt>>, b: Readonly<Record<string, AcceptedAttempt>>): boolean {
  // The transition froze the very object it was given (the usual case: 10,000 shards compared for nothing).
  if (a === b) return true;
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((k) => a[k]?.attemptId === b[k]?.attemptId);
}

function touchedPartitions(messages: readonly CommitMessage[]): Uint8Array[] {
  const unique = new Map<string, Uint8Array>();
  for (const m of messages) unique.set(Buffer.from(m.partition).toString('hex'), m.partition);
  return [...unique.values()];
}

/** Keeps what a prefetch verified, per sync and shard. */
function remember<T>(cache: Map<string, Map<string, T>>, syncId: string, shardId: string, value: T): void {
  const bySync = cache.get(syncId) ?? new Map<string, T>();
  bySync.set(shardId, value);
  cache.set(syncId, bySync);
}

/**
 * The bucket plan: one entry per (partition, bucket) the accepted shards wrote runs into, ordered by
 * partition bytes then bucket; each lists its runs in plan order (a shard's slot is its index),
 * then in the order the shard wrote them. Made from each shard's runs summary (summariseRuns);
 * grows with the run files, never with rows.
 */
export function bucketPlan(shards: readonly (readonly ShardBucketRuns[])[]): PlannedBucketEntry[] {
  const byBucket = new Map<string, PlannedBucketEntry & { runs: PlannedBucketEntry['runs'][number][] }>();
  shards.forEach((buckets, slot) => {
    for (const m of buckets) {
      const partition = Buffer.from(m.partition).toString('base64');
      const key = `${Buffer.from(m.partition).toString('hex')}/${String(m.bucket + 1).padStart(10, '0')}`;
      let entry = byBucket.get(key);
      if (entry === undefined) {
        entry = { partition, bucket: m.bucket, totalBuckets: m.totalBuckets, runs: [] };
        byBucket.set(key, entry);
      }
      for (const run of m.runs) entry.runs.push({ ...run, slot });
    }
  });
  return [...byBucket.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, e]) => e);
}
