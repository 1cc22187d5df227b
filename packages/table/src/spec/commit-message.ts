/**
 * What one writer hands the committer for one (partition, bucket): Paimon's
 * `org.apache.paimon.table.sink.CommitMessageImpl` with its `DataIncrement` and `CompactIncrement`
 * (the ten lists of `CommitMessageSerializer` since version 10) and `org.apache.paimon.index.IndexFileMeta`.
 * The data files are spec/data-file-meta.ts `DataFileMeta`, the record a manifest stores.
 *
 * The one definition of these shapes: the table's writer returns them, its committer takes them,
 * and @tributary/protocol carries them between processes in a blob (its codec maps them to
 * protobuf and back). Plain data, conventions as in DataFileMeta: Java longs are `bigint`,
 * `@Nullable` is `| null`, BinaryRow values are Paimon's arity-prefixed bytes, and a nullable list
 * keeps `null` and `[]` apart.
 *
 * Several messages may name the same partition and bucket: the committer treats them as one
 * (Paimon's commit concatenates their files).
 */
import type { DataFileMeta } from './data-file-meta.ts';

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
  readonly newFiles: readonly DataFileMeta[];
  readonly deletedFiles: readonly DataFileMeta[];
  readonly changelogFiles: readonly DataFileMeta[];
  readonly newIndexFiles: readonly IndexFileMeta[];
  readonly deletedIndexFiles: readonly IndexFileMeta[];
}

/** `org.apache.paimon.io.CompactIncrement`: what a compaction replaced. */
export interface CompactIncrement {
  readonly compactBefore: readonly DataFileMeta[];
  readonly compactAfter: readonly DataFileMeta[];
  readonly changelogFiles: readonly DataFileMeta[];
  readonly newIndexFiles: readonly IndexFileMeta[];
  readonly deletedIndexFiles: readonly IndexFileMeta[];
}

/** `org.apache.paimon.table.sink.CommitMessageImpl`. */
export interface CommitMessage {
  /** Arity-prefixed BinaryRow of the partition values; 12 zero bytes when unpartitioned. */
  readonly partition: Uint8Array;
  readonly bucket: number;
  /** Java's `@Nullable Integer totalBuckets`: N for fixed-bucket tables, -1 for bucket-unaware append tables. */
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

/** A message that only changes data files (what a load writes): no index files, no compaction. */
export function dataFilesMessage(
  partition: Uint8Array,
  bucket: number,
  totalBuckets: number | null,
  files: { readonly newFiles?: readonly DataFileMeta[]; readonly deletedFiles?: readonly DataFileMeta[]; readonly changelogFiles?: readonly DataFileMeta[] },
): CommitMessage {
  return {
    partition,
    bucket,
    totalBuckets,
    dataIncrement: { ...EMPTY_DATA_INCREMENT, ...files },
    compactIncrement: EMPTY_COMPACT_INCREMENT,
  };
}
