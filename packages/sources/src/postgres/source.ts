/**
 * Reads one shard of a PostgreSQL source: one physical table, or one primary-key range of it, as
 * the coordinator planned it (PostgresShard), in one REPEATABLE READ READ ONLY transaction:
 *
 *   SELECT pg_current_wal_lsn()        before the snapshot: the WAL position the read starts from
 *   BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY
 *   SELECT pg_current_snapshot()       takes the snapshot (every later statement sees only it)
 *   SELECT <columns> … LIMIT 0         the result's column types, from the server itself
 *   COPY (SELECT … ORDER BY <key>) TO STDOUT (FORMAT binary)
 *
 * Rows committed after the snapshot are not read, however long the COPY runs. The WAL position and
 * the snapshot go with every batch (`readPosition`, position.ts: `{server: {id, log: {lsn,
 * database, snapshot}, order}}`), so a snapshot of the table can say what it reflects: every transaction committed before `lsn` is in the read or was still running; what
 * commits after it is not in it unless listed as committed by `snapshot`.
 *
 * The COPY is pulled a batch at a time: while a batch is written the stream is not read, so
 * pg-copy-streams leaves the socket paused and the server waits; memory is one batch and a chunk of
 * the stream whatever the table's size. Primary-key order makes a retried shard read the same rows
 * in the same order, and a batch ends at its last row's key, from which a shard resumes (in a new
 * snapshot). The binary format carries every value exactly (binary.ts).
 */
import type { ShardReadPosition } from '@tributary/protocol';
import { walPosition } from './position.ts';
import { errorFrom, isTributaryError } from '@tributary/protocol';
import type pg from 'pg';
import type { to as copyTo } from 'pg-copy-streams';
import type { SourceAccess } from '../access.ts';
import { sourceErrors } from '../errors.ts';
import type { PlanContext, PlannedSourceShard, Source, SourceBatch, SourceColumn, SourcePosition, SourceRow, SourceSchema, SourceValue } from '../source.ts';
import { CopyFrames, binaryDecoder, type CopyBlock, type Decode } from './binary.ts';
import { CopyCells } from './cells.ts';
import { planPostgresShards, specEndpoint } from './plan.ts';
import { postgresSchema } from './schema.ts';
import { PostgresShard, PostgresSourceSpec } from './spec.ts';
import { SESSION_SETUP, shardCopy, shardSelect } from './sql.ts';

/** The WAL position the server has written (or, on a standby, replayed). */
const WAL_POSITION = 'SELECT (CASE WHEN pg_is_in_recovery() THEN pg_last_wal_replay_lsn() ELSE pg_current_wal_lsn() END)::text AS lsn';

/**
 * The driver and its COPY stream, loaded when a shard is first read: the module is imported by every
 * process that knows the sources (a coordinator plans and checks them), and only a worker reading
 * PostgreSQL needs them.
 */
async function pgDriver(): Promise<{ pg: typeof pg; copyTo: typeof copyTo }> {
  const [driver, copy] = await Promise.all([import('pg'), import('pg-copy-streams')]);
  return { pg: driver.default, copyTo: copy.default.to };
}

export class PostgresSource implements Source {
  readonly kind = 'postgres';
  readonly #spec: PostgresSourceSpec;
  readonly #columns: readonly string[];
  readonly #access: SourceAccess;

  /**
   * `tableColumns`: the target table's column names, read when the spec names no columns; `access`:
   * this process's connections, which the spec's connection name is looked up in.
   */
  constructor(spec: unknown, tableColumns: readonly string[], access: SourceAccess) {
    const parsed = PostgresSourceSpec.safeParse(spec);
    if (!parsed.success) throw errorFrom(sourceErrors, 'SOURCE_SPEC_INVALID', `postgres source: ${parsed.error.message}`);
    this.#spec = parsed.data;
    this.#columns = parsed.data.columns ?? tableColumns;
    this.#access = access;
  }

  columns(): Promise<readonly SourceColumn[]> {
    return Promise.resolve(this.#columns.map((name) => ({ name, sourceType: 'postgres column' })));
  }

  /** Inline credentials, or a connection this process does not have (before anything is read). */
  check(): Promise<void> {
    return Promise.resolve().then(() => void specEndpoint(this.#spec, this.#access));
  }

  /** Lists the matching tables and checks each against the target (plan.ts); at most `maxShards` shards. */
  async plan(ctx: PlanContext): Promise<readonly PlannedSourceShard[]> {
    const shards = await planPostgresShards(this.#spec, ctx.target, this.#access, ctx);
    if (shards.length > ctx.maxShards) throw ctx.tooManyShards(String(shards.length));
    return shards;
  }

  /** The first matching table's columns and primary key, and every matching table's size (schema.ts). */
  schema(): Promise<SourceSchema> {
    return postgresSchema(this.#spec, this.#access);
  }

  /**
   * Positions (for messages) count rows from where this read starts: the shard's start, or `from`.
   * A shard without rows yields one empty batch, which carries its read position. When `signal`
   * aborts, the COPY is cancelled on the server (pg_cancel_backend from a second connection) and the
   * read fails with the signal's reason.
   */
  async *open(planned: PlannedSourceShard, from?: SourcePosition, signal?: AbortSignal): AsyncIterable<SourceBatch> {
    const shard = parseShard(planned);
    const keyNames = shard.key.map((k) => k.name);
    const selected = [...this.#columns, ...keyNames.filter((k) => !this.#columns.includes(k))];
    const keyIndexes = keyNames.map((k) => selected.indexOf(k));
    const select = shardSelect(shard, selected, resumeKey(planned.id, keyNames, from));
    const endpoint = specEndpoint(this.#spec, this.#access);
    const { pg, copyTo } = await pgDriver();
    const client = new pg.Client({
      host: endpoint.host,
      port: endpoint.port,
      user: endpoint.user,
      password: endpoint.password,
      database: shard.database,
      connectionTimeoutMillis: 10_000,
      keepAlive: true,
      application_name: 'tributary-read',
    });
    let stream: ReturnType<typeof copyTo> | undefined;
    let failure: Error | undefined;
    // A connection lost while the stream is paused is reported on the client only: without this the
    // read would wait for ever (a terminated backend, a server restart, a network cut).
    client.on('error', (error) => {
      failure = error;
      stream?.destroy(error);
    });
    const onAbort = (): void => {
      void this.#cancel(client, shard.database);
      stream?.destroy(signal?.reason instanceof Error ? signal.reason : new Error('read aborted'));
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      signal?.throwIfAborted();
      let readPosition: ShardReadPosition;
      let columns: { decoders: Decode[]; types: string[] };
      try {
        await client.connect();
        await client.query(`${SESSION_SETUP}; SET statement_timeout = 0; SET idle_in_transaction_session_timeout = 0`);
        const lsn = (await client.query<{ lsn: string | null }>(WAL_POSITION)).rows[0]?.lsn ?? null;
        await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
        const snapshot = (await client.query<{ snapshot: string }>('SELECT pg_current_snapshot()::text AS snapshot')).rows[0]?.snapshot ?? null;
        readPosition = walPosition(endpoint.host, endpoint.port, { database: shard.database, lsn, snapshot });
        columns = await columnDecoders(client, planned.id, `${select} LIMIT 0`);
      } catch (error) {
        throw readError(planned.id, endpoint.label, error);
      }
      signal?.throwIfAborted(); // an abort while connecting: no COPY is started
      stream = client.query(copyTo(shardCopy(select)));
      const { decoders, types } = columns;
      // Rows are framed, not decoded: each batch's cells go to the converter (cells.ts), which writes
      // them into the table's columns; its rows are decoded only when read.
      const frames = new CopyFrames(decoders.length, this.#spec.batchRows);
      const width = this.#columns.length;
      let position = 0;
      let yielded = false;
      const batchOf = (block: CopyBlock): SourceBatch => {
        const cells = new CopyCells(block, types, decoders, width);
        const firstRowPosition = position;
        position += block.length;
        let rows: SourceRow[] | undefined;
        return {
          get rows() {
            return (rows ??= cells.rows());
          },
          firstRowPosition,
          end: block.length > 0 ? endPosition(keyNames, keyIndexes, block, decoders) : (from ?? 0),
          readPosition,
          columnar: cells,
        };
      };
      let rest: SourceBatch | undefined;
      try {
        for await (const chunk of stream as AsyncIterable<Buffer>) {
          frames.push(chunk);
          while (frames.full) {
            const batch = batchOf(frames.take());
            yield batch;
            yielded = true;
          }
        }
        if (failure !== undefined) throw failure;
        frames.end();
        const block = frames.take();
        if (block.length > 0 || !yielded) rest = batchOf(block);
        await client.query('COMMIT');
      } catch (error) {
        throw readError(planned.id, endpoint.label, failure ?? error);
      } finally {
        stream.destroy();
      }
      if (rest !== undefined) yield rest;
    } finally {
      signal?.removeEventListener('abort', onAbort);
      await client.end().catch(() => undefined);
    }
  }

  /** Best effort: the backend of `client` stops its query. Its own connection is ended by open() anyway. */
  async #cancel(client: pg.Client, database: string): Promise<void> {
    const pid = (client as pg.Client & { processID?: number }).processID;
    if (pid === undefined) return;
    const { host, port, user, password } = specEndpoint(this.#spec, this.#access);
    const { pg } = await pgDriver();
    const killer = new pg.Client({ host, port, user, password, database, connectionTimeoutMillis: 5000 });
    killer.on('error', () => undefined);
    try {
      await killer.connect();
      await killer.query('SELECT pg_cancel_backend($1)', [pid]);
    } catch {
      // The query had ended, or the server is away: nothing more to stop.
    } finally {
      await killer.end().catch(() => undefined);
    }
  }
}

/**
 * The decoder of each column of the shard's SELECT, from the types the server describes for it
 * (so a column whose type changed since the plan is read by its type now, or refused).
 */
async function columnDecoders(client: pg.Client, shardId: string, describe: string): Promise<{ decoders: Decode[]; types: string[] }> {
  const { fields } = await client.query({ text: describe, rowMode: 'array' });
  const oids = fields.map((f) => f.dataTypeID);
  const { rows } = await client.query<{ oid: number; typname: string; typtype: string }>('SELECT oid::int8 AS oid, typname, typtype FROM pg_type WHERE oid = ANY($1::oid[])', [oids]);
  const types = new Map(rows.map((r) => [Number(r.oid), r]));
  const names = fields.map((field) => {
    const type = types.get(field.dataTypeID);
    return type === undefined ? '' : type.typtype === 'e' ? 'enum' : type.typname;
  });
  const decoders = fields.map((field, i) => {
    const type = types.get(field.dataTypeID);
    const decoder = type === undefined ? undefined : binaryDecoder(names[i] ?? '');
    if (decoder === undefined) {
      throw errorFrom(sourceErrors, 'SOURCE_SCHEMA_MISMATCH', `shard ${shardId}: column ${field.name} has type ${type?.typname ?? String(field.dataTypeID)}, which the plan did not allow (the table changed since the plan)`, {
        shard: shardId,
        column: field.name,
      });
    }
    return decoder;
  });
  return { decoders, types: names };
}

function parseShard(planned: PlannedSourceShard): PostgresShard {
  const parsed = PostgresShard.safeParse(planned.spec);
  if (!parsed.success) throw errorFrom(sourceErrors, 'SOURCE_SPEC_INVALID', `postgres shard ${planned.id}: ${parsed.error.message}`, { shard: planned.id });
  return parsed.data;
}

/** A batch ends at the key of its last row: `{<key column>: <value as PostgreSQL text>}`. */
function endPosition(keyNames: readonly string[], keyIndexes: readonly number[], block: CopyBlock, decoders: readonly Decode[]): SourcePosition {
  const last = (block.length - 1) * block.width;
  return Object.fromEntries(
    keyNames.map((name, i) => {
      const c = keyIndexes[i] ?? -1;
      const start = block.starts[last + c] ?? -1;
      return [name, keyText(start < 0 ? null : (decoders[c] as Decode)(block.bytes, start, block.ends[last + c] ?? start))];
    }),
  );
}

/** Key values (integers, numeric text, text, uuid text) in the text PostgreSQL reads them back from. */
function keyText(value: SourceValue): string {
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'bigint') return String(value);
  throw new RangeError(`a primary-key value cannot be ${value === null ? 'NULL' : typeof value}`);
}

function resumeKey(shardId: string, keyNames: readonly string[], from: SourcePosition | undefined): string[] | undefined {
  if (from === undefined || from === 0) return undefined;
  const values = typeof from === 'object' ? keyNames.map((k) => from[k]) : [];
  if (values.length === 0 || values.some((v) => typeof v !== 'string')) {
    throw errorFrom(sourceErrors, 'SOURCE_SPEC_INVALID', `postgres shard ${shardId} resumes at its key columns ${keyNames.join(', ')}, which the position does not give`, { shard: shardId });
  }
  return values as string[];
}

/** SQLSTATEs of a table or column gone or changed since the plan: deterministic, not retried. */
const SCHEMA_STATES = new Set(['42P01', '42703', '3F000', '3D000']);

/** A table or column that is gone is deterministic (the source changed since the plan); anything else may pass on retry. */
function readError(shardId: string, source: string, error: unknown): unknown {
  if (isTributaryError(error) || !(error instanceof Error)) return error;
  const code = 'code' in error && typeof error.code === 'string' ? error.code : 'UNKNOWN';
  const context = { shard: shardId, source, postgresCode: code };
  if (SCHEMA_STATES.has(code)) {
    return errorFrom(sourceErrors, 'SOURCE_SCHEMA_MISMATCH', `shard ${shardId}: the PostgreSQL table changed since the plan: ${error.message}`, context, { cause: error });
  }
  if (code === '42501') {
    // No privilege, or (row_security off, SESSION_SETUP) policies that would hide rows: a retry sees the same.
    return errorFrom(sourceErrors, 'POSTGRES_READ_REFUSED', `shard ${shardId}: PostgreSQL ${source} refused the read for the connection's role: ${error.message}`, context, { cause: error });
  }
  if (code.startsWith('22')) {
    // A data exception: the server could not send a value (text not valid in UTF-8, say). Its message quotes the value's bytes, so it is left out.
    return errorFrom(
      sourceErrors,
      'SOURCE_ROW_INVALID',
      `shard ${shardId}: PostgreSQL ${source} could not send a value (SQLSTATE ${code}${code === '22021' ? ': bytes not valid in the UTF8 encoding' : ''}); the server's message, which quotes it, is not shown`,
      context,
    );
  }
  if (error instanceof RangeError || error instanceof TypeError) {
    // A malformed stream or text that is not UTF-8: not something a retry fixes.
    return errorFrom(sourceErrors, 'SOURCE_ROW_INVALID', `shard ${shardId}: a value read from PostgreSQL ${source} cannot be decoded: ${error.message}`, context, { cause: error });
  }
  // A socket's own message names the host and port; the server's messages do not.
  const why = 'syscall' in error ? code : `${code} ${error.message}`;
  return errorFrom(sourceErrors, 'POSTGRES_READ_FAILED', `shard ${shardId}: reading PostgreSQL ${source} failed: ${why}`, context, { cause: error });
}
