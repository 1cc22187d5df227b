/**
 * Merge-on-read for primary-key tables with the `deduplicate` merge engine: a k-way merge of the
 * sorted runs of one section, mirroring Paimon's
 * org.apache.paimon.mergetree.compact.SortMergeReaderWithMinHeap, DeduplicateMergeFunction and
 * DropDeleteReader.
 *
 *   run 0 ─┐
 *   run 1 ─┼─► min-heap by (key, user sequence, _SEQUENCE_NUMBER) ─► last record per key ─► drop -U/-D
 *   run k ─┘
 *
 * Memory is one record per run plus the records of the current key. Pure: no I/O; the runs are
 * async iterables supplied by the caller.
 */
import { isRetract } from '../format/key-value.ts';
import { MinHeap } from '../format/min-heap.ts';
import type { InternalRow } from '../spec/types.ts';

/** One record of a primary-key data file (org.apache.paimon.KeyValue). */
export interface KeyValue {
  readonly key: InternalRow;
  readonly sequenceNumber: bigint;
  readonly valueKind: number;
  /** All table columns, in table order. */
  readonly value: InternalRow;
}

/** How records are ordered: the key comparator and, with `sequence.field`, the user sequence. */
export interface KeyValueOrder {
  readonly compareKey: (a: InternalRow, b: InternalRow) => number;
  /** Compares two records' `sequence.field` values (UserDefinedSeqComparator); absent without one. */
  readonly compareUserSequence?: (a: KeyValue, b: KeyValue) => number;
}

/** The total order of SortMergeReaderWithMinHeap: key, then user sequence, then _SEQUENCE_NUMBER. */
export function compareKeyValues(order: KeyValueOrder, a: KeyValue, b: KeyValue): number {
  const byKey = order.compareKey(a.key, b.key);
  if (byKey !== 0) return byKey;
  const byUser = order.compareUserSequence?.(a, b) ?? 0;
  if (byUser !== 0) return byUser;
  return a.sequenceNumber < b.sequenceNumber ? -1 : a.sequenceNumber > b.sequenceNumber ? 1 : 0;
}

export interface DeduplicateOptions {
  /** `ignore-delete`: retract records are skipped instead of removing the key. */
  readonly ignoreDelete?: boolean;
}

interface HeapEntry {
  readonly iterator: AsyncIterator<KeyValue>;
  current: KeyValue;
}

/**
 * Merges sorted runs and yields, per key, the record that wins under deduplicate, unless that
 * record is a retraction. Each run must be sorted by key with unique keys, as Paimon data files are.
 */
export async function* mergeDeduplicate(
  runs: readonly AsyncIterable<KeyValue>[],
  order: KeyValueOrder,
  options: DeduplicateOptions = {},
): AsyncGenerator<KeyValue> {
  const compare = (a: HeapEntry, b: HeapEntry): number => compareKeyValues(order, a.current, b.current);
  const heap = new MinHeap<HeapEntry>(compare);
  for (const run of runs) {
    const iterator = run[Symbol.asyncIterator]();
    const first = await iterator.next();
    if (first.done !== true) heap.push({ iterator, current: first.value });
  }
  let winner: KeyValue | undefined;
  for (let top = heap.peek(); top !== undefined; top = heap.peek()) {
    const record = top.current;
    if (winner !== undefined && order.compareKey(winner.key, record.key) !== 0) {
      if (!isRetract(winner.valueKind)) yield winner;
      winner = undefined;
    }
    if (!(options.ignoreDelete === true && isRetract(record.valueKind))) winner = record;
    const next = await top.iterator.next();
    if (next.done === true) heap.pop();
    else {
      top.current = next.value;
      heap.siftDownTop();
    }
  }
  if (winner !== undefined && !isRetract(winner.valueKind)) yield winner;
}

export { MinHeap } from '../format/min-heap.ts';
