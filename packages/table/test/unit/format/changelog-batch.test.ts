// changelogBatch (the bucket job's column-wise changelog path) against a model that applies
// keyOutcome to each merged record as a row: random batches of every column type (NULLs in every
// nullable column, int64 and DECIMAL(38) limits, full-precision and negative-zero doubles, strings
// beyond U+E000, timestamps finer than their column's precision), random before-images (absent,
// equal, differing only in an ignored field, differing), upserts and deletes (of present and
// absent keys), sequence.field and ignore-delete, and first sequence numbers around 2^32 and near
// the int64 maximum. The data and changelog batches must be the model's records exactly: row by
// row, kind, `_SEQUENCE_NUMBER` and every value; the counts and the next sequence number too.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { changelogBatch, type ChangelogCounts } from '../../../src/format/changelog-batch.ts';
import { batchFromRows, rowsFromBatch } from '../../../src/format/column-batch.ts';
import { keyOutcome, type ChangelogRules, type StoredRecord } from '../../../src/format/changelog.ts';
import { RowKind, keyValueRowType } from '../../../src/format/key-value.ts';
import { parseDataType } from '../../../src/spec/data-type-json.ts';
import type { DataField, InternalRow, InternalValue, RowType, Timestamp } from '../../../src/spec/types.ts';

const TYPES = [
  'BIGINT NOT NULL', // k: the key
  'BOOLEAN',
  'TINYINT',
  'SMALLINT',
  'INT',
  'BIGINT',
  'FLOAT',
  'DOUBLE',
  'DECIMAL(10, 2)',
  'DECIMAL(38, 10)',
  'STRING',
  'BYTES',
  'DATE',
  'TIMESTAMP(3)',
  'TIMESTAMP(6)',
  'TIMESTAMP(9)',
  'TIMESTAMP_LTZ(3)',
  'BIGINT', // the sequence.field column when the rules use one
];
const fields: DataField[] = TYPES.map((t, i) => ({ id: i, name: `c${i}`, type: parseDataType(t) }));
const tableType: RowType = { fields };
const recordType = keyValueRowType(tableType, ['c0']);
const SEQ_FIELD = TYPES.length - 1;

const INT64_MAX = 2n ** 63n - 1n;
const INT64_MIN = -(2n ** 63n);
const DEC38 = 10n ** 38n - 1n;

const timestamp = (nanosMax: number): fc.Arbitrary<Timestamp> =>
  fc.record({ epochMillis: fc.integer({ min: -2_000_000_000_000, max: 4_000_000_000_000 }), nanoOfMillis: fc.integer({ min: 0, max: nanosMax }) });

/** A value of each non-key column (null about one time in five). */
const valueArbs: fc.Arbitrary<InternalValue>[] = [
  fc.boolean(),
  fc.integer({ min: -128, max: 127 }),
  fc.integer({ min: -32768, max: 32767 }),
  fc.oneof(fc.constantFrom(-(2 ** 31), 2 ** 31 - 1, 0), fc.integer()),
  fc.oneof(fc.constantFrom(INT64_MIN, INT64_MAX, 0n, -1n), fc.bigInt({ min: INT64_MIN, max: INT64_MAX })),
  fc.oneof(fc.constantFrom(-0, 0, Math.fround(3.4e38), Math.fround(1.1754944e-38)), fc.float({ noNaN: true }).map((x) => Math.fround(x))),
  fc.oneof(fc.constantFrom(-0, 0, Number.MAX_VALUE, Number.MIN_VALUE, 0.1 + 0.2, -1e-300), fc.double({ noNaN: true })),
  fc.oneof(fc.constantFrom(-(10n ** 10n - 1n), 10n ** 10n - 1n), fc.bigInt({ min: -(10n ** 10n - 1n), max: 10n ** 10n - 1n })),
  fc.oneof(fc.constantFrom(-DEC38, DEC38, 0n), fc.bigInt({ min: -DEC38, max: DEC38 })),
  fc.oneof(fc.constantFrom('', '\uE000', '\uFFFF', '\u{10FFFF}', '😀x', 'a\u0000b'), fc.string({ unit: 'binary' })),
  fc.uint8Array({ maxLength: 6 }),
  fc.integer({ min: -100_000, max: 100_000 }),
  timestamp(999_999),
  timestamp(999_999),
  timestamp(999_999),
  timestamp(999_999),
  fc.bigInt({ min: -3n, max: 3n }),
].map((arb) => fc.option(arb as fc.Arbitrary<InternalValue>, { freq: 5, nil: null }));

const rowArb = (key: bigint): fc.Arbitrary<InternalRow> => fc.tuple(...valueArbs).map((values) => [key, ...values]);

/** What a key's stored record is like beside the merged row. */
type Stored = 'absent' | 'equal' | 'ignored-only' | 'other';

interface Case {
  readonly rows: { readonly row: InternalRow; readonly retract: boolean; readonly stored: Stored; readonly other: InternalRow; readonly sequence: bigint }[];
  readonly ignored: number[];
  readonly sequenceField: boolean;
  readonly ignoreDelete: boolean;
  readonly next: bigint;
}

const caseArb: fc.Arbitrary<Case> = fc.record({
  rows: fc.uniqueArray(fc.bigInt({ min: INT64_MIN, max: INT64_MAX }), { minLength: 0, maxLength: 40 }).chain((keys) =>
    fc.tuple(
      ...[...keys].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)).map((key) =>
        fc.record({
          row: rowArb(key),
          retract: fc.boolean(),
          stored: fc.constantFrom<Stored>('absent', 'equal', 'ignored-only', 'other'),
          other: rowArb(key),
          sequence: fc.oneof(fc.constantFrom(0n, INT64_MAX, 2n ** 32n - 1n), fc.bigInt({ min: 0n, max: INT64_MAX })),
        }),
      ),
    ),
  ),
  ignored: fc.subarray([1, 5, 10, 13, 15]),
  sequenceField: fc.boolean(),
  ignoreDelete: fc.boolean(),
  next: fc.oneof(fc.constantFrom(0n, 2n ** 32n - 3n, 2n ** 32n - 1n, 2n ** 31n - 2n, 2n ** 53n - 1n, INT64_MAX - 200n), fc.bigInt({ min: 0n, max: INT64_MAX - 200n })),
});

/** The stored record a case asks for, beside the merged row `row`. */
function storedRecord(c: Case['rows'][number], ignored: readonly number[]): StoredRecord | null {
  switch (c.stored) {
    case 'absent':
      return null;
    case 'equal':
      return { row: c.row, sequenceNumber: c.sequence };
    case 'ignored-only': {
      const row = [...c.row];
      const f = ignored[0];
      if (f !== undefined) row[f] = c.other[f] ?? null;
      return { row, sequenceNumber: c.sequence };
    }
    case 'other':
      return { row: c.other, sequenceNumber: c.sequence };
  }
}

/** The model: keyOutcome per row, records built as rows. */
function model(c: Case, images: readonly (StoredRecord | null)[], rules: ChangelogRules) {
  const data: InternalValue[][] = [];
  const changelog: InternalValue[][] = [];
  const counts = { inserts: 0, updates: 0, deletes: 0 };
  let next = c.next;
  c.rows.forEach((r, i) => {
    const before = images[i] ?? null;
    const outcome = keyOutcome(before, { kind: r.retract ? 'delete' : 'upsert', row: r.row }, rules);
    if (outcome.data === null) return;
    const sequence = next++;
    data.push([outcome.data.row[0] ?? null, sequence, outcome.data.kind, ...outcome.data.row]);
    for (const row of outcome.changelog) {
      changelog.push([row.row[0] ?? null, row.sequence === 'before' ? (before?.sequenceNumber as bigint) : sequence, row.kind, ...row.row]);
      if (row.kind === RowKind.INSERT) counts.inserts++;
      else if (row.kind === RowKind.DELETE) counts.deletes++;
      else if (row.kind === RowKind.UPDATE_AFTER) counts.updates++;
    }
  });
  return { data, changelog, counts, next };
}

/** The merged records of a case: `_SEQUENCE_NUMBER` arbitrary (the output's are new), `_VALUE_KIND` +I/+U or -D/-U. */
function records(c: Case) {
  return batchFromRows(
    recordType,
    c.rows.map((r, i) => [r.row[0] ?? null, BigInt(i * 3), r.retract ? (i % 2 === 0 ? RowKind.DELETE : RowKind.UPDATE_BEFORE) : i % 2 === 0 ? RowKind.INSERT : RowKind.UPDATE_AFTER, ...r.row]),
  );
}

/** Values as comparable text: a double's sign of zero and every bit of a bigint kept. */
const text = (rows: readonly (readonly InternalValue[])[]): string[] =>
  rows.map((row) => JSON.stringify(row, (_, v: unknown) => (typeof v === 'bigint' ? `${v}n` : Object.is(v, -0) ? '-0' : v instanceof Uint8Array ? [...v] : v)));

/** changelogBatch of case `c` gives the model's data and changelog records, counts and next sequence number. */
function matchesModel(c: Case, images: Parameters<typeof model>[1], rules: ChangelogRules): void {
  const want = model(c, images, rules);
  const counts: ChangelogCounts = { inserts: 0, updates: 0, deletes: 0 };
  const got = changelogBatch(records(c), images, rules, { recordType, keyIndex: [0] }, c.next, counts);
  assert.deepEqual(text(got.data === undefined ? [] : rowsFromBatch(got.data)), text(want.data), 'data records');
  assert.deepEqual(text(got.changelog === undefined ? [] : rowsFromBatch(got.changelog)), text(want.changelog), 'changelog records');
  assert.deepEqual(counts, want.counts);
  assert.equal(got.next, want.next);
}

test('changelogBatch: the data and changelog records of keyOutcome per row, gathered column by column', () => {
  fc.assert(
    fc.property(caseArb, (c) => {
      const rules: ChangelogRules = {
        types: fields.map((f) => f.type),
        ignored: new Set(c.ignored),
        sequenceFields: c.sequenceField ? [SEQ_FIELD] : [],
        ignoreDelete: c.ignoreDelete,
      };
      const images = c.rows.map((r) => storedRecord(r, c.ignored));
      matchesModel(c, images, rules);
    }),
    { numRuns: 400 },
  );
});

test('changelogBatch: every outcome at once, sequence numbers carried over the 2^32 word boundary', () => {
  const rules: ChangelogRules = { types: fields.map((f) => f.type), ignored: new Set([13]), sequenceFields: [], ignoreDelete: false };
  const base = (k: bigint): InternalRow => [k, true, 1, 2, 3, 4n, 1.5, 0.1 + 0.2, 5n, DEC38, '\u{1F600}', new Uint8Array([0, 255]), 10, { epochMillis: 1, nanoOfMillis: 0 }, { epochMillis: 2, nanoOfMillis: 3000 }, { epochMillis: 3, nanoOfMillis: 7 }, { epochMillis: 4, nanoOfMillis: 0 }, null];
  const changed = (k: bigint, f: number, v: InternalValue): InternalRow => base(k).map((x, i) => (i === f ? v : x));
  const c: Case = {
    next: 2n ** 32n - 2n,
    ignored: [13],
    sequenceField: false,
    ignoreDelete: false,
    rows: [
      { row: base(1n), retract: false, stored: 'absent', other: base(1n), sequence: 0n }, // +I
      { row: changed(2n, 10, '\uE001'), retract: false, stored: 'other', other: base(2n), sequence: 2n ** 40n }, // -U/+U
      { row: base(3n), retract: false, stored: 'equal', other: base(3n), sequence: 9n }, // nothing
      { row: changed(4n, 13, { epochMillis: 99, nanoOfMillis: 0 }), retract: false, stored: 'ignored-only', other: base(4n), sequence: 9n }, // data +U only
      { row: [5n, ...base(5n).slice(1).map(() => null)], retract: true, stored: 'other', other: base(5n), sequence: INT64_MAX }, // -D of the stored row
      { row: base(6n), retract: true, stored: 'absent', other: base(6n), sequence: 0n }, // nothing
      { row: changed(7n, 14, { epochMillis: 2, nanoOfMillis: 3999 }), retract: false, stored: 'equal', other: base(7n), sequence: 1n }, // a no-op once cut to micros
      { row: changed(8n, 8, -DEC38), retract: false, stored: 'absent', other: base(8n), sequence: 0n }, // +I
    ],
  };
  const images = c.rows.map((r) => storedRecord(r, c.ignored));
  images[6] = { row: base(7n), sequenceNumber: 1n };
  const counts: ChangelogCounts = { inserts: 0, updates: 0, deletes: 0 };
  const got = changelogBatch(records(c), images, rules, { recordType, keyIndex: [0] }, c.next, counts);
  const data = rowsFromBatch(got.data!).map((r) => [r[0], r[1], r[2]]);
  const changelog = rowsFromBatch(got.changelog!).map((r) => [r[0], r[1], r[2]]);
  const { INSERT: I, UPDATE_BEFORE: UB, UPDATE_AFTER: UA, DELETE: D } = RowKind;
  const first = 2n ** 32n - 2n;
  assert.deepEqual(data, [[1n, first, I], [2n, first + 1n, UA], [4n, first + 2n, UA], [5n, first + 3n, D], [8n, first + 4n, I]]);
  assert.deepEqual(changelog, [[1n, first, I], [2n, 2n ** 40n, UB], [2n, first + 1n, UA], [5n, INT64_MAX, D], [8n, first + 4n, I]]);
  assert.deepEqual(rowsFromBatch(got.changelog!)[3]?.slice(3), base(5n), '-D carries the full stored row');
  assert.deepEqual(rowsFromBatch(got.changelog!)[1]?.slice(3), base(2n), '-U carries the stored row');
  assert.deepEqual(counts, { inserts: 2, updates: 1, deletes: 1 });
  assert.equal(got.next, first + 5n);
});

test('changelogBatch: a batch of upserts of absent keys only (one batch for both runs, no gather) is the model’s +I records, timestamps cut', () => {
  fc.assert(
    fc.property(caseArb, (generated) => {
      const c: Case = { ...generated, rows: generated.rows.map((r) => ({ ...r, retract: false, stored: 'absent' as const })) };
      const rules: ChangelogRules = { types: fields.map((f) => f.type), ignored: new Set(c.ignored), sequenceFields: c.sequenceField ? [SEQ_FIELD] : [], ignoreDelete: c.ignoreDelete };
      const images = c.rows.map(() => null);
      matchesModel(c, images, rules);
    }),
    { numRuns: 200 },
  );
});
