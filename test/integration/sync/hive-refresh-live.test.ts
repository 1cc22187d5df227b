/**
 * A sync into a partitioned table of a Hive catalog, with the metastore gone during the refresh
 * step of a live coordinator (no crash): the metastore is SIGKILLed at the coordinator's
 * `after-publish` fault point, that is after the snapshot is published and before the refresh that
 * registers its partitions reaches the metastore. The sync ends COMMITTED with its one snapshot;
 * the failed refresh is reported (each retry with CATALOG_UNAVAILABLE, /readyz 503 naming the
 * catalog, the table's refresh mark in Redis behind the snapshot) and retried by the same process;
 * once the metastore is back, the metastore lists exactly the sync's partitions with their rows,
 * the mark reaches the snapshot and /readyz is 200 again.
 *
 * The metastore is the test's own (ownMetastore: another port and data directory), so killing it
 * touches no other test; the warehouse is a local directory, as that metastore has no S3 file system.
 */
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { Redis } from 'ioredis';
import type { HiveRefreshEvent } from '@tributary/catalog';
import { MetastoreConnection } from '@tributary/catalog';
import type { Coordinator } from '@tributary/coordinator';
import { GENERATOR_TABLE_COLUMNS, generatorRow } from '@tributary/sources';
import { LocalObjectStore, openTable } from '@tributary/table';
import { ownMetastore, services, uniqueName, type OwnMetastore } from '@tributary/testkit';
import { explainSync, generatorSource, inProcessCoordinator, outputOf, spawnWorker, stop, syncEnv, waitForPhase, waitUntil } from './harness.ts';

const SHARDS = 4;
const ROWS_PER_SHARD = 250;
const redis = new Redis({ ...services.redis, maxRetriesPerRequest: null });
const processes: ChildProcess[] = [];
let coordinator: Coordinator | undefined;
let own: OwnMetastore;
let dir: string;

before(async () => {
  own = await ownMetastore('refresh-live');
  await own.start();
  dir = await mkdtemp(join(tmpdir(), 'tributary-hive-live-'));
});
after(async () => {
  await coordinator?.close();
  await Promise.all(processes.map((p) => stop(p)));
  await own?.close();
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  await redis.quit();
});

async function withMetastore<T>(fn: (hms: MetastoreConnection) => Promise<T>): Promise<T> {
  const hms = new MetastoreConnection({ host: own.host, port: own.port }, { requestTimeoutMs: 20_000 });
  try {
    return await fn(hms);
  } finally {
    hms.close();
  }
}

test('the metastore killed after the publish of a live coordinator: the sync ends COMMITTED, the failed refresh is reported and retried, and completes once the metastore is back', async () => {
  const base = syncEnv('hive-live');
  const warehouse = `file://${dir}`;
  const hive = { TRIBUTARY_WAREHOUSE: warehouse, TRIBUTARY_CATALOG_TYPE: 'hive', TRIBUTARY_CATALOG_URI: own.uri };
  const e = { ...base, warehouse, store: new LocalObjectStore(dir), env: { ...base.env, ...hive } };
  const database = uniqueName('hive_live').toLowerCase().replace(/[^a-z0-9_]/g, '_');
  const events: HiveRefreshEvent[] = [];
  let killed = 0;
  coordinator = await inProcessCoordinator(e, {
    catalog: {
      type: 'hive',
      uri: own.uri,
      // Retried every second at most, for as long as the test keeps the metastore away.
      refresh: { attempts: 100_000, initialDelayMs: 200, maxDelayMs: 1_000 },
      onRefresh: (event) => events.push(event),
    },
    // Synchronous, right after the snapshot is published: the refresh it started has not reached the metastore yet.
    faultPoint: (point) => {
      if (point === 'after-publish' && killed === 0 && own.kill()) killed += 1;
    },
  });
  processes.push(...(await Promise.all([spawnWorker(e, hive), spawnWorker(e, hive)])));

  const created = await coordinator.app.inject({
    method: 'POST',
    url: '/v1/tables',
    payload: { database, name: 'orders', columns: GENERATOR_TABLE_COLUMNS, partitionKeys: ['status'], options: { 'metastore.partitioned-table': 'true' } },
  });
  assert.equal(created.statusCode, 201, created.body);
  const started = await coordinator.app.inject({ method: 'POST', url: '/v1/syncs', payload: { table: { database, table: 'orders' }, source: generatorSource(SHARDS, ROWS_PER_SHARD) } });
  assert.equal(started.statusCode, 202, started.body);
  const id = started.json<{ id: string }>().id;
  const c = coordinator;
  const explain = async (syncId: string) => `${await explainSync(c, syncId)}\nworker output (tail):\n${processes.map((p) => outputOf(p).slice(-2000)).join('\n')}`;
  const done = await waitForPhase(() => c.syncs.get(id), ['COMMITTED', 'ABORTED'], 180_000, explain);
  assert.equal(done.state.phase, 'COMMITTED', JSON.stringify(done.state));
  assert.equal(done.state.phase === 'COMMITTED' ? done.state.snapshotId : -1, 1);
  assert.equal(killed, 1, 'the metastore was killed at the fault point');
  await own.stop(); // forgets the killed process
  assert.equal(await own.isUp(), false);

  // Reported: each failed try with its code, tried again by the same process; /readyz names the catalog; the mark stays behind.
  const retries = () => events.filter((ev) => ev.database === database && ev.status === 'retrying');
  await waitUntil(() => Promise.resolve(retries().length >= 2), 'two failed refreshes, each retried', 120_000);
  for (const ev of retries()) {
    assert.equal(ev.snapshotId, 1);
    assert.equal(ev.error?.code, 'CATALOG_UNAVAILABLE', JSON.stringify(ev));
    assert.ok((ev.retryInMs ?? 0) > 0);
  }
  assert.ok(!events.some((ev) => ev.status === 'refreshed' && ev.database === database), 'no refresh succeeded while the metastore was away');
  const unready = await c.app.inject({ method: 'GET', url: '/readyz' });
  assert.equal(unready.statusCode, 503, unready.body);
  const checks = unready.json<{ checks: Record<string, { ok: boolean; error?: string }> }>().checks;
  assert.equal(checks['catalog']?.ok, false);
  assert.match(checks['catalog']?.error ?? '', /^CATALOG_UNAVAILABLE: /);
  assert.equal(checks['redis']?.ok, true);
  const markKey = `${e.prefix}:catalog:refreshed`;
  assert.equal(await redis.hget(markKey, `${database}/orders`), '0', 'the mark given before the publish, not moved');
  assert.equal((await c.syncs.get(id)).state.phase, 'COMMITTED', 'still COMMITTED');

  // Back: the retried refresh registers exactly the sync's partitions, with their rows.
  await own.start();
  const perStatus = new Map<string, number>();
  for (let orderId = 1; orderId <= SHARDS * ROWS_PER_SHARD; orderId++) {
    const status = String(generatorRow(42, orderId)[4]);
    perStatus.set(status, (perStatus.get(status) ?? 0) + 1);
  }
  await waitUntil(() => Promise.resolve(events.some((ev) => ev.database === database && ev.status === 'refreshed')), 'the retried refresh succeeded', 180_000);
  const names = await withMetastore(async (hms) => (await hms.call('get_partition_names', (h) => h.get_partition_names(database, 'orders', -1))).sort());
  assert.deepEqual(names, [...perStatus.keys()].map((s) => `status=${s}`).sort(), 'exactly the sync’s partitions');
  await withMetastore(async (hms) => {
    for (const [status, rows] of perStatus) {
      assert.equal((await hms.call('get_partition', (h) => h.get_partition(database, 'orders', [status]))).parameters.numRows, String(rows), `numRows of status=${status}`);
    }
  });
  await waitUntil(async () => (await redis.hget(markKey, `${database}/orders`)) === '1', 'the refresh mark reached snapshot 1', 60_000);
  const ready = await c.app.inject({ method: 'GET', url: '/readyz' });
  assert.equal(ready.statusCode, 200, ready.body);
  const table = await openTable(e.store, database, 'orders');
  assert.deepEqual(await table.snapshots.listIds(), [1], 'exactly one snapshot');
});
