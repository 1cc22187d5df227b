import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isTributaryError } from '@tributary/protocol';
import { parseDataTypeString, type TableDescription } from '@tributary/table';
import { checkLoad, fullExtractBuckets } from '../../../src/sync/load-checks.ts';
import { StartSyncRequest } from '../../../src/requests.ts';

const table = (options: Record<string, string>, primaryKeys: string[] = ['id']): TableDescription => ({
  database: 'shop',
  table: 't',
  schemaId: 0,
  columns: [
    { name: 'id', type: parseDataTypeString('BIGINT NOT NULL') },
    { name: 'op', type: parseDataTypeString('STRING') },
    { name: 'deleted', type: parseDataTypeString('BOOLEAN') },
    { name: 'at', type: parseDataTypeString('TIMESTAMP(3)') },
  ],
  partitionKeys: [],
  primaryKeys,
  options,
  latestSnapshotId: null,
  fileCount: 0,
  rowCount: 0,
});
const request = (options: Record<string, unknown>, mode = 'append') =>
  StartSyncRequest.parse({ table: { database: 'shop', table: 't' }, mode, source: { kind: 'generator', shards: 1, rowsPerShard: 1 }, options });
const refused = (field: string) => (error: unknown) => isTributaryError(error) && error.code === 'SYNC_LOAD_UNSUPPORTED' && error.context?.field === field;

test('an input table takes bucketed loads in mode append or upsert only', () => {
  const input = table({ bucket: '2', 'changelog-producer': 'input' });
  assert.equal(checkLoad(input, request({}), 'bucketed'), undefined);
  assert.equal(checkLoad(input, request({}, 'upsert'), 'bucketed'), undefined);
  assert.throws(() => checkLoad(input, request({}), 'direct'), refused('options.layout'));
  assert.throws(() => checkLoad(input, request({}, 'overwrite'), 'bucketed'), refused('mode'));
  assert.equal(checkLoad(table({ bucket: '2' }), request({}), 'direct'), undefined, 'a table without a producer takes a direct load');
});

test('a delete marker: a value column of the table, BOOLEAN, integer or string, values that fit', () => {
  const t = table({ bucket: '2' });
  assert.deepEqual(checkLoad(t, request({ deleteMarker: { column: 'op', values: ['D', 'd'] } }), 'direct'), { marker: { column: 'op', values: ['D', 'd'] } });
  assert.ok(checkLoad(t, request({ deleteMarker: { column: 'deleted', values: [true] } }), 'bucketed'));
  assert.throws(() => checkLoad(t, request({ deleteMarker: { column: 'deleted', values: ['yes'] } }), 'bucketed'), refused('options.deleteMarker.values'));
  assert.throws(() => checkLoad(t, request({ deleteMarker: { column: 'id', values: [1] } }), 'bucketed'), refused('options.deleteMarker.column'));
  assert.throws(() => checkLoad(t, request({ deleteMarker: { column: 'at', values: ['x'] } }), 'bucketed'), refused('options.deleteMarker.column'));
  assert.throws(() => checkLoad(t, request({ deleteMarker: { column: 'nope', values: ['x'] } }), 'bucketed'), refused('options.deleteMarker.column'));
  assert.throws(() => checkLoad(table({ bucket: '-1' }, []), request({ deleteMarker: { column: 'op', values: ['D'] } }), 'direct'), refused('options.deleteMarker'));
});

test('a full extract: bucketed, a fixed bucket count, never overwrite; its bucket plan covers every bucket of its partition', () => {
  const t = table({ bucket: '3' });
  assert.deepEqual(checkLoad(t, request({ fullExtract: { partition: {} } }), 'bucketed'), { fullExtract: { partition: {} } });
  assert.throws(() => checkLoad(t, request({ fullExtract: { partition: {} } }), 'direct'), refused('options.layout'));
  assert.throws(() => checkLoad(t, request({ fullExtract: { partition: {} } }, 'overwrite'), 'bucketed'), refused('mode'));
  assert.throws(() => checkLoad(table({ bucket: '-1' }), request({ fullExtract: { partition: {} } }), 'bucketed'), refused('options.fullExtract'));
  // The extract must be whole: a rejected row, or a row an incremental read leaves out, would delete its stored row.
  assert.throws(() => checkLoad(t, request({ fullExtract: { partition: {} }, badRows: 'reject' }), 'bucketed'), refused('options.badRows'));
  assert.deepEqual(checkLoad(t, request({ fullExtract: { partition: {} }, badRows: 'fail' }), 'bucketed'), { fullExtract: { partition: {} } });
  const incremental = StartSyncRequest.parse({
    table: { database: 'shop', table: 't' },
    source: { kind: 'mysql', connection: 'm', databases: 'd', tables: 't', incremental: { column: 'at' } },
    options: { fullExtract: { partition: {} } },
  });
  assert.throws(() => checkLoad(t, incremental, 'bucketed'), refused('source.incremental'));

  const partition = Uint8Array.of(0, 0, 0, 0);
  const mine = Buffer.from(partition).toString('base64');
  const run = { fileName: 'r', size: 1, rows: 1, slot: 0, minSequence: '0' };
  const plan = fullExtractBuckets([{ partition: mine, bucket: 1, totalBuckets: 3, runs: [run] }], partition, 3);
  assert.deepEqual(plan.map((e) => [e.bucket, e.runs.length]), [[0, 0], [1, 1], [2, 0]]);
  const other = Buffer.from(Uint8Array.of(0, 0, 0, 1)).toString('base64');
  assert.throws(() => fullExtractBuckets([{ partition: other, bucket: 0, totalBuckets: 3, runs: [run] }], partition, 3), refused('options.fullExtract.partition'));
});
