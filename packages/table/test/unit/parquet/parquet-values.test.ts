// The readers' conversions without a BigInt per value (parquet-values.ts) against the BigInt ones
// they stand for: a DECIMAL's big-endian bytes into an int64's two words, epoch micros into millis
// and nanos of the milli, on every length, sign and edge.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { decimalFromBytes, decimalWordsInto, microsInto, timestampFromMicros } from '../../../src/parquet/parquet-values.ts';

test('decimalWordsInto gives the int64 decimalFromBytes gives, for 0 to 8 bytes of any value', () => {
  const out = new BigInt64Array(3);
  const words = new Int32Array(out.buffer);
  const check = (bytes: Uint8Array): void => {
    out.fill(-7n); // a slot written over, its neighbours untouched
    decimalWordsInto(bytes, words, 1);
    assert.equal(out[1], decimalFromBytes(bytes), `bytes ${Buffer.from(bytes).toString('hex')}`);
    assert.equal(out[0], -7n);
    assert.equal(out[2], -7n);
  };
  for (const hex of ['', '00', '7f', '80', 'ff', '0000', 'ff7f', '8000', '00000000', '80000000', '7fffffff', 'ffffffff', '0000000000', 'ff00000000', '7fffffffffffffff', '8000000000000000', 'ffffffffffffffff', '0000000000000001', 'fffffffffffffffe']) {
    check(Uint8Array.from(Buffer.from(hex, 'hex')));
  }
  fc.assert(fc.property(fc.uint8Array({ minLength: 0, maxLength: 8 }), (bytes) => check(bytes)), { numRuns: 2000 });
  assert.throws(() => decimalWordsInto(new Uint8Array(9), words, 0), RangeError);
});

test('microsInto gives the millis and nanos timestampFromMicros gives, inside and beyond the safe integers', () => {
  const millis = new Float64Array(2);
  const nanos = new Int32Array(2);
  const check = (micros: bigint): void => {
    microsInto(micros, millis, nanos, 1);
    const ts = timestampFromMicros(micros);
    assert.deepEqual([millis[1], nanos[1]], [ts.epochMillis, ts.nanoOfMillis], `${micros}`);
    assert.ok(!Object.is(millis[1], -0), 'never -0');
  };
  const safe = 2n ** 53n;
  for (const m of [0n, 1n, -1n, 999n, -999n, 1000n, -1000n, 1001n, -1001n, 1_700_000_000_123_456n, -62_135_596_800_000_000n, safe - 1n, -(safe - 1n), safe, -safe, safe + 1n, -safe - 1n, 2n ** 63n - 1n, -(2n ** 63n)]) check(m);
  fc.assert(
    fc.property(fc.oneof(fc.bigInt({ min: -(safe - 1n), max: safe - 1n }), fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }), fc.bigInt({ min: -5000n, max: 5000n })), (m) => check(m)),
    { numRuns: 3000 },
  );
});
