/**
 * Converts a batch of source rows straight into the table's column vectors (a ColumnBatch of
 * @tributary/table), one tight loop per column, so no row of internal values is built and the
 * writer gets its columns without a transpose. Each column type has a fast path for the values
 * sources yield most (MySQL's text for DECIMAL, DATE and BIGINT, numbers for INT, exact timestamps,
 * strings whose length needs no counting) read with integer arithmetic (fast-text.ts); any other
 * value goes through the exact per-value converter of convert.ts, so results are the row
 * converter's, bit for bit (test/unit/column-convert.test.ts), and so are refusals: on a value that
 * does not fit, the rows up to it are run through the row converter, which throws the error of the
 * first bad cell in row order, as before.
 */
import { allocateColumn, setValue, type Column, type ColumnBatch, type DataType, type InternalValue, type RowType, type Timestamp } from '@tributary/table';
import type { SourceBatch, SourceColumn, SourceRow, SourceValue } from '../source.ts';
import { rowConverter, sourceIndex, valueConverter, type RowOrigin, type ValueConverter } from './convert.ts';
import { fastEpochDay, fastTimestampInto, fastUnscaledDecimal, fitsCodePoints, isWellFormedText } from './fast-text.ts';
import { INT_LIMITS, TWO_32, MAX_EPOCH_MILLIS, LITTLE_ENDIAN } from './cell-limits.ts';
import { timestampCutInto } from './timestamp-cut.ts';

/** Rows of a source batch as the table's columns; `file`: the file every row comes from, and the file row of the first. */
export interface ColumnConverter {
  (rows: readonly SourceRow[], firstPosition: number, file?: { readonly uri: string; readonly firstRow: number }): ColumnBatch;
  /**
   * A source batch as the table's columns: from its cells when the source gives them (each column
   * written by the source where it can, every other cell through the same path as a row's value:
   * the same values and refusals as from its rows), else from its rows.
   */
  batch(batch: SourceBatch): ColumnBatch;
}

/** Thrown by a column loop at the first value it cannot convert; the batch converter then finds the error of that row. */
class BadCell extends Error {
  readonly row: number;
  constructor(row: number) {
    super('bad cell');
    this.row = row;
  }
}

/** Stores a common value in its slot and says so; false leaves the value to the exact converter. */
type FastPath = (r: number, value: Exclude<SourceValue, null>) => boolean;

/** Fills one column from the rows; returns its validity (undefined: no nulls). */
type Fill = (column: Column, rows: readonly SourceRow[], index: number) => Uint8Array | undefined;

/** Takes the values of one column, one at a time in row order (`put`), then says its validity. */
interface Sink {
  readonly put: (r: number, value: SourceValue) => void;
  readonly validity: () => Uint8Array | undefined;
}

export function columnConverter(shardId: string, source: readonly SourceColumn[], table: RowType): ColumnConverter {
  const exactRow = rowConverter(shardId, source, table);
  const plan = table.fields.map((field) => {
    const { fill, sink } = columnFill(field.type, valueConverter(shardId, field));
    return { field, index: sourceIndex(shardId, source, field), fill, sink };
  });
  const convert = (length: number, fillOne: (column: Column, entry: (typeof plan)[number]) => Uint8Array | undefined, rows: () => readonly SourceRow[], firstPosition: number, file?: { readonly uri: string; readonly firstRow: number }): ColumnBatch => {
    try {
      const columns = plan.map((entry) => {
        const column = allocateColumn(entry.field.type, length);
        if (entry.index < 0) return { ...column, validity: new Uint8Array(length) };
        const validity = fillOne(column, entry);
        return validity === undefined ? column : { ...column, validity };
      });
      return { rowType: table, length, columns };
    } catch (error) {
      if (!(error instanceof BadCell)) throw error;
      // The row converter throws the first bad cell in row order, with its position and file row.
      const all = rows();
      for (let r = 0; r <= error.row; r++) exactRow(all[r] ?? [], firstPosition + r, file && { uri: file.uri, row: file.firstRow + r });
      throw new Error(`columnConverter: row ${error.row} was refused by the column path but not by the row converter`);
    }
  };
  const fromRows = (rows: readonly SourceRow[], firstPosition: number, file?: { readonly uri: string; readonly firstRow: number }): ColumnBatch =>
    convert(rows.length, (column, { fill, index }) => fill(column, rows, index), () => rows, firstPosition, file);
  const batch = (b: SourceBatch): ColumnBatch => {
    const cells = b.columnar;
    if (cells === undefined) return fromRows(b.rows, b.firstRowPosition, b.file);
    return convert(
      cells.length,
      (column, { field, index, sink }) => {
        const into = sink(column, cells.length);
        cells.fill(index, field.type, column, into.put);
        return into.validity();
      },
      () => b.rows,
      b.firstRowPosition,
      b.file,
    );
  };
  return Object.assign(fromRows, { batch });
}

/** A null where the column allows it: marks it and returns the (new) validity; a NOT NULL column refuses it. */
function markNull(validity: Uint8Array | undefined, length: number, r: number, nullable: boolean): Uint8Array {
  if (!nullable) throw new BadCell(r);
  const out = validity ?? new Uint8Array(length).fill(1);
  out[r] = 0;
  return out;
}

/** The exact converter's value for one cell, or BadCell at that row. */
function exactValue(convert: ValueConverter, value: SourceValue, r: number): InternalValue {
  try {
    return convert(value, r);
  } catch {
    throw new BadCell(r);
  }
}

/** A column type's fill from rows, and its sink for values given one at a time (the same path per value). */
function columnFill(type: DataType, convert: ValueConverter): { fill: Fill; sink: (column: Column, length: number) => Sink } {
  const fast = fastPath(type);
  const nullable = type.nullable;
  // The fast path for the common value, else the exact converter's value stored as is.
  const sink = (column: Column, length: number): Sink => {
    const fastInto = fast(column);
    let validity: Uint8Array | undefined;
    const put = (r: number, value: SourceValue): void => {
      if (value === null) validity = markNull(validity, length, r, nullable);
      else if (!fastInto(r, value)) {
        const exact = exactValue(convert, value, r);
        if (exact === null) validity = markNull(validity, length, r, nullable);
        else setValue(column, r, exact);
      }
    };
    return { put, validity: () => validity };
  };
  const fill: Fill = (column, rows, index) => {
    const into = sink(column, rows.length);
    for (let r = 0; r < rows.length; r++) into.put(r, rows[r]?.[index] ?? null);
    return into.validity();
  };
  return { fill, sink };
}

/** Per column type, the fast path for the values sources yield most (given the column it stores into). */
function fastPath(type: DataType): (column: Column) => FastPath {
  const loop = (prepare: (column: Column) => FastPath): ((column: Column) => FastPath) => prepare;
  switch (type.root) {
    case 'TINYINT':
    case 'SMALLINT':
    case 'INT': {
      const limit = INT_LIMITS[type.root] ?? 0;
      return loop((column) => {
        if (column.kind !== 'int32') return never;
        const values = column.values;
        return (r, v) => {
          if (typeof v !== 'number' || !Number.isInteger(v) || v < -limit || v >= limit) return false;
          values[r] = v;
          return true;
        };
      });
    }
    case 'DATE':
      return loop((column) => {
        if (column.kind !== 'int32') return never;
        const values = column.values;
        return (r, v) => {
          const day = typeof v === 'string' ? fastEpochDay(v) : undefined;
          if (day === undefined) return false;
          values[r] = day;
          return true;
        };
      });
    case 'BIGINT':
      return int64Loop(loop, (v) => (typeof v === 'number' ? (Number.isSafeInteger(v) ? v : undefined) : typeof v === 'string' ? fastSafeInteger(v) : undefined));
    case 'DECIMAL': {
      if (type.precision > 18) return loop(() => never);
      const { precision, scale } = type;
      return int64Loop(loop, (v) => (typeof v === 'string' ? fastUnscaledDecimal(v, precision, scale) : undefined));
    }
    case 'CHAR':
    case 'VARCHAR': {
      const limit = type.length;
      return loop((column) => {
        if (column.kind !== 'string') return never;
        const values = column.values;
        return (r, v) => {
          if (typeof v !== 'string' || !fitsCodePoints(v, limit) || !isWellFormedText(v)) return false;
          values[r] = v;
          return true;
        };
      });
    }
    case 'TIMESTAMP':
    case 'TIMESTAMP_LTZ': {
      const cut = timestampCutInto(type.precision);
      return loop((column) => {
        if (column.kind !== 'timestamp') return never;
        const { millis, nanos } = column;
        return (r, v) => {
          if (typeof v === 'string') {
            if (!fastTimestampInto(v, millis, nanos, r)) return false;
          } else if (isTimestamp(v) && Number.isInteger(v.epochMillis) && Math.abs(v.epochMillis) <= MAX_EPOCH_MILLIS) {
            millis[r] = v.epochMillis;
            nanos[r] = v.nanoOfMillis;
          } else return false;
          cut(millis, nanos, r);
          return true;
        };
      });
    }
    default:
      return loop(() => never);
  }
}

function isTimestamp(v: Exclude<SourceValue, null>): v is Timestamp {
  return typeof v === 'object' && !(v instanceof Date) && !(v instanceof Uint8Array);
}

/** BIGINT and DECIMAL(p ≤ 18) columns: a safe integer is written as the two 32-bit words of the int64, no BigInt made. */
function int64Loop(loop: (prepare: (column: Column) => FastPath) => (column: Column) => FastPath, safe: (v: Exclude<SourceValue, null>) => number | undefined): (column: Column) => FastPath {
  return loop((column) => {
    if (column.kind !== 'int64' || !LITTLE_ENDIAN) return never;
    const words = new Int32Array(column.values.buffer, column.values.byteOffset, column.values.length * 2);
    return (r, v) => {
      const n = safe(v);
      if (n === undefined) return false;
      const hi = Math.floor(n / TWO_32);
      words[2 * r] = n - hi * TWO_32;
      words[2 * r + 1] = hi;
      return true;
    };
  });
}

/** The fast path of a type that has none: every value goes to the exact converter. */
const never: FastPath = () => false;

/** `-?\d+` of at most 15 digits as a number (what the exact BIGINT reader accepts, when it is safe); else undefined. */
export function fastSafeInteger(text: string): number | undefined {
  const n = text.length;
  const negative = text.charCodeAt(0) === 45;
  const start = negative ? 1 : 0;
  if (n === start || n - start > 15) return undefined;
  let value = 0;
  for (let i = start; i < n; i++) {
    const d = text.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return undefined;
    value = value * 10 + d;
  }
  return negative ? (value === 0 ? 0 : -value) : value;
}

export type { RowOrigin };
