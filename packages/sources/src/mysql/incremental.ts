/**
 * An incremental MySQL load's bounds, fixed at plan time. The column must be an integer, DATE,
 * DATETIME or TIMESTAMP column of every physical table. The load reads rows with
 * `after < column <= upTo`: `after` is the watermark the last committed load of the same source
 * left (none: from the start), `upTo` the column's maximum over every table when planned, so a row
 * written after the plan with a higher value waits for the next load. Rows whose column is NULL are
 * never loaded incrementally. The committed watermark is `max(after, upTo)`; a source whose maximum
 * is not above `after` loads nothing and keeps `after`.
 */
import { errorFrom } from '@tributary/protocol';
import type { Connection, RowDataPacket } from 'mysql2/promise';
import { sourceErrors } from '../errors.ts';
import type { PlanContext, PlannedSourceShard } from '../source.ts';
import type { MysqlKeyKind, MysqlShard } from './spec.ts';
import { quoteIdentifier } from './sql.ts';
import type { MysqlColumn } from './types.ts';

const INTEGER_TYPES = new Set(['tinyint', 'smallint', 'mediumint', 'int', 'bigint']);
const TEMPORAL_TYPES = new Set(['date', 'datetime', 'timestamp']);

interface PhysicalTable {
  readonly database: string;
  readonly table: string;
}

/** The watermark column's kind: integers compare as numbers, temporal text in its fixed-width form. */
export function watermarkKind(column: MysqlColumn | undefined): MysqlKeyKind | undefined {
  if (column === undefined) return undefined;
  if (INTEGER_TYPES.has(column.dataType)) return 'number';
  if (TEMPORAL_TYPES.has(column.dataType)) return 'string';
  return undefined;
}

/** The larger of two watermark values of one kind (null: none). */
export function laterWatermark(kind: MysqlKeyKind, a: string | null, b: string | null): string | null {
  if (a === null) return b;
  if (b === null) return a;
  if (kind === 'number') return BigInt(a) >= BigInt(b) ? a : b;
  return a >= b ? a : b; // DATE / DATETIME / TIMESTAMP text: fixed width, so text order is time order
}

export async function incrementalShards(
  connection: Connection,
  column: string,
  tables: readonly PhysicalTable[],
  columnOf: (t: PhysicalTable) => MysqlColumn | undefined,
  shards: readonly PlannedSourceShard[],
  ctx: Pick<PlanContext, 'history' | 'fixWatermark'>,
): Promise<PlannedSourceShard[]> {
  let kind: MysqlKeyKind | undefined;
  let upTo: string | null = null;
  for (const t of tables) {
    const found = watermarkKind(columnOf(t));
    if (found === undefined || (kind !== undefined && found !== kind)) {
      throw errorFrom(sourceErrors, 'MYSQL_SCHEMA_MISMATCH', `${t.database}.${t.table}, column ${column}: an incremental column must be an integer, DATE, DATETIME or TIMESTAMP column of every table`, {
        ...t,
        column,
      });
    }
    kind = found;
    const [rows] = await connection.query<RowDataPacket[]>(`SELECT MAX(${quoteIdentifier(column)}) FROM ${quoteIdentifier(t.database)}.${quoteIdentifier(t.table)}`);
    const max = rows[0]?.[0];
    upTo = laterWatermark(found, upTo, max === null || max === undefined ? null : String(max));
  }
  if (kind === undefined) return [...shards];
  const after = await ctx.history.watermark(column);
  const committed = laterWatermark(kind, after, upTo);
  ctx.fixWatermark({ column, after, upTo: committed });
  // Nothing above `after`: every shard reads no row (upTo absent).
  const bound = committed === null || committed === after ? undefined : committed;
  const watermark: NonNullable<MysqlShard['watermark']> = { column, kind, ...(after === null ? {} : { after }), ...(bound === undefined ? {} : { upTo: bound }) };
  return shards.map((s) => ({ id: s.id, spec: { ...s.spec, watermark } }));
}
