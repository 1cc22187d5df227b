/**
 * The one seam between Tributary's processes and this library: what the worker and the
 * coordinator do with tables in a warehouse, each call naming its warehouse URI. The worker opens a
 * table at the schema its sync pinned and writes; the coordinator creates, lists, describes, shows
 * and drops tables, publishes a sync's messages as one snapshot and finds out whether it already
 * landed (Paimon's `filterCommitted`). Both reach the warehouse store (staged blobs live beside
 * the tables) and a source's store through it. `warehouseTables` implements it; a test may wrap it (say, a store that
 * corrupts blobs as they are written) and hand the wrapper to a worker or a coordinator.
 */
import { createHash } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import { errorFrom, isTributaryError } from '@tributary/errors';
import { tableErrors } from './errors.ts';
import type { ObjectStore } from './io/object-store.ts';
import { credentialedStores, warehouseStores } from './io/open-object-store.ts';
import { formatDataType } from './spec/data-type-json.ts';
import { decodeTableSchema } from './spec/table-schema.ts';
import { jsonCell, type JsonCell } from './spec/json-value.ts';
import { mapInOrder } from './snapshot/file-store-scan.ts';
import { getOrNull } from './snapshot/table-files.ts';
import type { S3ConnectionOptions } from './io/s3-store.ts';
import type { CommitMessage } from './spec/commit-message.ts';
import type { WriterKeyRanges } from './read/shared-keys.ts';
import type { CommitIdentity, Snapshot } from './spec/snapshot.ts';
import type { CommitKind } from './write/commit-plan.ts';
import { changelogAuditView, type ChangelogAuditQuery, type ChangelogAuditView } from './changelog-audit-view.ts';
import type { RetentionOptions } from './snapshot/expire-plan.ts';
import type { ExpireResult } from './snapshot/expire-snapshots.ts';
import type { OrphanScan } from './snapshot/orphan-files.ts';
import { createTable, listTables, openTable, schemaFileKey, tablePath, type DataFileSummary, type SchemaDefinition, type Table, type TableDescription, type TableStats } from './table.ts';

/** A table of the warehouse, by database and table name. */
export interface TableRef {
  readonly database: string;
  readonly table: string;
}

/** One table of the warehouse, as a listing shows it. */
export interface TableSummary {
  readonly database: string;
  readonly table: string;
  readonly primaryKeys: readonly string[];
  readonly partitionKeys: readonly string[];
  /** The `bucket` option: N fixed buckets, -1 bucket-unaware (append) or dynamic. */
  readonly bucket: number;
  readonly latestSnapshotId: number | null;
}

/** One snapshot of a table, as a listing of its snapshots shows it. */
export interface SnapshotSummary {
  readonly id: number;
  readonly commitKind: string;
  /** ISO time of the commit. */
  readonly time: string;
  readonly commitUser: string;
  readonly totalRecordCount: number;
  readonly deltaRecordCount: number;
  readonly changelogRecordCount: number | null;
  readonly properties: Readonly<Record<string, string>>;
}

/** The first rows of a snapshot, every value JSON-safe (jsonCell). */
export interface RowPreview {
  readonly snapshotId: number | null;
  readonly columns: readonly { readonly name: string; readonly type: string }[];
  readonly rows: readonly (readonly JsonCell[])[];
}

/** One snapshot to publish: the messages of every shard of a load, under the load's identity. */
export interface PublishRequest {
  readonly messages: readonly CommitMessage[];
  readonly identity: CommitIdentity;
  readonly kind: CommitKind;
  /** OVERWRITE: the partitions (arity-prefixed rows) to replace, those the load touched. */
  readonly overwritePartitions?: readonly Uint8Array[];
  /** The snapshot the load planned against; an identity is looked for only after it. */
  readonly baseSnapshotId: number | null;
  /** Snapshot properties to record (sync id, shard count). */
  readonly properties: Readonly<Record<string, string>>;
  /** A property no snapshot after the base may carry with this value (CommitRequest.exclusive). */
  readonly exclusive?: { readonly key: string; readonly value: string };
  /** Buckets computed from the base snapshot's rows (CommitRequest.baseBuckets). */
  readonly baseBuckets?: readonly { readonly partition: Uint8Array; readonly bucket: number }[];
}

export interface PublishResult {
  readonly snapshotId: number;
  /** Snapshot writes tried (1: the first one landed). */
  readonly attempts: number;
  /** Tries that lost the next snapshot id to another committer. */
  readonly conflicts: number;
}

export interface Tables {
  /**
   * The table at its latest schema. A table opened at `schemaId` is kept and handed out again for
   * that schema id while its schema file still holds the same schema: one GET of `schema-<id>` per
   * call instead of a LIST and a GET. A schema file never changes while its table lives, but a
   * table dropped and created again under the same name starts again at schema 0 (with another
   * `timeMillis`, and maybe other columns and types), so the id alone does not name a schema; a
   * schema file that differs, or is gone, opens the table afresh. The caller compares `schema.id`
   * with what it planned. @throws TABLE_NOT_FOUND
   */
  openTable(warehouse: string, ref: TableRef, schemaId?: number): Promise<Table>;
  createTable(warehouse: string, ref: TableRef, schema: SchemaDefinition): Promise<TableDescription>;
  /** Undefined when the table does not exist. */
  describeTable(warehouse: string, ref: TableRef): Promise<TableDescription | undefined>;
  /**
   * SHA-256 (hex) of the table's `schema-<schemaId>` file; undefined when there is none. A table
   * dropped and created again under its name has another (its schema 0 is written anew).
   */
  schemaSha256(warehouse: string, ref: TableRef, schemaId: number): Promise<string | undefined>;
  /** describeTable and the stats that tell when maintenance is due; undefined when the table does not exist. */
  describeTableWithStats(warehouse: string, ref: TableRef): Promise<(TableDescription & TableStats) | undefined>;
  /** Every table of the warehouse (`<db>.db/<table>` with a schema), sorted by database then name. */
  listTableRefs(warehouse: string): Promise<TableRef[]>;
  /** Undefined when the table does not exist. */
  summarizeTable(warehouse: string, ref: TableRef): Promise<TableSummary | undefined>;
  /**
   * Deletes every object of the table (snapshots first, schemas last, so an interrupted drop leaves
   * a table that a retried drop finishes). @throws TABLE_NOT_FOUND
   */
  dropTable(warehouse: string, ref: TableRef): Promise<void>;
  /** Newest first: at most `limit` snapshots with an id below `beforeId` (all when undefined). @throws TABLE_NOT_FOUND */
  listSnapshots(warehouse: string, ref: TableRef, limit: number, beforeId?: number): Promise<SnapshotSummary[]>;
  /** The live data files of a snapshot (the latest by default), sorted by path. @throws TABLE_NOT_FOUND, SNAPSHOT_NOT_FOUND */
  listFiles(warehouse: string, ref: TableRef, snapshotId?: number): Promise<{ snapshotId: number | null; files: DataFileSummary[] }>;
  /** The first `limit` rows of a snapshot (the latest by default). @throws TABLE_NOT_FOUND, SNAPSHOT_NOT_FOUND */
  previewRows(warehouse: string, ref: TableRef, limit: number, snapshotId?: number): Promise<RowPreview>;
  /**
   * Per key, the changelog rows of a window of snapshots and their anomalies (changelog-audit.ts),
   * JSON-safe. @throws TABLE_NOT_FOUND, SNAPSHOT_NOT_FOUND, CHANGELOG_AUDIT_INVALID
   */
  auditChangelog(warehouse: string, ref: TableRef, query: ChangelogAuditQuery): Promise<ChangelogAuditView>;
  /** Publishes one snapshot; returns its id (the existing one if the identity already landed) and how many tries it took. */
  publish(warehouse: string, ref: TableRef, request: PublishRequest): Promise<PublishResult>;
  /**
   * Primary keys present in more than one shard (`shards`: each shard's messages, in plan order),
   * reading only the key columns of files whose key ranges overlap another shard's; null for an
   * append table. `known[i]`: shard i's key ranges decoded ahead (Table.writerKeyRanges), used
   * only for `shards[i]` itself under the table's key types.
   */
  countCollidingKeys(warehouse: string, ref: TableRef, shards: readonly (readonly CommitMessage[])[], known?: readonly (WriterKeyRanges | undefined)[]): Promise<number | null>;
  /** The id of the snapshot after `afterSnapshotId` that carries `identity`, if any. */
  findCommitted(warehouse: string, ref: TableRef, identity: CommitIdentity, afterSnapshotId: number | null): Promise<number | undefined>;
  /**
   * Expires the snapshots the table's retention options (or the overrides) no longer keep and the
   * files only they reach; `protectFrom` and later snapshots stay. @throws TABLE_NOT_FOUND
   */
  expireSnapshots(warehouse: string, ref: TableRef, request: { readonly retention?: Partial<RetentionOptions>; readonly protectFrom?: number }): Promise<ExpireResult>;
  /**
   * The files of the table that no snapshot or tag reaches, last modified at least `olderThanMs`
   * ago, and not protected (store keys of the warehouse). Deletes nothing. @throws TABLE_NOT_FOUND
   */
  findOrphanFiles(warehouse: string, ref: TableRef, request: { readonly olderThanMs: number; readonly isProtected?: (key: string) => boolean }): Promise<OrphanScan>;
  /** The table's path inside the warehouse ("db.db/orders"), as blob headers carry it. */
  tablePath(ref: TableRef): string;
  /** The store rooted at the warehouse (staged blobs, and the tables' files below their paths). */
  warehouseStore(warehouse: string): ObjectStore;
  /** The store rooted at a source URI, read with a source's own S3 credentials (its named connection). */
  sourceStore(uri: string, s3: S3ConnectionOptions): ObjectStore;
}

/** Tables over this library, one store (and S3 client) per warehouse, with the process's S3 settings. */
export function warehouseTables(s3: S3ConnectionOptions = {}): Tables {
  const storeOf = warehouseStores(s3);
  const pinned = new Map<string, Table>();
  const find = async (warehouse: string, ref: TableRef): Promise<Table | undefined> => {
    try {
      return await openTable(storeOf(warehouse), ref.database, ref.table);
    } catch (error) {
      if (isTributaryError(error) && error.code === 'TABLE_NOT_FOUND') return undefined;
      throw error;
    }
  };
  const require = async (warehouse: string, ref: TableRef): Promise<Table> => {
    const table = await find(warehouse, ref);
    if (table === undefined) {
      throw errorFrom(tableErrors, 'TABLE_NOT_FOUND', `table ${ref.database}.${ref.table} does not exist`, { ...ref });
    }
    return table;
  };
  return {
    warehouseStore: storeOf,
    sourceStore: credentialedStores(),
    tablePath: (ref) => tablePath({ database: ref.database, name: ref.table }),
    async openTable(warehouse: string, ref: TableRef, schemaId?: number): Promise<Table> {
      const key = `${warehouse}\u0000${ref.database}\u0000${ref.table}\u0000${schemaId}`;
      const cached = schemaId === undefined ? undefined : pinned.get(key);
      if (cached !== undefined && (await schemaStillHolds(cached))) return cached;
      pinned.delete(key);
      const table = await openTable(storeOf(warehouse), ref.database, ref.table);
      if (schemaId !== undefined && table.schema.id === schemaId) {
        if (pinned.size >= 256) pinned.clear();
        pinned.set(key, table);
      }
      return table;
    },
    async createTable(warehouse: string, ref: TableRef, schema: SchemaDefinition): Promise<TableDescription> {
      const table = await createTable(storeOf(warehouse), { database: ref.database, name: ref.table, schema });
      return table.describe();
    },
    async describeTable(warehouse: string, ref: TableRef): Promise<TableDescription | undefined> {
      return (await find(warehouse, ref))?.describe();
    },
    async schemaSha256(warehouse: string, ref: TableRef, schemaId: number): Promise<string | undefined> {
      const bytes = await getOrNull(storeOf(warehouse), schemaFileKey(tablePath({ database: ref.database, name: ref.table }), schemaId));
      return bytes === null ? undefined : createHash('sha256').update(bytes).digest('hex');
    },
    async describeTableWithStats(warehouse: string, ref: TableRef): Promise<(TableDescription & TableStats) | undefined> {
      return (await find(warehouse, ref))?.describeWithStats();
    },
    async listTableRefs(warehouse: string): Promise<TableRef[]> {
      return (await listTables(storeOf(warehouse))).map((id) => ({ database: id.database, table: id.name }));
    },
    async summarizeTable(warehouse: string, ref: TableRef): Promise<TableSummary | undefined> {
      const table = await find(warehouse, ref);
      if (table === undefined) return undefined;
      return {
        database: table.database,
        table: table.name,
        primaryKeys: table.schema.primaryKeys,
        partitionKeys: table.schema.partitionKeys,
        bucket: table.bucketCount,
        latestSnapshotId: await table.snapshots.latestSnapshotId(),
      };
    },
    async dropTable(warehouse: string, ref: TableRef): Promise<void> {
      const table = await require(warehouse, ref);
      const keys: string[] = [];
      for await (const meta of table.store.list(`${table.path}/`)) keys.push(meta.key);
      const rank = (key: string): number => (key.startsWith(`${table.path}/snapshot/`) ? 0 : key.startsWith(`${table.path}/schema/`) ? 2 : 1);
      for (const step of [0, 1, 2]) await table.store.deleteMany(keys.filter((k) => rank(k) === step));
    },
    async listSnapshots(warehouse: string, ref: TableRef, limit: number, beforeId?: number): Promise<SnapshotSummary[]> {
      const table = await require(warehouse, ref);
      const ids = (await table.snapshots.listIds()).filter((id) => beforeId === undefined || id < beforeId);
      const page = ids.reverse().slice(0, limit);
      const snapshots = await mapInOrder(page, SNAPSHOT_READS, (id) => table.snapshots.tryGetSnapshot(id));
      return snapshots.flatMap((s) => (s === null ? [] : [snapshotSummary(s)])); // null: expired since the listing
    },
    async listFiles(warehouse: string, ref: TableRef, snapshotId?: number): Promise<{ snapshotId: number | null; files: DataFileSummary[] }> {
      return (await require(warehouse, ref)).dataFiles(snapshotId);
    },
    async previewRows(warehouse: string, ref: TableRef, limit: number, snapshotId?: number): Promise<RowPreview> {
      const table = await require(warehouse, ref);
      const id = snapshotId ?? (await table.snapshots.latestSnapshotId());
      if (snapshotId !== undefined) await table.snapshot(snapshotId); // SNAPSHOT_NOT_FOUND before any read
      const fields = table.schema.fields;
      const rows: (readonly JsonCell[])[] = [];
      if (id !== null && limit > 0) {
        for await (const row of table.newRead({ snapshotId: id }).rows()) {
          rows.push(row.map((value, i) => jsonCell(value, (fields[i] as (typeof fields)[number]).type)));
          if (rows.length >= limit) break;
        }
      }
      return { snapshotId: id, columns: fields.map((f) => ({ name: f.name, type: formatDataType(f.type) })), rows };
    },
    async auditChangelog(warehouse: string, ref: TableRef, query: ChangelogAuditQuery): Promise<ChangelogAuditView> {
      return changelogAuditView(await require(warehouse, ref), query);
    },
    async publish(warehouse: string, ref: TableRef, request: PublishRequest): Promise<PublishResult> {
      const table = await require(warehouse, ref);
      const result = await table.newCommit(request.identity.commitUser).commit(request.messages, {
        identifier: request.identity.commitIdentifier,
        kind: request.kind,
        ...(request.overwritePartitions === undefined ? {} : { overwritePartitions: request.overwritePartitions }),
        ...(request.baseSnapshotId === null ? {} : { baseSnapshotId: request.baseSnapshotId }),
        properties: request.properties,
        ...(request.exclusive === undefined ? {} : { exclusive: request.exclusive }),
        ...(request.baseBuckets === undefined ? {} : { baseBuckets: request.baseBuckets }),
      });
      return { snapshotId: result.snapshotId, attempts: result.attempts, conflicts: result.conflicts };
    },
    async countCollidingKeys(warehouse: string, ref: TableRef, shards: readonly (readonly CommitMessage[])[], known?: readonly (WriterKeyRanges | undefined)[]): Promise<number | null> {
      const table = await require(warehouse, ref);
      if (table.schema.primaryKeys.length === 0) return null;
      return table.countSharedKeys(shards, known);
    },
    async expireSnapshots(warehouse, ref, request): Promise<ExpireResult> {
      return (await require(warehouse, ref)).expireSnapshots(request);
    },
    async findOrphanFiles(warehouse, ref, request): Promise<OrphanScan> {
      return (await require(warehouse, ref)).findOrphanFiles(request);
    },
    async findCommitted(warehouse: string, ref: TableRef, identity: CommitIdentity, afterSnapshotId: number | null): Promise<number | undefined> {
      const table = await require(warehouse, ref);
      const snapshot = await table.snapshots.findCommitted(identity, afterSnapshotId ?? 0);
      return snapshot === null ? undefined : Number(snapshot.id);
    },
  };
}

/**
 * Whether the table's schema file still holds the schema the table was opened with. A dropped
 * table's file is gone; a table created again under the same name has its own schema-0, written
 * with another `timeMillis` (TableSchema.timeMillis, set when the schema is created), so a cached
 * table is never handed out for a table it was not read from (DECIMAL(10,2) files written into a
 * table recreated as DECIMAL(10,4), which Paimon Java read as 0.0150 for 1.5).
 */
async function schemaStillHolds(table: Table): Promise<boolean> {
  const bytes = await getOrNull(table.store, schemaFileKey(table.path, table.schema.id));
  return bytes !== null && isDeepStrictEqual(decodeTableSchema(new TextDecoder().decode(bytes)), table.schema);
}

/** Snapshot files read at once while listing snapshots. */
const SNAPSHOT_READS = 8;

function snapshotSummary(s: Snapshot): SnapshotSummary {
  return {
    id: Number(s.id),
    commitKind: s.commitKind,
    time: new Date(Number(s.timeMillis)).toISOString(),
    commitUser: s.commitUser,
    totalRecordCount: Number(s.totalRecordCount),
    deltaRecordCount: Number(s.deltaRecordCount),
    changelogRecordCount: s.changelogRecordCount === null ? null : Number(s.changelogRecordCount),
    properties: Object.fromEntries(s.properties ?? []),
  };
}
