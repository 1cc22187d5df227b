import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import type { DataType, InternalValue, RowType } from '../../../src/spec/types.ts';
import { compareKeys } from '../../../src/spec/key-comparator.ts';
import { batchFromRows, rowsFromBatch } from '../../../src/format/column-batch.ts';
import { sortedRun } from '../../../src/format/key-value.ts';

const keyTypes: DataType[] = [
  { root: 'BIGINT', nullable: false },
  { root: 'VARCHAR', length: 2147483647, nullable: false },
  { root: 'TIMESTAMP', precision: 9, nullable: false },
];
const table: RowType = {
  fields: [
    { id: 0, name: 'a', type: keyTypes[0] as DataType },
    { id: 1, name: 's', type: keyTypes[1] as DataType },
    { id: 2, name: 't', type: keyTypes[2] as DataType },
    { id: 3, name: 'ver', type: { root: 'INT', nullable: true } },
  ],
};

// Small domains so keys collide; bigints on both sides of ±2^53 exercise both comparator paths.
const bigints = fc.oneof(fc.bigInt({ min: -3n, max: 3n }), fc.constantFrom(2n ** 63n - 1n, -(2n ** 63n), 2n ** 53n, 2n ** 53n + 1n, -(2n ** 53n) - 1n));
const strings = fc.constantFrom('', 'a', 'ab', '\uFFFF', '😀', '\uE000', 'z');
const stamps = fc.record({ epochMillis: fc.integer({ min: -2, max: 2 }), nanoOfMillis: fc.constantFrom(0, 1, 999_999) });
const rowArb = fc.tuple(bigints, strings, stamps, fc.option(fc.integer({ min: 0, max: 3 }), { nil: null }));

test('sortedRun keeps one record per key, in compareKeys order, the greatest (ver, sequence) of each key', () => {
  fc.assert(
    fc.property(fc.array(rowArb, { maxLength: 60 }), fc.boolean(), fc.bigInt({ min: 0n, max: 2n ** 62n }), (rows, bySeqField, first) => {
      // fast-check records have a null prototype; rebuild plain timestamps for deepEqual.
      const input: InternalValue[][] = rows.map(([a, s, t, ver]) => [a, s, { epochMillis: t.epochMillis, nanoOfMillis: t.nanoOfMillis }, ver]);
      const run = sortedRun({
        tableRowType: table,
        trimmedPrimaryKeys: ['a', 's', 't'],
        sequenceFields: bySeqField ? ['ver'] : [],
        batch: batchFromRows(table, input),
        firstSequenceNumber: first,
      });
      const out = rowsFromBatch(run);
      const key = (r: readonly InternalValue[]) => r.slice(0, 3);
      for (let i = 1; i < out.length; i++) assert.ok(compareKeys(key(out[i - 1] ?? []), key(out[i] ?? []), keyTypes) < 0);
      // Expected winner per key: the last arrival among those with the greatest ver (nulls lowest).
      const expected = new Map<number, number>();
      input.forEach((r, i) => {
        const k = input.findIndex((o) => compareKeys(key(o), key(r), keyTypes) === 0);
        const prev = expected.get(k);
        const verOf = (j: number) => (input[j]?.[3] ?? null) as number | null;
        const newer = prev === undefined || !bySeqField || (verOf(i) ?? -1) >= (verOf(prev) ?? -1);
        if (newer) expected.set(k, i);
      });
      assert.equal(out.length, expected.size);
      for (const r of out) {
        const winner = [...expected.values()].find((j) => compareKeys(key(input[j] ?? []), key(r.slice(5)), keyTypes) === 0);
        assert.ok(winner !== undefined);
        assert.equal(r[3], first + BigInt(winner), 'sequence number of the winner');
        assert.deepEqual(r.slice(5), input[winner]);
      }
    }),
    { numRuns: 300 },
  );
});

test('sortedRun on one integer key (the packed numeric sort) keeps the last arrival of each key, keys ascending', () => {
  for (const root of ['INT', 'BIGINT'] as const) {
    const t1: RowType = { fields: [{ id: 0, name: 'k', type: { root, nullable: false } }, { id: 1, name: 'v', type: { root: 'INT', nullable: false } }] };
    const keys = root === 'INT'
      ? fc.integer({ min: -5, max: 5 }).map((k): InternalValue => k)
      : fc.oneof(fc.bigInt({ min: -5n, max: 5n }), fc.constantFrom(2n ** 62n, -(2n ** 62n), 2n ** 53n - 1n)).map((k): InternalValue => k);
    fc.assert(
      fc.property(fc.array(keys, { maxLength: 80 }), (ks) => {
        const input: InternalValue[][] = ks.map((k, i) => [k, i]);
        const run = sortedRun({ tableRowType: t1, trimmedPrimaryKeys: ['k'], batch: batchFromRows(t1, input), firstSequenceNumber: 0n });
        const last = new Map<string, number>();
        input.forEach(([k], i) => last.set(String(k), i));
        const expected = [...last.values()]
          .sort((a, b) => compareKeys([input[a]?.[0] ?? null], [input[b]?.[0] ?? null], [t1.fields[0]?.type as DataType]))
          .map((i) => [input[i]?.[0], BigInt(i), 0, input[i]?.[0], i]);
        assert.deepEqual(rowsFromBatch(run), expected);
      }),
      { numRuns: 200 },
    );
  }
});
