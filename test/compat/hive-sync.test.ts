/**
 * A real sync into a partitioned table of a Hive catalog: a coordinator process with
 * `catalog.type = hive` on the shared metastore (infra/hive-metastore.sh), two worker processes, a
 * table created with POST /v1/tables (`metastore.partitioned-table = true`) and loaded with POST
 * /v1/syncs. Once the sync is COMMITTED the metastore lists exactly the partitions the sync wrote,
 * with their row counts, and Paimon Java's HiveCatalog (test/compat/java-hive) lists the table and
 * reads every row. The warehouse is a local directory: the shared metastore has no S3 file system.
 */
import assert from 'node:assert/strict';
import { execFile, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import { SyncStore } from '@tributary/coordinator';
import { GENERATOR_TABLE_COLUMNS, generatorRow } from '@tributary/sources';
import { services, uniqueName } from '@tributary/testkit';
import { MetastoreConnection } from '@tributary/catalog';
import { generatorSource, spawnListeningCoordinator, spawnWorker, stop, syncEnv, waitForPhase, waitUntil } from '../integration/sync/harness.ts';

const run = promisify(execFile);
const jar = fileURLToPath(new URL('./java-hive/target/paimon-hive-oracle.jar', import.meta.url));
const uri = `thrift://${services.hiveMetastore.host}:${services.hiveMetastore.port}`;
const SHARDS = 4;
const ROWS_PER_SHARD = 250;
const redis = new Redis({ ...services.redis, maxRetriesPerRequest: null });
const processes: ChildProcess[] = [];
let dir: string;

before(async () => {
  assert.ok(existsSync(jar), `${jar} is missing: bash infra/oracles.sh builds it`);
  dir = await mkdtemp(join(tmpdir(), 'tributary-hive-sync-'));
});
after(async () => {
  await Promise.all(processes.map((p) => stop(p)));
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  await redis.quit();
});

async function java<T>(...args: string[]): Promise<T> {
  const { stdout } = await run('java', ['-jar', jar, args[0]!, uri, dir, ...args.slice(1)], { timeout: 300_000, maxBuffer: 64 << 20 });
  return JSON.parse(stdout.trim().split('\n').at(-1)!) as T;
}

test('partitions registered by a real sync: the metastore lists exactly the sync’s partitions, Paimon Java’s HiveCatalog reads the table', async () => {
  const e = syncEnv('hive-sync');
  const database = uniqueName('hive_sync').toLowerCase().replace(/[^a-z0-9_]/g, '_');
  const hive = { TRIBUTARY_WAREHOUSE: `file://${dir}`, TRIBUTARY_CATALOG_TYPE: 'hive', TRIBUTARY_CATALOG_URI: uri };
  processes.push(...(await Promise.all([spawnWorker(e, hive), spawnWorker(e, hive)])));
  const { child, url } = await spawnListeningCoordinator(e, hive);
  processes.push(child);
  const post = async (path: string, body: unknown) => {
    const response = await fetch(`${url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    return { status: response.status, json: (await response.json()) as Record<string, unknown> };
  };

  const created = await post('/v1/tables', { database, name: 'orders', columns: GENERATOR_TABLE_COLUMNS, partitionKeys: ['status'], options: { 'metastore.partitioned-table': 'true' } });
  assert.equal(created.status, 201, JSON.stringify(created.json));
  const started = await post('/v1/syncs', { table: { database, table: 'orders' }, source: generatorSource(SHARDS, ROWS_PER_SHARD) });
  assert.equal(started.status, 202, JSON.stringify(started.json));
  const done = await waitForPhase(() => new SyncStore(redis, e.prefix).require(String(started.json.id)), ['COMMITTED', 'ABORTED'], 180_000);
  assert.equal(done.state.phase, 'COMMITTED');

  const total = SHARDS * ROWS_PER_SHARD;
  const perStatus = new Map<string, number>();
  for (let orderId = 1; orderId <= total; orderId++) {
    const status = String(generatorRow(42, orderId)[4]);
    perStatus.set(status, (perStatus.get(status) ?? 0) + 1);
  }
  const expected = [...perStatus.keys()].map((s) => `status=${s}`).sort();
  const hms = new MetastoreConnection({ host: services.hiveMetastore.host, port: services.hiveMetastore.port }, { requestTimeoutMs: 20_000 });
  try {
    const names = () => hms.call('get_partition_names', (c) => c.get_partition_names(database, 'orders', -1)).then((n) => [...n].sort());
    // The refresh runs after the sync is recorded COMMITTED, in the background.
    await waitUntil(async () => (await names()).length >= expected.length, 'the refresh after the commit registered the partitions', 120_000);
    assert.deepEqual(await names(), expected);
    for (const [status, rows] of perStatus) {
      const part = await hms.call('get_partition', (c) => c.get_partition(database, 'orders', [status]));
      assert.equal(part.sd.location.replace(/^file:/, ''), `${dir}/${database}.db/orders/status=${status}`);
      await waitUntil(async () => (await hms.call('get_partition', (c) => c.get_partition(database, 'orders', [status]))).parameters.numRows === String(rows), `numRows of status=${status}`, 60_000);
    }
  } finally {
    hms.close();
  }

  assert.deepEqual(await java<{ tables: string[] }>('list', database), { tables: ['orders'] });
  const { rows } = await java<{ rows: string[][] }>('read', database, 'orders');
  assert.equal(rows.length, total);
  assert.deepEqual(rows.map((r) => Number(r[0])).sort((a, b) => a - b), Array.from({ length: total }, (_, i) => i + 1));
  for (const row of rows) assert.equal(row[4], String(generatorRow(42, Number(row[0]))[4]), `order ${row[0]}'s status`);
});
