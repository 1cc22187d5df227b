/**
 * The stored record of each of a few keys of one primary-key bucket in one snapshot (the
 * before-images a changelog needs), by a sort-merge of only the files whose key range holds one of
 * the keys:
 *
 *   bucket's live files ─► keep those with minKey ≤ some key ≤ maxKey (no file opened otherwise)
 *                       ─► merge them as sorted runs (sort-merge-reader.ts: deduplicate, retractions drop the key)
 *                       ─► walk the merged keys beside the sorted keys asked for; stop after the last one
 *
 * Cost: one read of the overlapping files, never of the bucket's other files nor of other buckets.
 * Memory: one row group per overlapping file.
 */
import { decodeBinaryRow } from '../spec/binary-row.ts';
import type { ManifestEntry } from '../spec/manifest-entry.ts';
import { fieldsByName, trimmedPrimaryKeys } from '../spec/table-schema.ts';
import type { InternalRow } from '../spec/types.ts';
import { mergeDeduplicate, type KeyValue } from './sort-merge-reader.ts';
import type { TableRead } from './table-read.ts';

/** A key's stored record: all table columns and its `_SEQUENCE_NUMBER`. */
export interface BeforeImage {
  readonly row: InternalRow;
  readonly sequenceNumber: bigint;
}

export interface BeforeImageLookup {
  /** One entry per key asked for, in the same order: the stored record, or null when the key is absent. */
  readonly images: (BeforeImage | null)[];
  /** The files read (after pruning by key range), for tests and metrics. */
  readonly filesRead: number;
}

/**
 * `keys`: trimmed primary-key values, sorted ascending by the table's key order, each once.
 * `files`: the live files of one (partition, bucket) of the snapshot. `read`: a TableRead of the
 * table (its key order, merge options and file reader).
 */
export async function lookupBeforeImages(
  read: TableRead,
  files: readonly ManifestEntry[],
  keys: readonly InternalRow[],
  options: { readonly ignoreDelete: boolean },
): Promise<BeforeImageLookup> {
  const images: (BeforeImage | null)[] = keys.map(() => null);
  if (keys.length === 0 || files.length === 0) return { images, filesRead: 0 };
  const order = read.keyValueOrder();
  const keyTypes = fieldsByName(read.schema, trimmedPrimaryKeys(read.schema)).map((f) => f.type);
  const overlapping = files.filter((entry) => {
    const min = decodeBinaryRow(entry.file.minKey, keyTypes);
    const max = decodeBinaryRow(entry.file.maxKey, keyTypes);
    const first = lowerBound(keys, min, order.compareKey);
    return first < keys.length && order.compareKey(keys[first] as InternalRow, max) <= 0;
  });
  if (overlapping.length === 0) return { images, filesRead: 0 };
  const merged = mergeDeduplicate(overlapping.map((entry) => read.keyValues(entry)), order, options);
  let next = 0;
  for await (const record of merged) {
    next = advance(keys, next, record, order.compareKey);
    if (next >= keys.length) break;
    if (order.compareKey(keys[next] as InternalRow, record.key) === 0) images[next] = { row: record.value, sequenceNumber: record.sequenceNumber };
  }
  await merged.return(undefined);
  return { images, filesRead: overlapping.length };
}

/** The first index whose key is ≥ `key` (binary search). */
function lowerBound(keys: readonly InternalRow[], key: InternalRow, compare: (a: InternalRow, b: InternalRow) => number): number {
  let lo = 0;
  let hi = keys.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (compare(keys[mid] as InternalRow, key) < 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function advance(keys: readonly InternalRow[], from: number, record: KeyValue, compare: (a: InternalRow, b: InternalRow) => number): number {
  let i = from;
  while (i < keys.length && compare(keys[i] as InternalRow, record.key) < 0) i++;
  return i;
}
