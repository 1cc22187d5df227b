/**
 * Groups the files of one bucket into sections of sorted runs, as Paimon's
 * org.apache.paimon.mergetree.compact.IntervalPartition does.
 *
 * A section is a set of files whose key ranges overlap transitively; different sections cover
 * disjoint key ranges, so they can be read one after another. Inside a section the files are
 * packed into sorted runs (files whose ranges do not overlap, in key order), and the merge reader
 * merges the runs of one section with a heap. Pure: the caller supplies the key comparator.
 */

export type KeyCompare<K> = (a: K, b: K) => number;

export interface KeyRange<K> {
  readonly minKey: K;
  readonly maxKey: K;
}

/** A sorted run: files in ascending key order whose ranges do not overlap. */
export type SortedRun<F> = readonly F[];

/** A section: the sorted runs to merge together. */
export type Section<F> = readonly SortedRun<F>[];

/**
 * IntervalPartition.partition(): sort by (minKey, maxKey), cut a new section whenever a file starts
 * after the highest maxKey seen so far in the current section.
 */
export function intervalPartition<F extends KeyRange<K>, K>(
  files: readonly F[],
  compare: KeyCompare<K>,
): Section<F>[] {
  const sorted = [...files].sort((a, b) => compare(a.minKey, b.minKey) || compare(a.maxKey, b.maxKey));
  const sections: Section<F>[] = [];
  let current: F[] = [];
  let bound: K | undefined;
  for (const file of sorted) {
    if (current.length > 0 && bound !== undefined && compare(file.minKey, bound) > 0) {
      sections.push(packSortedRuns(current, compare));
      current = [];
      bound = undefined;
    }
    current.push(file);
    if (bound === undefined || compare(file.maxKey, bound) > 0) bound = file.maxKey;
  }
  if (current.length > 0) sections.push(packSortedRuns(current, compare));
  return sections;
}

/**
 * IntervalPartition.partition(List): greedily append each file (in minKey order) to the run that
 * ends first, if the file starts after that run's end; otherwise open a new run.
 */
function packSortedRuns<F extends KeyRange<K>, K>(files: readonly F[], compare: KeyCompare<K>): Section<F> {
  const runs: F[][] = [];
  for (const file of files) {
    let earliest: F[] | undefined;
    for (const run of runs) {
      if (earliest === undefined || compare(lastOf(run).maxKey, lastOf(earliest).maxKey) < 0) earliest = run;
    }
    if (earliest !== undefined && compare(file.minKey, lastOf(earliest).maxKey) > 0) earliest.push(file);
    else runs.push([file]);
  }
  return runs;
}

function lastOf<F>(run: readonly F[]): F {
  const last = run[run.length - 1];
  if (last === undefined) throw new Error('empty sorted run');
  return last;
}
