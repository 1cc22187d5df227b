/**
 * Splits a batch of table rows by (partition, bucket), as Paimon's
 * org.apache.paimon.table.sink.FixedBucketRowKeyExtractor and AppendTableRowKeyExtractor do:
 *
 * - partition: the partition fields as an arity-prefixed BinaryRow (what `_PARTITION` holds,
 *   compared byte for byte) and its directory (`dt=19723/`);
 * - bucket: fixed (`bucket = N`): Math.abs(murmur(bucket-key BinaryRow) % N); bucket-unaware append
 *   (`bucket = -1`): bucket 0 with totalBuckets -1.
 */
import { valueAt, type ColumnBatch } from '../format/column-batch.ts';
import { serializeBinaryRow } from '../spec/binary-row.ts';
import { assignBuckets } from './bucket-assigner.ts';
import { partitionPath, type PartitionPathOptions } from '../spec/partition-path.ts';
import { bucketCount, bucketKeys, partitionFields, type TableSchema } from '../spec/table-schema.ts';
import type { DataField, DataType, InternalRow, InternalValue } from '../spec/types.ts';
import { partitionKey } from './commit-plan.ts';

/** The arity-prefixed BinaryRow of partition values (`_PARTITION`). */
export function encodePartitionRow(values: InternalRow, types: readonly DataType[]): Uint8Array {
  return serializeBinaryRow(values, types);
}

/** `partition.default-name` and `partition.legacy-name` from the table options. */
export function partitionPathOptions(options: Readonly<Record<string, string>>): PartitionPathOptions {
  const defaultName = options['partition.default-name'];
  const legacy = options['partition.legacy-name'];
  return {
    ...(defaultName !== undefined ? { defaultName } : {}),
    ...(legacy !== undefined ? { legacyName: legacy.trim().toLowerCase() !== 'false' } : {}),
  };
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

/** A JSON form of internal values that keeps distinct values distinct (one type per column). */
function valueKeyReplacer(_key: string, value: unknown): unknown {
  if (typeof value === 'bigint') return value.toString();
  if (value instanceof Uint8Array) return Buffer.from(value).toString('base64');
  return value;
}

export class RowRouter {
  readonly #schema: TableSchema;
  readonly #partition: readonly DataField[];
  readonly #partitionIndex: readonly number[];
  readonly #bucketIndex: readonly number[];
  readonly #bucketTypes: readonly DataType[];
  readonly #buckets: number;
  readonly #targets = new Map<string, BucketTarget>();
  readonly #partitions = new Map<string, { readonly bytes: Uint8Array; readonly hex: string }>();

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

  /** Groups the rows of a batch (of the table's row type) by target, in first-seen order. */
  route(batch: ColumnBatch): RoutedRows[] {
    const groups = new Map<string, RoutedRows>();
    const columns = this.#partitionIndex.map((i) => batch.columns[i] as ColumnBatch['columns'][number]);
    const buckets = this.#buckets > 0 ? assignBuckets(batch, this.#bucketIndex, this.#bucketTypes, this.#buckets) : undefined;
    let previousKey = '';
    let previous: { readonly bytes: Uint8Array; readonly hex: string } | undefined;
    for (let row = 0; row < batch.length; row++) {
      const values = columns.map((c) => valueAt(c, row));
      const cacheKey = values.length === 0 ? '' : JSON.stringify(values, valueKeyReplacer);
      // Rows of one partition usually come together: skip the cache lookup for a repeat.
      const partition = previous !== undefined && cacheKey === previousKey ? previous : this.#partitionOf(cacheKey, values);
      previous = partition;
      previousKey = cacheKey;
      const bucket = buckets === undefined ? 0 : (buckets[row] as number);
      const key = `${partition.hex}/${bucket}`;
      let group = groups.get(key);
      if (group === undefined) groups.set(key, (group = { target: this.#target(key, partition.bytes, values, bucket), rows: [] }));
      group.rows.push(row);
    }
    return [...groups.values()];
  }

  /**
   * The partition row of these values, cached by a string form of the values: encoding a BinaryRow
   * per row would dominate the write path, and a table has few partitions per batch.
   */
  #partitionOf(cacheKey: string, values: InternalRow): { readonly bytes: Uint8Array; readonly hex: string } {
    let partition = this.#partitions.get(cacheKey);
    if (partition === undefined) {
      const bytes = encodePartitionRow(values, this.#partition.map((f) => f.type));
      partition = { bytes, hex: partitionKey(bytes) };
      if (this.#partitions.size > 100_000) this.#partitions.clear();
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
