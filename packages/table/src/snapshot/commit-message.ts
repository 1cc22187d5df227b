/**
 * What a writer hands to the committer and what a snapshot records about the commit that made it:
 * the commit message of one (partition, bucket), the commit identity, and the string keys of a
 * partition and a bucket. Below both write/ (which produces and commits messages) and read/ (which
 * counts shared keys across messages and finds a snapshot by its identity).
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

export function partitionKey(partition: Uint8Array): string {
  return Buffer.from(partition.buffer, partition.byteOffset, partition.byteLength).toString('hex');
}

export function bucketKey(partition: Uint8Array, bucket: number): string {
  return `${partitionKey(partition)}/${bucket}`;
}

/** The commit identity written into every snapshot (Snapshot.commitUser / commitIdentifier). */
export interface CommitIdentity {
  readonly commitUser: string;
  readonly commitIdentifier: bigint;
}

/** Does a snapshot carry this identity? (the check of FileStoreCommitImpl's retry loop, apache/paimon#5771) */
export function hasIdentity(snapshot: { readonly commitUser: string; readonly commitIdentifier: bigint }, identity: CommitIdentity): boolean {
  return snapshot.commitUser === identity.commitUser && snapshot.commitIdentifier === identity.commitIdentifier;
}
