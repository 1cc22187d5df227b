/**
 * Parquet's thrift structures that a writer emits (parquet.thrift: FileMetaData, SchemaElement,
 * LogicalType, RowGroup, ColumnChunk, ColumnMetaData, PageHeader), with the enum numbers of the
 * spec. parquet-mr's ParquetMetadataConverter is the Java counterpart.
 */
import type { PhysicalType, SchemaElement } from './parquet-schema.ts';
import { bool, i16, i32, i64, i8, list, opt, serializeStruct, str, struct, type ThriftStruct, type ThriftValue } from './thrift-compact.ts';

const PHYSICAL_TYPE = { BOOLEAN: 0, INT32: 1, INT64: 2, INT96: 3, FLOAT: 4, DOUBLE: 5, BYTE_ARRAY: 6, FIXED_LEN_BYTE_ARRAY: 7 } as const;
const REPETITION = { REQUIRED: 0, OPTIONAL: 1, REPEATED: 2 } as const;
const CONVERTED_TYPE: Record<NonNullable<SchemaElement['converted_type']>, number> = {
  UTF8: 0, DECIMAL: 5, DATE: 6, TIME_MILLIS: 7, TIMESTAMP_MILLIS: 9, TIMESTAMP_MICROS: 10, INT_8: 15, INT_16: 16,
};
export const CODEC = { UNCOMPRESSED: 0, SNAPPY: 1, GZIP: 2, ZSTD: 6 } as const;
export const ENCODING = { PLAIN: 0, PLAIN_DICTIONARY: 2, RLE: 3, BIT_PACKED: 4, RLE_DICTIONARY: 8 } as const;
const PAGE_TYPE = { DATA_PAGE: 0, DICTIONARY_PAGE: 2 } as const;

function timeUnit(unit: string): ThriftValue {
  const id = unit === 'NANOS' ? 3 : unit === 'MICROS' ? 2 : 1;
  return struct([[id, struct([])]]);
}

function logicalType(element: SchemaElement): ThriftValue | undefined {
  const lt = element.logical_type;
  if (!lt) return undefined;
  switch (lt.type) {
    case 'STRING':
      return struct([[1, struct([])]]);
    case 'DECIMAL':
      return struct([[5, struct([[1, i32(lt.scale)], [2, i32(lt.precision)]])]]);
    case 'DATE':
      return struct([[6, struct([])]]);
    case 'TIME':
      return struct([[7, struct([[1, bool(lt.isAdjustedToUTC)], [2, timeUnit(lt.unit)]])]]);
    case 'TIMESTAMP':
      return struct([[8, struct([[1, bool(lt.isAdjustedToUTC)], [2, timeUnit(lt.unit)]])]]);
    case 'INTEGER':
      return struct([[10, struct([[1, i8(lt.bitWidth)], [2, bool(lt.isSigned)]])]]);
  }
}

function schemaElement(e: SchemaElement): ThriftStruct {
  return [
    [1, opt(e.type, (t) => i32(PHYSICAL_TYPE[t]))],
    [2, opt(e.type_length, i32)],
    [3, opt(e.repetition_type, (r) => i32(REPETITION[r]))],
    [4, str(e.name)],
    [5, opt(e.num_children, i32)],
    [6, opt(e.converted_type, (c) => i32(CONVERTED_TYPE[c]))],
    [7, opt(e.scale, i32)],
    [8, opt(e.precision, i32)],
    [9, opt(e.field_id, i32)],
    [10, logicalType(e)],
  ];
}

export interface ColumnChunkInfo {
  readonly type: PhysicalType;
  readonly path: string;
  readonly codec: number;
  readonly encodings: readonly number[];
  readonly numValues: number;
  readonly uncompressedSize: number;
  readonly compressedSize: number;
  readonly dataPageOffset: number;
  readonly dictionaryPageOffset: number | undefined;
}

export interface RowGroupInfo {
  readonly columns: readonly ColumnChunkInfo[];
  readonly numRows: number;
  readonly fileOffset: number;
}

function columnChunk(c: ColumnChunkInfo): ThriftStruct {
  const meta: ThriftStruct = [
    [1, i32(PHYSICAL_TYPE[c.type])],
    [2, list('i32', c.encodings)],
    [3, list('binary', [c.path])],
    [4, i32(c.codec)],
    [5, i64(c.numValues)],
    [6, i64(c.uncompressedSize)],
    [7, i64(c.compressedSize)],
    [9, i64(c.dataPageOffset)],
    [11, opt(c.dictionaryPageOffset, i64)],
  ];
  return [
    [2, i64(c.dictionaryPageOffset ?? c.dataPageOffset)],
    [3, struct(meta)],
  ];
}

function rowGroup(g: RowGroupInfo, ordinal: number): ThriftStruct {
  const compressed = g.columns.reduce((n, c) => n + c.compressedSize, 0);
  const uncompressed = g.columns.reduce((n, c) => n + c.uncompressedSize, 0);
  return [
    [1, list('struct', g.columns.map(columnChunk))],
    [2, i64(uncompressed)],
    [3, i64(g.numRows)],
    [5, i64(g.fileOffset)],
    [6, i64(compressed)],
    [7, i16(ordinal)],
  ];
}

/** The serialized FileMetaData (the footer body, before its length and the closing PAR1). */
export function fileMetaData(schema: readonly SchemaElement[], rowGroups: readonly RowGroupInfo[], createdBy: string): Uint8Array {
  const numRows = rowGroups.reduce((n, g) => n + g.numRows, 0);
  return serializeStruct([
    [1, i32(1)],
    [2, list('struct', schema.map(schemaElement))],
    [3, i64(numRows)],
    [4, list('struct', rowGroups.map(rowGroup))],
    [6, str(createdBy)],
  ]);
}

/** A v1 data page header (DataPageHeader), levels RLE-encoded. */
export function dataPageHeader(numValues: number, encoding: number, uncompressed: number, compressed: number): Uint8Array {
  return serializeStruct([
    [1, i32(PAGE_TYPE.DATA_PAGE)],
    [2, i32(uncompressed)],
    [3, i32(compressed)],
    [5, struct([[1, i32(numValues)], [2, i32(encoding)], [3, i32(ENCODING.RLE)], [4, i32(ENCODING.RLE)]])],
  ]);
}

export function dictionaryPageHeader(numValues: number, uncompressed: number, compressed: number): Uint8Array {
  return serializeStruct([
    [1, i32(PAGE_TYPE.DICTIONARY_PAGE)],
    [2, i32(uncompressed)],
    [3, i32(compressed)],
    [7, struct([[1, i32(numValues)], [2, i32(ENCODING.PLAIN_DICTIONARY)]])],
  ]);
}
