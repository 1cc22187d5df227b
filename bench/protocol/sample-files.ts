/**
 * Realistic file entries for the blob benchmark: what a worker reports for a partitioned
 * primary-key table (62-character Parquet names, one-field keys, stats rows, every int64 set).
 * Kept apart from the protocol tests' samples (packages/protocol/test/support/samples.ts) on
 * purpose: these are 128 MiB files of a million rows with three-field value stats, so the measured
 * blob sizes are those of a real load.
 */
import { PAIMON_COMMIT_MESSAGE_VERSION, type BlobHeader } from '@tributary/protocol';
import { EMPTY_COMPACT_INCREMENT, EMPTY_DATA_INCREMENT, FileSource, type CommitMessage, type DataFileMeta } from '@tributary/table';

const hex = (s: string): Uint8Array => Uint8Array.from(Buffer.from(s.replace(/\s+/g, ''), 'hex'));
const PARTITION = hex('00000001 0000000000000000 0a00000010000000 323032342d30312d3031000000000000');
const KEY_LOW = hex('00000001 0000000000000000 0500000000000000');
const KEY_HIGH = hex('00000001 0000000000000000 2a00000000000000');
const VALUE_STATS = hex(
  '00000003 0000000000000000 0100000000000000 0a00000020000000 2a00000000000000 323032342d30312d3031000000000000',
);

function file(i: number): DataFileMeta {
  return {
    fileName: `data-0f3c9a1e-7d2b-4c55-9e61-${String(i).padStart(12, '0')}-0.parquet`,
    fileSize: 134_217_728n + BigInt(i),
    rowCount: 1_000_000n + BigInt(i),
    minKey: KEY_LOW,
    maxKey: KEY_HIGH,
    keyStats: { minValues: KEY_LOW, maxValues: KEY_HIGH, nullCounts: [0n] },
    valueStats: { minValues: VALUE_STATS, maxValues: VALUE_STATS, nullCounts: [0n, 0n, 12n] },
    minSequenceNumber: BigInt(i) * 1_000_000n,
    maxSequenceNumber: BigInt(i) * 1_000_000n + 999_999n,
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
  };
}

/** Message `m` of a blob: `filesPerMessage` new files for one (partition, bucket). */
export function message(m: number, filesPerMessage: number): CommitMessage {
  return {
    partition: PARTITION,
    bucket: m % 16,
    totalBuckets: 16,
    dataIncrement: {
      ...EMPTY_DATA_INCREMENT,
      newFiles: Array.from({ length: filesPerMessage }, (_, f) => file(m * filesPerMessage + f)),
    },
    compactIncrement: EMPTY_COMPACT_INCREMENT,
  };
}

export function header(files: number): BlobHeader {
  return {
    syncId: 'sync-bench',
    shardId: 'shard-00000',
    attempt: 1,
    tablePath: 'bench.db/orders',
    schemaId: 0n,
    paimonFormatVersion: PAIMON_COMMIT_MESSAGE_VERSION,
    tributaryVersion: '0.1.0',
    creationTimeMillis: 1_767_225_600_000n,
    rowCount: BigInt(files) * 1_000_000n,
    byteCount: BigInt(files) * 134_217_728n,
    fileCount: BigInt(files),
    voteToken: new Uint8Array(32),
  };
}

export const EXPECT = { syncId: 'sync-bench', shardId: 'shard-00000', tablePath: 'bench.db/orders', schemaId: 0n };
