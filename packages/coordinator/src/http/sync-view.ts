/**
 * What GET /v1/syncs/:id shows: the record without its shard list, shard counts, and the first
 * page of shards, each with its attempts as the workers reported them (with durations) and its
 * accepted attempt; and how long each phase took. Further pages: GET /v1/syncs/:id/shards, in plan
 * order, behind an opaque cursor. A page costs the same whatever the shard count.
 *
 * Progress: each shard shows the rows and bytes of its current attempt (the accepted one, else the
 * latest running one), so far while it runs; the sync shows their sums over all its shards
 * (`rowsRead`, `bytesWritten`: from the frozen accepted attempts once the commit began, else from
 * every attempt's last report, a read proportional to the attempts).
 */
import { errorFrom, type ShardAttempt } from '@tributary/protocol';
import { redactSource } from '@tributary/sources';
import { coordinatorErrors } from '../errors.ts';
import { FIRST_SHARD_PAGE } from '../sync/head.ts';
import type { AttemptFigures, ListPosition } from '../sync/store.ts';
import { SYNC_PHASES, loadFiles, type SyncPhase, type SyncRecord } from '../sync/state.ts';
import type { RejectsResponse, SyncResponse } from './schemas.ts';
import { encodeCursor, parseCursor } from './table-cursor.ts';
import { z } from 'zod';

/** Shards in the sync view (the first page). */
export { FIRST_SHARD_PAGE };

type ShardViewData = SyncResponse['shards'][number];

const ms = (from: string, to: string | undefined): number | null => (to === undefined ? null : Date.parse(to) - Date.parse(from));

/**
 * The view of one sync. `attempts` and `acceptedIds` need only cover the first page's shards;
 * `counts` default to what they show (enough when they cover every shard). `whole`: what the
 * record's plan and frozen attempts would say when `record` is a head (cut to its first page).
 */
export function syncView(
  record: SyncRecord,
  attempts: readonly ShardAttempt[],
  acceptedIds: Readonly<Record<string, string>>,
  counts?: { readonly accepted: number; readonly attempted: number },
  pageSize = FIRST_SHARD_PAGE,
  totals: ProgressTotals = progressTotals(record, attempts, acceptedIds),
  whole?: { readonly shards: number; readonly frozenAccepted: number | null; readonly files?: number | null },
  buckets: BucketProgress = { attempts: [], accepted: {} },
): SyncResponse {
  const state = record.state;
  const total = whole?.shards ?? record.plan.shards.length;
  const page = shardPage(record, attempts, acceptedIds, 0, pageSize, total);
  const { shards: _shards, ...plan } = record.plan;
  const shardsAccepted = (whole === undefined ? frozenCount(record) : (whole.frozenAccepted ?? undefined)) ?? counts?.accepted ?? Object.keys(acceptedIds).length;
  const layout = record.plan.options.layout ?? 'direct';
  // A head (whole) carries the files of every shard; its record holds the first page's only.
  const files = whole?.files !== undefined ? whole.files : loadFiles(record);
  return {
    id: record.id,
    version: record.version,
    phase: state.phase,
    state: stateView(state),
    plan: { ...plan, source: redactSource(record.plan.source) },
    shardCounts: {
      total,
      accepted: shardsAccepted,
      attempted: counts?.attempted ?? new Set(attempts.map((a) => a.shardId)).size,
    },
    rowsRead: totals.rows,
    bytesWritten: totals.bytes,
    rejectedRows: totals.rejected ?? 0,
    snapshotId: state.phase === 'COMMITTED' ? state.snapshotId : null,
    collidingKeys: (state.phase === 'COMMITTING' || state.phase === 'COMMITTED' ? state.collidingKeys : undefined) ?? null,
    layout,
    stages: {
      shards: { total, accepted: shardsAccepted, rows: totals.rows, bytes: totals.bytes },
      buckets: layout === 'bucketed' ? bucketStageView(record, buckets) : null,
    },
    files,
    warnings: layout === 'direct' && files !== null && files > DIRECT_FILES_WARNING ? [directFilesWarning(files)] : [],
    timings: record.timings,
    phaseDurationsMs: phaseDurations(record),
    shards: page.shards,
    nextShardsCursor: page.nextCursor,
  };
}

/** A direct load above this many files is flagged in its status (readers open every level-0 file of a bucket). */
export const DIRECT_FILES_WARNING = 1000;

function directFilesWarning(files: number): string {
  return `this direct load added ${files} data files (more than ${DIRECT_FILES_WARNING}): every reader opens each of them; layout "bucketed" writes one file per (partition, bucket) and target-file-size`;
}

/** The bucket jobs' attempts and accepted ids (bucketed layout; empty before MERGING). */
export interface BucketProgress {
  readonly attempts: readonly ShardAttempt[];
  readonly accepted: Readonly<Record<string, string>>;
}


function bucketStageView(record: SyncRecord, buckets: BucketProgress): SyncResponse['stages']['shards'] {
  const state = record.state;
  const stage = state.phase === 'COMMITTING' || state.phase === 'COMMITTED' ? state.bucketStage : undefined;
  if (stage !== undefined) {
    const accepted = Object.values(stage.accepted);
    return { total: accepted.length, accepted: accepted.length, rows: accepted.reduce((n, a) => n + a.rows, 0), bytes: accepted.reduce((n, a) => n + a.bytes, 0) };
  }
  const { rows, bytes } = attemptTotals(buckets.attempts, buckets.accepted);
  return { total: state.phase === 'MERGING' ? state.buckets : null, accepted: Object.keys(buckets.accepted).length, rows, bytes };
}

export interface ProgressTotals {
  readonly rows: number;
  readonly bytes: number;
  /** Rows rejected under the `reject` bad-row policy (absent: none). */
  readonly rejected?: number;
}

/**
 * Rows read and bytes written by the sync's running and finished shards: each shard counts its
 * accepted attempt, else its latest running attempt (a failed or abandoned attempt counts nothing).
 * Once the commit began the frozen accepted attempts are the whole answer; before, `attempts` and
 * `acceptedIds` must cover every shard.
 */
export function progressTotals(record: SyncRecord, attempts: readonly AttemptFigures[], acceptedIds: Readonly<Record<string, string>>): ProgressTotals {
  const state = record.state;
  if (state.phase === 'COMMITTING' || state.phase === 'COMMITTED') {
    let rows = 0;
    let bytes = 0;
    let rejected = 0;
    for (const a of Object.values(state.accepted)) {
      rows += a.rows;
      bytes += a.bytes;
      rejected += a.rejected ?? 0;
    }
    return { rows, bytes, rejected };
  }
  return attemptTotals(attempts, acceptedIds);
}

/** Per job its accepted attempt, else its latest running one; their rows and bytes summed. */
function attemptTotals(attempts: readonly AttemptFigures[], acceptedIds: Readonly<Record<string, string>>): ProgressTotals {
  const current = new Map<string, AttemptFigures>();
  for (const a of attempts) {
    const counts = acceptedIds[a.shardId] === undefined ? a.status === 'running' : a.attemptId === acceptedIds[a.shardId];
    const previous = current.get(a.shardId);
    if (counts && (previous === undefined || Number(a.attemptId) > Number(previous.attemptId))) current.set(a.shardId, a);
  }
  let rows = 0;
  let bytes = 0;
  let rejected = 0;
  for (const a of current.values()) {
    rows += a.rows ?? 0;
    bytes += a.bytes ?? 0;
    rejected += a.rejected ?? 0;
  }
  return { rows, bytes, rejected };
}

/**
 * The rejects files of the shards' accepted attempts: only an accepted attempt's rows count (a
 * failed or losing attempt's file is never referenced), and its file was complete before it voted.
 */
export function rejectsView(record: SyncRecord, attempts: readonly ShardAttempt[], acceptedIds: Readonly<Record<string, string>>): RejectsResponse {
  const state = record.state;
  const frozen = state.phase === 'COMMITTING' || state.phase === 'COMMITTED' ? state.accepted : undefined;
  const files: RejectsResponse['files'] = [];
  for (const shard of record.plan.shards) {
    const attemptId = frozen?.[shard.id]?.attemptId ?? acceptedIds[shard.id];
    const attempt = attemptId === undefined ? undefined : attempts.find((a) => a.shardId === shard.id && a.attemptId === attemptId);
    if (attempt?.rejectsKey !== undefined && (attempt.rejected ?? 0) > 0) files.push({ shardId: shard.id, attemptId: attempt.attemptId, rows: attempt.rejected ?? 0, key: attempt.rejectsKey });
  }
  return { syncId: record.id, policy: record.plan.options.badRows ?? 'fail', rejectedRows: files.reduce((n, f) => n + f.rows, 0), files };
}

/** The attempt a shard's progress shows: the accepted one, else the latest still running. */
function currentAttempt(list: readonly ShardAttempt[], acceptedAttempt: string | null): ShardAttempt | undefined {
  if (acceptedAttempt !== null) return list.find((a) => a.attemptId === acceptedAttempt);
  return list.filter((a) => a.status === 'running').reduce<ShardAttempt | undefined>((latest, a) => (latest === undefined || Number(a.attemptId) > Number(latest.attemptId) ? a : latest), undefined);
}

function stateView(state: SyncRecord['state']): SyncResponse['state'] {
  if (state.phase === 'COMMITTED') return { phase: state.phase, snapshotId: state.snapshotId, ...(state.collidingKeys === undefined ? {} : { collidingKeys: state.collidingKeys }) };
  if (state.phase === 'COMMITTING') return { phase: state.phase, ...(state.collidingKeys === undefined ? {} : { collidingKeys: state.collidingKeys }) };
  if (state.phase === 'MERGING') return { phase: state.phase, buckets: state.buckets };
  return state;
}

function frozenCount(record: SyncRecord): number | undefined {
  const state = record.state;
  return state.phase === 'MERGING' || state.phase === 'COMMITTING' || state.phase === 'COMMITTED' ? Object.keys(state.accepted).length : undefined;
}

/**
 * Shards `offset` … `offset + limit - 1` of the plan, from the attempts and accepted ids of (at
 * least) those shards. `total`: the plan's shard count (when `record` is a head cut to its first page).
 */
export function shardPage(
  record: SyncRecord,
  attempts: readonly ShardAttempt[],
  acceptedIds: Readonly<Record<string, string>>,
  offset: number,
  limit: number,
  total = record.plan.shards.length,
): { shards: ShardViewData[]; nextCursor: string | null } {
  const state = record.state;
  const frozen = state.phase === 'MERGING' || state.phase === 'COMMITTING' || state.phase === 'COMMITTED' ? state.accepted : undefined;
  const byShard = new Map<string, ShardAttempt[]>();
  for (const a of attempts) {
    const list = byShard.get(a.shardId);
    if (list === undefined) byShard.set(a.shardId, [a]);
    else list.push(a);
  }
  const end = Math.min(record.plan.shards.length, offset + limit);
  const shards = record.plan.shards.slice(offset, end).map((shard) => {
    const list = byShard.get(shard.id) ?? [];
    const acceptedAttempt = frozen?.[shard.id]?.attemptId ?? acceptedIds[shard.id] ?? null;
    const winner = list.find((a) => a.attemptId === acceptedAttempt);
    const current = currentAttempt(list, acceptedAttempt);
    const lastError = [...list].reverse().find((a) => a.error !== undefined)?.error;
    return {
      id: shard.id,
      spec: { ...shard.spec },
      acceptedAttempt,
      attempts: list.map((a) => ({ ...a, durationMs: ms(a.startedAt, a.finishedAt) })),
      rows: current?.rows ?? null,
      bytes: current?.bytes ?? null,
      startedAt: current?.startedAt ?? null,
      updatedAt: current === undefined ? null : (current.updatedAt ?? current.finishedAt ?? current.startedAt),
      durationMs: winner === undefined ? null : ms(winner.startedAt, winner.finishedAt),
      error: winner === undefined ? lastError : undefined,
    };
  });
  return { shards, nextCursor: end < total ? encodeShardsCursor(record.id, end) : null };
}

/**
 * Cursors are opaque to clients (base64url of the sync id and the next plan position): a page
 * always starts where the previous one ended, since a plan never changes after it is persisted.
 */
export function encodeShardsCursor(syncId: string, offset: number): string {
  return encodeCursor({ s: syncId, o: offset });
}

const ShardsCursor = z.object({ s: z.string(), o: z.number().int().min(0) });

/** @throws SYNC_CURSOR_INVALID */
export function decodeShardsCursor(syncId: string, cursor: string | undefined, total: number): number {
  if (cursor === undefined) return 0;
  const position = parseCursor(ShardsCursor, cursor);
  if (position === undefined || position.s !== syncId || position.o > total) {
    throw errorFrom(coordinatorErrors, 'SYNC_CURSOR_INVALID', `the cursor is not one of sync ${syncId}'s shard pages`, { syncId });
  }
  return position.o;
}

/**
 * The syncs listing's cursor: the position (creation score and id) of the last sync of a page. It
 * is a place in time, not an offset, so syncs started or removed between two pages move nothing:
 * the next page starts with the sync listed after that one, whatever the filter.
 */
const SyncsCursor = z.object({ k: z.literal('syncs'), s: z.number().finite(), id: z.string().min(1).max(200) });

export function encodeSyncsCursor(position: ListPosition): string {
  return encodeCursor({ k: 'syncs', s: position.score, id: position.id });
}

/** @throws SYNC_CURSOR_INVALID */
export function decodeSyncsCursor(cursor: string): ListPosition {
  const position = parseCursor(SyncsCursor, cursor);
  if (position === undefined) throw errorFrom(coordinatorErrors, 'SYNC_CURSOR_INVALID', 'the cursor was not returned by the syncs listing', {});
  return { score: position.s, id: position.id };
}

function phaseDurations(record: SyncRecord): Partial<Record<SyncPhase, number>> {
  const entered = SYNC_PHASES.flatMap((p) => {
    const at = record.timings[p];
    return at === undefined ? [] : [{ phase: p, at: Date.parse(at) }];
  }).sort((a, b) => a.at - b.at);
  const out: Partial<Record<SyncPhase, number>> = {};
  entered.forEach((e, i) => {
    const next = entered[i + 1];
    if (next !== undefined) out[e.phase] = next.at - e.at;
  });
  return out;
}
