/**
 * A batch of rows held column by column: the unit the write path moves (source → partition and
 * bucket split → key sort → Parquet encoder) and the read path returns. It plays the role of
 * Paimon's columnar batch (org.apache.paimon.data.columnar.ColumnarRow / VectorizedColumnBatch):
 * typed arrays where the type allows, so the encoder and the statistics read whole columns
 * instead of row objects.
 *
 * Storage per type (values are the internal values of spec/types.ts):
 *
 *   BOOLEAN                              bool     Uint8Array (0 / 1)
 *   TINYINT, SMALLINT, INT, DATE, TIME   int32    Int32Array
 *   BIGINT, DECIMAL(p ≤ 18)              int64    BigInt64Array (decimals: the unscaled value)
 *   FLOAT                                float32  Float32Array
 *   DOUBLE                               float64  Float64Array
 *   DECIMAL(p > 18)                      bigint   bigint[] (unscaled)
 *   CHAR, VARCHAR                        string   string[]
 *   BINARY, VARBINARY                    binary   Uint8Array[]
 *   TIMESTAMP, TIMESTAMP_LTZ             timestamp  millis Float64Array + nanoOfMillis Int32Array
 *
 * `validity` is undefined when every row is non-null; otherwise validity[i] is 1 for a value and 0
 * for null. The value slot of a null row holds a placeholder (0, '', empty bytes) and means nothing.
 */
import type { DataType, InternalRow, InternalValue, RowType, Timestamp } from '../spec/types.ts';

export type ColumnData =
  | { readonly kind: 'bool'; readonly values: Uint8Array }
  | { readonly kind: 'int32'; readonly values: Int32Array }
  | { readonly kind: 'int64'; readonly values: BigInt64Array }
  | { readonly kind: 'float32'; readonly values: Float32Array }
  | { readonly kind: 'float64'; readonly values: Float64Array }
  | { readonly kind: 'bigint'; readonly values: bigint[] }
  | { readonly kind: 'string'; readonly values: string[] }
  | { readonly kind: 'binary'; readonly values: Uint8Array[] }
  | { readonly kind: 'timestamp'; readonly millis: Float64Array; readonly nanos: Int32Array };

export type ColumnKind = ColumnData['kind'];

export type Column = ColumnData & {
  /** undefined: no nulls. Otherwise 1 = value, 0 = null, one byte per row. */
  readonly validity: Uint8Array | undefined;
};

export interface ColumnBatch {
  readonly rowType: RowType;
  readonly length: number;
  readonly columns: readonly Column[];
}

/** Which storage a column of this type uses. */
export function columnKindOf(type: DataType): ColumnKind {
  switch (type.root) {
    case 'BOOLEAN':
      return 'bool';
    case 'TINYINT':
    case 'SMALLINT':
    case 'INT':
    case 'DATE':
    case 'TIME':
      return 'int32';
    case 'BIGINT':
      return 'int64';
    case 'DECIMAL':
      return type.precision <= 18 ? 'int64' : 'bigint';
    case 'FLOAT':
      return 'float32';
    case 'DOUBLE':
      return 'float64';
    case 'CHAR':
    case 'VARCHAR':
      return 'string';
    case 'BINARY':
    case 'VARBINARY':
      return 'binary';
    case 'TIMESTAMP':
    case 'TIMESTAMP_LTZ':
      return 'timestamp';
  }
}

const EMPTY_BYTES = new Uint8Array(0);

/** An all-placeholder column of `length` rows, to be filled in place. */
export function allocateColumn(type: DataType, length: number, validity?: Uint8Array): Column {
  const base = { validity };
  switch (columnKindOf(type)) {
    case 'bool':
      return { ...base, kind: 'bool', values: new Uint8Array(length) };
    case 'int32':
      return { ...base, kind: 'int32', values: new Int32Array(length) };
    case 'int64':
      return { ...base, kind: 'int64', values: new BigInt64Array(length) };
    case 'float32':
      return { ...base, kind: 'float32', values: new Float32Array(length) };
    case 'float64':
      return { ...base, kind: 'float64', values: new Float64Array(length) };
    case 'bigint':
      return { ...base, kind: 'bigint', values: new Array<bigint>(length).fill(0n) };
    case 'string':
      return { ...base, kind: 'string', values: new Array<string>(length).fill('') };
    case 'binary':
      return { ...base, kind: 'binary', values: new Array<Uint8Array>(length).fill(EMPTY_BYTES) };
    case 'timestamp':
      return { ...base, kind: 'timestamp', millis: new Float64Array(length), nanos: new Int32Array(length) };
  }
}

export function isNullAt(column: Column, row: number): boolean {
  return column.validity !== undefined && column.validity[row] === 0;
}

/** The internal value at `row` (null for a null row). For tests, errors and small paths. */
export function valueAt(column: Column, row: number): InternalValue {
  if (isNullAt(column, row)) return null;
  switch (column.kind) {
    case 'bool':
      return column.values[row] === 1;
    case 'timestamp':
      return { epochMillis: column.millis[row] ?? 0, nanoOfMillis: column.nanos[row] ?? 0 };
    default:
      return column.values[row] ?? null;
  }
}

/** Writes `value` into a column allocated by allocateColumn; the caller vouches for its type. */
export function setValue(column: Column, row: number, value: InternalValue): void {
  switch (column.kind) {
    case 'bool':
      column.values[row] = value === true ? 1 : 0;
      return;
    case 'int32':
    case 'float32':
    case 'float64':
      column.values[row] = value as number;
      return;
    case 'int64':
    case 'bigint':
      column.values[row] = value as bigint;
      return;
    case 'string':
      column.values[row] = value as string;
      return;
    case 'binary':
      column.values[row] = value as Uint8Array;
      return;
    case 'timestamp': {
      const ts = value as Timestamp;
      column.millis[row] = ts.epochMillis;
      column.nanos[row] = ts.nanoOfMillis;
      return;
    }
  }
}

/** Builds a batch from rows (field order). Values must already be the internal values of their type. */
export function batchFromRows(rowType: RowType, rows: readonly InternalRow[]): ColumnBatch {
  const length = rows.length;
  const columns = rowType.fields.map((field, f) => {
    let validity: Uint8Array | undefined;
    for (let r = 0; r < length; r++) {
      if ((rows[r]?.[f] ?? null) === null) {
        validity ??= new Uint8Array(length).fill(1);
        validity[r] = 0;
      }
    }
    const column = allocateColumn(field.type, length, validity);
    for (let r = 0; r < length; r++) {
      const value = rows[r]?.[f] ?? null;
      if (value !== null) setValue(column, r, value);
    }
    return column;
  });
  return { rowType, length, columns };
}

/** The rows of a batch, in order. */
export function rowsFromBatch(batch: ColumnBatch): InternalValue[][] {
  const rows: InternalValue[][] = [];
  for (let r = 0; r < batch.length; r++) rows.push(batch.columns.map((column) => valueAt(column, r)));
  return rows;
}

/** A new column holding the rows `indices` of `column`, in that order (select and permute). */
export function takeColumn(column: Column, indices: ArrayLike<number>): Column {
  const n = indices.length;
  let validity: Uint8Array | undefined;
  if (column.validity !== undefined) {
    validity = gatherUint8(column.validity, indices);
    if (!validity.includes(0)) validity = undefined;
  }
  switch (column.kind) {
    case 'timestamp': {
      const millis = new Float64Array(n);
      const nanos = new Int32Array(n);
      for (let i = 0; i < n; i++) {
        const j = indices[i] as number;
        millis[i] = column.millis[j] as number;
        nanos[i] = column.nanos[j] as number;
      }
      return { kind: 'timestamp', millis, nanos, validity };
    }
    case 'bool':
      return { kind: 'bool', values: gatherUint8(column.values, indices), validity };
    case 'int32':
      return { kind: 'int32', values: gatherInt32(column.values, indices), validity };
    case 'int64': {
      // Copy the two 32-bit words of each value: reading a BigInt64Array element allocates a BigInt.
      const values = new BigInt64Array(n);
      const from = new Int32Array(column.values.buffer, column.values.byteOffset, column.values.length * 2);
      const to = new Int32Array(values.buffer);
      for (let i = 0; i < n; i++) {
        const j = (indices[i] as number) * 2;
        to[2 * i] = from[j] as number;
        to[2 * i + 1] = from[j + 1] as number;
      }
      return { kind: 'int64', values, validity };
    }
    case 'float32': {
      const values = new Float32Array(n);
      for (let i = 0; i < n; i++) values[i] = column.values[indices[i] as number] as number;
      return { kind: 'float32', values, validity };
    }
    case 'float64': {
      const values = new Float64Array(n);
      for (let i = 0; i < n; i++) values[i] = column.values[indices[i] as number] as number;
      return { kind: 'float64', values, validity };
    }
    case 'bigint': {
      const values = new Array<bigint>(n);
      for (let i = 0; i < n; i++) values[i] = column.values[indices[i] as number] as bigint;
      return { kind: 'bigint', values, validity };
    }
    case 'string': {
      const values = new Array<string>(n);
      for (let i = 0; i < n; i++) values[i] = column.values[indices[i] as number] as string;
      return { kind: 'string', values, validity };
    }
    case 'binary': {
      const values = new Array<Uint8Array>(n);
      for (let i = 0; i < n; i++) values[i] = column.values[indices[i] as number] as Uint8Array;
      return { kind: 'binary', values, validity };
    }
  }
}

// One loop per array type keeps each monomorphic (a shared generic loop was the hot spot).
function gatherUint8(source: Uint8Array, indices: ArrayLike<number>): Uint8Array {
  const out = new Uint8Array(indices.length);
  for (let i = 0; i < out.length; i++) out[i] = source[indices[i] as number] as number;
  return out;
}

function gatherInt32(source: Int32Array, indices: ArrayLike<number>): Int32Array {
  const out = new Int32Array(indices.length);
  for (let i = 0; i < out.length; i++) out[i] = source[indices[i] as number] as number;
  return out;
}

/** A new batch of the rows `indices` of `batch`, in that order (partition/bucket split, key sort). */
export function takeRows(batch: ColumnBatch, indices: ArrayLike<number>): ColumnBatch {
  return { rowType: batch.rowType, length: indices.length, columns: batch.columns.map((c) => takeColumn(c, indices)) };
}

/** Rows [start, end) of a batch. Typed arrays are views (no copy); arrays are copied. */
export function sliceBatch(batch: ColumnBatch, start: number, end: number): ColumnBatch {
  if (start === 0 && end === batch.length) return batch;
  const columns = batch.columns.map((column): Column => {
    const validity = column.validity?.subarray(start, end);
    switch (column.kind) {
      case 'timestamp':
        return { kind: 'timestamp', millis: column.millis.subarray(start, end), nanos: column.nanos.subarray(start, end), validity };
      case 'bool':
        return { kind: 'bool', values: column.values.subarray(start, end), validity };
      case 'int32':
        return { kind: 'int32', values: column.values.subarray(start, end), validity };
      case 'int64':
        return { kind: 'int64', values: column.values.subarray(start, end), validity };
      case 'float32':
        return { kind: 'float32', values: column.values.subarray(start, end), validity };
      case 'float64':
        return { kind: 'float64', values: column.values.subarray(start, end), validity };
      case 'bigint':
        return { kind: 'bigint', values: column.values.slice(start, end), validity };
      case 'string':
        return { kind: 'string', values: column.values.slice(start, end), validity };
      case 'binary':
        return { kind: 'binary', values: column.values.slice(start, end), validity };
    }
  });
  return { rowType: batch.rowType, length: end - start, columns };
}

/** Row indices grouped by a per-row group id (e.g. bucket): ids[i] in [0, groups). Stable order. */
export function groupRows(ids: ArrayLike<number>, groups: number): Int32Array[] {
  const counts = new Int32Array(groups);
  for (let i = 0; i < ids.length; i++) counts[ids[i] as number]! += 1;
  const out = Array.from(counts, (count) => new Int32Array(count));
  const fill = new Int32Array(groups);
  for (let i = 0; i < ids.length; i++) {
    const g = ids[i] as number;
    (out[g] as Int32Array)[fill[g]!++] = i;
  }
  return out;
}

/**
 * Rows of several batches of one row type as one batch, in one copy: output row i is row `rows[i]`
 * of `batches[of[i]]` (a bucket's buffered rows, spread over the batches they arrived in, taken in
 * key order). One batch: takeRows.
 */
export function gatherRows(rowType: RowType, batches: readonly ColumnBatch[], of: Int32Array, rows: Int32Array): ColumnBatch {
  if (batches.length === 1) return takeRows(batches[0] as ColumnBatch, rows);
  const columns = rowType.fields.map((_, f) => gatherColumnOf(batches.map((b) => b.columns[f] as Column), of, rows));
  return { rowType, length: rows.length, columns };
}

/** One column of gatherRows: `parts[of[i]]` row `rows[i]` for each i; the parts are of one kind. */
export function gatherColumnOf(parts: readonly Column[], of: Int32Array, rows: Int32Array): Column {
  const n = rows.length;
  let validity: Uint8Array | undefined;
  if (parts.some((p) => p.validity !== undefined)) {
    const validities = parts.map((p) => p.validity);
    const out = new Uint8Array(n);
    let nulls = 0;
    for (let i = 0; i < n; i++) {
      const v = validities[of[i] as number];
      const valid = v === undefined ? 1 : (v[rows[i] as number] as number);
      out[i] = valid;
      nulls += 1 - valid;
    }
    if (nulls > 0) validity = out;
  }
  const first = parts[0] as Column;
  const same = <C extends Column>(): C[] => {
    for (const p of parts) if (p.kind !== first.kind) throw new TypeError(`gatherRows: column kinds differ (${first.kind}, ${p.kind})`);
    return parts as C[];
  };
  switch (first.kind) {
    case 'timestamp': {
      const from = same<Column & { kind: 'timestamp' }>();
      const millisOf = from.map((p) => p.millis);
      const nanosOf = from.map((p) => p.nanos);
      const millis = new Float64Array(n);
      const nanos = new Int32Array(n);
      for (let i = 0; i < n; i++) {
        const b = of[i] as number;
        const r = rows[i] as number;
        millis[i] = (millisOf[b] as Float64Array)[r] as number;
        nanos[i] = (nanosOf[b] as Int32Array)[r] as number;
      }
      return { kind: 'timestamp', millis, nanos, validity };
    }
    case 'bool':
      return { kind: 'bool', values: gatherTyped(new Uint8Array(n), same<Column & { kind: 'bool' }>().map((p) => p.values), of, rows), validity };
    case 'int32':
      return { kind: 'int32', values: gatherTyped(new Int32Array(n), same<Column & { kind: 'int32' }>().map((p) => p.values), of, rows), validity };
    case 'int64': {
      // The two 32-bit words of each value, as takeColumn copies them: no BigInt per value.
      const from = same<Column & { kind: 'int64' }>().map((p) => new Int32Array(p.values.buffer, p.values.byteOffset, p.values.length * 2));
      const values = new BigInt64Array(n);
      const to = new Int32Array(values.buffer);
      for (let i = 0; i < n; i++) {
        const words = from[of[i] as number] as Int32Array;
        const j = (rows[i] as number) * 2;
        to[2 * i] = words[j] as number;
        to[2 * i + 1] = words[j + 1] as number;
      }
      return { kind: 'int64', values, validity };
    }
    case 'float32':
      return { kind: 'float32', values: gatherTyped(new Float32Array(n), same<Column & { kind: 'float32' }>().map((p) => p.values), of, rows), validity };
    case 'float64':
      return { kind: 'float64', values: gatherTyped(new Float64Array(n), same<Column & { kind: 'float64' }>().map((p) => p.values), of, rows), validity };
    case 'bigint':
      return { kind: 'bigint', values: gatherArray(same<Column & { kind: 'bigint' }>().map((p) => p.values), of, rows), validity };
    case 'string':
      return { kind: 'string', values: gatherArray(same<Column & { kind: 'string' }>().map((p) => p.values), of, rows), validity };
    case 'binary':
      return { kind: 'binary', values: gatherArray(same<Column & { kind: 'binary' }>().map((p) => p.values), of, rows), validity };
  }
}

function gatherTyped<T extends Uint8Array | Int32Array | Float32Array | Float64Array>(out: T, from: readonly T[], of: Int32Array, rows: Int32Array): T {
  const target = out as unknown as number[];
  const sources = from as unknown as readonly (readonly number[])[];
  for (let i = 0; i < rows.length; i++) target[i] = (sources[of[i] as number] as readonly number[])[rows[i] as number] as number;
  return out;
}

/** Pushed one by one: the array stays packed (a `new Array(n)` filled in place stays holey). */
function gatherArray<V>(from: readonly (readonly V[])[], of: Int32Array, rows: Int32Array): V[] {
  const out: V[] = [];
  for (let i = 0; i < rows.length; i++) out.push((from[of[i] as number] as readonly V[])[rows[i] as number] as V);
  return out;
}

/**
 * Takes the first `rows` rows off a queue of batches (in order, at least `rows` rows in all) as one
 * batch: whole batches are shifted off, the one the cut falls in is split (its rest stays first).
 */
export function shiftRows(rowType: RowType, queue: ColumnBatch[], rows: number): ColumnBatch {
  const parts: ColumnBatch[] = [];
  let need = rows;
  while (need > 0) {
    const head = queue[0] as ColumnBatch;
    if (head.length <= need) {
      parts.push(head);
      queue.shift();
      need -= head.length;
    } else {
      parts.push(sliceBatch(head, 0, need));
      queue[0] = sliceBatch(head, need, head.length);
      need = 0;
    }
  }
  return parts.length === 1 ? (parts[0] as ColumnBatch) : concatBatches(rowType, parts);
}

/** Concatenates batches of one row type, column by column (typed arrays are copied with `set`). */
export function concatBatches(rowType: RowType, batches: readonly ColumnBatch[]): ColumnBatch {
  if (batches.length === 1 && batches[0]?.rowType === rowType) return batches[0];
  const length = batches.reduce((n, b) => n + b.length, 0);
  const columns = rowType.fields.map((field, f) => concatColumns(field.type, batches.map((b) => b.columns[f] as Column), batches, length));
  return { rowType, length, columns };
}

function concatColumns(type: DataType, parts: readonly Column[], batches: readonly ColumnBatch[], length: number): Column {
  let validity: Uint8Array | undefined;
  if (parts.some((p) => p.validity !== undefined)) {
    validity = new Uint8Array(length).fill(1);
    let at = 0;
    parts.forEach((p, i) => {
      if (p.validity) validity?.set(p.validity.subarray(0, batches[i]?.length), at);
      at += batches[i]?.length ?? 0;
    });
  }
  const kind = columnKindOf(type);
  if (kind === 'string' || kind === 'binary' || kind === 'bigint') {
    // Pushed, not allocated and filled with placeholders first: one pass, and the array stays packed.
    const values: unknown[] = [];
    parts.forEach((part, i) => {
      if (part.kind !== kind) throw new TypeError(`concatBatches: column kinds differ (${kind}, ${part.kind})`);
      const source = part.values as readonly unknown[];
      const n = batches[i]?.length ?? 0;
      for (let r = 0; r < n; r++) values.push(source[r]);
    });
    return { kind, values, validity } as Column;
  }
  const out = allocateColumn(type, length, validity);
  let at = 0;
  parts.forEach((part, i) => {
    const n = batches[i]?.length ?? 0;
    copyInto(out, part, at, n);
    at += n;
  });
  return out;
}

/** Copies rows [0, n) of `from` into `to` at `at`; both columns have the same typed-array kind. */
function copyInto(to: Column, from: Column, at: number, n: number): void {
  const mismatch = (): never => {
    throw new TypeError(`concatBatches: column kinds differ (${to.kind}, ${from.kind})`);
  };
  switch (to.kind) {
    case 'timestamp':
      if (from.kind !== 'timestamp') return mismatch();
      to.millis.set(from.millis.subarray(0, n), at);
      to.nanos.set(from.nanos.subarray(0, n), at);
      return;
    case 'bool':
    case 'int32':
    case 'int64':
    case 'float32':
    case 'float64':
      if (from.kind !== to.kind) return mismatch();
      // Same kind ⇒ same typed array type.
      (to.values as Uint8Array).set((from.values as Uint8Array).subarray(0, n), at);
      return;
    case 'bigint':
    case 'string':
    case 'binary':
      throw new TypeError('concatBatches: an array column is concatenated by concatColumns');
  }
}

/** Whether this host stores numbers little-endian (the int64 word readers assume it, or fall back). */
export const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;
export const TWO_32 = 4294967296;

/**
 * Integral numbers (|v| ≤ 2^53) → BigInt64Array without a BigInt per value: each value's two 32-bit
 * words are written through an Int32Array view (the hot path of timestamps and sequence numbers).
 */
export function bigInt64FromNumbers(values: ArrayLike<number>, length = values.length): BigInt64Array {
  const out = new BigInt64Array(length);
  if (!LITTLE_ENDIAN) {
    for (let i = 0; i < length; i++) out[i] = BigInt(values[i] as number);
    return out;
  }
  const words = new Int32Array(out.buffer);
  for (let i = 0; i < length; i++) {
    const v = values[i] as number;
    const hi = Math.floor(v / TWO_32);
    words[2 * i] = v - hi * TWO_32;
    words[2 * i + 1] = hi;
  }
  return out;
}

/** BigInt64Array → Float64Array when every value is a safe integer, else undefined. */
export function safeNumbersOf(values: BigInt64Array): Float64Array | undefined {
  const out = new Float64Array(values.length);
  if (!LITTLE_ENDIAN) return undefined;
  const words = new Int32Array(values.buffer, values.byteOffset, values.length * 2);
  for (let i = 0; i < values.length; i++) {
    const hi = words[2 * i + 1] as number;
    // -2^53 ≤ v < 2^53 ⇔ -2^21 ≤ high word < 2^21; every such integer is an exact double.
    if (hi >= 2097152 || hi < -2097152) return undefined;
    out[i] = hi * TWO_32 + ((words[2 * i] as number) >>> 0);
  }
  return out;
}
