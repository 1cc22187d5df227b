import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { bucketOf, bucketOfHash, murmurHashBinaryRow, murmurHashBytes } from '../../../src/spec/bucket.ts';
import { encodeBinaryRow } from '../../../src/spec/binary-row.ts';
import { BUCKET_COUNTS, ROW_VECTORS } from './binary-row-vectors.ts';

const rowBytesOf = (hex: string): Uint8Array => new Uint8Array(Buffer.from(hex, 'hex')).subarray(4);

describe('BinaryRow.hashCode and DefaultBucketFunction (Paimon Java vectors)', () => {
  for (const v of ROW_VECTORS) {
    test(`${v.name}: hash ${v.hash}, buckets ${v.buckets.join('/')}`, () => {
      const row = rowBytesOf(v.hex);
      assert.equal(murmurHashBinaryRow(row), v.hash);
      assert.deepEqual(BUCKET_COUNTS.map((n) => bucketOf(row, n)), v.buckets);
    });
  }

  test("MurmurHashUtils.hashBytes('hello') (byte-tail variant)", () => {
    assert.equal(murmurHashBytes(new TextEncoder().encode('hello')), -1008564952);
  });

  test('hash of a subarray view equals hash of a copy', () => {
    const v = ROW_VECTORS[9];
    assert.ok(v);
    const padded = new Uint8Array(Buffer.from('ffff' + v.hex, 'hex'));
    assert.equal(murmurHashBinaryRow(padded.subarray(6)), v.hash);
  });
});

describe('bucketOfHash has Java semantics', () => {
  test('Math.abs(h % n) with a truncating remainder', () => {
    assert.equal(bucketOfHash(-2147483648, 16), 0);
    assert.equal(bucketOfHash(-2147483648, 10), 8);
    assert.equal(bucketOfHash(-7, 4), 3);
    assert.equal(bucketOfHash(2147483647, 10), 7);
  });
  test('always in [0, n)', () => {
    fc.assert(
      fc.property(fc.integer({ min: -2147483648, max: 2147483647 }), fc.integer({ min: 1, max: 2147483647 }), (h, n) => {
        const b = bucketOfHash(h, n);
        return Number.isInteger(b) && b >= 0 && b < n;
      }),
    );
  });
  test('refuses a non-positive bucket count', () => {
    for (const n of [0, -1, 1.5]) {
      assert.throws(() => bucketOf(encodeBinaryRow([], []), n), (e: unknown) => (e as { code?: string }).code === 'TABLE_UNSUPPORTED');
    }
  });
  test('refuses unaligned row bytes', () => {
    assert.throws(() => murmurHashBinaryRow(new Uint8Array(6)), (e: unknown) => (e as { code?: string }).code === 'BINARY_ROW_INVALID');
  });
});
