// Column statistics. A string column's min and max: the native UTF-16 comparison is taken only when it equals UTF-8
// byte order (no unit at or above U+E000); both paths must give compareUtf8's min and max.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { batchFromRows, valueAt } from '../../../src/format/column-batch.ts';
import { columnStats, compareInternal } from '../../../src/format/column-stats.ts';
import type { InternalValue } from '../../../src/spec/types.ts';
import { compareUtf8 } from '../../../src/spec/key-comparator.ts';
import { parseDataType } from '../../../src/spec/data-type-json.ts';

const rowType = { fields: [{ id: 0, name: 's', type: parseDataType('STRING') }] };
const unit = fc.constantFrom('', 'a', 'z', 'é', 'Ω', '中', '\ud7ff', '😀', '𝄞', '\ue000', '\uf8ff', '\ufeff', '\uffff', '\u0000');

test('string stats equal compareUtf8 min and max, with and without units at or above U+E000, NULLs and empty strings', () => {
  fc.assert(
    fc.property(fc.array(fc.oneof(fc.constant(null), fc.string({ unit, maxLength: 4 }), fc.string({ unit: 'grapheme', maxLength: 4 })), { minLength: 1, maxLength: 40 }), (values) => {
      const stats = columnStats(batchFromRows(rowType, values.map((v) => [v])).columns[0]!, values.length);
      const present = values.filter((v): v is string => v !== null).sort(compareUtf8);
      assert.equal(stats.nullCount, values.length - present.length);
      assert.equal(stats.min, present.length === 0 ? null : present[0]);
      assert.equal(stats.max, present.length === 0 ? null : present[present.length - 1]);
    }),
    { numRuns: 1000 },
  );
});

// Every kind against one reference: the present values sorted by compareInternal (Paimon's order
// per type), min the first and max the last; NULLs counted. Int64 columns take the exact-double
// path when every value is safe and the BigInt path when one is not.
const kinds: Array<[string, fc.Arbitrary<unknown>]> = [
  ['BOOLEAN', fc.boolean()],
  ['INT', fc.integer()],
  ['SMALLINT', fc.integer({ min: -32768, max: 32767 })],
  ['BIGINT', fc.oneof(fc.bigInt({ min: -(2n ** 53n), max: 2n ** 53n - 1n }), fc.constantFrom(0n, -1n, 1n))],
  ['BIGINT', fc.oneof(fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }), fc.constantFrom(2n ** 63n - 1n, -(2n ** 63n), 2n ** 53n, -(2n ** 53n) - 1n))],
  ['DECIMAL(38, 2)', fc.bigInt({ min: -(10n ** 38n) + 1n, max: 10n ** 38n - 1n })],
  ['DOUBLE', fc.oneof(fc.double(), fc.constantFrom(0, -0, Number.NaN, Infinity, -Infinity, Number.MIN_VALUE))],
  ['FLOAT', fc.oneof(fc.float(), fc.constantFrom(0, -0, Number.NaN))],
  ['DATE', fc.integer({ min: -719162, max: 2932896 })],
  // Few distinct millis, so that rows often tie on them and the nanos decide.
  ['TIMESTAMP(9)', fc.record({ epochMillis: fc.oneof(fc.integer({ min: -2, max: 2 }), fc.integer({ min: -1e12, max: 1e12 })), nanoOfMillis: fc.integer({ min: 0, max: 999_999 }) })],
  ['BYTES', fc.uint8Array({ maxLength: 4 }).map((b) => new Uint8Array(b))],
];

test('every kind: min, max and NULLs equal the values sorted in Paimon order', () => {
  for (const [typeName, value] of kinds) {
    const type = rowTypeOf(typeName);
    fc.assert(
      fc.property(fc.array(fc.oneof({ weight: 1, arbitrary: fc.constant(null) }, { weight: 4, arbitrary: value }), { minLength: 1, maxLength: 60 }), (values) => {
        const column = batchFromRows(type, values.map((v) => [v as InternalValue])).columns[0]!;
        const stats = columnStats(column, values.length);
        const present = Array.from({ length: values.length }, (_, r) => valueAt(column, r)).filter((v) => v !== null);
        const sorted = [...present].sort(compareInternal);
        assert.equal(stats.nullCount, values.length - present.length, typeName);
        assert.deepStrictEqual(stats.min, sorted.length === 0 ? null : sorted[0], typeName);
        assert.deepStrictEqual(stats.max, sorted.length === 0 ? null : sorted[sorted.length - 1], typeName);
      }),
      { numRuns: 300 },
    );
  }
});

test('BIGINT over a prefix: the rows past `length` (a value beyond 2^53 among them) do not count', () => {
  const type = rowTypeOf('BIGINT');
  const value = fc.oneof(fc.bigInt({ min: -(2n ** 53n), max: 2n ** 53n - 1n }), fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }));
  fc.assert(
    fc.property(fc.array(fc.oneof({ weight: 1, arbitrary: fc.constant(null) }, { weight: 4, arbitrary: value }), { minLength: 1, maxLength: 60 }), fc.nat(), (values, cut) => {
      const length = cut % (values.length + 1);
      const column = batchFromRows(type, values.map((v) => [v])).columns[0]!;
      const stats = columnStats(column, length);
      const present = values.slice(0, length).filter((v) => v !== null);
      const sorted = [...present].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
      assert.equal(stats.nullCount, length - present.length);
      assert.equal(stats.min, sorted.length === 0 ? null : sorted[0]);
      assert.equal(stats.max, sorted.length === 0 ? null : sorted[sorted.length - 1]);
    }),
    { numRuns: 500 },
  );
});

function rowTypeOf(typeName: string) {
  return { fields: [{ id: 0, name: 'v', type: parseDataType(typeName) }] };
}
