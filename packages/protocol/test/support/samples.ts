/**
 * Deterministic sample values for the protocol tests and the golden vectors. They
 * look like what a worker writes for a partitioned primary-key table: arity-prefixed BinaryRows
 * (Paimon's verified vectors from the format notes), Parquet file names, realistic stats.
 */
import { PAIMON_COMMIT_MESSAGE_VERSION, type BlobExpectation, type BlobHeader } from '@tributary/protocol';
import {
  EMPTY_COMPACT_INCREMENT,
  EMPTY_DATA_INCREMENT,
  FileSource,
  type CommitMessage,
  type DataFileMeta,
  type SimpleStats,
} from '@tributary/table';

export function hex(s: string): Uint8Array {
  return Uint8Array.from(Buffer.from(s.replace(/\s+/g, ''), 'hex'));
}

/** The empty row, arity 0 (Paimon BinaryRow.EMPTY_ROW, arity-prefixed). */
export const EMPTY_ROW = hex('000000000000000000000000');
/** STRING '2024-01-01'. */
export const PARTITION_2024_01_01 = hex('00000001 0000000000000000 0a00000010000000 323032342d30312d3031000000000000');
/** BIGINT 42 and INT 5, one field each. */
export const KEY_42 = hex('00000001 0000000000000000 2a00000000000000');
export const KEY_5 = hex('00000001 0000000000000000 0500000000000000');

export const EMPTY_STATS: SimpleStats = { minValues: EMPTY_ROW, maxValues: EMPTY_ROW, nullCounts: [] };

export function sampleFile(i: number, overrides: Partial<DataFileMeta> = {}): DataFileMeta {
  return {
    fileName: `data-0f3c9a1e-7d2b-4c55-9e61-${String(i).padStart(12, '0')}-0.parquet`,
    fileSize: 1_048_576n + BigInt(i),
    rowCount: 100_000n + BigInt(i),
    minKey: KEY_5,
    maxKey: KEY_42,
    keyStats: { minValues: KEY_5, maxValues: KEY_42, nullCounts: [0n] },
    valueStats: { minValues: KEY_5, maxValues: KEY_42, nullCounts: [0n] },
    minSequenceNumber: BigInt(i) * 100_000n,
    maxSequenceNumber: BigInt(i) * 100_000n + 99_999n,
    schemaId: 0n,
    level: 0,
    extraFiles: [],
    creationTimeMillis: 1_767_225_600_000n + BigInt(i),
    deleteRowCount: 0n,
    embeddedIndex: null,
    fileSource: FileSource.APPEND,
    valueStatsCols: null,
    externalPath: null,
    firstRowId: null,
    writeCols: null,
    writeColsSequences: null,
    ...overrides,
  };
}

export function sampleMessage(files: readonly DataFileMeta[], bucket = 0): CommitMessage {
  return {
    partition: PARTITION_2024_01_01,
    bucket,
    totalBuckets: 4,
    dataIncrement: { ...EMPTY_DATA_INCREMENT, newFiles: files },
    compactIncrement: EMPTY_COMPACT_INCREMENT,
  };
}

/** `messageCount` messages of `filesPerMessage` new files each. */
export function sampleMessages(messageCount: number, filesPerMessage: number): CommitMessage[] {
  return Array.from({ length: messageCount }, (_, m) =>
    sampleMessage(
      Array.from({ length: filesPerMessage }, (_, f) => sampleFile(m * filesPerMessage + f)),
      m % 4,
    ),
  );
}

export function sampleHeader(overrides: Partial<BlobHeader> = {}): BlobHeader {
  return {
    syncId: 'sync-01J9Z5K3M2',
    shardId: 'orders_07.t_orders_3',
    attempt: 1,
    tablePath: 'shop.db/orders',
    schemaId: 0n,
    paimonFormatVersion: PAIMON_COMMIT_MESSAGE_VERSION,
    tributaryVersion: '0.1.0',
    creationTimeMillis: 1_767_225_600_000n,
    rowCount: 200_001n,
    byteCount: 2_097_153n,
    fileCount: 2n,
    voteToken: SAMPLE_VOTE_TOKEN,
    ...overrides,
  };
}

/** A fixed 32-byte vote token (0x00 … 0x1f): the header fields of envelope version 2 on. */
export const SAMPLE_VOTE_TOKEN: Uint8Array = Uint8Array.from({ length: 32 }, (_, i) => i);

export function expectationOf(header: BlobHeader): BlobExpectation {
  return {
    syncId: header.syncId,
    shardId: header.shardId,
    tablePath: header.tablePath,
    schemaId: header.schemaId,
    attempt: header.attempt,
    ...(header.voteToken === undefined ? {} : { voteToken: header.voteToken }),
  };
}
