import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isTributaryError } from '@tributary/errors';
import {
  appendOptions,
  pickAppendCompaction,
  pickPrimaryKeyCompaction,
  sortedRuns,
  universalOptions,
  type CompactFile,
} from '../../../src/write/compact-plan.ts';

/** Files named by their place; `seq` is both min and max sequence number unless a range is given. */
let counter = 0;
function file(level: number, size: number, seq: number | [number, number] = counter++, name?: string): CompactFile {
  const [min, max] = typeof seq === 'number' ? [seq, seq] : seq;
  return { fileName: name ?? `f-${level}-${size}-${min}`, level, fileSize: BigInt(size), minSequenceNumber: BigInt(min), maxSequenceNumber: BigInt(max) };
}
/** Level-0 files of these sizes, newest first (descending sequence numbers). */
function level0(...sizes: number[]): CompactFile[] {
  return sizes.map((size, i) => file(0, size, 1000 - i, `l0-${i}`));
}
const names = (files: readonly CompactFile[] | undefined) => files?.map((f) => f.fileName);
const defaults = universalOptions({});

test('universal options: Paimon defaults, and the options read', () => {
  assert.deepEqual(defaults, { runTrigger: 5, maxSizeAmpPercent: 200, sizeRatio: 1, numLevels: 6 });
  assert.deepEqual(universalOptions({ 'num-sorted-run.compaction-trigger': '3', 'compaction.size-ratio': '0', 'compaction.max-size-amplification-percent': '50' }), {
    runTrigger: 3,
    maxSizeAmpPercent: 50,
    sizeRatio: 0,
    numLevels: 4,
  });
  assert.throws(() => universalOptions({ 'num-levels': 'x' }), (e: unknown) => isTributaryError(e) && e.code === 'TABLE_OPTION_INVALID');
  assert.throws(() => universalOptions({ 'num-sorted-run.compaction-trigger': '0' }), (e: unknown) => isTributaryError(e) && e.code === 'TABLE_OPTION_INVALID');
});

test('sorted runs: each level-0 file by max sequence descending, then one run per non-empty level', () => {
  const a = file(0, 1, [5, 9], 'a');
  const b = file(0, 1, [1, 12], 'b');
  const c = file(0, 1, [3, 9], 'c');
  const l2x = file(2, 10, 1, 'x');
  const l2y = file(2, 20, 2, 'y');
  const l5 = file(5, 7, 0, 'z');
  const runs = sortedRuns([l5, a, l2x, b, c, l2y]);
  assert.deepEqual(runs.map((r) => [r.level, names(r.files), r.size]), [
    [0, ['b'], 1n],
    [0, ['c'], 1n],
    [0, ['a'], 1n],
    [2, ['x', 'y'], 30n],
    [5, ['z'], 7n],
  ]);
});

test('universal: fewer runs than the trigger compacts nothing', () => {
  assert.equal(pickPrimaryKeyCompaction(level0(1, 1, 1, 1), defaults, false), undefined);
});

test('universal: size amplification takes every run to the top level and drops deletes', () => {
  // 4 newer bytes × 100 > 200 × 1 byte of the oldest run.
  const files = level0(1, 1, 1, 1, 1);
  const unit = pickPrimaryKeyCompaction(files, defaults, false);
  assert.deepEqual(names(unit?.files), names(files));
  assert.equal(unit?.outputLevel, 5);
  assert.equal(unit?.dropDelete, true);
});

test('universal: size ratio takes the newest runs up to a much larger one, output one level above it, deletes kept', () => {
  // amplification: 4 × 100 ≤ 200 × 100; ratio: 1, 1, 1, 1 absorbed, then 4 × 1.01 < 100 at level 5 stops.
  const small = level0(1, 1, 1, 1);
  const top = file(5, 100, 0, 'top');
  const unit = pickPrimaryKeyCompaction([...small, top], defaults, false);
  assert.deepEqual(names(unit?.files), names(small));
  assert.equal(unit?.outputLevel, 4);
  assert.equal(unit?.dropDelete, false);
});

test('universal: the output drops deletes when it is at least the highest non-empty level', () => {
  // Runs: L0 ×4 (1 byte), L3 (100 bytes): ratio stops at L3, output level 2 < 3: deletes kept.
  const small = level0(1, 1, 1, 1);
  const kept = pickPrimaryKeyCompaction([...small, file(3, 100, 0, 'l3')], defaults, false);
  assert.equal(kept?.outputLevel, 2);
  assert.equal(kept?.dropDelete, false);
  // Ratio absorbs everything (sizes grow slowly): all runs, top level, deletes dropped.
  const all = pickPrimaryKeyCompaction([...level0(1, 1, 1, 1), file(3, 4, 0, 'l3')], { ...defaults, maxSizeAmpPercent: 1000 }, false);
  assert.equal(all?.outputLevel, 5);
  assert.equal(all?.files.length, 5);
  assert.equal(all?.dropDelete, true);
});

test('universal: too many runs compacts the newest (runs - trigger + 1), then absorbs level-0 runs', () => {
  // Sizes 1, 3, 9, 27, 81 grow too fast for the size ratio; 6 runs > 5: start with 2 candidates,
  // absorb the other level-0 runs once triggered, stop at the level-5 run.
  const small = level0(1, 3, 9, 27, 81);
  const unit = pickPrimaryKeyCompaction([...small, file(5, 10_000, 0, 'top')], defaults, false);
  assert.deepEqual(names(unit?.files), names(small));
  assert.equal(unit?.outputLevel, 4);
  assert.equal(unit?.dropDelete, false);
  // Exactly the trigger (5 runs) with the same growth: nothing.
  assert.equal(pickPrimaryKeyCompaction([...level0(1, 3, 9, 27), file(5, 10_000, 0, 'top')], defaults, false), undefined);
});

test('universal: a size ratio of 0 is strict', () => {
  // 1 × 100 < 2 × 100: the second run is larger than the first: no ratio pick with 5 runs.
  const files = [...level0(1, 2, 4, 8), file(5, 1000, 0, 'top')];
  assert.equal(pickPrimaryKeyCompaction(files, { ...defaults, sizeRatio: 0 }, false), undefined);
});

test('full compaction: every run to the top level, unless the bucket is one top-level run', () => {
  assert.equal(pickPrimaryKeyCompaction([], defaults, true), undefined);
  assert.equal(pickPrimaryKeyCompaction([file(5, 10, 0, 'a'), file(5, 10, 1, 'b')], defaults, true), undefined);
  const one = pickPrimaryKeyCompaction([file(0, 1, 3, 'new')], defaults, true);
  assert.deepEqual(names(one?.files), ['new']);
  assert.equal(one?.outputLevel, 5);
  assert.equal(one?.dropDelete, true);
  const mixed = pickPrimaryKeyCompaction([file(5, 10, 0, 'old'), file(0, 1, 3, 'new'), file(2, 5, 1, 'mid')], defaults, true);
  assert.deepEqual(names(mixed?.files), ['new', 'mid', 'old']);
  assert.equal(mixed?.outputLevel, 5);
  // A bucket at level 2 only (written with fewer levels) is not at the top: it moves up.
  assert.equal(pickPrimaryKeyCompaction([file(2, 5, 1, 'mid')], defaults, true)?.outputLevel, 5);
});

test('full compaction: a file above num-levels - 1 raises the top level (as Paimon Levels)', () => {
  const unit = pickPrimaryKeyCompaction([file(7, 10, 0, 'deep'), file(0, 1, 3, 'new')], defaults, true);
  assert.equal(unit?.outputLevel, 7);
  assert.equal(pickPrimaryKeyCompaction([file(7, 10, 0, 'deep')], defaults, true), undefined);
});

test('append options: Paimon defaults', () => {
  assert.deepEqual(appendOptions({}), { targetFileSize: 256 * 1024 * 1024, minFileNum: 5 });
  assert.deepEqual(appendOptions({ 'target-file-size': '1 kb', 'compaction.min.file-num': '3' }), { targetFileSize: 1024, minFileNum: 3 });
});

const append = (sizes: number[]) => sizes.map((size, i) => file(0, size, [i * 10, i * 10 + 9], `a${i}`));

test('append: a window of compaction.min.file-num files, shifted past files that fill the target', () => {
  const o = { targetFileSize: 100, minFileNum: 5 };
  assert.deepEqual(names(pickAppendCompaction(append([10, 10, 10, 10, 10]), o, false)?.files), ['a0', 'a1', 'a2', 'a3', 'a4']);
  assert.equal(pickAppendCompaction(append([10, 200, 10, 10, 10, 10]), o, false), undefined);
  assert.deepEqual(names(pickAppendCompaction(append([10, 200, 10, 10, 10, 10, 10]), o, false)?.files), ['a2', 'a3', 'a4', 'a5', 'a6']);
  // Files come in any order; the window follows sequence numbers.
  const shuffled = append([10, 10, 10, 10, 10]).reverse();
  assert.deepEqual(names(pickAppendCompaction(shuffled, o, false)?.files), ['a0', 'a1', 'a2', 'a3', 'a4']);
  const unit = pickAppendCompaction(append([10, 10, 10, 10, 10]), o, false);
  assert.equal(unit?.outputLevel, 0);
  assert.equal(unit?.dropDelete, false);
});

test('append full compaction: leading big files stay; the rest when ≥ 3 files and more small than big', () => {
  const o = { targetFileSize: 100, minFileNum: 5 };
  assert.deepEqual(names(pickAppendCompaction(append([200, 10, 300, 10, 10]), o, true)?.files), ['a1', 'a2', 'a3', 'a4']);
  assert.equal(pickAppendCompaction(append([10, 10]), o, true), undefined);
  assert.equal(pickAppendCompaction(append([200, 10, 300]), o, true), undefined);
  assert.equal(pickAppendCompaction(append([10, 300, 400, 10]), o, true), undefined);
  assert.deepEqual(names(pickAppendCompaction(append([10, 10, 10]), o, true)?.files), ['a0', 'a1', 'a2']);
});
