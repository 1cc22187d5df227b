/**
 * What a writer hands to the committer for one (partition, bucket): Paimon's CommitMessageImpl
 * with its DataIncrement. Plain data: the table's writer returns it, its committer takes it, and
 * the scan of shared keys reads it.
 */

/** The fields of a data file the commit looks at (a subset of spec/data-file-meta.ts DataFileMeta). */
export interface PlanFile {
  readonly fileName: string;
  readonly rowCount: bigint | number;
  readonly maxSequenceNumber: bigint | number;
}

/**
 * The plain value a writer hands to the committer for one (partition, bucket)
 * (org.apache.paimon.table.sink.CommitMessageImpl with its DataIncrement).
 */
export interface CommitMessage<F extends PlanFile = PlanFile> {
  /** Arity-prefixed BinaryRow of the partition values. */
  readonly partition: Uint8Array;
  readonly bucket: number;
  /** N for fixed-bucket tables, -1 for bucket-unaware append tables. */
  readonly totalBuckets: number;
  readonly newFiles: readonly F[];
  readonly deletedFiles: readonly F[];
  readonly changelogFiles: readonly F[];
}
