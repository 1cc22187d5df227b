/**
 * fast-check arbitraries for every value the blob codec accepts: arity-prefixed BinaryRows of
 * arity 0–4, exact int64s at their extremes, nullable fields both null and set, and nullable
 * lists both null and empty.
 */
import fc from 'fast-check';
import type { BlobHeader } from '@tributary/protocol';
import type { CommitMessage, DataFileMeta, IndexFileMeta, SimpleStats } from '@tributary/table';

const INT64_MIN = -(1n << 63n);
const INT64_MAX = (1n << 63n) - 1n;

export const int64 = fc.bigInt({ min: INT64_MIN, max: INT64_MAX });
export const nonNegativeInt64 = fc.bigInt({ min: 0n, max: INT64_MAX });
export const int32 = fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 });
const nonNegativeInt32 = fc.integer({ min: 0, max: 2 ** 31 - 1 });
const name = fc.string({ unit: 'grapheme', minLength: 1, maxLength: 40 });
const text = fc.string({ unit: 'grapheme', maxLength: 20 });
const bytes = fc.uint8Array({ maxLength: 24 });

/** An arity-prefixed BinaryRow: 4-byte BE arity, the fixed part, and an 8-aligned variable part. */
export const binaryRow = fc
  .record({ arity: fc.integer({ min: 0, max: 4 }), extraWords: fc.integer({ min: 0, max: 2 }), seed: fc.uint8Array({ minLength: 64, maxLength: 64 }) })
  .map(({ arity, extraWords, seed }) => {
    const rowBytes = Math.floor((arity + 63 + 8) / 64) * 8 + arity * 8 + extraWords * 8;
    const out = new Uint8Array(4 + rowBytes);
    new DataView(out.buffer).setInt32(0, arity, false);
    for (let i = 4; i < out.length; i++) out[i] = seed[i % seed.length]!;
    return out;
  });

/** Records with an ordinary prototype, as the decoder builds them (deepStrictEqual compares prototypes). */
function record<T>(model: { [K in keyof T]: fc.Arbitrary<T[K]> }): fc.Arbitrary<T> {
  return fc.record(model, { noNullPrototype: true });
}

const nullable = <T>(arb: fc.Arbitrary<T>): fc.Arbitrary<T | null> => fc.option(arb, { nil: null });

export const simpleStats: fc.Arbitrary<SimpleStats> = record({
  minValues: binaryRow,
  maxValues: binaryRow,
  nullCounts: nullable(fc.array(nullable(nonNegativeInt64), { maxLength: 4 })),
});

export const fileMeta: fc.Arbitrary<DataFileMeta> = fc
  .record({
    fileName: name,
    fileSize: nonNegativeInt64,
    rowCount: nonNegativeInt64,
    minKey: binaryRow,
    maxKey: binaryRow,
    keyStats: simpleStats,
    valueStats: simpleStats,
    minSequenceNumber: int64,
    maxSequenceNumber: int64,
    schemaId: nonNegativeInt64,
    level: nonNegativeInt32,
    extraFiles: fc.array(name, { maxLength: 2 }),
    creationTimeMillis: nullable(int64),
    deleteRowCount: nullable(nonNegativeInt64),
    embeddedIndex: nullable(bytes),
    fileSource: nullable(fc.constantFrom(0 as const, 1 as const)),
    valueStatsCols: nullable(fc.array(name, { maxLength: 3 })),
    externalPath: nullable(name),
    firstRowId: nullable(nonNegativeInt64),
    writeCols: nullable(fc.array(name, { maxLength: 3 })),
    writeColsSequences: nullable(fc.array(int64, { maxLength: 3 })),
  })
  // _DELETE_ROW_COUNT counts rows of the file: never more than _ROW_COUNT.
  .map((f) => ({ ...f, deleteRowCount: f.deleteRowCount === null ? null : f.deleteRowCount % (f.rowCount + 1n) }));

export const indexFileMeta: fc.Arbitrary<IndexFileMeta> = record({
  indexType: name,
  fileName: name,
  fileSize: nonNegativeInt64,
  rowCount: nonNegativeInt64,
  deletionVectorRanges: nullable(
    fc.array(
      record({ dataFileName: name, offset: nonNegativeInt32, length: nonNegativeInt32, cardinality: nullable(nonNegativeInt64) }),
      { maxLength: 2 },
    ),
  ),
  externalPath: nullable(name),
  globalIndex: nullable(
    record({
      rowRangeStart: int64,
      rowRangeEnd: int64,
      indexFieldId: int32,
      extraFieldIds: nullable(fc.array(int32, { maxLength: 3 })),
      indexMeta: nullable(bytes),
      sourceMeta: nullable(bytes),
    }),
  ),
});

const files = fc.array(fileMeta, { maxLength: 3 });
const indexFiles = fc.array(indexFileMeta, { maxLength: 2 });

export const commitMessage: fc.Arbitrary<CommitMessage> = record({
  partition: binaryRow,
  bucket: int32,
  totalBuckets: nullable(int32),
  dataIncrement: record({
    newFiles: files,
    deletedFiles: files,
    changelogFiles: files,
    newIndexFiles: indexFiles,
    deletedIndexFiles: indexFiles,
  }),
  compactIncrement: record({
    compactBefore: files,
    compactAfter: files,
    changelogFiles: files,
    newIndexFiles: indexFiles,
    deletedIndexFiles: indexFiles,
  }),
});

export const blobHeader: fc.Arbitrary<BlobHeader> = record({
  syncId: name,
  shardId: name,
  attempt: fc.integer({ min: 1, max: 2 ** 31 - 1 }),
  tablePath: name,
  schemaId: nonNegativeInt64,
  paimonFormatVersion: fc.integer({ min: 1, max: 1000 }),
  tributaryVersion: text,
  creationTimeMillis: nonNegativeInt64,
  rowCount: nonNegativeInt64,
  byteCount: nonNegativeInt64,
  fileCount: nonNegativeInt64,
  voteToken: fc.uint8Array({ minLength: 32, maxLength: 32 }),
});
