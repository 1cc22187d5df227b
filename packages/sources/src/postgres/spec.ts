/**
 * The PostgreSQL source: many databases × schemas × tables with the same columns that together
 * form one logical table. The coordinator lists the matching (database, schema, table) triples once
 * and plans one shard per physical table, or one per primary-key range of `splitRows` rows
 * (plan.ts); the worker reads a shard in primary-key order in one REPEATABLE READ snapshot
 * (source.ts). What both sides must agree on lives here, pure: the spec, the shard description and
 * the shard ids. Name patterns are MySQL's (a LIKE pattern or a list).
 */
import { z } from 'zod';
import { ConnectionName } from '../access.ts';
import { isShardSafeName } from '../mysql/spec.ts';

/** A LIKE pattern (`shop_%`: `%` any run, `_` one character, `\` escapes) or an exact list. */
const NamePattern = z.union([z.string().min(1), z.array(z.string().min(1)).min(1)]);

export const PostgresSourceSpec = z.object({
  kind: z.literal('postgres'),
  /** The name of a connection the operator configured (host, port, user, password) on the coordinator and every worker. */
  connection: ConnectionName.optional(),
  /** Inline credentials are never accepted for PostgreSQL; they are here only to be refused by name (SOURCE_CREDENTIALS_INLINE). */
  host: z.string().optional(),
  port: z.number().optional(),
  user: z.string().optional(),
  password: z.string().optional(),
  databases: NamePattern,
  /** Schemas in each database (default `public`). */
  schemas: NamePattern.default('public'),
  tables: NamePattern,
  /** The columns to read (default: the target table's columns, which every physical table must have exactly). */
  columns: z.array(z.string().min(1)).min(1).optional(),
  /** At most this many rows per shard: a bigger table is split into primary-key ranges. */
  splitRows: z.number().int().min(1).optional(),
  /** Rows per batch the worker hands to the writer (the unit of memory). */
  batchRows: z.number().int().min(1).max(1_000_000).default(10_000),
  /**
   * An incremental load: only rows whose `column` (an int2/int4/int8, date, timestamp or timestamptz
   * column of every table) is above the watermark the last load of this source committed, up to its
   * maximum when planned (incremental.ts).
   */
  incremental: z.strictObject({ column: z.string().min(1) }).optional(),
});
export type PostgresSourceSpec = z.infer<typeof PostgresSourceSpec>;

/**
 * How a primary-key value is written in SQL and carried in JSON, always as its PostgreSQL text:
 * `integer` (int2/4/8) and `numeric` as a validated literal; `text` (text, varchar, bpchar) as a
 * quoted literal compared in the column's collation, as ORDER BY sorts it; `uuid` as a validated
 * literal.
 */
export const PostgresKeyKind = z.enum(['integer', 'numeric', 'text', 'uuid']);
export type PostgresKeyKind = z.infer<typeof PostgresKeyKind>;

/**
 * An incremental column's kind, which says how its watermark is written: `integer` as its decimal
 * text; `date` as `YYYY-MM-DD`; `timestamp` as `YYYY-MM-DD HH:MM:SS.ffffff` (the wall clock);
 * `timestamptz` the same, the instant's UTC wall clock. Fixed width, so text order is value order.
 */
export const PostgresWatermarkKind = z.enum(['integer', 'date', 'timestamp', 'timestamptz']);
export type PostgresWatermarkKind = z.infer<typeof PostgresWatermarkKind>;

export const PostgresShard = z.object({
  database: z.string().min(1),
  schema: z.string().min(1),
  table: z.string().min(1),
  /**
   * The table's own rows only (`FROM ONLY`): an ordinary table, whose inheritance children
   * (`INHERITS`) are tables of their own that the source's patterns match or not. Absent for a
   * partitioned table, read with its partitions (and for plans made before this field).
   */
  only: z.literal(true).optional(),
  /** The primary key, in index order: the read order, and what ranges and resume points are made of. */
  key: z.array(z.object({ name: z.string().min(1), kind: PostgresKeyKind })).min(1),
  /** First key of the range (inclusive); absent: from the table's start. */
  from: z.array(z.string()).optional(),
  /** First key after the range (exclusive); absent: to the table's end. */
  to: z.array(z.string()).optional(),
  /** An incremental load's bounds: rows with `after < column <= upTo` (after absent: from the start; upTo absent: no row). */
  watermark: z.object({ column: z.string().min(1), kind: PostgresWatermarkKind, after: z.string().optional(), upTo: z.string().optional() }).optional(),
});
export type PostgresShard = z.infer<typeof PostgresShard>;

/** `<database>.<schema>.<table>`, or `….p<part>` when split: sorting the ids sorts by (database, schema, table, part). */
export function postgresShardId(database: string, schema: string, table: string, part?: number): string {
  const base = `${database}.${schema}.${table}`;
  return part === undefined ? base : `${base}.p${String(part).padStart(5, '0')}`;
}

/** Whether three names make a shard id (with room for a part suffix) within ShardId's 128 characters. */
export function isShardSafeTriple(database: string, schema: string, table: string): boolean {
  return isShardSafeName(database) && isShardSafeName(schema) && isShardSafeName(table) && postgresShardId(database, schema, table, 0).length <= 128;
}
