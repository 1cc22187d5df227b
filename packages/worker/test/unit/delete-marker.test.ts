import assert from 'node:assert/strict';
import { test } from 'node:test';
import { batchFromRows, parseDataTypeString, type ColumnBatch, type InternalRow, type RowType } from '@tributary/table';
import { deleteMarkerKinds } from '../../src/delete-marker.ts';

const rowType: RowType = {
  fields: [
    { id: 0, name: 'id', type: parseDataTypeString('BIGINT NOT NULL') },
    { id: 1, name: 'op', type: parseDataTypeString('STRING') },
    { id: 2, name: 'flag', type: parseDataTypeString('INT') },
  ],
};
const rows: InternalRow[] = [
  [1n, 'I', 0],
  [2n, 'D', 1],
  [3n, null, null],
  [4n, 'd', 1],
];

test('rows whose marker column holds a marker value are -D (3), compared as text; none: no kinds at all', () => {
  const batch: ColumnBatch = batchFromRows(rowType, rows);
  const byOp = deleteMarkerKinds({ column: 'op', values: ['D'] }, rowType);
  assert.deepEqual([...(byOp.ofBatch(batch) ?? [])], [0, 3, 0, 0]);
  assert.deepEqual(byOp.ofRows(rows), [0, 3, 0, 0]);
  const byFlag = deleteMarkerKinds({ column: 'flag', values: [1] }, rowType);
  assert.deepEqual([...(byFlag.ofBatch(batch) ?? [])], [0, 3, 0, 3], 'the number 1 matches the INT 1; NULL never matches');
  const none = deleteMarkerKinds({ column: 'op', values: ['X'] }, rowType);
  assert.equal(none.ofBatch(batch), undefined);
  assert.equal(none.ofRows(rows), undefined);
  assert.throws(() => deleteMarkerKinds({ column: 'nope', values: ['D'] }, rowType));
});
