/**
 * The Tables seam behind a JDBC catalog (PostgreSQL, a local warehouse): created tables are
 * registered, only registered ones are listed and described, a publish runs under the lock and
 * then hands the catalog the partitions it added, and a failing after-commit step is reported
 * without undoing or failing the commit.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { catalogTables, openCatalog, type Catalog, type CatalogTables, type CommittedSnapshot } from '@tributary/catalog';
import { createTable, LocalObjectStore, parseDataTypeString, warehouseTables, type TableRef } from '@tributary/table';
import { scratchDatabase, type ScratchDatabase } from '../scratch-database.ts';

let db: ScratchDatabase;
let dir = '';
let warehouse = '';
let catalog: Catalog;
let tables: CatalogTables;
const afterCommits: CommittedSnapshot[] = [];
const reported: { ref: TableRef; snapshotId: number; message: string }[] = [];
const locksSeen: string[] = [];

before(async () => {
  db = await scratchDatabase('postgresql');
  dir = await mkdtemp(join(tmpdir(), 'tributary-catalog-tables-'));
  warehouse = `file://${dir}`;
  const inner = warehouseTables();
  const jdbc = await openCatalog(warehouse, inner.warehouseStore(warehouse), { type: 'jdbc', uri: db.uri, user: db.user, password: db.password, catalogKey: 'ct', lockEnabled: true });
  // The JDBC catalog, with an after-commit step that fails as a metastore that is away would.
  catalog = {
    ...jdbc,
    // The lock rows present while the guarded work runs.
    withLock: (ref, fn) => jdbc.withLock(ref, async () => {
      for (const row of await db.query('SELECT lock_id FROM paimon_distributed_locks')) locksSeen.push(String(row['lock_id']));
      return fn();
    }),
    afterCommit: async (_ref, commit) => {
      afterCommits.push(commit);
      throw new Error('metastore away');
    },
  };
  tables = catalogTables(inner, catalog, warehouse, {
    onAfterCommitError: (ref, snapshotId, error) => reported.push({ ref, snapshotId, message: error instanceof Error ? error.message : String(error) }),
  });
});
after(async () => {
  await catalog.close();
  await db.drop();
  await rm(dir, { recursive: true, force: true });
});

test('create registers, list and describe show only registered tables, publish locks then reports its partitions, drop forgets and deletes', async () => {
  const ref = { database: 'sales', table: 'orders' };
  await tables.createTable(warehouse, ref, {
    fields: [{ name: 'id', type: parseDataTypeString('BIGINT NOT NULL') }, { name: 'region', type: parseDataTypeString('STRING NOT NULL') }],
    partitionKeys: ['region'],
    options: { bucket: '-1' },
  });
  assert.deepEqual(await db.query(`SELECT table_name FROM paimon_tables WHERE catalog_key = 'ct'`), [{ table_name: 'orders' }]);
  await assert.rejects(tables.createTable(warehouse, ref, { fields: [{ name: 'id', type: parseDataTypeString('INT') }] }), (e) => e instanceof Error && 'code' in e && e.code === 'TABLE_ALREADY_EXISTS');

  // Files without a catalog entry are not a table of this catalog.
  await createTable(new LocalObjectStore(dir), { database: 'sales', name: 'stray', schema: { fields: [{ name: 'id', type: parseDataTypeString('INT') }] } });
  assert.deepEqual(await tables.listTableRefs(warehouse), [ref]);
  assert.equal(await tables.describeTable(warehouse, { database: 'sales', table: 'stray' }), undefined);
  await assert.rejects(tables.openTable(warehouse, { database: 'sales', table: 'stray' }), (e) => e instanceof Error && 'code' in e && e.code === 'TABLE_NOT_FOUND');

  const table = await tables.openTable(warehouse, ref);
  const write = await table.newWrite({ writerId: 'w' });
  await write.writeRows([[1n, 'eu'], [2n, 'us'], [3n, 'eu']]);
  const messages = await write.prepareCommit();
  const result = await tables.publish(warehouse, ref, {
    messages,
    identity: { commitUser: 'catalog-tables-test', commitIdentifier: 1n },
    kind: 'APPEND',
    baseSnapshotId: null,
    properties: {},
  });
  // The table's lock was held while its schema was written and while the snapshot was published, and is gone after.
  assert.deepEqual(locksSeen, ['ct.sales.orders', 'ct.sales.orders']);
  assert.deepEqual(await db.query('SELECT lock_id FROM paimon_distributed_locks'), []);
  await tables.drain();
  assert.equal(result.snapshotId, 1);
  assert.deepEqual(afterCommits, [{ snapshotId: 1, addedPartitions: [{ region: 'eu' }, { region: 'us' }] }]);
  assert.deepEqual(reported, [{ ref, snapshotId: 1, message: 'metastore away' }]);
  assert.equal((await tables.describeTable(warehouse, ref))?.latestSnapshotId, 1, 'the snapshot stays committed');
  assert.equal((await tables.describeTable(warehouse, ref))?.rowCount, 3);

  await tables.dropTable(warehouse, ref);
  assert.deepEqual(await db.query(`SELECT table_name FROM paimon_tables WHERE catalog_key = 'ct'`), []);
  assert.deepEqual(await tables.listTableRefs(warehouse), []);
  assert.equal(await tables.warehouseStore(warehouse).stat('sales.db/orders/schema/schema-0'), null, 'its files are deleted');
});
