/**
 * The SQL that plans and reads a PostgreSQL shard, pure: quoted identifiers, key literals,
 * key-range conditions over the primary key (row comparisons, which PostgreSQL turns into a range
 * scan of the primary-key index), the shard's COPY, and the keyset query that finds split points.
 *
 * COPY (query) takes no bind parameters, so key values are written as literals: integers and
 * numerics only after checking they are plain numbers, uuids after checking their form, text as a
 * standard string literal (the session sets standard_conforming_strings, so only `'` is special).
 */
import type { PostgresShard, PostgresWatermarkKind } from './spec.ts';

/**
 * Every connection's session, the planner's and the reader's: key literals read as written
 * (standard_conforming_strings: a server set to read `\` in a literal as an escape would take a
 * key `\x41` for `A`, and the planned ranges would overlap or leave rows out), and row-level
 * security off, so that a table whose policies would hide rows from the load's role is an error
 * (SQLSTATE 42501), never a load of the rows the policies show.
 */
export const SESSION_SETUP = "SET standard_conforming_strings = on; SET row_security = off; SET client_encoding = 'UTF8'";

/** A PostgreSQL identifier in double quotes. */
export function quoteIdentifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/** The table as a FROM names it: `ONLY` when the shard reads the table's own rows (PostgresShard.only). */
export function qualifiedTable(shard: Pick<PostgresShard, 'schema' | 'table' | 'only'>): string {
  return `${shard.only === true ? 'ONLY ' : ''}${quoteIdentifier(shard.schema)}.${quoteIdentifier(shard.table)}`;
}

/** A key value as a SQL literal; messages name the column, never the value (a key is a cell of the source). */
export function keyLiteral(column: PostgresShard['key'][number], value: string): string {
  switch (column.kind) {
    case 'integer':
      if (!/^-?\d+$/.test(value)) throw new RangeError(`a value of key column ${column.name} is not an integer`);
      return value;
    case 'numeric':
      if (!/^-?\d+(\.\d+)?$/.test(value)) throw new RangeError(`a value of key column ${column.name} is not a plain number`);
      return value;
    case 'uuid':
      if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(value)) throw new RangeError(`a value of key column ${column.name} is not a uuid`);
      return `'${value}'`;
    case 'text':
      if (value.includes('\0')) throw new RangeError(`a value of key column ${column.name} holds NUL`);
      return `'${value.replaceAll("'", "''")}'`;
  }
}

const WATERMARK_FORMS: Readonly<Record<PostgresWatermarkKind, RegExp>> = {
  integer: /^-?\d{1,19}$/,
  date: /^\d{4}-\d{2}-\d{2}$/,
  timestamp: /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d{6}$/,
  timestamptz: /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d{6}$/,
};

/**
 * A watermark value (its text as incremental.ts writes it) as a literal of the column's type; a
 * timestamptz watermark is the instant's UTC wall clock, so it is read back at UTC, whatever the
 * session's time zone.
 */
export function watermarkLiteral(kind: PostgresWatermarkKind, column: string, value: string): string {
  if (!WATERMARK_FORMS[kind].test(value)) throw new RangeError(`the watermark of column ${column} is not a ${kind} value`);
  switch (kind) {
    case 'integer':
      return value;
    case 'date':
      return `'${value}'::date`;
    case 'timestamp':
      return `'${value}'::timestamp`;
    case 'timestamptz':
      return `('${value}'::timestamp AT TIME ZONE 'UTC')`;
  }
}

/** An incremental shard's bounds: `after < column <= upTo`; no `upTo` reads no row. */
export function watermarkConditions(watermark: NonNullable<PostgresShard['watermark']>): string[] {
  const column = quoteIdentifier(watermark.column);
  const conditions: string[] = [];
  if (watermark.after !== undefined) conditions.push(`${column} > ${watermarkLiteral(watermark.kind, watermark.column, watermark.after)}`);
  conditions.push(watermark.upTo === undefined ? 'FALSE' : `${column} <= ${watermarkLiteral(watermark.kind, watermark.column, watermark.upTo)}`);
  return conditions;
}

/** `(k1, k2) <op> (v1, v2)`: lexicographic over a composite key, in the key columns' own ordering. */
export function keyCondition(key: PostgresShard['key'], values: readonly string[], op: '>' | '>=' | '<'): string {
  if (values.length !== key.length) throw new RangeError(`a key of ${key.length} columns needs ${key.length} values, not ${values.length}`);
  const columns = key.map((k) => quoteIdentifier(k.name)).join(', ');
  const literals = key.map((k, i) => keyLiteral(k, values[i] ?? '')).join(', ');
  return key.length === 1 ? `${columns} ${op} ${literals}` : `(${columns}) ${op} (${literals})`;
}

/**
 * The SELECT that reads a shard's rows in primary-key order: its range, only the rows after `after`
 * when resuming, and an incremental load's watermark bounds.
 */
export function shardSelect(shard: PostgresShard, columns: readonly string[], after?: readonly string[]): string {
  const conditions: string[] = [];
  if (shard.from !== undefined) conditions.push(keyCondition(shard.key, shard.from, '>='));
  if (after !== undefined) conditions.push(keyCondition(shard.key, after, '>'));
  if (shard.to !== undefined) conditions.push(keyCondition(shard.key, shard.to, '<'));
  if (shard.watermark !== undefined) conditions.push(...watermarkConditions(shard.watermark));
  const where = conditions.length === 0 ? '' : ` WHERE ${conditions.join(' AND ')}`;
  const order = shard.key.map((k) => quoteIdentifier(k.name)).join(', ');
  return `SELECT ${columns.map(quoteIdentifier).join(', ')} FROM ${qualifiedTable(shard)}${where} ORDER BY ${order}`;
}

/** The shard's rows as PostgreSQL's binary COPY format (binary.ts decodes it). */
export function shardCopy(select: string): string {
  return `COPY (${select}) TO STDOUT (FORMAT binary)`;
}

/**
 * The first key of the next range after one starting at `from` (the whole table when undefined):
 * the (rows + 1)-th key in key order, found by a keyset walk of the primary-key index that reads
 * `rows + 1` index entries (never OFFSET, which PostgreSQL would count row by row from the start
 * of the table each time). No row comes back when the rest of the table fits in one range.
 */
export function nextCutQuery(shard: Pick<PostgresShard, 'schema' | 'table' | 'key'>, rows: number, from?: readonly string[]): string {
  if (!Number.isSafeInteger(rows) || rows < 1) throw new RangeError('rows must be a positive integer');
  const order = shard.key.map((k) => quoteIdentifier(k.name)).join(', ');
  const where = from === undefined ? '' : ` WHERE ${keyCondition(shard.key, from, '>=')}`;
  const texts = shard.key.map((k) => `${quoteIdentifier(k.name)}::text`).join(', ');
  return (
    `SELECT ${texts} FROM (SELECT ${order}, row_number() OVER (ORDER BY ${order}) AS tributary_row` +
    ` FROM (SELECT ${order} FROM ${qualifiedTable(shard)}${where} ORDER BY ${order} LIMIT ${rows + 1}) AS walked) AS numbered` +
    ` WHERE tributary_row = ${rows + 1}`
  );
}
