/**
 * The SQL that plans and reads a MySQL shard, pure: quoted identifiers, key-range conditions that
 * use the primary-key index, the shard's SELECT, and the text form a key value is carried in.
 */
import type { MysqlShard } from './spec.ts';

/**
 * Every connection's session: UTC (TIMESTAMP columns arrive as their UTC wall clock), and a
 * sql_mode without NO_BACKSLASH_ESCAPES. The driver writes a string parameter (a key value, a
 * watermark) into the statement with backslash escapes; a server whose mode reads a backslash as
 * itself would take `a\\b` for another value than the one planned (key ranges that overlap or
 * leave rows out, or a statement that does not parse). The other modes are kept.
 */
export const SESSION_SETUP =
  "SET time_zone = '+00:00', SESSION sql_mode = TRIM(BOTH ',' FROM REPLACE(CONCAT(',', @@SESSION.sql_mode, ','), ',NO_BACKSLASH_ESCAPES,', ','))";

/**
 * A server error's message, unless it may quote the statement or a value: a parse error quotes the
 * statement (where key values are written), a data error (SQLSTATE class 22) the value. Those are
 * named by their code only: messages never carry a cell of the source.
 */
export function serverMessage(error: Error, code: string): string {
  const state = 'sqlState' in error && typeof error.sqlState === 'string' ? error.sqlState : '';
  return code === 'ER_PARSE_ERROR' || state.startsWith('22') ? `(SQLSTATE ${state || 'unknown'}; the server's message, which may quote a value, is not shown)` : error.message;
}

/** A MySQL identifier in backquotes. */
export function quoteIdentifier(name: string): string {
  return `\`${name.replaceAll('`', '``')}\``;
}

export interface SqlFragment {
  readonly sql: string;
  readonly params: readonly string[];
}

/**
 * `key <op> values` in lexicographic order over a composite key, written as ORs of equalities so
 * that MySQL and MariaDB use the primary-key index (a row constructor `(a, b) > (?, ?)` is not a
 * range scan on every version).
 */
export function keyCondition(key: MysqlShard['key'], values: readonly string[], op: '>' | '>=' | '<'): SqlFragment {
  if (values.length !== key.length) throw new RangeError(`a key of ${key.length} columns needs ${key.length} values, not ${values.length}`);
  const strict = op === '>=' ? '>' : op;
  const alternatives: SqlFragment[] = key.map((_, i) => {
    const parts = key.slice(0, i + 1).map((column, j) => {
      const last = j === i;
      const operator = !last ? '=' : i === key.length - 1 ? op : strict;
      return literal(column, values[j] ?? '', operator);
    });
    return { sql: parts.map((p) => p.sql).join(' AND '), params: parts.flatMap((p) => p.params) };
  });
  return {
    sql: alternatives.length === 1 ? (alternatives[0]?.sql ?? '') : alternatives.map((a) => `(${a.sql})`).join(' OR '),
    params: alternatives.flatMap((a) => a.params),
  };
}

function literal(column: MysqlShard['key'][number], value: string, operator: string): SqlFragment {
  const name = quoteIdentifier(column.name);
  switch (column.kind) {
    case 'number':
      // Messages name the column, never the value (a key is a cell of the source).
      if (!/^-?\d+(\.\d+)?$/.test(value)) throw new RangeError(`a value of key column ${column.name} is not a number`);
      return { sql: `${name} ${operator} ${value}`, params: [] };
    case 'bytes':
      if (!/^([0-9a-f]{2})*$/.test(value)) throw new RangeError(`a value of key column ${column.name} is not hex`);
      return { sql: `${name} ${operator} X'${value}'`, params: [] };
    case 'string':
      return { sql: `${name} ${operator} ?`, params: [value] };
  }
}

/**
 * The query that reads a shard's rows in primary-key order: its range, and only the rows after
 * `after` (the key of the last row already read) when resuming.
 */
export function shardSelect(shard: MysqlShard, columns: readonly string[], after?: readonly string[]): SqlFragment {
  const conditions: SqlFragment[] = [];
  if (shard.from !== undefined) conditions.push(keyCondition(shard.key, shard.from, '>='));
  if (after !== undefined) conditions.push(keyCondition(shard.key, after, '>'));
  if (shard.to !== undefined) conditions.push(keyCondition(shard.key, shard.to, '<'));
  const w = shard.watermark;
  if (w !== undefined) {
    const column = { name: w.column, kind: w.kind };
    if (w.after !== undefined) conditions.push(literal(column, w.after, '>'));
    conditions.push(w.upTo === undefined ? { sql: 'FALSE', params: [] } : literal(column, w.upTo, '<='));
  }
  const where = conditions.length === 0 ? '' : ` WHERE ${conditions.map((c) => `(${c.sql})`).join(' AND ')}`;
  const order = shard.key.map((k) => quoteIdentifier(k.name)).join(', ');
  return {
    sql: `SELECT ${columns.map(quoteIdentifier).join(', ')} FROM ${tableName(shard)}${where} ORDER BY ${order}`,
    params: conditions.flatMap((c) => c.params),
  };
}

/**
 * The last key of the `rows` rows from `from` on (inclusive; from the table's start without it): the
 * end of a chunk, found by a keyset walk of the primary-key index (`WHERE key >= ? ORDER BY key
 * LIMIT n` inside, its greatest key outside). The server counts the rows; one row comes back; never
 * an OFFSET.
 */
export function chunkEndSelect(shard: Pick<MysqlShard, 'database' | 'table' | 'key'>, rows: number, from?: readonly string[]): SqlFragment {
  if (!Number.isSafeInteger(rows) || rows < 1) throw new RangeError('a chunk has at least one row');
  const keys = shard.key.map((k) => quoteIdentifier(k.name));
  const where = from === undefined ? undefined : keyCondition(shard.key, from, '>=');
  const inner = `SELECT ${keys.join(', ')} FROM ${tableName(shard)}${where === undefined ? '' : ` WHERE ${where.sql}`} ORDER BY ${keys.join(', ')} LIMIT ${rows}`;
  return { sql: `SELECT ${keys.join(', ')} FROM (${inner}) AS chunk ORDER BY ${keys.map((k) => `${k} DESC`).join(', ')} LIMIT 1`, params: [...(where?.params ?? [])] };
}

/** The first key after `after`: where the next chunk starts (one index seek). */
export function nextKeySelect(shard: Pick<MysqlShard, 'database' | 'table' | 'key'>, after: readonly string[]): SqlFragment {
  const keys = shard.key.map((k) => quoteIdentifier(k.name)).join(', ');
  const where = keyCondition(shard.key, after, '>');
  return { sql: `SELECT ${keys} FROM ${tableName(shard)} WHERE ${where.sql} ORDER BY ${keys} LIMIT 1`, params: [...where.params] };
}

function tableName(shard: Pick<MysqlShard, 'database' | 'table'>): string {
  return `${quoteIdentifier(shard.database)}.${quoteIdentifier(shard.table)}`;
}

/** The text form of a key value as MySQL returned it (strings as they are, bytes as hex). */
export function keyValueText(value: unknown): string {
  if (value instanceof Uint8Array) return Buffer.from(value).toString('hex');
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'bigint') return String(value);
  throw new RangeError(`a primary-key value cannot be ${value === null ? 'NULL' : typeof value}`);
}
