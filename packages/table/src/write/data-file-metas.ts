/**
 * DataFileMeta of freshly written level-0 files, from what the format writers report: the pure
 * part of org.apache.paimon.io.DataFileMeta.forAppend (append tables) and
 * KeyValueDataFileWriter.result (primary-key tables).
 *
 * Value statistics cover every table column (`_VALUE_STATS_COLS` = null, Java's dense form when
 * all columns have stats). Strings and binaries follow `truncate(16)`'s guarantee in the safe
 * direction: a longer min is cut to 16 characters (still a lower bound), a longer max becomes null
 * (unknown), which readers treat as "may match".
 */
import type { ColumnStats } from '../format/column-stats.ts';
import type { DataFileResult } from '../format/parquet-writer.ts';
import type { KeyValueFileResult } from '../format/key-value.ts';
import { EMPTY_ROW, serializeBinaryRow } from '../spec/binary-row.ts';
import type { DataFileMeta } from '../spec/data-file-meta.ts';
import type { SimpleStats } from '../spec/manifest-avro.ts';
import type { DataType, InternalValue } from '../spec/types.ts';

const TRUNCATE_LENGTH = 16;

export const EMPTY_STATS: SimpleStats = { minValues: EMPTY_ROW, maxValues: EMPTY_ROW, nullCounts: [] };

export interface FileMetaContext {
  readonly schemaId: number;
  /** `_CREATION_TIME`: local wall-clock millis "as if UTC" (see localCreationTime). */
  readonly creationTime: number;
}

/** Java's Timestamp.fromLocalDateTime(LocalDateTime.now()): the local wall clock read as UTC. */
export function localCreationTime(now: Date): number {
  return now.getTime() - now.getTimezoneOffset() * 60_000;
}

function truncateMin(v: InternalValue): InternalValue {
  if (typeof v === 'string') return [...v].length > TRUNCATE_LENGTH ? [...v].slice(0, TRUNCATE_LENGTH).join('') : v;
  if (v instanceof Uint8Array) return v.length > TRUNCATE_LENGTH ? v.slice(0, TRUNCATE_LENGTH) : v;
  return v;
}

function truncateMax(v: InternalValue): InternalValue {
  if (typeof v === 'string') return [...v].length > TRUNCATE_LENGTH ? null : v;
  if (v instanceof Uint8Array) return v.length > TRUNCATE_LENGTH ? null : v;
  return v;
}

/** SimpleStats of columns of these types. */
export function simpleStatsOf(stats: readonly ColumnStats[], types: readonly DataType[]): SimpleStats {
  if (types.length === 0) return EMPTY_STATS;
  return {
    minValues: serializeBinaryRow(stats.map((s) => truncateMin(s.min)), types),
    maxValues: serializeBinaryRow(stats.map((s) => truncateMax(s.max)), types),
    nullCounts: stats.map((s) => BigInt(s.nullCount)),
  };
}

function baseMeta(file: DataFileResult, ctx: FileMetaContext): Omit<DataFileMeta, 'minKey' | 'maxKey' | 'keyStats' | 'valueStats' | 'minSequenceNumber' | 'maxSequenceNumber' | 'deleteRowCount'> {
  return {
    fileName: file.fileName,
    fileSize: BigInt(file.fileSize),
    rowCount: BigInt(file.rowCount),
    schemaId: BigInt(ctx.schemaId),
    level: 0,
    extraFiles: [],
    creationTime: ctx.creationTime,
    embeddedIndex: null,
    fileSource: 'APPEND',
    valueStatsCols: null,
    externalPath: null,
    firstRowId: null,
    writeCols: null,
    writeColsSequences: null,
  };
}

/** DataFileMeta.forAppend: empty keys, sequence numbers [first, first + rows - 1], no deletes. */
export function appendFileMeta(file: DataFileResult, valueTypes: readonly DataType[], firstSequence: bigint, ctx: FileMetaContext): DataFileMeta {
  return {
    ...baseMeta(file, ctx),
    minKey: EMPTY_ROW,
    maxKey: EMPTY_ROW,
    keyStats: EMPTY_STATS,
    valueStats: simpleStatsOf(file.stats, valueTypes),
    minSequenceNumber: firstSequence,
    maxSequenceNumber: firstSequence + BigInt(file.rowCount) - 1n,
    deleteRowCount: 0n,
  };
}

/** KeyValueDataFileWriter.result: min/max key rows, key stats ("all" mode), exact delete count. */
export function keyValueFileMeta(
  file: KeyValueFileResult,
  keyTypes: readonly DataType[],
  valueTypes: readonly DataType[],
  ctx: FileMetaContext,
): DataFileMeta {
  return {
    ...baseMeta(file, ctx),
    minKey: serializeBinaryRow(file.minKey, keyTypes),
    maxKey: serializeBinaryRow(file.maxKey, keyTypes),
    keyStats: simpleStatsOf(file.keyStats, keyTypes),
    valueStats: simpleStatsOf(file.valueStats, valueTypes),
    minSequenceNumber: file.minSequenceNumber,
    maxSequenceNumber: file.maxSequenceNumber,
    deleteRowCount: BigInt(file.deleteRowCount),
  };
}
