/**
 * TablePort over @tributary/table: opens the table at the schema the sync pinned and converts the
 * table's CommitMessages (write/commit-plan.ts, DataFileMeta) to the protocol's domain shape
 * (Paimon's CommitMessageImpl with its DataIncrement), which is what a blob carries.
 */
import {
  EMPTY_COMPACT_INCREMENT,
  FileSource,
  errorFrom,
  type CommitMessage,
  type FileMeta,
} from '@tributary/protocol';
import { openObjectStore, openTable, type ObjectStore, type S3ConnectionOptions, type Table, type TableWrite } from '@tributary/table';
import { workerErrors } from './errors.ts';
import type { ShardWrite, ShardWriteOptions, TablePort } from './table-port.ts';

/** What TableWrite.prepareCommit returns, and its DataFileMeta (not exported by name). */
type TableMessage = Awaited<ReturnType<TableWrite['prepareCommit']>>[number];
type TableFile = TableMessage['newFiles'][number];

export function tablePort(s3: S3ConnectionOptions = {}): TablePort {
  const stores = new Map<string, ObjectStore>();
  const storeOf = (warehouse: string): ObjectStore => {
    let store = stores.get(warehouse);
    if (store === undefined) {
      store = openObjectStore(warehouse, s3);
      stores.set(warehouse, store);
    }
    return store;
  };
  // A schema file never changes once written, so a table opened at the planned schema id can be
  // reused by every later shard of that schema (saves a LIST and a GET per shard job).
  const tables = new Map<string, Table>();
  const tableAt = async (options: ShardWriteOptions): Promise<Table> => {
    const key = `${options.warehouse}\u0000${options.database}\u0000${options.table}\u0000${options.schemaId}`;
    const cached = tables.get(key);
    if (cached !== undefined) return cached;
    const table = await openTable(storeOf(options.warehouse), options.database, options.table);
    if (table.schema.id === options.schemaId) {
      if (tables.size >= 256) tables.clear();
      tables.set(key, table);
    }
    return table;
  };
  return {
    warehouseStore: storeOf,
    async openShardWrite(options: ShardWriteOptions): Promise<ShardWrite> {
      const table = await tableAt(options);
      if (table.schema.id !== options.schemaId) {
        throw errorFrom(workerErrors, 'SOURCE_SCHEMA_MISMATCH', `table ${table.path} is at schema ${table.schema.id}, the sync planned ${options.schemaId}`, {
          table: table.path,
        });
      }
      const write = await table.newWrite({ writerId: options.writerId, baseSnapshotId: options.baseSnapshotId });
      return {
        rowType: { fields: table.schema.fields },
        tablePath: table.path,
        write: (rows) => write.writeRows(rows),
        prepareCommit: async () => (await write.prepareCommit()).map(toProtocolMessage),
        abort: () => write.abort(),
      };
    },
  };
}

export function toProtocolMessage(message: TableMessage): CommitMessage {
  return {
    partition: message.partition,
    bucket: message.bucket,
    totalBuckets: message.totalBuckets,
    dataIncrement: {
      newFiles: message.newFiles.map(toFileMeta),
      deletedFiles: message.deletedFiles.map(toFileMeta),
      changelogFiles: message.changelogFiles.map(toFileMeta),
      newIndexFiles: [],
      deletedIndexFiles: [],
    },
    compactIncrement: EMPTY_COMPACT_INCREMENT,
  };
}

function toFileMeta(f: TableFile): FileMeta {
  return {
    fileName: f.fileName,
    fileSize: f.fileSize,
    rowCount: f.rowCount,
    minKey: f.minKey,
    maxKey: f.maxKey,
    keyStats: f.keyStats,
    valueStats: f.valueStats,
    minSequenceNumber: f.minSequenceNumber,
    maxSequenceNumber: f.maxSequenceNumber,
    schemaId: f.schemaId,
    level: f.level,
    extraFiles: f.extraFiles,
    creationTimeMillis: f.creationTime === null ? null : BigInt(f.creationTime),
    deleteRowCount: f.deleteRowCount,
    embeddedIndex: f.embeddedIndex,
    fileSource: f.fileSource === null ? null : FileSource[f.fileSource],
    valueStatsCols: f.valueStatsCols,
    externalPath: f.externalPath,
    firstRowId: f.firstRowId,
    writeCols: f.writeCols,
    writeColsSequences: f.writeColsSequences,
  };
}
