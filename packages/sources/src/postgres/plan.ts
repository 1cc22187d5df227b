/**
 * Plans a PostgreSQL source into exact shards:
 *
 *   list the server's databases matching the pattern      pg_database (over the connection's own database)
 *   → in each, the (schema, table) pairs matching          pg_class, pg_namespace
 *     (ordinary tables, read with ONLY: an inheritance child is a table of its own; partitioned
 *     tables, read with their partitions, which are not listed themselves)
 *   → check each table's columns against the target       pg_attribute, pg_type (types.ts)
 *   → find each table's primary key                        pg_index
 *   → with splitRows, cut each table at every splitRows-th key (a keyset walk of the primary-key index)
 *   → shards sorted by (database, schema, table, part)
 *
 * A PostgreSQL connection reaches one database, so the plan connects to each matching database in
 * turn. The first table that does not fit stops the plan with POSTGRES_SCHEMA_MISMATCH naming it
 * and the column, before anything is persisted or enqueued.
 */
import { errorFrom, isTributaryError } from '@tributary/protocol';
import type pg from 'pg';
import { postgresEndpoint, type PostgresEndpoint, type SourceAccess } from '../access.ts';
import { sourceErrors } from '../errors.ts';
import { nameMatcher, unmatchedNames } from '../mysql/spec.ts';
import type { PlanContext, PlannedSourceShard, TargetColumn } from '../source.ts';
import { incrementalShards, tableWatermark, type TableWatermark } from './incremental.ts';
import { isShardSafeTriple, postgresShardId, type PostgresShard, type PostgresSourceSpec } from './spec.ts';
import { KeyWalk } from '../key-walk.ts';
import { SESSION_SETUP, nextCutQuery } from './sql.ts';
import { incompatibility, keyKind, type PostgresColumn } from './types.ts';

const SYSTEM_SCHEMAS = /^(pg_catalog|information_schema|pg_toast|pg_temp_\d+|pg_toast_temp_\d+)$/;

interface PhysicalTable {
  readonly database: string;
  readonly schema: string;
  readonly table: string;
}

/** The connection name of the spec (inline credentials were refused by `check`). */
export function specEndpoint(spec: PostgresSourceSpec, access: SourceAccess): PostgresEndpoint {
  if (spec.host !== undefined || spec.port !== undefined || spec.user !== undefined || spec.password !== undefined) {
    throw errorFrom(sourceErrors, 'SOURCE_CREDENTIALS_INLINE', 'a PostgreSQL source names a configured connection; host, port, user and password in a request are refused');
  }
  if (spec.connection === undefined) {
    throw errorFrom(sourceErrors, 'SOURCE_CONNECTION_UNKNOWN', 'a PostgreSQL source must name a configured connection');
  }
  return postgresEndpoint(spec.connection, access);
}

/** `incremental`: the planner's history and watermark callback, for a spec with `incremental`. */
export async function planPostgresShards(
  spec: PostgresSourceSpec,
  target: readonly TargetColumn[],
  access: SourceAccess,
  incremental?: Pick<PlanContext, 'history' | 'fixWatermark'>,
): Promise<PlannedSourceShard[]> {
  const endpoint = specEndpoint(spec, access);
  const databases = await withClient(endpoint, endpoint.database, listDatabases(spec));
  const shards: PlannedSourceShard[] = [];
  const watermarks: (PhysicalTable & TableWatermark)[] = [];
  const planned: PhysicalTable[] = [];
  for (const database of databases) shards.push(...(await withClient(endpoint, database, (client) => planDatabase(client, spec, target, database, watermarks, planned))));
  if (shards.length === 0) {
    throw errorFrom(sourceErrors, 'POSTGRES_SOURCE_INVALID', `no PostgreSQL table matches databases ${JSON.stringify(spec.databases)}, schemas ${JSON.stringify(spec.schemas)} and tables ${JSON.stringify(spec.tables)}`);
  }
  const unmatched = [
    ...unmatchedNames('database', spec.databases, planned.map((t) => t.database)),
    ...unmatchedNames('schema', spec.schemas, planned.map((t) => t.schema)),
    ...unmatchedNames('table', spec.tables, planned.map((t) => t.table)),
  ];
  if (unmatched.length > 0) {
    throw errorFrom(sourceErrors, 'POSTGRES_SOURCE_INVALID', `the source lists names no PostgreSQL table matches: ${unmatched.join(', ')} (a listed name must exist; a LIKE pattern may match a subset)`);
  }
  if (spec.incremental === undefined || incremental === undefined) return shards;
  return await incrementalShards(spec.incremental.column, watermarks, shards, incremental);
}

/** A client of `database`, closed after `work`; pg's errors become typed ones naming the connection. */
export async function withClient<T>(endpoint: PostgresEndpoint, database: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  // Loaded when first used: a process that never plans from PostgreSQL does not hold the driver.
  const { default: driver } = await import('pg');
  const client = new driver.Client({
    host: endpoint.host,
    port: endpoint.port,
    user: endpoint.user,
    password: endpoint.password,
    database,
    connectionTimeoutMillis: 10_000,
    application_name: 'tributary-plan',
  });
  // An error on an idle client (the server going away) is reported here, never thrown at the process.
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query(SESSION_SETUP);
    return await work(client);
  } catch (error) {
    throw asPlanError(error, endpoint, database);
  } finally {
    await client.end().catch(() => undefined);
  }
}

export function listDatabases(spec: PostgresSourceSpec): (client: pg.Client) => Promise<string[]> {
  const matches = nameMatcher(spec.databases);
  return async (client) => {
    const { rows } = await client.query<{ datname: string }>('SELECT datname FROM pg_database WHERE datallowconn AND NOT datistemplate');
    return rows.map((r) => r.datname).filter(matches).sort(compare);
  };
}

/** The database's shards; with `incremental`, each table's watermark column and maximum go into `watermarks`; each table planned into `planned`. */
async function planDatabase(
  client: pg.Client,
  spec: PostgresSourceSpec,
  target: readonly TargetColumn[],
  database: string,
  watermarks: (PhysicalTable & TableWatermark)[],
  planned: PhysicalTable[],
): Promise<PlannedSourceShard[]> {
  const tables = await listTables(client, spec);
  const shards: PlannedSourceShard[] = [];
  for (const r of tables) {
    const t = { database, schema: r.schema, table: r.table };
    planned.push(t);
    // An ordinary table's own rows; a partitioned table's with its partitions.
    const own = r.partitioned ? {} : { only: true as const };
    if (!isShardSafeTriple(t.database, t.schema, t.table)) {
      throw errorFrom(sourceErrors, 'POSTGRES_SOURCE_INVALID', `${t.database}.${t.schema}.${t.table}: only names of ASCII letters, digits and _ are supported (up to 120 characters together)`, { ...t });
    }
    if (r.policed) {
      throw errorFrom(
        sourceErrors,
        'POSTGRES_SOURCE_INVALID',
        `${t.database}.${t.schema}.${t.table}: row-level security applies to the connection's role, so its policies would choose which rows are loaded; read with a role that has BYPASSRLS (or the table's owner, unless the table forces row security)`,
        { ...t },
      );
    }
    const columns = await readColumns(client, Number(r.oid));
    checkColumns(t, columns, target, spec.columns);
    const incremental = spec.incremental?.column;
    if (incremental !== undefined) watermarks.push({ ...t, ...(await tableWatermark(client, { ...t, ...own }, incremental, columns.get(incremental))) });
    const base: PostgresShard = { ...t, ...own, key: primaryKey(t, columns, await readKey(client, Number(r.oid))) };
    if (spec.splitRows === undefined) shards.push({ id: postgresShardId(t.database, t.schema, t.table), spec: base });
    else {
      const cuts = await splitPoints(client, base, spec.splitRows);
      shards.push(...splitRanges(cuts).map((range, part) => ({ id: postgresShardId(t.database, t.schema, t.table, part), spec: { ...base, ...range } })));
    }
  }
  return shards;
}

/**
 * The database's (schema, table) pairs that match the spec, sorted, with their oids. `policed`: the
 * table's row-level security applies to this session's role (enabled, and the role neither a
 * superuser nor BYPASSRLS, nor the owner unless the table forces it: PostgreSQL's own rule), so its
 * policies would choose which rows a read sees.
 */
export async function listTables(client: pg.Client, spec: Pick<PostgresSourceSpec, 'schemas' | 'tables'>): Promise<{ schema: string; table: string; oid: number; partitioned: boolean; policed: boolean }[]> {
  const schemaMatches = nameMatcher(spec.schemas);
  const tableMatches = nameMatcher(spec.tables);
  const { rows } = await client.query<{ schema: string; table: string; oid: number; partitioned: boolean; policed: boolean }>(
    `SELECT n.nspname AS schema, c.relname AS table, c.oid::int8 AS oid, c.relkind = 'p' AS partitioned,
            c.relrowsecurity AND NOT (SELECT r.rolsuper OR r.rolbypassrls FROM pg_roles r WHERE r.rolname = current_user)
              AND (c.relforcerowsecurity OR NOT pg_has_role(c.relowner, 'USAGE')) AS policed
      FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE c.relkind IN ('r', 'p') AND NOT c.relispartition`,
  );
  return rows
    .filter((r) => !SYSTEM_SCHEMAS.test(r.schema) && schemaMatches(r.schema) && tableMatches(r.table))
    .sort((a, b) => compare(a.schema, b.schema) || compare(a.table, b.table));
}

export async function readColumns(client: pg.Client, table: number): Promise<Map<string, PostgresColumn>> {
  const { rows } = await client.query<{ name: string; type_name: string; typtype: string; typcategory: string; typmod: number; type_text: string; enum_length: number | null }>(
    `SELECT a.attname AS name, t.typname AS type_name, t.typtype, t.typcategory, a.atttypmod AS typmod, format_type(a.atttypid, a.atttypmod) AS type_text,
            (SELECT max(char_length(e.enumlabel)) FROM pg_enum e WHERE e.enumtypid = t.oid) AS enum_length
       FROM pg_attribute a JOIN pg_type t ON t.oid = a.atttypid
      WHERE a.attrelid = $1 AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum`,
    [table],
  );
  return new Map(
    rows.map((r) => [
      r.name,
      { name: r.name, typeName: r.type_name, typeKind: r.typtype, category: r.typcategory, typmod: r.typmod, typeText: r.type_text, ...(r.enum_length === null ? {} : { enumLength: r.enum_length }) },
    ]),
  );
}

export async function readKey(client: pg.Client, table: number): Promise<string[]> {
  const { rows } = await client.query<{ name: string }>(
    `SELECT a.attname AS name FROM pg_index i CROSS JOIN LATERAL unnest(i.indkey) WITH ORDINALITY AS k(attnum, position)
       JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum
      WHERE i.indrelid = $1 AND i.indisprimary ORDER BY k.position`,
    [table],
  );
  return rows.map((r) => r.name);
}

/**
 * The columns to read, after checking them: without an explicit list, the physical table must have
 * exactly the target's columns; with one, it must have those. Each read column must fit its target
 * column, and a NOT NULL target column must be read.
 */
export function checkColumns(t: PhysicalTable, columns: ReadonlyMap<string, PostgresColumn>, target: readonly TargetColumn[], explicit?: readonly string[]): string[] {
  const read = [...(explicit ?? target.map((c) => c.name))];
  const mismatch = (column: string, why: string): never => {
    throw errorFrom(sourceErrors, 'POSTGRES_SCHEMA_MISMATCH', `${t.database}.${t.schema}.${t.table}, column ${column}: ${why}`, { ...t, column });
  };
  for (const name of read) {
    const paimon = target.find((c) => c.name === name);
    const column = columns.get(name);
    if (paimon === undefined) mismatch(name, 'the target table has no such column');
    else if (column === undefined) mismatch(name, 'the PostgreSQL table has no such column');
    else {
      const why = incompatibility(column, paimon.type);
      if (why !== undefined) mismatch(name, why);
    }
  }
  if (explicit === undefined) {
    for (const name of columns.keys()) if (!read.includes(name)) mismatch(name, 'the target table has no such column (name the columns to read to skip it)');
  }
  for (const c of target) if (!c.type.nullable && !read.includes(c.name)) mismatch(c.name, 'the target column is NOT NULL but is not read');
  return read;
}

function primaryKey(t: PhysicalTable, columns: ReadonlyMap<string, PostgresColumn>, names: readonly string[]): PostgresShard['key'] {
  if (names.length === 0) {
    throw errorFrom(sourceErrors, 'POSTGRES_SOURCE_INVALID', `${t.database}.${t.schema}.${t.table} has no primary key: a shard is read in primary-key order`, { ...t });
  }
  return names.map((name) => {
    const column = columns.get(name);
    const kind = column === undefined ? undefined : keyKind(column);
    if (kind === undefined) {
      throw errorFrom(
        sourceErrors,
        'POSTGRES_SOURCE_INVALID',
        `${t.database}.${t.schema}.${t.table}: primary-key column ${name} (${column?.typeText ?? '?'}) is not an integer, numeric, text, varchar, char or uuid column`,
        { ...t, column: name },
      );
    }
    return { name, kind };
  });
}

/** The first key of every splitRows-th row after the first: one keyset walk of splitRows + 1 index entries per cut. */
async function splitPoints(client: pg.Client, shard: PostgresShard, splitRows: number): Promise<string[][]> {
  const walk = new KeyWalk(`${shard.database}.${shard.schema}.${shard.table}`);
  for (;;) {
    const { rows } = await client.query<string[]>({ text: nextCutQuery(shard, splitRows, walk.cuts.at(-1)), rowMode: 'array' });
    const row = rows[0];
    if (row === undefined) return walk.cuts;
    walk.push(row.map(String));
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

/** Connection-level failures (the server is away or went away), as opposed to a refused query. */
const UNREACHABLE = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENOTFOUND', 'EPIPE', 'EAI_AGAIN']);
/** SQLSTATE classes of a server that cannot serve now: 08 connection, 53 resources, 57P0x shutdown. */
const UNAVAILABLE_STATES = /^(08|53|57P0)/;

/**
 * pg's errors as typed ones, naming the source by its connection and the database (the caller need
 * not learn the host); never with the password (pg does not put it in messages).
 */
function asPlanError(error: unknown, endpoint: PostgresEndpoint, database: string): unknown {
  if (!(error instanceof Error) || isTributaryError(error)) return error;
  const code = 'code' in error && typeof error.code === 'string' ? error.code : 'UNKNOWN';
  const where = `PostgreSQL ${endpoint.label}, database ${database}`;
  // A socket's error (it has a syscall) names the host and port in its message: never repeated.
  const lost = UNREACHABLE.has(code) || 'syscall' in error || UNAVAILABLE_STATES.test(code) || /Connection terminated|timeout expired/i.test(error.message);
  if (lost) {
    return errorFrom(sourceErrors, 'POSTGRES_SOURCE_UNAVAILABLE', `${where} failed while planning: ${code}`, { source: endpoint.label, database, postgresCode: code }, { cause: error });
  }
  if (error instanceof RangeError) {
    // Ours, not the server's: a key value that cannot be written as a range bound (a numeric NaN or ±Infinity).
    return errorFrom(sourceErrors, 'POSTGRES_SOURCE_INVALID', `${where}: ${error.message}, so the table cannot be split into key ranges (plan it without splitRows)`, { source: endpoint.label, database }, { cause: error });
  }
  // A syntax error (42601) quotes the statement, where key values are written; a data exception (22…) the value.
  const message = code === '42601' || code.startsWith('22') ? "(the server's message, which may quote a value, is not shown)" : error.message;
  return errorFrom(sourceErrors, 'POSTGRES_SOURCE_INVALID', `${where} refused the plan's query: ${code} ${message}`, { source: endpoint.label, database, postgresCode: code }, { cause: error });
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
