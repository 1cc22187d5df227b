/**
 * Per-column min, max and null count of a data file, computed over the columns in the same pass
 * that hands them to the encoder (Paimon computes them while writing too: SimpleStatsCollector
 * with FullSimpleColStatsCollector; Java's Parquet path reads them back from the footer via
 * ParquetSimpleStatsExtractor). Values are exact internal values; truncation (`truncate(16)`)
 * and the choice of which columns keep stats belong to the manifest's SimpleStats, not here.
 *
 * Order per type, as Paimon's internal comparisons:
 *   numbers and decimals numerically; FLOAT/DOUBLE by Java's Double.compare (-0.0 < 0.0, NaN
 *   above everything); strings by unsigned UTF-8 bytes (BinaryString.compareTo); binaries by
 *   unsigned bytes; timestamps by (millis, nanos); booleans false < true.
 */
import type { InternalValue } from '../spec/types.ts';
// One definition of Paimon's value order, shared with the key comparator.
import { compareBytes, compareJavaDouble, compareTimestamps, compareUtf8 } from '../spec/key-comparator.ts';
import { isNullAt, LITTLE_ENDIAN, TWO_32, valueAt, type Column } from './column-batch.ts';

export interface ColumnStats {
  readonly min: InternalValue;
  readonly max: InternalValue;
  readonly nullCount: number;
}

/** Min, max and null count of one column over rows [0, length). */
export function columnStats(column: Column, length: number): ColumnStats {
  const { minRow, maxRow, nullCount } = extremeRows(column, length);
  return {
    min: minRow < 0 ? null : valueAt(column, minRow),
    max: maxRow < 0 ? null : valueAt(column, maxRow),
    nullCount,
  };
}

/** The first row holding the least value, the first holding the greatest, and the NULLs. */
interface Extremes {
  readonly minRow: number;
  readonly maxRow: number;
  readonly nullCount: number;
}

/**
 * The common kinds compare in a loop of their own over the values, with the native `<` where it
 * is Paimon's order (integers, safe int64s, strings without units ≥ U+E000, timestamps); the rest
 * through a comparator of their kind (one loop calling a different closure per kind is not inlined).
 */
function extremeRows(column: Column, length: number): Extremes {
  switch (column.kind) {
    case 'bool':
    case 'int32':
      return numberExtremes(column.values, column.validity, length);
    case 'int64': {
      // Exact doubles when every value fits (reading a BigInt64Array allocates a BigInt).
      const safe = safeInt64Extremes(column.values, column.validity, length);
      if (safe) return safe;
      const v = column.values;
      return comparedExtremes(column, length, (a, b) => (v[a] as bigint) < (v[b] as bigint));
    }
    case 'string': {
      const v = column.values;
      // JS `<` compares UTF-16 units, which is UTF-8 byte order unless a surrogate meets a unit ≥
      // U+E000 (compareUtf8): when no value holds such a unit, the native comparison is exact.
      if (!v.some((s) => ABOVE_SURROGATES.test(s))) return stringExtremes(v, column.validity, length);
      return comparedExtremes(column, length, (a, b) => compareUtf8(v[a] as string, v[b] as string) < 0);
    }
    case 'timestamp':
      return timestampExtremes(column.millis, column.nanos, column.validity, length);
    case 'bigint': {
      const v = column.values;
      return comparedExtremes(column, length, (a, b) => (v[a] as bigint) < (v[b] as bigint));
    }
    case 'float32':
    case 'float64': {
      const v = column.values;
      return comparedExtremes(column, length, (a, b) => compareJavaDouble(v[a] as number, v[b] as number) < 0);
    }
    case 'binary': {
      const v = column.values;
      return comparedExtremes(column, length, (a, b) => compareBytes(v[a] as Uint8Array, v[b] as Uint8Array) < 0);
    }
  }
}

function numberExtremes(values: Uint8Array | Int32Array | Float64Array, validity: Uint8Array | undefined, length: number): Extremes {
  let nullCount = 0;
  let minRow = -1;
  let maxRow = -1;
  let min = 0;
  let max = 0;
  for (let r = 0; r < length; r++) {
    if (validity !== undefined && validity[r] === 0) {
      nullCount++;
      continue;
    }
    const x = values[r] as number;
    if (minRow < 0) {
      minRow = maxRow = r;
      min = max = x;
    } else if (x < min) {
      minRow = r;
      min = x;
    } else if (x > max) {
      maxRow = r;
      max = x;
    }
  }
  return { minRow, maxRow, nullCount };
}

/**
 * numberExtremes over an int64 column's values read as exact doubles from their two 32-bit words,
 * with no array allocated (a column's copy as doubles was a tenth of a bucket job's buffers);
 * undefined when a non-null value is beyond ±2^53 (then the caller compares BigInts). Its own loop,
 * like stringExtremes: a shared one taking a reader per kind would not be inlined.
 */
function safeInt64Extremes(values: BigInt64Array, validity: Uint8Array | undefined, length: number): Extremes | undefined {
  if (!LITTLE_ENDIAN) return undefined;
  const words = new Int32Array(values.buffer, values.byteOffset, length * 2);
  let nullCount = 0;
  let minRow = -1;
  let maxRow = -1;
  let min = 0;
  let max = 0;
  for (let r = 0; r < length; r++) {
    if (validity !== undefined && validity[r] === 0) {
      nullCount++;
      continue;
    }
    const hi = words[2 * r + 1] as number;
    // -2^53 ≤ v < 2^53 ⇔ -2^21 ≤ high word < 2^21; every such integer is an exact double.
    if (hi >= 2097152 || hi < -2097152) return undefined;
    const x = hi * TWO_32 + ((words[2 * r] as number) >>> 0);
    if (minRow < 0) {
      minRow = maxRow = r;
      min = max = x;
    } else if (x < min) {
      minRow = r;
      min = x;
    } else if (x > max) {
      maxRow = r;
      max = x;
    }
  }
  return { minRow, maxRow, nullCount };
}

/** numberExtremes' loop over strings, kept apart so that each loop's `<` sees one type of value. */
function stringExtremes(values: readonly string[], validity: Uint8Array | undefined, length: number): Extremes {
  let nullCount = 0;
  let minRow = -1;
  let maxRow = -1;
  let min = '';
  let max = '';
  for (let r = 0; r < length; r++) {
    if (validity !== undefined && validity[r] === 0) {
      nullCount++;
      continue;
    }
    const x = values[r] as string;
    if (minRow < 0) {
      minRow = maxRow = r;
      min = max = x;
    } else if (x < min) {
      minRow = r;
      min = x;
    } else if (x > max) {
      maxRow = r;
      max = x;
    }
  }
  return { minRow, maxRow, nullCount };
}

function timestampExtremes(millis: Float64Array, nanos: Int32Array, validity: Uint8Array | undefined, length: number): Extremes {
  let nullCount = 0;
  let minRow = -1;
  let maxRow = -1;
  for (let r = 0; r < length; r++) {
    if (validity !== undefined && validity[r] === 0) {
      nullCount++;
      continue;
    }
    if (minRow < 0) {
      minRow = maxRow = r;
      continue;
    }
    const m = millis[r] as number;
    const n = nanos[r] as number;
    const lo = millis[minRow] as number;
    const hi = millis[maxRow] as number;
    if (m < lo || (m === lo && n < (nanos[minRow] as number))) minRow = r;
    else if (m > hi || (m === hi && n > (nanos[maxRow] as number))) maxRow = r;
  }
  return { minRow, maxRow, nullCount };
}

/** Any kind, through `less` (a < b for two non-null rows). */
function comparedExtremes(column: Column, length: number, less: (a: number, b: number) => boolean): Extremes {
  let nullCount = 0;
  let minRow = -1;
  let maxRow = -1;
  for (let r = 0; r < length; r++) {
    if (isNullAt(column, r)) {
      nullCount++;
      continue;
    }
    if (minRow < 0) {
      minRow = r;
      maxRow = r;
      continue;
    }
    if (less(r, minRow)) minRow = r;
    else if (less(maxRow, r)) maxRow = r;
  }
  return { minRow, maxRow, nullCount };
}

/** A UTF-16 unit at or above U+E000 (where UTF-16 and UTF-8 orders part). */
const ABOVE_SURROGATES = /[\ue000-\uffff]/;

/** Compares two non-null internal values of one column kind (used to merge row-group stats). */
export function compareInternal(a: InternalValue, b: InternalValue): number {
  if (typeof a === 'number' && typeof b === 'number') return compareJavaDouble(a, b);
  if (typeof a === 'bigint' && typeof b === 'bigint') return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === 'string' && typeof b === 'string') return compareUtf8(a, b);
  if (typeof a === 'boolean' && typeof b === 'boolean') return Number(a) - Number(b);
  if (a instanceof Uint8Array && b instanceof Uint8Array) return compareBytes(a, b);
  if (a !== null && b !== null && typeof a === 'object' && typeof b === 'object' && !(a instanceof Uint8Array) && !(b instanceof Uint8Array)) {
    return compareTimestamps(a, b);
  }
  throw new TypeError('compareInternal: values of different kinds');
}

/** Stats of the concatenation of two row ranges. */
export function mergeStats(a: ColumnStats, b: ColumnStats): ColumnStats {
  const pick = (x: InternalValue, y: InternalValue, wantMin: boolean): InternalValue => {
    if (x === null) return y;
    if (y === null) return x;
    const c = compareInternal(x, y);
    return wantMin ? (c <= 0 ? x : y) : c >= 0 ? x : y;
  };
  return { min: pick(a.min, b.min, true), max: pick(a.max, b.max, false), nullCount: a.nullCount + b.nullCount };
}
