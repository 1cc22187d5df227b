// Paimon Java's HiveCatalog and Tributary's Hive catalog on the same Hive Metastore
// (infra/hive-metastore.sh) and warehouse: a table Tributary created, wrote and registered is
// listed and read by Paimon Java through its HiveCatalog, with the partitions the commit's
// refresh registered; a table Paimon Java created and wrote through its HiveCatalog is listed by
// Tributary's catalog, located, and read by Tributary. The Java side is the HiveCatalog runner
// (test/compat/java-hive, built by infra/oracles.sh).
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { hiveCatalog, type HiveCatalog } from '@tributary/catalog';
import { LocalObjectStore, createTable, openTable, type InternalValue } from '@tributary/table';
import { services, uniqueName } from '@tributary/testkit';

const run = promisify(execFile);
const jar = fileURLToPath(new URL('./java-hive/target/paimon-hive-oracle.jar', import.meta.url));
const uri = `thrift://${services.hiveMetastore.host}:${services.hiveMetastore.port}`;
let warehouse: string;
let store: LocalObjectStore;
let catalog: HiveCatalog;
const database = uniqueName('hive_compat').replace(/-/g, '_');

async function java<T>(...args: string[]): Promise<T> {
  const { stdout } = await run('java', ['-jar', jar, args[0]!, uri, warehouse, ...args.slice(1)], { timeout: 300_000, maxBuffer: 16 << 20 });
  return JSON.parse(stdout.trim().split('\n').at(-1)!) as T;
}

before(async () => {
  assert.ok(existsSync(jar), `${jar} is missing: bash infra/oracles.sh builds it`);
  warehouse = await mkdtemp(join(tmpdir(), 'tributary-hive-compat-'));
  store = new LocalObjectStore(warehouse);
  catalog = hiveCatalog({ uri, warehouse, store });
});

after(async () => {
  await catalog?.close();
  if (warehouse !== undefined) await rm(warehouse, { recursive: true, force: true });
});

test('a table Tributary created and registered is listed and read by Paimon Java through its HiveCatalog', async () => {
  const table = await createTable(store, {
    database,
    name: 'from_tributary',
    schema: {
      fields: [
        { name: 'id', type: 'BIGINT' },
        { name: 'region', type: 'STRING' },
        { name: 'amount', type: 'DOUBLE' },
      ],
      partitionKeys: ['region'],
      primaryKeys: ['id', 'region'],
      options: { bucket: '2', 'metastore.partitioned-table': 'true' },
    },
  });
  const ref = { database, table: 'from_tributary' };
  await catalog.registerTable(ref, `${warehouse}/${database}.db/from_tributary`);
  const write = await table.newWrite({ writerId: 'compat-1', baseSnapshotId: null });
  await write.writeRows([[1n, 'eu', 1.25], [2n, 'us', 2.5], [3n, 'eu', 3.75]], [0, 0, 0]);
  const { snapshotId } = await table.newCommit('compat').commit(await write.prepareCommit(), { identifier: 1n });
  await catalog.afterCommit(ref, { snapshotId: Number(snapshotId), addedPartitions: [{ region: 'eu' }, { region: 'us' }] });

  assert.deepEqual(await java<{ tables: string[] }>('list', database), { tables: ['from_tributary'] });
  const { rows } = await java<{ rows: string[][] }>('read', database, 'from_tributary');
  assert.deepEqual(rows, [['1', 'eu', '1.25'], ['2', 'us', '2.5'], ['3', 'eu', '3.75']]);
});

test('a table Paimon Java created through its HiveCatalog is listed, located and read by Tributary', async () => {
  const { path } = await java<{ path: string }>('create', database, 'from_java');
  assert.equal(path, `file:${warehouse}/${database}.db/from_java`);
  assert.deepEqual(await catalog.listTables(database), ['from_java', 'from_tributary']);
  const location = await catalog.tableLocation({ database, table: 'from_java' });
  assert.equal(location, `${warehouse}/${database}.db/from_java`);

  const table = await openTable(store, database, 'from_java');
  const rows: InternalValue[][] = [];
  for await (const row of table.newRead().rows()) rows.push([...row]);
  rows.sort((a, b) => Number(a[0]) - Number(b[0]));
  assert.deepEqual(rows, [[10n, 'eu', 1.5], [11n, 'apac', 2.5]]);
});
