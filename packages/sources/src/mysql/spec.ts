/**
 * The MySQL 分库分表 source: many databases × many tables with the same columns that together form
 * one logical table. The coordinator lists the matching (database, table) pairs once and plans one
 * shard per physical table, or one per primary-key range of `splitRows` rows (plan.ts); the worker
 * reads a shard in primary-key order (read.ts). What both sides must agree on lives here, pure: the
 * spec, the shard description, the shard ids and name patterns; the SQL is in sql.ts.
 */
import { z } from 'zod';
import { ConnectionName } from '../access.ts';
import { ZeroDatePolicy } from './zero-dates.ts';

/** A LIKE pattern (`shop_%`: `%` any run, `_` one character, `\` escapes) or an exact list. */
const NamePattern = z.union([z.string().min(1), z.array(z.string().min(1)).min(1)]);
export type NamePattern = z.infer<typeof NamePattern>;

export const MysqlSourceSpec = z
  .object({
    kind: z.literal('mysql'),
    /** The name of a connection the operator configured (host, port, user, password) on the coordinator and every worker. */
    connection: ConnectionName.optional(),
    /** Inline credentials, refused unless the operator allows them (they are then stored with the plan and jobs). */
    host: z.string().min(1).optional(),
    port: z.number().int().min(1).max(65_535).optional(),
    user: z.string().min(1).optional(),
    password: z.string().optional(),
    databases: NamePattern,
    tables: NamePattern,
    /** The columns to read (default: the target table's columns, which every physical table must have exactly). */
    columns: z.array(z.string().min(1)).min(1).optional(),
    /** At most this many rows per shard: a bigger table is split into primary-key ranges. */
    splitRows: z.number().int().min(1).optional(),
    /** Rows per batch the worker hands to the writer (the unit of memory). */
    batchRows: z.number().int().min(1).max(1_000_000).default(10_000),
    /** What a zero date (`0000-00-00`, a zero month or day) becomes: refused (default), NULL, or 1970-01-01 (zero-dates.ts). */
    zeroDates: ZeroDatePolicy.default('fail'),
    /** Test hook (refused unless the coordinator runs in test mode): a pause after each batch, so a test can act mid-shard. */
    faults: z.strictObject({ delayMsPerBatch: z.number().int().min(0).max(60_000) }).optional(),
    /**
     * An incremental load: only rows whose `column` (an integer, DATE, DATETIME or TIMESTAMP column
     * of every table) is above the watermark the last load of this source committed, up to its
     * maximum when planned.
     */
    incremental: z.strictObject({ column: z.string().min(1) }).optional(),
  })
  .refine((s) => (s.connection === undefined) !== (s.host === undefined && s.port === undefined && s.user === undefined && s.password === undefined), {
    message: 'name a connection, or give host, user and password, not both',
  });
export type MysqlSourceSpec = z.infer<typeof MysqlSourceSpec>;

/**
 * How a key value is written in SQL and kept in JSON: `number` (integers, DECIMAL) as a validated
 * literal, so a BIGINT is never compared as a double; `string` (CHAR, VARCHAR, DATE, DATETIME) as a
 * bound parameter, compared in the column's collation as ORDER BY sorts it; `bytes` (BINARY,
 * VARBINARY) as hex.
 */
export const MysqlKeyKind = z.enum(['number', 'string', 'bytes']);
export type MysqlKeyKind = z.infer<typeof MysqlKeyKind>;

export const MysqlShard = z.object({
  database: z.string().min(1),
  table: z.string().min(1),
  /** The primary key, in index order: the read order, and what ranges and resume points are made of. */
  key: z.array(z.object({ name: z.string().min(1), kind: MysqlKeyKind })).min(1),
  /** First key of the range (inclusive); absent: from the table's start. */
  from: z.array(z.string()).optional(),
  /** First key after the range (exclusive); absent: to the table's end. */
  to: z.array(z.string()).optional(),
  /** TINYINT columns read as BOOLEAN (0 → false, 1 → true, anything else refused). */
  booleans: z.array(z.string()).optional(),
  /** An incremental load's bounds: rows with `after < column <= upTo` (after absent: from the start; upTo absent: no row). */
  watermark: z.object({ column: z.string().min(1), kind: MysqlKeyKind, after: z.string().optional(), upTo: z.string().optional() }).optional(),
});
export type MysqlShard = z.infer<typeof MysqlShard>;

/**
 * `<database>.<table>`, or `<database>.<table>.p<part>` when split: '.' sorts before every
 * character allowed in a name, so sorting the ids sorts by (database, table, part).
 */
export function mysqlShardId(database: string, table: string, part?: number): string {
  const base = `${database}.${table}`;
  return part === undefined ? base : `${base}.p${String(part).padStart(5, '0')}`;
}

/** The names a shard id can carry: ASCII letters, digits and `_` (ShardId's alphabet, less `.` and `-`). */
export function isShardSafeName(name: string): boolean {
  return /^[A-Za-z0-9_]{1,56}$/.test(name);
}

/**
 * The names of a list (a pattern given as exact names) that nothing planned matched, each with its
 * kind (`database`, `table`…): a misspelt or missing name would otherwise load less with no error.
 * A LIKE pattern may match nothing in a database; a listed name must match somewhere.
 */
export function unmatchedNames(kind: string, pattern: NamePattern, matched: Iterable<string>): string[] {
  if (!Array.isArray(pattern)) return [];
  const seen = new Set(matched);
  return pattern.filter((name) => !seen.has(name)).map((name) => `${kind} ${name}`);
}

/** Matches names against a LIKE pattern (case-sensitive, as database and table names are on Linux) or a list. */
export function nameMatcher(pattern: NamePattern): (name: string) => boolean {
  if (Array.isArray(pattern)) {
    const names = new Set(pattern);
    return (name) => names.has(name);
  }
  const regex = likeRegExp(pattern);
  return (name) => regex.test(name);
}

function likeRegExp(pattern: string): RegExp {
  let source = '';
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i] ?? '';
    if (ch === '\\' && i + 1 < pattern.length) source += escapeRegExp(pattern[++i] ?? '');
    else if (ch === '%') source += '[\\s\\S]*';
    else if (ch === '_') source += '[\\s\\S]';
    else source += escapeRegExp(ch);
  }
  return new RegExp(`^${source}$`, 'u');
}

/** `ch` as a literal in a `u` regular expression (which refuses escapes of other characters, such as `\-`). */
function escapeRegExp(ch: string): string {
  return ch.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

