/**
 * What a shard job needs from the table library: open the table at its pinned schema, write rows
 * into data files whose names carry the attempt, and hand back the CommitMessages (plain values,
 * as Paimon's `BatchTableWrite.prepareCommit`). Kept to this small interface so the processor
 * reads as the protocol it runs; table-adapter.ts implements it with @tributary/table.
 */
import type { CommitMessage } from '@tributary/protocol';
import type { InternalRow, ObjectStore, RowType, S3ConnectionOptions } from '@tributary/table';

export interface ShardWriteOptions {
  readonly warehouse: string;
  readonly database: string;
  readonly table: string;
  readonly schemaId: number;
  readonly baseSnapshotId: number | null;
  /**
   * Starts every data file name (`data-<writerId>-<uuid>-<n>.parquet`): (sync, shard, attempt), so
   * an abort finds every file of a sync by its name.
   */
  readonly writerId: string;
  /** The shard's index in the plan: its own range of sequence numbers (absent: none). */
  readonly sequenceSlot?: number;
}

export interface ShardWrite {
  readonly rowType: RowType;
  /** The table's path inside the warehouse ("db.db/orders"); goes into the blob header. */
  readonly tablePath: string;
  write(rows: readonly InternalRow[]): Promise<void>;
  /** Closes the data files; the messages name every file written. Called once. */
  prepareCommit(): Promise<CommitMessage[]>;
  /** Best effort: deletes what this write has produced so far. */
  abort(): Promise<void>;
  /**
   * Bytes of this write's data files sent to storage so far (for progress; the blob's totals are
   * the file sizes prepareCommit reports). Rows still buffered in memory count nothing yet.
   */
  bytesWritten(): number;
}

export interface TablePort {
  openShardWrite(options: ShardWriteOptions): Promise<ShardWrite>;
  /** The store rooted at a URI: the warehouse (where blobs are staged), or a source file's directory. */
  warehouseStore(uri: string): ObjectStore;
  /** The store rooted at a source file's directory, read with a source's own S3 credentials (its named connection); absent: not supported. */
  readonly sourceStore?: (uri: string, s3: S3ConnectionOptions) => ObjectStore;
}
