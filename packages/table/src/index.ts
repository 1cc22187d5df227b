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
export { decimalByteLength, parquetElement, parquetSchema, timestampEncoding, PARQUET_ROOT_NAME } from './parquet/parquet-schema.ts';
export {
  DataFileWriter,
  ParquetFileEncoder,
  memorySink,
  type DataFileResult,
  type DataFileWriterOptions,
  type FileSink,
  type ParquetCompression,
  type ParquetEncodeOptions,
} from './parquet/parquet-writer.ts';
export { ParquetDataFileReader, byteSourceFromBytes, readDataFile, type ByteSource } from './parquet/parquet-reader.ts';
export {
  KEY_FIELD_ID_START,
  KEY_FIELD_PREFIX,
  RowKind,
  SEQUENCE_NUMBER_FIELD,
  VALUE_KIND_FIELD,
  columnComparator,
  isRetract,
  keyValueRowType,
  rowsComparator,
  sortedRun,
  type RowKindByte,
  type SortedRunInput,
} from './format/key-value.ts';
export { KeyValueFileWriter, type KeyValueFileResult, type KeyValueFileWriterOptions } from './write/key-value-writer.ts';

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
  type SchemaDefinition,
  type TableCommit,
  type TableIdentifier,
} from './table.ts';
export { SEQUENCE_STRIDE, TableWrite, type TableWriteOptions } from './write/table-write.ts';
export { rebasedFileName, rebasedFrom } from './write/sequence-rebase.ts';
export { FileStoreCommit, type CommitRequest, type CommitResult, type FileStoreCommitOptions } from './write/file-store-commit.ts';
export {
  checkCommitConflicts,
  deltaEntries,
  overwriteDeletes,
  type CommitKind as TableCommitKind,
} from './write/commit-plan.ts';
export { partitionKey, type CommitIdentity, type CommitMessage } from './snapshot/commit-message.ts';
export { encodePartitionRow, RowRouter, type BucketTarget } from './write/row-routing.ts';
export { TableRead, type TableReadOptions } from './read/table-read.ts';
export { fromProtocolCommitMessage, toProtocolCommitMessage } from './protocol-messages.ts';
export { FileStoreScan, mapInOrder, type PartitionSpec, type ScanFilter } from './snapshot/file-store-scan.ts';
export { SnapshotManager } from './snapshot/snapshot-manager.ts';
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
  partitionPathOptions,
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

// spec/: Avro manifests (manifest files, manifest lists, data file meta) and FileEntry's merge.
export { localCreationTime, type DataFileMeta, type FileSource } from './spec/data-file-meta.ts';
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
export type { AvroWriteCodec, AvroWriteOptions } from './avro/avro-container.ts';
export {
  INDEX_MANIFEST_ENTRY_VERSION,
  decodeIndexManifest,
  type IndexManifestEntry,
  type IndexType,
} from './spec/index-manifest-entry.ts';
