// Property tests of the merge-on-read core against naive models (fast-check).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { intervalPartition } from '../../../src/read/interval-partition.ts';
import { mergeDeduplicate, type KeyValue } from '../../../src/read/sort-merge-reader.ts';
import { isRetract } from '../../../src/format/key-value.ts';

const compare = (a: number, b: number): number => a - b;

/** Runs of records: each run sorted by key with unique keys; sequence numbers unique overall. */
const runsArbitrary = fc
  .array(fc.array(fc.record({ key: fc.integer({ min: 0, max: 30 }), kind: fc.integer({ min: 0, max: 3 }) }), { maxLength: 25 }), { maxLength: 6 })
  .map((runs) => {
    let seq = 0n;
    return runs.map((run) => {
      const byKey = new Map<number, number>();
      for (const r of run) byKey.set(r.key, r.kind);
      return [...byKey.entries()].sort(([a], [b]) => a - b).map(([key, kind]): KeyValue => ({ key: [key], sequenceNumber: seq++, valueKind: kind, value: [key, Number(seq)] }));
    });
  });

async function* from(records: readonly KeyValue[]): AsyncGenerator<KeyValue> {
  for (const r of records) yield r;
}

test('mergeDeduplicate equals "highest sequence number per key, unless it retracts"', async () => {
  await fc.assert(
    fc.asyncProperty(runsArbitrary, async (runs) => {
      const latest = new Map<number, KeyValue>();
      for (const r of runs.flat()) {
        const key = r.key[0] as number;
        const seen = latest.get(key);
        if (seen === undefined || r.sequenceNumber > seen.sequenceNumber) latest.set(key, r);
      }
      const want = [...latest.values()].filter((r) => !isRetract(r.valueKind)).sort((a, b) => (a.key[0] as number) - (b.key[0] as number)).map((r) => r.value);
      const got: unknown[] = [];
      for await (const r of mergeDeduplicate(runs.map(from), { compareKey: (a, b) => (a[0] as number) - (b[0] as number) })) got.push(r.value);
      assert.deepEqual(got, want);
    }),
    { numRuns: 300 },
  );
});

test('intervalPartition: every file once, runs sorted and disjoint, sections disjoint and ordered', () => {
  const files = fc.array(fc.tuple(fc.integer({ min: 0, max: 100 }), fc.integer({ min: 0, max: 20 })), { maxLength: 30 })
    .map((xs) => xs.map(([min, width], i) => ({ name: i, minKey: min, maxKey: min + width })));
  fc.assert(
    fc.property(files, (input) => {
      const sections = intervalPartition(input, compare);
      assert.deepEqual(sections.flat(2).map((f) => f.name).sort(compare), input.map((f) => f.name).sort(compare));
      let previousMax = -Infinity;
      for (const section of sections) {
        const all = section.flat();
        const min = Math.min(...all.map((f) => f.minKey));
        assert.ok(min > previousMax, 'sections are disjoint and in key order');
        previousMax = Math.max(...all.map((f) => f.maxKey));
        for (const run of section) {
          for (let i = 1; i < run.length; i++) assert.ok((run[i]?.minKey ?? 0) > (run[i - 1]?.maxKey ?? 0), 'a run does not overlap itself');
        }
      }
    }),
    { numRuns: 500 },
  );
});
