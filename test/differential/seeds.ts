/**
 * Which seeds a run tests. CI runs CI_SEEDS (chosen so that together they cover every type, every
 * file format, append and primary-key tables, 0–3 partition columns and `sequence.field`: the unit
 * test test/unit/differential-generator.test.ts checks it). scripts/differential.mjs turns
 * `--seed S` and `--seeds N [--from F]` into the environment variables read here. Seed 203 is there
 * for its CSV field ending in a carriage return inside quotes (`"…\r"`), which a parser that strips a
 * record's trailing CR from quoted fields too would shorten.
 */
export const CI_SEEDS: readonly number[] = [25, 26, 27, 28, 29, 30, 31, 32, 203];

export function seedsFromEnvironment(env: Readonly<Record<string, string | undefined>>): { seeds: number[]; label: string } {
  const one = env['TRIBUTARY_DIFFERENTIAL_SEED'];
  if (one !== undefined && one !== '') return { seeds: [integer(one, 'TRIBUTARY_DIFFERENTIAL_SEED')], label: `seed ${one}` };
  const count = env['TRIBUTARY_DIFFERENTIAL_SEEDS'];
  if (count !== undefined && count !== '') {
    const n = integer(count, 'TRIBUTARY_DIFFERENTIAL_SEEDS');
    const from = integer(env['TRIBUTARY_DIFFERENTIAL_FROM'] ?? '1', 'TRIBUTARY_DIFFERENTIAL_FROM');
    return { seeds: Array.from({ length: n }, (_, i) => from + i), label: `${n} seeds from ${from}` };
  }
  return { seeds: [...CI_SEEDS], label: `the ${CI_SEEDS.length} CI seeds` };
}

function integer(text: string, name: string): number {
  const n = Number(text);
  if (!Number.isSafeInteger(n) || n < 0) throw new RangeError(`${name} must be a non-negative integer`);
  return n;
}

export function replayCommand(seed: number): string {
  return `npm run test:differential -- --seed ${seed}`;
}
