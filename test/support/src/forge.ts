/**
 * What an attacker who can write an object store does to a checksummed object: keep its CRC32C while
 * changing its bytes. Tests use it to show that only a cryptographic hash pins what was voted.
 */
import { crc32c } from '@node-rs/crc32';

/**
 * Chooses the four bytes of `forged` at `at` so that its CRC32C equals `original`'s (same length): a
 * CRC is affine over GF(2), so this is a 32 × 32 linear system, solved by elimination. What an
 * attacker who can write the staging area does to keep a run's CRCs.
 */
export function matchCrc32c(original: Uint8Array, forged: Uint8Array, at: number): void {
  const zeros = crc32c(new Uint8Array(original.length));
  const linear = (d: Uint8Array): number => (crc32c(d) ^ zeros) >>> 0;
  const bitDelta = (bit: number): Uint8Array => {
    const d = new Uint8Array(original.length);
    d[at + (bit >> 3)] = 1 << (bit & 7);
    return d;
  };
  const basis = new Map<number, { value: number; bits: bigint }>();
  const reduce = (value: number, bits: bigint): { value: number; bits: bigint } => {
    for (let pivot = 31; pivot >= 0; pivot--) {
      const b = basis.get(pivot);
      if (((value >>> pivot) & 1) === 1 && b !== undefined) {
        value = (value ^ b.value) >>> 0;
        bits ^= b.bits;
      }
    }
    return { value, bits };
  };
  for (let bit = 0; bit < 32; bit++) {
    const r = reduce(linear(bitDelta(bit)), 1n << BigInt(bit));
    if (r.value !== 0) basis.set(31 - Math.clz32(r.value), r);
  }
  const target = reduce((crc32c(forged) ^ crc32c(original)) >>> 0, 0n);
  if (target.value !== 0) throw new Error('these four bytes cannot match the CRC32C');
  for (let bit = 0; bit < 32; bit++) if (((target.bits >> BigInt(bit)) & 1n) === 1n) forged[at + (bit >> 3)] = (forged[at + (bit >> 3)] as number) ^ (1 << (bit & 7));
}
