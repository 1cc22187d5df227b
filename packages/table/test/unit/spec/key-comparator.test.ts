import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { compareBytes, compareJavaDouble, compareKeys, compareUtf8, keyComparator } from '../../../src/spec/key-comparator.ts';
import { parseDataType } from '../../../src/spec/data-type-json.ts';
import type { InternalValue } from '../../../src/spec/types.ts';

const T = (...names: string[]) => names.map((n) => parseDataType(n));

describe('compareKeys (Paimon generated comparator order)', () => {
  test('nulls first, then field by field', () => {
    const types = T('INT', 'STRING');
    assert.equal(compareKeys([null, 'a'], [0, 'a'], types), -1);
    assert.equal(compareKeys([0, null], [0, ''], types), -1);
    assert.equal(compareKeys([null, null], [null, null], types), 0);
    assert.equal(compareKeys([1, 'a'], [0, 'z'], types), 1);
    assert.equal(compareKeys([1, 'a'], [1, 'b'], types), -1);
  });
  test('per type', () => {
    const cases: [string, InternalValue, InternalValue, number][] = [
      ['BOOLEAN', false, true, -1],
      ['BIGINT', -(2n ** 63n), 2n ** 63n - 1n, -1],
      ['DECIMAL(38, 2)', -(10n ** 37n), 5n, -1],
      ['DOUBLE', -0, 0, -1],
      ['DOUBLE', NaN, Infinity, 1],
      ['DOUBLE', NaN, NaN, 0],
      ['FLOAT', -1.5, -1.25, -1],
      ['STRING', '\uffff', '😀', -1], // UTF-16 would say the opposite
      ['STRING', 'ab', 'abc', -1],
      ['STRING', 'é', 'z', 1],
      ['BYTES', new Uint8Array([0x80]), new Uint8Array([0x7f]), 1], // unsigned
      ['BYTES', new Uint8Array([1]), new Uint8Array([1, 0]), -1],
      ['TIMESTAMP(6)', { epochMillis: -1, nanoOfMillis: 999_999 }, { epochMillis: 0, nanoOfMillis: 0 }, -1],
      ['TIMESTAMP(9)', { epochMillis: 5, nanoOfMillis: 2 }, { epochMillis: 5, nanoOfMillis: 1 }, 1],
      ['DATE', -1, 0, -1],
    ];
    for (const [type, a, b, expected] of cases) {
      assert.equal(compareKeys([a], [b], T(type)), expected, `${type} ${String(a)} vs ${String(b)}`);
      assert.equal(compareKeys([b], [a], T(type)), expected === 0 ? 0 : -expected, `${type} reversed`);
    }
  });
  test('strings compare exactly as their unsigned UTF-8 bytes (fast-check)', () => {
    const wellFormed = fc.string({ unit: 'grapheme' });
    fc.assert(
      fc.property(wellFormed, wellFormed, (a, b) => {
        const bytes = Math.sign(Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8')));
        return compareUtf8(a, b) === bytes && compareBytes(Buffer.from(a), Buffer.from(b)) === bytes;
      }),
      { numRuns: 2000 },
    );
  });
  test('Double.compare is a total order', () => {
    const sorted = [NaN, 1, -0, 0, -Infinity, 0.5, Infinity, -2].sort(compareJavaDouble);
    assert.deepEqual(sorted.map(String), ['-Infinity', '-2', '0', '0', '0.5', '1', 'Infinity', 'NaN']);
    assert.ok(Object.is(sorted[2], -0) && Object.is(sorted[3], 0));
  });
  test('sorting with keyComparator gives an order consistent in both directions', () => {
    const types = T('STRING', 'BIGINT');
    const row = fc.tuple(fc.option(fc.string({ unit: 'grapheme', maxLength: 3 }), { nil: null }), fc.option(fc.bigInt({ min: -5n, max: 5n }), { nil: null }));
    fc.assert(
      fc.property(fc.array(row), (rows) => {
        const sorted = [...rows].sort(keyComparator(types));
        for (let i = 1; i < sorted.length; i++) {
          assert.ok(compareKeys(sorted[i - 1] ?? [], sorted[i] ?? [], types) <= 0);
          assert.ok(compareKeys(sorted[i] ?? [], sorted[i - 1] ?? [], types) >= 0);
        }
      }),
    );
  });
});
