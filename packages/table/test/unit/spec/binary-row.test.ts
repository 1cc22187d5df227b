import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import {
  BinaryRowEncoder,
  EMPTY_ROW,
  binaryRowEncoder,
  decodeBinaryRow,
  encodeBinaryRow,
  partitionKey,
  serializeBinaryRow,
  toArityPrefixed,
  unscaledToBytes,
  bytesToUnscaled,
} from '../../../src/spec/binary-row.ts';
import { parseDataType } from '../../../src/spec/data-type-json.ts';
import type { DataType, InternalValue } from '../../../src/spec/types.ts';
import { ROW_VECTORS } from './binary-row-vectors.ts';

const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');
const fromHex = (s: string): Uint8Array => new Uint8Array(Buffer.from(s, 'hex'));
const types = (names: readonly string[]): DataType[] => names.map((n) => parseDataType(n));

function assertCode(fn: () => unknown, code: string): void {
  assert.throws(fn, (e: unknown) => (e as { code?: string }).code === code);
}

describe('BinaryRow golden vectors (Paimon Java)', () => {
  for (const v of ROW_VECTORS) {
    test(`encodes ${v.name}`, () => {
      assert.equal(hex(serializeBinaryRow(v.values, types(v.types))), v.hex);
    });
    test(`decodes ${v.name}`, () => {
      assert.deepEqual(decodeBinaryRow(fromHex(v.hex), types(v.types)), v.values);
    });
  }

  test('EMPTY_ROW is 12 zero bytes and equals the encoded empty row', () => {
    assert.equal(hex(EMPTY_ROW), '000000000000000000000000');
    assert.deepEqual(serializeBinaryRow([], []), EMPTY_ROW);
    assert.deepEqual(toArityPrefixed(encodeBinaryRow([], []), 0), EMPTY_ROW);
  });
});

describe('decimal bytes are BigInteger.toByteArray', () => {
  const cases: [bigint, string][] = [
    [0n, '00'],
    [-1n, 'ff'],
    [127n, '7f'],
    [128n, '0080'],
    [-128n, '80'],
    [-129n, 'ff7f'],
    [1234567n, '12d687'],
    [-(10n ** 38n) + 1n, 'b4c4b357a5793b85f675ddc000000001'],
  ];
  for (const [v, h] of cases) {
    test(`${v}`, () => {
      assert.equal(hex(unscaledToBytes(v)), h);
      assert.equal(bytesToUnscaled(fromHex(h)), v);
    });
  }
});

// ---- property: every atomic type, with extremes, survives encode → decode ----

const TYPE_NAMES = [
  'BOOLEAN', 'TINYINT', 'SMALLINT', 'INT', 'BIGINT', 'FLOAT', 'DOUBLE',
  'DECIMAL(10, 2)', 'DECIMAL(18, 4)', 'DECIMAL(19, 0)', 'DECIMAL(38, 10)', 'DECIMAL(38, 0)',
  'CHAR(5)', 'VARCHAR(20)', 'STRING', 'BINARY(4)', 'VARBINARY(16)', 'BYTES', 'DATE', 'TIME(0)', 'TIME(3)',
  'TIMESTAMP(0)', 'TIMESTAMP(3)', 'TIMESTAMP(6)', 'TIMESTAMP(9)',
  'TIMESTAMP(3) WITH LOCAL TIME ZONE', 'TIMESTAMP(6) WITH LOCAL TIME ZONE',
] as const;

const int = (min: number, max: number) => fc.oneof(fc.constantFrom(min, max, 0, -1), fc.integer({ min, max }));
const decimal = (p: number) => {
  const lim = 10n ** BigInt(p) - 1n;
  return fc.oneof(fc.constantFrom(lim, -lim, 0n, -1n, -128n, 128n), fc.bigInt({ min: -lim, max: lim }));
};
const text = fc.oneof(fc.constantFrom('', 'a', '1234567', '12345678', '😀', 'é😀€x', '\u0000'), fc.string({ unit: 'binary' }));
const bytes = fc.oneof(fc.constant(new Uint8Array(0)), fc.uint8Array({ maxLength: 40 }));
const millis = fc.oneof(fc.constantFrom(-1, 0, -62135596800000, 253402300799999), fc.integer({ min: -1e14, max: 1e14 }));

function valueArb(t: DataType): fc.Arbitrary<InternalValue> {
  switch (t.root) {
    case 'BOOLEAN': return fc.boolean();
    case 'TINYINT': return int(-128, 127);
    case 'SMALLINT': return int(-32768, 32767);
    case 'INT': case 'DATE': return int(-2147483648, 2147483647);
    case 'TIME': return int(0, 86399999);
    case 'BIGINT': return fc.oneof(fc.constantFrom(-(2n ** 63n), 2n ** 63n - 1n, 0n), fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }));
    case 'FLOAT': return fc.float({ noDefaultInfinity: false });
    case 'DOUBLE': return fc.double();
    case 'DECIMAL': return decimal(t.precision);
    case 'CHAR': case 'VARCHAR': return text;
    case 'BINARY': case 'VARBINARY': return bytes;
    case 'TIMESTAMP': case 'TIMESTAMP_LTZ':
      return fc
        .tuple(millis, t.precision <= 3 ? fc.constant(0) : fc.integer({ min: 0, max: 999999 }))
        .map(([epochMillis, nanoOfMillis]) => ({ epochMillis, nanoOfMillis }));
  }
}

const rowArb = fc
  .array(fc.constantFrom(...TYPE_NAMES), { minLength: 0, maxLength: 70 })
  .chain((names) => {
    const ts = types(names);
    return fc.tuple(fc.constant(ts), fc.tuple(...ts.map((t) => fc.option(valueArb(t), { freq: 4 }))));
  });

describe('BinaryRow round trip (fast-check)', () => {
  test('decode(encode(row)) == row for every atomic type, nulls and extremes', () => {
    fc.assert(
      fc.property(rowArb, ([ts, values]) => {
        const bytes = serializeBinaryRow(values, ts);
        assert.equal((bytes.length - 4) % 8, 0);
        const back = decodeBinaryRow(bytes, ts);
        assert.equal(back.length, values.length);
        back.forEach((b, i) => {
          const v = values[i] ?? null;
          if (typeof v === 'number' && ts[i]?.root === 'FLOAT') assert.ok(Object.is(b, Math.fround(v)));
          else assert.deepEqual(b, v);
        });
        // Re-encoding what we decoded gives the same bytes: the form is canonical.
        assert.deepEqual(serializeBinaryRow(back, ts), bytes);
      }),
      { numRuns: 500 },
    );
  });
});

describe('BinaryRowEncoder reuse', () => {
  test('a growing buffer keeps every offset right (null reserve after growth)', () => {
    const ts = types(['DECIMAL(19, 0)', 'DECIMAL(38, 10)', 'DECIMAL(19, 0)']);
    const row = [9999999999999999999n, 99999999999999999999999999999999999999n, null];
    const first = hex(new BinaryRowEncoder(ts).encode(row));
    assert.equal(first.slice(48, 64), '0000000040000000'); // slot 2: size 0, offset 0x40
    const warm = new BinaryRowEncoder(ts);
    warm.encode(row);
    assert.equal(hex(warm.encode(row)), first);
  });
  test('write() reuses its buffer; encode() copies', () => {
    const ts = types(['STRING']);
    const enc = binaryRowEncoder(ts);
    assert.equal(binaryRowEncoder(ts), enc);
    const a = enc.encode(['a long string value']);
    const view = enc.write(['another long string']);
    enc.write(['x']);
    assert.equal(hex(a), hex(encodeBinaryRow(['a long string value'], ts)));
    assert.notEqual(hex(view), hex(encodeBinaryRow(['another long string'], ts)));
  });
});

describe('encode refuses values that do not fit their type', () => {
  const bad: [string, InternalValue][] = [
    ['INT', 2147483648], ['INT', 1.5], ['INT', 1n], ['TINYINT', 128], ['SMALLINT', -32769],
    ['BIGINT', 2n ** 63n], ['BIGINT', 5], ['DECIMAL(5, 2)', 100000n], ['DECIMAL(20, 0)', -(10n ** 20n)],
    ['STRING', 5], ['STRING', 'a\uD800b'], ['BYTES', 'ab'], ['BOOLEAN', 0],
    ['TIMESTAMP(3)', { epochMillis: 1, nanoOfMillis: 5 }], ['TIMESTAMP(6)', { epochMillis: 1, nanoOfMillis: 1_000_000 }],
    ['TIMESTAMP(6)', { epochMillis: 1.5, nanoOfMillis: 0 }],
  ];
  for (const [name, v] of bad) {
    test(`${name} ${String(v)}`, () => assertCode(() => encodeBinaryRow([v], types([name])), 'ROW_VALUE_INVALID'));
  }
  test('null in a NOT NULL column', () => assertCode(() => encodeBinaryRow([null], types(['INT NOT NULL'])), 'ROW_VALUE_INVALID'));
  test('arity mismatch', () => assertCode(() => encodeBinaryRow([1, 2], types(['INT'])), 'ROW_VALUE_INVALID'));
});

describe('decode is strict', () => {
  const str = types(['STRING']);
  const good = fromHex('00000001' + '0000000000000000' + '0800000010000000' + '6162636465666768');
  const mutate = (at: number, byte: number): Uint8Array => {
    const copy = good.slice();
    copy[at] = byte;
    return copy;
  };
  test('too short for the arity prefix', () => assertCode(() => decodeBinaryRow(new Uint8Array(8), []), 'BINARY_ROW_INVALID'));
  test('arity differs from the types', () => assertCode(() => decodeBinaryRow(good, types(['STRING', 'INT'])), 'BINARY_ROW_INVALID'));
  test('a negative arity (the prefix is a signed big-endian int)', () => {
    for (const top of [0x80, 0xff]) assert.throws(() => decodeBinaryRow(mutate(0, top), str), { code: 'BINARY_ROW_INVALID', message: /negative arity/ });
    // 2^24 + 1 is read as such (big-endian), not as 1 or as a little-endian value.
    assert.throws(() => decodeBinaryRow(mutate(0, 0x01), str), { code: 'BINARY_ROW_INVALID', message: /arity 16777217, expected 1/ });
  });
  test('row shorter than its fixed part', () => assertCode(() => decodeBinaryRow(good.subarray(0, 12), str), 'BINARY_ROW_INVALID'));
  test('length not 8-aligned', () => assertCode(() => decodeBinaryRow(good.subarray(0, 27), str), 'BINARY_ROW_INVALID'));
  test('offset past the end', () => assertCode(() => decodeBinaryRow(mutate(16, 0x40), str), 'BINARY_ROW_INVALID'));
  test('offset inside the fixed part', () => assertCode(() => decodeBinaryRow(mutate(16, 0x04), str), 'BINARY_ROW_INVALID'));
  test('length past the end', () => assertCode(() => decodeBinaryRow(mutate(12, 0x09), str), 'BINARY_ROW_INVALID'));
  test('unknown row kind', () => assertCode(() => decodeBinaryRow(mutate(4, 9), str), 'BINARY_ROW_INVALID'));
  test('invalid UTF-8', () => assertCode(() => decodeBinaryRow(mutate(20, 0xff), str), 'BINARY_ROW_INVALID'));
  test('decimal longer than 16 bytes', () => {
    const d = fromHex('00000001' + '0000000000000000' + '1100000010000000' + '00'.repeat(16));
    assertCode(() => decodeBinaryRow(d, types(['DECIMAL(20, 0)'])), 'BINARY_ROW_INVALID');
  });
  test('never reads out of range on random bytes', () => {
    const ts = types(['STRING', 'DECIMAL(30, 2)', 'TIMESTAMP(9)', 'BYTES']);
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 0, maxLength: 120 }), (raw) => {
        try {
          decodeBinaryRow(raw, ts);
        } catch (e) {
          assert.equal((e as { code?: string }).code, 'BINARY_ROW_INVALID');
        }
      }),
      { numRuns: 2000 },
    );
  });
});

test('partitionKey: the hex of the bytes, whatever was keyed before (views, equal lengths, bytes changed after)', () => {
  const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');
  const backing = Uint8Array.from({ length: 64 }, (_, i) => i);
  const cases = [new Uint8Array(12), new Uint8Array(12), Uint8Array.of(0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 9, 0, 0, 0, 0, 0, 0, 0), backing.subarray(8, 20), backing.subarray(9, 21), new Uint8Array(0), backing.subarray(9, 21)];
  for (const bytes of cases) assert.equal(partitionKey(bytes), hex(bytes));
  const mutable = new Uint8Array(12);
  assert.equal(partitionKey(mutable), '00'.repeat(12));
  mutable[11] = 1;
  assert.equal(partitionKey(mutable), `${'00'.repeat(11)}01`);
  mutable[0] = 0xff;
  assert.equal(partitionKey(Uint8Array.of(0xff, ...new Uint8Array(10), 1)), `ff${'00'.repeat(10)}01`);
  assert.equal(partitionKey(new Uint8Array(12)), '00'.repeat(12));
});
