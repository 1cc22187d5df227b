/**
 * What the coordinator needs from the table library, in the words of the protocol it runs:
 * create and describe tables, pin the latest snapshot, publish one snapshot with a commit identity,
 * and find out whether a snapshot with that identity exists (Paimon's `filterCommitted`,
 * apache/paimon#5771).
 * table-adapter.ts implements it with @tributary/table.
 */
import type { CommitMessage } from '@tributary/protocol';
import type { DataFileSummary, DataType, JsonCell, ObjectStore, S3ConnectionOptions } from '@tributary/table';
import type { TableRef } from './sync/state.ts';

export interface ColumnSpec {
  readonly name: string;
  readonly type: DataType;
  readonly description?: string;
}

export interface TableDefinition {
  readonly columns: readonly ColumnSpec[];
  readonly partitionKeys: readonly string[];
  readonly primaryKeys: readonly string[];
  readonly options: Readonly<Record<string, string>>;
}

export interface TableInfo extends TableDefinition {
  readonly database: string;
  readonly table: string;
  readonly schemaId: number;
  readonly latestSnapshotId: number | null;
  readonly fileCount: number;
  readonly rowCount: number;
}

/** One table of the warehouse, as a listing shows it (GET /v1/tables). */
export interface TableSummary {
  readonly database: string;
  readonly table: string;
  readonly primaryKeys: readonly string[];
  readonly partitionKeys: readonly string[];
  /** The `bucket` option: N fixed buckets, -1 bucket-unaware (append) or dynamic. */
  readonly bucket: number;
  readonly latestSnapshotId: number | null;
}

/** One snapshot of a table, as GET /v1/tables/{db}/{table}/snapshots shows it. */
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

/** One live data file of a snapshot (the table's own summary). */
export type { DataFileSummary };

/** The first rows of a snapshot, every value JSON-safe (jsonCell of @tributary/table). */
export interface RowPreview {
  readonly snapshotId: number | null;
  readonly columns: readonly { readonly name: string; readonly type: string }[];
  readonly rows: readonly (readonly JsonCell[])[];
}

export interface CommitIdentity {
  readonly commitUser: string;
  readonly commitIdentifier: bigint;
}

export interface PublishRequest {
  readonly messages: readonly CommitMessage[];
  readonly identity: CommitIdentity;
  readonly kind: 'APPEND' | 'OVERWRITE';
  /** OVERWRITE: the partitions (arity-prefixed rows) to replace, those the load touched. */
  readonly overwritePartitions?: readonly Uint8Array[];
  /** The snapshot the sync planned against; an identity is looked for only after it. */
  readonly baseSnapshotId: number | null;
  /** Snapshot properties to record (sync id, shard count). */
  readonly properties: Readonly<Record<string, string>>;
}

export interface PublishResult {
  readonly snapshotId: number;
  /** Snapshot writes tried (1: the first one landed). */
  readonly attempts: number;
  /** Tries that lost the next snapshot id to another committer. */
  readonly conflicts: number;
}

export interface CoordinatorTables {
  createTable(warehouse: string, ref: TableRef, definition: TableDefinition): Promise<TableInfo>;
  /** Undefined when the table does not exist. */
  describeTable(warehouse: string, ref: TableRef): Promise<TableInfo | undefined>;
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
  /** Publishes one snapshot; returns its id (the existing one if the identity already landed) and how many tries it took. */
  publish(warehouse: string, ref: TableRef, request: PublishRequest): Promise<PublishResult>;
  /**
   * Primary keys present in more than one shard (`shards`: each shard's messages, in plan order),
   * reading only the key columns of files whose key ranges overlap another shard's; null for an
   * append table.
   */
  countCollidingKeys(warehouse: string, ref: TableRef, shards: readonly (readonly CommitMessage[])[]): Promise<number | null>;
  /** The id of the snapshot after `afterSnapshotId` that carries `identity`, if any. */
  findCommitted(warehouse: string, ref: TableRef, identity: CommitIdentity, afterSnapshotId: number | null): Promise<number | undefined>;
  /** The table's path inside the warehouse ("db.db/orders"), as blob headers carry it. */
  tablePath(ref: TableRef): string;
  /** The store rooted at the warehouse (staged blobs, and the table's files below its path). */
  warehouseStore(warehouse: string): ObjectStore;
  /** The store rooted at a source URI, read with a source's own S3 credentials (its named connection). */
  sourceStore(uri: string, s3: S3ConnectionOptions): ObjectStore;
}
