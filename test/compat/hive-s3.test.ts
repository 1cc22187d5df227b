/**
 * Tributary's Hive catalog and Paimon Java's HiveCatalog (test/compat/java-hive) on one Hive
 * Metastore with a warehouse on S3 (MinIO): a table Tributary created and registered at its
 * `s3://` location is listed, read and written by Paimon Java, and a table Paimon Java created
 * through its HiveCatalog is listed, located, read and written by Tributary.
 *
 * The metastore is the test's own (ownMetastore), started by infra/hive-metastore.sh with Hadoop's
 * S3A file system and the local MinIO's endpoint and keys, as a metastore serving an S3 warehouse
 * needs; Paimon Java opens the warehouse through the same S3A (its `hadoop.` options).
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { hiveCatalog, type HiveCatalog } from '@tributary/catalog';
import { createTable, openObjectStore, openTable, type InternalValue, type ObjectStore } from '@tributary/table';
import { ownMetastore, services, uniqueName, type OwnMetastore } from '@tributary/testkit';

const run = promisify(execFile);
const jar = fileURLToPath(new URL('./java-hive/target/paimon-hive-oracle.jar', import.meta.url));
const database = uniqueName('hive_s3').toLowerCase().replace(/[^a-z0-9_]/g, '_');
const warehouse = `s3://${services.s3.bucket}/${uniqueName('hive-s3')}`;
/** Paimon Java's Hadoop S3A settings for the local MinIO (path-style, plain HTTP). */
const JAVA_S3 = [
  'hadoop.fs.s3.impl=org.apache.hadoop.fs.s3a.S3AFileSystem',
  `hadoop.fs.s3a.endpoint=${services.s3.endpoint}`,
  `hadoop.fs.s3a.endpoint.region=${services.s3.region}`,
  'hadoop.fs.s3a.path.style.access=true',
  'hadoop.fs.s3a.connection.ssl.enabled=false',
  `hadoop.fs.s3a.access.key=${services.s3.accessKeyId}`,
  `hadoop.fs.s3a.secret.key=${services.s3.secretAccessKey}`,
];
let own: OwnMetastore;
let store: ObjectStore;
let catalog: HiveCatalog;
let dir: string;

async function java<T>(op: string, ...args: string[]): Promise<T> {
  const { stdout } = await run('java', ['-jar', jar, op, own.uri, warehouse, ...args, ...JAVA_S3], { timeout: 300_000, maxBuffer: 16 << 20 });
  return JSON.parse(stdout.trim().split('\n').at(-1)!) as T;
}

async function rowsOf(table: string): Promise<InternalValue[][]> {
  const t = await openTable(store, database, table);
  const rows: InternalValue[][] = [];
  for await (const row of t.newRead().rows()) rows.push([...row]);
  return rows.sort((a, b) => Number(a[0]) - Number(b[0]));
}

before(async () => {
  assert.ok(existsSync(jar), `${jar} is missing: bash infra/oracles.sh builds it`);
  dir = await mkdtemp(join(tmpdir(), 'tributary-hive-s3-'));
  own = await ownMetastore('s3');
  await own.start();
  store = openObjectStore(warehouse, services.s3);
  catalog = hiveCatalog({ uri: own.uri, warehouse, store });
});

after(async () => {
  await catalog?.close();
  await own?.close();
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
});

test('a table Tributary created on S3 and registered is listed, read and written by Paimon Java’s HiveCatalog', async () => {
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
  assert.equal(await catalog.tableLocation(ref), `${warehouse}/${database}.db/from_tributary`, 'the metastore holds the s3:// location');
  const write = await table.newWrite({ writerId: 'compat-s3', baseSnapshotId: null });
  await write.writeRows([[1n, 'eu', 1.25], [2n, 'us', 2.5], [3n, 'eu', 3.75]], [0, 0, 0]);
  const { snapshotId } = await table.newCommit('compat-s3').commit(await write.prepareCommit(), { identifier: 1n });
  await catalog.afterCommit(ref, { snapshotId: Number(snapshotId), addedPartitions: [{ region: 'eu' }, { region: 'us' }] });
  assert.deepEqual(catalog.pendingRefreshes(), [], 'the refresh reached the metastore');

  assert.deepEqual(await java<{ tables: string[] }>('list', database), { tables: ['from_tributary'] });
  assert.deepEqual(await java<{ rows: string[][] }>('read', database, 'from_tributary'), { rows: [['1', 'eu', '1.25'], ['2', 'us', '2.5'], ['3', 'eu', '3.75']] });
  // Paimon Java writes to it through its HiveCatalog; Tributary reads both writers' rows.
  const rounds = join(dir, 'from-tributary.json');
  await writeFile(rounds, JSON.stringify([[['4', 'apac', '4.5']]]));
  assert.deepEqual(await java<{ rounds: number }>('write', database, 'from_tributary', rounds), { rounds: 1 });
  assert.deepEqual(await rowsOf('from_tributary'), [[1n, 'eu', 1.25], [2n, 'us', 2.5], [3n, 'eu', 3.75], [4n, 'apac', 4.5]]);
  assert.equal(Number((await (await openTable(store, database, 'from_tributary')).latestSnapshot())?.id), 2);
});

test('a table Paimon Java created on S3 through its HiveCatalog is listed, located, read and written by Tributary', async () => {
  const { path } = await java<{ path: string }>('create', database, 'from_java');
  assert.equal(path, `${warehouse}/${database}.db/from_java`);
  assert.deepEqual(await catalog.listTables(database), ['from_java', 'from_tributary']);
  assert.equal(await catalog.tableLocation({ database, table: 'from_java' }), `${warehouse}/${database}.db/from_java`);
  assert.deepEqual(await rowsOf('from_java'), [[10n, 'eu', 1.5], [11n, 'apac', 2.5]]);

  // Tributary commits to it; Paimon Java reads both writers' rows.
  const table = await openTable(store, database, 'from_java');
  const base = Number((await table.latestSnapshot())?.id);
  const write = await table.newWrite({ writerId: 'compat-s3', baseSnapshotId: base });
  await write.writeRows([[12n, 'us', 3.5]], [0]);
  const { snapshotId } = await table.newCommit('compat-s3').commit(await write.prepareCommit(), { identifier: 1n });
  assert.equal(Number(snapshotId), base + 1);
  assert.deepEqual(await java<{ rows: string[][] }>('read', database, 'from_java'), { rows: [['10', 'eu', '1.5'], ['11', 'apac', '2.5'], ['12', 'us', '3.5']] });
});
