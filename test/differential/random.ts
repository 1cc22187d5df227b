/**
 * A small seeded PRNG (mulberry32) with the draws the generator needs. Pure and deterministic: the
 * same seed gives the same sequence on every machine, so a failing seed replays exactly.
 */
import { mulberry32 } from '@tributary/testkit';

export class Random {
  readonly #next: () => number;

  constructor(seed: number) {
    // Mix the seed once so that neighbouring seeds start far apart.
    this.#next = mulberry32(Math.imul(seed ^ 0x9e3779b9, 0x85ebca6b));
  }

  /** A uniform 32-bit unsigned integer. */
  uint32(): number {
    return this.#next();
  }

  /** A uniform float in [0, 1). */
  float(): number {
    return this.uint32() / 2 ** 32;
  }

  /** An integer in [min, max] (both inclusive, within ±2^53). */
  int(min: number, max: number): number {
    return min + Math.floor(this.float() * (max - min + 1));
  }

  /** A uniform 64-bit pattern as an unsigned bigint. */
  bits64(): bigint {
    return (BigInt(this.uint32()) << 32n) | BigInt(this.uint32());
  }

  /** A bigint in [min, max] (both inclusive), any size. */
  bigint(min: bigint, max: bigint): bigint {
    const span = max - min + 1n;
    let r = 0n;
    for (let bits = 0n; 1n << bits < span * 1024n; bits += 32n) r = (r << 32n) | BigInt(this.uint32());
    return min + (r % span);
  }

  chance(p: number): boolean {
    return this.float() < p;
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new RangeError('pick from an empty list');
    return items[this.int(0, items.length - 1)] as T;
  }

  /** A random subset of `items`, of size `count`, in their original order. */
  sample<T>(items: readonly T[], count: number): T[] {
    const chosen = new Set<number>();
    while (chosen.size < Math.min(count, items.length)) chosen.add(this.int(0, items.length - 1));
    return [...chosen].sort((a, b) => a - b).map((i) => items[i] as T);
  }
}
