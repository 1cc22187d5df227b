import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { DataField, InternalValue, RowType } from '../../../src/spec/types.ts';
import { batchFromRows, rowsFromBatch } from '../../../src/format/column-batch.ts';
import { keyValueRowType, sortedRun } from '../../../src/format/key-value.ts';

const STRING = 2147483647;
const table: RowType = {
  fields: [
    { id: 0, name: 'dt', type: { root: 'DATE', nullable: false } },
    { id: 1, name: 'k', type: { root: 'VARCHAR', length: STRING, nullable: false } },
    { id: 2, name: 'v', type: { root: 'BIGINT', nullable: true } },
    { id: 3, name: 'ver', type: { root: 'INT', nullable: true } },
  ],
};

test('key-value row type: _KEY_ fields with shifted ids, then sequence number and value kind, then the table', () => {
  const kv = keyValueRowType(table, ['k']);
  assert.deepEqual(kv.fields.map((f: DataField) => [f.id, f.name, f.type.root, f.type.nullable]), [
    [1073741824, '_KEY_k', 'VARCHAR', false],
    [2147483646, '_SEQUENCE_NUMBER', 'BIGINT', false],
    [2147483645, '_VALUE_KIND', 'TINYINT', false],
    [0, 'dt', 'DATE', false],
    [1, 'k', 'VARCHAR', false],
    [2, 'v', 'BIGINT', true],
    [3, 'ver', 'INT', true],
  ]);
});

// Each case: input rows [k, v, ver, kind] in arrival order → file rows [k, seq, kind, v].
const cases: { name: string; sequenceFields?: string[]; input: [string, number, number | null, number][]; expected: [string, bigint, number, number][] }[] = [
  {
    name: 'sorted by unsigned UTF-8 bytes, not UTF-16 units',
    input: [['\uFFFF', 1, null, 0], ['😀', 2, null, 0], ['a', 3, null, 0], ['', 4, null, 0], ['ab', 5, null, 0]],
    expected: [['', 103n, 0, 4], ['a', 102n, 0, 3], ['ab', 104n, 0, 5], ['\uFFFF', 100n, 0, 1], ['😀', 101n, 0, 2]],
  },
  {
    name: 'the last arrival of a key wins',
    input: [['x', 1, null, 0], ['y', 2, null, 0], ['x', 3, null, 2], ['x', 4, null, 2]],
    expected: [['x', 103n, 2, 4], ['y', 101n, 0, 2]],
  },
  {
    name: 'a trailing delete stays as a delete row',
    input: [['x', 1, null, 0], ['x', 0, null, 3], ['y', 2, null, 1]],
    expected: [['x', 101n, 3, 0], ['y', 102n, 1, 2]],
  },
  {
    name: 'sequence.field decides before arrival order; ties fall back to the sequence number; null is lowest',
    sequenceFields: ['ver'],
    input: [['x', 1, 5, 0], ['x', 2, 3, 0], ['y', 3, null, 0], ['y', 4, 1, 0], ['z', 5, 2, 0], ['z', 6, 2, 0], ['w', 7, 1, 0], ['w', 8, null, 0]],
    expected: [['w', 106n, 0, 7], ['x', 100n, 0, 1], ['y', 103n, 0, 4], ['z', 105n, 0, 6]],
  },
];

for (const c of cases) {
  test(`sortedRun: ${c.name}`, () => {
    const batch = batchFromRows(table, c.input.map(([k, v, ver]) => [19723, k, BigInt(v), ver]));
    const run = sortedRun({
      tableRowType: table,
      trimmedPrimaryKeys: ['k'],
      sequenceFields: c.sequenceFields,
      batch,
      rowKinds: Uint8Array.from(c.input.map((r) => r[3])),
      firstSequenceNumber: 100n,
    });
    const got = rowsFromBatch(run).map((r) => [r[0], r[1], r[2], Number(r[5])]);
    assert.deepEqual(got, c.expected);
    // The _KEY_ column and the value column hold the same keys.
    assert.deepEqual(rowsFromBatch(run).map((r) => r[0]), rowsFromBatch(run).map((r) => r[4]));
  });
}

test('composite keys compare field by field, numbers numerically', () => {
  const t2: RowType = { fields: [{ id: 0, name: 'a', type: { root: 'INT', nullable: false } }, { id: 1, name: 'b', type: { root: 'BIGINT', nullable: false } }] };
  const rows: InternalValue[][] = [[2, 1n], [-1, 5n], [2, -3n], [10, 0n], [-1, -5n]];
  const run = sortedRun({ tableRowType: t2, trimmedPrimaryKeys: ['a', 'b'], batch: batchFromRows(t2, rows), firstSequenceNumber: 0n });
  assert.deepEqual(rowsFromBatch(run).map((r) => [r[0], r[1]]), [[-1, -5n], [-1, 5n], [2, -3n], [2, 1n], [10, 0n]]);
});
