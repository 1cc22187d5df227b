/**
 * One measured sync through the REST API: create the table (POST /v1/tables), start the sync
 * (POST /v1/syncs), wait for a terminal phase, and watch the table's LATEST snapshot on its own so
 * that "snapshot visible" is seen by a reader, not taken from the coordinator's record.
 */
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { openTable, type ObjectStore } from '@tributary/table';
import { call } from './processes.ts';
import { ORDERS_TABLE, type GeneratorSpec } from './orders.ts';

interface SyncSummary {
  id: string;
  phase: string;
}

interface ShardView {
  id: string;
  rows: number | null;
  acceptedAttempt: string | null;
  attempts: { attemptId: string; finishedAt?: string }[];
}

interface SyncView {
  id: string;
  phase: string;
  snapshotId: number | null;
  layout?: string;
  files?: number | null;
  state: { reason?: unknown };
  timings: Record<string, string>;
  phaseDurationsMs: Record<string, number>;
  shards: ShardView[];
  nextShardsCursor: string | null;
}

/** Every shard of a sync: the view's first page, then GET /v1/syncs/{id}/shards pages of 1,000. */
async function allShards(base: string, view: SyncView): Promise<ShardView[]> {
  const shards = [...view.shards];
  for (let cursor = view.nextShardsCursor; cursor !== null; ) {
    const page = await call<{ shards: ShardView[]; nextCursor: string | null }>(base, 'GET', `/v1/syncs/${view.id}/shards?limit=1000&cursor=${encodeURIComponent(cursor)}`);
    shards.push(...page.shards);
    cursor = page.nextCursor;
  }
  return shards;
}

export interface SyncMeasurement {
  readonly syncId: string;
  readonly rows: number;
  readonly shards: number;
  /** POST /v1/syncs sent → the sync seen COMMITTED. */
  readonly endToEndMs: number;
  /** POST /v1/syncs sent → the snapshot seen by the reader. */
  readonly postToVisibleMs: number;
  /** The last accepted attempt's finish → the snapshot seen by the reader (polled). */
  readonly commitLatencyMs: number;
  /** The last accepted attempt's finish → the snapshot's own timeMillis (no polling error). */
  readonly commitLatencySnapshotMs: number;
  readonly phaseDurationsMs: Record<string, number>;
  /** Attempts per shard beyond the first (retries), summed. */
  readonly retries: number;
  /** The sync status's layout and the number of data files the load added (null if not reported). */
  readonly layout: string | null;
  readonly files: number | null;
}

export async function createOrdersTable(base: string, database: string, name: string): Promise<void> {
  await call(base, 'POST', '/v1/tables', { database, name, ...ORDERS_TABLE });
}

/** Polls LATEST until a snapshot exists; resolves with the wall time it was first seen and the snapshot's own time. */
async function watchSnapshot(store: ObjectStore, database: string, name: string, intervalMs: number, stop: AbortSignal) {
  const table = await openTable(store, database, name);
  while (!stop.aborted) {
    const latest = await table.latestSnapshot();
    if (latest !== null) return { seenAt: Date.now(), snapshotAt: Number(latest.timeMillis), id: Number(latest.id) };
    await sleep(intervalMs);
  }
  return undefined;
}

export async function measureSync(
  base: string,
  store: ObjectStore,
  database: string,
  name: string,
  source: GeneratorSpec | Record<string, unknown>,
  options: {
    readonly pollMs: number;
    readonly timeoutMs: number;
    readonly progress?: (line: string) => void;
    /** The sync's mode (default upsert) and options of the request (e.g. { layout: 'direct' }). */
    readonly mode?: string;
    readonly syncOptions?: Record<string, unknown>;
  },
): Promise<SyncMeasurement> {
  const stopWatch = new AbortController();
  const watcher = watchSnapshot(store, database, name, 25, stopWatch.signal);
  const t0 = performance.now();
  const { id } = await call<{ id: string }>(base, 'POST', '/v1/syncs', {
    table: { database, table: name },
    source,
    mode: options.mode ?? 'upsert',
    ...(options.syncOptions === undefined ? {} : { options: options.syncOptions }),
  });
  let phase = '';
  // The list is polled, not the full view: the view of 10,000 shards is large and would load the coordinator.
  for (;;) {
    const { syncs } = await call<{ syncs: SyncSummary[] }>(base, 'GET', `/v1/syncs?database=${database}&table=${name}&limit=1`);
    const now = syncs.find((s) => s.id === id)?.phase ?? '?';
    if (now !== phase) options.progress?.(`    ${now} after ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    phase = now;
    if (phase === 'COMMITTED' || phase === 'ABORTED') break;
    if (performance.now() - t0 > options.timeoutMs) throw new Error(`sync ${id} still ${phase} after ${options.timeoutMs} ms`);
    await sleep(options.pollMs);
  }
  const endToEndMs = performance.now() - t0;
  const postedAt = Date.now() - endToEndMs;
  const view = await call<SyncView>(base, 'GET', `/v1/syncs/${id}`);
  if (view.phase !== 'COMMITTED') {
    stopWatch.abort();
    throw new Error(`sync ${id} ended ${view.phase}: ${JSON.stringify(view.state.reason)}`);
  }
  const seen = await watcher;
  if (seen === undefined) throw new Error(`sync ${id}: no snapshot seen`);
  const shards = await allShards(base, view);
  const lastShardDone = Math.max(
    ...shards.map((s) => Date.parse(s.attempts.find((a) => a.attemptId === s.acceptedAttempt)?.finishedAt ?? 'x')),
  );
  if (!Number.isFinite(lastShardDone)) throw new Error(`sync ${id}: an accepted attempt has no finish time`);
  return {
    syncId: id,
    rows: shards.reduce((n, s) => n + (s.rows ?? 0), 0),
    shards: shards.length,
    endToEndMs,
    postToVisibleMs: seen.seenAt - postedAt,
    commitLatencyMs: seen.seenAt - lastShardDone,
    commitLatencySnapshotMs: seen.snapshotAt - lastShardDone,
    phaseDurationsMs: view.phaseDurationsMs,
    retries: shards.reduce((n, s) => n + Math.max(0, s.attempts.length - 1), 0),
    layout: view.layout ?? null,
    files: view.files ?? null,
  };
}
