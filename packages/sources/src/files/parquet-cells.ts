/**
 * A batch of Parquet input rows as cells (pure): the column vectors the table's Parquet reader
 * decoded for one slice of a row group (the pages of each column chunk holding the slice decoded
 * into a typed column, parquet.ts), written straight into the table's column vectors, one tight loop per
 * column, without a row of source values being built.
 *
 * For the pairs a load has most (an INT32/INT64 into the integer types, DECIMAL and DOUBLE/FLOAT; a
 * DECIMAL in INT32/INT64 or bytes into DECIMAL, rescaled; DATE into DATE or TIMESTAMP; TIME into
 * TIME; a TIMESTAMP (MILLIS/MICROS/NANOS, INT96) into TIMESTAMP/TIMESTAMP_LTZ; FLOAT/DOUBLE into
 * FLOAT/DOUBLE; BOOLEAN; a STRING into CHAR/VARCHAR; bytes into BINARY/VARBINARY) a cell goes
 * into its slot with integer arithmetic only (a BigInt only for a decimal beyond 2^53), giving
 * exactly the value the row path gives (`parquetValue`, then the value converter of
 * values/convert.ts). A cell that path would refuse, or one outside the plain range of the fast
 * reading, is handed back as its source value, so the converter refuses or converts it as before.
 * test/unit/parquet-cells.test.ts checks this on adversarial values, every reading against every
 * table type.
 *
 * UTF-8 is decoded (strictly) when the batch is made: a string that is not UTF-8 fails the read,
 * as before; `rows()` (the bad-row policy, a test) decodes the rest only when asked for.
 */
import { errorFrom } from '@tributary/protocol';
import type { Column, DataType } from '@tributary/table';
import { sourceErrors } from '../errors.ts';
import type { ColumnarCells, SourceRow, SourceValue } from '../source.ts';
import { fitsCodePoints } from '../values/fast-text.ts';
import { parquetValue, type ParquetColumnPlan } from './parquet-values.ts';
import { INT_LIMITS, TWO_32, MAX_EPOCH_MILLIS, LITTLE_ENDIAN } from '../values/cell-limits.ts';
import { timestampCutInto } from '../values/timestamp-cut.ts';

/** A file column the batch reads: the source column (table order) it fills, its name and reading plan. */
export interface ReadColumn {
  readonly index: number;
  readonly name: string;
  readonly plan: ParquetColumnPlan;
}

/** Strings decoded per batch column before its memo is dropped (parquet-cells' constructor). */
const MEMO_STRINGS = 256;
const TWO_21 = 2097152; // a high word within ±2^21: the int64 is a safe integer
const MAX_EPOCH_DAY = 100_000_000; // the days of MAX_EPOCH_MILLIS's range
const DAY_MILLIS = 86_400_000;

/** Writes cell `i` of the file's column into slot `r` of the table's column and says so; false: the converter's. */
type Put = (r: number, i: number) => boolean;

export class ParquetCells implements ColumnarCells {
  readonly length: number;
  readonly #data: readonly Column[];
  readonly #read: readonly ReadColumn[];
  /** Per source column (table order), its position in `read` (-1: the file lacks it). */
  readonly #at: Int32Array;
  readonly #start: number;
  /** Per read column with a UTF-8 reading, the batch's strings (from row 0 of the batch). */
  readonly #strings: ((string | null)[] | undefined)[];

  /**
   * `data`: the decoded columns of `read` (same order), rows [0, n) of the slice; the batch is its
   * rows [start, end). `width`: the source's columns; `where`: the file and its row of the slice's
   * row 0 (for the error of a string that is not UTF-8).
   */
  constructor(data: readonly Column[], read: readonly ReadColumn[], width: number, start: number, end: number, where: { readonly uri: string; readonly firstRow: number }) {
    this.length = end - start;
    this.#data = data;
    this.#read = read;
    this.#start = start;
    this.#at = new Int32Array(width).fill(-1);
    read.forEach(({ index }, c) => (this.#at[index] = c));
    // Decoded in the row path's order (column by column, rows in order), so the first bad string is the same one.
    this.#strings = read.map(({ name, plan }, c) => {
      const column = data[c];
      if (plan.reading.kind !== 'utf8' || column === undefined) return undefined;
      const out = new Array<string | null>(this.length).fill(null);
      // A dictionary's rows share their bytes' view (parquet-raw-chunk.ts): each is decoded once, its
      // rows share the string. Given up once it holds MEMO_STRINGS values (a column of distinct values).
      let memo: Map<unknown, string> | undefined = new Map();
      for (let i = start; i < end; i++) {
        const raw = rawValue(column, i);
        if (raw === undefined) continue;
        try {
          const known = memo?.get(raw);
          if (known !== undefined) {
            out[i - start] = known;
            continue;
          }
          const text = parquetValue(plan.reading, raw) as string;
          out[i - start] = text;
          if (memo !== undefined && typeof raw === 'object') {
            if (memo.size < MEMO_STRINGS) memo.set(raw, text);
            else memo = undefined;
          }
        } catch (cause) {
          const fileRow = where.firstRow + i;
          throw errorFrom(sourceErrors, 'SOURCE_ROW_INVALID', `file ${where.uri} row ${fileRow}, column ${name}: ${plan.describe} value is not valid (${String(cause)})`, {
            file: where.uri,
            fileRow,
            column: name,
          });
        }
      }
      return out;
    });
  }

  /** The source value of file row `i` of read column `c`, exactly as the row path gives it. */
  #value(c: number, i: number): SourceValue {
    const strings = this.#strings[c];
    if (strings !== undefined) return strings[i - this.#start] ?? null;
    const column = this.#data[c];
    const raw = column === undefined ? undefined : rawValue(column, i);
    return raw === undefined ? null : parquetValue((this.#read[c] as ReadColumn).plan.reading, raw);
  }

  /** The batch's rows of source values (`width` columns, table order; a column the file lacks is null). */
  rows(): SourceRow[] {
    const width = this.#at.length;
    const rows = Array.from({ length: this.length }, () => new Array<SourceValue>(width).fill(null));
    this.#read.forEach(({ index }, c) => {
      for (let r = 0; r < this.length; r++) (rows[r] as SourceValue[])[index] = this.#value(c, this.#start + r);
    });
    return rows;
  }

  fill(index: number, type: DataType, column: Column, other: (r: number, value: SourceValue) => void): void {
    const c = this.#at[index] ?? -1;
    const data = this.#data[c];
    if (c < 0 || data === undefined) {
      for (let r = 0; r < this.length; r++) other(r, null);
      return;
    }
    const start = this.#start;
    const strings = this.#strings[c];
    if (strings !== undefined) {
      if ((type.root === 'VARCHAR' || type.root === 'CHAR') && column.kind === 'string') fillStrings(strings, type.length, column.values, other);
      else for (let r = 0; r < this.length; r++) other(r, strings[r] ?? null);
      return;
    }
    const put = writer((this.#read[c] as ReadColumn).plan, data, type, column);
    const validity = data.validity;
    for (let r = 0, i = start; r < this.length; r++, i++) {
      if (validity !== undefined && validity[i] === 0) other(r, null);
      else if (put === undefined || !put(r, i)) other(r, this.#value(c, i));
    }
  }
}

/** The decoded value of a file column's cell as the row path reads it (undefined: null). */
function rawValue(column: Column, i: number): number | bigint | boolean | Uint8Array | string | { epochMillis: number; nanoOfMillis: number } | undefined {
  if (column.validity !== undefined && column.validity[i] === 0) return undefined;
  switch (column.kind) {
    case 'timestamp':
      return { epochMillis: column.millis[i] ?? 0, nanoOfMillis: column.nanos[i] ?? 0 };
    case 'bool':
      return column.values[i] === 1;
    default:
      return column.values[i];
  }
}

/** Strings into a CHAR/VARCHAR(limit) column: those that fit go in (strict UTF-8 is well-formed); longer ones and NULLs to the converter. */
function fillStrings(strings: readonly (string | null)[], limit: number, values: string[], other: (r: number, value: SourceValue) => void): void {
  for (let r = 0; r < strings.length; r++) {
    const v = strings[r] ?? null;
    if (v !== null && fitsCodePoints(v, limit)) values[r] = v;
    else other(r, v);
  }
}

/** The low and high 32-bit words of an int64 column (little-endian hosts only). */
function words(values: BigInt64Array): Int32Array {
  return new Int32Array(values.buffer, values.byteOffset, values.length * 2);
}

/** Writes a safe integer as the two words of slot r. */
function putWords(out: Int32Array, r: number, n: number): void {
  const hi = Math.floor(n / TWO_32);
  out[2 * r] = n - hi * TWO_32;
  out[2 * r + 1] = hi;
}

/**
 * The fast writer of a (reading, file column, table type) triple, or undefined when it has none. Each
 * gives, for the cells it takes, the value the converter gives `parquetValue(reading, raw)`.
 */
function writer(plan: ParquetColumnPlan, data: Column, type: DataType, column: Column): Put | undefined {
  if (!LITTLE_ENDIAN) return undefined;
  const reading = plan.reading;
  switch (reading.kind) {
    case 'plain':
      return plainWriter(data, type, column);
    case 'decimal':
      if (type.root !== 'DECIMAL') return undefined;
      if (data.kind === 'int64') return decimalWriter(words(data.values), reading.scale, type, column);
      if (data.kind === 'bigint') return bigDecimalWriter(data.values, reading.scale, type, column);
      return undefined;
    case 'unsigned': {
      // asUintN of the signed value read: a UINT_32 is its low word; a UINT_64 with the top bit set is past BIGINT.
      if (data.kind !== 'int64' || type.root !== 'BIGINT' || column.kind !== 'int64') return undefined;
      const from = words(data.values);
      const out = words(column.values);
      if (reading.bits === 32)
        return (r, i) => {
          out[2 * r] = from[2 * i] as number;
          out[2 * r + 1] = 0;
          return true;
        };
      return (r, i) => {
        const hi = from[2 * i + 1] as number;
        if (hi < 0) return false;
        out[2 * r] = from[2 * i] as number;
        out[2 * r + 1] = hi;
        return true;
      };
    }
    case 'date': {
      if (data.kind !== 'int32') return undefined;
      const days = data.values;
      if (type.root === 'DATE' && column.kind === 'int32') {
        const values = column.values;
        return (r, i) => {
          const day = days[i] as number;
          if (day < -MAX_EPOCH_DAY || day > MAX_EPOCH_DAY) return false; // an Invalid Date: the converter refuses it
          values[r] = day;
          return true;
        };
      }
      if ((type.root === 'TIMESTAMP' || type.root === 'TIMESTAMP_LTZ') && column.kind === 'timestamp') {
        const { millis, nanos } = column;
        return (r, i) => {
          const day = days[i] as number;
          if (day < -MAX_EPOCH_DAY || day > MAX_EPOCH_DAY) return false;
          millis[r] = day * DAY_MILLIS;
          nanos[r] = 0;
          return true;
        };
      }
      return undefined;
    }
    case 'time': {
      // Number(raw × nanosPerUnit / 10^6) (BigInt division: toward zero), a TIME when in [0, 86,400,000).
      if (data.kind !== 'int64' || type.root !== 'TIME' || column.kind !== 'int32') return undefined;
      const from = words(data.values);
      const values = column.values;
      const perMilli = reading.nanosPerUnit === 1n ? 1_000_000 : reading.nanosPerUnit === 1_000n ? 1_000 : reading.nanosPerUnit === 1_000_000n ? 1 : 0;
      if (perMilli === 0) return undefined;
      return (r, i) => {
        const hi = from[2 * i + 1] as number;
        if (hi < 0 || hi >= TWO_21) return false;
        const n = hi * TWO_32 + ((from[2 * i] as number) >>> 0);
        const ms = (n - (n % perMilli)) / perMilli;
        if (ms >= DAY_MILLIS) return false;
        values[r] = ms;
        return true;
      };
    }
    case 'timestamp': {
      if (data.kind !== 'timestamp' || (type.root !== 'TIMESTAMP' && type.root !== 'TIMESTAMP_LTZ') || column.kind !== 'timestamp') return undefined;
      const { millis: fromMillis, nanos: fromNanos } = data;
      const { millis, nanos } = column;
      const cut = timestampCutInto(type.precision);
      return (r, i) => {
        const epochMillis = fromMillis[i] as number;
        if (!Number.isInteger(epochMillis) || Math.abs(epochMillis) > MAX_EPOCH_MILLIS) return false;
        millis[r] = epochMillis;
        nanos[r] = fromNanos[i] as number;
        cut(millis, nanos, r);
        return true;
      };
    }
    case 'utf8':
      return undefined; // decoded when the batch is made (ParquetCells)
  }
}

/** A plain reading: booleans, floats, signed integers (a number from INT32, a bigint from INT64), bytes. */
function plainWriter(data: Column, type: DataType, column: Column): Put | undefined {
  switch (data.kind) {
    case 'int32': {
      const from = data.values;
      switch (type.root) {
        case 'TINYINT':
        case 'SMALLINT':
        case 'INT': {
          if (column.kind !== 'int32') return undefined;
          const limit = INT_LIMITS[type.root] ?? 0;
          const values = column.values;
          return (r, i) => {
            const v = from[i] as number;
            if (v < -limit || v >= limit) return false;
            values[r] = v;
            return true;
          };
        }
        case 'BIGINT': {
          if (column.kind !== 'int64') return undefined;
          const out = words(column.values);
          return (r, i) => {
            const v = from[i] as number;
            out[2 * r] = v;
            out[2 * r + 1] = v < 0 ? -1 : 0;
            return true;
          };
        }
        case 'DOUBLE':
        case 'FLOAT': {
          if (column.kind !== 'float64' && column.kind !== 'float32') return undefined;
          const values = column.values; // an int32 is exact in a double; a float32 column rounds it once, as Math.fround
          return (r, i) => {
            values[r] = from[i] as number;
            return true;
          };
        }
        case 'TIME': {
          if (column.kind !== 'int32') return undefined;
          const values = column.values;
          return (r, i) => {
            const v = from[i] as number;
            if (v < 0 || v >= DAY_MILLIS) return false;
            values[r] = v;
            return true;
          };
        }
        case 'DECIMAL':
          // An integer's text at scale 0, rescaled as a decimal's.
          return decimalFromNumbers((i) => from[i] as number, 0, type, column);
        default:
          return undefined;
      }
    }
    case 'int64': {
      const from = words(data.values);
      switch (type.root) {
        case 'BIGINT': {
          if (column.kind !== 'int64') return undefined;
          const out = words(column.values);
          return (r, i) => {
            out[2 * r] = from[2 * i] as number;
            out[2 * r + 1] = from[2 * i + 1] as number;
            return true;
          };
        }
        case 'TINYINT':
        case 'SMALLINT':
        case 'INT': {
          if (column.kind !== 'int32') return undefined;
          const limit = INT_LIMITS[type.root] ?? 0;
          const values = column.values;
          return (r, i) => {
            const lo = from[2 * i] as number;
            if ((from[2 * i + 1] as number) !== lo >> 31 || lo < -limit || lo >= limit) return false; // beyond an int32: past every limit
            values[r] = lo;
            return true;
          };
        }
        case 'DECIMAL':
          return decimalWriter(from, 0, type, column);
        default:
          return undefined;
      }
    }
    case 'float64':
    case 'float32': {
      // A double goes to DOUBLE as itself and to FLOAT rounded once (Math.fround, which a float32 column's store is).
      if ((type.root !== 'DOUBLE' && type.root !== 'FLOAT') || (column.kind !== 'float64' && column.kind !== 'float32')) return undefined;
      const from = data.values;
      const values = column.values;
      if (column.kind === 'float32' && data.kind === 'float64') {
        // A finite double beyond the largest float is out of range: left to the converter, which refuses it.
        return (r, i) => {
          const v = from[i] as number;
          if (!Number.isFinite(Math.fround(v)) && Number.isFinite(v)) return false;
          values[r] = v;
          return true;
        };
      }
      return (r, i) => {
        values[r] = from[i] as number;
        return true;
      };
    }
    case 'bool': {
      if (type.root !== 'BOOLEAN' || column.kind !== 'bool') return undefined;
      const from = data.values;
      const values = column.values;
      return (r, i) => {
        values[r] = from[i] === 1 ? 1 : 0;
        return true;
      };
    }
    case 'binary': {
      if ((type.root !== 'BINARY' && type.root !== 'VARBINARY') || column.kind !== 'binary') return undefined;
      const from = data.values;
      const values = column.values;
      const limit = type.length;
      return (r, i) => {
        const v = from[i] as Uint8Array;
        if (v.length > limit) return false;
        values[r] = v;
        return true;
      };
    }
    default:
      return undefined;
  }
}

/** A decimal stored as an int64 unscaled at `fileScale` places (or a plain INT64, at 0) into DECIMAL(p, s). */
function decimalWriter(from: Int32Array, fileScale: number, type: DataType & { root: 'DECIMAL' }, column: Column): Put | undefined {
  // Beyond 2^53, the int64 (exact as a bigint) is rescaled as a bigint.
  const big = bigDecimalWriter(new BigInt64Array(from.buffer, from.byteOffset, from.length / 2), fileScale, type, column);
  const safe = decimalFromNumbers(
    (i) => {
      const hi = from[2 * i + 1] as number;
      return hi >= -TWO_21 && hi < TWO_21 ? hi * TWO_32 + ((from[2 * i] as number) >>> 0) : undefined;
    },
    fileScale,
    type,
    column,
  );
  if (safe === undefined) return big;
  if (big === undefined) return safe;
  return (r, i) => safe(r, i) || big(r, i);
}

/**
 * `at(i)`: a safe integer (or undefined), the unscaled value at `fileScale` places; written at the
 * column's scale when exact (never rounded: more places are the converter's to refuse) and within
 * its precision, with double arithmetic that is exact on safe integers.
 */
function decimalFromNumbers(at: (i: number) => number | undefined, fileScale: number, type: DataType & { root: 'DECIMAL' }, column: Column): Put | undefined {
  const { precision, scale } = type;
  if (column.kind !== 'int64' || precision > 18) return undefined;
  const shift = scale - fileScale;
  if (shift < -15 || shift > 15) return undefined;
  const factor = 10 ** Math.abs(shift);
  const limit = 10 ** precision; // exact as a double up to 10^22
  const out = words(column.values);
  return (r, i) => {
    const n = at(i);
    if (n === undefined) return false;
    let m: number;
    if (shift >= 0) {
      m = n * factor;
      if (!Number.isSafeInteger(m)) return false;
    } else {
      if (n % factor !== 0) return false;
      m = n / factor;
    }
    if (m >= limit || m <= -limit) return false;
    putWords(out, r, m === 0 ? 0 : m);
    return true;
  };
}

/** A decimal's unscaled bigint at `fileScale` places into DECIMAL(p, s), exactly (refusals left to the converter). */
function bigDecimalWriter(from: BigInt64Array | readonly bigint[], fileScale: number, type: DataType & { root: 'DECIMAL' }, column: Column): Put | undefined {
  if (column.kind !== 'int64' && column.kind !== 'bigint') return undefined;
  const values = column.values;
  const shift = type.scale - fileScale;
  const factor = 10n ** BigInt(Math.abs(shift));
  const limit = 10n ** BigInt(type.precision);
  return (r, i) => {
    const u = from[i] as bigint;
    let m: bigint;
    if (shift === 0) m = u;
    else if (shift > 0) m = u * factor;
    else {
      if (u % factor !== 0n) return false;
      m = u / factor;
    }
    if (m >= limit || m <= -limit) return false;
    values[r] = m;
    return true;
  };
}
