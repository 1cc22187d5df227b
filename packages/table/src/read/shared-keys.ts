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
 *
 * Decoding the key ranges (two BinaryRows per file: 61,070 at 10,000 shards) is the part that
 * grows with the files and reads nothing: a writer's ranges can be decoded ahead, as its messages
 * arrive (writerKeyRanges; the coordinator does it as it verifies each shard's blob), and the count
 * then only sorts and merges. Ranges decoded ahead are used only for the very messages they were
 * decoded from and under the same key types; anything else is decoded here (issue #11).
 */
import type { ObjectStore } from '../io/object-store.ts';
import { valueAt, type ColumnBatch } from '../format/column-batch.ts';
import { keyValueRowType } from '../format/key-value.ts';
import { ParquetDataFileReader } from '../parquet/parquet-reader.ts';
import { decodeBinaryRow, partitionKey } from '../spec/binary-row.ts';
import type { DataFileMeta } from '../spec/data-file-meta.ts';
import { keyComparator, type KeyComparator } from '../spec/key-comparator.ts';
import { fieldsByName, trimmedPrimaryKeys, type TableSchema } from '../spec/table-schema.ts';
import type { DataType, InternalRow, RowType } from '../spec/types.ts';
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
  /** Refuses a writer's messages the count must not take (the table's checkDataFilesOnly); run once per writer's messages. */
  readonly check: (messages: readonly CommitMessage[]) => void;
}

/**
 * One writer's new files with their key ranges, decoded ahead of countSharedKeys (writerKeyRanges).
 * Opaque to callers: they hand it back beside the same messages.
 */
export interface WriterKeyRanges {
  /** The messages decoded: the count uses these ranges only for this very array. */
  readonly messages: readonly CommitMessage[];
  /** The key types decoded with (keyTypesSignature): the count uses them only under the same. */
  readonly keyTypes: string;
  /** Every new file of the messages, in order, with its bucket and decoded key range. */
  readonly files: readonly KeyedFile[];
}

/** A writer's new file, with where it goes and its key range decoded. */
interface KeyedFile {
  readonly partition: Uint8Array;
  /** partitionKey(partition). */
  readonly partitionKey: string;
  readonly bucket: number;
  readonly file: DataFileMeta;
  readonly minKey: InternalRow;
  readonly maxKey: InternalRow;
}

/** The key types of a primary-key table, or undefined for an append table (no keys). */
function keyTypesOf(schema: TableSchema): DataType[] | undefined {
  const primaryKeys = trimmedPrimaryKeys(schema);
  return primaryKeys.length === 0 ? undefined : fieldsByName(schema, primaryKeys).map((f) => f.type);
}

/** Equal for equal key types: what a range decoded ahead is checked against. */
function keyTypesSignature(keyTypes: readonly DataType[]): string {
  return JSON.stringify(keyTypes);
}

/** The messages' new files with their key ranges (checked first: `check`). */
function keyedFiles(messages: readonly CommitMessage[], keyTypes: readonly DataType[], check: SharedKeysOptions['check']): KeyedFile[] {
  check(messages);
  const files: KeyedFile[] = [];
  for (const m of messages) {
    const partition = partitionKey(m.partition);
    for (const file of m.dataIncrement.newFiles) {
      files.push({ partition: m.partition, partitionKey: partition, bucket: m.bucket, file, minKey: decodeBinaryRow(file.minKey, keyTypes), maxKey: decodeBinaryRow(file.maxKey, keyTypes) });
    }
  }
  return files;
}

/**
 * One writer's key ranges (pure), for a later countSharedKeys over the same messages; undefined for
 * an append table. Throws what `check` throws, as the count would.
 */
export function writerKeyRanges(schema: TableSchema, messages: readonly CommitMessage[], check: SharedKeysOptions['check']): WriterKeyRanges | undefined {
  const keyTypes = keyTypesOf(schema);
  if (keyTypes === undefined) return undefined;
  return { messages, keyTypes: keyTypesSignature(keyTypes), files: keyedFiles(messages, keyTypes, check) };
}

/**
 * Keys present in more than one of `shards` (each the messages of one writer). 0 for an append
 * table: it has no keys. `known[i]`: shard i's ranges decoded ahead (writerKeyRanges), used only
 * when decoded from `shards[i]` itself (the same array) under this schema's key types; any other
 * shard's messages are checked (`o.check`, which ranges decoded ahead passed) and decoded here.
 */
export async function countSharedKeys(o: SharedKeysOptions, shards: readonly (readonly CommitMessage[])[], known: readonly (WriterKeyRanges | undefined)[] = []): Promise<number> {
  const keyTypes = keyTypesOf(o.schema);
  if (keyTypes === undefined) {
    for (const messages of shards) o.check(messages);
    return 0;
  }
  const primaryKeys = trimmedPrimaryKeys(o.schema);
  const signature = keyTypesSignature(keyTypes);
  const compare = keyComparator(keyTypes);
  const keyRowType: RowType = { fields: keyValueRowType({ fields: o.schema.fields }, primaryKeys).fields.slice(0, primaryKeys.length) };
  // Per partition (its key), per bucket: no (partition, bucket) string is made per file.
  const partitions = new Map<string, Map<number, { dir: string; files: ShardFile[] }>>();
  shards.forEach((messages, shard) => {
    const ahead = known[shard];
    const files = ahead !== undefined && ahead.messages === messages && ahead.keyTypes === signature ? ahead.files : keyedFiles(messages, keyTypes, o.check);
    for (const f of files) {
      let byBucket = partitions.get(f.partitionKey);
      if (byBucket === undefined) partitions.set(f.partitionKey, (byBucket = new Map()));
      let bucket = byBucket.get(f.bucket);
      if (bucket === undefined) byBucket.set(f.bucket, (bucket = { dir: o.bucketDir(f.partition, f.bucket), files: [] }));
      bucket.files.push({ shard, file: f.file, minKey: f.minKey, maxKey: f.maxKey });
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
