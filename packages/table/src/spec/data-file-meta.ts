/**
 * Metadata of one data file, as a manifest entry's `_FILE` record.
 * Mirrors Java `org.apache.paimon.io.DataFileMeta` (its `SCHEMA`) and `DataFileMetaSerializer`,
 * as of Paimon master (post-2.0), which pypaimon 2.1 also writes (`manifest/schema/data_file_meta.py`).
 *
 * Master appended `_WRITE_COLS_SEQUENCES`. Java 2.0.0 and older resolve nested fields by name
 * and skip fields they do not know (`FieldReaderFactory.RowReader`), so writing it is safe, and
 * keeping it means rewriting another writer's entries (manifest merging) loses nothing.
 */

import type { AvroRecord, AvroSchema, AvroValue } from '../avro/avro.ts';
import {
  asRecord, nullableField, optionalBytes, optionalInt, optionalLong, optionalLongs, optionalString, optionalStrings,
  requiredBytes, requiredField, requiredInt, requiredLong, requiredString, simpleStatsFromAvro,
  simpleStatsSchema, simpleStatsToAvro,
} from './manifest-avro.ts';
import type { SimpleStats } from './simple-stats.ts';
import { errorFrom } from '@tributary/errors';
import { tableErrors } from '../errors.ts';

/** Java `org.apache.paimon.manifest.FileSource`, as the byte Paimon stores: APPEND (new data) or COMPACT. */
export const FileSource = { APPEND: 0, COMPACT: 1 } as const;
export type FileSource = (typeof FileSource)[keyof typeof FileSource];

/**
 * The one definition of a data file's metadata: what a manifest entry's `_FILE` record holds (the
 * Avro mapping below) and what a commit message carries to the committer (spec/commit-message.ts;
 * @tributary/protocol puts the same fields into a blob). Java longs are `bigint` (exact), Java
 * ints `number`; Java's `@Nullable` is `| null`.
 */
export interface DataFileMeta {
  readonly fileName: string;
  readonly fileSize: bigint;
  /** All records of the file, retract rows included. */
  readonly rowCount: bigint;
  /** Arity-prefixed BinaryRow of the (trimmed) primary key; the empty row for append tables. */
  readonly minKey: Uint8Array;
  readonly maxKey: Uint8Array;
  readonly keyStats: SimpleStats;
  readonly valueStats: SimpleStats;
  readonly minSequenceNumber: bigint;
  readonly maxSequenceNumber: bigint;
  readonly schemaId: bigint;
  readonly level: number;
  readonly extraFiles: readonly string[];
  /**
   * `_CREATION_TIME`, a TIMESTAMP(3) without time zone: Java stores
   * `Timestamp.fromLocalDateTime(LocalDateTime.now())`, i.e. the writer's local wall-clock time
   * as epoch millis read as if it were UTC (see `localCreationTime`). Informational only.
   */
  readonly creationTimeMillis: bigint | null;
  /** Rows of kind -U/-D in the file; null when unknown (files from before Paimon 0.9). */
  readonly deleteRowCount: bigint | null;
  readonly embeddedIndex: Uint8Array | null;
  readonly fileSource: FileSource | null;
  /** Null: stats cover every field of schema `schemaId`; a list: only those columns, in order. */
  readonly valueStatsCols: readonly string[] | null;
  /** Full path when the file lives outside the table directory. */
  readonly externalPath: string | null;
  readonly firstRowId: bigint | null;
  readonly writeCols: readonly string[] | null;
  /** Per written column, the sequence number it was written at (Paimon master; null otherwise). */
  readonly writeColsSequences: readonly bigint[] | null;
}

/**
 * `DataFileMeta.SCHEMA` through `AvroSchemaConverter`, nested under `parentName`
 * (`<parent>__FILE`, and its stats records `<parent>__FILE__KEY_STATS` / `__VALUE_STATS`).
 */
export function dataFileMetaSchema(recordName: string): AvroSchema {
  const strings = { type: 'array', items: 'string' } as const;
  return {
    type: 'record',
    name: recordName,
    fields: [
      requiredField('_FILE_NAME', 'string'),
      requiredField('_FILE_SIZE', 'long'),
      requiredField('_ROW_COUNT', 'long'),
      requiredField('_MIN_KEY', 'bytes'),
      requiredField('_MAX_KEY', 'bytes'),
      requiredField('_KEY_STATS', simpleStatsSchema(`${recordName}__KEY_STATS`)),
      requiredField('_VALUE_STATS', simpleStatsSchema(`${recordName}__VALUE_STATS`)),
      requiredField('_MIN_SEQUENCE_NUMBER', 'long'),
      requiredField('_MAX_SEQUENCE_NUMBER', 'long'),
      requiredField('_SCHEMA_ID', 'long'),
      requiredField('_LEVEL', 'int'),
      requiredField('_EXTRA_FILES', strings),
      nullableField('_CREATION_TIME', { type: 'long', logicalType: 'timestamp-millis' }),
      nullableField('_DELETE_ROW_COUNT', 'long'),
      nullableField('_EMBEDDED_FILE_INDEX', 'bytes'),
      nullableField('_FILE_SOURCE', 'int'),
      nullableField('_VALUE_STATS_COLS', strings),
      nullableField('_EXTERNAL_PATH', 'string'),
      nullableField('_FIRST_ROW_ID', 'long'),
      nullableField('_WRITE_COLS', strings),
      nullableField('_WRITE_COLS_SEQUENCES', { type: 'array', items: 'long' }),
    ],
  };
}

export function dataFileMetaToAvro(file: DataFileMeta): AvroRecord {
  return {
    _FILE_NAME: file.fileName,
    _FILE_SIZE: file.fileSize,
    _ROW_COUNT: file.rowCount,
    _MIN_KEY: file.minKey,
    _MAX_KEY: file.maxKey,
    _KEY_STATS: simpleStatsToAvro(file.keyStats),
    _VALUE_STATS: simpleStatsToAvro(file.valueStats),
    _MIN_SEQUENCE_NUMBER: file.minSequenceNumber,
    _MAX_SEQUENCE_NUMBER: file.maxSequenceNumber,
    _SCHEMA_ID: file.schemaId,
    _LEVEL: file.level,
    _EXTRA_FILES: file.extraFiles,
    _CREATION_TIME: file.creationTimeMillis,
    _DELETE_ROW_COUNT: file.deleteRowCount,
    _EMBEDDED_FILE_INDEX: file.embeddedIndex,
    _FILE_SOURCE: fileSourceToAvro(file.fileSource),
    _VALUE_STATS_COLS: file.valueStatsCols,
    _EXTERNAL_PATH: file.externalPath,
    _FIRST_ROW_ID: file.firstRowId,
    _WRITE_COLS: file.writeCols,
    _WRITE_COLS_SEQUENCES: file.writeColsSequences,
  };
}

/** Maps a decoded `_FILE` record by field name; fields the writer did not have read as null. */
export function dataFileMetaFromAvro(value: AvroValue | undefined, path: string): DataFileMeta {
  const r = asRecord(value, path);
  return {
    fileName: requiredString(r, '_FILE_NAME', path),
    fileSize: requiredLong(r, '_FILE_SIZE', path),
    rowCount: requiredLong(r, '_ROW_COUNT', path),
    minKey: requiredBytes(r, '_MIN_KEY', path),
    maxKey: requiredBytes(r, '_MAX_KEY', path),
    keyStats: simpleStatsFromAvro(r['_KEY_STATS'], `${path}._KEY_STATS`),
    valueStats: simpleStatsFromAvro(r['_VALUE_STATS'], `${path}._VALUE_STATS`),
    minSequenceNumber: requiredLong(r, '_MIN_SEQUENCE_NUMBER', path),
    maxSequenceNumber: requiredLong(r, '_MAX_SEQUENCE_NUMBER', path),
    schemaId: requiredLong(r, '_SCHEMA_ID', path),
    level: requiredInt(r, '_LEVEL', path),
    extraFiles: optionalStrings(r, '_EXTRA_FILES', path) ?? [],
    creationTimeMillis: optionalLong(r, '_CREATION_TIME', path),
    deleteRowCount: optionalLong(r, '_DELETE_ROW_COUNT', path),
    embeddedIndex: optionalBytes(r, '_EMBEDDED_FILE_INDEX', path),
    fileSource: fileSourceFromAvro(optionalInt(r, '_FILE_SOURCE', path), path),
    valueStatsCols: optionalStrings(r, '_VALUE_STATS_COLS', path),
    externalPath: optionalString(r, '_EXTERNAL_PATH', path),
    firstRowId: optionalLong(r, '_FIRST_ROW_ID', path),
    writeCols: optionalStrings(r, '_WRITE_COLS', path),
    writeColsSequences: optionalLongs(r, '_WRITE_COLS_SEQUENCES', path),
  };
}

function invalidValue(field: string, value: unknown): Error {
  return errorFrom(tableErrors, 'AVRO_VALUE_INVALID', `DataFileMeta.${field}: invalid value ${String(value)}`, { field });
}

function fileSourceToAvro(source: FileSource | null): number | null {
  if (source !== null && source !== FileSource.APPEND && source !== FileSource.COMPACT) throw invalidValue('fileSource', source);
  return source;
}

function fileSourceFromAvro(value: number | null, path: string): FileSource | null {
  if (value === null) return null;
  if (value !== FileSource.APPEND && value !== FileSource.COMPACT) {
    throw errorFrom(tableErrors, 'MANIFEST_RECORD_INVALID', `${path}._FILE_SOURCE: unknown value ${value}`, { path });
  }
  return value;
}

/**
 * The `_CREATION_TIME` Java would write for the instant `now`: the local wall-clock reading in
 * the time zone whose UTC offset at that instant is `utcOffsetMinutes` (east positive), as epoch
 * millis read as UTC. Pure; pass `-date.getTimezoneOffset()` for the process's own zone.
 */
export function localCreationTime(now: Date, utcOffsetMinutes: number): number {
  return now.getTime() + utcOffsetMinutes * 60_000;
}
