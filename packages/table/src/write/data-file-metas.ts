/**
 * DataFileMeta of freshly written level-0 files, from what the format writers report: the pure
 * part of org.apache.paimon.io.DataFileMeta.forAppend (append tables) and
 * KeyValueDataFileWriter.result (primary-key tables).
 *
 * Value statistics follow the table's stats modes (`metadata.stats-mode`, default truncate(16), or
 * the one the file's kind picks, see spec/file-options.ts; and `fields.<f>.stats-mode`) and
 * `metadata.stats-dense-store`, as Java's SimpleStatsConverter does:
 * a column whose mode is `none` is left out and named in `_VALUE_STATS_COLS`. Key statistics are
 * always "all mode" (untruncated), as KeyValueDataFileWriter writes them.
 */
import { valueAt, type Column, type ColumnBatch } from '../format/column-batch.ts';
import { columnStats, type ColumnStats } from '../format/column-stats.ts';
import { isRetract } from '../format/key-value.ts';
import type { DataFileResult } from '../parquet/parquet-writer.ts';
import type { KeyValueFileResult } from './key-value-writer.ts';
import { EMPTY_ROW, serializeBinaryRow } from '../spec/binary-row.ts';
import { FileSource, type DataFileMeta } from '../spec/data-file-meta.ts';
import { fileStatsMode, type FileKind } from '../spec/file-options.ts';
import {
  EMPTY_STATS,
  applyStatsMode,
  simpleStats,
  statsModesFor,
  statsToBinary,
  type SimpleColStats,
  type SimpleStats,
  type StatsMode,
} from '../spec/simple-stats.ts';
import type { DataField, DataType } from '../spec/types.ts';

export interface FileMetaContext {
  readonly schemaId: number;
  /** `_CREATION_TIME`: local wall-clock millis "as if UTC" (see localCreationTime). */
  readonly creationTime: number;
  /** How value statistics are kept: see valueStatsOptions. */
  readonly valueStats: ValueStatsOptions;
}

export interface ValueStatsOptions {
  readonly fields: readonly DataField[];
  readonly modes: readonly StatsMode[];
  /** `metadata.stats-dense-store` (default true). */
  readonly denseStore: boolean;
}

/** The value-stats settings of a file of kind `kind` of a table with these fields and options (spec/file-options.ts). */
export function valueStatsOptions(fields: readonly DataField[], options: Readonly<Record<string, string>>, kind: FileKind): ValueStatsOptions {
  return {
    fields,
    modes: statsModesFor(
      options,
      fields.map((f) => f.name),
      fileStatsMode(options, kind),
    ),
    denseStore: (options['metadata.stats-dense-store'] ?? 'true') !== 'false',
  };
}

/** Java's Timestamp.fromLocalDateTime(LocalDateTime.now()): the local wall clock read as UTC. */
export function localCreationTime(now: Date): number {
  return now.getTime() - now.getTimezoneOffset() * 60_000;
}

/**
 * A column's stats as Java's ParquetSimpleStatsExtractor.toFieldStats reports them: it maps no
 * Parquet statistics for BINARY/VARBINARY (its default branch) nor for TIMESTAMP(7..9) (INT96),
 * so their min and max are unknown and only the null count is kept.
 */
function colStats(s: ColumnStats, type: DataType | undefined): SimpleColStats {
  const nullCount = BigInt(s.nullCount);
  const unmapped =
    type !== undefined &&
    (type.root === 'BINARY' || type.root === 'VARBINARY' || ((type.root === 'TIMESTAMP' || type.root === 'TIMESTAMP_LTZ') && type.precision > 6));
  return unmapped ? { min: null, max: null, nullCount } : { min: s.min, max: s.max, nullCount };
}

/** `_VALUE_STATS` and `_VALUE_STATS_COLS` of one file. */
export function valueStatsOf(stats: readonly ColumnStats[], options: ValueStatsOptions): { stats: SimpleStats; statsColumns: string[] | null } {
  const kept = stats.map((s, i) => applyStatsMode(colStats(s, options.fields[i]?.type), options.modes[i] ?? { kind: 'full' }));
  return statsToBinary(kept, options.fields, options.denseStore);
}

/** `_KEY_STATS`: "all mode" (untruncated) min, max and null counts of the key columns. */
export function keyStatsOf(stats: readonly ColumnStats[], types: readonly DataType[]): SimpleStats {
  if (types.length === 0) return EMPTY_STATS;
  // Java takes key stats from the same Parquet extractor: unmapped key types have no min/max either.
  const cols = stats.map((s, i) => colStats(s, types[i]));
  return simpleStats(cols.map((c) => c.min), cols.map((c) => c.max), cols.map((c) => c.nullCount), types);
}

function baseMeta(file: DataFileResult, ctx: Pick<FileMetaContext, 'schemaId' | 'creationTime'>): Omit<DataFileMeta, 'minKey' | 'maxKey' | 'keyStats' | 'valueStats' | 'minSequenceNumber' | 'maxSequenceNumber' | 'deleteRowCount'> {
  return {
    fileName: file.fileName,
    fileSize: BigInt(file.fileSize),
    rowCount: BigInt(file.rowCount),
    schemaId: BigInt(ctx.schemaId),
    level: 0,
    extraFiles: [],
    creationTimeMillis: BigInt(ctx.creationTime),
    embeddedIndex: null,
    fileSource: FileSource.APPEND,
    valueStatsCols: null,
    externalPath: null,
    firstRowId: null,
    writeCols: null,
    writeColsSequences: null,
  };
}

/** DataFileMeta.forAppend: empty keys, sequence numbers [first, first + rows - 1], no deletes. */
export function appendFileMeta(file: DataFileResult, firstSequence: bigint, ctx: FileMetaContext): DataFileMeta {
  const value = valueStatsOf(file.stats, ctx.valueStats);
  return {
    ...baseMeta(file, ctx),
    minKey: EMPTY_ROW,
    maxKey: EMPTY_ROW,
    keyStats: EMPTY_STATS,
    valueStats: value.stats,
    valueStatsCols: value.statsColumns,
    minSequenceNumber: firstSequence,
    maxSequenceNumber: firstSequence + BigInt(file.rowCount) - 1n,
    deleteRowCount: 0n,
  };
}

/** KeyValueDataFileWriter.result: min/max key rows, key stats ("all" mode), exact delete count. */
export function keyValueFileMeta(file: KeyValueFileResult, keyTypes: readonly DataType[], ctx: FileMetaContext): DataFileMeta {
  const value = valueStatsOf(file.valueStats, ctx.valueStats);
  return {
    ...baseMeta(file, ctx),
    minKey: serializeBinaryRow(file.minKey, keyTypes),
    maxKey: serializeBinaryRow(file.maxKey, keyTypes),
    keyStats: keyStatsOf(file.keyStats, keyTypes),
    valueStats: value.stats,
    valueStatsCols: value.statsColumns,
    minSequenceNumber: file.minSequenceNumber,
    maxSequenceNumber: file.maxSequenceNumber,
    deleteRowCount: BigInt(file.deleteRowCount),
  };
}

/**
 * DataFileMeta of a sorted run in the run encoding (a load's staging, read by its bucket job only):
 * what the bucket plan and the merge use (name, size, rows, sequence range) and what is cheap to
 * know exactly (the key range and key stats, the delete count). No value statistics are computed
 * for runs: `_VALUE_STATS_COLS` is empty, which says so.
 *
 * `run`: the segment's rows, in key-value layout (keyValueRowType) when `keyTypes` is not empty,
 * else an append table's rows numbered from `firstSequence`.
 */
export function runFileMeta(
  segment: { readonly name: string; readonly size: number },
  run: ColumnBatch,
  keyTypes: readonly DataType[],
  firstSequence: bigint,
  ctx: Pick<FileMetaContext, 'schemaId' | 'creationTime'>,
): DataFileMeta {
  const file = { fileName: segment.name, fileSize: segment.size, rowCount: run.length, stats: [], firstRow: [], lastRow: [] };
  const base = { ...baseMeta(file, ctx), valueStats: EMPTY_STATS, valueStatsCols: [] };
  const k = keyTypes.length;
  if (k === 0) {
    const last = firstSequence + BigInt(run.length) - 1n;
    return { ...base, minKey: EMPTY_ROW, maxKey: EMPTY_ROW, keyStats: EMPTY_STATS, minSequenceNumber: firstSequence, maxSequenceNumber: last, deleteRowCount: 0n };
  }
  const keys = run.columns.slice(0, k);
  const sequence = (run.columns[k] as Column & { kind: 'int64' }).values;
  const kinds = (run.columns[k + 1] as Column & { kind: 'int32' }).values;
  let min = sequence[0] as bigint;
  let max = min;
  let deletes = 0;
  for (let i = 0; i < run.length; i++) {
    const s = sequence[i] as bigint;
    if (s < min) min = s;
    if (s > max) max = s;
    if (isRetract(kinds[i] as number)) deletes += 1;
  }
  return {
    ...base,
    minKey: serializeBinaryRow(keys.map((c) => valueAt(c, 0)), keyTypes),
    maxKey: serializeBinaryRow(keys.map((c) => valueAt(c, run.length - 1)), keyTypes),
    keyStats: keyStatsOf(keys.map((c) => columnStats(c, run.length)), keyTypes),
    minSequenceNumber: min,
    maxSequenceNumber: max,
    deleteRowCount: BigInt(deletes),
  };
}
