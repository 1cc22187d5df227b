/**
 * What the coordinator needs from the table library, in the words of the protocol it runs:
 * create and describe tables, pin the latest snapshot, publish one snapshot with a commit identity,
 * and find out whether a snapshot with that identity exists (Paimon's `filterCommitted`, #5771).
 * table-adapter.ts implements it with @tributary/table.
 */
import type { CommitMessage } from '@tributary/protocol';
import type { DataType, ObjectStore, S3ConnectionOptions } from '@tributary/table';
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

export interface CoordinatorTables {
  createTable(warehouse: string, ref: TableRef, definition: TableDefinition): Promise<TableInfo>;
  /** Undefined when the table does not exist. */
  describeTable(warehouse: string, ref: TableRef): Promise<TableInfo | undefined>;
  /** Publishes one snapshot; returns its id (the existing one if the identity already landed). */
  publish(warehouse: string, ref: TableRef, request: PublishRequest): Promise<number>;
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
