// A bucket job's changelog written column-wise (writeBucketChangelog → ChangelogWrite.writeBucketRecords)
// against the row path (the same merged records turned into KeyedChange rows and written by
// writeBucketBatches), on two tables with the same base: 12 writers' runs merged in batches of 7 rows
// (keys span batch boundaries), composite keys with strings beyond U+E000, NULLs in every nullable
// column, int64 and DECIMAL(38) limits, full-precision doubles, keys in several writers, deletes of
// stored and absent keys, no-op updates and updates of an ignored field only; once with
// `changelog-producer.row-deduplicate-ignore-fields` and once with `sequence.field`. Every data and
// changelog file must hold the same records (kind, `_SEQUENCE_NUMBER`, values) with the same file
// facts, and the committed tables must read and replay alike.
import { test } from 'node:test';
import { isTributaryError } from '@tributary/errors';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  LocalObjectStore,
  TableWrite,
  createTable,
  mergeBucketRuns,
  writeBucketChangelog,
  type BucketChangelog,
  type BucketMergeInput,
  type CommitMessage,
  type InternalRow,
  type KeyedChange,
  type Table,
} from '@tributary/table';
import { batchFromRows, rowsFromBatch, valueAt, type ColumnBatch } from '../../../src/format/column-batch.ts';
import { isRetract, keyValueRowType } from '../../../src/format/key-value.ts';
import { byteSourceFromBytes, readDataFile } from '../../../src/parquet/parquet-reader.ts';
import type { DataFileMeta } from '../../../src/spec/data-file-meta.ts';
import type { InternalValue } from '../../../src/spec/types.ts';
import { RowRouter } from '../../../src/write/row-routing.ts';

const FIELDS = [
  { name: 'k', type: 'BIGINT NOT NULL' },
  { name: 's', type: 'STRING NOT NULL' },
  { name: 'flag', type: 'BOOLEAN' },
  { name: 'small', type: 'SMALLINT' },
  { name: 'n', type: 'INT' },
  { name: 'big', type: 'BIGINT' },
  { name: 'f', type: 'FLOAT' },
  { name: 'd', type: 'DOUBLE' },
  { name: 'dec', type: 'DECIMAL(10, 2)' },
  { name: 'wide', type: 'DECIMAL(38, 0)' },
  { name: 'txt', type: 'STRING' },
  { name: 'bin', type: 'BYTES' },
  { name: 'day', type: 'DATE' },
  { name: 'ts3', type: 'TIMESTAMP(3)' },
  { name: 'ts6', type: 'TIMESTAMP(6)' },
  { name: 'ts9', type: 'TIMESTAMP(9)' },
  { name: 'etl', type: 'TIMESTAMP(3)' },
  { name: 'version', type: 'BIGINT' },
];
const INT64_MAX = 2n ** 63n - 1n;
const INT64_MIN = -(2n ** 63n);
const DEC38 = 10n ** 38n - 1n;
const STRINGS = ['', 'a', '\uE000', '\uE000a', '\uFFFF', '\u{10000}', '\u{1F600}', 'z\u{10FFFF}'];
const RUNS = 'staging/runs';
const WRITERS = 12;

/** Special values per column (index in FIELDS, from 2); a null in every nullable column by turns. */
const SPECIAL: InternalValue[][] = [
  [true, false],
  [-32768, 32767, 0],
  [-(2 ** 31), 2 ** 31 - 1, 7],
  [INT64_MIN, INT64_MAX, 0n, -1n],
  [Math.fround(3.4e38), -0, Math.fround(1.1754944e-38), Math.fround(0.1)],
  [0.1 + 0.2, -0, Number.MAX_VALUE, Number.MIN_VALUE, -1e-300, 1 / 3],
  [-(10n ** 10n - 1n), 10n ** 10n - 1n, 0n],
  [-DEC38, DEC38, 1n],
  ['', '\uE000', '\u{1F600}\u{10FFFF}', 'plain'],
  [new Uint8Array([]), new Uint8Array([0, 255, 128])],
  [-719_162, 0, 2_932_896],
  [{ epochMillis: -62_135_596_800_000, nanoOfMillis: 0 }, { epochMillis: 253_402_300_799_999, nanoOfMillis: 0 }],
  [{ epochMillis: 1, nanoOfMillis: 999_000 }, { epochMillis: -1, nanoOfMillis: 1000 }],
  [{ epochMillis: 1, nanoOfMillis: 999_999 }, { epochMillis: -1, nanoOfMillis: 1 }],
  [{ epochMillis: 5, nanoOfMillis: 0 }, { epochMillis: 6, nanoOfMillis: 0 }],
  [1n, 2n, 3n],
];

/** A deterministic row of key (k, s), version `v`: each column one of its special values or null. */
function rowOf(k: number, v: number): InternalRow {
  const values = SPECIAL.map((choices, c) => {
    const h = Math.imul(k * 31 + c * 7 + v * 101, 0x9e3779b1) >>> 0;
    return h % 9 === 0 ? null : (choices[h % choices.length] as InternalValue);
  });
  return [BigInt(k * 1000 - 50_000), STRINGS[k % STRINGS.length] as string, ...values];
}

const ETL = 16;
const VERSION = 17;

async function table(store: LocalObjectStore, name: string, options: Record<string, string>): Promise<Table> {
  return createTable(store, { database: 'db', name, schema: { fields: FIELDS, primaryKeys: ['k', 's'], options: { bucket: '1', 'changelog-producer': 'input', ...options } } });
}

/** Keys 0..199 in three commits (overlapping files): all, then 40..119 changed, then 60..79 deleted. */
async function fillBase(t: Table): Promise<void> {
  const loads: KeyedChange[][] = [
    Array.from({ length: 200 }, (_, k) => ({ kind: 'upsert' as const, row: rowOf(k, 0) })),
    Array.from({ length: 80 }, (_, i) => ({ kind: 'upsert' as const, row: rowOf(40 + i, 1) })),
    Array.from({ length: 20 }, (_, i) => ({ kind: 'delete' as const, row: rowOf(60 + i, 1) })),
  ];
  for (const [i, changes] of loads.entries()) {
    const write = await t.newChangelogWrite({ baseSnapshotId: i === 0 ? null : i, writerId: `base${i}` });
    await write.write(changes);
    await t.newCommit(`base${i}`).commit(write.prepareCommit(), i === 0 ? {} : { baseSnapshotId: i });
  }
}

/**
 * The load's rows per writer: keys 0..259 (200..259 new), each in one to three writers; deletes of
 * stored, deleted and absent keys; no-op updates (the stored row again); updates of `etl` only.
 */
function loadOf(writer: number): { rows: InternalRow[]; kinds: number[] } {
  const rows: InternalRow[] = [];
  const kinds: number[] = [];
  for (let k = 0; k < 260; k++) {
    const writers = [k % WRITERS, (k * 7) % WRITERS, (k * 5 + 3) % WRITERS].slice(0, 1 + (k % 3));
    if (!writers.includes(writer)) continue;
    const stored = k >= 40 && k < 120 ? 1 : 0;
    let row: InternalRow;
    let kind = 0;
    // An update's and a delete's version (sequence.field) rises with the writer, except for every
    // 4th key (the stored row may win); a no-op and an update of `etl` only keep the stored version.
    const version = k % 4 === 0 ? 0n : BigInt(10 + writer);
    if (k % 9 === 0) {
      row = [...rowOf(k, 2).slice(0, 2), ...FIELDS.slice(2).map((_, i) => (i + 2 === VERSION && k % 2 === 1 ? version : null))];
      kind = 3;
    } else if (k % 5 === 0) row = rowOf(k, stored);
    else if (k % 7 === 0) row = rowOf(k, stored).map((v, i) => (i === ETL ? { epochMillis: 1000 + writer, nanoOfMillis: 0 } : v));
    else row = rowOf(k, 2 + writer).map((v, i) => (i === VERSION ? version : v));
    rows.push(row);
    kinds.push(kind);
  }
  return { rows, kinds };
}

/** The bucket job's input over the load's runs, merged in batches of 7 rows. */
async function runsOf(store: LocalObjectStore, t: Table): Promise<BucketMergeInput> {
  const messages: CommitMessage[][] = [];
  for (let w = 0; w < WRITERS; w++) {
    const write = await TableWrite.open(store, t.path, t.schema, { writerId: `w${w}`, sequenceSlot: w, dataPath: `${RUNS}/${t.schema.options['sequence.field'] ?? 'none'}`, baseSnapshotId: 3 });
    const { rows, kinds } = loadOf(w);
    await write.writeRows(rows, kinds);
    messages.push(await write.prepareCommit());
  }
  const runs = messages.flatMap((ms, slot) => ms.flatMap((m) => m.dataIncrement.newFiles.map((f) => ({ fileName: f.fileName, size: Number(f.fileSize), slot, minSequence: f.minSequenceNumber }))));
  assert.equal(runs.length, WRITERS, 'one run per writer');
  const partition = messages[0]?.[0]?.partition as Uint8Array;
  return { store, tablePath: t.path, runsPath: `${RUNS}/${t.schema.options['sequence.field'] ?? 'none'}`, schema: t.schema, partition, bucket: 0, totalBuckets: 1, runs, writerId: 'job', batchRows: 7 };
}

/** The row path: each merged record as a KeyedChange (a retraction deletes), written by writeBucketBatches. */
async function* keyedChanges(k: number, batches: AsyncIterable<ColumnBatch>): AsyncGenerator<KeyedChange[]> {
  for await (const batch of batches) {
    const kinds = batch.columns[k + 1]!;
    const values = batch.columns.slice(k + 2);
    const changes: KeyedChange[] = [];
    for (let i = 0; i < batch.length; i++) changes.push({ kind: isRetract(valueAt(kinds, i) as number) ? 'delete' : 'upsert', row: values.map((c) => valueAt(c, i)) });
    yield changes;
  }
}

const text = (rows: readonly (readonly InternalValue[])[]): string[] =>
  rows.map((row) => JSON.stringify(row, (_, v: unknown) => (typeof v === 'bigint' ? `${v}n` : Object.is(v, -0) ? '-0' : v instanceof Uint8Array ? [...v] : v)));

/**
 * Every record of the files (kind, sequence number, values) and their facts but names, times and
 * sizes (the column-wise path writes a load's new keys as row groups shared by the data and
 * changelog files, so its row groups are cut elsewhere: changelog-shared-inserts.test.ts).
 */
async function filesOf(store: LocalObjectStore, t: Table, files: readonly DataFileMeta[]): Promise<{ records: string[]; facts: string[] }> {
  const recordType = keyValueRowType({ fields: t.schema.fields }, ['k', 's']);
  const records: string[] = [];
  const facts: string[] = [];
  for (const file of files) {
    const bytes = await store.get(`${t.path}/bucket-0/${file.fileName}`);
    for (const batch of await readDataFile(byteSourceFromBytes(bytes), recordType)) records.push(...text(rowsFromBatch(batch)));
    const { fileName: _name, creationTimeMillis: _time, fileSize: _size, ...rest } = file;
    facts.push(text([[rest as unknown as InternalValue]])[0] as string);
  }
  return { records, facts };
}

const counts = (c: BucketChangelog) => [c.dataRows, c.inserts, c.updates, c.deletes, c.filesRead];

for (const [label, options] of [
  ['ignore-fields', { 'changelog-producer.row-deduplicate-ignore-fields': 'etl' }],
  ['sequence.field', { 'sequence.field': 'version' }],
] as const) {
  test(`writeBucketChangelog (column-wise) writes the records the row path writes: ${label}`, async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tributary-changelog-records-'));
    try {
      const store = new LocalObjectStore(dir);
      const columns = await table(store, 'columns', options);
      const rows = await table(store, 'rows', options);
      await fillBase(columns);
      await fillBase(rows);
      const input = await runsOf(store, columns);
      const k = 2;

      const byColumns = await writeBucketChangelog(input, mergeBucketRuns(input), await columns.newChangelogWrite({ baseSnapshotId: 3, writerId: 'job' }));
      const rowWrite = await rows.newChangelogWrite({ baseSnapshotId: 3, writerId: 'job' });
      const byRows = await rowWrite.writeBucketBatches(keyedChanges(k, mergeBucketRuns({ ...input, tablePath: rows.path }).batches));

      const got = byColumns.changelog;
      assert.deepEqual(counts(got), counts(byRows), 'data rows, inserts, updates, deletes, files read');
      assert.ok(got.inserts > 0 && got.updates > 0 && got.deletes > 0, `every kind of change (${counts(got).join(', ')})`);
      assert.ok(got.dataRows < 260, 'some keys change nothing (no-ops, deletes of absent keys, late rows)');
      for (const which of ['newFiles', 'changelogFiles'] as const) {
        const a = await filesOf(store, columns, byColumns.message!.dataIncrement[which]);
        const b = await filesOf(store, rows, byRows.message!.dataIncrement[which]);
        assert.ok(a.records.length > 0, `${which} hold records`);
        assert.deepEqual(a.records, b.records, `${which}: the same records`);
        assert.deepEqual(a.facts, b.facts, `${which}: the same file facts`);
      }
      if (label === 'ignore-fields') assert.ok(got.dataRows > got.inserts + got.updates + got.deletes, 'an update of the ignored field only has a data record and no changelog');

      // Committed, the two tables read and replay alike.
      const a = await columns.newCommit('load').commit([byColumns.message!], { baseSnapshotId: 3 });
      const b = await rows.newCommit('load').commit(rowWrite.prepareCommit(), { baseSnapshotId: 3 });
      assert.deepEqual(text(await columns.newRead().toArray()), text(await rows.newRead().toArray()));
      const replay = async (t: Table, id: number) => {
        const out: InternalValue[][] = [];
        for await (const c of t.changelog(id)) out.push([c.kind, ...c.row]);
        return text(out);
      };
      assert.deepEqual(await replay(columns, a.snapshotId), await replay(rows, b.snapshotId));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
}

test('writeBucketRecords refuses records out of key order (across batches too), a null key value and records of two buckets: WRITE_ROW_INVALID at the row counted from the first batch', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'tributary-changelog-records-invalid-'));
  try {
    const store = new LocalObjectStore(dir);
    const t = await createTable(store, {
      database: 'db',
      name: 'checked',
      schema: { fields: [{ name: 'k', type: 'BIGINT NOT NULL' }, { name: 'v', type: 'STRING' }], primaryKeys: ['k'], options: { bucket: '4', 'changelog-producer': 'input' } },
    });
    const recordType = keyValueRowType({ fields: t.schema.fields }, ['k']);
    const router = new RowRouter(t.schema);
    const bucketOf = (k: bigint) => router.route(batchFromRows({ fields: t.schema.fields }, [[k, null]]))[0]!.target.bucket;
    const keys = Array.from({ length: 200 }, (_, i) => BigInt(i));
    const same = keys.filter((k) => bucketOf(k) === bucketOf(0n));
    const other = keys.find((k) => bucketOf(k) !== bucketOf(0n))!;
    const batch = (ks: (bigint | null)[]) => batchFromRows(recordType, ks.map((k) => [k, 0n, 0, k, 'x']));
    const refused = async (batches: ColumnBatch[], row: number, what: string) => {
      const write = await t.newChangelogWrite({ baseSnapshotId: null, writerId: `w-${what}` });
      await assert.rejects(write.writeBucketRecords(batches), (e: unknown) => {
        assert.ok(isTributaryError(e), what);
        assert.equal(e.code, 'WRITE_ROW_INVALID', what);
        assert.equal(e.context.row, row, what);
        return true;
      });
    };
    await refused([batch([same[0]!, same[2]!]), batch([same[1]!])], 2, 'a later batch goes back');
    await refused([batch([same[0]!, same[2]!, same[1]!])], 2, 'a batch goes back');
    await refused([batch([same[0]!, same[0]!])], 1, 'a key twice');
    await refused([batch([null])], 0, 'a null key value');
    await refused([batch([same[0]!]), batch([other])], 1, 'two buckets');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
