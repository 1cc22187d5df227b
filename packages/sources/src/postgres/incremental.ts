/**
 * An incremental PostgreSQL load's bounds, fixed at plan time, as for MySQL (mysql/incremental.ts):
 * the column must be an int2/int4/int8, date, timestamp or timestamptz column of every physical
 * table, of one kind across them. The load reads rows with `after < column <= upTo`: `after` is the
 * watermark the last committed load of the same source left (none: from the start), `upTo` the
 * column's maximum over every table when planned, so a row written after the plan with a higher
 * value waits for the next load. Rows whose column is NULL are never loaded incrementally. The
 * committed watermark is `max(after, upTo)`; a source whose maximum is not above `after` loads
 * nothing and keeps `after`.
 *
 * Watermarks are text of a fixed width (spec.ts, `PostgresWatermarkKind`), written by the server
 * itself (`to_char`, a timestamptz at UTC), so text order is value order and the session's time
 * zone never matters. A maximum outside what that text can say (`infinity`, a year before 1 AD or
 * after 9999) is refused at plan time, naming the table and the column.
 */
import { errorFrom } from '@tributary/protocol';
import type pg from 'pg';
import { sourceErrors } from '../errors.ts';
import type { PlanContext, PlannedSourceShard } from '../source.ts';
import type { PostgresShard, PostgresWatermarkKind } from './spec.ts';
import { qualifiedTable, quoteIdentifier } from './sql.ts';
import type { PostgresColumn } from './types.ts';

const KINDS: Readonly<Record<string, PostgresWatermarkKind>> = { int2: 'integer', int4: 'integer', int8: 'integer', date: 'date', timestamp: 'timestamp', timestamptz: 'timestamptz' };

interface PhysicalTable {
  readonly database: string;
  readonly schema: string;
  readonly table: string;
  /** Its own rows only (PostgresShard.only): an ordinary table, not a partitioned one. */
  readonly only?: true;
}

/** One table's incremental column: its kind and its maximum when planned (null: no row has a value). */
export interface TableWatermark {
  readonly kind: PostgresWatermarkKind;
  readonly max: string | null;
}

/** The watermark kind of an incremental column, or undefined when it cannot be one. */
export function watermarkKind(column: PostgresColumn | undefined): PostgresWatermarkKind | undefined {
  return column === undefined || column.typeKind !== 'b' ? undefined : KINDS[column.typeName];
}

/** The larger of two watermark values of one kind (null: none). */
export function laterWatermark(kind: PostgresWatermarkKind, a: string | null, b: string | null): string | null {
  if (a === null) return b;
  if (b === null) return a;
  if (kind === 'integer') return BigInt(a) >= BigInt(b) ? a : b;
  return a >= b ? a : b;
}

/** The server's text of the column's maximum, in the watermark's fixed-width form (`AD`/`BC` kept to be checked). */
function maxQuery(t: PhysicalTable, column: string, kind: PostgresWatermarkKind): string {
  const c = `max(${quoteIdentifier(column)})`;
  const text =
    kind === 'integer'
      ? `${c}::text`
      : kind === 'date'
        ? `to_char(${c}, 'YYYY-MM-DD BC')`
        : kind === 'timestamp'
          ? `to_char(${c}, 'YYYY-MM-DD HH24:MI:SS.US BC')`
          : `to_char(${c} AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS.US BC')`;
  return `SELECT ${c} IS NOT NULL AS present, ${text} AS max FROM ${qualifiedTable(t)}`;
}

const FORMS: Readonly<Record<PostgresWatermarkKind, RegExp>> = {
  integer: /^-?\d{1,19}$/,
  date: /^(\d{4}-\d{2}-\d{2}) AD$/,
  timestamp: /^(\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d{6}) AD$/,
  timestamptz: /^(\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d{6}) AD$/,
};

/** Checks the table's incremental column and reads its maximum (planning, on the table's database). */
export async function tableWatermark(client: pg.Client, t: PhysicalTable, column: string, found: PostgresColumn | undefined): Promise<TableWatermark> {
  const refuse = (why: string): never => {
    throw errorFrom(sourceErrors, 'POSTGRES_SCHEMA_MISMATCH', `${t.database}.${t.schema}.${t.table}, column ${column}: ${why}`, { ...t, column });
  };
  const kind = watermarkKind(found);
  if (kind === undefined) return refuse('an incremental column must be an int2, int4, int8, date, timestamp or timestamptz column of every table');
  const { rows } = await client.query<{ present: boolean; max: string | null }>(maxQuery(t, column, kind));
  const row = rows[0];
  if (row === undefined || !row.present) return { kind, max: null };
  const match = row.max === null ? null : FORMS[kind].exec(row.max);
  if (match === null) return refuse(`its maximum is outside what a watermark holds (infinity, or a year outside 1–9999)`);
  return { kind, max: match[1] ?? match[0] };
}

/** The shards with the load's bounds, after telling the planner the watermark it commits. */
export async function incrementalShards(
  column: string,
  tables: readonly (PhysicalTable & TableWatermark)[],
  shards: readonly PlannedSourceShard[],
  ctx: Pick<PlanContext, 'history' | 'fixWatermark'>,
): Promise<PlannedSourceShard[]> {
  let kind: PostgresWatermarkKind | undefined;
  let upTo: string | null = null;
  for (const t of tables) {
    if (kind !== undefined && t.kind !== kind) {
      throw errorFrom(sourceErrors, 'POSTGRES_SCHEMA_MISMATCH', `${t.database}.${t.schema}.${t.table}, column ${column}: an incremental column must have one kind (${kind}) in every table, not ${t.kind}`, {
        database: t.database,
        schema: t.schema,
        table: t.table,
        column,
      });
    }
    kind = t.kind;
    upTo = laterWatermark(t.kind, upTo, t.max);
  }
  if (kind === undefined) return [...shards];
  const after = await ctx.history.watermark(column);
  if (after !== null && !FORMS[kind].test(kind === 'integer' ? after : `${after} AD`)) {
    // Only a load of this very source (its identity) wrote it, so this is a table changed in between.
    throw errorFrom(sourceErrors, 'POSTGRES_SCHEMA_MISMATCH', `column ${column}: the last committed watermark is not a ${kind} value (the column's type changed since)`, { column });
  }
  const committed = laterWatermark(kind, after, upTo);
  ctx.fixWatermark({ column, after, upTo: committed });
  // Nothing above `after`: every shard reads no row (upTo absent).
  const bound = committed === null || committed === after ? undefined : committed;
  const watermark: NonNullable<PostgresShard['watermark']> = { column, kind, ...(after === null ? {} : { after }), ...(bound === undefined ? {} : { upTo: bound }) };
  return shards.map((s) => ({ id: s.id, spec: { ...s.spec, watermark } }));
}
