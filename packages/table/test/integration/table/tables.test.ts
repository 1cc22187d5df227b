/**
 * The Tables seam over a local warehouse: what the coordinator shows of a table (describe), a
 * publish found again by its identity, colliding keys, and the worker's table reused per schema id.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, test } from 'node:test';
import { isTributaryError } from '@tributary/errors';
import { paimonJava } from '@tributary/testkit';
import { parseDataTypeString, warehouseTables, type CommitMessage, type Table, type Tables } from '@tributary/table';

let dir = '';
let warehouse = '';
let tables: Tables;

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tributary-tables-'));
  warehouse = pathToFileURL(dir).href;
  tables = warehouseTables();
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

const columns = [
  { name: 'id', type: parseDataTypeString('BIGINT NOT NULL'), description: 'the key' },
  { name: 'v', type: parseDataTypeString('STRING') },
];

async function written(ref: { database: string; table: string }, ids: readonly bigint[], writerId: string): Promise<CommitMessage[]> {
  const table = await tables.openTable(warehouse, ref);
  const write = await table.newWrite({ writerId });
  await write.writeRows(ids.map((id) => [id, `v${id}`]));
  return write.prepareCommit();
}

test('describeTable shows the schema, then the latest snapshot with its live files and rows; undefined for no table', async () => {
  const ref = { database: 'seam', table: 'kv' };
  assert.equal(await tables.describeTable(warehouse, ref), undefined);
  const created = await tables.createTable(warehouse, ref, { fields: columns, partitionKeys: [], primaryKeys: ['id'], options: { bucket: '2' } });
  assert.deepEqual(created, {
    database: 'seam',
    table: 'kv',
    schemaId: 0,
    columns,
    partitionKeys: [],
    primaryKeys: ['id'],
    options: { bucket: '2', 'file.format': 'parquet' },
    latestSnapshotId: null,
    fileCount: 0,
    rowCount: 0,
  });

  const messages = await written(ref, [1n, 2n, 3n, 4n, 5n, 6n], 'w1');
  const files = messages.reduce((n, m) => n + m.dataIncrement.newFiles.length, 0);
  const identity = { commitUser: 'seam-user', commitIdentifier: 7n };
  const request = { messages, identity, kind: 'APPEND' as const, baseSnapshotId: null, properties: { sync: 's1' } };
  assert.equal(await tables.findCommitted(warehouse, ref, identity, null), undefined);
  const published = await tables.publish(warehouse, ref, request);
  assert.deepEqual(published, { snapshotId: 1, attempts: 1, conflicts: 0 });
  assert.equal(await tables.findCommitted(warehouse, ref, identity, null), 1);
  assert.equal((await tables.publish(warehouse, ref, request)).snapshotId, 1, 'the same identity finds its own snapshot');

  const shown = await tables.describeTable(warehouse, ref);
  assert.equal(shown?.latestSnapshotId, 1);
  assert.equal(shown?.fileCount, files);
  assert.ok(files >= 2, `${files} files: both buckets written`);
  assert.equal(shown?.rowCount, 6);
  assert.deepEqual(await (await tables.openTable(warehouse, ref)).describe(), shown);
});

test('countCollidingKeys: keys in more than one shard for a primary-key table, null for an append table', async () => {
  const kv = { database: 'seam', table: 'collide' };
  await tables.createTable(warehouse, kv, { fields: columns, partitionKeys: [], primaryKeys: ['id'], options: { bucket: '1' } });
  const shards = [await written(kv, [1n, 2n, 3n], 's0'), await written(kv, [3n, 4n], 's1'), await written(kv, [4n, 5n, 1n], 's2')];
  assert.equal(await tables.countCollidingKeys(warehouse, kv, shards), 3, 'keys 1, 3 and 4');

  const log = { database: 'seam', table: 'log' };
  await tables.createTable(warehouse, log, { fields: columns, partitionKeys: [], primaryKeys: [], options: {} });
  assert.equal(await tables.countCollidingKeys(warehouse, log, [await written(log, [1n], 'a'), await written(log, [1n], 'b')]), null);
});

test('openTable reuses a table opened at its pinned schema id; publish on a missing table is TABLE_NOT_FOUND', async () => {
  const ref = { database: 'seam', table: 'pinned' };
  await tables.createTable(warehouse, ref, { fields: columns, partitionKeys: [], primaryKeys: [], options: {} });
  const first = await tables.openTable(warehouse, ref, 0);
  assert.equal(await tables.openTable(warehouse, ref, 0), first);
  assert.notEqual(await tables.openTable(warehouse, ref), first, 'without a schema id the table is opened afresh');
  const other = await tables.openTable(warehouse, ref, 5);
  assert.equal(other.schema.id, 0, 'a table at another schema is returned for the caller to refuse');
  assert.notEqual(await tables.openTable(warehouse, ref, 5), other, 'and not kept');

  const missing = { database: 'seam', table: 'missing' };
  await assert.rejects(
    tables.publish(warehouse, missing, { messages: [], identity: { commitUser: 'u', commitIdentifier: 1n }, kind: 'APPEND', baseSnapshotId: null, properties: {} }),
    (e: unknown) => isTributaryError(e) && e.code === 'TABLE_NOT_FOUND',
  );
  assert.equal(tables.tablePath(ref), 'seam.db/pinned');
});

test('a table dropped and created again under the same name is not handed out from the schema-0 a worker opened before', async () => {
  // Workers that had opened the table at schema 0 as DECIMAL(10, 2), which was then dropped and
  // created again as DECIMAL(10, 4) (schema 0 again), wrote 1.5 as decimal(10, 2) files, which
  // Paimon Java read as 0.0150.
  const ref = { database: 'seam', table: 'recreated' };
  const amount = (type: string) => [
    { name: 'id', type: parseDataTypeString('INT NOT NULL') },
    { name: 'amount', type: parseDataTypeString(type) },
  ];
  // 1.5 as the worker converts it: an unscaled value at the scale of the table it opened.
  const oneAndAHalf = (table: Table): bigint => {
    const type = table.schema.fields[1]?.type;
    assert.equal(type?.root, 'DECIMAL');
    return 15n * 10n ** BigInt((type as { scale: number }).scale - 1);
  };
  const load = async (id: number) => {
    const table = await tables.openTable(warehouse, ref, 0);
    const write = await table.newWrite({ writerId: `w${id}` });
    await write.writeRows([[id, oneAndAHalf(table)]]);
    const identity = { commitUser: 'recreate-user', commitIdentifier: BigInt(id) };
    await tables.publish(warehouse, ref, { messages: await write.prepareCommit(), identity, kind: 'APPEND', baseSnapshotId: null, properties: {} });
    return table;
  };

  await tables.createTable(warehouse, ref, { fields: amount('DECIMAL(10, 2)'), partitionKeys: [], primaryKeys: [], options: {} });
  const old = await load(1);
  assert.equal(await tables.openTable(warehouse, ref, 0), old, 'kept while its schema file holds the same schema');

  await tables.dropTable(warehouse, ref);
  await assert.rejects(tables.openTable(warehouse, ref, 0), (e: unknown) => isTributaryError(e) && e.code === 'TABLE_NOT_FOUND', 'a dropped table is not handed out');
  await tables.createTable(warehouse, ref, { fields: amount('DECIMAL(10, 4)'), partitionKeys: [], primaryKeys: [], options: {} });
  const recreated = await load(2);
  assert.notEqual(recreated, old);
  assert.deepEqual(recreated.schema.fields.map((f) => f.type), amount('DECIMAL(10, 4)').map((f) => f.type));

  const java = await paimonJava.read({ warehouse: dir, database: ref.database, table: ref.table });
  assert.deepEqual(java.rows, [[2, 15000n]], 'Paimon Java reads 1.5000 at full precision');
});
