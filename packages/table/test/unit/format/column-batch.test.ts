import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import type { InternalRow, RowType } from '../../../src/spec/types.ts';
import { batchFromRows, concatBatches, gatherRows, groupRows, rowsFromBatch, shiftRows, sliceBatch, takeRows } from '../../../src/format/column-batch.ts';

const rowType: RowType = {
  fields: [
    { id: 0, name: 'b', type: { root: 'BOOLEAN', nullable: true } },
    { id: 1, name: 'i', type: { root: 'INT', nullable: true } },
    { id: 2, name: 'l', type: { root: 'BIGINT', nullable: false } },
    { id: 3, name: 'dec', type: { root: 'DECIMAL', precision: 30, scale: 2, nullable: true } },
    { id: 4, name: 's', type: { root: 'VARCHAR', length: 9, nullable: true } },
    { id: 5, name: 'bin', type: { root: 'VARBINARY', length: 9, nullable: true } },
    { id: 6, name: 'ts', type: { root: 'TIMESTAMP', precision: 9, nullable: true } },
    { id: 7, name: 'f', type: { root: 'FLOAT', nullable: true } },
  ],
};
const rows = [
  [true, 1, 10n, -5n, 'a', new Uint8Array([1]), { epochMillis: -5, nanoOfMillis: 7 }, 1.5],
  [null, null, 20n, null, null, null, null, null],
  [false, -3, 30n, 10n ** 29n, '', new Uint8Array(0), { epochMillis: 0, nanoOfMillis: 0 }, -0.25],
];

test('rows → columns → rows is the identity, nulls included', () => {
  const batch = batchFromRows(rowType, rows);
  assert.equal(batch.columns[0]?.kind, 'bool');
  assert.equal(batch.columns[2]?.kind, 'int64');
  assert.equal(batch.columns[2]?.validity, undefined, 'no validity when a column has no nulls');
  assert.deepEqual([...(batch.columns[1]?.validity ?? [])], [1, 0, 1]);
  assert.deepEqual(rowsFromBatch(batch), rows);
});

test('takeRows selects and permutes; a selection without nulls drops the validity', () => {
  const batch = batchFromRows(rowType, rows);
  assert.deepEqual(rowsFromBatch(takeRows(batch, [2, 0, 2])), [rows[2], rows[0], rows[2]]);
  assert.equal(takeRows(batch, [0, 2]).columns[1]?.validity, undefined);
  assert.deepEqual(rowsFromBatch(sliceBatch(batch, 1, 3)), rows.slice(1));
  assert.deepEqual(rowsFromBatch(concatBatches(rowType, [sliceBatch(batch, 2, 3), sliceBatch(batch, 0, 2)])), [rows[2], rows[0], rows[1]]);
});

test('groupRows splits row indices by group id, keeping order', () => {
  assert.deepEqual(groupRows([2, 0, 2, 1, 0], 3).map((g) => [...g]), [[1, 4], [3], [0, 2]]);
});

test('concatBatches and gatherRows give the rows they name, of every column kind, nulls and all', () => {
  const rowArb = fc.constantFrom(...rows).chain((base) =>
    fc.tuple(fc.integer({ min: 0, max: 2 ** 31 - 1 }), fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }), fc.boolean()).map(([n, long, nulls]) =>
      // Row 2's shape with a varying int and long (both 32-bit words of it), or row 1's nulls:
      // every column with and without nulls.
      nulls ? base.map((v, c) => (c === 2 ? long : null)) : base.map((v, c) => (c === 1 ? n | 0 : c === 2 ? long : v)),
    ),
  );
  fc.assert(
    fc.property(fc.array(fc.array(rowArb, { maxLength: 12 }), { minLength: 1, maxLength: 5 }), fc.array(fc.nat(), { maxLength: 40 }), (parts, picks) => {
      // Each batch a slice past a first row: its typed arrays are views that do not start at 0.
      const batches = parts.map((p) => sliceBatch(batchFromRows(rowType, [rows[2] as InternalRow, ...p]), 1, p.length + 1));
      assert.deepEqual(rowsFromBatch(concatBatches(rowType, batches)), parts.flat());
      const all = parts.flatMap((p, b) => p.map((_, r) => [b, r] as const));
      if (all.length === 0) return;
      const chosen = picks.map((i) => all[i % all.length] as readonly [number, number]);
      const gathered = gatherRows(rowType, batches, Int32Array.from(chosen, ([b]) => b), Int32Array.from(chosen, ([, r]) => r));
      assert.deepEqual(rowsFromBatch(gathered), chosen.map(([b, r]) => parts[b]?.[r]));
      assert.equal(gathered.length, chosen.length);
    }),
    { numRuns: 300 },
  );
});

test('shiftRows takes the first rows off a queue of batches in order, splitting the batch the cut falls in', () => {
  const type: RowType = { fields: [{ id: 0, name: 'k', type: { root: 'BIGINT', nullable: false } }, { id: 1, name: 's', type: { root: 'VARCHAR', length: 10, nullable: true } }] };
  fc.assert(
    fc.property(fc.array(fc.integer({ min: 1, max: 9 }), { minLength: 1, maxLength: 8 }), fc.array(fc.integer({ min: 0, max: 12 }), { maxLength: 10 }), (lengths, takes) => {
      let next = 0;
      const queue = lengths.map((n) => batchFromRows(type, Array.from({ length: n }, () => [BigInt(next), next++ % 3 === 0 ? null : `v${next}`] as InternalRow)));
      const all = queue.flatMap((b) => rowsFromBatch(b));
      let left = all.length;
      let at = 0;
      for (const want of takes) {
        const rows = Math.min(want, left);
        if (rows === 0) continue;
        const taken = shiftRows(type, queue, rows);
        assert.deepEqual(rowsFromBatch(taken), all.slice(at, at + rows), 'the next rows, in order');
        at += rows;
        left -= rows;
        assert.deepEqual(queue.flatMap((b) => rowsFromBatch(b)), all.slice(at), 'the queue keeps the rest, in order');
      }
    }),
  );
});
