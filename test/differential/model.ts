/**
 * The rows a table must hold after one load of a case, computed from the generated rows alone
 * (nothing of any implementation): an append table holds every row; a primary-key table holds one
 * row per key, the winner being the greatest `sequence.field` if the table has one (ties go on to
 * the next rule), else the row of the later shard in plan order, else the later row within a shard.
 */
import type { OracleRow, OracleValue } from '@tributary/testkit';
import type { Case } from './generator.ts';

export function expectedRows(c: Case): OracleRow[] {
  const all = c.shards.flat();
  if (c.primaryKeys.length === 0) return all;
  const keyIndices = c.primaryKeys.map((k) => c.columns.findIndex((col) => col.name === k));
  const sequenceName = c.options['sequence.field'];
  const sequence = sequenceName === undefined ? -1 : c.columns.findIndex((col) => col.name === sequenceName);
  const winners = new Map<string, OracleRow>();
  // Rows in plan order: shard by shard, each in its own order, so "later" is simply "after".
  for (const row of all) {
    const key = keyOf(row, keyIndices);
    const current = winners.get(key);
    if (current !== undefined && sequence >= 0 && compare(row[sequence] ?? null, current[sequence] ?? null) < 0) continue;
    winners.set(key, row);
  }
  return [...winners.values()];
}

/** A key's identity: the exact values, typed (1 and 1n and '1' are different keys of different tables anyway). */
export function keyOf(row: OracleRow, indices: readonly number[]): string {
  return JSON.stringify(indices.map((i) => {
    const v = row[i];
    return typeof v === 'bigint' ? `n${v}` : v instanceof Uint8Array ? `b${Buffer.from(v).toString('hex')}` : v;
  }));
}

function compare(a: OracleValue, b: OracleValue): number {
  if (typeof a === 'bigint' && typeof b === 'bigint') return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  throw new TypeError('the model orders integer sequence fields only');
}
