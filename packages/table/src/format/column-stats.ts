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
import { isNullAt, valueAt, type Column } from './column-batch.ts';

export interface ColumnStats {
  readonly min: InternalValue;
  readonly max: InternalValue;
  readonly nullCount: number;
}

/** Java's Double.compare: -0.0 < 0.0 and NaN greater than everything, NaN equal to NaN. */
export function compareJavaDouble(a: number, b: number): number {
  if (a < b) return -1;
  if (a > b) return 1;
  if (a === b) {
    if (a !== 0) return 0;
    const negA = Object.is(a, -0);
    const negB = Object.is(b, -0);
    return negA === negB ? 0 : negA ? -1 : 1;
  }
  const nanA = Number.isNaN(a);
  const nanB = Number.isNaN(b);
  return nanA === nanB ? 0 : nanA ? 1 : -1;
}

/** Unsigned lexicographic byte order. */
export function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const d = (a[i] as number) - (b[i] as number);
    if (d !== 0) return d;
  }
  return a.length - b.length;
}

/**
 * Strings in UTF-8 byte order, which is code point order. JS `<` compares UTF-16 code units and
 * puts U+E000..U+FFFF after supplementary characters; this walks code points instead.
 */
export function compareUtf8(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  if (i === n) return a.length - b.length;
  const ca = a.charCodeAt(i);
  const cb = b.charCodeAt(i);
  // A surrogate (0xD800..0xDFFF) starts a code point above U+FFFF, so it ranks above U+E000..U+FFFF.
  const ra = ca >= 0xd800 && ca <= 0xdfff ? ca + 0x2000 : ca >= 0xe000 ? ca - 0x800 : ca;
  const rb = cb >= 0xd800 && cb <= 0xdfff ? cb + 0x2000 : cb >= 0xe000 ? cb - 0x800 : cb;
  return ra - rb;
}

/** Min, max and null count of one column over rows [0, length). */
export function columnStats(column: Column, length: number): ColumnStats {
  let nullCount = 0;
  let minRow = -1;
  let maxRow = -1;
  const less = rowLess(column);
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
  return {
    min: minRow < 0 ? null : valueAt(column, minRow),
    max: maxRow < 0 ? null : valueAt(column, maxRow),
    nullCount,
  };
}

/** a < b for two non-null rows of the column, read straight from its arrays. */
function rowLess(column: Column): (a: number, b: number) => boolean {
  switch (column.kind) {
    case 'bool':
    case 'int32':
    case 'int64': {
      const v = column.values;
      return (a, b) => (v[a] as number | bigint) < (v[b] as number | bigint);
    }
    case 'bigint': {
      const v = column.values;
      return (a, b) => (v[a] as bigint) < (v[b] as bigint);
    }
    case 'float32':
    case 'float64': {
      const v = column.values;
      return (a, b) => compareJavaDouble(v[a] as number, v[b] as number) < 0;
    }
    case 'string': {
      const v = column.values;
      return (a, b) => compareUtf8(v[a] as string, v[b] as string) < 0;
    }
    case 'binary': {
      const v = column.values;
      return (a, b) => compareBytes(v[a] as Uint8Array, v[b] as Uint8Array) < 0;
    }
    case 'timestamp': {
      const { millis, nanos } = column;
      return (a, b) => {
        const ma = millis[a] as number;
        const mb = millis[b] as number;
        return ma < mb || (ma === mb && (nanos[a] as number) < (nanos[b] as number));
      };
    }
  }
}

/** Compares two non-null internal values of one column kind (used to merge row-group stats). */
export function compareInternal(a: InternalValue, b: InternalValue): number {
  if (typeof a === 'number' && typeof b === 'number') return compareJavaDouble(a, b);
  if (typeof a === 'bigint' && typeof b === 'bigint') return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === 'string' && typeof b === 'string') return compareUtf8(a, b);
  if (typeof a === 'boolean' && typeof b === 'boolean') return Number(a) - Number(b);
  if (a instanceof Uint8Array && b instanceof Uint8Array) return compareBytes(a, b);
  if (a !== null && b !== null && typeof a === 'object' && typeof b === 'object' && !(a instanceof Uint8Array) && !(b instanceof Uint8Array)) {
    return a.epochMillis - b.epochMillis || a.nanoOfMillis - b.nanoOfMillis;
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
