// The tournament tree of the bucket merge (format/loser-tree.ts): merging k sorted runs through it
// must give exactly the stable sort of all their items by (value, run index), for any k (0, 1,
// powers of two and not), empty runs, runs ending at different times, and many equal values
// across runs (ties must come out in run order: the bucket merge keeps the last record of a key).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { LoserTree } from '../../../src/format/loser-tree.ts';

interface Head {
  readonly run: number;
  at: number;
}

/** Merges `runs` through a LoserTree; returns (value, run) in output order and the comparisons made. */
function merge(runs: readonly (readonly number[])[]): { out: [number, number][]; comparisons: number } {
  let comparisons = 0;
  const compare = (a: Head, b: Head): number => {
    comparisons++;
    return (runs[a.run] as number[])[a.at]! - (runs[b.run] as number[])[b.at]!;
  };
  const tree = new LoserTree<Head>(
    runs.map((r, run) => (r.length === 0 ? undefined : { run, at: 0 })),
    compare,
  );
  comparisons = 0;
  const out: [number, number][] = [];
  for (let top = tree.peek(); top !== undefined; top = tree.peek()) {
    const run = runs[top.run] as number[];
    out.push([run[top.at]!, top.run]);
    top.at += 1;
    tree.replaceTop(top.at < run.length ? top : undefined);
  }
  return { out, comparisons };
}

function expected(runs: readonly (readonly number[])[]): [number, number][] {
  const all = runs.flatMap((r, run) => r.map((v, i): [number, number, number] => [v, run, i]));
  all.sort((a, b) => a[0] - b[0] || a[1] - b[1] || a[2] - b[2]);
  return all.map(([v, run]) => [v, run]);
}

/** Fails at the first difference (a deep diff of thousands of items takes minutes and gigabytes). */
function assertSameOrder(actual: [number, number][], wanted: [number, number][], what: string): void {
  const at = wanted.findIndex((w, i) => actual[i]?.[0] !== w[0] || actual[i]?.[1] !== w[1]);
  assert.equal(at, -1, `${what}: item ${at} is ${JSON.stringify(actual[at])}, expected ${JSON.stringify(wanted[at])}`);
  assert.equal(actual.length, wanted.length, `${what}: ${actual.length} items, expected ${wanted.length}`);
}

const sortedRun = fc.array(fc.integer({ min: -5, max: 5 }), { maxLength: 12 }).map((a) => a.sort((x, y) => x - y));

test('the merge of any runs is the stable sort by (value, run index)', () => {
  fc.assert(
    fc.property(fc.array(sortedRun, { maxLength: 40 }), (runs) => {
      assertSameOrder(merge(runs).out, expected(runs), JSON.stringify(runs));
    }),
    { numRuns: 2000 },
  );
});

test('edge shapes: no run, one run, only empty runs, one long run among empty ones, equal values everywhere', () => {
  for (const runs of [[], [[1, 2, 3]], [[], [], []], [[], [], [4, 4, 9], []], Array.from({ length: 7 }, () => [0, 0, 0])]) {
    assertSameOrder(merge(runs).out, expected(runs), JSON.stringify(runs));
  }
  const tree = new LoserTree<number>([], (a, b) => a - b);
  assert.equal(tree.peek(), undefined);
  tree.replaceTop(undefined); // nothing to replace: no throw
  assert.equal(tree.peek(), undefined);
});

test('each advance costs at most ⌈log2 k⌉ comparisons', () => {
  for (const k of [2, 3, 5, 8, 1000, 5000]) {
    const runs = Array.from({ length: k }, (_, r) => Array.from({ length: 4 }, (_, i) => (r * 7919 + i * 104729) % 10007).sort((a, b) => a - b));
    const { out, comparisons } = merge(runs);
    assertSameOrder(out, expected(runs), `k=${k}`);
    assert.ok(comparisons <= out.length * Math.ceil(Math.log2(k)), `k=${k}: ${comparisons} comparisons for ${out.length} items`);
  }
});
