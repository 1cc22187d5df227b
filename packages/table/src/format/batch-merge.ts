/**
 * Pieces of a k-way merge over column batches, without a row array per record:
 *
 *   BatchRowOrder   Paimon's key order (spec/key-comparator.ts) between a row of one batch and a
 *                   row of another, read from the columns in place (int64 through its two 32-bit
 *                   words: reading a BigInt64Array element allocates a BigInt)
 *   SegmentBuilder  the merge's output as (batch, first row, end row) segments of its inputs,
 *                   copied into one batch column by column when full (typed arrays with `set`,
 *                   short segments element by element, 64-bit values as 32-bit words)
 *
 * The order must be exactly compareKeys' (a different order gives wrong merges, not an error):
 * test/unit/batch-merge.test.ts checks both against the row path on adversarial values.
 */
import { compareBytes, compareJavaDouble, compareUtf8 } from '../spec/key-comparator.ts';
import type { RowType } from '../spec/types.ts';
import { allocateColumn, type Column, type ColumnBatch } from './column-batch.ts';

const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/** A column prepared for comparisons: int64 values as their 32-bit words (little-endian hosts). */
interface Prepared {
  readonly column: Column;
  readonly words: Int32Array | undefined;
}

/** One batch's columns prepared for comparisons (once per batch, not per row). */
export type PreparedColumns = readonly Prepared[];

export function prepareColumns(batch: ColumnBatch, indices: readonly number[]): PreparedColumns {
  return indices.map((i) => {
    const column = batch.columns[i] as Column;
    const words = column.kind === 'int64' && LITTLE_ENDIAN ? new Int32Array(column.values.buffer, column.values.byteOffset, column.values.length * 2) : undefined;
    return { column, words };
  });
}

const sign = (n: number): number => (n < 0 ? -1 : n > 0 ? 1 : 0);

/** Compares row `i` of `a` with row `j` of `b` (same column kind), nulls first: -1, 0 or 1. */
export function compareAt(a: Prepared, i: number, b: Prepared, j: number): number {
  const x = a.column;
  const y = b.column;
  const nx = x.validity !== undefined && x.validity[i] === 0;
  const ny = y.validity !== undefined && y.validity[j] === 0;
  if (nx || ny) return nx === ny ? 0 : nx ? -1 : 1;
  switch (x.kind) {
    case 'bool':
    case 'int32':
      return sign((x.values[i] as number) - (valuesOf<Int32Array>(y)[j] as number));
    case 'int64': {
      const wa = a.words;
      const wb = b.words;
      if (wa !== undefined && wb !== undefined) {
        const ha = wa[2 * i + 1] as number;
        const hb = wb[2 * j + 1] as number;
        if (ha !== hb) return ha < hb ? -1 : 1;
        const la = (wa[2 * i] as number) >>> 0;
        const lb = (wb[2 * j] as number) >>> 0;
        return la < lb ? -1 : la > lb ? 1 : 0;
      }
      return compareBigints(x.values[i] as bigint, valuesOf<BigInt64Array>(y)[j] as bigint);
    }
    case 'bigint':
      return compareBigints(x.values[i] as bigint, valuesOf<bigint[]>(y)[j] as bigint);
    case 'float32':
    case 'float64':
      return compareJavaDouble(x.values[i] as number, valuesOf<Float64Array>(y)[j] as number);
    case 'string':
      return compareUtf8(x.values[i] as string, valuesOf<string[]>(y)[j] as string);
    case 'binary':
      return compareBytes(x.values[i] as Uint8Array, valuesOf<Uint8Array[]>(y)[j] as Uint8Array);
    case 'timestamp': {
      const z = y as Column & { kind: 'timestamp' };
      const ma = x.millis[i] as number;
      const mb = z.millis[j] as number;
      if (ma !== mb) return ma < mb ? -1 : 1;
      return sign((x.nanos[i] as number) - (z.nanos[j] as number));
    }
  }
}

/** The values of a column of a kind the caller has checked on its twin (both sides share one kind). */
function valuesOf<T>(column: Column): T {
  return (column as Column & { values: T }).values;
}

function compareBigints(a: bigint, b: bigint): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Field by field over prepared columns (a key): -1, 0 or 1. */
export function compareRowsAt(a: PreparedColumns, i: number, b: PreparedColumns, j: number): number {
  for (let f = 0; f < a.length; f++) {
    const c = compareAt(a[f] as Prepared, i, b[f] as Prepared, j);
    if (c !== 0) return c;
  }
  return 0;
}

interface Segment {
  readonly batch: ColumnBatch;
  readonly start: number;
  end: number;
}

/** Collects rows of input batches in output order and builds output batches of `rowType`. */
export class SegmentBuilder {
  readonly #rowType: RowType;
  readonly #sameAs: ReadonlyMap<number, number>;
  #segments: Segment[] = [];
  #rows = 0;

  /**
   * `sameAs`: output column → another output column it equals in every input row (a key-value
   * batch's `_KEY_` columns are its key fields): the same column object, copied once.
   */
  constructor(rowType: RowType, sameAs: ReadonlyMap<number, number> = new Map()) {
    this.#rowType = rowType;
    this.#sameAs = sameAs;
  }

  get length(): number {
    return this.#rows;
  }

  /** Appends row `row` of `batch` (a batch of rowType's columns). */
  push(batch: ColumnBatch, row: number): void {
    const last = this.#segments[this.#segments.length - 1];
    if (last !== undefined && last.batch === batch && last.end === row) last.end += 1;
    else this.#segments.push({ batch, start: row, end: row + 1 });
    this.#rows += 1;
  }

  /** The rows pushed since the last take, as one batch; the builder starts empty again. */
  take(): ColumnBatch {
    const segments = this.#segments;
    const length = this.#rows;
    this.#segments = [];
    this.#rows = 0;
    const columns = this.#rowType.fields.map((field, f) => (this.#sameAs.has(f) ? undefined : gatherColumn(allocateColumn(field.type, length, validityOf(segments, f, length)), segments, f)));
    return { rowType: this.#rowType, length, columns: columns.map((c, f) => c ?? (columns[this.#sameAs.get(f) as number] as Column)) };
  }
}

/** Segments shorter than this copy their validity byte by byte; longer ones with `set`. */
const SHORT_SEGMENT = 32;

/**
 * The output column's validity (undefined when no copied row is null): each segment's bytes as
 * they are (validity bytes are 0 or 1), 1 for a segment whose column has none.
 */
function validityOf(segments: readonly Segment[], f: number, length: number): Uint8Array | undefined {
  let validity: Uint8Array | undefined;
  let at = 0;
  for (const s of segments) {
    const source = (s.batch.columns[f] as Column).validity;
    const rows = s.end - s.start;
    if (source !== undefined) {
      if (rows < SHORT_SEGMENT) {
        for (let r = s.start; r < s.end; r++) {
          if (source[r] === 0) {
            validity ??= new Uint8Array(length).fill(1);
            validity[at + r - s.start] = 0;
          }
        }
      } else {
        const part = source.subarray(s.start, s.end);
        if (validity !== undefined) validity.set(part, at);
        else if (part.includes(0)) {
          validity = new Uint8Array(length).fill(1);
          validity.set(part, at);
        }
      }
    }
    at += rows;
  }
  return validity;
}

function gatherColumn(out: Column, segments: readonly Segment[], f: number): Column {
  switch (out.kind) {
    case 'timestamp':
      copySegments(words(out.millis), segments, (c) => words((c as Column & { kind: 'timestamp' }).millis), 2);
      copySegments(out.nanos, segments, (c) => (c as Column & { kind: 'timestamp' }).nanos, 1);
      return out;
    // 64-bit values are copied as their two 32-bit words: reading a BigInt64Array's element
    // allocates a BigInt (and words keep a double's bits whatever an engine does with NaNs).
    case 'int64':
    case 'float64':
      copySegments(words(out.values), segments, (c) => words(valuesOf<BigInt64Array | Float64Array>(c)), 2);
      return out;
    case 'float32':
      copySegments(floatWords(out.values), segments, (c) => floatWords(valuesOf<Float32Array>(c)), 1);
      return out;
    case 'bool':
    case 'int32':
      // Same kind ⇒ same typed array type.
      copySegments(valuesOf<Uint8Array | Int32Array>(out), segments, (c) => valuesOf<Uint8Array | Int32Array>(c), 1);
      return out;
    case 'bigint':
    case 'string':
    case 'binary': {
      const target = out.values as unknown[];
      let at = 0;
      for (const s of segments) {
        const source = valuesOf<readonly unknown[]>(s.batch.columns[f] as Column);
        for (let r = s.start; r < s.end; r++) target[at++] = source[r];
      }
      return out;
    }
  }

  /**
   * Copies every segment's rows of column `f` into `target`, `width` elements a row (`arrayOf` the
   * source column's array, asked once per input batch: a merge's segments alternate between a few).
   * A merge of many small runs copies segments of one or a few rows, where a `subarray` and a `set`
   * per segment cost more than the copy: those are copied element by element.
   */
  function copySegments(target: TypedArray32, segments: readonly Segment[], arrayOf: (column: Column) => TypedArray32, width: number): void {
    const batches: ColumnBatch[] = [];
    const arrays: TypedArray32[] = [];
    let at = 0;
    for (const s of segments) {
      let b = batches.indexOf(s.batch);
      if (b < 0) {
        b = batches.push(s.batch) - 1;
        arrays.push(arrayOf(s.batch.columns[f] as Column));
      }
      const source = arrays[b] as TypedArray32;
      const start = s.start * width;
      const n = (s.end - s.start) * width;
      if (n > 16) target.set(source.subarray(start, start + n) as Int32Array, at);
      else for (let r = 0; r < n; r++) target[at + r] = source[start + r] as number;
      at += n;
    }
  }
}

/** A float32 array's bits as 32-bit words (a view, no copy). */
function floatWords(values: Float32Array): Int32Array {
  return new Int32Array(values.buffer, values.byteOffset, values.length);
}

/** The 32-bit words of a 64-bit typed array (a view, no copy). */
function words(values: BigInt64Array | Float64Array): Int32Array {
  return new Int32Array(values.buffer, values.byteOffset, values.length * 2);
}

type TypedArray32 = Uint8Array | Int32Array;
