/**
 * Decides how the files of one primary-key bucket are read in a batch scan, as Paimon's
 * org.apache.paimon.table.source.MergeTreeSplitGenerator.splitForBatch does:
 *
 * - every file above level 0, none with retract rows, all on one level: the files are already
 *   disjoint and final, so each is read raw (no merge);
 * - otherwise the files are cut into sections (IntervalPartition); a section that is a single file
 *   without retract rows is read raw, every other section is merged.
 *
 * Reading raw ignores `_VALUE_KIND`. That is why a writer must record an exact `_DELETE_ROW_COUNT`
 * (null counts as 0 for old files, as in Java). Pure.
 */
import { intervalPartition, type KeyCompare, type KeyRange, type Section } from './interval-partition.ts';

export interface SplitFile<K> extends KeyRange<K> {
  readonly level: number;
  readonly deleteRowCount: bigint | null;
}

export type ReadSection<F> =
  | { readonly kind: 'raw'; readonly file: F }
  | { readonly kind: 'merge'; readonly runs: Section<F> };

function withoutDeleteRow<K>(file: SplitFile<K>): boolean {
  return file.deleteRowCount === null || file.deleteRowCount === 0n;
}

export function splitForBatch<F extends SplitFile<K>, K>(files: readonly F[], compare: KeyCompare<K>): ReadSection<F>[] {
  const levels = new Set(files.map((f) => f.level));
  const rawConvertible = files.every((f) => f.level !== 0 && withoutDeleteRow(f));
  if (rawConvertible && levels.size === 1) {
    return [...files]
      .sort((a, b) => compare(a.minKey, b.minKey))
      .map((file) => ({ kind: 'raw', file }));
  }
  return intervalPartition(files, compare).map((runs): ReadSection<F> => {
    const only = runs.length === 1 && runs[0]?.length === 1 ? runs[0][0] : undefined;
    return only !== undefined && withoutDeleteRow(only) ? { kind: 'raw', file: only } : { kind: 'merge', runs };
  });
}
