/**
 * Parquet input files (pyarrow, Spark, DuckDB, parquet-mr…), read through the table package's
 * ParquetDataFileReader over ranged ObjectStore reads: only the footer and the column chunks of the
 * row group being read are fetched, so a big file in S3 is never loaded whole. Memory holds the
 * compressed column chunks of one row group and the decoded values of one slice of SLICE_ROWS rows.
 *
 * An input file is not a Paimon data file: its columns may use any physical/logical type pair.
 * Each projected top-level column gets a *reading type* derived from its own Parquet schema
 * (org.apache.parquet.schema.LogicalTypeAnnotation, the same cases Paimon's
 * ParquetSchemaConverter and Spark's ParquetToSparkSchemaConverter distinguish), which the reader
 * decodes exactly (DECIMAL unscaled from INT32/INT64/FIXED/BYTE_ARRAY, TIMESTAMP from
 * MILLIS/MICROS/NANOS or INT96). The values are then handed on as exact source values
 * (`parquetValue`): a decimal as its exact decimal text, a timestamp as epoch millis + nanos, a
 * date as a UTC Date; values/convert.ts turns them into the table's types or rejects them.
 *
 * Columns map to the table by name: an exact (case-sensitive) match first, else the one column
 * whose name matches ignoring case. A table column the file lacks reads as null (values/convert.ts rejects
 * null in a NOT NULL column, naming the file's first row); file columns the table lacks are ignored.
 */
import { errorFrom, isTributaryError } from '@tributary/protocol';
import type { Column, DataType, ObjectStore, RowType, Timestamp } from '@tributary/table';
import { ParquetDataFileReader, type ByteSource } from '@tributary/table/parquet';
import { sourceErrors } from '../errors.ts';
import type { SourceRow, SourceValue } from '../source.ts';

/** One Parquet schema element, as the footer holds it (hyparquet's SchemaElement, the fields we use). */
export interface ParquetElement {
  readonly name: string;
  readonly type?: string;
  readonly type_length?: number;
  readonly num_children?: number;
  readonly converted_type?: string;
  readonly scale?: number;
  readonly precision?: number;
  readonly logical_type?: { readonly type: string; readonly unit?: string; readonly bitWidth?: number; readonly isSigned?: boolean; readonly scale?: number; readonly precision?: number };
}

/** How a column's decoded value becomes a source value. */
export type ParquetReading =
  | { readonly kind: 'plain' } // booleans, floats, signed integers, bytes: as decoded
  | { readonly kind: 'utf8' } // read as bytes and decoded strictly: invalid UTF-8 is refused, never replaced
  | { readonly kind: 'unsigned'; readonly bits: 32 | 64 }
  | { readonly kind: 'decimal'; readonly scale: number }
  | { readonly kind: 'date' }
  | { readonly kind: 'time'; readonly nanosPerUnit: bigint }
  | { readonly kind: 'timestamp' };

export interface ParquetColumnPlan {
  /** The type the table reader decodes the column as (exact for every physical encoding). */
  readonly readAs: DataType;
  readonly reading: ParquetReading;
  /** For messages: e.g. "INT64 TIMESTAMP(MICROS)". */
  readonly describe: string;
}

const t = <R extends DataType['root']>(root: R, extra: object = {}): DataType => ({ root, nullable: true, ...extra }) as DataType;
const NANOS: Record<string, bigint> = { MILLIS: 1_000_000n, MICROS: 1_000n, NANOS: 1n };

/** The reading type of one primitive Parquet column, or a typed error for what we cannot read. */
export function planParquetColumn(e: ParquetElement, uri: string): ParquetColumnPlan {
  const logical = e.logical_type;
  const annotation = logical?.type ?? e.converted_type;
  const describe = `${e.type ?? 'group'}${annotation ? ` ${annotation}` : ''}${logical?.unit ? `(${logical.unit})` : ''}`;
  const plan = (readAs: DataType, reading: ParquetReading = { kind: 'plain' }): ParquetColumnPlan => ({ readAs, reading, describe });
  const decimal = logical?.type === 'DECIMAL' || e.converted_type === 'DECIMAL';
  const scale = logical?.scale ?? e.scale ?? 0;
  switch (e.type) {
    case 'BOOLEAN':
      return plan(t('BOOLEAN'));
    case 'FLOAT':
      return plan(t('FLOAT'));
    case 'DOUBLE':
      return plan(t('DOUBLE'));
    case 'INT32':
      if (decimal) return plan(t('BIGINT'), { kind: 'decimal', scale });
      if (annotation === 'DATE') return plan(t('DATE'), { kind: 'date' });
      if (annotation === 'TIME' || annotation === 'TIME_MILLIS') return plan(t('BIGINT'), { kind: 'time', nanosPerUnit: NANOS.MILLIS ?? 1n });
      if (isUnsigned(e)) return plan(t('BIGINT'), { kind: 'unsigned', bits: 32 });
      return plan(t('INT'));
    case 'INT64':
      if (decimal) return plan(t('BIGINT'), { kind: 'decimal', scale });
      if (annotation === 'TIMESTAMP' || annotation === 'TIMESTAMP_MILLIS' || annotation === 'TIMESTAMP_MICROS') {
        return plan(t('TIMESTAMP', { precision: 9 }), { kind: 'timestamp' });
      }
      if (annotation === 'TIME' || annotation === 'TIME_MICROS') {
        return plan(t('BIGINT'), { kind: 'time', nanosPerUnit: NANOS[logical?.unit ?? 'MICROS'] ?? 1_000n });
      }
      if (isUnsigned(e)) return plan(t('BIGINT'), { kind: 'unsigned', bits: 64 });
      return plan(t('BIGINT'));
    case 'INT96':
      return plan(t('TIMESTAMP', { precision: 9 }), { kind: 'timestamp' });
    case 'BYTE_ARRAY':
    case 'FIXED_LEN_BYTE_ARRAY':
      if (decimal) return plan(t('DECIMAL', { precision: 38, scale }), { kind: 'decimal', scale });
      if (annotation === 'STRING' || annotation === 'UTF8' || annotation === 'ENUM' || annotation === 'JSON') return plan(t('VARBINARY', { length: 2147483647 }), { kind: 'utf8' });
      if (annotation === 'FLOAT16' || annotation === 'INTERVAL') return unsupported(e, describe, uri);
      return plan(t('VARBINARY', { length: 2147483647 }));
    default:
      return unsupported(e, describe, uri);
  }
}

function isUnsigned(e: ParquetElement): boolean {
  if (e.logical_type?.type === 'INTEGER') return e.logical_type.isSigned === false;
  return e.converted_type?.startsWith('UINT_') ?? false;
}

function unsupported(e: ParquetElement, describe: string, uri: string): never {
  throw errorFrom(sourceErrors, 'SOURCE_SCHEMA_MISMATCH', `${uri}: column ${e.name} is ${describe}, which the files source cannot read (nested or unsupported type)`, {
    file: uri,
    column: e.name,
  });
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/** The exact source value of one decoded value (`raw` as the table reader's column holds it). */
export function parquetValue(reading: ParquetReading, raw: number | bigint | boolean | string | Uint8Array | Timestamp): SourceValue {
  switch (reading.kind) {
    case 'plain':
      return raw as SourceValue;
    case 'utf8':
      return strictUtf8.decode(raw as Uint8Array);
    case 'unsigned':
      return BigInt.asUintN(reading.bits, BigInt(raw as bigint));
    case 'decimal':
      return decimalText(BigInt(raw as bigint), reading.scale);
    case 'date':
      return new Date((raw as number) * 86_400_000); // Invalid Date past ±100,000,000 days: values/convert.ts rejects it
    case 'time': {
      const nanos = BigInt(raw as bigint) * reading.nanosPerUnit;
      return Number(nanos / 1_000_000n); // TIME is stored in millis (Paimon's TimeType keeps millisecond of day)
    }
    case 'timestamp':
      return raw as Timestamp;
  }
}

/** The exact decimal text of unscaled × 10^-scale ("-12.340" for -12340n, 3). */
export function decimalText(unscaled: bigint, scale: number): string {
  const negative = unscaled < 0n;
  const digits = (negative ? -unscaled : unscaled).toString().padStart(scale + 1, '0');
  const text = scale === 0 ? digits : `${digits.slice(0, -scale)}.${digits.slice(-scale)}`;
  return negative ? `-${text}` : text;
}

/** Picks the file column for each wanted name: exact first, then the unique case-insensitive match. */
export function matchColumns(wanted: readonly string[], available: readonly string[], uri: string): (string | undefined)[] {
  return wanted.map((name) => {
    if (available.includes(name)) return name;
    const folded = available.filter((a) => a.toLowerCase() === name.toLowerCase());
    if (folded.length > 1) {
      throw errorFrom(sourceErrors, 'SOURCE_SCHEMA_MISMATCH', `${uri}: columns ${folded.join(', ')} all match ${name} ignoring case`, { file: uri, column: name });
    }
    return folded[0];
  });
}

/** Bytes of ranged reads kept for the next slices of the same row group (see `batches`). */
const REUSED_READ_BYTES = 256 << 20;

/**
 * Ranged gets through the ObjectStore. Recent reads are kept (up to REUSED_READ_BYTES, oldest
 * dropped first): a big row group is decoded in slices of rows, and each slice asks for the same
 * column-chunk ranges again, which must not be fetched again.
 */
function storeByteSource(store: ObjectStore, key: string, size: number): ByteSource & { forget(): void } {
  let kept: { offset: number; bytes: Uint8Array }[] = [];
  let keptBytes = 0;
  return {
    size,
    /** Drops the kept reads (at the start of the next row group). */
    forget: () => {
      kept = [];
      keptBytes = 0;
    },
    read: async (offset, length) => {
      const hit = kept.find((k) => offset >= k.offset && offset + length <= k.offset + k.bytes.length);
      if (hit) return hit.bytes.subarray(offset - hit.offset, offset - hit.offset + length);
      const bytes = await store.getRange(key, offset, length);
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
  /** Batches of at most `maxRows` rows from row `fromRow` on, in the order of `columns`. */
  batches(fromRow: number, maxRows: number): AsyncIterable<{ firstRow: number; rows: SourceRow[] }>;
}

/** Rows decoded at once within a row group: bounds memory whatever the writer's row-group size. */
const SLICE_ROWS = 128 * 1024;

/** Opens one Parquet input file, projected onto `columns` (the table's names). */
export async function openParquetFile(
  store: ObjectStore,
  key: string,
  uri: string,
  columns: readonly string[],
  sliceRows = SLICE_ROWS,
): Promise<ParquetFileRows> {
  const meta = await store.stat(key);
  if (meta === null) throw errorFrom(sourceErrors, 'SOURCE_SPEC_INVALID', `source file ${uri} does not exist`, { uri });
  const bytes = storeByteSource(store, key, meta.size);
  const reader = await ParquetDataFileReader.open(bytes).catch((error: unknown) => unreadable(uri, undefined, error));
  const top = topLevelColumns(reader.schema as readonly ParquetElement[]);
  const matched = matchColumns(columns, top.map((e) => e.name), uri);
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
        // time: hyparquet skips the pages before the slice undecoded and stops after it.
        for (let sliceStart = start; sliceStart < groupEnd; sliceStart += sliceRows) {
          const batch = await reader.readRows(rowType, sliceStart, Math.min(groupEnd, sliceStart + sliceRows)).catch((error: unknown) => unreadable(uri, sliceStart, error));
          for (let s = 0; s < batch.length; s += maxRows) {
            const end = Math.min(batch.length, s + maxRows);
            yield { firstRow: sliceStart + s, rows: toRows(batch.columns, read, columns.length, s, end, { uri, firstRow: sliceStart }) };
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

function toRows(
  data: readonly Column[],
  read: readonly { index: number; name: string; plan: ParquetColumnPlan }[],
  width: number,
  start: number,
  end: number,
  where: { uri: string; firstRow: number },
): SourceRow[] {
  const rows: SourceValue[][] = Array.from({ length: end - start }, () => new Array<SourceValue>(width).fill(null));
  read.forEach(({ index, name, plan }, c) => {
    const column = data[c];
    if (column === undefined) return;
    for (let r = start; r < end; r++) {
      if (column.validity !== undefined && column.validity[r] === 0) continue;
      const raw =
        column.kind === 'timestamp'
          ? { epochMillis: column.millis[r] ?? 0, nanoOfMillis: column.nanos[r] ?? 0 }
          : column.kind === 'bool'
            ? column.values[r] === 1
            : column.values[r];
      if (raw === undefined) continue;
      try {
        (rows[r - start] as SourceValue[])[index] = parquetValue(plan.reading, raw);
      } catch (cause) {
        const fileRow = where.firstRow + r;
        throw errorFrom(sourceErrors, 'SOURCE_ROW_INVALID', `file ${where.uri} row ${fileRow}, column ${name}: ${plan.describe} value is not valid (${String(cause)})`, {
          file: where.uri,
          fileRow,
          column: name,
        });
      }
    }
  });
  return rows;
}
