// The public API of @tributary/table: what other packages, tests and benches use, nothing more.
// Paimon's metadata codecs are at '@tributary/table/spec', the Parquet reader at
// '@tributary/table/parquet'; everything else stays inside the package (README: layers).

// The table: create or open it, write, commit, read.
export { Table, createTable, listTables, openTable, tablePath, type DataFileSummary, type SchemaDefinition } from './table.ts';
export { TableWrite } from './write/table-write.ts';
export type { CommitMessage } from './spec/commit-message.ts';
export type { DataFileMeta } from './spec/data-file-meta.ts';
export { FileStoreScan, mapInOrder } from './snapshot/file-store-scan.ts';
export { fromProtocolCommitMessage, toProtocolCommitMessage } from './protocol-messages.ts';

// Values: Paimon's types, rows and column batches as Tributary holds them in memory.
export type { DataType, InternalRow, InternalValue, RowType, Timestamp } from './spec/types.ts';
export { formatDataType, parseDataTypeString } from './spec/data-type-json.ts';
export { jsonCell, type JsonCell } from './spec/json-value.ts';
export { allocateColumn, type Column, type ColumnBatch } from './format/column-batch.ts';

// Storage: the object stores a table lives on.
export type { ObjectBody, ObjectMeta, ObjectStore } from './io/object-store.ts';
export { LocalObjectStore } from './io/local-store.ts';
export { S3ObjectStore, type S3ConnectionOptions } from './io/s3-store.ts';
export { credentialedStores, openObjectStore, warehouseStores } from './io/open-object-store.ts';

export { tableErrors, type TableErrorCode } from './errors.ts';
