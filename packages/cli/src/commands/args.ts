/** Argument helpers of the REST commands: `db.table` names, JSON given inline or as @file. */
import { readFileSync } from 'node:fs';

export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

export function tableName(value: string): { database: string; table: string } {
  const match = /^([^.]+)\.([^.]+)$/.exec(value);
  if (match === null) throw new UsageError(`a table is named database.table, not ${JSON.stringify(value)}`);
  return { database: match[1] ?? '', table: match[2] ?? '' };
}

export function tablePath(value: string): string {
  const { database, table } = tableName(value);
  return `/v1/tables/${encodeURIComponent(database)}/${encodeURIComponent(table)}`;
}

/** JSON inline, or `@path` (a file) or `@-` (stdin). The message names the option, not the text. */
export function jsonArg(option: string, value: string): unknown {
  let text = value;
  if (value.startsWith('@')) {
    const path = value.slice(1);
    try {
      text = readFileSync(path === '-' ? 0 : path, 'utf8');
    } catch (error) {
      throw new UsageError(`${option}: cannot read ${path} (${(error as NodeJS.ErrnoException).code ?? 'unreadable'})`);
    }
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new UsageError(`${option} is not valid JSON`);
  }
}

export function listArg(value: string): string[] {
  return value.split(',').map((s) => s.trim()).filter((s) => s !== '');
}

export function intArg(option: string, min: number) {
  return (value: string): number => {
    const n = Number(value);
    if (!Number.isSafeInteger(n) || n < min) throw new UsageError(`${option} must be an integer ≥ ${min}`);
    return n;
  };
}

export function printJson(value: unknown): void {
  console.log(JSON.stringify(value, null, 2));
}

/** Rows as aligned columns under a header. */
export function printColumns(header: readonly string[], rows: readonly (readonly string[])[]): void {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  for (const row of [header, ...rows]) console.log(row.map((c, i) => c.padEnd(widths[i] ?? 0)).join('  ').trimEnd());
}

/**
 * An answer of unknown shape as text: the first array found at the top (e.g. `{tables: […]}`) as
 * columns of its scalar fields; anything else as JSON.
 */
export function printAnswer(answer: unknown): void {
  const list = Array.isArray(answer) ? answer : typeof answer === 'object' && answer !== null ? Object.values(answer).find(Array.isArray) : undefined;
  if (list === undefined || list.length === 0 || !list.every((x) => typeof x === 'object' && x !== null && !Array.isArray(x))) {
    printJson(answer);
    return;
  }
  const items = list as Record<string, unknown>[];
  const scalar = (v: unknown) => v === null || ['string', 'number', 'boolean'].includes(typeof v);
  const keys = [...new Set(items.flatMap((item) => Object.keys(item).filter((k) => scalar(item[k]))))];
  printColumns(
    keys,
    items.map((item) => keys.map((k) => (item[k] === undefined || item[k] === null ? '-' : String(item[k])))),
  );
}
