/**
 * Which files of one (partition, bucket) a compaction rewrites, and into what: pure decisions on
 * plain file descriptions, tested from case tables. The rewrite itself is write/compact-bucket.ts.
 *
 * Primary-key tables (Paimon's MergeTreeCompactManager with UniversalCompaction):
 *   sorted runs, newest first: each level-0 file is a run (by max sequence number descending, then
 *   min sequence number, then name), then each non-empty level 1 … max as one run
 *   full compaction:  every run to the top level (num-levels - 1), unless the bucket already is one
 *                     run at the top level (CompactStrategy.pickFullCompaction)
 *   otherwise:        size amplification  (runs ≥ num-sorted-run.compaction-trigger and the newer runs'
 *                                          bytes × 100 > compaction.max-size-amplification-percent ×
 *                                          the oldest run's bytes): every run to the top level
 *                     size ratio          (runs ≥ trigger): the newest runs while each next run is at
 *                                          most (100 + compaction.size-ratio)% of the candidates so far
 *                     file number         (runs > trigger): the newest runs - trigger + 1 runs, grown as
 *                                          by size ratio
 *                     the output level is the next untouched run's level - 1, never 0 (the candidates
 *                     then take in runs up to the first non-zero level); all runs go to the top level
 *   deletes (retractions) are dropped only when nothing older stays below the output: the output
 *   level is not 0 and at least the highest non-empty level (MergeTreeCompactManager.triggerCompaction).
 *
 * Append tables (Paimon's BucketedAppendCompactManager; per partition for bucket -1): files by min
 * sequence number;
 *   full compaction:  the leading files at or above target-file-size are left; the rest is
 *                     rewritten when it holds at least 3 files and more small files than big ones
 *   otherwise:        a window over the files, shifted while its bytes reach target-file-size, until
 *                     it holds compaction.min.file-num files (default 5)
 *
 * Not reproduced: Paimon's upgrade of a lone file to the output level without rewriting it (every
 * picked file is rewritten, which is correct and costs a read), its periodic and off-peak full
 * compactions, and the unaware-bucket coordinator's bin packing across the partition (the bucketed
 * rule is applied per partition instead).
 */
import { errorFrom } from '@tributary/errors';
import { tableErrors } from '../errors.ts';
import { parseMemorySize } from './manifest-merge.ts';

/** The fields of a live data file the planning looks at (a subset of DataFileMeta). */
export interface CompactFile {
  readonly fileName: string;
  readonly level: number;
  readonly fileSize: bigint | number;
  readonly minSequenceNumber: bigint | number;
  readonly maxSequenceNumber: bigint | number;
}

export interface UniversalOptions {
  /** `num-sorted-run.compaction-trigger` (default 5). */
  readonly runTrigger: number;
  /** `compaction.max-size-amplification-percent` (default 200). */
  readonly maxSizeAmpPercent: number;
  /** `compaction.size-ratio` (default 1). */
  readonly sizeRatio: number;
  /** `num-levels` (default runTrigger + 1). */
  readonly numLevels: number;
}

export interface AppendOptions {
  /** `target-file-size` (default 256 mb for append tables). */
  readonly targetFileSize: number;
  /** `compaction.min.file-num` (default 5). */
  readonly minFileNum: number;
}

/** What a compaction does to one bucket: rewrite `files` into `outputLevel`. */
export interface CompactUnit<F extends CompactFile = CompactFile> {
  /** The input files, newest run first (primary key) or by sequence number (append). */
  readonly files: readonly F[];
  readonly outputLevel: number;
  /** Retractions are left out of the output (primary key only; always false for append). */
  readonly dropDelete: boolean;
}

/** A sorted run: its level and files. */
interface Run<F extends CompactFile> {
  readonly level: number;
  readonly files: readonly F[];
  readonly size: bigint;
}

/** The universal compaction options of a primary-key table, with Paimon's defaults. */
export function universalOptions(options: Readonly<Record<string, string>>): UniversalOptions {
  const runTrigger = positiveInt(options, 'num-sorted-run.compaction-trigger', 5);
  return {
    runTrigger,
    maxSizeAmpPercent: positiveInt(options, 'compaction.max-size-amplification-percent', 200),
    sizeRatio: nonNegativeInt(options, 'compaction.size-ratio', 1),
    numLevels: positiveInt(options, 'num-levels', runTrigger + 1),
  };
}

/** The append compaction options of an append table, with Paimon's defaults. */
export function appendOptions(options: Readonly<Record<string, string>>): AppendOptions {
  const target = options['target-file-size'];
  return {
    targetFileSize: target === undefined ? 256 * 1024 * 1024 : parseMemorySize(target),
    minFileNum: positiveInt(options, 'compaction.min.file-num', 5),
  };
}

/** The sorted runs of a bucket, newest first (Levels.levelSortedRuns). */
export function sortedRuns<F extends CompactFile>(files: readonly F[]): Run<F>[] {
  const level0 = files.filter((f) => f.level === 0).sort(level0Order);
  const runs: Run<F>[] = level0.map((f) => ({ level: 0, files: [f], size: BigInt(f.fileSize) }));
  const levels = [...new Set(files.filter((f) => f.level > 0).map((f) => f.level))].sort((a, b) => a - b);
  for (const level of levels) {
    const inLevel = files.filter((f) => f.level === level);
    runs.push({ level, files: inLevel, size: inLevel.reduce((n, f) => n + BigInt(f.fileSize), 0n) });
  }
  return runs;
}

function level0Order(a: CompactFile, b: CompactFile): number {
  const maxA = BigInt(a.maxSequenceNumber);
  const maxB = BigInt(b.maxSequenceNumber);
  if (maxA !== maxB) return maxA > maxB ? -1 : 1;
  const minA = BigInt(a.minSequenceNumber);
  const minB = BigInt(b.minSequenceNumber);
  if (minA !== minB) return minA < minB ? -1 : 1;
  return a.fileName < b.fileName ? -1 : a.fileName > b.fileName ? 1 : 0;
}

/**
 * The compaction of one primary-key bucket, or undefined when it needs none. The number of levels
 * grows to hold a file found at a higher level (as Paimon's Levels does).
 */
export function pickPrimaryKeyCompaction<F extends CompactFile>(files: readonly F[], options: UniversalOptions, full: boolean): CompactUnit<F> | undefined {
  const numLevels = files.reduce((n, f) => Math.max(n, f.level + 1), options.numLevels);
  const maxLevel = numLevels - 1;
  const runs = sortedRuns(files);
  const picked = full ? pickFull(runs, maxLevel) : pickUniversal(runs, maxLevel, options);
  if (picked === undefined) return undefined;
  const inputs = picked.runs.flatMap((r) => r.files);
  if (inputs.length === 0) return undefined;
  // A lone file already at the output level needs nothing (MergeTreeCompactManager's filter).
  if (!full && inputs.length === 1 && inputs[0]?.level === picked.outputLevel) return undefined;
  const highest = nonEmptyHighestLevel(files);
  return { files: inputs, outputLevel: picked.outputLevel, dropDelete: picked.outputLevel !== 0 && picked.outputLevel >= highest };
}

interface Picked<F extends CompactFile> {
  readonly runs: readonly Run<F>[];
  readonly outputLevel: number;
}

function pickFull<F extends CompactFile>(runs: readonly Run<F>[], maxLevel: number): Picked<F> | undefined {
  if (runs.length === 0) return undefined;
  if (runs.length === 1 && runs[0]?.level === maxLevel) return undefined;
  return { runs, outputLevel: maxLevel };
}

function pickUniversal<F extends CompactFile>(runs: readonly Run<F>[], maxLevel: number, o: UniversalOptions): Picked<F> | undefined {
  if (runs.length < o.runTrigger) return undefined;
  // 1. size amplification
  const newer = runs.slice(0, -1).reduce((n, r) => n + r.size, 0n);
  const oldest = runs[runs.length - 1]?.size ?? 0n;
  if (newer * 100n > BigInt(o.maxSizeAmpPercent) * oldest) return { runs, outputLevel: maxLevel };
  // 2. size ratio
  const byRatio = pickForSizeRatio(runs, maxLevel, o, 1);
  if (byRatio !== undefined) return byRatio;
  // 3. number of runs
  if (runs.length > o.runTrigger) return pickForSizeRatio(runs, maxLevel, o, runs.length - o.runTrigger + 1);
  return undefined;
}

function pickForSizeRatio<F extends CompactFile>(runs: readonly Run<F>[], maxLevel: number, o: UniversalOptions, count: number): Picked<F> | undefined {
  let candidateCount = count;
  let candidateSize = runs.slice(0, candidateCount).reduce((n, r) => n + r.size, 0n);
  let triggered = candidateCount > 1;
  for (let i = candidateCount; i < runs.length; i++) {
    const next = runs[i] as Run<F>;
    // candidateSize × (100 + ratio) / 100 < next, in integers.
    if (candidateSize * BigInt(100 + o.sizeRatio) < next.size * 100n) {
      if (!triggered || next.level > 1) break;
    }
    candidateSize += next.size;
    candidateCount++;
    triggered = true;
  }
  return triggered ? createUnit(runs, maxLevel, candidateCount) : undefined;
}

function createUnit<F extends CompactFile>(runs: readonly Run<F>[], maxLevel: number, count: number): Picked<F> {
  let runCount = count;
  let outputLevel = runCount === runs.length ? maxLevel : Math.max(0, (runs[runCount]?.level ?? 1) - 1);
  if (outputLevel === 0) {
    // Never output level 0: take in runs up to the first non-zero level.
    for (let i = runCount; i < runs.length; i++) {
      const next = runs[i] as Run<F>;
      runCount++;
      if (next.level !== 0) {
        outputLevel = next.level;
        break;
      }
    }
  }
  if (runCount === runs.length) outputLevel = maxLevel;
  return { runs: runs.slice(0, runCount), outputLevel };
}

/** Levels.nonEmptyHighestLevel: the highest level holding a file, 0 for level 0 only, -1 for none. */
function nonEmptyHighestLevel(files: readonly CompactFile[]): number {
  return files.reduce((max, f) => Math.max(max, f.level), -1);
}

const FULL_COMPACT_MIN_FILES = 3;

/** The compaction of one append bucket (or, for bucket -1, partition), or undefined when it needs none. */
export function pickAppendCompaction<F extends CompactFile>(files: readonly F[], options: AppendOptions, full: boolean): CompactUnit<F> | undefined {
  const bySequence = [...files].sort((a, b) => {
    const x = BigInt(a.minSequenceNumber);
    const y = BigInt(b.minSequenceNumber);
    return x < y ? -1 : x > y ? 1 : a.fileName < b.fileName ? -1 : a.fileName > b.fileName ? 1 : 0;
  });
  const target = BigInt(options.targetFileSize);
  const picked = full ? pickAppendFull(bySequence, target) : pickAppendWindow(bySequence, target, options.minFileNum);
  return picked === undefined ? undefined : { files: picked, outputLevel: 0, dropDelete: false };
}

function pickAppendFull<F extends CompactFile>(files: readonly F[], target: bigint): F[] | undefined {
  if (files.length < FULL_COMPACT_MIN_FILES) return undefined;
  let start = 0;
  while (start < files.length && BigInt((files[start] as F).fileSize) >= target) start++;
  const rest = files.slice(start);
  const big = rest.filter((f) => BigInt(f.fileSize) >= target).length;
  const small = rest.length - big;
  return small > big && rest.length >= FULL_COMPACT_MIN_FILES ? rest : undefined;
}

function pickAppendWindow<F extends CompactFile>(files: readonly F[], target: bigint, minFileNum: number): F[] | undefined {
  const window: F[] = [];
  let bytes = 0n;
  for (const file of files) {
    window.push(file);
    bytes += BigInt(file.fileSize);
    if (window.length >= minFileNum) return window;
    if (bytes >= target) bytes -= BigInt((window.shift() as F).fileSize);
  }
  return undefined;
}

function positiveInt(options: Readonly<Record<string, string>>, key: string, fallback: number): number {
  const n = nonNegativeInt(options, key, fallback);
  if (n < 1) throw errorFrom(tableErrors, 'TABLE_OPTION_INVALID', `${key} = '${options[key] ?? ''}' must be at least 1`, { option: key });
  return n;
}

function nonNegativeInt(options: Readonly<Record<string, string>>, key: string, fallback: number): number {
  const text = options[key];
  if (text === undefined) return fallback;
  const n = Number(text.trim());
  if (!Number.isSafeInteger(n) || n < 0) {
    throw errorFrom(tableErrors, 'TABLE_OPTION_INVALID', `${key} = '${text}' is not a non-negative integer`, { option: key });
  }
  return n;
}
