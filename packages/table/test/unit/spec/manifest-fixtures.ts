/**
 * Manifest values shared by the manifest tests and by the script that wrote the
 * `test/vectors/paimon/tributary/` files Paimon Java was shown to read, plus the text form of
 * entries that `MakeJavaVectors.java dump` prints, so a decoded value can be compared to what
 * Paimon Java itself read from the same bytes.
 */

import { FileSource, type DataFileMeta } from '../../../src/spec/data-file-meta.ts';
import type { ManifestEntry } from '../../../src/spec/manifest-entry.ts';
import type { ManifestFileMeta } from '../../../src/spec/manifest-file-meta.ts';
import type { SimpleStats } from '../../../src/spec/simple-stats.ts';

const fromHex = (h: string): Uint8Array => new Uint8Array(Buffer.from(h, 'hex'));
const hex = (b: Uint8Array | null): string => (b === null ? 'null' : Buffer.from(b).toString('hex'));

/** BinaryRow of arity 0 (`BinaryRow.EMPTY_ROW`, arity-prefixed). */
export const EMPTY_ROW = fromHex('000000000000000000000000');
/** BinaryRow of one STRING '2024-01-01' (as Paimon Java writes it, from the java-1.4.2 vectors). */
export const DT_ROW = fromHex('0000000100000000000000000a00000010000000323032342d30312d3031000000000000');
/** BinaryRow of one BIGINT 7. */
export const KEY_ROW = fromHex('0000000100000000000000000700000000000000');

export const EMPTY_STATS: SimpleStats = { minValues: EMPTY_ROW, maxValues: EMPTY_ROW, nullCounts: [] };

/** Every field set, with extremes: max long, negative creation time, 4-byte UTF-8. */
export const FULL_FILE: DataFileMeta = {
  fileName: 'data-数据-😀-0.parquet',
  fileSize: 9223372036854775807n,
  rowCount: 4294967296n,
  minKey: KEY_ROW,
  maxKey: KEY_ROW,
  keyStats: { minValues: KEY_ROW, maxValues: KEY_ROW, nullCounts: [0n] },
  valueStats: { minValues: KEY_ROW, maxValues: KEY_ROW, nullCounts: [null] },
  minSequenceNumber: 0n,
  maxSequenceNumber: 9007199254740993n,
  schemaId: 3n,
  level: 5,
  extraFiles: ['data-0.parquet.index', 'x'],
  creationTimeMillis: -86_400_001n,
  deleteRowCount: 2n,
  embeddedIndex: Uint8Array.of(1, 2, 3),
  fileSource: FileSource.COMPACT,
  valueStatsCols: ['id', 'name'],
  externalPath: 's3://bucket/ext/data-0.parquet',
  firstRowId: 42n,
  writeCols: ['id'],
  writeColsSequences: [1n, 2n],
};

/** Every nullable field null, as in a file from before Paimon 0.9. */
export const SPARSE_FILE: DataFileMeta = {
  fileName: 'data-sparse-1.parquet',
  fileSize: 0n,
  rowCount: 0n,
  minKey: EMPTY_ROW,
  maxKey: EMPTY_ROW,
  keyStats: EMPTY_STATS,
  valueStats: EMPTY_STATS,
  minSequenceNumber: -1n,
  maxSequenceNumber: -1n,
  schemaId: 0n,
  level: 0,
  extraFiles: [],
  creationTimeMillis: null,
  deleteRowCount: null,
  embeddedIndex: null,
  fileSource: null,
  valueStatsCols: null,
  externalPath: null,
  firstRowId: null,
  writeCols: null,
  writeColsSequences: null,
};

export const SAMPLE_ENTRIES: ManifestEntry[] = [
  { kind: 'ADD', partition: DT_ROW, bucket: 1, totalBuckets: 2, file: FULL_FILE },
  { kind: 'DELETE', partition: EMPTY_ROW, bucket: -1, totalBuckets: -1, file: SPARSE_FILE },
];

/**
 * A manifest list naming the manifest of `SAMPLE_ENTRIES` and an empty manifest: once with every
 * field set, once with the nullable ones null (as pypaimon and Paimon before 1.1 write them).
 */
export function sampleList(manifests: readonly [name: string, size: bigint][]): ManifestFileMeta[] {
  const [[name0, size0], [name1, size1]] = manifests as [[string, bigint], [string, bigint]];
  return [
    {
      fileName: name0, fileSize: size0, numAddedFiles: 1n, numDeletedFiles: 1n,
      partitionStats: { minValues: DT_ROW, maxValues: DT_ROW, nullCounts: [0n] }, schemaId: 3n,
      minBucket: -1, maxBucket: 1, minLevel: 0, maxLevel: 5, minRowId: 42n, maxRowId: 9223372036854775807n,
    },
    {
      fileName: name1, fileSize: size1, numAddedFiles: 0n, numDeletedFiles: 0n,
      partitionStats: EMPTY_STATS, schemaId: 0n,
      minBucket: null, maxBucket: null, minLevel: null, maxLevel: null, minRowId: null, maxRowId: null,
    },
  ];
}

const list = (items: readonly unknown[] | null): string => (items === null ? 'null' : `[${items.join(', ')}]`);

function stats(s: SimpleStats): string {
  return `{min=${hex(s.minValues)} max=${hex(s.maxValues)} nulls=${list(s.nullCounts?.map((c) => (c === null ? 'null' : c)) ?? null)}}`;
}

/** The line `MakeJavaVectors.java dump` prints for a manifest list record. */
export function metaLine(m: ManifestFileMeta): string {
  return `META ${m.fileName} size=${m.fileSize} added=${m.numAddedFiles} deleted=${m.numDeletedFiles}`
    + ` partitionStats=${stats(m.partitionStats)} schemaId=${m.schemaId} bucket=${m.minBucket}..${m.maxBucket}`
    + ` level=${m.minLevel}..${m.maxLevel} rowId=${m.minRowId}..${m.maxRowId}`;
}

/** The line `MakeJavaVectors.java dump` prints for a manifest entry (Java 1.4.2 has no writeColsSequences). */
export function entryLine(e: ManifestEntry): string {
  const f = e.file;
  return `ENTRY ${e.kind} partition=${hex(e.partition)} bucket=${e.bucket} totalBuckets=${e.totalBuckets}`
    + ` file=${f.fileName} size=${f.fileSize} rows=${f.rowCount} minKey=${hex(f.minKey)} maxKey=${hex(f.maxKey)}`
    + ` keyStats=${stats(f.keyStats)} valueStats=${stats(f.valueStats)}`
    + ` seq=${f.minSequenceNumber}..${f.maxSequenceNumber} schemaId=${f.schemaId} level=${f.level}`
    + ` extraFiles=${list(f.extraFiles)} creationTime=${f.creationTimeMillis} deleteRowCount=${f.deleteRowCount}`
    + ` embeddedIndex=${hex(f.embeddedIndex)} fileSource=${f.fileSource === null ? null : f.fileSource === FileSource.APPEND ? 'APPEND' : 'COMPACT'} valueStatsCols=${list(f.valueStatsCols)}`
    + ` externalPath=${f.externalPath} firstRowId=${f.firstRowId} writeCols=${list(f.writeCols)}`;
}
