/**
 * A publish through the catalog's Tables seam holds the table's JDBC lock (PostgreSQL) over the
 * whole snapshot commit: when the guarded work starts no snapshot exists yet (the id is chosen
 * inside), when it ends the snapshot is written and the lock row is still there, and the row is
 * gone after the publish, also after a publish that fails inside the lock.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { catalogTables, openCatalog, type Catalog, type CatalogTables } from '@tributary/catalog';
import { openTable, parseDataTypeString, warehouseTables } from '@tributary/table';
import { scratchDatabase, type ScratchDatabase } from '../scratch-database.ts';

let db: ScratchDatabase;
let dir = '';
let warehouse = '';
let catalog: Catalog;
let tables: CatalogTables;
const seen: { at: 'start' | 'end'; locks: string[]; latest: number | null }[] = [];
const ref = { database: 'sales', table: 'locked' };

before(async () => {
  db = await scratchDatabase('postgresql');
  dir = await mkdtemp(join(tmpdir(), 'tributary-catalog-lock-'));
  warehouse = `file://${dir}`;
  const inner = warehouseTables();
  const store = inner.warehouseStore(warehouse);
  const jdbc = await openCatalog(warehouse, store, { type: 'jdbc', uri: db.uri, user: db.user, password: db.password, catalogKey: 'lk', lockEnabled: true });
  const look = async (at: 'start' | 'end') => {
    const locks = (await db.query('SELECT lock_id FROM paimon_distributed_locks')).map((r) => String(r['lock_id']));
    const latest = await openTable(store, ref.database, ref.table).then((t) => t.latestSnapshot(), () => null);
    seen.push({ at, locks, latest: latest === null ? null : Number(latest.id) });
  };
  catalog = {
    ...jdbc,
    withLock: (r, fn) =>
      jdbc.withLock(r, async () => {
        await look('start');
        try {
          return await fn();
        } finally {
          await look('end');
        }
      }),
  };
  tables = catalogTables(inner, catalog, warehouse);
});
after(async () => {
  await tables?.drain();
  await catalog?.close();
  await db?.drop();
  await rm(dir, { recursive: true, force: true });
});

test('the lock is held from before the snapshot id is chosen until the snapshot is written, and released after, also on failure', async () => {
  await tables.createTable(warehouse, ref, { fields: [{ name: 'id', type: parseDataTypeString('BIGINT NOT NULL') }], options: { bucket: '-1' } });
  seen.length = 0;
  const write = await (await tables.openTable(warehouse, ref)).newWrite({ writerId: 'w' });
  await write.writeRows([[1n], [2n]]);
  const messages = await write.prepareCommit();
  const result = await tables.publish(warehouse, ref, { messages, identity: { commitUser: 'lock-test', commitIdentifier: 1n }, kind: 'APPEND', baseSnapshotId: null, properties: {} });
  assert.equal(result.snapshotId, 1);
  assert.deepEqual(seen, [
    { at: 'start', locks: ['lk.sales.locked'], latest: null },
    { at: 'end', locks: ['lk.sales.locked'], latest: 1 },
  ]);
  assert.deepEqual(await db.query('SELECT lock_id FROM paimon_distributed_locks'), []);

  // The table's files gone under the catalog's entry: the publish fails inside the lock, which is released.
  seen.length = 0;
  await rm(join(dir, 'sales.db', 'locked'), { recursive: true, force: true });
  await assert.rejects(
    tables.publish(warehouse, ref, { messages, identity: { commitUser: 'lock-test', commitIdentifier: 2n }, kind: 'APPEND', baseSnapshotId: 1, properties: {} }),
    (e) => e instanceof Error && 'code' in e && e.code === 'TABLE_NOT_FOUND',
  );
  assert.deepEqual(seen.map((s) => [s.at, s.locks]), [['start', ['lk.sales.locked']], ['end', ['lk.sales.locked']]]);
  assert.deepEqual(await db.query('SELECT lock_id FROM paimon_distributed_locks'), []);
});
