import assert from 'node:assert/strict';
import { test } from 'node:test';
import { auditKey } from '../../../src/format/changelog-audit.ts';
import { canonicalRow, keyOutcome, netChanges, type ChangelogRules, type KeyedChange } from '../../../src/format/changelog.ts';
import { RowKind } from '../../../src/format/key-value.ts';
import { parseDataType } from '../../../src/spec/data-type-json.ts';
import type { InternalRow } from '../../../src/spec/types.ts';

// (id BIGINT, store STRING, amount DECIMAL(10, 2), etl TIMESTAMP(3), version BIGINT)
const types = ['BIGINT', 'STRING', 'DECIMAL(10, 2)', 'TIMESTAMP(3)', 'BIGINT'].map((t) => parseDataType(t));
const rules: ChangelogRules = { types, ignored: new Set([3]), sequenceFields: [], ignoreDelete: false };
const versioned: ChangelogRules = { ...rules, ignored: new Set(), sequenceFields: [4] };
const ts = (ms: number, nanos = 0) => ({ epochMillis: ms, nanoOfMillis: nanos });
const row = (id: number, store: string, cents: number, etl = 0, version: number | null = null): InternalRow => [BigInt(id), store, BigInt(cents), ts(etl), version === null ? null : BigInt(version)];
const stored = (r: InternalRow) => ({ row: r, sequenceNumber: 7n });
const up = (r: InternalRow): KeyedChange => ({ kind: 'upsert', row: r });
const del = (r: InternalRow): KeyedChange => ({ kind: 'delete', row: r });
const { INSERT: I, UPDATE_BEFORE: UB, UPDATE_AFTER: UA, DELETE: D } = RowKind;
const shape = (o: ReturnType<typeof keyOutcome>) => ({ data: o.data?.kind ?? null, changelog: o.changelog.map((c) => [c.kind, c.sequence]) });

test('keyOutcome: the lookup rule per key', () => {
  const cases: [string, ReturnType<typeof stored> | null, KeyedChange, ChangelogRules, { data: number | null; changelog: (number | string)[][] }][] = [
    ['insert', null, up(row(1, 'A', 1)), rules, { data: I, changelog: [[I, 'new']] }],
    ['update', stored(row(1, 'A', 1)), up(row(1, 'A', 2)), rules, { data: UA, changelog: [[UB, 'before'], [UA, 'new']] }],
    ['no-op', stored(row(1, 'A', 1)), up(row(1, 'A', 1)), rules, { data: null, changelog: [] }],
    ['ignored field only', stored(row(1, 'A', 1, 5)), up(row(1, 'A', 1, 6)), rules, { data: UA, changelog: [] }],
    ['delete', stored(row(1, 'A', 1)), del([1n, null, null, null, null]), rules, { data: D, changelog: [[D, 'before']] }],
    ['delete of an absent key', null, del([1n, null, null, null, null]), rules, { data: null, changelog: [] }],
    ['ignore-delete', stored(row(1, 'A', 1)), del(row(1, 'A', 1)), { ...rules, ignoreDelete: true }, { data: null, changelog: [] }],
    ['late upsert', stored(row(1, 'A', 1, 0, 5)), up(row(1, 'A', 2, 0, 4)), versioned, { data: null, changelog: [] }],
    ['same version: ours wins', stored(row(1, 'A', 1, 0, 5)), up(row(1, 'A', 2, 0, 5)), versioned, { data: UA, changelog: [[UB, 'before'], [UA, 'new']] }],
    ['late delete', stored(row(1, 'A', 1, 0, 5)), del(row(1, 'A', 1, 0, 4)), versioned, { data: null, changelog: [] }],
    ['key-only delete under sequence.field', stored(row(1, 'A', 1, 0, 5)), del([1n, null, null, null, null]), versioned, { data: D, changelog: [[D, 'before']] }],
  ];
  for (const [name, before, change, r, expected] of cases) assert.deepEqual(shape(keyOutcome(before, change, r)), expected, name);
  // -D and its tombstone carry the full stored row, not the key-only input.
  const outcome = keyOutcome(stored(row(1, 'A', 1, 9)), del([1n, null, null, null, null]), rules);
  assert.deepEqual(outcome.data?.row, row(1, 'A', 1, 9));
  assert.deepEqual(outcome.changelog[0]?.row, row(1, 'A', 1, 9));
});

test('canonicalRow cuts timestamps to their precision; equal after that is a no-op', () => {
  const r: InternalRow = [1n, 'A', 1n, ts(10, 999_999), null];
  assert.deepEqual(canonicalRow(r, types)[3], ts(10, 0));
  assert.equal(keyOutcome(stored(row(1, 'A', 1, 10)), up(r), { ...rules, ignored: new Set() }).data, null);
  const micros = [parseDataType('TIMESTAMP(6)')];
  assert.deepEqual(canonicalRow([ts(1, 123_456)], micros), [ts(1, 123_000)]);
});

test('netChanges: one change per key in key order; the last by sequence.field, then arrival, wins', () => {
  const changes = [up(row(2, 'A', 1)), up(row(1, 'A', 1)), del([2n, null, null, null, null]), up(row(1, 'B', 2))];
  assert.deepEqual(netChanges(changes, [0], []).map((c) => [c.kind, c.row[0], c.row[1]]), [['upsert', 1n, 'B'], ['delete', 2n, null]]);
  const byVersion = [up(row(1, 'new', 1, 0, 9)), up(row(1, 'old', 1, 0, 3)), up(row(1, 'tie-late', 1, 0, 9))];
  assert.deepEqual(netChanges(byVersion, [0], [4]).map((c) => c.row[1]), ['tie-late']);
});

test('auditKey: each anomaly on its row, and none for a correct sequence', () => {
  const a = row(1, 'A', 100);
  const b = row(1, 'A', 80);
  const flags = (before: InternalRow | null, after: InternalRow | null, rows: [number, InternalRow][], ignored = new Set<number>()) =>
    auditKey(before, after, rows.map(([kind, r]) => ({ kind, row: r })), ignored).map((f) => `${f.flag}@${f.row ?? '-'}`);
  assert.deepEqual(flags(a, b, [[UB, a], [UA, b]]), []);
  assert.deepEqual(flags(null, a, [[I, a]]), []);
  assert.deepEqual(flags(a, null, [[D, a]]), []);
  assert.deepEqual(flags(a, b, [[UA, b]]), ['UPDATE_AFTER_WITHOUT_BEFORE@0']);
  assert.deepEqual(flags(a, null, [[UB, a]]), ['UPDATE_BEFORE_WITHOUT_AFTER@0']);
  assert.deepEqual(flags(a, b, [[UB, row(1, 'A', 99)], [UA, b]]), ['BEFORE_IMAGE_MISMATCH@0']);
  assert.deepEqual(flags(a, b, [[I, b]]), ['DUPLICATE_INSERT@0']);
  assert.deepEqual(flags(null, null, [[D, a]]), ['DELETE_OF_ABSENT_KEY@0']);
  assert.deepEqual(flags(a, b, []), ['DATA_CHANGE_WITHOUT_CHANGELOG@-']);
  assert.deepEqual(flags(a, row(1, 'A', 100, 5), [], new Set([3])), [], 'only an ignored field changed');
  assert.deepEqual(flags(a, row(1, 'A', 70), [[UB, a], [UA, b]]), ['CHANGELOG_DIFFERS_FROM_DATA@-']);
});
