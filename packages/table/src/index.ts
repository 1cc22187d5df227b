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
export { openObjectStore } from './io/open-object-store.ts';
export {
  EMPTY_ROW,
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
