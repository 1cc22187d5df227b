/**
 * Exact comparison of what a reader returned with the model: every value equal by Object.is after
 * canonical ordering (so -0 is not 0, NaN is NaN, decimals are unscaled bigints, timestamps to the
 * nanosecond). A mismatch is summarised without cell values (counts, keys' positions, column
 * names); the rows themselves go to a JSON file whose path the summary names.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { canonicalRows, type OracleRow, type OracleValue } from '@tributary/testkit';
import type { Case } from './generator.ts';
import { keyOf } from './model.ts';

export interface Mismatch {
  readonly summary: string;
  readonly detailsFile: string;
}

/** Undefined when equal. */
export function compareRows(c: Case, label: string, actual: readonly OracleRow[], expected: readonly OracleRow[]): Mismatch | undefined {
  const got = canonicalRows(actual);
  const want = canonicalRows(expected);
  if (isDeepStrictEqual(got, want)) return undefined;
  const names = c.columns.map((col) => col.name);
  const parts = [`expected ${want.length} rows, got ${got.length}`];
  if (c.primaryKeys.length > 0) {
    const indices = c.primaryKeys.map((k) => names.indexOf(k));
    const byKey = (rows: readonly OracleRow[]) => {
      const map = new Map<string, OracleRow[]>();
      for (const row of rows) map.set(keyOf(row, indices), [...(map.get(keyOf(row, indices)) ?? []), row]);
      return map;
    };
    const [g, w] = [byKey(got), byKey(want)];
    const missing = [...w.keys()].filter((k) => !g.has(k)).length;
    const extra = [...g.keys()].filter((k) => !w.has(k)).length;
    const duplicated = [...g.values()].filter((rows) => rows.length > 1).length;
    const columns = new Map<string, number>();
    let wrong = 0;
    for (const [key, [wantRow]] of w) {
      const gotRows = g.get(key);
      if (wantRow === undefined || gotRows?.length !== 1) continue;
      const diff = differingColumns(gotRows[0]!, wantRow, names);
      if (diff.length > 0) wrong++;
      for (const name of diff) columns.set(name, (columns.get(name) ?? 0) + 1);
    }
    parts.push(`${missing} keys missing, ${extra} unexpected, ${duplicated} returned more than once, ${wrong} with another row's values`);
    if (columns.size > 0) parts.push(`differing columns: ${[...columns].map(([n, k]) => `${n} (${k})`).join(', ')}`);
  } else {
    const count = (rows: readonly OracleRow[]) => {
      const map = new Map<string, number>();
      for (const row of rows) map.set(rowId(row), (map.get(rowId(row)) ?? 0) + 1);
      return map;
    };
    const [g, w] = [count(got), count(want)];
    let missing = 0;
    let extra = 0;
    for (const [id, n] of w) missing += Math.max(0, n - (g.get(id) ?? 0));
    for (const [id, n] of g) extra += Math.max(0, n - (w.get(id) ?? 0));
    parts.push(`${missing} expected rows missing, ${extra} rows not expected`);
    const columns = columnsDifferingInMultiset(got, want, names);
    if (columns.length > 0) parts.push(`columns whose values differ: ${columns.join(', ')}`);
  }
  const dir = join(tmpdir(), 'tributary-differential');
  mkdirSync(dir, { recursive: true });
  const detailsFile = join(dir, `seed-${c.seed}-${label.replaceAll(/[^a-z0-9]+/gi, '-')}.json`);
  writeFileSync(detailsFile, JSON.stringify({ seed: c.seed, label, columns: c.columns, expected: want.map(wireRow), got: got.map(wireRow) }, null, 1));
  return { summary: parts.join('; '), detailsFile };
}

function same(a: OracleValue | undefined, b: OracleValue | undefined): boolean {
  return isDeepStrictEqual(canonicalRows([[a ?? null]]), canonicalRows([[b ?? null]]));
}

function differingColumns(got: OracleRow, want: OracleRow, names: readonly string[]): string[] {
  return names.filter((_, i) => !same(got[i], want[i]));
}

function columnsDifferingInMultiset(got: readonly OracleRow[], want: readonly OracleRow[], names: readonly string[]): string[] {
  return names.filter((_, i) => {
    const values = (rows: readonly OracleRow[]) => rows.map((r) => rowId([r[i] ?? null])).sort();
    return !isDeepStrictEqual(values(got), values(want));
  });
}

function rowId(row: OracleRow): string {
  return JSON.stringify(row.map(wireValue));
}

function wireRow(row: OracleRow): unknown[] {
  return row.map(wireValue);
}

function wireValue(v: OracleValue): unknown {
  if (v === null || typeof v === 'boolean' || typeof v === 'string') return v;
  if (typeof v === 'bigint') return `${v}n`;
  if (typeof v === 'number') return Number.isFinite(v) && !Object.is(v, -0) ? v : Object.is(v, -0) ? '-0' : String(v);
  if (v instanceof Uint8Array) return `0x${Buffer.from(v).toString('hex')}`;
  return `${v.epochMillis}ms+${v.nanoOfMillis}ns`;
}
