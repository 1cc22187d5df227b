/**
 * Splits a batch of table rows by (partition, bucket), as Paimon's
 * org.apache.paimon.table.sink.FixedBucketRowKeyExtractor and AppendTableRowKeyExtractor do:
 *
 * - partition: the partition fields as an arity-prefixed BinaryRow (what `_PARTITION` holds,
 *   compared byte for byte) and its directory (`dt=19723/`);
 * - bucket: fixed (`bucket = N`): Math.abs(murmur(bucket-key BinaryRow) % N); bucket-unaware append
 *   (`bucket = -1`): bucket 0 with totalBuckets -1.
 */
import { valueAt, type Column, type ColumnBatch } from '../format/column-batch.ts';
import { partitionKey, serializeBinaryRow } from '../spec/binary-row.ts';
import { assignBuckets } from './bucket-assigner.ts';
import { partitionPath, partitionPathOptions } from '../spec/partition-path.ts';
import { bucketCount, bucketKeys, partitionFields, type TableSchema } from '../spec/table-schema.ts';
import type { DataField, DataType, InternalRow } from '../spec/types.ts';

/** The arity-prefixed BinaryRow of partition values (`_PARTITION`). */
export function encodePartitionRow(values: InternalRow, types: readonly DataType[]): Uint8Array {
  return serializeBinaryRow(values, types);
}

/** Where a group of rows goes. */
export interface BucketTarget {
  /** bucketKey(partition, bucket): the map key of this target. */
  readonly key: string;
  readonly partition: Uint8Array;
  readonly partitionValues: InternalRow;
  /** `k=v/…/` with the trailing '/', or '' for an unpartitioned table. */
  readonly partitionPath: string;
  readonly bucket: number;
  /** `_TOTAL_BUCKETS`: N, or -1 for a bucket-unaware table. */
  readonly totalBuckets: number;
}

export interface RoutedRows {
  readonly target: BucketTarget;
  /** Row indices of the batch, in arrival order. */
  readonly rows: number[];
}

interface CachedPartition {
  readonly bytes: Uint8Array;
  readonly hex: string;
  readonly values: InternalRow;
  /** Distinct per partition within one route() call. */
  readonly ordinal: number;
}

/**
 * A string per row that is equal exactly when the partition values are equal: one part per column,
 * joined by '|'; strings are JSON-quoted, so a '|' inside one cannot fake a boundary.
 */
function partitionCacheKey(columns: readonly Column[]): (row: number) => string {
  if (columns.length === 0) return () => '';
  const parts = columns.map((c): ((row: number) => string) => {
    const v = c.validity;
    const isNull = (row: number): boolean => v !== undefined && v[row] === 0;
    switch (c.kind) {
      case 'string':
        return (row) => (isNull(row) ? 'N' : JSON.stringify(c.values[row]));
      case 'binary':
        return (row) => (isNull(row) ? 'N' : Buffer.from(c.values[row] as Uint8Array).toString('base64'));
      case 'timestamp':
        return (row) => (isNull(row) ? 'N' : `${c.millis[row]}.${c.nanos[row]}`);
      case 'float32':
      case 'float64': {
        const values = c.values;
        // -0.0 and 0.0 are different BinaryRows (different bits), but String() gives '0' for both.
        return (row) => (isNull(row) ? 'N' : Object.is(values[row], -0) ? '-0' : String(values[row]));
      }
      default: {
        const values = c.values;
        return (row) => (isNull(row) ? 'N' : String(values[row]));
      }
    }
  });
  if (parts.length === 1) return parts[0] as (row: number) => string;
  return (row) => parts.map((part) => part(row)).join('|');
}

export class RowRouter {
  readonly #schema: TableSchema;
  readonly #partition: readonly DataField[];
  readonly #partitionIndex: readonly number[];
  readonly #bucketIndex: readonly number[];
  readonly #bucketTypes: readonly DataType[];
  readonly #buckets: number;
  readonly #targets = new Map<string, BucketTarget>();
  readonly #partitions = new Map<string, CachedPartition>();

  constructor(schema: TableSchema) {
    this.#schema = schema;
    this.#partition = partitionFields(schema);
    const indexOf = (name: string): number => schema.fields.findIndex((f) => f.name === name);
    this.#partitionIndex = this.#partition.map((f) => indexOf(f.name));
    this.#buckets = bucketCount(schema);
    const keys = this.#buckets > 0 ? bucketKeys(schema) : [];
    this.#bucketIndex = keys.map(indexOf);
    this.#bucketTypes = this.#bucketIndex.map((i) => (schema.fields[i] as DataField).type);
  }

  /** The indices of the columns route() reads (partition and bucket-key columns); it ignores the others. */
  get columnsRead(): ReadonlySet<number> {
    return new Set([...this.#partitionIndex, ...this.#bucketIndex]);
  }

  /** Groups the rows of a batch (of the table's row type) by target, in first-seen order. */
  route(batch: ColumnBatch): RoutedRows[] {
    const columns = this.#partitionIndex.map((i) => batch.columns[i] as Column);
    const keyOf = partitionCacheKey(columns);
    const buckets = this.#buckets > 0 ? assignBuckets(batch, this.#bucketIndex, this.#bucketTypes, this.#buckets) : undefined;
    if (this.#partitions.size > 10_000) this.#partitions.clear();
    const groups = new Map<number, RoutedRows>();
    let previousKey: string | undefined;
    let partition: CachedPartition | undefined;
    for (let row = 0; row < batch.length; row++) {
      const cacheKey = keyOf(row);
      // Rows of one partition usually come together: look the partition up only when it changes.
      if (partition === undefined || cacheKey !== previousKey) partition = this.#partitionOf(cacheKey, columns, row);
      previousKey = cacheKey;
      const bucket = buckets === undefined ? 0 : (buckets[row] as number);
      const groupKey = partition.ordinal * 2 ** 31 + bucket;
      let group = groups.get(groupKey);
      if (group === undefined) {
        const target = this.#target(`${partition.hex}/${bucket}`, partition.bytes, partition.values, bucket);
        groups.set(groupKey, (group = { target, rows: [] }));
      }
      group.rows.push(row);
    }
    return [...groups.values()];
  }

  /** The partition row of a row, cached: encoding a BinaryRow per row would dominate the write path. */
  #partitionOf(cacheKey: string, columns: readonly Column[], row: number): CachedPartition {
    let partition = this.#partitions.get(cacheKey);
    if (partition === undefined) {
      const values = columns.map((c) => valueAt(c, row));
      const bytes = encodePartitionRow(values, this.#partition.map((f) => f.type));
      partition = { bytes, hex: partitionKey(bytes), values, ordinal: this.#partitions.size };
      this.#partitions.set(cacheKey, partition);
    }
    return partition;
  }

  #target(key: string, partition: Uint8Array, values: InternalRow, bucket: number): BucketTarget {
    let target = this.#targets.get(key);
    if (target === undefined) {
      const path = this.#partition.length === 0 ? '' : partitionPath(values, this.#partition, partitionPathOptions(this.#schema.options));
      target = { key, partition, partitionValues: values, partitionPath: path, bucket, totalBuckets: this.#buckets > 0 ? this.#buckets : -1 };
      this.#targets.set(key, target);
    }
    return target;
  }
}
