/**
 * A shard attempt's write into the table: the table opened at the schema the sync pinned (through
 * the `Tables` seam of @tributary/table, which the coordinator uses too), a TableWrite whose data
 * file names carry the attempt, and the CommitMessages it prepares (Paimon's
 * `BatchTableWrite.prepareCommit`), which the blob carries as they are.
 */
import { dataFileMarker, errorFrom } from '@tributary/protocol';
import { sourceErrors } from '@tributary/sources';
import { countingStore } from './counting-store.ts';
import { RUN_BLOCK_ROWS, TableWrite, type ColumnBatch, type CommitMessage, type InternalRow, type RowType, type Tables } from '@tributary/table';

/**
 * What of the `Tables` seam a worker uses: open a table, and the stores of the warehouse (where
 * blobs are staged) and of a file source; without `sourceStore`, sources with their own S3
 * credentials are not supported.
 */
export type WorkerTables = Pick<Tables, 'openTable' | 'warehouseStore'> & Partial<Pick<Tables, 'sourceStore'>>;

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
  /**
   * The bucketed layout: the shard writes sorted runs under `path` (the sync's staging),
   * in the run encoding (@tributary/table's run-codec: no Parquet, no compression) in blocks of 4,096
   * rows, so that a bucket job merges many of them in little memory.
   * The buffers of every (partition, bucket) are spilled together into ONE run object, one segment
   * per bucket (TableWriteOptions.spill), once they hold `bufferRows` rows (default 1,000,000) or
   * an estimated `bufferBytes` (default 56 MiB), whichever comes first: the shard's memory budget.
   */
  readonly runs?: { readonly path: string; readonly bufferRows?: number | undefined; readonly bufferBytes?: number | undefined };
}

/**
 * Rows and estimated bytes buffered before the runs are spilled, and rows per block of a run. The
 * bytes are the budget; the rows only cap very narrow rows. Every spill gives each bucket one more
 * run to merge, and a bucket whose runs' blocks do not fit one merge pass has most of its rows
 * written and read twice (bucket-merge.ts): at 100,000 rows a load of 8 shards × 1,000,000 rows of
 * 11 columns gave 80 runs a bucket and spent half its time merging in two passes; at 56 MiB (about
 * 345,000 of those rows) a bucket gets 24 runs, one pass. The budget is what the shard holds: at
 * 64 MiB the workers' peak went over 384 MB.
 */
export const DEFAULT_RUN_BUFFER_ROWS = 1_000_000;
export const DEFAULT_RUN_BUFFER_BYTES = 56 * 1024 * 1024;

export interface ShardWrite {
  readonly rowType: RowType;
  /** Where the files' partition directories are (the table's path, "db.db/orders", or the runs' path); goes into the blob header. */
  readonly tablePath: string;
  /** `rowKinds`: each row's RowKind byte (a delete marker's `-D`; default `+I`). */
  write(rows: readonly InternalRow[], rowKinds?: readonly number[]): Promise<void>;
  /** Columns of the table's row type, as the source's batch converter builds them (no transpose). */
  writeBatch(batch: ColumnBatch, rowKinds?: Uint8Array): Promise<void>;
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

/** @throws SOURCE_SCHEMA_MISMATCH when the table's schema is no longer the one the sync planned */
export async function openShardWrite(tables: WorkerTables, options: ShardWriteOptions): Promise<ShardWrite> {
  const table = await tables.openTable(options.warehouse, { database: options.database, table: options.table }, options.schemaId);
  if (table.schema.id !== options.schemaId) {
    throw errorFrom(sourceErrors, 'SOURCE_SCHEMA_MISMATCH', `table ${table.path} is at schema ${table.schema.id}, the sync planned ${options.schemaId}`, {
      table: table.path,
    });
  }
  // The write goes through a store that counts its data-file bytes as storage takes them (progress).
  const counting = countingStore(table.store);
  const write = await TableWrite.open(counting.store, table.path, table.schema, {
    writerId: options.writerId,
    baseSnapshotId: options.baseSnapshotId,
    ...(options.sequenceSlot === undefined ? {} : { sequenceSlot: options.sequenceSlot }),
    ...(options.runs === undefined ? {} : runOptions(options.runs.path, options.runs.bufferRows ?? DEFAULT_RUN_BUFFER_ROWS, options.runs.bufferBytes ?? DEFAULT_RUN_BUFFER_BYTES)),
  });
  const bytes = counting.track(dataFileMarker(options.writerId));
  return {
    rowType: { fields: table.schema.fields },
    tablePath: options.runs?.path ?? table.path,
    write: (rows, rowKinds) => write.writeRows(rows, rowKinds),
    writeBatch: (batch, rowKinds) => write.write(batch, rowKinds),
    prepareCommit: async () => {
      try {
        return await write.prepareCommit();
      } finally {
        bytes.stop();
      }
    },
    abort: async () => {
      bytes.stop();
      await write.abort();
    },
    bytesWritten: bytes.bytes,
  };
}

function runOptions(path: string, bufferRows: number, bufferBytes: number) {
  const rows = Math.max(1, bufferRows);
  return {
    dataPath: path,
    spill: true,
    bufferRows: rows,
    maxBufferedRows: rows,
    maxBufferedBytes: Math.max(1, bufferBytes),
    fileOptions: { rowGroupRows: RUN_BLOCK_ROWS },
  };
}
