/**
 * Primary-key data files: the key-value layout and one sorted run with unique keys (the file
 * writer is write/key-value-writer.ts). Mirrors org.apache.paimon.KeyValue (createKeyValueFields),
 * org.apache.paimon.table.SpecialFields and the write buffer of org.apache.paimon.mergetree.MergeTreeWriter with DeduplicateMergeFunction.
 *
 * Columns, in order: `_KEY_<pk>` per trimmed primary-key field (field id + 1073741823),
 * `_SEQUENCE_NUMBER` BIGINT NOT NULL (id 2147483646), `_VALUE_KIND` TINYINT NOT NULL (id 2147483645),
 * then every table column. Rows are sorted by key (field by field, nulls first, strings by unsigned
 * UTF-8 bytes, binaries by unsigned bytes, numbers numerically) and each key appears once: the
 * record with the highest (sequence.field…, sequence number) wins, whatever its kind, so a trailing
 * delete stays a delete row and counts in `_DELETE_ROW_COUNT`.
 */
import type { DataField, RowType } from '../spec/types.ts';
import { bigInt64FromNumbers, safeNumbersOf, takeRows, type Column, type ColumnBatch } from './column-batch.ts';
import { compareBytes, compareJavaDouble, compareUtf8 } from '../spec/key-comparator.ts';

/** SpecialFields.KEY_FIELD_ID_START = Integer.MAX_VALUE / 2. */
export const KEY_FIELD_ID_START = 1073741823;
export const KEY_FIELD_PREFIX = '_KEY_';
export const SEQUENCE_NUMBER_FIELD: DataField = { id: 2147483646, name: '_SEQUENCE_NUMBER', type: { root: 'BIGINT', nullable: false } };
export const VALUE_KIND_FIELD: DataField = { id: 2147483645, name: '_VALUE_KIND', type: { root: 'TINYINT', nullable: false } };

/** org.apache.paimon.types.RowKind bytes. -U and -D are retractions. */
export const RowKind = { INSERT: 0, UPDATE_BEFORE: 1, UPDATE_AFTER: 2, DELETE: 3 } as const;
export type RowKindByte = (typeof RowKind)[keyof typeof RowKind];

export function isRetract(kind: number): boolean {
  return kind === RowKind.UPDATE_BEFORE || kind === RowKind.DELETE;
}

export function fieldIndex(rowType: RowType, name: string): number {
  const i = rowType.fields.findIndex((f) => f.name === name);
  if (i < 0) throw new RangeError(`no field '${name}' in the row type`);
  return i;
}

/** The file row type of a primary-key table: keys, sequence number, value kind, table columns. */
export function keyValueRowType(tableRowType: RowType, trimmedPrimaryKeys: readonly string[]): RowType {
  const keys = trimmedPrimaryKeys.map((name) => {
    const field = tableRowType.fields[fieldIndex(tableRowType, name)] as DataField;
    return { id: KEY_FIELD_ID_START + field.id, name: KEY_FIELD_PREFIX + field.name, type: field.type };
  });
  return { fields: [...keys, SEQUENCE_NUMBER_FIELD, VALUE_KIND_FIELD, ...tableRowType.fields] };
}

type RowCompare = (a: number, b: number) => number;

/** Ascending order of two rows of one column, nulls first (Paimon's generated RecordComparator). */
export function columnComparator(column: Column): RowCompare {
  const values = valueComparator(column);
  const validity = column.validity;
  if (validity === undefined) return values;
  return (a, b) => {
    const na = validity[a] === 0;
    const nb = validity[b] === 0;
    if (na || nb) return na === nb ? 0 : na ? -1 : 1;
    return values(a, b);
  };
}

function valueComparator(column: Column): RowCompare {
  switch (column.kind) {
    case 'bool':
    case 'int32': {
      const v = column.values;
      return (a, b) => (v[a] as number) - (v[b] as number);
    }
    case 'int64': {
      // Reading a BigInt64Array allocates a BigInt per access; compare exact doubles when all fit.
      const numbers = safeNumbersOf(column.values);
      if (numbers) return (a, b) => (numbers[a] as number) - (numbers[b] as number);
      return bigintComparator(column.values);
    }
    case 'bigint':
      return bigintComparator(column.values);
    case 'float32':
    case 'float64': {
      const v = column.values;
      return (a, b) => compareJavaDouble(v[a] as number, v[b] as number);
    }
    case 'string': {
      const v = column.values;
      return (a, b) => compareUtf8(v[a] as string, v[b] as string);
    }
    case 'binary': {
      const v = column.values;
      return (a, b) => compareBytes(v[a] as Uint8Array, v[b] as Uint8Array);
    }
    case 'timestamp': {
      const { millis, nanos } = column;
      return (a, b) => (millis[a] as number) - (millis[b] as number) || (nanos[a] as number) - (nanos[b] as number);
    }
  }
}

function bigintComparator(v: ArrayLike<bigint>): RowCompare {
  return (a, b) => {
    const x = v[a] as bigint;
    const y = v[b] as bigint;
    return x < y ? -1 : x > y ? 1 : 0;
  };
}

/** Field-by-field comparison of rows over the given columns. */
export function rowsComparator(columns: readonly Column[]): RowCompare {
  const compares = columns.map(columnComparator);
  if (compares.length === 1) return compares[0] as RowCompare;
  return (a, b) => {
    for (const compare of compares) {
      const c = compare(a, b);
      if (c !== 0) return c;
    }
    return 0;
  };
}

export interface SortedRunInput {
  readonly tableRowType: RowType;
  /** Primary keys minus partition keys (TableSchema.trimmedPrimaryKeys). */
  readonly trimmedPrimaryKeys: readonly string[];
  /** Paimon's `sequence.field` (possibly several); empty or absent: only the sequence number orders. */
  readonly sequenceFields?: readonly string[];
  /** Rows of one (partition, bucket), in arrival order, of tableRowType. */
  readonly batch: ColumnBatch;
  /** RowKind byte per row; absent: all +I. */
  readonly rowKinds?: Uint8Array;
  /** Sequence number of the first row; row i gets first + i (MergeTreeWriter.newSequenceNumber). */
  readonly firstSequenceNumber: bigint;
}

/**
 * Sorts rows by key and keeps one record per key (deduplicate merge engine), returning the batch in
 * key-value layout. The record kept for a key is the greatest by (sequence fields, sequence number).
 */
export function sortedRun(input: SortedRunInput): ColumnBatch {
  const { batch, tableRowType } = input;
  const column = (name: string): Column => batch.columns[fieldIndex(tableRowType, name)] as Column;
  const kept = sortedRunRows(input.trimmedPrimaryKeys.map(column), (input.sequenceFields ?? []).map(column), batch.length);
  return keyValueRun(input, takeRows(batch, kept), kept);
}

/**
 * sortedRun's choice of rows, given the key columns and the sequence fields' columns of `length`
 * rows in arrival order: the row kept for each key, in key order.
 */
export function sortedRunRows(keyColumns: readonly Column[], seqColumns: readonly Column[], length: number): Int32Array {
  const byKey = rowsComparator(keyColumns);
  const order = (seqColumns.length === 0 ? packedOrder(keyColumns, length) : undefined) ?? comparatorOrder(byKey, seqColumns, length);
  const kept: number[] = [];
  for (let i = 0; i < order.length; i++) {
    const row = order[i] as number;
    const next = order[i + 1];
    if (next === undefined || byKey(row, next) !== 0) kept.push(row);
  }
  return Int32Array.from(kept);
}

/** Rows in (key, sequence fields, arrival) order by a comparator sort. */
function comparatorOrder(byKey: RowCompare, seqColumns: readonly Column[], length: number): Int32Array {
  const bySequence = seqColumns.length > 0 ? rowsComparator(seqColumns) : () => 0;
  const order = new Int32Array(length);
  for (let i = 0; i < length; i++) order[i] = i;
  return order.sort((a, b) => byKey(a, b) || bySequence(a, b) || a - b);
}

/**
 * The same order for the common key — one integer column without nulls — by a native numeric
 * sort: each row becomes (key - min) * length + row, exact while below 2^53, so sorting those
 * doubles orders by key and then by arrival. Undefined when the key does not qualify.
 */
function packedOrder(keyColumns: readonly Column[], length: number): Int32Array | undefined {
  const key = keyColumns.length === 1 ? keyColumns[0] : undefined;
  if (!key || key.validity !== undefined || length === 0) return undefined;
  const values = key.kind === 'int32' ? key.values : key.kind === 'int64' ? safeNumbersOf(key.values) : undefined;
  if (!values) return undefined;
  let min = Infinity;
  let max = -Infinity;
  for (let i = 0; i < length; i++) {
    const v = values[i] as number;
    if (v < min) min = v;
    if (v > max) max = v;
  }
  if ((max - min + 1) * length > Number.MAX_SAFE_INTEGER) return undefined;
  const packed = new Float64Array(length);
  for (let i = 0; i < length; i++) packed[i] = ((values[i] as number) - min) * length + i;
  packed.sort();
  const order = new Int32Array(length);
  for (let i = 0; i < length; i++) order[i] = (packed[i] as number) % length;
  return order;
}

/**
 * The key-value run of `values`, the rows `rows` (sortedRunRows) of a bucket's rows in arrival
 * order, already taken in that order: row `rows[i]` gets sequence number first + rows[i] and its
 * row kind.
 */
export function keyValueRun(input: Omit<SortedRunInput, 'batch' | 'sequenceFields'>, values: ColumnBatch, rows: Int32Array): ColumnBatch {
  const sequence = sequenceNumbers(input.firstSequenceNumber, rows);
  const kinds = new Int32Array(rows.length);
  for (let i = 0; i < rows.length; i++) kinds[i] = input.rowKinds?.[rows[i] as number] ?? RowKind.INSERT;
  const keys = input.trimmedPrimaryKeys.map((name) => values.columns[fieldIndex(input.tableRowType, name)] as Column);
  return {
    rowType: keyValueRowType(input.tableRowType, input.trimmedPrimaryKeys),
    length: rows.length,
    columns: [
      ...keys,
      { kind: 'int64', values: sequence, validity: undefined },
      { kind: 'int32', values: kinds, validity: undefined },
      ...values.columns,
    ],
  };
}

/** first + row for each kept row; without a BigInt per row while the numbers stay below 2^53. */
function sequenceNumbers(first: bigint, rows: Int32Array): BigInt64Array {
  // Row indices are below 2^31, so first + row stays an exact double while first < 2^53 - 2^31.
  if (first >= 0n && first < 2n ** 53n - 2n ** 31n) {
    const base = Number(first);
    const numbers = new Float64Array(rows.length);
    for (let i = 0; i < rows.length; i++) numbers[i] = base + (rows[i] as number);
    return bigInt64FromNumbers(numbers);
  }
  return BigInt64Array.from(rows, (row) => first + BigInt(row));
}
