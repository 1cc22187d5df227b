/**
 * Plans a MySQL 分库分表 source into exact shards, over one connection:
 *
 *   list (database, table) pairs matching the patterns   information_schema.TABLES
 *   → check each table's columns against the target       information_schema.COLUMNS (types.ts)
 *   → find each table's primary key                       information_schema.STATISTICS
 *     (both read once per database, for all its tables)
 *   → with splitRows, cut each table at every splitRows-th key (keyset, on the primary-key index)
 *   → shards sorted by (database, table, part)
 *
 * The first table whose columns do not match stops the plan with MYSQL_SCHEMA_MISMATCH naming it and
 * the column, before anything is persisted or enqueued.
 */
import { errorFrom, isTributaryError } from '@tributary/protocol';
import type { Connection, RowDataPacket } from 'mysql2/promise';
import { mysqlEndpoint, type MysqlEndpoint, type SourceAccess } from '../access.ts';
import { sourceErrors } from '../errors.ts';
import type { PlanContext, PlannedSourceShard, TargetColumn } from '../source.ts';
import { incrementalShards } from './incremental.ts';
import { isShardSafeName, mysqlShardId, nameMatcher, unmatchedNames, type MysqlShard, type MysqlSourceSpec } from './spec.ts';
import { KeyWalk } from '../key-walk.ts';
import { SESSION_SETUP, chunkEndSelect, keyValueText, nextKeySelect, serverMessage, type SqlFragment } from './sql.ts';
import { incompatibility, keyKind, type MysqlColumn } from './types.ts';

const SYSTEM_SCHEMAS = new Set(['information_schema', 'mysql', 'performance_schema', 'sys']);

interface PhysicalTable {
  readonly database: string;
  readonly table: string;
}

/** A test seam: sees every statement that cuts chunks (tests assert it is a keyset walk). */
export interface PlanObserver {
  readonly onQuery?: (sql: string) => void;
}

/** `access`: where the source's connection name (or, when allowed, its inline credentials) leads. */
/** `incremental`: the planner's history and watermark callback, for a spec with `incremental`. */
export async function planMysqlShards(
  spec: MysqlSourceSpec,
  target: readonly TargetColumn[],
  access: SourceAccess,
  observer: PlanObserver = {},
  incremental?: Pick<PlanContext, 'history' | 'fixWatermark'>,
): Promise<PlannedSourceShard[]> {
  const endpoint = mysqlEndpoint(spec, access);
  const connection = await connect(endpoint);
  try {
    const tables = await listTables(connection, spec);
    const shards: PlannedSourceShard[] = [];
    const catalogs = new Map<string, DatabaseCatalog>();
    for (const database of new Set(tables.map((t) => t.database))) {
      const catalog = await readCatalog(connection, database);
      catalogs.set(database, catalog);
      for (const t of tables.filter((x) => x.database === database)) shards.push(...(await planTable(connection, spec, target, t, catalog, observer)));
    }
    if (spec.incremental === undefined || incremental === undefined) return shards;
    const columnOf = (t: PhysicalTable) => catalogs.get(t.database)?.columns.get(t.table)?.get(spec.incremental?.column ?? '');
    return await incrementalShards(connection, spec.incremental.column, tables, columnOf, shards, incremental);
  } catch (error) {
    throw asPlanError(error, endpoint);
  } finally {
    connection.destroy();
  }
}

export async function connect(endpoint: MysqlEndpoint): Promise<Connection> {
  // Loaded when first used: a process that never plans from MySQL (a coordinator of other sources) does not hold the driver.
  const { createConnection } = await import('mysql2/promise');
  try {
    const connection = await createConnection({
      host: endpoint.host,
      port: endpoint.port,
      user: endpoint.user,
      password: endpoint.password,
      connectTimeout: 10_000,
      supportBigNumbers: true,
      bigNumberStrings: true,
      dateStrings: true,
      rowsAsArray: true,
    });
    await connection.query(SESSION_SETUP);
    return connection;
  } catch (error) {
    throw asPlanError(error, endpoint);
  }
}

export async function listTables(connection: Connection, spec: MysqlSourceSpec): Promise<PhysicalTable[]> {
  const [rows] = await connection.query<RowDataPacket[]>(
    // A MariaDB system-versioned table is a table of rows too (its SELECT reads the current ones).
    "SELECT TABLE_SCHEMA, TABLE_NAME FROM information_schema.TABLES WHERE TABLE_TYPE IN ('BASE TABLE', 'SYSTEM VERSIONED')",
  );
  const database = nameMatcher(spec.databases);
  const table = nameMatcher(spec.tables);
  const found = rows
    .map((r) => ({ database: String(r[0]), table: String(r[1]) }))
    .filter((t) => !SYSTEM_SCHEMAS.has(t.database.toLowerCase()) && database(t.database) && table(t.table))
    .sort((a, b) => compare(a.database, b.database) || compare(a.table, b.table));
  if (found.length === 0) {
    throw errorFrom(sourceErrors, 'MYSQL_SOURCE_INVALID', `no MySQL table matches databases ${JSON.stringify(spec.databases)} and tables ${JSON.stringify(spec.tables)}`);
  }
  const unmatched = [...unmatchedNames('database', spec.databases, found.map((t) => t.database)), ...unmatchedNames('table', spec.tables, found.map((t) => t.table))];
  if (unmatched.length > 0) {
    throw errorFrom(sourceErrors, 'MYSQL_SOURCE_INVALID', `the source lists names no MySQL table matches: ${unmatched.join(', ')} (a listed name must exist; a LIKE pattern may match a subset)`);
  }
  for (const t of found) {
    if (!isShardSafeName(t.database) || !isShardSafeName(t.table)) {
      throw errorFrom(sourceErrors, 'MYSQL_SOURCE_INVALID', `${t.database}.${t.table}: only names of ASCII letters, digits and _ (up to 56) are supported`, { ...t });
    }
  }
  return found;
}

async function planTable(connection: Connection, spec: MysqlSourceSpec, target: readonly TargetColumn[], t: PhysicalTable, catalog: DatabaseCatalog, observer: PlanObserver): Promise<PlannedSourceShard[]> {
  const columns = catalog.columns.get(t.table) ?? new Map<string, MysqlColumn>();
  const read = checkColumns(t, columns, target, spec.columns);
  const key = primaryKey(t, columns, catalog.keys.get(t.table) ?? []);
  const booleans = read.filter((name) => target.find((c) => c.name === name)?.type.root === 'BOOLEAN' && columns.get(name)?.dataType === 'tinyint');
  const base: MysqlShard = { database: t.database, table: t.table, key, ...(booleans.length > 0 ? { booleans } : {}) };
  if (spec.splitRows === undefined) return [{ id: mysqlShardId(t.database, t.table), spec: base }];
  const cuts = await splitPoints(connection, base, spec.splitRows, observer.onQuery);
  return splitRanges(cuts).map((range, part) => ({ id: mysqlShardId(t.database, t.table, part), spec: { ...base, ...range } }));
}

interface DatabaseCatalog {
  /** table → column name → column, in ordinal order. */
  readonly columns: ReadonlyMap<string, ReadonlyMap<string, MysqlColumn>>;
  /** table → primary-key column names, in index order. */
  readonly keys: ReadonlyMap<string, readonly string[]>;
}

/** Every table's columns and primary key in one database: two queries per database, not per table. */
async function readCatalog(connection: Connection, database: string): Promise<DatabaseCatalog> {
  const [columnRows] = await connection.query<RowDataPacket[]>(
    `SELECT TABLE_NAME, COLUMN_NAME, DATA_TYPE, COLUMN_TYPE, NUMERIC_PRECISION, NUMERIC_SCALE, CHARACTER_MAXIMUM_LENGTH, DATETIME_PRECISION
       FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = ? ORDER BY TABLE_NAME, ORDINAL_POSITION`,
    [database],
  );
  const num = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));
  const columns = new Map<string, Map<string, MysqlColumn>>();
  for (const r of columnRows) {
    const table = String(r[0]);
    const column: MysqlColumn = {
      name: String(r[1]),
      dataType: String(r[2]).toLowerCase(),
      columnType: String(r[3]).toLowerCase(),
      numericPrecision: num(r[4]),
      numericScale: num(r[5]),
      characterMaximumLength: num(r[6]),
      datetimePrecision: num(r[7]),
    };
    columns.set(table, (columns.get(table) ?? new Map<string, MysqlColumn>()).set(column.name, column));
  }
  const [keyRows] = await connection.query<RowDataPacket[]>(
    "SELECT TABLE_NAME, COLUMN_NAME FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = ? AND INDEX_NAME = 'PRIMARY' ORDER BY TABLE_NAME, SEQ_IN_INDEX",
    [database],
  );
  const keys = new Map<string, string[]>();
  for (const r of keyRows) keys.set(String(r[0]), [...(keys.get(String(r[0])) ?? []), String(r[1])]);
  return { columns, keys };
}

/**
 * The columns to read, after checking them: without an explicit list, the physical table must have
 * exactly the target's columns; with one, it must have those. Each read column must fit its target
 * column, and a NOT NULL target column must be read.
 */
export function checkColumns(t: PhysicalTable, columns: ReadonlyMap<string, MysqlColumn>, target: readonly TargetColumn[], explicit?: readonly string[]): string[] {
  const read = [...(explicit ?? target.map((c) => c.name))];
  const mismatch = (column: string, why: string): never => {
    throw errorFrom(sourceErrors, 'MYSQL_SCHEMA_MISMATCH', `${t.database}.${t.table}, column ${column}: ${why}`, { ...t, column });
  };
  for (const name of read) {
    const paimon = target.find((c) => c.name === name);
    const mysql = columns.get(name);
    if (paimon === undefined) mismatch(name, 'the target table has no such column');
    else if (mysql === undefined) mismatch(name, 'the MySQL table has no such column');
    else {
      const why = incompatibility(mysql, paimon.type);
      if (why !== undefined) mismatch(name, why);
    }
  }
  if (explicit === undefined) {
    for (const name of columns.keys()) if (!read.includes(name)) mismatch(name, 'the target table has no such column (name the columns to read to skip it)');
  }
  for (const c of target) if (!c.type.nullable && !read.includes(c.name)) mismatch(c.name, 'the target column is NOT NULL but is not read');
  return read;
}

function primaryKey(t: PhysicalTable, columns: ReadonlyMap<string, MysqlColumn>, names: readonly string[]): MysqlShard['key'] {
  if (names.length === 0) {
    throw errorFrom(sourceErrors, 'MYSQL_SOURCE_INVALID', `${t.database}.${t.table} has no primary key: a shard is read in primary-key order`, { ...t });
  }
  return names.map((name) => {
    const column = columns.get(name);
    const kind = column === undefined ? undefined : keyKind(column);
    if (kind === undefined) {
      throw errorFrom(sourceErrors, 'MYSQL_SOURCE_INVALID', `${t.database}.${t.table}: primary-key column ${name} (${column?.columnType ?? '?'}) is not an integer, decimal, string, temporal or binary column`, { ...t, column: name });
    }
    return { name, kind };
  });
}

/**
 * The first key of every splitRows-th row after the first, by a keyset walk of the primary-key
 * index: the last key of the next splitRows rows (chunkEndSelect), then the first key after it
 * (nextKeySelect), which starts the next chunk. Each step reads splitRows index entries on the
 * server and returns one row; no OFFSET, so no step rescans what an earlier one passed.
 */
async function splitPoints(connection: Connection, shard: MysqlShard, splitRows: number, onQuery?: (sql: string) => void): Promise<string[][]> {
  const walk = new KeyWalk(`${shard.database}.${shard.table}`);
  const one = async ({ sql, params }: SqlFragment): Promise<string[] | undefined> => {
    onQuery?.(sql);
    const [rows] = await connection.query<RowDataPacket[]>(sql, [...params]);
    const row = rows[0];
    return row === undefined ? undefined : shard.key.map((_, i) => keyValueText(row[i]));
  };
  for (;;) {
    const end = await one(chunkEndSelect(shard, splitRows, walk.cuts.at(-1)));
    if (end === undefined) return walk.cuts;
    const next = await one(nextKeySelect(shard, end));
    if (next === undefined) return walk.cuts;
    walk.push(next);
  }
}

/** Cut points → consecutive ranges [from, to): the first open below, the last open above. */
export function splitRanges(cuts: readonly (readonly string[])[]): { from?: string[]; to?: string[] }[] {
  return Array.from({ length: cuts.length + 1 }, (_, i) => {
    const from = cuts[i - 1];
    const to = cuts[i];
    return { ...(from === undefined ? {} : { from: [...from] }), ...(to === undefined ? {} : { to: [...to] }) };
  });
}

const UNREACHABLE = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENOTFOUND', 'EPIPE', 'PROTOCOL_CONNECTION_LOST']);

/**
 * mysql2's errors as typed ones, naming the source by its connection (the caller need not learn the
 * host); never with the password (mysql2 does not put it in messages).
 */
export function asPlanError(error: unknown, endpoint: MysqlEndpoint): unknown {
  if (!(error instanceof Error) || isTributaryError(error)) return error;
  const code = 'code' in error && typeof error.code === 'string' ? error.code : 'UNKNOWN';
  const where = `MySQL ${endpoint.label}`;
  if (UNREACHABLE.has(code) || ('fatal' in error && error.fatal === true && !('sqlState' in error && error.sqlState))) {
    return errorFrom(sourceErrors, 'MYSQL_SOURCE_UNAVAILABLE', `${where} failed while planning: ${code}`, { source: endpoint.label, mysqlCode: code }, { cause: error });
  }
  if (error instanceof RangeError) {
    // Ours, not the server's: a key the walk cannot cut by (KeyWalk, sql.ts).
    return errorFrom(sourceErrors, 'MYSQL_SOURCE_INVALID', `${where}: ${error.message}, so the table cannot be split into key ranges (plan it without splitRows)`, { source: endpoint.label }, { cause: error });
  }
  return errorFrom(sourceErrors, 'MYSQL_SOURCE_INVALID', `${where} refused the plan's query: ${code} ${serverMessage(error, code)}`, { source: endpoint.label, mysqlCode: code }, { cause: error });
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
