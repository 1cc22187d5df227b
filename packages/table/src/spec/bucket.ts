/**
 * The fixed-bucket function: which bucket a row's bucket key lands in. Mirrors
 * org.apache.paimon.utils.MurmurHashUtils (hashBytesByWords, the BinaryRow.hashCode path) and
 * org.apache.paimon.bucket.DefaultBucketFunction (Math.abs(hash % numBuckets)).
 *
 * Writers from any engine must agree on the bucket of a key, and Java prunes buckets for
 * `key = literal` filters, so this must match Java bit for bit.
 */
import { errorFrom } from '@tributary/errors';
import { tableErrors } from '../errors.ts';

const SEED = 42;
const C1 = 0xcc9e2d51;
const C2 = 0x1b873593;

function mixK1(k: number): number {
  k = Math.imul(k, C1);
  k = (k << 15) | (k >>> 17);
  return Math.imul(k, C2);
}

function mixH1(h: number, k: number): number {
  h ^= k;
  h = (h << 13) | (h >>> 19);
  return (Math.imul(h, 5) + 0xe6546b64) | 0;
}

/** MurmurHashUtils.fmix(int): the 32-bit finalizer. */
export function fmix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h | 0;
}

/** The little-endian int32 at `i` (no DataView: this runs once per row on the write path). */
function wordAt(b: Uint8Array, i: number): number {
  return (b[i] as number) | ((b[i + 1] as number) << 8) | ((b[i + 2] as number) << 16) | ((b[i + 3] as number) << 24);
}

/**
 * MurmurHash3_x86_32 with seed 42 over the row bytes read as little-endian 4-byte words, then
 * `h ^= length` and fmix: exactly Java's BinaryRow.hashCode() (rows are 8-byte aligned).
 * `rowBytes` are the raw row bytes, without the arity prefix.
 */
export function murmurHashBinaryRow(rowBytes: Uint8Array): number {
  if (rowBytes.length % 4 !== 0) {
    throw errorFrom(tableErrors, 'BINARY_ROW_INVALID', `row of ${rowBytes.length} bytes is not word aligned`, {
      length: rowBytes.length,
    });
  }
  let h = SEED;
  for (let i = 0; i < rowBytes.length; i += 4) h = mixH1(h, mixK1(wordAt(rowBytes, i)));
  return fmix32(h ^ rowBytes.length);
}

/**
 * MurmurHashUtils.hashBytes: the variant with a byte tail (used for strings, not rows). Kept for
 * the reference's "hello" check and for callers that hash plain byte arrays.
 */
export function murmurHashBytes(bytes: Uint8Array): number {
  const aligned = bytes.length - (bytes.length % 4);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.length);
  let h = SEED;
  for (let i = 0; i < aligned; i += 4) h = mixH1(h, mixK1(view.getInt32(i, true)));
  // Java passes the signed byte (UNSAFE.getByte) through mixK1.
  for (let i = aligned; i < bytes.length; i++) h = mixH1(h, mixK1(view.getInt8(i)));
  return fmix32(h ^ bytes.length);
}

/** DefaultBucketFunction: Math.abs(hash % numBuckets), with Java's truncating remainder. */
export function bucketOfHash(hash: number, numBuckets: number): number {
  if (!Number.isInteger(numBuckets) || numBuckets <= 0 || numBuckets > 0x7fffffff) {
    throw errorFrom(tableErrors, 'TABLE_UNSUPPORTED', `bucket count ${numBuckets} is not a positive int`, { numBuckets });
  }
  // JS % truncates toward zero like Java's; |remainder| < numBuckets, so abs cannot overflow.
  return Math.abs((hash | 0) % numBuckets);
}

/** The bucket of a row whose bucket-key projection has these raw row bytes. */
export function bucketOf(rowBytes: Uint8Array, numBuckets: number): number {
  return bucketOfHash(murmurHashBinaryRow(rowBytes), numBuckets);
}
