/**
 * A sync into a table of a Hive catalog, with the metastore stopped during the refresh step: the
 * coordinator process SIGKILLs itself just after publishing the snapshot (before the metastore is
 * refreshed and before the outcome is recorded), the metastore is stopped, and a new coordinator
 * process resumes. The sync ends COMMITTED while the metastore is away, /readyz names the catalog
 * as unreachable (CATALOG_UNAVAILABLE), the refresh is reported and retried, and once the metastore
 * is back the refresh completes: it lists exactly the sync's partitions with their row counts, and
 * the table's refresh mark in Redis reaches the snapshot.
 *
 * The metastore is the test's own (ownMetastore: another port and data directory), so stopping it
 * touches no other test; the warehouse is a local directory, as that metastore has no S3 file system.
 */
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { Redis } from 'ioredis';
import { SyncStore } from '@tributary/coordinator';
import { GENERATOR_TABLE_COLUMNS, generatorRow } from '@tributary/sources';
import { LocalObjectStore, openTable } from '@tributary/table';
import { ownMetastore, services, uniqueName, type OwnMetastore } from '@tributary/testkit';
import { MetastoreConnection } from '@tributary/catalog';
import { generatorSource, outputOf, spawnCoordinator, spawnWorker, stop, syncEnv, waitForPhase, waitUntil } from './harness.ts';

const SHARDS = 4;
const ROWS_PER_SHARD = 250;
const redis = new Redis({ ...services.redis, maxRetriesPerRequest: null });
let nextPort = 19_400 + Math.floor(Math.random() * 500) * 2;
const processes: ChildProcess[] = [];
let own: OwnMetastore;
let dir: string;

before(async () => {
  own = await ownMetastore('refresh-crash');
  await own.start();
  dir = await mkdtemp(join(tmpdir(), 'tributary-hive-sync-'));
});
after(async () => {
  await Promise.all(processes.map((p) => stop(p)));
  await own?.close();
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  await redis.quit();
});

async function post(port: number, path: string, body: unknown): Promise<{ status: number; json: Record<string, unknown> }> {
  const response = await fetch(`http://127.0.0.1:${port}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: response.status, json: (await response.json()) as Record<string, unknown> };
}

async function readyz(port: number): Promise<{ status: number; text: string; checks: Record<string, { ok: boolean; error?: string }> }> {
  const response = await fetch(`http://127.0.0.1:${port}/readyz`);
  const text = await response.text();
  return { status: response.status, text, checks: (JSON.parse(text) as { checks: Record<string, { ok: boolean; error?: string }> }).checks };
}

async function partitionNames(database: string, table: string): Promise<string[]> {
  const hms = new MetastoreConnection({ host: own.host, port: own.port }, { requestTimeoutMs: 20_000 });
  try {
    return (await hms.call('get_partition_names', (c) => c.get_partition_names(database, table, -1))).sort();
  } finally {
    hms.close();
  }
}

test('the metastore stopped during the refresh step: the sync ends COMMITTED, /readyz says so, the refresh is retried and completes once the metastore is back', async () => {
  const e = syncEnv('hive-crash');
  const warehouse = `file://${dir}`;
  const database = uniqueName('hive_crash').toLowerCase().replace(/[^a-z0-9_]/g, '_');
  const hive = {
    TRIBUTARY_WAREHOUSE: warehouse,
    TRIBUTARY_CATALOG_TYPE: 'hive',
    TRIBUTARY_CATALOG_URI: own.uri,
    // Retries every second at most, and for as long as the test needs the metastore away.
    TRIBUTARY_CATALOG_REFRESH_MAX_DELAY_MS: '1000',
    TRIBUTARY_CATALOG_REFRESH_ATTEMPTS: '100000',
  };
  processes.push(...(await Promise.all([spawnWorker(e, hive), spawnWorker(e, hive)])));

  const doomedPort = nextPort++;
  const doomed = await spawnCoordinator(e, doomedPort, { ...hive, TRIBUTARY_FAULT_KILL_AT: 'after-publish' });
  processes.push(doomed);
  const died = once(doomed, 'exit');
  const created = await post(doomedPort, '/v1/tables', {
    database,
    name: 'orders',
    columns: GENERATOR_TABLE_COLUMNS,
    partitionKeys: ['status'],
    options: { 'metastore.partitioned-table': 'true' },
  });
  assert.equal(created.status, 201, JSON.stringify(created.json));
  const started = await post(doomedPort, '/v1/syncs', { table: { database, table: 'orders' }, source: generatorSource(SHARDS, ROWS_PER_SHARD) });
  assert.equal(started.status, 202, JSON.stringify(started.json));
  const id = String(started.json.id);
  const [, signal] = (await died) as [number | null, string | null];
  assert.equal(signal, 'SIGKILL');

  // Killed between the snapshot and everything after it: the outcome and the metastore's partitions.
  const store = new SyncStore(redis, e.prefix);
  assert.equal((await store.require(id)).state.phase, 'COMMITTING');
  const table = await openTable(new LocalObjectStore(dir), database, 'orders');
  assert.equal(Number((await table.latestSnapshot())?.id), 1);
  assert.deepEqual(await partitionNames(database, 'orders'), [], 'the killed coordinator registered no partition');
  const markKey = `${e.prefix}:catalog:refreshed`;
  assert.equal(await redis.hget(markKey, `${database}/orders`), '0', 'the mark given before the publish');

  await own.stop();
  assert.equal(await own.isUp(), false);
  const port = nextPort++;
  const coordinator = await spawnCoordinator(e, port, hive);
  processes.push(coordinator);

  const done = await waitForPhase(() => store.require(id), ['COMMITTED', 'ABORTED'], 120_000);
  assert.equal(done.state.phase, 'COMMITTED');
  assert.equal(done.state.snapshotId, 1);
  const unready = await readyz(port);
  assert.equal(unready.status, 503);
  assert.equal(unready.checks['catalog']?.ok, false);
  assert.match(unready.checks['catalog']?.error ?? '', /^CATALOG_UNAVAILABLE: /);
  assert.equal(unready.checks['redis']?.ok, true);
  assert.ok(!unready.text.includes(String(e.env.TRIBUTARY_CLUSTER_SECRET)), 'no secret in /readyz');
  // The resumed refresh fails, is reported with its code, and is tried again.
  const retried = () => outputOf(coordinator).split('\n').filter((l) => l.includes('hive metastore refresh failed; retrying') && l.includes('CATALOG_UNAVAILABLE'));
  await waitUntil(() => Promise.resolve(retried().length >= 2), 'two retried refreshes in the coordinator log', 120_000);
  assert.equal(await redis.hget(markKey, `${database}/orders`), '0', 'not refreshed yet');

  await own.start();
  const statuses = new Set<string>();
  for (let orderId = 1; orderId <= SHARDS * ROWS_PER_SHARD; orderId++) statuses.add(String(generatorRow(42, orderId)[4]));
  const expected = [...statuses].map((s) => `status=${s}`).sort();
  await waitUntil(async () => (await partitionNames(database, 'orders')).length === expected.length, 'the refresh registered the partitions', 180_000);
  assert.deepEqual(await partitionNames(database, 'orders'), expected);
  await waitUntil(async () => (await redis.hget(markKey, `${database}/orders`)) === '1', 'the refresh mark reached snapshot 1', 60_000);
  const ready = await readyz(port);
  assert.equal(ready.status, 200, ready.text);
  assert.equal(ready.checks['catalog']?.ok, true);

  // Each partition's statistics: its rows, from the snapshot.
  const hms = new MetastoreConnection({ host: own.host, port: own.port }, { requestTimeoutMs: 20_000 });
  try {
    let rows = 0;
    for (const status of statuses) rows += Number((await hms.call('get_partition', (c) => c.get_partition(database, 'orders', [status]))).parameters.numRows);
    assert.equal(rows, SHARDS * ROWS_PER_SHARD);
  } finally {
    hms.close();
  }
  assert.equal(Number((await table.latestSnapshot())?.id), 1, 'exactly one snapshot');
});
