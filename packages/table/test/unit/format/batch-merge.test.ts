// The bucket merge's in-place pieces (format/batch-merge.ts) against the row path they replace:
// comparing a row of one batch with a row of another must give exactly compareKeys' order, and the
// segments copied out must be exactly the rows pushed, on adversarial values of every column kind
// (NULLs, int64 and DECIMAL at their limits, full-precision and special doubles, unicode around the
// UTF-16/UTF-8 order difference, empty strings and bytes, timestamps with nanos).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { compareRowsAt, prepareColumns, SegmentBuilder } from '../../../src/format/batch-merge.ts';
import { batchFromRows, rowsFromBatch, type Column, type ColumnBatch } from '../../../src/format/column-batch.ts';
import { compareKeys } from '../../../src/spec/key-comparator.ts';
import { parseDataType } from '../../../src/spec/data-type-json.ts';
import type { DataType, InternalValue, RowType } from '../../../src/spec/types.ts';

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const SAFE = 2n ** 53n;

/** Values that sit on the edges of each kind's representation, mixed with random ones. */
const ARBITRARIES: Record<string, fc.Arbitrary<InternalValue>> = {
  BOOLEAN: fc.boolean(),
  INT: fc.oneof(fc.constantFrom(-2147483648, 2147483647, 0, -1, 1), fc.integer()),
  SMALLINT: fc.integer({ min: -32768, max: 32767 }),
  DATE: fc.integer({ min: -800_000, max: 2_900_000 }),
  BIGINT: fc.oneof(
    fc.constantFrom(INT64_MIN, INT64_MAX, 0n, -1n, 1n, SAFE, SAFE + 1n, -SAFE, -SAFE - 1n, 2n ** 32n, 2n ** 32n - 1n, -(2n ** 32n), 2n ** 31n, -(2n ** 31n) - 1n),
    fc.bigInt({ min: INT64_MIN, max: INT64_MAX }),
    fc.bigInt({ min: -(2n ** 33n), max: 2n ** 33n }),
  ),
  'DECIMAL(18, 4)': fc.oneof(fc.constantFrom(10n ** 18n - 1n, -(10n ** 18n - 1n), 0n, -1n), fc.bigInt({ min: -(10n ** 18n - 1n), max: 10n ** 18n - 1n })),
  'DECIMAL(38, 10)': fc.oneof(fc.constantFrom(10n ** 38n - 1n, -(10n ** 38n - 1n), 0n, -1n), fc.bigInt({ min: -(10n ** 38n - 1n), max: 10n ** 38n - 1n })),
  DOUBLE: fc.oneof(fc.constantFrom(-0, 0, NaN, Infinity, -Infinity, Number.MIN_VALUE, -Number.MIN_VALUE, Number.MAX_VALUE, 0.1 + 0.2, 0.30000000000000004), fc.double()),
  FLOAT: fc.float().map((f) => Math.fround(f)),
  STRING: fc.oneof(
    fc.constantFrom('', '\uffff', '\ue000', '\ud7ff', '😀', '😀a', 'a', 'A', 'é', 'Ω', '中文', 'a\u0000'),
    fc.string({ unit: 'grapheme', maxLength: 6 }),
    fc.string({ unit: fc.constantFrom('a', '\uffff', '😀', 'é', '\ue000'), maxLength: 4 }),
  ),
  BYTES: fc.oneof(fc.constant(new Uint8Array(0)), fc.uint8Array({ maxLength: 5 }), fc.constantFrom(new Uint8Array([0x80]), new Uint8Array([0x7f]), new Uint8Array([0x7f, 0]))),
  'TIMESTAMP(9)': fc.record({
    epochMillis: fc.oneof(fc.constantFrom(-1, 0, 1), fc.integer({ min: -62_135_596_800_000, max: 253_402_300_799_999 })),
    nanoOfMillis: fc.oneof(fc.constantFrom(0, 1, 999_999), fc.integer({ min: 0, max: 999_999 })),
  }),
  'TIMESTAMP(3)': fc.record({ epochMillis: fc.oneof(fc.constantFrom(-1, 0, 1), fc.integer({ min: -1e12, max: 1e12 })), nanoOfMillis: fc.constant(0) }),
};

const nullable = (arb: fc.Arbitrary<InternalValue>): fc.Arbitrary<InternalValue> => fc.oneof({ arbitrary: fc.constant(null), weight: 1 }, { arbitrary: arb, weight: 6 });

function rowTypeOf(names: readonly string[]): RowType {
  return { fields: names.map((name, i) => ({ id: i, name: `c${i}`, type: parseDataType(name) })) };
}

const sign = (n: number): number => (n < 0 ? -1 : n > 0 ? 1 : 0);

/** Every pair (i of a, j of b) compared in place and by compareKeys on the rows. */
function assertSameOrder(a: ColumnBatch, b: ColumnBatch, types: readonly DataType[]): void {
  const indices = types.map((_, i) => i);
  const pa = prepareColumns(a, indices);
  const pb = prepareColumns(b, indices);
  const rowsA = rowsFromBatch(a);
  const rowsB = rowsFromBatch(b);
  for (let i = 0; i < a.length; i++) {
    for (let j = 0; j < b.length; j++) {
      const expected = compareKeys(rowsA[i]!, rowsB[j]!, types);
      assert.equal(sign(compareRowsAt(pa, i, pb, j)), expected, `row ${i} vs ${j}`);
    }
  }
}

describe('compareRowsAt: the row path order (compareKeys) between rows of two batches', () => {
  for (const name of Object.keys(ARBITRARIES)) {
    test(name, () => {
      const types = [parseDataType(name)];
      const rowType = rowTypeOf([name]);
      const rows = fc.array(nullable(ARBITRARIES[name]!).map((v) => [v]), { minLength: 1, maxLength: 25 });
      fc.assert(
        fc.property(rows, rows, (x, y) => {
          assertSameOrder(batchFromRows(rowType, x), batchFromRows(rowType, y), types);
          // A batch against itself (equal rows give 0).
          assertSameOrder(batchFromRows(rowType, x), batchFromRows(rowType, x), types);
        }),
        { numRuns: 150 },
      );
    });
  }

  test('several key columns: field by field, nulls first', () => {
    const names = ['STRING', 'BIGINT', 'DOUBLE'];
    const types = names.map((n) => parseDataType(n));
    const rowType = rowTypeOf(names);
    // Few distinct values per column, so later columns decide often.
    const row = fc.tuple(
      nullable(fc.constantFrom('', 'a', '😀', '\uffff')),
      nullable(fc.constantFrom(INT64_MIN, -1n, 0n, SAFE + 1n, INT64_MAX)),
      nullable(fc.constantFrom(-0, 0, NaN, 1.5, -Infinity)),
    );
    fc.assert(
      fc.property(fc.array(row, { minLength: 1, maxLength: 20 }), fc.array(row, { minLength: 1, maxLength: 20 }), (x, y) => {
        assertSameOrder(batchFromRows(rowType, x), batchFromRows(rowType, y), types);
      }),
      { numRuns: 200 },
    );
  });

  test('an int64 column whose batch is a view at an offset of a larger buffer', () => {
    const rowType = rowTypeOf(['BIGINT']);
    const whole = batchFromRows(rowType, [[1n], [INT64_MIN], [INT64_MAX], [-1n], [SAFE + 1n]]);
    const column = whole.columns[0]!;
    if (column.kind !== 'int64') throw new Error('BIGINT is an int64 column');
    const view: ColumnBatch = { rowType, length: 3, columns: [{ kind: 'int64', values: column.values.subarray(2), validity: undefined }] };
    assertSameOrder(whole, view, [parseDataType('BIGINT')]);
  });
});

describe('SegmentBuilder: the rows pushed, copied out column by column', () => {
  const names = Object.keys(ARBITRARIES);
  const rowType = rowTypeOf(names);
  const row = fc.tuple(...names.map((n) => nullable(ARBITRARIES[n]!)));

  test('every kind, NULLs, rows of several batches interleaved and in runs', () => {
    fc.assert(
      fc.property(
        fc.array(fc.array(row, { minLength: 1, maxLength: 12 }), { minLength: 1, maxLength: 4 }),
        fc.array(fc.tuple(fc.nat(), fc.nat(), fc.integer({ min: 1, max: 5 })), { minLength: 1, maxLength: 30 }),
        (inputs, picks) => {
          const batches = inputs.map((rows) => batchFromRows(rowType, rows));
          const out = new SegmentBuilder(rowType);
          const expected: InternalValue[][] = [];
          // Each pick pushes a run of consecutive rows of one batch (a merge's long runs and its single rows).
          for (const [b, r, n] of picks) {
            const batch = batches[b % batches.length]!;
            for (let i = r % batch.length, left = n; i < batch.length && left > 0; i++, left--) {
              out.push(batch, i);
              expected.push(rowsFromBatch(batch)[i]!);
            }
          }
          assert.equal(out.length, expected.length);
          const taken = out.take();
          assert.equal(out.length, 0, 'take empties the builder');
          assert.deepStrictEqual(rowsFromBatch(taken), expected);
          for (const column of taken.columns) {
            if (column.validity !== undefined) assert.ok(column.validity.subarray(0, taken.length).includes(0), 'validity only where a row is null');
          }
        },
      ),
      { numRuns: 150 },
    );
  });
});

test('SegmentBuilder: long segments (copied whole) and short ones (copied row by row) side by side', () => {
  const names = Object.keys(ARBITRARIES);
  const rowType = rowTypeOf(names);
  const row = fc.tuple(...names.map((n) => nullable(ARBITRARIES[n]!)));
  fc.assert(
    fc.property(
      fc.array(fc.array(row, { minLength: 1, maxLength: 60, size: 'max' }), { minLength: 1, maxLength: 3 }),
      fc.array(fc.tuple(fc.nat(), fc.nat(), fc.integer({ min: 1, max: 50 })), { minLength: 1, maxLength: 12 }),
      (inputs, picks) => {
        const batches = inputs.map((rows) => batchFromRows(rowType, rows));
        const out = new SegmentBuilder(rowType);
        const expected: InternalValue[][] = [];
        for (const [b, r, n] of picks) {
          const batch = batches[b % batches.length]!;
          const rows = rowsFromBatch(batch);
          for (let i = r % batch.length, left = n; i < batch.length && left > 0; i++, left--) {
            out.push(batch, i);
            expected.push(rows[i]!);
          }
        }
        const taken = out.take();
        assert.deepStrictEqual(rowsFromBatch(taken), expected);
        for (const [f, column] of taken.columns.entries()) {
          const nulls = expected.filter((r) => r[f] === null).length;
          // A validity only where some row is null, and one byte of 0 or 1 per row.
          if (column.validity === undefined) assert.equal(nulls, 0);
          else assert.deepStrictEqual([...column.validity.subarray(0, taken.length)], expected.map((r) => (r[f] === null ? 0 : 1)));
        }
      },
    ),
    { numRuns: 100 },
  );
});

test('SegmentBuilder sameAs: a column declared equal to another is that column, not a copy', () => {
  const rowType = rowTypeOf(['BIGINT', 'STRING', 'BIGINT']);
  const batch = batchFromRows(rowType, [[INT64_MIN, 'a', INT64_MIN], [null, '😀', null], [SAFE + 1n, '', SAFE + 1n]]);
  const out = new SegmentBuilder(rowType, new Map([[0, 2]]));
  out.push(batch, 2);
  out.push(batch, 0);
  out.push(batch, 1);
  const taken = out.take();
  assert.equal(taken.columns[0], taken.columns[2]);
  assert.deepStrictEqual(rowsFromBatch(taken), [[SAFE + 1n, '', SAFE + 1n], [INT64_MIN, 'a', INT64_MIN], [null, '😀', null]]);
});

test('SegmentBuilder keeps the bits of every double and float (NaN payloads, -0), from columns that are views at an offset', () => {
  const rowType = rowTypeOf(['DOUBLE', 'FLOAT', 'BIGINT']);
  // Non-canonical NaNs: a payload and the sign bit set, which a copy through a JS number may not keep.
  const doubles = new Float64Array(new BigInt64Array([0x7ff8_0000_0000_0001n, -0x0007_ffff_ffff_fffen, 0n, -(2n ** 63n), 0x7ff0_0000_0000_0000n]).buffer);
  const floats = new Float32Array(new Int32Array([0x7fc0_0001, -0x0000_0001, 0, -(2 ** 31), 0x7f80_0000]).buffer);
  const rows = 40;
  const pad = 3;
  const d = new Float64Array(rows + pad);
  const f = new Float32Array(rows + pad);
  const b = new BigInt64Array(rows + pad);
  for (let i = 0; i < rows; i++) {
    new BigInt64Array(d.buffer)[pad + i] = new BigInt64Array(doubles.buffer)[i % doubles.length]!;
    new Int32Array(f.buffer)[pad + i] = new Int32Array(floats.buffer)[i % floats.length]!;
    b[pad + i] = BigInt(i) - 2n ** 62n;
  }
  const batch: ColumnBatch = {
    rowType,
    length: rows,
    columns: [
      { kind: 'float64', values: d.subarray(pad), validity: undefined },
      { kind: 'float32', values: f.subarray(pad), validity: undefined },
      { kind: 'int64', values: b.subarray(pad), validity: undefined },
    ],
  };
  const other = batchFromRows(rowType, [[1.5, 2.5, 7n]]);
  const out = new SegmentBuilder(rowType);
  const order: number[] = [];
  // Single rows alternating with another batch (copied row by row), then one long run (copied whole).
  for (let i = 0; i < 10; i++) {
    out.push(batch, i);
    order.push(i);
    out.push(other, 0);
    order.push(-1);
  }
  for (let i = 10; i < rows; i++) {
    out.push(batch, i);
    order.push(i);
  }
  const taken = out.take();
  const bits64 = (c: Column) => new BigInt64Array((c as Column & { kind: 'float64' }).values.slice().buffer);
  const bits32 = (c: Column) => new Int32Array((c as Column & { kind: 'float32' }).values.slice().buffer);
  const want64 = new BigInt64Array(d.buffer).subarray(pad);
  const want32 = new Int32Array(f.buffer).subarray(pad);
  const other64 = bits64(other.columns[0]!)[0];
  const other32 = bits32(other.columns[1]!)[0];
  assert.deepStrictEqual([...bits64(taken.columns[0]!)], order.map((i) => (i < 0 ? other64 : want64[i])));
  assert.deepStrictEqual([...bits32(taken.columns[1]!)], order.map((i) => (i < 0 ? other32 : want32[i])));
  assert.deepStrictEqual([...(taken.columns[2] as Column & { kind: 'int64' }).values], order.map((i) => (i < 0 ? 7n : b[pad + i])));
});
