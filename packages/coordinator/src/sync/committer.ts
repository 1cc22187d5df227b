/**
 * Drives one sync from wherever its record says it is to a terminal state. Runs as the flow's
 * parent `commit` job (after every shard job finished), and again for each non-terminal sync when
 * a coordinator starts. Every step is safe to repeat: each transition is persisted before its
 * effect, and each effect is idempotent (the publish finds its own identity; deleting is idempotent).
 *
 *   PREPARING  ─ every planned shard accepted and every blob verifies? ─ yes ─► COMMITTING
 *              └─ no ─► ABORTING (reason: the shard's own error, or the blob's BLOB_* error)
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
import { errorFrom, isTributaryError, planFingerprint, shardVoteToken, toErrorData, type ErrorData, type ShardVote } from '@tributary/protocol';
import { coordinatorErrors } from '../errors.ts';
import type { CommitIdentity, CommitMessage, Tables } from '@tributary/table';
import { foldPositions } from './positions.ts';
import { PrefetchQueue } from './prefetch-queue.ts';
import { deleteStaged, loadAcceptedBlobs, loadShardBlob, writeOutcome, type LoadedShards, type ShardTrust, type VerifiedShard } from './staging.ts';
import { isTerminal, stagedDiscardable, type AcceptedAttempt, type SyncRecord } from './state.ts';
import type { SyncStore } from './store.ts';

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
}

export type FaultPoint = 'before-publish' | 'after-publish';

/** A PREPARING sync's record, with its plan's fingerprint (computed once: it reads every shard). */
interface PlanContext {
  readonly record: SyncRecord;
  readonly fingerprint: string;
}

const PREFETCH_IN_FLIGHT = 8;

export class SyncCommitter {
  readonly #deps: CommitterDeps;
  /** Messages verified by #prepareCommit, handed to #publish in the same drive (saves reading every blob twice). */
  readonly #verified = new Map<string, Pick<LoadedShards, 'messages' | 'positions'>>();
  /**
   * Blobs verified while the sync still PREPAREs, as each shard's accepted attempt finishes
   * (`prefetch`), so the commit after the last shard reads one blob instead of all of them. Only
   * an optimisation: the commit reads and verifies whatever is missing or of another attempt.
   */
  readonly #prefetched = new Map<string, Map<string, VerifiedShard>>();
  /**
   * The record of each sync being prefetched, as first read in PREPARING: only its plan (shard ids,
   * table, schema id) is used, and the plan never changes once persisted. Reading and parsing the
   * whole record (the plan lists every shard) per finished shard made PREPARING O(N²).
   */
  readonly #plans = new Map<string, Promise<PlanContext | undefined>>();
  /** At most PREFETCH_IN_FLIGHT prefetches run at once, so a burst of finished shards stays cheap. */
  readonly #prefetchQueue = new PrefetchQueue(PREFETCH_IN_FLIGHT);

  constructor(deps: CommitterDeps) {
    this.#deps = deps;
  }

  /** Moves the sync as far as it can go now; returns the record it leaves. */
  async drive(syncId: string): Promise<SyncRecord> {
    let record = await this.#deps.store.require(syncId);
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
    if (record.state.phase === 'COMMITTED') await this.#deps.committed?.(record);
    return record;
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
    this.#plans.clear();
  }

  /** The sync left PREPARING (or is gone): drop what was prefetched for it and what is still queued. */
  #forget(syncId: string): void {
    this.#prefetched.delete(syncId);
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
      const shard = await loadShardBlob(tables.warehouseStore(warehouse), record, tables.tablePath(record.plan.table), shardId, attemptId, trust);
      if (!this.#plans.has(syncId)) return; // forgotten while the blob was read: the sync moved on
      const bySync = this.#prefetched.get(syncId) ?? new Map<string, VerifiedShard>();
      bySync.set(shardId, shard);
      this.#prefetched.set(syncId, bySync);
    } catch {
      // The commit reads this blob again and records the typed reason if it is bad; a Redis or
      // storage hiccup here only costs the commit one more read.
    }
  }

  /** The sync's record for its plan: read once per sync (the concurrent first prefetches share the read), then from memory. */
  async #planOf(syncId: string): Promise<PlanContext | undefined> {
    let pending = this.#plans.get(syncId);
    if (pending === undefined) {
      pending = this.#deps.store
        .get(syncId)
        .then((r) => (r?.state.phase === 'PREPARING' ? { record: r, fingerprint: planFingerprint(r.plan) } : undefined));
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

  /** What the blobs of a sync must agree with: each shard's vote token and its accepted vote. */
  #trust(plan: PlanContext, vote: (shardId: string) => Promise<ShardVote | undefined>): ShardTrust {
    const { record, fingerprint } = plan;
    return { voteToken: (shardId) => shardVoteToken(this.#deps.clusterSecret, record.id, shardId, fingerprint), vote };
  }

  /** For a whole-sync load: every vote in one read. */
  async #trustAll(record: SyncRecord): Promise<ShardTrust> {
    const votes = await this.#deps.store.votes(record.id);
    return this.#trust({ record, fingerprint: planFingerprint(record.plan) }, (shardId) => Promise.resolve(votes.get(shardId)));
  }

  async #step(record: SyncRecord): Promise<SyncRecord | undefined> {
    switch (record.state.phase) {
      case 'PLANNED':
      case 'COMMITTED':
      case 'ABORTED':
        return undefined;
      case 'PREPARING':
        return this.#prepareCommit(record);
      case 'COMMITTING':
        return this.#publish(record);
      case 'ABORTING':
        return this.#cleanUp(record, record.state.deleteStaged);
    }
  }

  async #prepareCommit(record: SyncRecord): Promise<SyncRecord> {
    const { store, tables } = this.#deps;
    const attempts = await store.acceptedAttempts(record.id);
    const missing = record.plan.shards.filter((s) => attempts[s.id] === undefined);
    if (missing.length > 0) {
      return store.apply(record.id, { type: 'abort', reason: await this.#shardFailure(record.id, missing.map((s) => s.id)) });
    }
    const trust = await this.#trustAll(record); // outside the try: a Redis hiccup retries the commit job, it is no reason to abort
    let loaded;
    let collidingKeys: number | null;
    try {
      const prefetched = this.#prefetched.get(record.id);
      loaded = await loadAcceptedBlobs(tables.warehouseStore(this.#deps.warehouse), record, tables.tablePath(record.plan.table), attempts, trust, prefetched);
      // Keys in several shards went to the later shard in plan order: count them for the status.
      collidingKeys = await tables.countCollidingKeys(this.#deps.warehouse, record.plan.table, loaded.shards);
    } catch (error) {
      if (isTributaryError(error) && error.retryable) throw error;
      return store.apply(record.id, { type: 'abort', reason: toErrorData(error) });
    }
    const counted = collidingKeys === null ? {} : { collidingKeys };
    const committing = await store.apply(record.id, { type: 'beginCommit', accepted: loaded.accepted, ...counted });
    if (committing.state.phase === 'COMMITTING' && sameAttempts(committing.state.accepted, loaded.accepted)) {
      this.#verified.set(record.id, { messages: loaded.messages, positions: loaded.positions });
    }
    return committing;
  }

  /** The reason to give for the first shard without an accepted attempt: its last failure. */
  async #shardFailure(syncId: string, shardIds: readonly string[]): Promise<ErrorData> {
    // One pass over the attempts (oldest first per shard), not one per missing shard.
    const lastFailure = new Map<string, ErrorData>();
    for (const a of await this.#deps.store.attempts(syncId)) {
      if (a.error !== undefined && a.error.code !== 'SYNC_NOT_ACCEPTING') lastFailure.set(a.shardId, a.error);
    }
    for (const shardId of shardIds) {
      const last = lastFailure.get(shardId);
      if (last !== undefined) return { ...last, context: { ...last.context, shard: shardId } };
    }
    return toErrorData(
      errorFrom(coordinatorErrors, 'SYNC_SHARD_MISSING', `no accepted attempt for shard(s) ${shardIds.slice(0, 5).join(', ')}`, {
        shard: shardIds[0],
        missing: shardIds.length,
      }),
    );
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
      const { messages, positions } = verified ?? (await loadAcceptedBlobs(tables.warehouseStore(warehouse), record, tables.tablePath(ref), attempts, await this.#trustAll(record)));
      loading = false;
      // The shards' source positions: a bounded property, and the full list beside the sync's staging when it is large.
      const folded = foldPositions(record.id, positions);
      if (folded.object !== undefined) await tables.warehouseStore(warehouse).put(folded.object.key, folded.object.bytes);
      this.#deps.faultPoint?.('before-publish');
      const published = await tables.publish(warehouse, ref, {
        messages,
        identity,
        kind: record.plan.mode === 'overwrite' ? 'OVERWRITE' : 'APPEND',
        // "overwrite" replaces the partitions the load touches, not the whole table.
        ...(record.plan.mode === 'overwrite' ? { overwritePartitions: touchedPartitions(messages) } : {}),
        baseSnapshotId: record.plan.baseSnapshotId,
        properties: { ...record.plan.options.snapshotProperties, ...folded.properties, 'tributary.sync-id': record.id, 'tributary.shards': String(record.plan.shards.length) },
      });
      this.#deps.faultPoint?.('after-publish');
      this.#deps.published?.(published.attempts, published.conflicts);
      return await store.apply(record.id, { type: 'committed', snapshotId: published.snapshotId });
    } catch (error) {
      // Unknown outcome until the table says otherwise: look for our identity before giving up.
      const landed = await tables.findCommitted(warehouse, ref, identity, record.plan.baseSnapshotId);
      if (landed !== undefined) return store.apply(record.id, { type: 'committed', snapshotId: landed });
      if (!isTributaryError(error) || error.retryable) throw error; // the commit job retries with backoff
      this.#deps.logger?.error({ syncId: record.id, code: error.code, error: error.message }, 'commit abandoned');
      // A blob refused while loading (a bad token, a blob changed after its vote) is its own reason.
      const reason = loading ? error : errorFrom(coordinatorErrors, 'SYNC_COMMIT_ABANDONED', `commit failed for good: ${error.message}`, { cause: error.code });
      return store.apply(record.id, { type: 'abandonCommit', reason: toErrorData(reason) });
    }
  }

  async #cleanUp(record: SyncRecord, deleteFiles: boolean): Promise<SyncRecord> {
    if (deleteFiles) {
      const { tables, warehouse } = this.#deps;
      await deleteStaged(tables.warehouseStore(warehouse), record.id, tables.tablePath(record.plan.table));
    }
    return this.#deps.store.apply(record.id, { type: 'cleaned' });
  }
}

function sameAttempts(a: Readonly<Record<string, AcceptedAttempt>>, b: Readonly<Record<string, AcceptedAttempt>>): boolean {
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((k) => a[k]?.attemptId === b[k]?.attemptId);
}

function touchedPartitions(messages: readonly CommitMessage[]): Uint8Array[] {
  const unique = new Map<string, Uint8Array>();
  for (const m of messages) unique.set(Buffer.from(m.partition).toString('hex'), m.partition);
  return [...unique.values()];
}
