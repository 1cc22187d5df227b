/**
 * The Hive catalog: a warehouse's tables registered in a Hive Metastore (Thrift), as Paimon's
 * HiveCatalog registers them (hive-table.ts), so that Paimon Java, Spark, Flink, Trino and Hive
 * pointed at the same metastore find them, and Tributary finds theirs.
 *
 * - Databases are the metastore's; a new one is placed at `<warehouse>/<db>.db`.
 * - `registerTable` reads the table's latest schema from the warehouse and creates the Hive table;
 *   `listTables` lists only Paimon tables (Paimon's input/output formats), as Paimon does.
 * - `withLock` takes the metastore's table lock (hive-lock.ts) when `lockEnabled`.
 * - `afterCommit` refreshes the metastore after a published snapshot: registers the partitions the
 *   commit added (tables with `metastore.partitioned-table = true`) and rewrites the statistics of
 *   those partitions, or of the table, from the table's latest snapshot. It never throws: a failed
 *   refresh is reported (`onRefresh`, the log) and retried in the background with backoff; the
 *   partitions still to register are kept per table and merged into the next refresh, so a later
 *   commit's refresh also carries an earlier one that failed. The retry state lives in this
 *   process; what survives it is the caller's: the coordinator journals each table's refreshed
 *   snapshot (`onRefresh`, catalog-tables.ts) and refreshes again on its next start.
 */
import { errorFrom, toErrorData, type ErrorData } from '@tributary/errors';
import { openTable, type ObjectStore, type TableRef } from '@tributary/table';
import { userInfo } from 'node:os';
import type { Catalog, CommittedSnapshot } from '../catalog.ts';
import { catalogErrors } from '../errors.ts';
import types from './generated/hive_metastore_subset_types.js';
import { DEFAULT_LOCK_OPTIONS, withHiveLock, type HiveLockOptions } from './hive-lock.ts';
import {
  hmsPartitions,
  hmsTable,
  isPaimonTable,
  metastorePartitioned,
  partitionName,
  partitionValues,
  statisticsParameters,
  statsByPartition,
  type PaimonSchema,
} from './hive-table.ts';
import { MetastoreConnection, MetastoreException, parseMetastoreUri, rejected } from './metastore-client.ts';
import { struct } from './struct.ts';

/** A refresh's outcome, as `onRefresh` and the log report it. */
export interface HiveRefreshEvent {
  readonly database: string;
  readonly table: string;
  /** The latest snapshot the refresh was asked for. */
  readonly snapshotId: number;
  /** `refreshed`: done; `retrying`: failed, tried again after `retryInMs`; `failed`: gave up after `attempt` tries (the next commit's refresh carries its partitions). */
  readonly status: 'refreshed' | 'retrying' | 'failed';
  readonly attempt: number;
  readonly partitions: number;
  readonly retryInMs?: number;
  readonly error?: ErrorData;
}

/** The part of a pino logger the catalog writes to. */
export interface CatalogLog {
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
  error(fields: object, message: string): void;
}

export interface HiveRefreshOptions {
  /** Tries per refresh, the first included (default 8). */
  readonly attempts: number;
  /** Wait before the first retry, doubled each time (default 1 s). */
  readonly initialDelayMs: number;
  /** Longest wait between tries (default 60 s). */
  readonly maxDelayMs: number;
}

export const DEFAULT_REFRESH_OPTIONS: HiveRefreshOptions = { attempts: 8, initialDelayMs: 1_000, maxDelayMs: 60_000 };

export interface HiveCatalogOptions {
  /** `thrift://host:port` of the metastore. */
  readonly uri: string;
  /** The warehouse root (new databases go to `<warehouse>/<db>.db`). */
  readonly warehouse: string;
  /** The warehouse's store: table schemas and data files are read from it. */
  readonly store: ObjectStore;
  /** Paimon's `lock.enabled`: take the metastore's table lock in `withLock`. */
  readonly lockEnabled?: boolean;
  readonly lock?: Partial<HiveLockOptions>;
  /** Bound on one metastore call (default 30 s). */
  readonly requestTimeoutMs?: number;
  readonly refresh?: Partial<HiveRefreshOptions>;
  readonly onRefresh?: (event: HiveRefreshEvent) => void;
  readonly log?: CatalogLog;
}

interface PendingRefresh {
  snapshotId: number;
  /** Partition specs still to register, by partition name. */
  readonly partitions: Map<string, Readonly<Record<string, string>>>;
  attempt: number;
  timer: NodeJS.Timeout | null;
  running: boolean;
}

const DO_NOT_UPDATE_STATS = struct(types.EnvironmentContext, { properties: { DO_NOT_UPDATE_STATS: 'true' } });

function owner(): string {
  try {
    return userInfo().username;
  } catch {
    return 'tributary';
  }
}

/** `file:/x` and `file:///x` as the local path `/x` when the warehouse is a local path (the metastore qualifies locations). */
function localLocation(warehouse: string, location: string): string {
  if (/^[a-z][a-z0-9+.-]*:/i.test(warehouse)) return location;
  const m = /^file:(?:\/\/)?(\/.*)$/.exec(location);
  return m === null ? location : m[1]!;
}

export class HiveCatalog implements Catalog {
  readonly kind = 'hive' as const;
  readonly #conn: MetastoreConnection;
  readonly #options: HiveCatalogOptions;
  readonly #lock: HiveLockOptions;
  readonly #refresh: HiveRefreshOptions;
  readonly #pending = new Map<string, PendingRefresh>();
  #closed = false;

  constructor(options: HiveCatalogOptions) {
    this.#options = options;
    this.#conn = new MetastoreConnection(parseMetastoreUri(options.uri), options.requestTimeoutMs === undefined ? {} : { requestTimeoutMs: options.requestTimeoutMs });
    this.#lock = { ...DEFAULT_LOCK_OPTIONS, ...options.lock };
    this.#refresh = { ...DEFAULT_REFRESH_OPTIONS, ...options.refresh };
  }

  /** One metastore call; the metastore's exceptions in `expected` come back as their type name, the others as CATALOG_REQUEST_FAILED. */
  async #call<T, E extends string = never>(operation: string, fn: Parameters<MetastoreConnection['call']>[1], expected: readonly E[] = [], keepMessage = true): Promise<T | E> {
    try {
      return (await this.#conn.call(operation, fn)) as T;
    } catch (error) {
      if (error instanceof MetastoreException) {
        if ((expected as readonly string[]).includes(error.type)) return error.type as E;
        throw rejected(operation, error, { keepMessage });
      }
      throw error;
    }
  }

  async createDatabase(database: string): Promise<void> {
    const location = `${this.#options.warehouse.replace(/\/+$/, '')}/${database}.db`;
    const db = struct(types.Database, { name: database, description: '', locationUri: location, parameters: {}, ownerName: owner(), ownerType: types.PrincipalType.USER });
    await this.#call('create_database', (c) => c.create_database(db), ['AlreadyExistsException']);
  }

  async listDatabases(): Promise<string[]> {
    const names = await this.#call<string[]>('get_all_databases', (c) => c.get_all_databases());
    return [...names].sort();
  }

  /** @throws CATALOG_TABLE_EXISTS, TABLE_NOT_FOUND (no schema in the warehouse) */
  async registerTable(ref: TableRef, location: string): Promise<void> {
    const table = await openTable(this.#options.store, ref.database, ref.table);
    const s = table.schema;
    const schema: PaimonSchema = {
      columns: s.fields.map((f) => ({ name: f.name, type: f.type, ...(f.description === undefined ? {} : { description: f.description }) })),
      partitionKeys: s.partitionKeys,
      options: s.options,
      ...(s.comment === undefined ? {} : { comment: s.comment }),
    };
    await this.createDatabase(ref.database);
    const hms = hmsTable({ database: ref.database, table: ref.table, schema, location, owner: owner(), nowMillis: Date.now() });
    const result = await this.#call('create_table', (c) => c.create_table(hms), ['AlreadyExistsException']);
    if (result === 'AlreadyExistsException') {
      throw errorFrom(catalogErrors, 'CATALOG_TABLE_EXISTS', `the Hive Metastore already holds ${ref.database}.${ref.table}`, { database: ref.database, table: ref.table });
    }
  }

  async listTables(database: string): Promise<string[]> {
    const names = await this.#call<string[], 'NoSuchObjectException' | 'UnknownDBException'>('get_all_tables', (c) => c.get_all_tables(database), ['NoSuchObjectException', 'UnknownDBException']);
    if (typeof names === 'string' || names.length === 0) return [];
    const request = struct(types.GetTablesRequest, { dbName: database, tblNames: names });
    const { tables } = await this.#call<InstanceType<typeof types.GetTablesResult>>('get_table_objects_by_name_req', (c) => c.get_table_objects_by_name_req(request));
    return tables.filter(isPaimonTable).map((t) => t.tableName).sort();
  }

  async #hmsTable(ref: TableRef): Promise<InstanceType<typeof types.Table> | null> {
    const request = struct(types.GetTableRequest, { dbName: ref.database, tblName: ref.table });
    const result = await this.#call<InstanceType<typeof types.GetTableResult>, 'NoSuchObjectException'>('get_table_req', (c) => c.get_table_req(request), ['NoSuchObjectException']);
    return typeof result === 'string' ? null : result.table;
  }

  async tableLocation(ref: TableRef): Promise<string | null> {
    const table = await this.#hmsTable(ref);
    if (table === null || !isPaimonTable(table)) return null;
    return localLocation(this.#options.warehouse, table.sd.location);
  }

  async dropTable(ref: TableRef): Promise<void> {
    await this.#call('drop_table', (c) => c.drop_table(ref.database, ref.table, false), ['NoSuchObjectException']);
    this.#forget(ref);
  }

  async withLock<T>(ref: TableRef, fn: () => Promise<T>): Promise<T> {
    if (this.#options.lockEnabled !== true) return fn();
    return withHiveLock(this.#conn, ref, this.#lock, fn);
  }

  /** Refreshes the metastore after a published snapshot. Never throws (see the module comment). */
  async afterCommit(ref: TableRef, commit: CommittedSnapshot): Promise<void> {
    if (this.#closed) return;
    const key = `${ref.database}.${ref.table}`;
    let job = this.#pending.get(key);
    if (job === undefined) {
      job = { snapshotId: commit.snapshotId, partitions: new Map(), attempt: 0, timer: null, running: false };
      this.#pending.set(key, job);
    }
    job.snapshotId = Math.max(job.snapshotId, commit.snapshotId);
    for (const spec of commit.addedPartitions) job.partitions.set(JSON.stringify(Object.entries(spec).sort()), spec);
    // A new commit restarts the tries: it is a new request to bring the metastore up to date.
    job.attempt = 0;
    if (job.timer !== null) {
      clearTimeout(job.timer);
      job.timer = null;
    }
    if (!job.running) await this.#runRefresh(ref, key, job);
  }

  /** The refreshes not done yet (failed ones waiting for a retry or for the next commit). */
  pendingRefreshes(): { database: string; table: string; snapshotId: number; partitions: number; attempt: number }[] {
    return [...this.#pending.entries()].map(([key, job]) => {
      const dot = key.indexOf('.');
      return { database: key.slice(0, dot), table: key.slice(dot + 1), snapshotId: job.snapshotId, partitions: job.partitions.size, attempt: job.attempt };
    });
  }

  async #runRefresh(ref: TableRef, key: string, job: PendingRefresh): Promise<void> {
    job.running = true;
    job.attempt += 1;
    const snapshotId = job.snapshotId;
    const specs = [...job.partitions.entries()];
    try {
      await this.#refreshOnce(ref, specs.map(([, spec]) => spec));
      for (const [id] of specs) job.partitions.delete(id);
      if (job.partitions.size === 0 && job.snapshotId === snapshotId) this.#pending.delete(key);
      this.#report({ database: ref.database, table: ref.table, snapshotId, status: 'refreshed', attempt: job.attempt, partitions: specs.length });
      // A commit that arrived while this refresh ran is refreshed now.
      if (this.#pending.get(key) === job) {
        job.running = false;
        job.attempt = 0;
        await this.#runRefresh(ref, key, job);
      }
    } catch (error) {
      const base = { database: ref.database, table: ref.table, snapshotId, attempt: job.attempt, partitions: specs.length, error: toErrorData(error) };
      if (job.attempt >= this.#refresh.attempts || this.#closed) {
        this.#report({ ...base, status: 'failed' });
      } else {
        const retryInMs = Math.min(this.#refresh.initialDelayMs * 2 ** (job.attempt - 1), this.#refresh.maxDelayMs);
        this.#report({ ...base, status: 'retrying', retryInMs });
        job.timer = setTimeout(() => {
          job.timer = null;
          if (!job.running && this.#pending.get(key) === job) void this.#runRefresh(ref, key, job);
        }, retryInMs);
      }
    } finally {
      job.running = false;
    }
  }

  /** Registers the partitions and rewrites the statistics from the table's latest snapshot. @throws on any failure */
  async #refreshOnce(ref: TableRef, specs: readonly Readonly<Record<string, string>>[]): Promise<void> {
    const hms = await this.#hmsTable(ref);
    if (hms === null) throw errorFrom(catalogErrors, 'CATALOG_REQUEST_FAILED', `the Hive Metastore holds no table ${ref.database}.${ref.table} to refresh`, { database: ref.database, table: ref.table });
    const table = await openTable(this.#options.store, ref.database, ref.table);
    const { snapshotId, files } = await table.dataFiles();
    if (snapshotId === null) return;
    const snapshot = await table.snapshot(snapshotId);
    const stats = statsByPartition(files);
    const env = DO_NOT_UPDATE_STATS;
    if (metastorePartitioned({ partitionKeys: table.schema.partitionKeys, options: table.schema.options }) && hms.partitionKeys.length > 0) {
      if (specs.length === 0) return;
      const keys = hms.partitionKeys.map((k) => k.name);
      const parts = hmsPartitions(hms, specs, Date.now());
      const request = struct(types.AddPartitionsRequest, { dbName: ref.database, tblName: ref.table, parts, ifNotExists: true, needResult: false });
      // Partition values are cell values: the metastore's message, which may quote them, is not kept.
      await this.#call('add_partitions_req', (c) => c.add_partitions_req(request), [], false);
      const updated: InstanceType<typeof types.Partition>[] = [];
      for (const spec of specs) {
        const values = partitionValues(keys, spec);
        const part = await this.#call<InstanceType<typeof types.Partition>>('get_partition', (c) => c.get_partition(ref.database, ref.table, values), [], false);
        const s = stats.get(partitionName(keys, values)) ?? { files: 0, bytes: 0, rows: 0 };
        part.parameters = { ...part.parameters, ...statisticsParameters(s, Number(snapshot.timeMillis)) };
        updated.push(part);
      }
      await this.#call('alter_partitions_with_environment_context', (c) => c.alter_partitions_with_environment_context(ref.database, ref.table, updated, env), [], false);
    } else {
      let total = { files: 0, bytes: 0, rows: 0 };
      for (const s of stats.values()) total = { files: total.files + s.files, bytes: total.bytes + s.bytes, rows: total.rows + s.rows };
      hms.parameters = { ...hms.parameters, ...statisticsParameters(total, Number(snapshot.timeMillis)) };
      await this.#call('alter_table_with_environment_context', (c) => c.alter_table_with_environment_context(ref.database, ref.table, hms, env));
    }
  }

  #report(event: HiveRefreshEvent): void {
    const log = this.#options.log;
    const fields = { catalog: 'hive', database: event.database, table: event.table, snapshotId: event.snapshotId, attempt: event.attempt, partitions: event.partitions, code: event.error?.code };
    if (event.status === 'refreshed') log?.info(fields, 'hive metastore refreshed');
    else if (event.status === 'retrying') log?.warn({ ...fields, retryInMs: event.retryInMs }, 'hive metastore refresh failed; retrying');
    else log?.error(fields, 'hive metastore refresh failed; the next commit of the table retries it');
    this.#options.onRefresh?.(event);
  }

  #forget(ref: TableRef): void {
    const key = `${ref.database}.${ref.table}`;
    const job = this.#pending.get(key);
    if (job?.timer) clearTimeout(job.timer);
    this.#pending.delete(key);
  }

  async ping(): Promise<void> {
    await this.#call('get_all_databases', (c) => c.get_all_databases());
  }

  async close(): Promise<void> {
    this.#closed = true;
    for (const job of this.#pending.values()) if (job.timer !== null) clearTimeout(job.timer);
    this.#conn.close();
  }
}

export function hiveCatalog(options: HiveCatalogOptions): HiveCatalog {
  return new HiveCatalog(options);
}
