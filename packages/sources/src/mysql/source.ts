/**
 * Reads one shard of a MySQL 分库分表 source: one physical table, or one primary-key range of it, as
 * the coordinator planned it (MysqlShard). One streaming query in primary-key order, inside one
 * consistent snapshot whose binlog position every batch carries (snapshot.ts), so a retried shard
 * reads the same rows in the same order; the stream is pulled a batch at a time, and mysql2 pauses
 * the socket while a batch is written, so memory stays at one batch whatever the table's size.
 *
 * DOUBLE and FLOAT must come in MySQL's binary protocol (a prepared statement), as their IEEE
 * bytes: the text protocol cannot carry them exactly (MariaDB prints a FLOAT with 6 significant
 * digits, and mysql2 parses short DOUBLE text digit by digit, one unit in the last place off for
 * some values). The statement is prepared first, which tells the result's column types: a shard
 * with a DOUBLE or FLOAT column is read through it; any other shard by a plain query, whose text
 * mysql2 decodes faster (DATETIME above all).
 *
 * Values never pass through a JS float or the local time zone: BIGINT and DECIMAL come as strings,
 * DATE/DATETIME/TIMESTAMP as strings (the session's time zone is UTC, so a TIMESTAMP is its UTC wall
 * clock) that become exact `Timestamp`s here, microseconds included; TIME becomes milliseconds of the
 * day; BIT(1) and the TINYINT columns the plan marks as BOOLEAN become booleans. The converter
 * (values/convert.ts) then fits each value to its Paimon column and refuses what does not fit.
 */
import { errorFrom, isTributaryError } from '@tributary/protocol';
import type { Timestamp } from '@tributary/table';
import { Readable } from 'node:stream';
import type { Connection, FieldPacket, PrepareStatementInfo, Query } from 'mysql2';
import { mysqlEndpoint, type SourceAccess } from '../access.ts';
import { sourceErrors } from '../errors.ts';
import type { PlanContext, PlannedSourceShard, Source, SourceBatch, SourceColumn, SourcePosition, SourceRow, SourceSchema, SourceValue } from '../source.ts';
import { fastTimestampInto } from '../values/fast-text.ts';
import { planMysqlShards } from './plan.ts';
import { binlogReadPosition } from './position.ts';
import { rowChunks } from './row-chunks.ts';
import { mysqlSchema } from './schema.ts';
import { MysqlShard, MysqlSourceSpec } from './spec.ts';
import { beginConsistentRead, type ConsistentRead } from './snapshot.ts';
import { SESSION_SETUP, keyValueText, serverMessage, shardSelect } from './sql.ts';
import { cellKinds, MysqlTextCells, TextCellsBuilder, type CellKind, type DecodeRow, type ParseRow, type RowPacket } from './text-cells.ts';
import { isZeroDate, zeroDateValue, type ZeroDatePolicy } from './zero-dates.ts';

/**
 * The driver, loaded when a shard is first read: the module is imported by every process that knows
 * the sources (a coordinator plans and checks them), and only a worker reading MySQL needs it.
 */
const mysqlDriver = (): Promise<typeof import('mysql2')> => import('mysql2');

/** mysql2's numeric column types (MySQL's enum_field_types). */
const MYSQL_TYPE = { FLOAT: 4, DOUBLE: 5, TIMESTAMP: 7, DATE: 10, TIME: 11, DATETIME: 12, BIT: 16 } as const;

type Decode = (value: unknown) => SourceValue;

/** Test seams: `afterSnapshot` runs once a read's consistent snapshot has started, before its SELECT. */
export interface MysqlReadHooks {
  readonly afterSnapshot?: (shardId: string, position: ConsistentRead) => Promise<void>;
}

export class MysqlSource implements Source {
  readonly kind = 'mysql';
  readonly #spec: MysqlSourceSpec;
  readonly #columns: readonly string[];
  readonly #access: SourceAccess;
  readonly #hooks: MysqlReadHooks;

  /**
   * `tableColumns`: the target table's column names, read when the spec names no columns; `access`:
   * this process's connections, which the spec's connection name is looked up in.
   */
  constructor(spec: unknown, tableColumns: readonly string[], access: SourceAccess, hooks: MysqlReadHooks = {}) {
    const parsed = MysqlSourceSpec.safeParse(spec);
    if (!parsed.success) throw errorFrom(sourceErrors, 'SOURCE_SPEC_INVALID', `mysql source: ${parsed.error.message}`);
    this.#spec = parsed.data;
    this.#columns = parsed.data.columns ?? tableColumns;
    this.#access = access;
    this.#hooks = hooks;
  }

  columns(): Promise<readonly SourceColumn[]> {
    return Promise.resolve(this.#columns.map((name) => ({ name, sourceType: 'mysql column' })));
  }

  /** Inline credentials, or a connection this process does not have (before anything is read). */
  check(): Promise<void> {
    return Promise.resolve().then(() => void mysqlEndpoint(this.#spec, this.#access));
  }

  /** Lists the matching tables and checks each against the target (plan.ts); at most `maxShards` shards. */
  async plan(ctx: PlanContext): Promise<readonly PlannedSourceShard[]> {
    const shards = await planMysqlShards(this.#spec, ctx.target, this.#access, {}, ctx);
    if (shards.length > ctx.maxShards) throw ctx.tooManyShards(String(shards.length));
    return shards;
  }

  /** The first matching table's columns and primary key, and every matching table's size (schema.ts). */
  schema(): Promise<SourceSchema> {
    return mysqlSchema(this.#spec, this.#access);
  }

  /**
   * One read in one consistent snapshot (snapshot.ts): every batch carries the snapshot's binlog
   * position as `readPosition`; a shard without rows yields one empty batch to carry it.
   * Positions (for messages) count rows from where this read starts: the shard's start, or `from`.
   * When `signal` aborts, the query is killed on the server (KILL QUERY from a second connection:
   * a query waiting for a lock or sending rows stops there, not only on this side of the socket) and
   * the read fails with the signal's reason.
   */
  async *open(planned: PlannedSourceShard, from?: SourcePosition, signal?: AbortSignal): AsyncIterable<SourceBatch> {
    const shard = parseShard(planned);
    const keyNames = shard.key.map((k) => k.name);
    const selected = [...this.#columns, ...keyNames.filter((k) => !this.#columns.includes(k))];
    const keyIndexes = keyNames.map((k) => selected.indexOf(k));
    const after = resumeKey(planned.id, keyNames, from);
    const { sql, params } = shardSelect(shard, selected, after);
    const { connection, label } = await this.#connect(planned.id);
    let onAbort: (() => void) | undefined;
    try {
      signal?.throwIfAborted();
      const consistent = await beginConsistentRead(connection.promise(), this.#spec.connection ?? label).catch((error: unknown) => Promise.reject(readError(planned.id, label, error)));
      await this.#hooks.afterSnapshot?.(planned.id, consistent);
      const { host, port } = mysqlEndpoint(this.#spec, this.#access);
      const readPosition = binlogReadPosition(`${host}:${port}`, consistent);
      const statement = await prepare(connection, sql).catch((error: unknown) => Promise.reject(readError(planned.id, label, error)));
      const binary = statement.columns.some((c) => c.columnType === MYSQL_TYPE.FLOAT || c.columnType === MYSQL_TYPE.DOUBLE);
      // The binary protocol's BIGINT is a number when safe, else its text; the text protocol's always text.
      const query = binary ? statement.execute([...params]) : connection.query({ sql, bigNumberStrings: true }, [...params]);
      let decoders: (readonly [number, Decode])[] | undefined;
      // mysql2's row array becomes the batch's row itself when it holds exactly the read columns and
      // no key column is decoded (the resume key is read from it as it came); otherwise a copy.
      let inPlace = false;
      const width = this.#columns.length;
      query.on('fields', (fields: FieldPacket[]) => {
        decoders = columnDecoders(fields.slice(0, width), shard.booleans ?? [], this.#spec.zeroDates);
        inPlace = fields.length === width && decoders.every(([i]) => !keyIndexes.includes(i));
      });
      // The text protocol's rows stay text cells (text-cells.ts): batches of them, not rows, come out of the stream.
      const stream = binary
        ? query.stream({ highWaterMark: Math.min(this.#spec.batchRows, 10_000) })
        : cellStream(query, connection, this.#spec.batchRows, (fields) => {
            const booleans = new Set(fields.flatMap((f, i) => (i < width && (shard.booleans ?? []).includes(f.name) ? [i] : [])));
            return { width, kinds: cellKinds(fields.slice(0, width), booleans), decode: (raw) => decodeRow(raw, decoders ?? [], width, false) };
          });
      // mysql2 reports a connection lost under a paused stream only on the connection: without
      // this the read would wait for ever (a KILL, a server restart, a network cut).
      connection.on('error', (error) => stream.destroy(error));
      onAbort = () => {
        void this.#killQuery(connection.threadId);
        stream.destroy(signal?.reason instanceof Error ? signal.reason : new Error('read aborted'));
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      let rows: SourceRow[] = [];
      let position = 0;
      let last: unknown[] = [];
      try {
        if (!binary) {
          for await (const chunk of rowChunks<MysqlTextCells>(stream)) {
            for (const cells of chunk) {
              const batchCells = cells;
              yield {
                get rows() {
                  return batchCells.rows();
                },
                columnar: cells,
                firstRowPosition: position,
                end: endPosition(keyNames, keyIndexes, cells.raw(cells.length - 1)),
                readPosition,
              };
              position += cells.length;
              const delay = this.#spec.faults?.delayMsPerBatch;
              if (delay !== undefined) await new Promise((resolve) => setTimeout(resolve, delay));
            }
          }
        }
        for await (const chunk of rowChunks<unknown[]>(binary ? stream : emptyStream())) {
          for (const raw of chunk) {
            last = raw;
            rows.push(decodeRow(raw, decoders ?? [], this.#columns.length, inPlace));
            if (rows.length === this.#spec.batchRows) {
              yield { rows, firstRowPosition: position, end: endPosition(keyNames, keyIndexes, last), readPosition };
              position += rows.length;
              rows = [];
              const delay = this.#spec.faults?.delayMsPerBatch;
              if (delay !== undefined) await new Promise((resolve) => setTimeout(resolve, delay));
            }
          }
        }
      } catch (error) {
        throw readError(planned.id, label, error);
      } finally {
        stream.destroy();
      }
      if (rows.length > 0) yield { rows, firstRowPosition: position, end: endPosition(keyNames, keyIndexes, last), readPosition };
      else if (position === 0) yield { rows, firstRowPosition: 0, end: from ?? {}, readPosition };
    } finally {
      if (onAbort !== undefined) signal?.removeEventListener('abort', onAbort);
      connection.destroy();
    }
  }

  /** Best effort: the query of `threadId` stops on the server. Its own connection is destroyed by open() anyway. */
  async #killQuery(threadId: number | null): Promise<void> {
    if (threadId === null) return;
    let killer: Connection | undefined;
    try {
      const { host, port, user, password } = mysqlEndpoint(this.#spec, this.#access);
      const { createConnection } = await mysqlDriver();
      killer = createConnection({ host, port, user, password, connectTimeout: 5000 });
      killer.on('error', () => undefined);
      await killer.promise().query(`KILL QUERY ${Number(threadId)}`);
    } catch {
      // The query had ended, or the server is away: nothing more to stop.
    } finally {
      killer?.destroy();
    }
  }

  /** Connects as the spec's connection says, looked up in this process's own configuration. */
  async #connect(shardId: string): Promise<{ connection: Connection; label: string }> {
    const { host, port, user, password, label } = mysqlEndpoint(this.#spec, this.#access);
    const { createConnection } = await mysqlDriver();
    const connection = createConnection({
      host,
      port,
      user,
      password,
      connectTimeout: 10_000,
      rowsAsArray: true,
      supportBigNumbers: true,
      dateStrings: true,
      jsonStrings: true,
    });
    // Without a listener, the connection's own 'error' event would end the worker process; open()
    // hands it to the stream it reads.
    connection.on('error', () => undefined);
    try {
      // SESSION_SETUP (sql.ts): UTC, backslash escapes. A long net_write_timeout: the server waits
      // while a paused stream's batch is written to storage.
      await connection.promise().query(`${SESSION_SETUP}, SESSION net_write_timeout = 3600`);
      return { connection, label };
    } catch (error) {
      connection.destroy();
      throw readError(shardId, label, error);
    }
  }
}

/**
 * The text query's rows as `TextCells` batches of `batchRows` rows (the last one shorter), in an
 * object stream that pauses the connection while a batch waits to be read, as mysql2's own row
 * stream does. mysql2 reads the packets; its row parser is set aside (kept to give a row's values
 * when asked, text-cells.ts) and each row packet's payload goes into the batch's bytes instead of
 * becoming an array of values.
 */
function cellStream(
  query: Query,
  connection: Connection,
  batchRows: number,
  layout: (fields: readonly FieldPacket[]) => { width: number; kinds: CellKind[]; decode: DecodeRow },
): Readable {
  const internals = query as unknown as MysqlQueryInternals;
  const stream = new Readable({ objectMode: true, highWaterMark: 1, read: () => connection.resume() });
  let builder: TextCellsBuilder | undefined;
  const emit = (cells: MysqlTextCells) => {
    if (!stream.destroyed && !stream.push(cells)) connection.pause();
  };
  query.on('fields', (fields: FieldPacket[]) => {
    let parser: MysqlRowParser | undefined;
    let PacketClass: PacketConstructor | undefined;
    const parse: ParseRow = (bytes, start, end) => {
      if (parser === undefined || PacketClass === undefined) throw new Error('mysql2 gave no row parser');
      // A packet over the kept bytes: mysql2's parser reads the payload from its start + 4.
      return parser.next(new PacketClass(0, bytes, start - 4, end), fields, internals.options);
    };
    const { width, kinds, decode } = layout(fields);
    const cells = new TextCellsBuilder(width, kinds, parse, decode, Math.min(batchRows, 10_000));
    builder = cells;
    // mysql2 sets its row parser right after this event: it is kept for `parse`, and every row packet comes here.
    Object.defineProperty(internals, '_rowParser', {
      configurable: true,
      get: () => ({
        next: (packet: RowPacket) => {
          PacketClass ??= packet.constructor as unknown as PacketConstructor;
          cells.append(packet);
          if (cells.rows === batchRows) emit(cells.take());
          return undefined;
        },
      }),
      set: (value: MysqlRowParser) => {
        parser = value;
      },
    });
  });
  const onEnd = () => {
    if (builder !== undefined && builder.rows > 0) emit(builder.take());
    if (!stream.destroyed) stream.push(null);
  };
  const onError = (error: Error) => stream.destroy(error);
  query.on('end', onEnd);
  query.on('error', onError);
  stream._destroy = (error, callback) => {
    connection.resume();
    query.off('end', onEnd);
    query.off('error', onError);
    callback(error);
  };
  return stream;
}

/** mysql2's Packet class (`new Packet(sequenceId, buffer, start, end)`), taken from a row packet. */
type PacketConstructor = new (id: number, buffer: Buffer, start: number, end: number) => RowPacket;

/** What of mysql2's Query object the cell stream uses (not in its typings). */
interface MysqlQueryInternals {
  readonly options: unknown;
}

interface MysqlRowParser {
  next(packet: RowPacket, fields: readonly FieldPacket[], options: unknown): unknown[];
}

function emptyStream(): Readable {
  return Readable.from([]);
}

/** A prepared statement with its result's columns (mysql2 sets them; its typings leave them out). */
type Prepared = PrepareStatementInfo & { readonly columns: readonly FieldPacket[] };

/** Prepares `sql` on the connection: the statement knows its result's column types before it runs. */
function prepare(connection: Connection, sql: string): Promise<Prepared> {
  return new Promise((resolve, reject) => connection.prepare(sql, (error, statement) => (error ? reject(error) : resolve(statement as Prepared))));
}

function parseShard(planned: PlannedSourceShard): MysqlShard {
  const parsed = MysqlShard.safeParse(planned.spec);
  if (!parsed.success) throw errorFrom(sourceErrors, 'SOURCE_SPEC_INVALID', `mysql shard ${planned.id}: ${parsed.error.message}`, { shard: planned.id });
  return parsed.data;
}

/** A batch ends at the key of its last row: `{<key column>: <value as text>}`. */
function endPosition(keyNames: readonly string[], keyIndexes: readonly number[], row: readonly unknown[]): SourcePosition {
  return Object.fromEntries(keyNames.map((name, i) => [name, keyValueText(row[keyIndexes[i] ?? -1])]));
}

function resumeKey(shardId: string, keyNames: readonly string[], from: SourcePosition | undefined): string[] | undefined {
  if (from === undefined) return undefined;
  const values = typeof from === 'object' ? keyNames.map((k) => from[k]) : [];
  if (values.length === 0 || values.some((v) => typeof v !== 'string')) {
    throw errorFrom(sourceErrors, 'SOURCE_SPEC_INVALID', `mysql shard ${shardId} resumes at its key columns ${keyNames.join(', ')}, which the position does not give`, { shard: shardId });
  }
  return values as string[];
}

const identity: Decode = (value) => value as SourceValue;

/** The columns whose values need decoding (most come from mysql2 as they are), with their decoders. */
function columnDecoders(fields: readonly FieldPacket[], booleans: readonly string[], zeroDates: ZeroDatePolicy): (readonly [number, Decode])[] {
  return fields.flatMap((field, i) => {
    const decode = decoderFor(field, booleans, zeroDates);
    return decode === identity ? [] : [[i, decode] as const];
  });
}

/** The row of the read columns, decoded: `raw` (mysql2's own array) itself when `inPlace`, else a copy (raw is kept for the resume key). */
function decodeRow(raw: unknown[], decoders: readonly (readonly [number, Decode])[], width: number, inPlace: boolean): SourceRow {
  const row = (inPlace ? raw : raw.slice(0, width)) as SourceValue[];
  for (const [i, decode] of decoders) row[i] = decode(row[i]);
  return row;
}

function decoderFor(field: FieldPacket, booleans: readonly string[], zeroDates: ZeroDatePolicy): Decode {
  if (booleans.includes(field.name)) return (v) => (v === 0 ? false : v === 1 ? true : identity(v));
  switch (field.columnType ?? field.type) {
    case MYSQL_TYPE.DATE: {
      const zero = zeroDateValue(zeroDates, 'date');
      return zero === undefined ? identity : (v) => (typeof v === 'string' && isZeroDate(v) ? zero : identity(v));
    }
    case MYSQL_TYPE.DATETIME:
    case MYSQL_TYPE.TIMESTAMP: {
      const zero = zeroDateValue(zeroDates, 'timestamp');
      return (v) => (typeof v !== 'string' ? identity(v) : zero !== undefined && isZeroDate(v) ? zero : (mysqlTimestamp(v) ?? v));
    }
    case MYSQL_TYPE.TIME:
      // Not a time within a day: the text as it came, which TIME refuses too.
      return (v) => (typeof v === 'string' ? (mysqlTime(v) ?? v) : identity(v));
    case MYSQL_TYPE.BIT:
      return (v) => (v instanceof Uint8Array && v.length === 1 && (v[0] === 0 || v[0] === 1) ? v[0] === 1 : identity(v));
    default:
      return identity;
  }
}

/** `YYYY-MM-DD HH:MM:SS[.ffffff]` as an exact instant (UTC); undefined for zero dates and anything else. Read without a regex (fast-text.ts). */
export function mysqlTimestamp(text: string): Timestamp | undefined {
  if (!fastTimestampInto(text, scratchMillis, scratchNanos, 0)) return undefined;
  return { epochMillis: scratchMillis[0] ?? 0, nanoOfMillis: scratchNanos[0] ?? 0 };
}

const scratchMillis = new Float64Array(1);
const scratchNanos = new Int32Array(1);

/**
 * `HH:MM:SS[.ffffff]` within a day, as milliseconds, with the digits below the millisecond as a
 * fraction (as the PostgreSQL source reads a time): TIME takes whole milliseconds only, so such a
 * value is refused, never cut. Undefined for negative, 24 h or more, or not a time.
 */
export function mysqlTime(text: string): number | undefined {
  const m = /^(\d{2,3}):(\d{2}):(\d{2})(?:\.(\d{1,6}))?$/.exec(text);
  if (m === null) return undefined;
  const [, h, mi, s, fraction = ''] = m.map((p) => p ?? '');
  const ms = ((Number(h) * 60 + Number(mi)) * 60 + Number(s)) * 1000 + Number(fraction.slice(0, 3).padEnd(3, '0'));
  if (ms >= 86_400_000) return undefined;
  return ms + Number(fraction.slice(3).padEnd(3, '0')) / 1000;
}

const SCHEMA_ERRORS = new Set(['ER_BAD_FIELD_ERROR', 'ER_NO_SUCH_TABLE', 'ER_BAD_DB_ERROR']);

/** A table or column that is gone is deterministic (the source changed since the plan); anything else may pass on retry. */
function readError(shardId: string, source: string, error: unknown): unknown {
  if (isTributaryError(error) || !(error instanceof Error)) return error;
  const code = 'code' in error && typeof error.code === 'string' ? error.code : 'UNKNOWN';
  const context = { shard: shardId, source, mysqlCode: code };
  if (SCHEMA_ERRORS.has(code)) {
    return errorFrom(sourceErrors, 'SOURCE_SCHEMA_MISMATCH', `shard ${shardId}: the MySQL table changed since the plan: ${error.message}`, context, { cause: error });
  }
  return errorFrom(sourceErrors, 'MYSQL_READ_FAILED', `shard ${shardId}: reading MySQL ${source} failed: ${code} ${serverMessage(error, code)}`, context, { cause: error });
}
