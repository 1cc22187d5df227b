/**
 * The compatibility oracles: pypaimon and Paimon Java, driven as child processes, so compat tests
 * can have the reference implementations write tables that Tributary reads and read tables that
 * Tributary writes. `bash infra/oracles.sh` installs both (a venv under .cache/venv, a jar under
 * test/compat/java/target).
 *
 * Both drivers (test/compat/python/oracle.py, test/compat/java) take and print the same JSON; this
 * module turns rows into that JSON and back into Tributary's in-memory values
 * (packages/table/src/spec/types.ts), so the three implementations' rows compare with
 * `deepStrictEqual` after `canonicalRows`:
 *
 *   BOOLEAN boolean; TINYINT, SMALLINT, INT, DATE (epoch days), TIME (ms of day) number;
 *   BIGINT bigint; DECIMAL bigint, the unscaled value; FLOAT, DOUBLE number;
 *   CHAR, VARCHAR, STRING string; BINARY, VARBINARY, BYTES Uint8Array;
 *   TIMESTAMP, TIMESTAMP_LTZ { epochMillis, nanoOfMillis }; null.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { services } from './services.ts';

const root = fileURLToPath(new URL('../../../', import.meta.url));

export const oraclePaths = {
  python: `${root}.cache/venv/bin/python`,
  pythonDriver: `${root}test/compat/python/oracle.py`,
  // TRIBUTARY_PAIMON_ORACLE_JAR: a runner built from changed driver sources elsewhere (e.g. a
  // branch's copy) until infra/oracles.sh rebuilds the shared one; it runs without the class archive.
  javaJar: process.env['TRIBUTARY_PAIMON_ORACLE_JAR'] ?? `${root}test/compat/java/target/paimon-oracle.jar`,
  javaClassArchive: process.env['TRIBUTARY_PAIMON_ORACLE_JAR'] === undefined ? `${root}test/compat/java/target/paimon-oracle.jsa` : '',
} as const;

/** Same shape as Tributary's Timestamp (org.apache.paimon.data.Timestamp). */
export interface OracleTimestamp {
  readonly epochMillis: number;
  readonly nanoOfMillis: number;
}

/** Same shape as Tributary's InternalValue. */
export type OracleValue = boolean | number | bigint | string | Uint8Array | OracleTimestamp | null;
export type OracleRow = readonly OracleValue[];

/** Paimon's RowKind short strings; only Paimon Java writes kinds other than +I. */
export type RowKindShort = '+I' | '-U' | '+U' | '-D';

/** A field with its Paimon type string as the schema file spells it: 'DECIMAL(18, 2)', 'INT NOT NULL'. */
export interface OracleField {
  readonly name: string;
  readonly type: string;
}

/**
 * Where a table lives: a warehouse (a local directory, or `s3://bucket/prefix` on the local MinIO),
 * a database and a table name. `catalogOptions` go to the oracle's catalog as they are; for an s3://
 * warehouse the wrappers add the MinIO endpoint and keys of `services.s3` in each oracle's spelling.
 */
export interface TableRef {
  readonly warehouse: string;
  readonly database: string;
  readonly table: string;
  readonly catalogOptions?: Readonly<Record<string, string>>;
}

export interface TableDefinition {
  readonly fields: readonly OracleField[];
  readonly partitionKeys?: readonly string[];
  readonly primaryKeys?: readonly string[];
  readonly options?: Readonly<Record<string, string>>;
}

export interface ReadResult {
  /** The snapshot read (the latest unless one was asked for); null for a table without snapshots. */
  readonly snapshotId: number | null;
  readonly fields: readonly OracleField[];
  readonly rows: OracleRow[];
}

export type OracleOp =
  | ({ readonly op: 'create' } & TableRef & TableDefinition)
  | ({ readonly op: 'write'; readonly rows: readonly OracleRow[]; readonly kinds?: readonly RowKindShort[] } & TableRef)
  | ({ readonly op: 'read'; readonly snapshotId?: number; readonly options?: Readonly<Record<string, string>> } & TableRef)
  /** Paimon Java only: a full compaction of these buckets of an unpartitioned table, one COMPACT snapshot. */
  | ({ readonly op: 'compact'; readonly buckets: readonly number[] } & TableRef)
  /** Paimon Java only: Table.newExpireSnapshots with this retention (defaults: min 1, max and limit unbounded, time 0). */
  | ({ readonly op: 'expire'; readonly retainMin?: number; readonly retainMax?: number; readonly timeRetainedMs?: number; readonly maxDeletes?: number } & TableRef)
  /** Paimon Java only: LocalOrphanFilesClean of files older than olderThanMs (default one day). */
  | ({ readonly op: 'orphanClean'; readonly olderThanMs?: number; readonly dryRun?: boolean } & TableRef)
  /** Paimon Java only: the catalog's databases and the tables of `database` (CatalogListing). */
  | ({ readonly op: 'list' } & TableRef)
  /** Paimon Java only: Catalog.dropTable (its catalog entry and its files). */
  | ({ readonly op: 'drop' } & TableRef)
  /**
   * Paimon Java only, for benchmarks: its own commit of the ADD entries of the table's snapshot (the
   * latest by default), one message per data file, into a new table `target` with the same schema
   * (the data files are not copied).
   */
  | ({ readonly op: 'commitCopy'; readonly target: string; readonly snapshotId?: number } & TableRef);

/** What `expire` and `orphanClean` answer: snapshots expired; orphan paths relative to the table. */
export interface MaintenanceResult {
  readonly expired?: number;
  readonly deleted?: readonly string[];
  readonly deletedCount?: number;
}

/** What `commitCopy` answers: the messages committed and the commit's wall and process CPU time. */
export interface CommitCopyResult {
  readonly messages: number;
  readonly commitMs: number;
  readonly commitCpuMs: number;
  readonly snapshotId: number;
}

/** What `list` answers: every database of the catalog and the tables of the one asked, sorted. */
export interface CatalogListing {
  readonly databases: readonly string[];
  readonly tables: readonly string[];
}

export type OracleResult = { readonly path: string } | { readonly snapshotId: number | null } | ReadResult | MaintenanceResult | CatalogListing | CommitCopyResult | { readonly dropped: true };

export interface Oracle {
  readonly name: 'pypaimon' | 'paimon-java';
  /** Creates the database if needed and the table (schema-0). */
  create(ref: TableRef, definition: TableDefinition): Promise<{ path: string }>;
  /** Writes the rows in one commit; returns the latest snapshot id after it. */
  write(ref: TableRef, rows: readonly OracleRow[], kinds?: readonly RowKindShort[]): Promise<{ snapshotId: number | null }>;
  /**
   * All rows of the latest snapshot, or of `snapshotId` (time travel). `options` (Paimon Java only)
   * are table options for this read, e.g. `incremental-between` on the `<table>$audit_log` system table.
   */
  read(ref: TableRef, options?: { snapshotId?: number; options?: Readonly<Record<string, string>> }): Promise<ReadResult>;
  /**
   * Several operations in one process (a JVM start costs seconds), in order; stops at the first
   * failure. With `timeoutMs`, a process still running then is killed and the call fails (a reader
   * can loop for ever on a corrupt table: Paimon Java seeking past the end of a shorter file).
   */
  batch(ops: readonly OracleOp[], options?: { readonly timeoutMs?: number }): Promise<OracleResult[]>;
}

/** The read results of a batch, in order (a batch answers create, write and read alike). */
export function readResults(results: readonly OracleResult[]): ReadResult[] {
  return results.filter((result): result is ReadResult => 'rows' in result);
}

export class OracleError extends Error {
  readonly oracle: string;
  constructor(oracle: string, message: string) {
    super(`${oracle}: ${message}`);
    this.name = 'OracleError';
    this.oracle = oracle;
  }
}

// ---- values: in memory -> wire -----------------------------------------------------------------

function isTimestamp(value: object): value is OracleTimestamp {
  return 'epochMillis' in value && 'nanoOfMillis' in value;
}

/** The wire form of a value; it needs no type because the drivers decode by the table's schema. */
export function encodeValue(value: OracleValue): unknown {
  if (value === null || typeof value === 'boolean' || typeof value === 'string') return value;
  if (typeof value === 'bigint') return value.toString();
  if (typeof value === 'number') {
    // JSON has no NaN, infinities or negative zero; the drivers parse these strings as floats.
    return Number.isFinite(value) && !Object.is(value, -0) ? value : String(Object.is(value, -0) ? '-0' : value);
  }
  if (value instanceof Uint8Array) return Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('hex');
  if (isTimestamp(value)) return { epochMillis: value.epochMillis, nanoOfMillis: value.nanoOfMillis };
  throw new TypeError(`cannot encode ${String(value)} for an oracle`);
}

/** pypaimon reads fs.s3.* (through pyarrow's S3FileSystem); Paimon Java's paimon-s3 reads s3.*. */
function s3CatalogOptions(oracle: Oracle['name']): Record<string, string> {
  const s3 = services.s3;
  return oracle === 'pypaimon'
    ? {
        'fs.s3.endpoint': s3.endpoint,
        'fs.s3.accessKeyId': s3.accessKeyId,
        'fs.s3.accessKeySecret': s3.secretAccessKey,
        'fs.s3.region': s3.region,
      }
    : {
        's3.endpoint': s3.endpoint,
        's3.access-key': s3.accessKeyId,
        's3.secret-key': s3.secretAccessKey,
        's3.region': s3.region,
        's3.path.style.access': 'true',
      };
}

function encodeOp(oracle: Oracle['name'], op: OracleOp): unknown {
  const s3 = op.warehouse.startsWith('s3://') ? s3CatalogOptions(oracle) : {};
  const catalogOptions = { ...s3, ...op.catalogOptions };
  return op.op === 'write'
    ? { ...op, catalogOptions, rows: op.rows.map((row) => row.map(encodeValue)) }
    : { ...op, catalogOptions };
}

// ---- values: wire -> in memory -----------------------------------------------------------------

/** The root of a Paimon type string: 'DECIMAL(38, 10) NOT NULL' -> DECIMAL, 'TIMESTAMP(6) WITH LOCAL TIME ZONE' -> TIMESTAMP_LTZ. */
export function typeRoot(type: string): string {
  const upper = type.toUpperCase().trim();
  const root = /^[A-Z_]+/.exec(upper)?.[0] ?? upper;
  return root === 'TIMESTAMP' && upper.includes('WITH LOCAL TIME ZONE') ? 'TIMESTAMP_LTZ' : root;
}

export function decodeValue(wire: unknown, type: string): OracleValue {
  if (wire === null) return null;
  switch (typeRoot(type)) {
    case 'BIGINT':
    case 'DECIMAL':
      return BigInt(expect(wire, 'string', type));
    case 'FLOAT':
    case 'DOUBLE':
      return typeof wire === 'string' ? Number(wire) : expect(wire, 'number', type);
    case 'BINARY':
    case 'VARBINARY':
    case 'BYTES':
      return new Uint8Array(Buffer.from(expect(wire, 'string', type), 'hex'));
    case 'TIMESTAMP':
    case 'TIMESTAMP_LTZ': {
      const { epochMillis, nanoOfMillis } = wire as Record<string, unknown>;
      return { epochMillis: expect(epochMillis, 'number', type), nanoOfMillis: expect(nanoOfMillis, 'number', type) };
    }
    case 'BOOLEAN':
      return expect(wire, 'boolean', type);
    case 'CHAR':
    case 'VARCHAR':
    case 'STRING':
      return expect(wire, 'string', type);
    default:
      return expect(wire, 'number', type);
  }
}

function expect<K extends 'string' | 'number' | 'boolean'>(
  wire: unknown,
  kind: K,
  type: string,
): K extends 'string' ? string : K extends 'number' ? number : boolean {
  if (typeof wire !== kind) throw new TypeError(`oracle sent ${JSON.stringify(wire)} for a ${type} value`);
  return wire as K extends 'string' ? string : K extends 'number' ? number : boolean;
}

function decodeRead(wire: { snapshotId: number | null; fields: OracleField[]; rows: unknown[][] }): ReadResult {
  const types = wire.fields.map((field) => field.type);
  const rows = wire.rows.map((row) => row.map((value, i) => decodeValue(value, types[i] ?? 'UNKNOWN')));
  return { snapshotId: wire.snapshotId, fields: wire.fields, rows };
}

function decodeResult(wire: unknown): OracleResult {
  if (typeof wire === 'object' && wire !== null && 'rows' in wire) {
    return decodeRead(wire as { snapshotId: number | null; fields: OracleField[]; rows: unknown[][] });
  }
  return wire as OracleResult;
}

// ---- comparing rows across implementations -----------------------------------------------------

/** A value in the one shape all three implementations compare in: plain Uint8Array, plain timestamp object. */
export function normaliseValue(value: OracleValue): OracleValue {
  if (value instanceof Uint8Array) return Uint8Array.from(value);
  if (typeof value === 'object' && value !== null && isTimestamp(value)) {
    return { epochMillis: value.epochMillis, nanoOfMillis: value.nanoOfMillis };
  }
  return value;
}

function sortKey(row: OracleRow): string {
  return row
    .map((value) => {
      if (value === null) return 'null';
      if (typeof value === 'bigint') return `n:${value}`;
      if (typeof value === 'number') return `d:${Object.is(value, -0) ? '-0' : value}`;
      return `${typeof value}:${JSON.stringify(encodeValue(value))}`;
    })
    .join('\u0000');
}

/** Rows normalised and sorted by a total order, ready for `deepStrictEqual` across implementations. */
export function canonicalRows(rows: readonly OracleRow[]): OracleRow[] {
  return rows
    .map((row) => row.map(normaliseValue))
    .map((row) => ({ row, key: sortKey(row) }))
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
    .map(({ row }) => row);
}

// ---- the two drivers ---------------------------------------------------------------------------

function run(name: Oracle['name'], command: string, args: readonly string[], request: unknown, timeoutMs?: number): Promise<unknown> {
  return new Promise((resolve, reject) => {
    // No cloud here: keep the AWS SDKs from probing the EC2 metadata service for credentials.
    const env = { ...process.env, AWS_EC2_METADATA_DISABLED: 'true' };
    const child = spawn(command, args, { cwd: root, env, stdio: ['pipe', 'pipe', 'pipe'] });
    let timedOut = false;
    const timer =
      timeoutMs === undefined
        ? undefined
        : setTimeout(() => {
            timedOut = true;
            child.kill('SIGKILL');
          }, timeoutMs);
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
    child.on('error', (error) => reject(new OracleError(name, `cannot start ${command}: ${error.message}`)));
    child.on('close', (status) => {
      clearTimeout(timer);
      if (timedOut) {
        reject(new OracleError(name, `still running after ${timeoutMs} ms, killed`));
        return;
      }
      const stdout = Buffer.concat(out).toString('utf8').trim();
      let response: unknown;
      try {
        response = JSON.parse(stdout);
      } catch {
        response = undefined;
      }
      if (status === 0 && typeof response === 'object' && response !== null && !('error' in response)) {
        resolve(response);
        return;
      }
      const message = typeof response === 'object' && response !== null && 'error' in response ? String(response.error) : stdout;
      const stderr = Buffer.concat(err).toString('utf8').trim().split('\n').slice(-15).join('\n');
      reject(new OracleError(name, `exit ${status}: ${message}\n${stderr}`));
    });
    child.stdin.end(JSON.stringify(request));
  });
}

function makeOracle(name: Oracle['name'], command: () => readonly [string, ...string[]]): Oracle {
  const batch = async (ops: readonly OracleOp[], options: { readonly timeoutMs?: number } = {}): Promise<OracleResult[]> => {
    const [program, ...args] = command();
    const request = { ops: ops.map((op) => encodeOp(name, op)) };
    const response = (await run(name, program, [...args, 'batch'], request, options.timeoutMs)) as { results: unknown[] };
    return response.results.map(decodeResult);
  };
  const one = async (op: OracleOp): Promise<OracleResult> => {
    const [result] = await batch([op]);
    if (result === undefined) throw new OracleError(name, `no result for ${op.op}`);
    return result;
  };
  return {
    name,
    batch,
    create: async (ref, definition) => (await one({ op: 'create', ...ref, ...definition })) as { path: string },
    write: async (ref, rows, kinds) =>
      (await one({ op: 'write', ...ref, rows, ...(kinds ? { kinds } : {}) })) as { snapshotId: number | null },
    read: async (ref, options = {}) => (await one({ op: 'read', ...ref, ...options })) as ReadResult,
  };
}

function installed(path: string): string {
  if (!existsSync(path)) throw new OracleError('oracles', `${path} is missing: run bash infra/oracles.sh`);
  return path;
}

/** pypaimon (Python), pinned in test/compat/python/requirements.txt. Writes inserts (+I) only. */
export const pypaimon: Oracle = makeOracle('pypaimon', () => [installed(oraclePaths.python), oraclePaths.pythonDriver]);

/** Apache Paimon's Java batch API, pinned in test/compat/java/pom.xml. Writes every row kind. */
export const paimonJava: Oracle = makeOracle('paimon-java', () => [
  'java',
  // A call is short: the C1 compiler alone and the class archive infra/oracles.sh made start it fastest.
  '-XX:TieredStopAtLevel=1',
  '-XX:+UseSerialGC',
  ...(oraclePaths.javaClassArchive !== '' && existsSync(oraclePaths.javaClassArchive) ? [`-XX:SharedArchiveFile=${oraclePaths.javaClassArchive}`] : []),
  // The JVM's own warnings (a stale archive, say) go to stderr: stdout carries the JSON answer.
  '-Xlog:disable',
  '-Xlog:all=warning:stderr',
  '-jar',
  installed(oraclePaths.javaJar),
]);
