/**
 * The table API that ties spec/, io/, write/ and read/ together, over a filesystem-catalog
 * warehouse (org.apache.paimon.catalog.FileSystemCatalog layout):
 *
 *   <warehouse>/<db>.db/<table>/schema/schema-0   snapshot/…   manifest/…   <k=v>/bucket-N/data-….parquet
 *
 *   const table = await createTable(store, { database, name, schema })   // or openTable(store, db, name)
 *   const write = await table.newWrite({ writerId })                      // workers, in parallel
 *   await write.write(batch); const messages = await write.prepareCommit()
 *   await table.newCommit(commitUser).commit(messages, { identifier })    // one committer
 *   for await (const row of table.newRead({ snapshotId }).rows()) …       // any time
 */
import { errorFrom, isTributaryError } from '@tributary/errors';
import { tableErrors } from './errors.ts';
import type { ObjectStore } from './io/object-store.ts';
import { parseDataTypeString } from './spec/data-type-json.ts';
import {
  SCHEMA_VERSION, bucketCount, decodeTableSchema, encodeTableSchema, partitionFields, validateTableSchema, type TableSchema,
} from './spec/table-schema.ts';
import type { Snapshot } from './spec/snapshot.ts';
import { encodeEntriesAhead, type ManifestEntry } from './spec/manifest-entry.ts';
import type { DataType, InternalValue } from './spec/types.ts';
import { encodePartitionRow } from './write/row-routing.ts';
import { dataFilePaths, partitionPathOptions, unescapePathName } from './spec/partition-path.ts';
import { FileStoreCommit, type CommitRequest, type CommitResult } from './write/file-store-commit.ts';
import type { CommitMessage } from './spec/commit-message.ts';
import { checkDataFilesOnly } from './write/commit-plan.ts';
import { manifestMergeOptions, parseMemorySize } from './write/manifest-merge.ts';
import { appendOptions, universalOptions } from './write/compact-plan.ts';
import { TableWrite, type TableWriteOptions } from './write/table-write.ts';
import { SequenceRebaser } from './write/sequence-rebase.ts';
import { SnapshotManager } from './snapshot/snapshot-manager.ts';
import { FileStoreScan, mapInOrder } from './snapshot/file-store-scan.ts';
import { TableRead, type TableReadOptions } from './read/table-read.ts';
import { countSharedKeys, writerKeyRanges, type WriterKeyRanges } from './read/shared-keys.ts';
import { ChangelogWrite, type ChangelogWriteOptions } from './changelog-write.ts';
import { readChangelog, type ChangelogRecord } from './read/changelog-read.ts';
import { auditChangelog, type ChangelogAudit, type ChangelogAuditRequest } from './changelog-audit.ts';
import { DEFAULT_RETENTION, type RetentionOptions } from './snapshot/expire-plan.ts';
import { expireSnapshots, type ExpireResult } from './snapshot/expire-snapshots.ts';
import { DEFAULT_ORPHAN_AGE_MS, findOrphanFiles, type OrphanScan } from './snapshot/orphan-files.ts';
import { TableFiles } from './snapshot/table-files.ts';

/** A column of a table to create: the type as a DataType or as Paimon type text ('DECIMAL(18, 2)'). */
export interface ColumnDefinition {
  readonly name: string;
  readonly type: DataType | string;
  readonly description?: string;
}

/** What createTable needs (org.apache.paimon.schema.Schema): field ids are assigned 0, 1, 2, … */
export interface SchemaDefinition {
  readonly fields: readonly ColumnDefinition[];
  readonly partitionKeys?: readonly string[];
  readonly primaryKeys?: readonly string[];
  readonly options?: Readonly<Record<string, string>>;
  readonly comment?: string;
}

/** A column as a table describes it. */
export interface ColumnSpec {
  readonly name: string;
  readonly type: DataType;
  readonly description?: string;
}

/** What a table shows of itself (Table.describe): its schema and the size of its latest snapshot. */
export interface TableDescription {
  readonly database: string;
  readonly table: string;
  readonly schemaId: number;
  readonly columns: readonly ColumnSpec[];
  readonly partitionKeys: readonly string[];
  readonly primaryKeys: readonly string[];
  readonly options: Readonly<Record<string, string>>;
  readonly latestSnapshotId: number | null;
  /** Live data files of the latest snapshot (its manifests are read). */
  readonly fileCount: number;
  readonly rowCount: number;
}

/** When maintenance is due (Table.describeWithStats): files by level and size, snapshots kept. */
export interface TableStats {
  /** Live data files of the latest snapshot by LSM level (`"0"`: files no compaction merged yet). */
  readonly filesPerLevel: Readonly<Record<string, number>>;
  /** Bytes of the live data files, and their mean size (0 without files). */
  readonly totalFileSize: number;
  readonly averageFileSize: number;
  /** Snapshot files present (one listing of `snapshot/`), and the oldest of them. */
  readonly snapshotCount: number;
  readonly earliestSnapshotId: number | null;
}

export interface TableIdentifier {
  readonly database: string;
  readonly name: string;
}

/** `<db>.db/<table>`: the table's key prefix in the warehouse store. */
export function tablePath(id: TableIdentifier): string {
  for (const part of [id.database, id.name]) {
    if (part === '' || part.includes('/') || part === '.' || part === '..') {
      throw errorFrom(tableErrors, 'SCHEMA_INVALID', `'${part}' is not a valid database or table name`, { name: part });
    }
  }
  return `${id.database}.db/${id.name}`;
}

/** Builds schema-0 as Java's SchemaManager.createTable does (PK fields NOT NULL, explicit bucket and file.format). */
export function newTableSchema(definition: SchemaDefinition, timeMillis: number): TableSchema {
  const primaryKeys = definition.primaryKeys ?? [];
  const fields = definition.fields.map((f, id) => {
    const parsed = typeof f.type === 'string' ? parseDataTypeString(f.type) : f.type;
    const type = primaryKeys.includes(f.name) ? { ...parsed, nullable: false } : parsed;
    return { id, name: f.name, type, ...(f.description !== undefined ? { description: f.description } : {}) };
  });
  const options = { bucket: '-1', 'file.format': 'parquet', ...definition.options };
  return {
    version: SCHEMA_VERSION,
    id: 0,
    fields,
    highestFieldId: fields.length - 1,
    partitionKeys: definition.partitionKeys ?? [],
    primaryKeys,
    options,
    ...(definition.comment !== undefined ? { comment: definition.comment } : {}),
    timeMillis,
  };
}

/** The key of a table's schema file `schema/schema-<id>`. */
export function schemaFileKey(tablePath: string, schemaId: number): string {
  return `${tablePath}/schema/schema-${schemaId}`;
}

/**
 * Creates a table: writes `schema/schema-0` with put-if-absent, after refusing what Tributary
 * does not write correctly (validateTableSchema).
 * @throws TABLE_ALREADY_EXISTS, TABLE_UNSUPPORTED, SCHEMA_INVALID
 */
export async function createTable(
  store: ObjectStore,
  request: TableIdentifier & { readonly schema: SchemaDefinition },
): Promise<Table> {
  const schema = newTableSchema(request.schema, Date.now());
  validateTableSchema(schema);
  const path = tablePath(request);
  checkOptionValues(new Table(store, request, schema));
  try {
    await store.putIfAbsent(schemaFileKey(path, 0), new TextEncoder().encode(encodeTableSchema(schema)));
  } catch (error) {
    if (isTributaryError(error) && error.code === 'OBJECT_ALREADY_EXISTS') {
      throw errorFrom(tableErrors, 'TABLE_ALREADY_EXISTS', `table ${request.database}.${request.name} already exists`, { table: path });
    }
    throw error;
  }
  return new Table(store, request, schema);
}

/**
 * The options a new table stores that its loads and maintenance read, read as they will be, so a
 * value none of them could use (`target-file-size: -1`, `snapshot.num-retained.min: 0`) is refused
 * when the table is made rather than by every sync after; and the options that would make Paimon's
 * readers look elsewhere than where Tributary writes (`path`, a `branch` other than main).
 * @throws TABLE_OPTION_INVALID, TABLE_UNSUPPORTED
 */
function checkOptionValues(table: Table): void {
  const options = table.schema.options;
  const target = options['target-file-size'];
  if (target !== undefined && parseMemorySize(target) <= 0) {
    throw errorFrom(tableErrors, 'TABLE_OPTION_INVALID', `target-file-size = '${target}' must be more than 0 bytes`, { option: 'target-file-size' });
  }
  manifestMergeOptions(options);
  universalOptions(options);
  appendOptions(options);
  table.retention();
  if (options.path !== undefined) {
    throw errorFrom(tableErrors, 'TABLE_UNSUPPORTED', 'path may not be set: a table lives where its warehouse, database and name put it', { option: 'path' });
  }
  const branch = options.branch;
  if (branch !== undefined && branch.trim() !== 'main') {
    throw errorFrom(tableErrors, 'TABLE_UNSUPPORTED', 'branch may only be main: Tributary writes the main branch, which other readers would then not read', { option: 'branch' });
  }
}

/**
 * Every table of the warehouse, by database then name, as FileSystemCatalog lists them: the
 * directories `<db>.db` at the root, and below each the directories that hold a schema. Uses
 * delimiter listings (ObjectStore.listDirectories), never a listing of the tables' files.
 */
export async function listTables(store: ObjectStore): Promise<TableIdentifier[]> {
  const databases: string[] = [];
  for await (const dir of store.listDirectories('')) if (dir.endsWith(DATABASE_SUFFIX) && dir.length > DATABASE_SUFFIX.length) databases.push(dir);
  const perDatabase = await mapInOrder(databases, CATALOG_PARALLELISM, async (dir) => {
    const names: string[] = [];
    for await (const name of store.listDirectories(`${dir}/`)) names.push(name);
    const isTable = await mapInOrder(names, CATALOG_PARALLELISM, (name) => hasSchema(store, `${dir}/${name}/`));
    const database = dir.slice(0, -DATABASE_SUFFIX.length);
    return names.filter((_, i) => isTable[i]).map((name) => ({ database, name }));
  });
  const key = (id: TableIdentifier) => `${id.database}\u0000${id.name}`;
  return perDatabase.flat().sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
}

const DATABASE_SUFFIX = '.db';
/** Listings in flight at once while listing a catalog. */
const CATALOG_PARALLELISM = 8;

async function hasSchema(store: ObjectStore, tableDir: string): Promise<boolean> {
  const prefix = `${tableDir}schema/schema-`;
  for await (const meta of store.list(prefix)) if (/^\d+$/.test(meta.key.slice(prefix.length))) return true;
  return false;
}

/** One live data file of a snapshot (Table.dataFiles). */
export interface DataFileSummary {
  /** The partition directory (`dt=2024-01-01/`); '' for an unpartitioned table. */
  readonly partition: string;
  readonly bucket: number;
  readonly level: number;
  /** The file's key below the table (`dt=2024-01-01/bucket-0/data-….parquet`). */
  readonly path: string;
  readonly rows: number;
  readonly size: number;
}

/** Opens a table with its latest schema. @throws TABLE_NOT_FOUND */
export async function openTable(store: ObjectStore, database: string, name: string): Promise<Table> {
  const path = tablePath({ database, name });
  let latest: number | null = null;
  for await (const meta of store.list(`${path}/schema/schema-`)) {
    const suffix = meta.key.slice(meta.key.lastIndexOf('schema-') + 'schema-'.length);
    if (/^\d+$/.test(suffix) && (latest === null || Number(suffix) > latest)) latest = Number(suffix);
  }
  if (latest === null) {
    throw errorFrom(tableErrors, 'TABLE_NOT_FOUND', `table ${database}.${name} does not exist in ${store.uri}`, { table: path });
  }
  const schema = decodeTableSchema(new TextDecoder().decode(await store.get(schemaFileKey(path, latest))));
  return new Table(store, { database, name }, schema);
}

/** The committer of one commit user (org.apache.paimon.table.sink.TableCommitImpl). */
export interface TableCommit {
  commit(messages: readonly CommitMessage[], request?: CommitRequest): Promise<CommitResult>;
  /**
   * Deletes the data files the messages list (TableCommitImpl.abort). Only for messages that are
   * known never to have been committed: a commit whose outcome is unknown must be resolved first
   * (commit again with the same identity: it finds its own snapshot or commits).
   */
  abort(messages: readonly CommitMessage[]): Promise<void>;
}

/** Paimon's options that keep a table's changelog longer than its snapshots (a decoupled changelog). */
const CHANGELOG_RETENTION_OPTIONS = ['changelog.num-retained.min', 'changelog.num-retained.max', 'changelog.time-retained'] as const;

export class Table {
  readonly store: ObjectStore;
  readonly database: string;
  readonly name: string;
  /** `<db>.db/<table>` inside the store. */
  readonly path: string;
  readonly schema: TableSchema;
  readonly snapshots: SnapshotManager;

  constructor(store: ObjectStore, id: TableIdentifier, schema: TableSchema) {
    this.store = store;
    this.database = id.database;
    this.name = id.name;
    this.path = tablePath(id);
    this.schema = schema;
    this.snapshots = new SnapshotManager(store, this.path);
  }

  latestSnapshot(): Promise<Snapshot | null> {
    return this.snapshots.latestSnapshot();
  }

  snapshot(id: number): Promise<Snapshot> {
    return this.snapshots.snapshot(id);
  }

  /**
   * The live data files of a snapshot (the latest by default; null and none when the table has no
   * snapshot), sorted by path. @throws SNAPSHOT_NOT_FOUND
   */
  async dataFiles(snapshotId?: number): Promise<{ snapshotId: number | null; files: DataFileSummary[] }> {
    const snapshot = snapshotId === undefined ? await this.latestSnapshot() : await this.snapshot(snapshotId);
    if (snapshot === null) return { snapshotId: null, files: [] };
    const fields = partitionFields(this.schema);
    const paths = dataFilePaths(fields, partitionPathOptions(this.schema.options));
    const entries = await new FileStoreScan(this.store, this.path, fields).plan(snapshot);
    const files = entries.map((e) => ({
      partition: paths.directory(e.partition),
      bucket: e.bucket,
      level: e.file.level,
      path: paths.file(e.partition, e.bucket, e.file.fileName),
      rows: Number(e.file.rowCount),
      size: Number(e.file.fileSize),
    }));
    return { snapshotId: Number(snapshot.id), files: files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)) };
  }

  /** The schema, and the latest snapshot's id, live file count (from its manifests) and row count. */
  async describe(): Promise<TableDescription> {
    return (await this.#describe()).description;
  }

  /** describe(), and the stats that tell when maintenance is due (one more listing: `snapshot/`). */
  async describeWithStats(): Promise<TableDescription & TableStats> {
    const { description, files } = await this.#describe();
    const ids = await this.snapshots.listIds();
    const filesPerLevel: Record<string, number> = {};
    let totalFileSize = 0;
    for (const e of files) {
      filesPerLevel[String(e.file.level)] = (filesPerLevel[String(e.file.level)] ?? 0) + 1;
      totalFileSize += Number(e.file.fileSize);
    }
    return {
      ...description,
      filesPerLevel,
      totalFileSize,
      averageFileSize: files.length === 0 ? 0 : Math.round(totalFileSize / files.length),
      snapshotCount: ids.length,
      earliestSnapshotId: ids[0] ?? null,
    };
  }

  async #describe(): Promise<{ description: TableDescription; files: readonly ManifestEntry[] }> {
    const schema = this.schema;
    const snapshot = await this.latestSnapshot();
    const files = snapshot === null ? [] : await new FileStoreScan(this.store, this.path, partitionFields(schema)).plan(snapshot);
    const description: TableDescription = {
      database: this.database,
      table: this.name,
      schemaId: schema.id,
      columns: schema.fields.map((f) => ({ name: f.name, type: f.type, ...(f.description === undefined ? {} : { description: f.description }) })),
      partitionKeys: schema.partitionKeys,
      primaryKeys: schema.primaryKeys,
      options: schema.options,
      latestSnapshotId: snapshot === null ? null : Number(snapshot.id),
      fileCount: files.length,
      rowCount: snapshot === null ? 0 : Number(snapshot.totalRecordCount),
    };
    return { description, files };
  }

  /**
   * The retention options of the table (`snapshot.num-retained.min`, `.max`, `snapshot.time-retained`,
   * `snapshot.expire.limit`, Paimon's defaults), each replaced by an override given.
   * @throws TABLE_OPTION_INVALID
   */
  retention(overrides: Partial<RetentionOptions> = {}): RetentionOptions {
    const o = this.schema.options;
    const retention = {
      retainMin: intOption(o, 'snapshot.num-retained.min', DEFAULT_RETENTION.retainMin),
      retainMax: intOption(o, 'snapshot.num-retained.max', DEFAULT_RETENTION.retainMax),
      timeRetainedMs: durationOption(o, 'snapshot.time-retained', DEFAULT_RETENTION.timeRetainedMs),
      maxDeletes: intOption(o, 'snapshot.expire.limit', DEFAULT_RETENTION.maxDeletes),
      ...Object.fromEntries(Object.entries(overrides).filter(([, v]) => v !== undefined)),
    };
    if (retention.retainMin < 1 || retention.retainMax < retention.retainMin) {
      throw errorFrom(tableErrors, 'TABLE_OPTION_INVALID', `snapshot.num-retained.min (${retention.retainMin}) must be at least 1 and at most snapshot.num-retained.max (${retention.retainMax})`, {
        option: 'snapshot.num-retained.min',
      });
    }
    return retention;
  }

  /**
   * Expires the snapshots the retention options (or `retention` overrides) no longer keep, and the
   * files only they reached (snapshot/expire-snapshots.ts). `protectFrom`: the oldest snapshot a
   * live writer planned on; it and every later snapshot stay.
   */
  async expireSnapshots(request: { readonly retention?: Partial<RetentionOptions>; readonly protectFrom?: number; readonly now?: number } = {}): Promise<ExpireResult> {
    // Paimon keeps such a table's changelog beyond its snapshots (in changelog/); expiring here would delete it.
    const decoupled = CHANGELOG_RETENTION_OPTIONS.filter((o) => this.schema.options[o] !== undefined);
    if (decoupled.length > 0) {
      throw errorFrom(
        tableErrors,
        'TABLE_UNSUPPORTED',
        `${this.database}.${this.name} sets ${decoupled.join(', ')}: its changelog is kept apart from its snapshots, which Tributary's expiration does not do; expire it with Paimon (expire_snapshots)`,
        { table: this.path, options: decoupled.join(',') },
      );
    }
    return expireSnapshots(this.snapshots, this.#files(), {
      retention: this.retention(request.retention),
      now: request.now ?? Date.now(),
      ...(request.protectFrom === undefined ? {} : { protectFrom: request.protectFrom }),
    });
  }

  /** The files of the table no snapshot or tag reaches, older than `olderThanMs` (default 1 day) and not protected. */
  async findOrphanFiles(request: { readonly olderThanMs?: number; readonly now?: number; readonly isProtected?: (key: string) => boolean } = {}): Promise<OrphanScan> {
    // Branches (their snapshots name files in the table's own directories) and a changelog kept
    // beyond the snapshots reach files the scan would not see: it refuses rather than delete them.
    for (const dir of ['branch', 'changelog']) {
      for await (const meta of this.store.list(`${this.path}/${dir}/`)) {
        throw errorFrom(
          tableErrors,
          'TABLE_UNSUPPORTED',
          `${this.database}.${this.name} has ${dir === 'branch' ? 'branches' : 'a changelog kept beyond its snapshots'} (${dir}/), whose files an orphan scan here cannot tell from orphans; remove orphan files with Paimon (remove_orphan_files)`,
          { table: this.path, directory: dir, found: meta.key.slice(this.path.length + 1) },
        );
      }
    }
    return findOrphanFiles(this.snapshots, this.#files(), {
      olderThanMs: request.olderThanMs ?? DEFAULT_ORPHAN_AGE_MS,
      now: request.now ?? Date.now(),
      ...(request.isProtected === undefined ? {} : { isProtected: request.isProtected }),
    });
  }

  #files(): TableFiles {
    return new TableFiles({ store: this.store, tablePath: this.path, paths: dataFilePaths(partitionFields(this.schema), partitionPathOptions(this.schema.options)) });
  }

  /** A writer for one worker; see TableWriteOptions (writerId starts its file names). */
  newWrite(options: TableWriteOptions = {}): Promise<TableWrite> {
    return TableWrite.open(this.store, this.path, this.schema, options);
  }

  /**
   * A writer for a table with `changelog-producer = input`: writes each bucket's final changes with
   * their complete changelog, computed from the base snapshot (changelog-write.ts). Commit its
   * messages with `baseSnapshotId` set to the same snapshot.
   */
  newChangelogWrite(options: ChangelogWriteOptions): Promise<ChangelogWrite> {
    return ChangelogWrite.open(this.store, this.path, this.schema, options);
  }

  /** A committer; commitUser + identifier is the commit identity that makes retries safe. */
  newCommit(commitUser: string): TableCommit {
    const o = this.schema.options;
    const commit = new FileStoreCommit({
      store: this.store,
      tablePath: this.path,
      commitUser,
      schemaId: this.schema.id,
      partitionFields: partitionFields(this.schema),
      partitionPath: partitionPathOptions(o),
      maxRetries: intOption(o, 'commit.max-retries', 10),
      minRetryWaitMs: durationOption(o, 'commit.min-retry-wait', 10),
      maxRetryWaitMs: durationOption(o, 'commit.max-retry-wait', 10_000),
      manifestMerge: manifestMergeOptions(o),
      ...(this.schema.primaryKeys.length > 0
        ? { rebaser: new SequenceRebaser({ store: this.store, tablePath: this.path, schema: this.schema, bucketDir: (p, b) => this.#bucketDir(p, b) }) }
        : {}),
    });
    return {
      commit: (messages, request) => commit.commit(messages, request),
      abort: (messages) => this.store.deleteMany(this.dataFileKeys(messages)),
    };
  }

  /** Reads the rows of a snapshot (the latest by default). */
  newRead(options: TableReadOptions = {}): TableRead {
    return new TableRead(this.store, this.path, this.schema, options);
  }

  /**
   * The changelog rows a snapshot committed, in the order a streaming reader gets them (file by
   * file, unmerged); none when it carries no changelog. With `key` (the primary-key values without
   * the partition keys), only that key's rows. @throws SNAPSHOT_NOT_FOUND
   */
  async *changelog(snapshotId: number, key?: readonly InternalValue[]): AsyncGenerator<ChangelogRecord> {
    const snapshot = await this.snapshot(snapshotId);
    const scan = new FileStoreScan(this.store, this.path, partitionFields(this.schema));
    yield* readChangelog(this.newRead({ snapshotId }), scan, snapshot, key);
  }

  /** Per key, the changelog rows of snapshots [from, to] and their anomalies (changelog-audit.ts). */
  auditChangelog(request: ChangelogAuditRequest): Promise<ChangelogAudit> {
    return auditChangelog(this.store, this.path, this.schema, request);
  }

  /**
   * Primary keys written by more than one writer: `shards` holds each writer's messages (a sync's
   * shards). Reads only the key columns of files whose key ranges overlap another writer's; 0 for
   * an append table.
   */
  countSharedKeys(shards: readonly (readonly CommitMessage[])[], known?: readonly (WriterKeyRanges | undefined)[]): Promise<number> {
    return countSharedKeys({ store: this.store, tablePath: this.path, schema: this.schema, bucketDir: (p, b) => this.#bucketDir(p, b), check: checkDataFilesOnly }, shards, known);
  }

  /**
   * One writer's key ranges, decoded now for a later countSharedKeys over the same messages (`known`),
   * which then only sorts and merges; undefined for an append table. Pure: reads nothing.
   * @throws COMMIT_MESSAGE_UNSUPPORTED as countSharedKeys would
   */
  writerKeyRanges(messages: readonly CommitMessage[]): WriterKeyRanges | undefined {
    return writerKeyRanges(this.schema, messages, checkDataFilesOnly);
  }

  /**
   * Encodes the manifest entries of the messages' new files now (pure; kept by file object until
   * the file is garbage), so that a commit of these very messages copies their bytes instead of
   * encoding them (spec/manifest-entry.ts encodeEntriesAhead). The manifests are the same.
   */
  encodeFilesAhead(messages: readonly CommitMessage[]): void {
    // The ADD entries a commit's delta makes of the messages' new files (commit-plan.ts deltaEntries).
    encodeEntriesAhead(messages.flatMap((m) => m.dataIncrement.newFiles.map((file) => ({ kind: 'ADD' as const, partition: m.partition, bucket: m.bucket, totalBuckets: m.totalBuckets ?? -1, file }))));
  }

  /** The store keys of the data files the messages add (`<table>/<partition>/bucket-N/<file>`). */
  dataFileKeys(messages: readonly CommitMessage[]): string[] {
    const paths = dataFilePaths(partitionFields(this.schema), partitionPathOptions(this.schema.options));
    return messages.flatMap((m) => [...m.dataIncrement.newFiles, ...m.dataIncrement.changelogFiles].map((f) => `${this.path}/${paths.file(m.partition, m.bucket, f.fileName)}`));
  }

  /**
   * The partitions the messages add data files to, each as partition key -> value text as its
   * directory spells it (`dt=2024-01-01/` is `{ dt: '2024-01-01' }`), in first-seen order; none for
   * an unpartitioned table. What a metastore registers after the commit.
   */
  addedPartitions(messages: readonly CommitMessage[]): Record<string, string>[] {
    const paths = dataFilePaths(partitionFields(this.schema), partitionPathOptions(this.schema.options));
    const directories = new Set<string>();
    for (const m of messages) if (m.dataIncrement.newFiles.length > 0 && this.schema.partitionKeys.length > 0) directories.add(paths.directory(m.partition));
    return [...directories].map(partitionSpec);
  }

  /**
   * The partitions holding live data files in the latest snapshot (none when the table has no
   * snapshot or no partition keys), spelled as addedPartitions spells them, sorted by directory:
   * what a metastore's repair registers.
   */
  async livePartitions(): Promise<{ snapshotId: number | null; partitions: Record<string, string>[] }> {
    const { snapshotId, files } = await this.dataFiles();
    if (this.schema.partitionKeys.length === 0) return { snapshotId, partitions: [] };
    return { snapshotId, partitions: [...new Set(files.map((f) => f.partition))].sort().map(partitionSpec) };
  }

  /** `<partition path>bucket-N/`, relative to the table (DataFilePathFactory). */
  #bucketDir(partition: Uint8Array, bucket: number): string {
    return `${dataFilePaths(partitionFields(this.schema), partitionPathOptions(this.schema.options)).directory(partition)}bucket-${bucket}/`;
  }

  /** The arity-prefixed partition row of these partition values (for overwritePartitions). */
  partitionRow(values: Readonly<Record<string, InternalValue>>): Uint8Array {
    const fields = partitionFields(this.schema);
    return encodePartitionRow(fields.map((f) => values[f.name] ?? null), fields.map((f) => f.type));
  }

  get bucketCount(): number {
    return bucketCount(this.schema);
  }
}

/** `dt=2024-01-01/region=eu/` as `{ dt: '2024-01-01', region: 'eu' }` (the directory's escapes undone). */
function partitionSpec(directory: string): Record<string, string> {
  return Object.fromEntries(
    directory.split('/').filter((part) => part !== '').map((part) => {
      const eq = part.indexOf('=');
      return [unescapePathName(part.slice(0, eq)), unescapePathName(part.slice(eq + 1))];
    }),
  );
}

function intOption(options: Readonly<Record<string, string>>, key: string, fallback: number): number {
  const text = options[key];
  if (text === undefined) return fallback;
  const n = Number(text.trim());
  if (!Number.isSafeInteger(n) || n < 0) {
    throw errorFrom(tableErrors, 'TABLE_OPTION_INVALID', `${key} = '${text}' is not a non-negative integer`, { option: key });
  }
  return n;
}

/** Paimon durations: '10 ms', '10s', '1 min', '1 h', '1 d'; a bare number is milliseconds. */
function durationOption(options: Readonly<Record<string, string>>, key: string, fallbackMs: number): number {
  const text = options[key];
  if (text === undefined) return fallbackMs;
  const match = /^\s*(\d+)\s*(ms|s|min|m|h|d)?\s*$/i.exec(text);
  if (match === null) {
    throw errorFrom(tableErrors, 'TABLE_OPTION_INVALID', `${key} = '${text}' is not a duration`, { option: key });
  }
  const unit = { ms: 1, s: 1000, min: 60_000, m: 60_000, h: 3_600_000, d: 86_400_000 }[(match[2] ?? 'ms').toLowerCase() as 'ms'];
  return Number(match[1]) * unit;
}
