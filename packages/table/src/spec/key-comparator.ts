/**
 * The order of primary keys within a data file. Mirrors the comparator Paimon generates for key
 * rows (paimon-codegen GenerateUtils.generateCompare, RecordComparator): field by field, nulls
 * first, then
 *
 *   BOOLEAN                 false < true
 *   integers, DATE, TIME    numerically
 *   FLOAT, DOUBLE           Float.compare / Double.compare (-0.0 < 0.0, NaN last and equal to itself)
 *   DECIMAL                 by unscaled value (one scale per column)
 *   CHAR, VARCHAR           BinaryString.compareTo: unsigned UTF-8 bytes (= code point order,
 *                           which JS `<` on UTF-16 gets wrong above U+D7FF)
 *   BINARY, VARBINARY       unsigned bytes, then length
 *   TIMESTAMP(_LTZ)         epoch millis, then nanos
 *
 * Readers merge files by this order and trust `_MIN_KEY` / `_MAX_KEY`, so a different order gives
 * wrong merges, not an error.
 */
import type { DataType, InternalRow, InternalValue, Timestamp } from './types.ts';

export type KeyComparator = (a: InternalRow, b: InternalRow) => number;

const sign = (n: number): number => (n < 0 ? -1 : n > 0 ? 1 : 0);

function compareNumbers(a: number, b: number): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Java's Double.compare (also right for Float.compare on float32 values). */
export function compareJavaDouble(a: number, b: number): number {
  if (a < b) return -1;
  if (a > b) return 1;
  const aNaN = Number.isNaN(a);
  const bNaN = Number.isNaN(b);
  if (aNaN || bNaN) return aNaN && bNaN ? 0 : aNaN ? 1 : -1;
  // Equal values: only the zeros differ, -0.0 < 0.0.
  return Object.is(a, b) ? 0 : Object.is(a, -0) ? -1 : 1;
}

/** UTF-16 unit → a rank in code point order (surrogates above U+E000..U+FFFF). */
function codePointRank(unit: number): number {
  if (unit >= 0xd800 && unit <= 0xdfff) return unit + 0x2000;
  if (unit >= 0xe000) return unit - 0x800;
  return unit;
}

/** Compares well-formed strings as their UTF-8 bytes would compare, without encoding them. */
export function compareUtf8(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) return sign(codePointRank(x) - codePointRank(y));
  }
  return sign(a.length - b.length);
}

/** SortUtil.compareBinary: unsigned lexicographic, then length. */
export function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const d = (a[i] as number) - (b[i] as number);
    if (d !== 0) return sign(d);
  }
  return sign(a.length - b.length);
}

/** Timestamp order: by epoch millis, then by the nanos within the milli. */
export function compareTimestamps(a: Timestamp, b: Timestamp): number {
  return compareNumbers(a.epochMillis, b.epochMillis) || compareNumbers(a.nanoOfMillis, b.nanoOfMillis);
}

/** Compares two non-null values of one type. */
export function compareValues(a: InternalValue, b: InternalValue, type: DataType): number {
  switch (type.root) {
    case 'BOOLEAN':
      return a === b ? 0 : a === true ? 1 : -1;
    case 'TINYINT':
    case 'SMALLINT':
    case 'INT':
    case 'DATE':
    case 'TIME':
      return compareNumbers(a as number, b as number);
    case 'BIGINT':
    case 'DECIMAL':
      return (a as bigint) < (b as bigint) ? -1 : (a as bigint) > (b as bigint) ? 1 : 0;
    case 'FLOAT':
    case 'DOUBLE':
      return compareJavaDouble(a as number, b as number);
    case 'CHAR':
    case 'VARCHAR':
      return compareUtf8(a as string, b as string);
    case 'BINARY':
    case 'VARBINARY':
      return compareBytes(a as Uint8Array, b as Uint8Array);
    case 'TIMESTAMP':
    case 'TIMESTAMP_LTZ':
      return compareTimestamps(a as Timestamp, b as Timestamp);
  }
}

/** Paimon's key order for rows of `types`: -1, 0 or 1. */
export function compareKeys(a: InternalRow, b: InternalRow, types: readonly DataType[]): number {
  for (let i = 0; i < types.length; i++) {
    const x = a[i] ?? null;
    const y = b[i] ?? null;
    if (x === null || y === null) {
      if (x === y) continue;
      return x === null ? -1 : 1;
    }
    const c = compareValues(x, y, types[i] as DataType);
    if (c !== 0) return c;
  }
  return 0;
}

/** A comparator bound to the key types, for Array.prototype.sort. */
export function keyComparator(types: readonly DataType[]): KeyComparator {
  return (a, b) => compareKeys(a, b, types);
}
