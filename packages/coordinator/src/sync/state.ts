/**
 * The life of one sync: a pure state machine. The store persists every transition (compare-and-set
 * on `version`) before the coordinator performs its effects, so a restarted coordinator resumes
 * from the recorded state.
 *
 *   PLANNED ──start──► PREPARING ──beginCommit──────────────────► COMMITTING ──committed──► COMMITTED
 *      │                   │  └─beginMerge─► MERGING ─beginCommit─┘   │   ▲
 *      │ abort             │ abort, shard    │ abort, bucket NO vote,  │   └─ committed (a snapshot with our
 *      │                   │ NO vote, bad    │ bad blob                │      identity was found after a crash)
 *      ▼                   ▼ blob            ▼                         │ abandonCommit (no snapshot carries our
 *   ABORTING ◄─────────────┴─────────────────┴─────────────────────────┘  identity; staged files are KEPT)
 *      │ cleaned
 *      ▼
 *   ABORTED
 *
 * Why this shape (what two-phase committers in the field learned, Paimon's own incidents included):
 * - The plan (exact shard ids, pinned base snapshot, commit identity) exists from PLANNED on, so
 *   completeness is "every planned id has one accepted attempt", never a count or a listing.
 * - Blobs are loaded and verified while still PREPARING; COMMITTING means "a snapshot may be
 *   published at any moment". From then on the outcome can be unknown, and Paimon's own incidents
 *   (apache/paimon#7232, apache/paimon#9269) say: delete nothing until the table proves the
 *   outcome. So an abort from COMMITTING keeps every staged file (`deleteStaged: false`); a plain
 *   abort request is refused.
 * - `accepted` (one attempt per shard) is frozen into COMMITTING; a late or zombie attempt can
 *   never change what the commit publishes.
 * - The bucketed layout adds MERGING: the shards' accepted attempts are frozen on entering it (no
 *   shard attempt is accepted any more), and only then are the bucket jobs planned and enqueued, so
 *   a bucket job reads exactly the accepted attempts' runs. One attempt per bucket is accepted while
 *   MERGING; `buckets` (one attempt per bucket) is frozen into COMMITTING, and the commit publishes
 *   the bucket blobs, never the shard blobs (which name runs outside the table).
 */
import type { BadRowPolicy, ErrorData, SyncDeletes, SyncLayout } from '@tributary/protocol';
import type { TableRef } from '@tributary/table';

export const SYNC_PHASES = ['PLANNED', 'PREPARING', 'MERGING', 'COMMITTING', 'COMMITTED', 'ABORTING', 'ABORTED'] as const;
export type SyncPhase = (typeof SYNC_PHASES)[number];
export const TERMINAL_PHASES: readonly SyncPhase[] = ['COMMITTED', 'ABORTED'];

/** One shard of the plan: a stable id and the source's description of it (plain JSON). */
export interface PlannedShard {
  readonly id: string;
  readonly spec: Readonly<Record<string, unknown>>;
}

export interface SyncPlan {
  readonly table: TableRef;
  readonly mode: 'append' | 'upsert' | 'overwrite';
  readonly source: Readonly<Record<string, unknown>>;
  readonly shards: readonly PlannedShard[];
  /** The table's latest snapshot when the sync was planned (null: the table had none). */
  readonly baseSnapshotId: number | null;
  readonly schemaId: number;
  /**
   * SHA-256 of the table's `schema-<schemaId>` file when planned: which table the load is for. A
   * table dropped and created again under its name starts again at schema 0 with another file, so
   * the commit refuses it (SYNC_TABLE_REPLACED). Absent in plans made before this field.
   */
  readonly schemaSha256?: string;
  /** Derived from the sync id: never shared between syncs (apache/paimon#9667, apache/fluss#4396). */
  readonly commitUser: string;
  /** Paimon's commitIdentifier (a Java long), as a decimal string. */
  readonly commitIdentifier: string;
  readonly options: SyncPlanOptions;
}

export interface SyncPlanOptions {
  /** Executions per shard job before the shard votes NO. */
  readonly maxAttempts: number;
  /** Written into the snapshot's properties, beside the sync id. */
  readonly snapshotProperties: Readonly<Record<string, string>>;
  /** Abort if PREPARE (the shards, and in the bucketed layout the buckets) has not finished after this long (unset: wait for ever). */
  readonly prepareTimeoutMs?: number;
  /** What workers do with a row that does not fit (unset, in records from before the option: `fail`). */
  readonly badRows?: BadRowPolicy;
  /** How the shards write (absent: `direct`, a sync planned before layouts existed). */
  readonly layout?: SyncLayout;
  /** Deletes the load carries (absent: none): a marker column, a full extract of one partition. */
  readonly deletes?: SyncDeletes;
  /** Plan a compaction of the table once COMMITTED (absent: no). */
  readonly compactAfter?: boolean;
}

/** The attempt of a shard whose result the commit will publish. */
export interface AcceptedAttempt {
  readonly attemptId: string;
  readonly blobKey: string;
  readonly checksum: number;
  readonly rows: number;
  readonly bytes: number;
  /** Rows its worker rejected (the `reject` bad-row policy), as it voted. */
  readonly rejected?: number;
  /** Files its blob names (the blob header's fileCount; absent in records from before it was kept). */
  readonly files?: number;
}

/** What the bucket stage produced (bucketed layout), frozen into COMMITTING. */
export interface BucketStage {
  /** The accepted attempt of each bucket job (`bucket-<n>` → attempt). */
  readonly accepted: Readonly<Record<string, AcceptedAttempt>>;
  /** Data files the buckets wrote: the files this load adds to the table. */
  readonly files: number;
}

export type SyncState =
  | { readonly phase: 'PLANNED' }
  | { readonly phase: 'PREPARING' }
  | {
      readonly phase: 'MERGING';
      readonly accepted: Readonly<Record<string, AcceptedAttempt>>;
      /** Bucket jobs planned: `bucket-0` … `bucket-<buckets - 1>`. */
      readonly buckets: number;
    }
  | {
      readonly phase: 'COMMITTING';
      readonly accepted: Readonly<Record<string, AcceptedAttempt>>;
      readonly collidingKeys?: number;
      readonly bucketStage?: BucketStage;
    }
  | {
      readonly phase: 'COMMITTED';
      readonly accepted: Readonly<Record<string, AcceptedAttempt>>;
      readonly bucketStage?: BucketStage;
      readonly snapshotId: number;
      /**
       * Primary keys present in more than one shard (the later shard in plan order won them);
       * absent for append tables and for syncs that began committing before it was counted.
       */
      readonly collidingKeys?: number;
    }
  | { readonly phase: 'ABORTING'; readonly reason: ErrorData; readonly deleteStaged: boolean }
  | { readonly phase: 'ABORTED'; readonly reason: ErrorData; readonly stagedDeleted: boolean };

export interface SyncRecord {
  readonly id: string;
  /** Incremented by every persisted transition; the store's compare-and-set compares it. */
  readonly version: number;
  readonly plan: SyncPlan;
  readonly state: SyncState;
  /** ISO time at which each phase was entered. */
  readonly timings: Readonly<Partial<Record<SyncPhase, string>>>;
}

export type SyncEvent =
  | { readonly type: 'start' }
  | { readonly type: 'beginCommit'; readonly accepted: Readonly<Record<string, AcceptedAttempt>>; readonly collidingKeys?: number }
  | { readonly type: 'beginMerge'; readonly accepted: Readonly<Record<string, AcceptedAttempt>>; readonly buckets: number }
  | { readonly type: 'bucketsDone'; readonly bucketStage: BucketStage; readonly collidingKeys?: number }
  | { readonly type: 'committed'; readonly snapshotId: number }
  | { readonly type: 'abort'; readonly reason: ErrorData }
  | { readonly type: 'abandonCommit'; readonly reason: ErrorData }
  | { readonly type: 'cleaned' };

/** The outcome of applying an event: a new record, nothing to do, or a refusal with a code. */
export type Transition =
  | { readonly kind: 'changed'; readonly record: SyncRecord }
  | { readonly kind: 'unchanged'; readonly record: SyncRecord }
  | {
      readonly kind: 'rejected';
      readonly code: 'SYNC_ILLEGAL_TRANSITION' | 'SYNC_COMMIT_IN_PROGRESS';
      readonly message: string;
    };

export function newSyncRecord(id: string, plan: SyncPlan, at: string): SyncRecord {
  return { id, version: 0, plan, state: { phase: 'PLANNED' }, timings: { PLANNED: at } };
}

export function isTerminal(phase: SyncPhase): boolean {
  return TERMINAL_PHASES.includes(phase);
}

/**
 * Whether everything the sync staged may be deleted, by the coordinator or by a late worker: it is
 * aborting or aborted from before its commit started. Never once a commit may have published.
 */
export function stagedDiscardable(state: SyncState): boolean {
  return (state.phase === 'ABORTING' && state.deleteStaged) || (state.phase === 'ABORTED' && state.stagedDeleted);
}

/** Files the load adds: the buckets' (bucketed) or the accepted shards' (direct), once the commit began. */
export function loadFiles(record: SyncRecord): number | null {
  const state = record.state;
  if (state.phase !== 'COMMITTING' && state.phase !== 'COMMITTED') return null;
  if (state.bucketStage !== undefined) return state.bucketStage.files;
  const accepted = Object.values(state.accepted);
  return accepted.every((a) => a.files !== undefined) ? accepted.reduce((n, a) => n + (a.files ?? 0), 0) : null;
}

/** Applies `event` to `record` at time `at`. Pure: persisting the result is the caller's job. */
export function transition(record: SyncRecord, event: SyncEvent, at: string): Transition {
  const next = nextState(record, event);
  if (next === 'unchanged') return { kind: 'unchanged', record };
  if ('kind' in next) return next;
  const timings = next.phase === record.state.phase ? record.timings : { ...record.timings, [next.phase]: at };
  return { kind: 'changed', record: { ...record, version: record.version + 1, state: next, timings } };
}

type Next = SyncState | 'unchanged' | Extract<Transition, { kind: 'rejected' }>;

function nextState(record: SyncRecord, event: SyncEvent): Next {
  const state = record.state;
  switch (event.type) {
    case 'start':
      if (state.phase === 'PLANNED') return { phase: 'PREPARING' };
      return state.phase === 'PREPARING' ? 'unchanged' : illegal(state.phase, event.type);
    case 'beginCommit':
      if (state.phase === 'MERGING') return illegal(state.phase, event.type); // a bucketed sync commits its buckets
      return beginCommit(record, event.accepted, event.collidingKeys);
    case 'beginMerge': {
      if (state.phase === 'MERGING' || state.phase === 'COMMITTING' || state.phase === 'COMMITTED') return 'unchanged';
      const checked = beginCommit(record, event.accepted, undefined);
      if (checked === 'unchanged' || 'kind' in checked) return checked;
      return { phase: 'MERGING', accepted: event.accepted, buckets: event.buckets };
    }
    case 'bucketsDone':
      return bucketsDone(state, event.bucketStage, event.collidingKeys);
    case 'committed':
      if (state.phase === 'COMMITTING') {
        const counted = state.collidingKeys === undefined ? {} : { collidingKeys: state.collidingKeys };
        const stage = state.bucketStage === undefined ? {} : { bucketStage: state.bucketStage };
        return { phase: 'COMMITTED', accepted: state.accepted, snapshotId: event.snapshotId, ...counted, ...stage };
      }
      if (state.phase === 'COMMITTED' && state.snapshotId === event.snapshotId) return 'unchanged';
      return illegal(state.phase, event.type);
    case 'abort':
      return abort(state, event.reason);
    case 'abandonCommit':
      if (state.phase === 'COMMITTING') return { phase: 'ABORTING', reason: event.reason, deleteStaged: false };
      return illegal(state.phase, event.type);
    case 'cleaned':
      if (state.phase === 'ABORTING') {
        return { phase: 'ABORTED', reason: state.reason, stagedDeleted: state.deleteStaged };
      }
      return state.phase === 'ABORTED' ? 'unchanged' : illegal(state.phase, event.type);
  }
}

function beginCommit(record: SyncRecord, accepted: Readonly<Record<string, AcceptedAttempt>>, collidingKeys: number | undefined): Next {
  const phase = record.state.phase;
  if (phase === 'COMMITTING' || phase === 'COMMITTED') return 'unchanged';
  if (phase !== 'PREPARING') return illegal(phase, 'beginCommit');
  const planned = new Set(record.plan.shards.map((s) => s.id));
  const missing = [...planned].filter((id) => accepted[id] === undefined);
  const extra = Object.keys(accepted).filter((id) => !planned.has(id)); // a Set: linear at 10,000 shards
  if (missing.length > 0 || extra.length > 0) {
    return {
      kind: 'rejected',
      code: 'SYNC_ILLEGAL_TRANSITION',
      message: `commit needs exactly the planned shards: missing [${missing.join(', ')}], unplanned [${extra.join(', ')}]`,
    };
  }
  return { phase: 'COMMITTING', accepted, ...(collidingKeys === undefined ? {} : { collidingKeys }) };
}

/** MERGING → COMMITTING once every planned bucket job has exactly one accepted attempt. */
function bucketsDone(state: SyncState, stage: BucketStage, collidingKeys: number | undefined): Next {
  if (state.phase === 'COMMITTING' || state.phase === 'COMMITTED') return 'unchanged';
  if (state.phase !== 'MERGING') return illegal(state.phase, 'bucketsDone');
  const ids = Object.keys(stage.accepted);
  const planned = Array.from({ length: state.buckets }, (_, i) => `bucket-${i}`);
  if (ids.length !== planned.length || planned.some((id) => stage.accepted[id] === undefined)) {
    return { kind: 'rejected', code: 'SYNC_ILLEGAL_TRANSITION', message: `commit needs exactly the ${state.buckets} planned buckets, got ${ids.length}` };
  }
  return { phase: 'COMMITTING', accepted: state.accepted, bucketStage: stage, ...(collidingKeys === undefined ? {} : { collidingKeys }) };
}

function abort(state: SyncState, reason: ErrorData): Next {
  switch (state.phase) {
    case 'PLANNED':
    case 'PREPARING':
    case 'MERGING':
      return { phase: 'ABORTING', reason, deleteStaged: true };
    case 'ABORTING':
    case 'ABORTED':
      return 'unchanged';
    case 'COMMITTING':
      return {
        kind: 'rejected',
        code: 'SYNC_COMMIT_IN_PROGRESS',
        message: 'the commit has started; the sync ends when the table shows its outcome',
      };
    case 'COMMITTED':
      return illegal(state.phase, 'abort');
  }
}

function illegal(phase: SyncPhase, event: SyncEvent['type']): Extract<Transition, { kind: 'rejected' }> {
  return { kind: 'rejected', code: 'SYNC_ILLEGAL_TRANSITION', message: `cannot ${event} a sync in ${phase}` };
}
