export type {
  AtomicTypeRoot,
  DataField,
  DataType,
  InternalRow,
  InternalValue,
  RowType,
  Timestamp,
} from './spec/types.ts';
export { MAX_LENGTH } from './spec/types.ts';
export { tableErrors, type TableErrorCode } from './errors.ts';
export { TRIBUTARY_VERSION } from './version.ts';
export type { ObjectBody, ObjectMeta, ObjectStore } from './io/object-store.ts';
export { LocalObjectStore } from './io/local-store.ts';
export { S3ObjectStore, type S3ConnectionOptions, type S3StoreOptions } from './io/s3-store.ts';
export { credentialedStores, openObjectStore, warehouseStores } from './io/open-object-store.ts';
export {
  BinaryRowEncoder,
  EMPTY_ROW,
  binaryRowEncoder,
  bitSetWidthInBytes,
  bytesToUnscaled,
  decodeBinaryRow,
  decodeRowBytes,
  encodeBinaryRow,
  fixedPartSizeInBytes,
  isCompactDecimal,
  isCompactTimestamp,
  serializeBinaryRow,
  splitArityPrefixed,
  toArityPrefixed,
  unscaledToBytes,
} from './spec/binary-row.ts';
export { bucketOf, bucketOfHash, fmix32, murmurHashBinaryRow, murmurHashBytes } from './spec/bucket.ts';
export { formatDataType, parseDataType, parseDataTypeString } from './spec/data-type-json.ts';
export { jsonCell, type JsonCell } from './spec/json-value.ts';
export {
  allocateColumn,
  batchFromRows,
  columnKindOf,
  concatBatches,
  groupRows,
  isNullAt,
  rowsFromBatch,
  sliceBatch,
  takeColumn,
  takeRows,
  valueAt,
  type Column,
  type ColumnBatch,
  type ColumnData,
  type ColumnKind,
} from './format/column-batch.ts';
export { columnStats, mergeStats, type ColumnStats } from './format/column-stats.ts';
export { decimalByteLength, parquetElement, parquetSchema, timestampEncoding, PARQUET_ROOT_NAME } from './format/parquet-schema.ts';
export {
  DataFileWriter,
  ParquetFileEncoder,
  memorySink,
  type DataFileResult,
  type DataFileWriterOptions,
  type FileSink,
  type ParquetCompression,
  type ParquetEncodeOptions,
} from './format/parquet-writer.ts';
export { ParquetDataFileReader, byteSourceFromBytes, readDataFile, type ByteSource } from './format/parquet-reader.ts';
export {
  KEY_FIELD_ID_START,
  KEY_FIELD_PREFIX,
  KeyValueFileWriter,
  RowKind,
  SEQUENCE_NUMBER_FIELD,
  VALUE_KIND_FIELD,
  columnComparator,
  isRetract,
  keyValueRowType,
  rowsComparator,
  sortedRun,
  type KeyValueFileResult,
  type KeyValueFileWriterOptions,
  type RowKindByte,
  type SortedRunInput,
} from './format/key-value.ts';

// The table API (table.ts, write/, read/): create or open a table, write, commit, read.
export {
  Table,
  createTable,
  newTableSchema,
  listTables,
  openTable,
  tablePath,
  type ColumnDefinition,
  type DataFileSummary,
  type ColumnSpec,
  type SchemaDefinition,
  type TableDescription,
  type TableCommit,
  type TableIdentifier,
} from './table.ts';
export {
  warehouseTables,
  type PublishRequest,
  type PublishResult,
  type RowPreview,
  type SnapshotSummary,
  type TableRef,
  type TableSummary,
  type Tables,
} from './tables.ts';
export { SEQUENCE_STRIDE, TableWrite, type TableWriteOptions } from './write/table-write.ts';
export { rebasedFileName, rebasedFrom } from './write/sequence-rebase.ts';
export { FileStoreCommit, type CommitRequest, type CommitResult, type FileStoreCommitOptions } from './write/file-store-commit.ts';
export {
  checkCommitConflicts,
  deltaEntries,
  overwriteDeletes,
  partitionKey,
  type CommitIdentity,
  type CommitKind as TableCommitKind,
} from './write/commit-plan.ts';
export { encodePartitionRow, partitionPathOptions, RowRouter, type BucketTarget } from './write/row-routing.ts';
export { TableRead, type TableReadOptions } from './read/table-read.ts';
export { FileStoreScan, mapInOrder, type PartitionSpec, type ScanFilter } from './read/file-store-scan.ts';
export { SnapshotManager } from './read/snapshot-manager.ts';
export { mergeDeduplicate, type KeyValue, type KeyValueOrder } from './read/sort-merge-reader.ts';

// spec/: pure codecs of Paimon's schema, snapshot, partition paths, stats and key order.
export {
  SCHEMA_VERSION,
  bucketCount,
  bucketKeys,
  decodeTableSchema,
  encodeTableSchema,
  fieldsByName,
  partitionFields,
  trimmedPrimaryKeys,
  validateTableSchema,
  type TableSchema,
} from './spec/table-schema.ts';
export {
  BATCH_COMMIT_IDENTIFIER,
  COMMIT_KINDS,
  SNAPSHOT_OPERATIONS,
  SNAPSHOT_VERSION,
  decodeSnapshot,
  encodeSnapshot,
  snapshotsEqual,
  type CommitKind,
  type Snapshot,
  type SnapshotOperation,
} from './spec/snapshot.ts';
export {
  DEFAULT_PARTITION_NAME,
  escapePathName,
  parsePartitionPath,
  partitionPath,
  partitionValueText,
  unescapePathName,
  type PartitionPathOptions,
} from './spec/partition-path.ts';
export {
  DEFAULT_STATS_MODE,
  EMPTY_STATS,
  applyStatsMode,
  parseStatsMode,
  isNoneStats,
  simpleStats,
  statsModesFor,
  statsToBinary,
  truncateMax,
  truncateMin,
  type SimpleColStats,
  type SimpleStats,
  type StatsMode,
  type StatsWithColumns,
} from './spec/simple-stats.ts';
export {
  compareBytes,
  compareJavaDouble,
  compareKeys,
  compareUtf8,
  compareValues,
  keyComparator,
  type KeyComparator,
} from './spec/key-comparator.ts';

// spec/: Avro manifests (manifest files, manifest lists, data file meta), FileEntry's merge, and
// the commit message (Paimon's CommitMessageImpl) a writer hands the committer.
export { FileSource, localCreationTime, type DataFileMeta } from './spec/data-file-meta.ts';
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
export {
  MANIFEST_ENTRY_SCHEMA,
  MANIFEST_ENTRY_VERSION,
  decodeManifestFile,
  encodeManifestFile,
  type FileKind,
  type ManifestEntry,
} from './spec/manifest-entry.ts';
export {
  MANIFEST_FILE_META_SCHEMA,
  MANIFEST_FILE_META_VERSION,
  decodeManifestList,
  encodeManifestList,
  type ManifestFileMeta,
} from './spec/manifest-file-meta.ts';
export { entryIdentifier, mergeEntries } from './spec/file-entry.ts';
export type { AvroWriteCodec, AvroWriteOptions } from './spec/avro-container.ts';
export {
  INDEX_MANIFEST_ENTRY_VERSION,
  decodeIndexManifest,
  type IndexManifestEntry,
  type IndexType,
} from './spec/index-manifest-entry.ts';
