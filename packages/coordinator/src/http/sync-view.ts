/**
 * What GET /v1/syncs/:id shows: the record without its shard list, shard counts, and the first
 * page of shards, each with its attempts as the workers reported them (with durations) and its
 * accepted attempt; and how long each phase took. Further pages: GET /v1/syncs/:id/shards, in plan
 * order, behind an opaque cursor. A page costs the same whatever the shard count.
 */
import { errorFrom, type ShardAttempt } from '@tributary/protocol';
import { redactSource } from '@tributary/sources';
import { coordinatorErrors } from '../errors.ts';
import { SYNC_PHASES, type SyncPhase, type SyncRecord } from '../sync/state.ts';
import type { SyncResponse } from './schemas.ts';

/** Shards in the sync view (the first page). */
export const FIRST_SHARD_PAGE = 100;

type ShardViewData = SyncResponse['shards'][number];

const ms = (from: string, to: string | undefined): number | null => (to === undefined ? null : Date.parse(to) - Date.parse(from));

/**
 * The view of one sync. `attempts` and `acceptedIds` need only cover the first page's shards;
 * `counts` default to what they show (enough when they cover every shard).
 */
export function syncView(
  record: SyncRecord,
  attempts: readonly ShardAttempt[],
  acceptedIds: Readonly<Record<string, string>>,
  counts?: { readonly accepted: number; readonly attempted: number },
  pageSize = FIRST_SHARD_PAGE,
): SyncResponse {
  const state = record.state;
  const page = shardPage(record, attempts, acceptedIds, 0, pageSize);
  const { shards: _shards, ...plan } = record.plan;
  return {
    id: record.id,
    version: record.version,
    phase: state.phase,
    state: stateView(state),
    plan: { ...plan, source: redactSource(record.plan.source) },
    shardCounts: {
      total: record.plan.shards.length,
      accepted: frozenCount(record) ?? counts?.accepted ?? Object.keys(acceptedIds).length,
      attempted: counts?.attempted ?? new Set(attempts.map((a) => a.shardId)).size,
    },
    snapshotId: state.phase === 'COMMITTED' ? state.snapshotId : null,
    collidingKeys: (state.phase === 'COMMITTING' || state.phase === 'COMMITTED' ? state.collidingKeys : undefined) ?? null,
    timings: record.timings,
    phaseDurationsMs: phaseDurations(record),
    shards: page.shards,
    nextShardsCursor: page.nextCursor,
  };
}

function stateView(state: SyncRecord['state']): SyncResponse['state'] {
  if (state.phase === 'COMMITTED') return { phase: state.phase, snapshotId: state.snapshotId };
  if (state.phase === 'COMMITTING') return { phase: state.phase };
  return state;
}

function frozenCount(record: SyncRecord): number | undefined {
  const state = record.state;
  return state.phase === 'COMMITTING' || state.phase === 'COMMITTED' ? Object.keys(state.accepted).length : undefined;
}

/** Shards `offset` … `offset + limit - 1` of the plan, from the attempts and accepted ids of (at least) those shards. */
export function shardPage(
  record: SyncRecord,
  attempts: readonly ShardAttempt[],
  acceptedIds: Readonly<Record<string, string>>,
  offset: number,
  limit: number,
): { shards: ShardViewData[]; nextCursor: string | null } {
  const state = record.state;
  const frozen = state.phase === 'COMMITTING' || state.phase === 'COMMITTED' ? state.accepted : undefined;
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
    const lastError = [...list].reverse().find((a) => a.error !== undefined)?.error;
    return {
      id: shard.id,
      spec: { ...shard.spec },
      acceptedAttempt,
      attempts: list.map((a) => ({ ...a, durationMs: ms(a.startedAt, a.finishedAt) })),
      rows: winner?.rows ?? null,
      bytes: winner?.bytes ?? null,
      durationMs: winner === undefined ? null : ms(winner.startedAt, winner.finishedAt),
      error: winner === undefined ? lastError : undefined,
    };
  });
  return { shards, nextCursor: end < record.plan.shards.length ? encodeCursor(record.id, end) : null };
}

/**
 * Cursors are opaque to clients (base64url of the sync id and the next plan position): a page
 * always starts where the previous one ended, since a plan never changes after it is persisted.
 */
export function encodeCursor(syncId: string, offset: number): string {
  return Buffer.from(JSON.stringify({ s: syncId, o: offset })).toString('base64url');
}

export function decodeCursor(syncId: string, cursor: string | undefined, total: number): number {
  if (cursor === undefined) return 0;
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    parsed = undefined;
  }
  const { s, o } = (parsed ?? {}) as { s?: unknown; o?: unknown };
  if (s !== syncId || typeof o !== 'number' || !Number.isInteger(o) || o < 0 || o > total) {
    throw errorFrom(coordinatorErrors, 'SYNC_CURSOR_INVALID', `the cursor is not one of sync ${syncId}'s shard pages`, { syncId });
  }
  return o;
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
