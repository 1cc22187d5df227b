/**
 * The domain shape of a commit message: what one worker hands the committer for one
 * (partition, bucket). Mirrors Paimon's `org.apache.paimon.table.sink.CommitMessageImpl` with its
 * `DataIncrement` and `CompactIncrement`, `org.apache.paimon.io.DataFileMeta` (all 21 fields of
 * CommitMessageSerializer version 13), `org.apache.paimon.stats.SimpleStats` and
 * `org.apache.paimon.index.IndexFileMeta`.
 *
 * Plain data on purpose: packages/table converts its own DataFileMeta to and from these, and the
 * wire shape (proto/commit_message.proto) is mapped in exactly one place, commit-message-codec.ts.
 *
 * Conventions:
 * - Java longs are `bigint` (exact); Java ints are `number`.
 * - BinaryRow values (partition, keys, stats rows) are Paimon's arity-prefixed bytes
 *   (`SerializationUtils.serializeBinaryRow`: a 4-byte big-endian arity, then the row).
 * - Java's `@Nullable` is `| null`; a nullable list keeps `null` and `[]` apart, as Paimon does
 *   (for `_VALUE_STATS_COLS`, null means "all columns" and `[]` means "no stats").
 * - Several messages may name the same partition and bucket: the committer treats them as one
 *   (Paimon's commit concatenates their files). Writers use this to keep each message small
 *   (see `splitCommitMessage`).
 */

/** `org.apache.paimon.manifest.FileSource`: how a data file came to be. */
export const FileSource = { APPEND: 0, COMPACT: 1 } as const;
export type FileSource = (typeof FileSource)[keyof typeof FileSource];

/** `org.apache.paimon.stats.SimpleStats`. */
export interface SimpleStats {
  /** `_MIN_VALUES`: arity-prefixed BinaryRow. */
  readonly minValues: Uint8Array;
  /** `_MAX_VALUES`: arity-prefixed BinaryRow. */
  readonly maxValues: Uint8Array;
  /** `_NULL_COUNTS`: a nullable array of nullable longs. */
  readonly nullCounts: readonly (bigint | null)[] | null;
}

/** `org.apache.paimon.io.DataFileMeta`; the comments give the manifest's Avro field. */
export interface FileMeta {
  readonly fileName: string; // _FILE_NAME
  readonly fileSize: bigint; // _FILE_SIZE
  /** `_ROW_COUNT`: every record in the file, adds and retracts. */
  readonly rowCount: bigint;
  readonly minKey: Uint8Array; // _MIN_KEY, arity-prefixed BinaryRow
  readonly maxKey: Uint8Array; // _MAX_KEY, arity-prefixed BinaryRow
  readonly keyStats: SimpleStats; // _KEY_STATS
  readonly valueStats: SimpleStats; // _VALUE_STATS
  readonly minSequenceNumber: bigint; // _MIN_SEQUENCE_NUMBER
  readonly maxSequenceNumber: bigint; // _MAX_SEQUENCE_NUMBER
  readonly schemaId: bigint; // _SCHEMA_ID
  readonly level: number; // _LEVEL
  readonly extraFiles: readonly string[]; // _EXTRA_FILES
  /** `_CREATION_TIME`: epoch millis (Paimon writes local wall-clock time "as if UTC"). */
  readonly creationTimeMillis: bigint | null;
  readonly deleteRowCount: bigint | null; // _DELETE_ROW_COUNT
  readonly embeddedIndex: Uint8Array | null; // _EMBEDDED_FILE_INDEX
  readonly fileSource: FileSource | null; // _FILE_SOURCE
  readonly valueStatsCols: readonly string[] | null; // _VALUE_STATS_COLS
  readonly externalPath: string | null; // _EXTERNAL_PATH
  readonly firstRowId: bigint | null; // _FIRST_ROW_ID
  readonly writeCols: readonly string[] | null; // _WRITE_COLS
  readonly writeColsSequences: readonly bigint[] | null; // _WRITE_COLS_SEQUENCES
}

/** `org.apache.paimon.index.DeletionVectorMeta`. */
export interface DeletionVectorMeta {
  readonly dataFileName: string;
  readonly offset: number;
  readonly length: number;
  readonly cardinality: bigint | null;
}

/** `org.apache.paimon.index.GlobalIndexMeta`. */
export interface GlobalIndexMeta {
  readonly rowRangeStart: bigint;
  readonly rowRangeEnd: bigint;
  readonly indexFieldId: number;
  readonly extraFieldIds: readonly number[] | null;
  readonly indexMeta: Uint8Array | null;
  readonly sourceMeta: Uint8Array | null;
}

/** `org.apache.paimon.index.IndexFileMeta`. */
export interface IndexFileMeta {
  /** `_INDEX_TYPE`, e.g. "HASH" or "DELETION_VECTORS". */
  readonly indexType: string;
  readonly fileName: string;
  readonly fileSize: bigint;
  readonly rowCount: bigint;
  /** `_DELETIONS_VECTORS_RANGES`, in the order Java's LinkedHashMap keeps them. */
  readonly deletionVectorRanges: readonly DeletionVectorMeta[] | null;
  readonly externalPath: string | null;
  readonly globalIndex: GlobalIndexMeta | null;
}

/** `org.apache.paimon.io.DataIncrement`: what a write added. */
export interface DataIncrement {
  readonly newFiles: readonly FileMeta[];
  readonly deletedFiles: readonly FileMeta[];
  readonly changelogFiles: readonly FileMeta[];
  readonly newIndexFiles: readonly IndexFileMeta[];
  readonly deletedIndexFiles: readonly IndexFileMeta[];
}

/** `org.apache.paimon.io.CompactIncrement`: what a compaction replaced. */
export interface CompactIncrement {
  readonly compactBefore: readonly FileMeta[];
  readonly compactAfter: readonly FileMeta[];
  readonly changelogFiles: readonly FileMeta[];
  readonly newIndexFiles: readonly IndexFileMeta[];
  readonly deletedIndexFiles: readonly IndexFileMeta[];
}

/** `org.apache.paimon.table.sink.CommitMessageImpl`. */
export interface CommitMessage {
  /** Arity-prefixed BinaryRow of the partition values; 12 zero bytes when unpartitioned. */
  readonly partition: Uint8Array;
  readonly bucket: number;
  /** Java's `@Nullable Integer totalBuckets`. */
  readonly totalBuckets: number | null;
  readonly dataIncrement: DataIncrement;
  readonly compactIncrement: CompactIncrement;
}

export const EMPTY_DATA_INCREMENT: DataIncrement = Object.freeze({
  newFiles: [],
  deletedFiles: [],
  changelogFiles: [],
  newIndexFiles: [],
  deletedIndexFiles: [],
});

export const EMPTY_COMPACT_INCREMENT: CompactIncrement = Object.freeze({
  compactBefore: [],
  compactAfter: [],
  changelogFiles: [],
  newIndexFiles: [],
  deletedIndexFiles: [],
});

/** The number of data and index file entries a message carries (all ten lists). */
export function fileEntryCount(message: CommitMessage): number {
  const d = message.dataIncrement;
  const c = message.compactIncrement;
  return (
    d.newFiles.length +
    d.deletedFiles.length +
    d.changelogFiles.length +
    d.newIndexFiles.length +
    d.deletedIndexFiles.length +
    c.compactBefore.length +
    c.compactAfter.length +
    c.changelogFiles.length +
    c.newIndexFiles.length +
    c.deletedIndexFiles.length
  );
}

/**
 * Splits an append-only message (only `dataIncrement.newFiles`) into messages of at most
 * `maxFiles` new files each, same partition and bucket, so that no single frame of a blob grows
 * with the shard. Any other message is returned whole: the files of a compaction or a deletion
 * belong together.
 */
export function splitCommitMessage(message: CommitMessage, maxFiles: number): CommitMessage[] {
  const files = message.dataIncrement.newFiles;
  const appendOnly = fileEntryCount(message) === files.length;
  if (!appendOnly || files.length <= maxFiles || !(maxFiles >= 1)) return [message];
  const parts: CommitMessage[] = [];
  for (let start = 0; start < files.length; start += maxFiles) {
    const newFiles = files.slice(start, start + maxFiles);
    parts.push({ ...message, dataIncrement: { ...EMPTY_DATA_INCREMENT, newFiles } });
  }
  return parts;
}
