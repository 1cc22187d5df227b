/**
 * How many primary keys a load wrote in more than one of its writers (a sync's shards): the
 * "colliding keys" a sync reports (docs/architecture.md, "Which row a key keeps"). Such a key keeps the row of the later shard
 * in plan order (or of the greater `sequence.field`); the count tells the operator it happened.
 *
 *   files per (partition, bucket), each tagged with its shard
 *     ─► sorted by min key, cut into clusters of overlapping key ranges (DataFileMeta min/max key)
 *     ─► a cluster with files of ≥ 2 shards: k-way merge of the files' key columns only,
 *        counting each key seen in ≥ 2 shards once
 *
 * Cost: only files whose key range overlaps a file of another shard are read, and only their
 * `_KEY_` columns; memory holds one row group of key columns per file whose key range holds the
 * key being merged.
 */
import type { ObjectStore } from '../io/object-store.ts';
import { valueAt, type ColumnBatch } from '../format/column-batch.ts';
import { keyValueRowType } from '../format/key-value.ts';
import { ParquetDataFileReader } from '../parquet/parquet-reader.ts';
import { decodeBinaryRow, partitionKey } from '../spec/binary-row.ts';
import type { DataFileMeta } from '../spec/data-file-meta.ts';
import { keyComparator, type KeyComparator } from '../spec/key-comparator.ts';
import { fieldsByName, trimmedPrimaryKeys, type TableSchema } from '../spec/table-schema.ts';
import type { InternalRow, RowType } from '../spec/types.ts';
import type { CommitMessage } from '../spec/commit-message.ts';
import { MinHeap } from './sort-merge-reader.ts';

/** A file of one writer, with its decoded key range. */
export interface ShardFile<F = DataFileMeta> {
  readonly shard: number;
  readonly file: F;
  readonly minKey: InternalRow;
  readonly maxKey: InternalRow;
}

/**
 * The clusters of files of one bucket worth reading: files sorted by min key and joined while their
 * ranges overlap (a file whose min key is ≤ the largest max key so far); clusters whose files
 * all come from one shard are left out, since keys repeated within a shard are not collisions.
 */
export function overlappingClusters<F>(files: readonly ShardFile<F>[], compare: KeyComparator): ShardFile<F>[][] {
  const sorted = [...files].sort((a, b) => compare(a.minKey, b.minKey));
  const clusters: ShardFile<F>[][] = [];
  // The cluster being joined is sorted[start, i), kept only if two of its files are of different shards
  // (a load's files mostly overlap nothing: no array is made for a cluster that is left out).
  let start = 0;
  let mixed = false;
  let max: InternalRow | undefined;
  for (let i = 0; i < sorted.length; i++) {
    const f = sorted[i] as ShardFile<F>;
    if (max !== undefined && compare(f.minKey, max) > 0) {
      if (mixed) clusters.push(sorted.slice(start, i));
      start = i;
      mixed = false;
      max = undefined;
    }
    if (f.shard !== (sorted[start] as ShardFile<F>).shard) mixed = true;
    if (max === undefined || compare(f.maxKey, max) > 0) max = f.maxKey;
  }
  if (mixed) clusters.push(sorted.slice(start));
  return clusters;
}

export interface SharedKeysOptions {
  readonly store: ObjectStore;
  readonly tablePath: string;
  readonly schema: TableSchema;
  /** `<partition path>bucket-N/` of a message's files, relative to the table. */
  readonly bucketDir: (partition: Uint8Array, bucket: number) => string;
}

/**
 * Keys present in more than one of `shards` (each the messages of one writer). 0 for an append
 * table: it has no keys.
 */
export async function countSharedKeys(o: SharedKeysOptions, shards: readonly (readonly CommitMessage[])[]): Promise<number> {
  const primaryKeys = trimmedPrimaryKeys(o.schema);
  if (primaryKeys.length === 0) return 0;
  const keyTypes = fieldsByName(o.schema, primaryKeys).map((f) => f.type);
  const compare = keyComparator(keyTypes);
  const keyRowType: RowType = { fields: keyValueRowType({ fields: o.schema.fields }, primaryKeys).fields.slice(0, primaryKeys.length) };
  // Per partition (its key), per bucket: no (partition, bucket) string is made per message.
  const partitions = new Map<string, Map<number, { dir: string; files: ShardFile[] }>>();
  shards.forEach((messages, shard) => {
    for (const m of messages) {
      const partition = partitionKey(m.partition);
      let byBucket = partitions.get(partition);
      if (byBucket === undefined) partitions.set(partition, (byBucket = new Map()));
      let bucket = byBucket.get(m.bucket);
      if (bucket === undefined) byBucket.set(m.bucket, (bucket = { dir: o.bucketDir(m.partition, m.bucket), files: [] }));
      for (const file of m.dataIncrement.newFiles) {
        bucket.files.push({ shard, file, minKey: decodeBinaryRow(file.minKey, keyTypes), maxKey: decodeBinaryRow(file.maxKey, keyTypes) });
      }
    }
  });
  let count = 0;
  for (const { dir, files } of [...partitions.values()].flatMap((byBucket) => [...byBucket.values()])) {
    for (const cluster of overlappingClusters(files, compare)) {
      count += await countInCluster(cluster, compare, (f) => keyRows(o.store, `${o.tablePath}/${dir}${f.fileName}`, f, keyRowType));
    }
  }
  return count;
}

interface Cursor {
  readonly shard: number;
  readonly rows: AsyncIterator<InternalRow>;
  current: InternalRow;
}

/**
 * Merges the cluster's sorted key streams; counts the keys that come from two shards or more. A
 * file is opened only once the merge reaches its min key (the cluster is sorted by min key), so
 * only the files whose ranges hold the current key are open at a time.
 */
async function countInCluster(
  cluster: readonly ShardFile[],
  compare: KeyComparator,
  open: (file: DataFileMeta) => AsyncIterable<InternalRow>,
): Promise<number> {
  const heap = new MinHeap<Cursor>((a, b) => compare(a.current, b.current));
  let pending = 0;
  const openReached = async (): Promise<void> => {
    for (let next = cluster[pending]; next !== undefined; next = cluster[pending]) {
      const top = heap.peek();
      if (top !== undefined && compare(next.minKey, top.current) > 0) return;
      pending++;
      const rows = open(next.file)[Symbol.asyncIterator]();
      const first = await rows.next();
      if (first.done !== true) heap.push({ shard: next.shard, rows, current: first.value });
    }
  };
  let count = 0;
  await openReached();
  for (let top = heap.peek(); top !== undefined; await openReached(), top = heap.peek()) {
    const key = top.current;
    const shards = new Set<number>();
    while (top !== undefined && compare(top.current, key) === 0) {
      shards.add(top.shard);
      const next = await top.rows.next();
      if (next.done === true) heap.pop();
      else {
        top.current = next.value;
        heap.siftDownTop();
      }
      top = heap.peek();
    }
    if (shards.size > 1) count++;
  }
  return count;
}

async function* keyRows(store: ObjectStore, key: string, file: DataFileMeta, rowType: RowType): AsyncGenerator<InternalRow> {
  const reader = await ParquetDataFileReader.open({ size: Number(file.fileSize), read: (offset, length) => store.getRange(key, offset, length) });
  for await (const batch of reader.batches(rowType)) yield* rowsOf(batch);
}

function* rowsOf(batch: ColumnBatch): Generator<InternalRow> {
  for (let i = 0; i < batch.length; i++) yield batch.columns.map((column) => valueAt(column, i));
}
