/**
 * The SQL that plans and reads a PostgreSQL shard, pure: quoted identifiers, key literals,
 * key-range conditions over the primary key (row comparisons, which PostgreSQL turns into a range
 * scan of the primary-key index), the shard's COPY, and the keyset query that finds split points.
 *
 * COPY (query) takes no bind parameters, so key values are written as literals: integers and
 * numerics only after checking they are plain numbers, uuids after checking their form, text as a
 * standard string literal (the session sets standard_conforming_strings, so only `'` is special).
 */
import type { PostgresShard } from './spec.ts';

/** A PostgreSQL identifier in double quotes. */
export function quoteIdentifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

export function qualifiedTable(shard: Pick<PostgresShard, 'schema' | 'table'>): string {
  return `${quoteIdentifier(shard.schema)}.${quoteIdentifier(shard.table)}`;
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

/** `(k1, k2) <op> (v1, v2)`: lexicographic over a composite key, in the key columns' own ordering. */
export function keyCondition(key: PostgresShard['key'], values: readonly string[], op: '>' | '>=' | '<'): string {
  if (values.length !== key.length) throw new RangeError(`a key of ${key.length} columns needs ${key.length} values, not ${values.length}`);
  const columns = key.map((k) => quoteIdentifier(k.name)).join(', ');
  const literals = key.map((k, i) => keyLiteral(k, values[i] ?? '')).join(', ');
  return key.length === 1 ? `${columns} ${op} ${literals}` : `(${columns}) ${op} (${literals})`;
}

/** The SELECT that reads a shard's rows in primary-key order: its range, and only the rows after `after` when resuming. */
export function shardSelect(shard: PostgresShard, columns: readonly string[], after?: readonly string[]): string {
  const conditions: string[] = [];
  if (shard.from !== undefined) conditions.push(keyCondition(shard.key, shard.from, '>='));
  if (after !== undefined) conditions.push(keyCondition(shard.key, after, '>'));
  if (shard.to !== undefined) conditions.push(keyCondition(shard.key, shard.to, '<'));
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
