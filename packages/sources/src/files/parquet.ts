/**
 * Parquet input files (pyarrow, Spark, DuckDB, parquet-mr…), read through the table package's
 * ParquetDataFileReader over ranged ObjectStore reads: only the footer and the column chunks of the
 * row group being read are fetched, so a big file in S3 is never loaded whole. Memory holds the
 * compressed column chunks of one row group and the decoded values of one slice of SLICE_ROWS rows.
 *
 * An input file is not a Paimon data file: its columns may use any physical/logical type pair.
 * Each projected top-level column is decoded by its *reading type* (parquet-values.ts: DECIMAL
 * unscaled from INT32/INT64/FIXED/BYTE_ARRAY, TIMESTAMP from MILLIS/MICROS/NANOS or INT96), column
 * chunk by column chunk into typed column vectors, and handed on as cells (parquet-cells.ts): the
 * column converter writes them into the table's columns without a row being built, with exactly
 * the values the exact source values (`parquetValue`: a decimal as its exact decimal text, a
 * timestamp as epoch millis + nanos, a date as a UTC Date) get from values/convert.ts; the rows
 * of source values are decoded only when asked for (the bad-row policy).
 *
 * Columns map to the table by name as every format's do (column-names.ts): an exact
 * (case-sensitive) match first, else the one column whose name matches ignoring case. A table column the file lacks reads as null (values/convert.ts rejects
 * null in a NOT NULL column, naming the file's first row); file columns the table lacks are ignored.
 */
import { errorFrom, isTributaryError } from '@tributary/protocol';
import type { RowType } from '@tributary/table';
import { ParquetDataFileReader, type ByteSource } from '@tributary/table/parquet';
import { sourceErrors } from '../errors.ts';
import { matchColumns, type UnknownColumns } from './column-names.ts';
import { ParquetCells } from './parquet-cells.ts';
import type { PinnedFile } from './pinned-file.ts';
import { planParquetColumn, unsupported, type ParquetElement } from './parquet-values.ts';

/** Bytes of ranged reads kept for the next slices of the same row group (see `batches`). */
const REUSED_READ_BYTES = 256 << 20;

/**
 * Ranged gets of the file's listed version (pinned-file.ts). Recent reads are kept (up to REUSED_READ_BYTES, oldest
 * dropped first): a big row group is decoded in slices of rows, and each slice asks for the same
 * column-chunk ranges again, which must not be fetched again.
 */
function storeByteSource(file: PinnedFile): ByteSource & { forget(): void } {
  let kept: { offset: number; bytes: Uint8Array }[] = [];
  let keptBytes = 0;
  return {
    size: file.size,
    /** Drops the kept reads (at the start of the next row group). */
    forget: () => {
      kept = [];
      keptBytes = 0;
    },
    read: async (offset, length) => {
      const hit = kept.find((k) => offset >= k.offset && offset + length <= k.offset + k.bytes.length);
      if (hit) return hit.bytes.subarray(offset - hit.offset, offset - hit.offset + length);
      const bytes = await file.read(offset, length);
      kept.push({ offset, bytes });
      keptBytes += bytes.length;
      while (keptBytes > REUSED_READ_BYTES && kept.length > 0) keptBytes -= kept.shift()?.bytes.length ?? 0;
      return bytes;
    },
  };
}

/** The top-level columns of a footer schema (root first; nested groups are skipped whole). */
export function topLevelColumns(schema: readonly ParquetElement[]): ParquetElement[] {
  const top: ParquetElement[] = [];
  let i = 1;
  const skip = (at: number): number => {
    let next = at + 1;
    for (let c = 0; c < (schema[at]?.num_children ?? 0); c++) next = skip(next);
    return next;
  };
  while (i < schema.length) {
    const e = schema[i];
    if (e === undefined) break;
    top.push(e);
    i = skip(i);
  }
  return top;
}

export interface ParquetFileRows {
  readonly rowCount: number;
  /** Batches of at most `maxRows` rows from row `fromRow` on, as cells of the source columns `columns` (parquet-cells.ts). */
  batches(fromRow: number, maxRows: number): AsyncIterable<{ firstRow: number; cells: ParquetCells }>;
}

/** Rows decoded at once within a row group: bounds memory whatever the writer's row-group size. */
const SLICE_ROWS = 128 * 1024;

/** Opens one Parquet input file (its listed version), projected onto `columns` (the table's names); a column no table column takes is refused unless `unknownColumns` is `ignore`. */
export async function openParquetFile(file: PinnedFile, columns: readonly string[], unknownColumns: UnknownColumns, sliceRows = SLICE_ROWS): Promise<ParquetFileRows> {
  const { uri } = file;
  const bytes = storeByteSource(file);
  const reader = await ParquetDataFileReader.open(bytes).catch((error: unknown) => unreadable(uri, undefined, error));
  const top = topLevelColumns(reader.schema as readonly ParquetElement[]);
  const matched = matchColumns(columns, top.map((e) => e.name), uri, 'parquet', { unknownColumns });
  const read = matched.flatMap((name, index) => {
    const element = top.find((e) => e.name === name);
    if (name === undefined || element === undefined) return [];
    if ((element.num_children ?? 0) > 0 || reader.schema.filter((e) => e.name === name).length > 1) unsupported(element, 'a group or a name used twice', uri);
    return [{ index, name, plan: planParquetColumn(element, uri) }];
  });
  const rowType: RowType = { fields: read.map((c, id) => ({ id, name: c.name, type: c.plan.readAs })) };
  const groups = reader.footer.row_groups.map((g) => Number(g.num_rows));
  return {
    rowCount: reader.rowCount,
    async *batches(fromRow, maxRows) {
      let groupStart = 0;
      for (const groupRows of groups) {
        const groupEnd = groupStart + groupRows;
        const start = Math.max(groupStart, fromRow);
        bytes.forget();
        // A big row group (pyarrow writes up to 1 Mi rows in one) is decoded a slice of rows at a
        // time: the reader skips the pages before the slice undecompressed and stops after it (each
        // slice still parses the page headers from the chunk's start, in the bytes kept above).
        for (let sliceStart = start; sliceStart < groupEnd; sliceStart += sliceRows) {
          const batch = await reader.readRows(rowType, sliceStart, Math.min(groupEnd, sliceStart + sliceRows)).catch((error: unknown) => unreadable(uri, sliceStart, error));
          for (let s = 0; s < batch.length; s += maxRows) {
            const end = Math.min(batch.length, s + maxRows);
            yield { firstRow: sliceStart + s, cells: new ParquetCells(batch.columns, read, columns.length, s, end, { uri, firstRow: sliceStart }) };
          }
        }
        groupStart = groupEnd;
      }
    },
  };
}

/**
 * A file the table reader cannot decode (bad magic, a footer cut off, undecodable pages) is
 * SOURCE_FILE_MALFORMED naming the file (and the first row of the slice); other errors (storage) pass.
 */
export function unreadable(uri: string, row: number | undefined, error: unknown): never {
  if (!isTributaryError(error) || error.code !== 'PARQUET_FILE_INVALID') throw error;
  const where = row === undefined ? '' : ` (rows from ${row})`;
  throw errorFrom(sourceErrors, 'SOURCE_FILE_MALFORMED', `${uri}${where}: not a readable Parquet file, or a truncated one: ${error.message}`, { file: uri, ...(row === undefined ? {} : { row }) }, { cause: error });
}
