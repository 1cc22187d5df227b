/**
 * What a files source's columns are, read from the files themselves at plan time (the coordinator)
 * so that a sync whose files do not fit its table is refused before anything runs:
 *
 * - CSV: the header's names (every value is text); the first HEAD_BYTES of the file are read.
 * - NDJSON: the keys of the first object, typed by its JSON values (a number is a number, a string
 *   text, true/false a boolean; null and nested values say nothing and count as text).
 * - Parquet: the footer's top-level columns and their types (parquet.ts `planParquetColumn`).
 *
 * `checkFileColumns` then refuses a NOT NULL table column that a file lacks, a file column
 * whose type family cannot fill its table column (values/fits.ts), and (unless `unknownColumns` is
 * `ignore`) a file column that is no column of the table. At most FILES_CHECKED files of a
 * plan are inspected (the first ones, in plan order; an empty one is passed over, as it loads no
 * row); a worker checks every file it reads.
 */
import { errorFrom, isTributaryError } from '@tributary/protocol';
import { sourceErrors } from '../errors.ts';
import { formatDataType, MAX_LENGTH, type DataType, type ObjectStore } from '@tributary/table';
import { ParquetDataFileReader } from '@tributary/table/parquet';
import type { SourceSchema, TargetColumn } from '../source.ts';
import { familyIncompatibility, familyOf, type TypeFamily } from '../values/fits.ts';
import { matchColumns, type UnknownColumns } from './column-names.ts';
import { topLevelColumns, unreadable } from './parquet.ts';
import { planParquetColumn, type ParquetElement } from './parquet-values.ts';
import { csvRecords, ndjsonLines, parseJsonLine, utf8Text } from './text-records.ts';

/** Files whose columns a plan inspects. */
export const FILES_CHECKED = 16;
/** What is read of a text file to find its header or first line. */
const HEAD_BYTES = 256 * 1024;

export interface FileColumn {
  readonly name: string;
  /** Undefined for a column the files source cannot read (a nested Parquet column): refused only if the table needs it. */
  readonly family: TypeFamily | undefined;
  /** The column's own type, when the file states one (Parquet), for table creation. */
  readonly type?: DataType;
  /** For messages: `csv field`, `INT64 TIMESTAMP(MICROS)`, `json number`. */
  readonly describe: string;
}

/**
 * A file's columns, or undefined for a CSV or NDJSON file with no record to take them from (empty,
 * or blank lines only): it says nothing of its columns, and loads no row.
 */
export async function fileColumns(store: ObjectStore, key: string, uri: string, format: 'csv' | 'ndjson' | 'parquet'): Promise<FileColumn[] | undefined> {
  if (format === 'parquet') return parquetColumns(store, key, uri);
  const head = await store.getRange(key, 0, HEAD_BYTES);
  const text = utf8Text((async function* () {
    yield head;
  })());
  // The head may end inside a record: only the first record is taken, before the parser meets the cut.
  const options = { allowUnterminatedLastLine: true };
  if (format === 'csv') {
    for await (const header of csvRecords(text, uri, options)) return header.map((name) => ({ name, family: 'text', describe: 'csv field' }));
    return undefined;
  }
  for await (const line of ndjsonLines(text, uri, options)) {
    const object = parseJsonLine(line, uri);
    return Object.entries(object).map(([name, value]) => jsonColumn(name, value));
  }
  return undefined;
}

function jsonColumn(name: string, value: unknown): FileColumn {
  if (typeof value === 'number') return { name, family: 'number', type: { root: Number.isInteger(value) ? 'BIGINT' : 'DOUBLE', nullable: true }, describe: 'json number' };
  if (typeof value === 'boolean') return { name, family: 'boolean', type: { root: 'BOOLEAN', nullable: true }, describe: 'json boolean' };
  return { name, family: 'text', type: { root: 'VARCHAR', length: MAX_LENGTH, nullable: true }, describe: 'json text' };
}

async function parquetColumns(store: ObjectStore, key: string, uri: string): Promise<FileColumn[]> {
  const meta = await store.stat(key);
  if (meta === null) return [];
  const reader = await ParquetDataFileReader.open({ size: meta.size, read: (offset: number, length: number) => store.getRange(key, offset, length) }).catch((error: unknown) => unreadable(uri, undefined, error));
  return topLevelColumns(reader.schema as readonly ParquetElement[]).map((e): FileColumn => {
    let plan: ReturnType<typeof planParquetColumn>;
    try {
      if ((e.num_children ?? 0) > 0) return { name: e.name, family: undefined, describe: 'a nested group' };
      plan = planParquetColumn(e, uri);
    } catch (error) {
      if (isTributaryError(error)) return { name: e.name, family: undefined, describe: error.message };
      throw error;
    }
    const family: TypeFamily = plan.reading.kind === 'utf8' ? 'text' : plan.reading.kind === 'decimal' || plan.reading.kind === 'unsigned' ? 'number' : plan.reading.kind === 'time' ? 'time' : familyOf(plan.readAs);
    const type: DataType | undefined =
      plan.reading.kind === 'utf8'
        ? { root: 'VARCHAR', length: MAX_LENGTH, nullable: true }
        : plan.reading.kind === 'decimal'
          ? { root: 'DECIMAL', precision: Math.min(38, e.logical_type?.precision ?? e.precision ?? 38), scale: plan.reading.scale, nullable: true }
          : plan.reading.kind === 'unsigned'
            ? { root: 'DECIMAL', precision: 20, scale: 0, nullable: true }
            : plan.reading.kind === 'time'
              ? { root: 'TIME', precision: 3, nullable: true }
              : plan.readAs;
    return { name: e.name, family, type, describe: plan.describe };
  });
}

/**
 * Refuses (through `mismatch`) a NOT NULL target column the file lacks, or a file column that
 * cannot fill its target column. Names match as the reader matches them, in every format
 * (column-names.ts: exact first, then the unique case-insensitive match), which also refuses a
 * name the file has twice for a column, and a CSV or Parquet file that has none of the table's columns.
 */
export function checkFileColumns(
  columns: readonly FileColumn[],
  target: readonly TargetColumn[],
  uri: string,
  format: 'csv' | 'ndjson' | 'parquet',
  unknownColumns: UnknownColumns,
  mismatch: (column: string, message: string) => Error,
): void {
  const names = columns.map((c) => c.name);
  // An NDJSON file's first object is not all its keys: a file that shares none is refused by the worker, which reads them all.
  const matched = matchColumns(target.map((c) => c.name), names, uri, format, { whole: format !== 'ndjson', unknownColumns });
  target.forEach((t, i) => {
    const name = matched[i];
    const column = columns.find((c) => c.name === name);
    if (column === undefined) {
      if (!t.type.nullable) throw mismatch(t.name, `${uri} has no column ${t.name}, which is NOT NULL in the table`);
      return;
    }
    if (column.family === undefined) throw mismatch(t.name, `${uri} column ${column.name} cannot be read by the files source (${column.describe})`);
    const why = familyIncompatibility(column.family, `${uri} column ${column.name}, ${column.describe}`, t.type);
    if (why !== undefined) throw mismatch(t.name, why);
  });
}

/** A table made from a file's columns: its own types (CSV: every column STRING); no primary key. */
export function fileSchema(columns: readonly FileColumn[], bytes: number, uri: string): SourceSchema {
  const unreadable = columns.find((c) => c.family === undefined);
  if (unreadable !== undefined) {
    throw errorFrom(sourceErrors, 'SOURCE_SCHEMA_MISMATCH', `${uri} column ${unreadable.name} cannot be read by the files source (${unreadable.describe})`, { file: uri, column: unreadable.name });
  }
  return {
    columns: columns.map((c) => ({ name: c.name, type: formatDataType(c.type ?? { root: 'VARCHAR', length: MAX_LENGTH, nullable: true }) })),
    primaryKeys: [],
    bytes,
  };
}
