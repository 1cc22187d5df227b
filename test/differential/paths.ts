/**
 * The three ways a case's rows get into a Paimon table, and the readers that read it back:
 *
 * - files: the shards staged on MinIO as CSV, NDJSON or Parquet (pyarrow), one file per shard in
 *   plan order, then a real sync (the coordinator and worker processes the sync tests start);
 * - mysql: each shard one physical table of a 分库分表 layout in MariaDB (tables t_0, t_1 in
 *   databases <base>_0, <base>_1, …, which the plan orders as the shards), then a real sync;
 * - java: Paimon Java's batch writer, every shard's rows in plan order in one commit.
 *
 * Readers: Paimon Java, pypaimon and Tributary's own reader, each compared with the model.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Connection } from 'mysql2/promise';
import type { Coordinator, SyncRecord } from '@tributary/coordinator';
import type { ShardAttempt } from '@tributary/protocol';
import { openObjectStore } from '@tributary/table';
import { oraclePaths, paimonJava, pypaimon, readResults, services, type OracleOp, type OracleResult, type OracleRow, type TableDefinition, type TableRef } from '@tributary/testkit';
import { readRows, s3, waitForPhase, type SyncEnv } from '../integration/sync/harness.ts';
import { csvFile, mysqlLiteral, mysqlType, ndjsonFile, parquetWire } from './encode.ts';
import type { PathName } from './carriage.ts';
import { typeString, type Case } from './generator.ts';
import { epochNanos, truncate } from './values.ts';

export const DATABASE = 'diff';
/**
 * A reader may loop for ever on a corrupt table (Paimon Java seeks past the end of a data file that
 * another writer's file of the same name replaced), so every oracle call has a deadline. Generous:
 * a call takes seconds on an idle machine, but the CI machine is shared (a run here at load 35 saw a
 * batch of writes take over 90 s).
 */
const ORACLE_BATCH_MS = 240_000;
const ORACLE_ONE_MS = 180_000;
const parquetScript = fileURLToPath(new URL('./parquet_input.py', import.meta.url));

export interface World {
  readonly e: SyncEnv;
  readonly coordinator: Coordinator;
  readonly mysql: Connection;
}

export function tableDefinition(c: Case): TableDefinition {
  return {
    fields: c.columns.map((col) => ({ name: col.name, type: typeString(col.type) })),
    partitionKeys: c.partitionKeys,
    primaryKeys: c.primaryKeys,
    options: { ...c.options, bucket: String(c.bucket) },
  };
}

async function createTable(w: World, c: Case, table: string): Promise<void> {
  const response = await w.coordinator.app.inject({
    method: 'POST',
    url: '/v1/tables',
    payload: {
      database: DATABASE,
      name: table,
      columns: c.columns.map((col) => ({ name: col.name, type: typeString(col.type) })),
      partitionKeys: c.partitionKeys,
      primaryKeys: c.primaryKeys,
      bucket: c.bucket,
      options: c.options,
    },
  });
  if (response.statusCode !== 201) throw new Error(`create table ${table}: ${response.statusCode} ${response.body}`);
}

async function runSync(w: World, table: string, source: Record<string, unknown>): Promise<SyncRecord> {
  const response = await w.coordinator.app.inject({ method: 'POST', url: '/v1/syncs', payload: { table: { database: DATABASE, table }, source } });
  if (response.statusCode !== 202) throw new Error(`start sync: ${response.statusCode} ${response.body}`);
  const id = response.json<{ id: string }>().id;
  const record = await waitForPhase(() => w.coordinator.syncs.get(id), ['COMMITTED', 'ABORTED'], 180_000);
  if (record.state.phase !== 'COMMITTED') {
    const reason = record.state.phase === 'ABORTED' ? `${record.state.reason.code}: ${record.state.reason.message}` : record.state.phase;
    throw new Error(`the sync did not commit: ${reason}\n${await attemptTrail(w, id)}`);
  }
  return record;
}

/** A failed sync's attempts, shard and bucket, one line each (status and error code: never a value), for triage from a CI log. */
async function attemptTrail(w: World, syncId: string): Promise<string> {
  const line = (stage: string, a: ShardAttempt) =>
    `    ${stage} ${a.shardId} attempt ${a.attemptId}: ${a.status}${a.accepted === true ? ' (accepted)' : ''}${a.error === undefined ? '' : ` ${a.error.code}: ${a.error.message.slice(0, 200)}`}`;
  const [shards, buckets] = await Promise.all([w.coordinator.store.attempts(syncId), w.coordinator.store.bucketAttempts(syncId)]);
  return [`  attempts of sync ${syncId}:`, ...shards.map((a) => line('shard', a)), ...buckets.map((a) => line('bucket', a))].join('\n');
}

// ---- files --------------------------------------------------------------------------------------

export async function loadFromFiles(w: World, c: Case, table: string): Promise<void> {
  await createTable(w, c, table);
  const root = `s3://${services.s3.bucket}/${w.e.prefix}-src/${table}`;
  const store = openObjectStore(root, s3);
  const names = c.shards.map((_, i) => `shard-${String(i).padStart(3, '0')}.${c.format}`);
  if (c.format === 'parquet') {
    const dir = mkdtempSync(join(tmpdir(), 'tributary-differential-'));
    try {
      const files = c.shards.map((rows, i) => ({
        path: join(dir, names[i]!),
        columns: c.columns.map((col) => ({ name: col.name, ...col.type })),
        rows: rows.map((row) => row.map(parquetWire)),
        compression: ['zstd', 'snappy', 'gzip', 'none'][(c.seed + i) % 4],
        row_group_size: c.plan.parquetRowGroup,
        dictionary: (c.seed + i) % 2 === 0,
      }));
      execFileSync(oraclePaths.python, [parquetScript], { input: JSON.stringify({ files }), stdio: ['pipe', 'pipe', 'pipe'] });
      for (const [i, name] of names.entries()) await store.put(name, readFileSync(join(dir, name)));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  } else {
    const encode = c.format === 'csv' ? csvFile : ndjsonFile;
    for (const [i, rows] of c.shards.entries()) await store.put(names[i]!, new TextEncoder().encode(encode(c.columns, rows, c.plan.lineEnd)));
  }
  const uris = names.map((name) => `${root}/${name}`);
  await runSync(w, table, { kind: 'files', format: c.format, uris, filesPerShard: c.plan.filesPerShard });
}

// ---- MySQL --------------------------------------------------------------------------------------

/** The databases a case's shards live in: shard i is table t_(i % 2) of database <base>_(i / 2). */
function mysqlLayout(c: Case, base: string): { database: string; table: string }[] {
  return c.shards.map((_, i) => ({ database: `${base}_${Math.floor(i / 2)}`, table: `t_${i % 2}` }));
}

export async function loadFromMysql(w: World, c: Case, table: string, base: string): Promise<void> {
  await createTable(w, c, table);
  const layout = mysqlLayout(c, base);
  const escape = (s: string) => w.mysql.escape(s);
  const columns = c.columns.map((col) => `\`${col.name}\` ${mysqlType(col.type)}`).join(', ');
  try {
    for (const [i, rows] of c.shards.entries()) {
      const { database, table: physical } = layout[i]!;
      await w.mysql.query(`CREATE DATABASE IF NOT EXISTS \`${database}\` CHARACTER SET utf8mb4`);
      // _pos keeps the shard's row order: the source reads a table in primary-key order.
      await w.mysql.query(`CREATE TABLE \`${database}\`.\`${physical}\` (_pos BIGINT NOT NULL PRIMARY KEY, ${columns})`);
      for (let from = 0; from < rows.length; from += 100) {
        const values = rows.slice(from, from + 100).map((row, j) => `(${[String(from + j), ...c.columns.map((col, k) => mysqlLiteral(row[k] ?? null, col.type, escape))].join(', ')})`);
        await w.mysql.query(`INSERT INTO \`${database}\`.\`${physical}\` VALUES ${values.join(', ')}`);
      }
    }
    const source = {
      kind: 'mysql',
      connection: 'mariadb',
      databases: [...new Set(layout.map((l) => l.database))],
      tables: 't\\_%',
      columns: c.columns.map((col) => col.name),
      batchRows: c.plan.mysqlBatchRows,
      ...(c.plan.mysqlSplitRows === undefined ? {} : { splitRows: c.plan.mysqlSplitRows }),
    };
    await runSync(w, table, source);
  } finally {
    for (const database of new Set(layout.map((l) => l.database))) await w.mysql.query(`DROP DATABASE IF EXISTS \`${database}\``);
  }
}

// ---- Paimon Java's writer -----------------------------------------------------------------------

export async function writeWithJava(w: World, c: Case, table: string): Promise<void> {
  const ref = tableRef(w, table);
  await paimonJava.batch(
    [
      { op: 'create', ...ref, ...tableDefinition(c) },
      { op: 'write', ...ref, rows: c.shards.flat() },
    ],
    { timeoutMs: ORACLE_BATCH_MS },
  );
}

// ---- readers ------------------------------------------------------------------------------------

export type ReaderName = 'paimon-java' | 'pypaimon' | 'tributary';

export function tableRef(w: World, table: string): TableRef {
  return { warehouse: w.e.warehouse, database: DATABASE, table };
}

export interface PathOutcome {
  /** Why the write (the sync, or Java's commit) failed. */
  readonly writeError?: Error;
  /** Each reader's rows of the table, or the error it gave. */
  readonly reads?: Readonly<Record<ReaderName, OracleRow[] | Error>>;
}

const asError = (error: unknown): Error => (error instanceof Error ? error : new Error(String(error)));

/**
 * Runs a case's paths: the writes side by side (two syncs and a Java commit), then each reader
 * once over every table written (a JVM or Python start costs seconds), falling back to one process
 * per table when a reader fails, so that a table no reader can open does not hide the others.
 */
export async function runCase(w: World, c: Case, tables: Readonly<Record<PathName, string>>, mysqlBase: string): Promise<Partial<Record<PathName, PathOutcome>>> {
  const load = (path: PathName): Promise<void> =>
    path === 'files' ? loadFromFiles(w, c, tables.files) : path === 'mysql' ? loadFromMysql(w, c, tables.mysql, mysqlBase) : writeWithJava(w, c, tables.java);
  const written = await Promise.all(c.paths.map((path) => load(path).then(() => undefined, asError)));
  const readable = c.paths.filter((_, i) => written[i] === undefined);
  const refs = readable.map((path) => tableRef(w, tables[path]));
  const [java, py, ours] = await Promise.all([
    readEach(refs, (ops, timeoutMs) => paimonJava.batch(ops, { timeoutMs })),
    readEach(refs, (ops, timeoutMs) => pypaimon.batch(ops, { timeoutMs })),
    Promise.all(readable.map((path) => withDeadline(readRows(w.e, DATABASE, tables[path]), ORACLE_ONE_MS).then((rows) => rows as OracleRow[], asError))),
  ]);
  const outcome: Partial<Record<PathName, PathOutcome>> = {};
  c.paths.forEach((path, i) => {
    const writeError = written[i];
    if (writeError !== undefined) outcome[path] = { writeError };
  });
  readable.forEach((path, i) => {
    outcome[path] = { reads: { 'paimon-java': java[i]!, pypaimon: py[i]!, tributary: ours[i]! } };
  });
  return outcome;
}

function withDeadline<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer after ${ms} ms`)), ms);
  });
  return Promise.race([promise, deadline]).finally(() => clearTimeout(timer));
}

type Batch = (ops: OracleOp[], timeoutMs: number) => Promise<OracleResult[]>;

async function readEach(refs: readonly TableRef[], batch: Batch): Promise<(OracleRow[] | Error)[]> {
  if (refs.length === 0) return [];
  try {
    return readResults(await batch(refs.map((ref) => ({ op: 'read' as const, ...ref })), ORACLE_BATCH_MS)).map((r) => r.rows);
  } catch {
    // One process per table, side by side: a table that makes a reader hang costs one deadline.
    return Promise.all(refs.map((ref) => batch([{ op: 'read', ...ref }], ORACLE_ONE_MS).then((r) => readResults(r)[0]!.rows, asError)));
  }
}

/**
 * pypaimon 2.1.0 drops the nanoseconds of TIMESTAMP(7..9) when it merges a primary-key bucket
 * (test/compat/README.md); for that reader those columns compare at microseconds on both sides.
 */
export function forReader(reader: ReaderName, c: Case, rows: readonly OracleRow[]): OracleRow[] {
  if (reader !== 'pypaimon' || c.primaryKeys.length === 0) return [...rows];
  const nanos = c.columns.map((col) => (col.type.root === 'TIMESTAMP' || col.type.root === 'TIMESTAMP_LTZ') && (col.type.precision ?? 0) > 6);
  if (!nanos.includes(true)) return [...rows];
  return rows.map((row) => row.map((v, i) => (nanos[i] && v !== null && typeof v === 'object' && !(v instanceof Uint8Array) ? truncate(epochNanos(v), 6) : v)));
}
