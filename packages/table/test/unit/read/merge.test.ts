import { test } from 'node:test';
import assert from 'node:assert/strict';
import { intervalPartition } from '../../../src/read/interval-partition.ts';
import { splitForBatch } from '../../../src/read/merge-tree-split.ts';
import { mergeDeduplicate, MinHeap, type KeyValue, type KeyValueOrder } from '../../../src/read/sort-merge-reader.ts';
import { RowKind } from '../../../src/format/key-value.ts';
import type { InternalRow } from '../../../src/spec/types.ts';

const num = (a: number, b: number): number => a - b;
const file = (name: string, minKey: number, maxKey: number, level = 0, deleteRowCount: bigint | null = 0n) => ({
  name, minKey, maxKey, level, deleteRowCount,
});
type F = ReturnType<typeof file>;
const names = (sections: readonly (readonly (readonly F[])[])[]) => sections.map((s) => s.map((r) => r.map((f) => f.name)));

test('intervalPartition: sections and sorted runs as in IntervalPartitionTest', () => {
  const cases: { files: F[]; want: string[][][] }[] = [
    { files: [], want: [] },
    { files: [file('a', 0, 9)], want: [[['a']]] },
    // disjoint files are separate sections
    { files: [file('b', 10, 19), file('a', 0, 9)], want: [[['a']], [['b']]] },
    // touching ranges (max == min) overlap: same section, two runs
    { files: [file('a', 0, 10), file('b', 10, 19)], want: [[['a'], ['b']]] },
    // a long file bridges two short ones; the short ones share a run
    { files: [file('long', 0, 30), file('x', 1, 5), file('y', 6, 9)], want: [[['long'], ['x', 'y']]] },
    // a later file starting after the section's bound opens a new section
    { files: [file('a', 0, 5), file('b', 3, 8), file('c', 9, 12)], want: [[['a'], ['b']], [['c']]] },
  ];
  for (const { files, want } of cases) {
    const got = names(intervalPartition<F, number>(files, num)).map((s) => [...s].sort((x, y) => (x[0] ?? '').localeCompare(y[0] ?? '')));
    assert.deepEqual(got, want);
  }
});

test('splitForBatch: raw single-file sections, merged overlaps, raw one-level compacted files', () => {
  const kinds = (files: F[]) => splitForBatch<F, number>(files, num).map((s) => (s.kind === 'raw' ? `raw:${s.file.name}` : `merge:${s.runs.flat().map((f) => f.name).sort().join('+')}`));
  assert.deepEqual(kinds([file('a', 0, 5), file('b', 6, 9)]), ['raw:a', 'raw:b']);
  assert.deepEqual(kinds([file('a', 0, 5), file('b', 3, 9)]), ['merge:a+b']);
  // a lone file with retract rows must be merged so its -D rows are dropped
  assert.deepEqual(kinds([file('a', 0, 5, 0, 2n)]), ['merge:a']);
  // null delete count (old writers) counts as 0
  assert.deepEqual(kinds([file('a', 0, 5, 0, null)]), ['raw:a']);
  // all files on one level >= 1 without deletes: raw
  assert.deepEqual(kinds([file('b', 6, 9, 5), file('a', 0, 5, 5)]), ['raw:a', 'raw:b']);
  // two levels: partitioned normally
  assert.deepEqual(kinds([file('a', 0, 5, 4), file('b', 2, 9, 5)]), ['merge:a+b']);
});

const order: KeyValueOrder = { compareKey: (a, b) => Number(a[0]) - Number(b[0]) };
const kv = (key: number, seq: number, kind: number, v: string): KeyValue => ({
  key: [key], sequenceNumber: BigInt(seq), valueKind: kind, value: [key, v],
});
async function* from(records: KeyValue[]): AsyncGenerator<KeyValue> {
  for (const r of records) yield r;
}
async function collect(it: AsyncIterable<KeyValue>): Promise<InternalRow[]> {
  const out: InternalRow[] = [];
  for await (const r of it) out.push(r.value);
  return out;
}

test('mergeDeduplicate: highest sequence wins, retractions remove the key', async () => {
  const cases: { name: string; runs: KeyValue[][]; want: InternalRow[]; ignoreDelete?: boolean }[] = [
    { name: 'single run passes through', runs: [[kv(1, 0, 0, 'a'), kv(2, 1, 0, 'b')]], want: [[1, 'a'], [2, 'b']] },
    { name: 'update in a later run wins', runs: [[kv(1, 0, 0, 'a'), kv(2, 1, 0, 'b')], [kv(2, 5, 2, 'B')]], want: [[1, 'a'], [2, 'B']] },
    { name: 'older run listed last still loses', runs: [[kv(2, 5, 2, 'B')], [kv(1, 0, 0, 'a'), kv(2, 1, 0, 'b')]], want: [[1, 'a'], [2, 'B']] },
    { name: 'delete removes the key', runs: [[kv(1, 0, 0, 'a'), kv(2, 1, 0, 'b')], [kv(1, 7, RowKind.DELETE, 'a')]], want: [[2, 'b']] },
    { name: '-U alone removes the key', runs: [[kv(1, 0, 0, 'a')], [kv(1, 3, RowKind.UPDATE_BEFORE, 'a')]], want: [] },
    { name: 're-insert after delete', runs: [[kv(1, 0, 0, 'a')], [kv(1, 1, 3, 'a')], [kv(1, 2, 0, 'again')]], want: [[1, 'again']] },
    { name: 'ignore-delete keeps the row', runs: [[kv(1, 0, 0, 'a')], [kv(1, 1, 3, 'a')]], want: [[1, 'a']], ignoreDelete: true },
    { name: 'three runs interleaved', runs: [[kv(1, 0, 0, 'a'), kv(4, 1, 0, 'd')], [kv(2, 2, 0, 'b'), kv(4, 3, 2, 'D')], [kv(3, 4, 0, 'c')]], want: [[1, 'a'], [2, 'b'], [3, 'c'], [4, 'D']] },
    { name: 'empty runs', runs: [[], []], want: [] },
  ];
  for (const c of cases) {
    const got = await collect(mergeDeduplicate(c.runs.map(from), order, { ignoreDelete: c.ignoreDelete ?? false }));
    assert.deepEqual(got, c.want, c.name);
  }
});

test('mergeDeduplicate: sequence.field decides before _SEQUENCE_NUMBER', async () => {
  const withTs = (key: number, seq: number, ts: number, v: string): KeyValue => ({ key: [key], sequenceNumber: BigInt(seq), valueKind: 0, value: [key, v, ts] });
  const userOrder: KeyValueOrder = { ...order, compareUserSequence: (a, b) => Number(a.value[2]) - Number(b.value[2]) };
  const got = await collect(mergeDeduplicate([from([withTs(1, 0, 100, 'newer')]), from([withTs(1, 9, 50, 'older')])], userOrder));
  assert.deepEqual(got, [[1, 'newer', 100]]);
});

test('MinHeap pops in order', () => {
  const heap = new MinHeap<number>(num);
  const input = [5, 3, 9, 1, 1, 8, 0, 7];
  for (const x of input) heap.push(x);
  const out: number[] = [];
  while (heap.size > 0) out.push(heap.pop() as number);
  assert.deepEqual(out, [...input].sort(num));
});
