/**
 * The filesystem catalog over a local warehouse: the directory layout is the catalog (a table is a
 * `<db>.db/<table>` with a schema), so registering and dropping record nothing and no lock is taken.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { openCatalog, type Catalog } from '@tributary/catalog';
import { createTable, LocalObjectStore, parseDataTypeString } from '@tributary/table';

let dir = '';
let store: LocalObjectStore;
let catalog: Catalog;

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tributary-fs-catalog-'));
  store = new LocalObjectStore(dir);
  catalog = await openCatalog(`file://${dir}/`, store, { type: 'filesystem' });
});
after(async () => {
  await catalog.close();
  await rm(dir, { recursive: true, force: true });
});

test('databases and tables are the warehouse’s directories with a schema; a table’s location is <warehouse>/<db>.db/<table>', async () => {
  assert.equal(catalog.kind, 'filesystem');
  assert.deepEqual(await catalog.listDatabases(), []);
  const schema = { fields: [{ name: 'id', type: parseDataTypeString('INT') }] };
  await createTable(store, { database: 'b', name: 't2', schema });
  await createTable(store, { database: 'a', name: 't1', schema });
  await createTable(store, { database: 'b', name: 't1', schema });
  await store.put('b.db/not-a-table/readme', new TextEncoder().encode('x'));
  assert.deepEqual(await catalog.listDatabases(), ['a', 'b']);
  assert.deepEqual(await catalog.listTables('b'), ['t1', 't2']);
  assert.deepEqual(await catalog.listTables('none'), []);
  assert.equal(await catalog.tableLocation({ database: 'b', table: 't2' }), `file://${dir}/b.db/t2`);
  assert.equal(await catalog.tableLocation({ database: 'b', table: 'not-a-table' }), null);
  assert.equal(await catalog.withLock({ database: 'b', table: 't2' }, async () => 42), 42);
});
