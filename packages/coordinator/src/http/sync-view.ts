/**
 * What GET /v1/syncs/:id shows: the record, plus each shard's attempts as the workers reported
 * them, with durations; the accepted attempt per shard; and how long each phase took.
 */
import { redactSource, type ShardAttempt } from '@tributary/protocol';
import { SYNC_PHASES, type SyncPhase, type SyncRecord } from '../sync/state.ts';
import type { SyncResponse } from './schemas.ts';

const ms = (from: string, to: string | undefined): number | null => (to === undefined ? null : Date.parse(to) - Date.parse(from));

export function syncView(record: SyncRecord, attempts: readonly ShardAttempt[], acceptedIds: Readonly<Record<string, string>>): SyncResponse {
  const state = record.state;
  const frozen = state.phase === 'COMMITTING' || state.phase === 'COMMITTED' ? state.accepted : undefined;
  const byShard = new Map<string, ShardAttempt[]>();
  for (const a of attempts) {
    const list = byShard.get(a.shardId);
    if (list === undefined) byShard.set(a.shardId, [a]);
    else list.push(a);
  }
  const shards = record.plan.shards.map((shard) => {
    const list = byShard.get(shard.id) ?? [];
    const acceptedAttempt = frozen?.[shard.id]?.attemptId ?? acceptedIds[shard.id] ?? null;
    const winner = list.find((a) => a.attemptId === acceptedAttempt);
    const lastError = [...list].reverse().find((a) => a.error !== undefined)?.error;
    return {
      id: shard.id,
      acceptedAttempt,
      attempts: list.map((a) => ({ ...a, durationMs: ms(a.startedAt, a.finishedAt) })),
      rows: winner?.rows ?? null,
      bytes: winner?.bytes ?? null,
      durationMs: winner === undefined ? null : ms(winner.startedAt, winner.finishedAt),
      error: winner === undefined ? lastError : undefined,
    };
  });
  return {
    id: record.id,
    version: record.version,
    phase: state.phase,
    state,
    plan: { ...record.plan, source: redactSource(record.plan.source), shards: [...record.plan.shards] },
    snapshotId: state.phase === 'COMMITTED' ? state.snapshotId : null,
    collidingKeys: (state.phase === 'COMMITTING' || state.phase === 'COMMITTED' ? state.collidingKeys : undefined) ?? null,
    timings: record.timings,
    phaseDurationsMs: phaseDurations(record),
    shards,
  };
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
