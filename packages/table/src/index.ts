// The public API of @tributary/table: what other packages, tests and benches use, nothing more.
// Paimon's metadata codecs are at '@tributary/table/spec', the Parquet reader at
// '@tributary/table/parquet'; everything else stays inside the package (README: layers).

// The seam the worker and the coordinator share: the tables of a warehouse, each call naming it.
export { warehouseTables, type TableRef, type TableSummary, type Tables } from './tables.ts';
export { MAX_AUDIT_SNAPSHOTS, type ChangelogAuditQuery, type ChangelogAuditView } from './changelog-audit-view.ts';

// The table: create or open it, write, commit, read.
export { Table, createTable, listTables, openTable, type ColumnSpec, type SchemaDefinition, type TableDescription, type TableStats } from './table.ts';
export type { WriterKeyRanges } from './read/shared-keys.ts';
export { TableWrite } from './write/table-write.ts';
export { RUN_BLOCK_ROWS } from './write/run-spill.ts';
export { ChangelogWrite, type BucketChangelog, type ChangelogWriteOptions } from './changelog-write.ts';
export { RowKind, type RowKindByte } from './format/key-value.ts';
export type { KeyedChange } from './format/changelog.ts';
export type { ChangelogRecord } from './read/changelog-read.ts';
export type { AuditEvent, AuditFinding, ChangelogAudit, ChangelogAuditRequest, KeyAudit } from './changelog-audit.ts';
export { AUDIT_FLAGS, type AuditFlag } from './format/changelog-audit.ts';
export {
  mergeBucket,
  mergeBucketRuns,
  writeMergedBucket,
  type BucketMergeInput,
  type BucketRunFile,
  type MergedBucket,
  type MergedRows,
} from './write/bucket-merge.ts';
export { fullExtractDeletes, partitionRowOf, writeBucketChangelog, type ExtractedRows, type MergedChangelogBucket } from './bucket-changelog.ts';
export { compactBucket, type CompactBucketInput, type CompactedBucket } from './write/compact-bucket.ts';
export { decodeCompactionInputs, encodeCompactionInputs, liveBucketFiles, planTableCompaction, rewriteTable, type BucketCompaction, type CompactTableRequest, type TableCompactionPlan } from './write/compact-table.ts';
export type { CompactUnit } from './write/compact-plan.ts';
export type { CommitIdentity } from './spec/snapshot.ts';
export { FileStoreScan, mapInOrder } from './snapshot/file-store-scan.ts';
export { DEFAULT_MANIFEST_CACHE_ENTRIES, ManifestCache, type ManifestCacheOptions } from './snapshot/manifest-cache.ts';

// Maintenance: snapshot expiration and orphan files.
export { DEFAULT_RETENTION, type RetentionOptions } from './snapshot/expire-plan.ts';
export type { ExpireResult } from './snapshot/expire-snapshots.ts';
export { DEFAULT_ORPHAN_AGE_MS, type OrphanFile, type OrphanScan } from './snapshot/orphan-files.ts';

// The commit message (Paimon's CommitMessageImpl) a writer hands the committer and
// @tributary/protocol carries in a blob: defined once here.
export {
  EMPTY_COMPACT_INCREMENT,
  EMPTY_DATA_INCREMENT,
  dataFilesMessage,
  type CommitMessage,
  type CompactIncrement,
  type DataIncrement,
  type DeletionVectorMeta,
  type GlobalIndexMeta,
  type IndexFileMeta,
} from './spec/commit-message.ts';
export { FileSource, type DataFileMeta } from './spec/data-file-meta.ts';
export type { SimpleStats } from './spec/simple-stats.ts';

// Values: Paimon's types, rows and column batches as Tributary holds them in memory.
export type { DataType, InternalRow, InternalValue, RowType, Timestamp } from './spec/types.ts';
export { MAX_LENGTH } from './spec/types.ts';
export { formatDataType, parseDataTypeString } from './spec/data-type-json.ts';
export { escapePathName } from './spec/partition-path.ts';
export { allocateColumn, batchFromRows, setValue, valueAt, type Column, type ColumnBatch } from './format/column-batch.ts';

// Storage: the object stores a table lives on.
export type { ObjectBody, ObjectMeta, ObjectStore, PutOptions } from './io/object-store.ts';
export { LocalObjectStore, type LocalObjectStoreOptions } from './io/local-store.ts';
export { S3ObjectStore, type S3ConnectionOptions } from './io/s3-store.ts';
export { credentialedStores, openObjectStore } from './io/open-object-store.ts';

export { tableErrors, type TableErrorCode } from './errors.ts';
export { TRIBUTARY_VERSION } from './version.ts';
