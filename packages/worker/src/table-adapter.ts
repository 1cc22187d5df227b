/**
 * TablePort over @tributary/table: opens the table at the schema the sync pinned and converts the
 * table's CommitMessages (spec/commit-message.ts, DataFileMeta) to the protocol's domain shape
 * (Paimon's CommitMessageImpl with its DataIncrement), which is what a blob carries.
 */
import { dataFileMarker, errorFrom } from '@tributary/protocol';
import { sourceErrors } from '@tributary/sources';
import { credentialedStores, openTable, toProtocolCommitMessage, warehouseStores, type S3ConnectionOptions, type Table } from '@tributary/table';
import { countingStore, type ByteCounters } from './counting-store.ts';
import type { ShardWrite, ShardWriteOptions, TablePort } from './table-port.ts';

export function tablePort(s3: S3ConnectionOptions = {}): TablePort {
  const storeOf = warehouseStores(s3);
  // Tables write through a store that counts each shard write's data-file bytes (its progress).
  const counting = new Map<string, ByteCounters>();
  const countingOf = (warehouse: string): ByteCounters => {
    let counters = counting.get(warehouse);
    if (counters === undefined) {
      counters = countingStore(storeOf(warehouse));
      counting.set(warehouse, counters);
    }
    return counters;
  };
  // A schema file never changes once written, so a table opened at the planned schema id can be
  // reused by every later shard of that schema (saves a LIST and a GET per shard job).
  const tables = new Map<string, Table>();
  const tableAt = async (options: ShardWriteOptions): Promise<Table> => {
    const key = `${options.warehouse}\u0000${options.database}\u0000${options.table}\u0000${options.schemaId}`;
    const cached = tables.get(key);
    if (cached !== undefined) return cached;
    const table = await openTable(countingOf(options.warehouse).store, options.database, options.table);
    if (table.schema.id === options.schemaId) {
      if (tables.size >= 256) tables.clear();
      tables.set(key, table);
    }
    return table;
  };
  return {
    warehouseStore: storeOf,
    sourceStore: credentialedStores(),
    async openShardWrite(options: ShardWriteOptions): Promise<ShardWrite> {
      const table = await tableAt(options);
      if (table.schema.id !== options.schemaId) {
        throw errorFrom(sourceErrors, 'SOURCE_SCHEMA_MISMATCH', `table ${table.path} is at schema ${table.schema.id}, the sync planned ${options.schemaId}`, {
          table: table.path,
        });
      }
      const write = await table.newWrite({
        writerId: options.writerId,
        baseSnapshotId: options.baseSnapshotId,
        ...(options.sequenceSlot === undefined ? {} : { sequenceSlot: options.sequenceSlot }),
      });
      const bytes = countingOf(options.warehouse).track(dataFileMarker(options.writerId));
      return {
        rowType: { fields: table.schema.fields },
        tablePath: table.path,
        write: (rows) => write.writeRows(rows),
        prepareCommit: async () => {
          try {
            return (await write.prepareCommit()).map(toProtocolCommitMessage);
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
    },
  };
}
