/**
 * The inputs of the golden blobs under test/vectors/protocol/v<N>/. The vectors are written once
 * per envelope version by scripts/make-golden-vectors.ts and then never change; this file only
 * feeds that script (the tests read the checked-in JSON, not this file).
 */
import type { BlobHeader } from '@tributary/protocol';
import { EMPTY_COMPACT_INCREMENT, EMPTY_DATA_INCREMENT, FileSource, type CommitMessage } from '@tributary/table';
import { EMPTY_ROW, EMPTY_STATS, KEY_42, KEY_5, PARTITION_2024_01_01, hex, sampleFile, sampleHeader, sampleMessage } from './samples.ts';

export interface GoldenInput {
  readonly name: string;
  readonly description: string;
  readonly header: BlobHeader;
  readonly messages: readonly CommitMessage[];
}

const INT64_MAX = (1n << 63n) - 1n;
const INT64_MIN = -(1n << 63n);

const appendUnpartitioned: GoldenInput = {
  name: 'append-unpartitioned',
  description: 'An append table, unaware bucket: one message, empty partition, two new files with value stats only.',
  header: sampleHeader({ shardId: 'shard-00000', tablePath: 'shop.db/events', fileCount: 2n }),
  messages: [
    {
      partition: EMPTY_ROW,
      bucket: 0,
      totalBuckets: -1,
      dataIncrement: {
        ...EMPTY_DATA_INCREMENT,
        newFiles: [0, 1].map((i) =>
          sampleFile(i, { minKey: EMPTY_ROW, maxKey: EMPTY_ROW, keyStats: EMPTY_STATS, valueStatsCols: [] }),
        ),
      },
      compactIncrement: EMPTY_COMPACT_INCREMENT,
    },
  ],
};

const primaryKeyPartitioned: GoldenInput = {
  name: 'pk-partitioned',
  description: 'A primary-key table with a string partition and 4 buckets: three messages over two buckets.',
  header: sampleHeader({ fileCount: 4n, rowCount: 400_006n, byteCount: 4_194_310n }),
  messages: [sampleMessage([sampleFile(0), sampleFile(1)], 0), sampleMessage([sampleFile(2)], 3), sampleMessage([sampleFile(3)], 3)],
};

const serverPosition: GoldenInput = {
  name: 'server-position',
  description: 'Since v3: a MySQL shard\'s blob with its binlog position and no messages (an empty range).',
  header: sampleHeader({
    shardId: 'shop_01.orders_0.p00003',
    rowCount: 0n,
    byteCount: 0n,
    fileCount: 0n,
    readPosition: { server: { id: '127.0.0.1:3390', log: { file: 'mysql-bin.000001', offset: 328 }, order: 'mysql-bin.000001:00000000000000000328' } },
  }),
  messages: [],
};

const everyField: GoldenInput = {
  name: 'every-field',
  description:
    'Every field set at least once, nullable fields both null and set, nullable lists both null and empty, ' +
    'all ten file lists non-empty, int64 extremes.',
  header: sampleHeader({
    attempt: 3,
    schemaId: 7n,
    creationTimeMillis: INT64_MAX,
    rowCount: 0n,
    byteCount: 0n,
    fileCount: 0n,
    // Since v3: a source position with both parts (no source gives both today; the format allows it).
    readPosition: {
      server: { id: 'db-7.internal:3306', log: { file: 'mysql-bin.000042', offset: 1_234_567, gtid: '0-1-9876,1-2-5' }, order: 'mysql-bin.000042:00000000000001234567' },
      files: [
        { uri: 's3://landing/orders/part-0.csv', size: 0, etag: 'd41d8cd98f00b204e9800998ecf8427e' },
        { uri: 'file:///data/orders/part-1.ndjson', size: 9_007_199_254_740_991, etag: 'W/1024-1767225600000000000' },
      ],
    },
  }),
  messages: [
    {
      partition: PARTITION_2024_01_01,
      bucket: -2,
      totalBuckets: null,
      dataIncrement: {
        newFiles: [
          sampleFile(10, {
            keyStats: { minValues: KEY_5, maxValues: KEY_42, nullCounts: [0n, null, INT64_MAX] },
            valueStats: { minValues: KEY_5, maxValues: KEY_42, nullCounts: null },
            minSequenceNumber: INT64_MIN,
            maxSequenceNumber: INT64_MAX,
            level: 5,
            extraFiles: ['data-x.parquet.index'],
            creationTimeMillis: null,
            deleteRowCount: null,
            embeddedIndex: hex('0102030405'),
            fileSource: FileSource.COMPACT,
            valueStatsCols: ['order_id', 'amount'],
            externalPath: 's3://other-bucket/ext/data-x.parquet',
            firstRowId: 1_000n,
            writeCols: ['order_id', 'amount'],
            writeColsSequences: [INT64_MIN, 0n, INT64_MAX],
          }),
        ],
        deletedFiles: [sampleFile(11, { fileSource: null })],
        changelogFiles: [sampleFile(12, { writeCols: [], writeColsSequences: [] })],
        newIndexFiles: [
          {
            indexType: 'DELETION_VECTORS',
            fileName: 'index-1.index',
            fileSize: 64n,
            rowCount: 2n,
            deletionVectorRanges: [
              { dataFileName: 'data-a.parquet', offset: 1, length: 30, cardinality: 4n },
              { dataFileName: 'data-b.parquet', offset: 31, length: 22, cardinality: null },
            ],
            externalPath: null,
            globalIndex: null,
          },
        ],
        deletedIndexFiles: [
          {
            indexType: 'HASH',
            fileName: 'index-0.index',
            fileSize: 0n,
            rowCount: 0n,
            deletionVectorRanges: null,
            externalPath: 's3://other-bucket/ext/index-0.index',
            globalIndex: {
              rowRangeStart: 0n,
              rowRangeEnd: INT64_MAX,
              indexFieldId: -1,
              extraFieldIds: [1, 2],
              indexMeta: hex('ff'),
              sourceMeta: null,
            },
          },
        ],
      },
      compactIncrement: {
        compactBefore: [sampleFile(13)],
        compactAfter: [sampleFile(14, { level: 1, fileSource: FileSource.COMPACT })],
        changelogFiles: [sampleFile(15)],
        newIndexFiles: [
          { indexType: 'HASH', fileName: 'index-2.index', fileSize: 8n, rowCount: 1n, deletionVectorRanges: [], externalPath: null, globalIndex: { rowRangeStart: -5n, rowRangeEnd: 5n, indexFieldId: 3, extraFieldIds: null, indexMeta: null, sourceMeta: hex('') } },
        ],
        deletedIndexFiles: [
          { indexType: 'HASH', fileName: 'index-3.index', fileSize: 8n, rowCount: 1n, deletionVectorRanges: null, externalPath: null, globalIndex: null },
        ],
      },
    },
  ],
};

const noMessages: GoldenInput = {
  name: 'no-messages',
  description: 'A shard whose source was empty: a header and zero messages.',
  header: sampleHeader({ shardId: 'shard-empty', rowCount: 0n, byteCount: 0n, fileCount: 0n }),
  messages: [],
};

export const GOLDEN_INPUTS: readonly GoldenInput[] = [appendUnpartitioned, primaryKeyPartitioned, everyField, noMessages, serverPosition];
