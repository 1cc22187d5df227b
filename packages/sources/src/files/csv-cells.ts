/**
 * A batch of CSV rows as cells: each table column's fields (the strings the one CSV parser of
 * text-records.ts gives, projected onto the table's columns by the header's names) kept in one
 * array for the batch, instead of a row of source values per record. The batch is the source batch's
 * `columnar` cells (source.ts): asked by the column converter (values/columns.ts) to fill a table
 * column, it writes the common fields (integers, plain decimals, `YYYY-MM-DD` dates,
 * `YYYY-MM-DD HH:MM:SS[.f…]` timestamps, strings that fit) straight into it with the converter's
 * own fast readers (values/fast-text.ts), in one loop per column.
 *
 * Every other field is handed to the converter as its source value, the one the row path gives
 * (`csvValue`: an empty field, or a column the file's header lacks, is null; anything else the
 * field's text), so values and refusals are the row path's (test/unit/csv-cells.test.ts).
 */
import type { Column, DataType } from '@tributary/table';
import type { ColumnarCells, SourceRow, SourceValue } from '../source.ts';
import { fastSafeInteger } from '../values/columns.ts';
import { fastEpochDay, fastTimestampInto, fastUnscaledDecimal, fitsCodePoints } from '../values/fast-text.ts';
import { INT_LIMITS, TWO_32, MAX_EPOCH_MILLIS, LITTLE_ENDIAN } from '../values/cell-limits.ts';
import { timestampCutInto } from '../values/timestamp-cut.ts';

/** A CSV field as the row path's source value: an empty field (or none) is null. */
export function csvValue(field: string | undefined): SourceValue {
  return field === undefined || field === '' ? null : field;
}

/** Collects CSV records into `CsvCells` batches of the table's columns. */
export class CsvCellsBuilder {
  readonly #width: number;
  #fields: string[] = [];
  #rows = 0;

  /** `width`: the table's columns. */
  constructor(width: number) {
    this.#width = width;
  }

  get rows(): number {
    return this.#rows;
  }

  /** Appends one record; `indexes[c]`: the field of table column c in the record (-1: the file has none, null). */
  append(fields: readonly string[], indexes: readonly number[]): void {
    const out = this.#fields;
    for (let c = 0; c < this.#width; c++) {
      const i = indexes[c] ?? -1;
      out.push(i < 0 ? '' : (fields[i] ?? ''));
    }
    this.#rows++;
  }

  /** The records appended since the last call, as one batch; the builder starts a new one. */
  take(): CsvCells {
    const cells = new CsvCells(this.#fields, this.#width, this.#rows);
    this.#fields = [];
    this.#rows = 0;
    return cells;
  }
}

/** One batch of CSV rows: field c of row r at `r × width + c` (`''`: null); its rows of source values are built only when asked for. */
export class CsvCells implements ColumnarCells {
  readonly length: number;
  readonly #fields: readonly string[];
  readonly #width: number;

  constructor(fields: readonly string[], width: number, length: number) {
    this.#fields = fields;
    this.#width = width;
    this.length = length;
  }

  /** The batch's rows of source values, as the row path gives them. */
  rows(): SourceRow[] {
    const fields = this.#fields;
    const width = this.#width;
    return Array.from({ length: this.length }, (_, r) => Array.from({ length: width }, (_, c) => csvValue(fields[r * width + c])));
  }

  fill(index: number, type: DataType, column: Column, other: (r: number, value: SourceValue) => void): void {
    if (index < 0 || index >= this.#width) {
      for (let r = 0; r < this.length; r++) other(r, null);
      return;
    }
    const read = fieldReader(type, column);
    const fields = this.#fields;
    const width = this.#width;
    for (let r = 0, i = index; r < this.length; r++, i += width) {
      const v = fields[i] ?? '';
      if (v === '') other(r, null);
      else if (read === undefined || !read(r, v)) other(r, v);
    }
  }
}

/** Reads one non-empty field into slot r and says so; false hands it to the converter. */
type FieldReader = (r: number, v: string) => boolean;

/**
 * The field reader of a table column type: only for fields the value converter takes from their
 * text (convert.ts), storing exactly what it would store (undefined: none).
 */
function fieldReader(type: DataType, column: Column): FieldReader | undefined {
  switch (type.root) {
    case 'TINYINT':
    case 'SMALLINT':
    case 'INT': {
      // The converter's `-?\d+` then Number: the same integer (a -0 stores as 0 either way).
      if (column.kind !== 'int32') return undefined;
      const limit = INT_LIMITS[type.root] ?? 0;
      const values = column.values;
      return (r, v) => {
        const n = fastSafeInteger(v);
        if (n === undefined || n < -limit || n >= limit) return false;
        values[r] = n;
        return true;
      };
    }
    case 'BIGINT':
      return int64Reader(column, fastSafeInteger);
    case 'DECIMAL': {
      if (type.precision > 18) return undefined;
      const { precision, scale } = type;
      return int64Reader(column, (v) => fastUnscaledDecimal(v, precision, scale));
    }
    case 'DATE': {
      if (column.kind !== 'int32') return undefined;
      const values = column.values;
      return (r, v) => {
        const day = fastEpochDay(v);
        if (day === undefined) return false;
        values[r] = day;
        return true;
      };
    }
    case 'CHAR':
    case 'VARCHAR': {
      if (column.kind !== 'string') return undefined;
      const limit = type.length;
      const values = column.values;
      return (r, v) => {
        // Well-formed without a check: the text is strict UTF-8 decoded, split only at ASCII separators.
        if (!fitsCodePoints(v, limit)) return false;
        values[r] = v;
        return true;
      };
    }
    case 'TIMESTAMP':
    case 'TIMESTAMP_LTZ': {
      if (column.kind !== 'timestamp') return undefined;
      const cut = timestampCutInto(type.precision);
      const { millis, nanos } = column;
      return (r, v) => {
        if (!fastTimestampInto(v, millis, nanos, r)) return false;
        if (Math.abs(millis[r] ?? 0) > MAX_EPOCH_MILLIS) return false;
        cut(millis, nanos, r);
        return true;
      };
    }
    default:
      return undefined;
  }
}

/** BIGINT and DECIMAL(p ≤ 18): a safe integer written as the two 32-bit words of the int64, no BigInt made. */
function int64Reader(column: Column, safe: (v: string) => number | undefined): FieldReader | undefined {
  if (column.kind !== 'int64' || !LITTLE_ENDIAN) return undefined;
  const words = new Int32Array(column.values.buffer, column.values.byteOffset, column.values.length * 2);
  return (r, v) => {
    const n = safe(v);
    if (n === undefined) return false;
    const hi = Math.floor(n / TWO_32);
    words[2 * r] = n - hi * TWO_32;
    words[2 * r + 1] = hi;
    return true;
  };
}
