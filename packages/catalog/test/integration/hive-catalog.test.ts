// The Hive catalog against the real Hive Metastore (infra/hive-metastore.sh, 127.0.0.1:9183):
// databases and tables created, listed and dropped through the catalog and seen by a plain Thrift
// client, the Hive table as Paimon registers it, partitions added by a commit registered with
// their statistics, table statistics of an unpartitioned table, and the metastore's table lock
// shared by two catalogs.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { rm } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { createTable } from '@tributary/table';
import { hiveCatalog, type HiveCatalog, type HiveRefreshEvent } from '@tributary/catalog';
import { PAIMON_INPUT_FORMAT, PAIMON_SERDE, PAIMON_STORAGE_HANDLER } from '../../src/hive/hive-table.ts';
import types from '../../src/hive/generated/hive_metastore_subset_types.js';
import { struct } from '../../src/hive/struct.ts';
import { commitRows, localWarehouse, metastore, metastoreUri, regionTable, type Warehouse } from './hive-fixtures.ts';

let w: Warehouse;
const events: HiveRefreshEvent[] = [];
let catalog: HiveCatalog;
const hms = metastore();
const getTable = async (name: string) => (await hms.call('get_table_req', (c) => c.get_table_req(struct(types.GetTableRequest, { dbName: w.database, tblName: name })))).table;

before(async () => {
  w = await localWarehouse('catalog');
  catalog = hiveCatalog({ uri: metastoreUri(), warehouse: w.root, store: w.store, lockEnabled: true, onRefresh: (e) => events.push(e) });
});

after(async () => {
  await hms.call('drop_database', (c) => c.drop_database(w.database, false, true)).catch(() => {});
  await catalog.close();
  hms.close();
  await rm(w.root, { recursive: true, force: true });
});

test('databases and tables: created, listed and dropped through the catalog, as the metastore holds them', async () => {
  await catalog.createDatabase(w.database);
  await catalog.createDatabase(w.database); // idempotent
  assert.ok((await catalog.listDatabases()).includes(w.database));
  const db = await hms.call('get_database', (c) => c.get_database(w.database));
  assert.equal(db.locationUri, `file:${w.root}/${w.database}.db`);

  const table = await regionTable(w, 'orders');
  const location = `${w.root}/${w.database}.db/orders`;
  await catalog.registerTable({ database: w.database, table: 'orders' }, location);
  await assert.rejects(catalog.registerTable({ database: w.database, table: 'orders' }, location), { code: 'CATALOG_TABLE_EXISTS' });

  // The Hive table as Paimon's HiveCatalog writes it.
  const t = await getTable('orders');
  // Sent as MANAGED_TABLE (Paimon's default); Hive 4 turns a managed non-ACID table into an external one that purges its data on drop.
  assert.ok(['MANAGED_TABLE', 'EXTERNAL_TABLE'].includes(t.tableType), t.tableType);
  assert.equal(t.parameters.table_type, 'PAIMON');
  assert.equal(t.parameters.storage_handler, PAIMON_STORAGE_HANDLER);
  assert.equal(t.sd.inputFormat, PAIMON_INPUT_FORMAT);
  assert.equal(t.sd.serdeInfo.serializationLib, PAIMON_SERDE);
  assert.equal(t.sd.location, `file:${location}`);
  assert.deepEqual(t.sd.cols.map((c) => [c.name, c.type, c.comment]), [['id', 'bigint', null], ['amount', 'double', 'the amount']]);
  assert.deepEqual(t.partitionKeys.map((c) => [c.name, c.type]), [['region', 'string']]);
  assert.equal(table.schema.partitionKeys[0], 'region');

  // A table of another format in the same database is not listed (Paimon lists Paimon tables only).
  const other = struct(types.Table, {
    tableName: 'plain_text',
    dbName: w.database,
    owner: 'test',
    sd: struct(types.StorageDescriptor, {
      cols: [struct(types.FieldSchema, { name: 'a', type: 'string' })],
      location: `file:${w.root}/${w.database}.db/plain_text`,
      inputFormat: 'org.apache.hadoop.mapred.TextInputFormat',
      outputFormat: 'org.apache.hadoop.hive.ql.io.HiveIgnoreKeyTextOutputFormat',
      serdeInfo: struct(types.SerDeInfo, { serializationLib: 'org.apache.hadoop.hive.serde2.lazy.LazySimpleSerDe', parameters: {} }),
    }),
    partitionKeys: [],
    parameters: {},
    tableType: 'EXTERNAL_TABLE',
  });
  await hms.call('create_table', (c) => c.create_table(other));
  assert.deepEqual((await hms.call('get_all_tables', (c) => c.get_all_tables(w.database))).sort(), ['orders', 'plain_text']);
  assert.deepEqual(await catalog.listTables(w.database), ['orders']);
  assert.equal(await catalog.tableLocation({ database: w.database, table: 'orders' }), location);
  assert.equal(await catalog.tableLocation({ database: w.database, table: 'plain_text' }), null);
  assert.equal(await catalog.tableLocation({ database: w.database, table: 'missing' }), null);
  assert.deepEqual(await catalog.listTables(`${w.database}_none`), []);

  await catalog.dropTable({ database: w.database, table: 'orders' });
  await catalog.dropTable({ database: w.database, table: 'orders' }); // no error when gone
  assert.deepEqual(await catalog.listTables(w.database), []);
  assert.deepEqual(await hms.call('get_all_tables', (c) => c.get_all_tables(w.database)), ['plain_text']);
});

test('afterCommit registers the partitions a commit added, with their statistics from the snapshot', async () => {
  const ref = { database: w.database, table: 'sales' };
  const table = await regionTable(w, 'sales');
  await catalog.registerTable(ref, `${w.root}/${w.database}.db/sales`);

  const first = await commitRows(table, [[1n, 'eu', 1.5], [2n, 'eu', 2.5], [3n, 'us:west', 3.5]], 'w1');
  events.length = 0;
  await catalog.afterCommit(ref, { snapshotId: first, addedPartitions: [{ region: 'eu' }, { region: 'us:west' }] });
  assert.deepEqual(events.map((e) => [e.status, e.snapshotId, e.partitions]), [['refreshed', first, 2]]);
  assert.deepEqual((await hms.call('get_partition_names', (c) => c.get_partition_names(w.database, 'sales', -1))).sort(), ['region=eu', 'region=us%3Awest']);

  const files = (await table.dataFiles(first)).files;
  const eu = await hms.call('get_partition', (c) => c.get_partition(w.database, 'sales', ['eu']));
  const euFiles = files.filter((f) => f.partition === 'region=eu/');
  assert.ok(euFiles.length > 0);
  assert.equal(eu.parameters.numFiles, String(euFiles.length));
  assert.equal(eu.parameters.numRows, '2');
  assert.equal(eu.parameters.totalSize, String(euFiles.reduce((n, f) => n + f.size, 0)));
  assert.equal(eu.sd.location, `file:${w.root}/${w.database}.db/sales/region=eu`);
  assert.equal(eu.sd.inputFormat, PAIMON_INPUT_FORMAT);
  // A value Hive escapes: the metastore's partition name and the directory Paimon writes agree.
  const usWest = await hms.call('get_partition', (c) => c.get_partition(w.database, 'sales', ['us:west']));
  assert.equal(usWest.sd.location, `file:${w.root}/${w.database}.db/sales/region=us%3Awest`);
  assert.ok(files.some((f) => f.partition === 'region=us%3Awest/'));
  assert.equal(usWest.parameters.numRows, '1');
  const snapshot = await table.snapshot(first);
  assert.equal(eu.parameters.lastUpdateTime, String(Math.floor(Number(snapshot.timeMillis) / 1000)));

  // A second commit adds a partition and more rows to one already registered: registered once, stats rewritten.
  const second = await commitRows(table, [[4n, 'eu', 4.5], [5n, 'apac', 5.5]], 'w2');
  await catalog.afterCommit(ref, { snapshotId: second, addedPartitions: [{ region: 'eu' }, { region: 'apac' }] });
  assert.deepEqual((await hms.call('get_partition_names', (c) => c.get_partition_names(w.database, 'sales', -1))).sort(), ['region=apac', 'region=eu', 'region=us%3Awest']);
  const eu2 = await hms.call('get_partition', (c) => c.get_partition(w.database, 'sales', ['eu']));
  assert.equal(eu2.parameters.numRows, '3');
  assert.equal(catalog.pendingRefreshes().length, 0);
});

test('afterCommit on a table the metastore does not partition refreshes the table statistics', async () => {
  const ref = { database: w.database, table: 'flat' };
  const table = await createTable(w.store, {
    database: w.database,
    name: 'flat',
    schema: { fields: [{ name: 'id', type: 'BIGINT' }, { name: 'dt', type: 'STRING' }], partitionKeys: ['dt'], options: { bucket: '-1' } },
  });
  await catalog.registerTable(ref, `${w.root}/${w.database}.db/flat`);
  const t0 = await getTable('flat');
  assert.deepEqual(t0.partitionKeys, []); // metastore.partitioned-table is off: dt stays a column
  assert.deepEqual(t0.sd.cols.map((c) => c.name), ['id', 'dt']);

  const id = await commitRows(table, [[1n, 'a'], [2n, 'b'], [3n, 'b']], 'f1');
  await catalog.afterCommit(ref, { snapshotId: id, addedPartitions: [{ dt: 'a' }, { dt: 'b' }] });
  const t = await getTable('flat');
  const files = (await table.dataFiles(id)).files;
  assert.equal(t.parameters.numRows, '3');
  assert.equal(t.parameters.numFiles, String(files.length));
  assert.equal(t.parameters.totalSize, String(files.reduce((n, f) => n + f.size, 0)));
  assert.equal(t.parameters.table_type, 'PAIMON');
  assert.deepEqual(await hms.call('get_partition_names', (c) => c.get_partition_names(w.database, 'flat', -1)), []);
});

test('withLock: the metastore lock on a table is exclusive between two catalogs, and times out', async () => {
  const ref = { database: w.database, table: 'locked' };
  const other = hiveCatalog({ uri: metastoreUri(), warehouse: w.root, store: w.store, lockEnabled: true, lock: { acquireTimeoutMs: 60_000, checkMaxSleepMs: 200 } });
  const impatient = hiveCatalog({ uri: metastoreUri(), warehouse: w.root, store: w.store, lockEnabled: true, lock: { acquireTimeoutMs: 500, checkMaxSleepMs: 100 } });
  try {
    const order: string[] = [];
    let releaseFirst!: () => void;
    const held = new Promise<void>((resolve) => (releaseFirst = resolve));
    let firstHolds!: () => void;
    const firstHolding = new Promise<void>((resolve) => (firstHolds = resolve));
    const first = catalog.withLock(ref, async () => {
      order.push('first in');
      firstHolds();
      await held;
      order.push('first out');
      return 1;
    });
    await firstHolding;
    // While the first holds the lock, a catalog with a short acquire timeout gives up.
    await assert.rejects(impatient.withLock(ref, async () => order.push('impatient')), { code: 'CATALOG_LOCK_TIMEOUT' });
    const second = other.withLock(ref, async () => {
      order.push('second in');
      return 2;
    });
    // The second waits (the metastore shows its lock WAITING behind the first's) until the first releases.
    const showLocks = struct(types.ShowLocksRequest, { dbname: w.database, tablename: 'locked' });
    const states = async () => (await hms.call('show_locks', (c) => c.show_locks(showLocks))).locks.map((l) => types.LockState[l.state]).sort();
    while ((await states()).join() !== 'ACQUIRED,WAITING') await sleep(50);
    assert.deepEqual(order, ['first in']);
    releaseFirst();
    assert.deepEqual(await Promise.all([first, second]), [1, 2]);
    assert.deepEqual(order, ['first in', 'first out', 'second in']);
    // Without lock.enabled the function just runs.
    const unlocked = hiveCatalog({ uri: metastoreUri(), warehouse: w.root, store: w.store });
    assert.equal(await unlocked.withLock(ref, async () => 3), 3);
    await unlocked.close();
  } finally {
    await other.close();
    await impatient.close();
  }
});

test('a metastore that does not answer is CATALOG_UNAVAILABLE, and a bad uri CATALOG_CONFIG_INVALID', async () => {
  const down = hiveCatalog({ uri: 'thrift://127.0.0.1:1', warehouse: w.root, store: w.store, requestTimeoutMs: 5_000 });
  await assert.rejects(down.listDatabases(), { code: 'CATALOG_UNAVAILABLE' });
  await down.close();
  assert.throws(() => hiveCatalog({ uri: 'http://127.0.0.1:9183', warehouse: w.root, store: w.store }), { code: 'CATALOG_CONFIG_INVALID' });
});
