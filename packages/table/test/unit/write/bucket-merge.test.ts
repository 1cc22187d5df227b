// The bucket stage's merge: writers' sorted runs written outside the table (dataPath), merged into
// one bucket's files; the later writer (slot) wins a key, a retraction stays a retraction, keys in
// several writers are counted, files roll at target-file-size, and the table reads the result.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalObjectStore, TableWrite, createTable, mergeBucket, type CommitMessage, type Table } from '@tributary/table';
import { rowsFromBatch } from '../../../src/format/column-batch.ts';
import { keyValueRowType } from '../../../src/format/key-value.ts';
import { ParquetDataFileReader, byteSourceFromBytes } from '../../../src/parquet/parquet-reader.ts';
import { compareKeys } from '../../../src/spec/key-comparator.ts';
import type { InternalValue } from '../../../src/spec/types.ts';

const RUNS = 'staging/runs';

/** The merge input of bucket 0 of a one-bucket table (key `k`) from these runs. */
function bucketZero<R>(table: Table, runs: R) {
  return { tablePath: table.path, runsPath: RUNS, schema: table.schema, partition: new Uint8Array([0, 0, 0, 0]), bucket: 0, totalBuckets: 1, runs };
}

/** The key-value records of a merge's files in bucket 0 (key `k`), in file and row order. */
async function readKeyValues(store: LocalObjectStore, table: Table, message: CommitMessage | undefined): Promise<unknown[][]> {
  const rows: unknown[][] = [];
  for (const f of message?.dataIncrement.newFiles ?? []) {
    const reader = await ParquetDataFileReader.open(byteSourceFromBytes(await store.get(`${table.path}/bucket-0/${f.fileName}`)));
    for await (const batch of reader.batches(keyValueRowType({ fields: table.schema.fields }, ['k']))) rows.push(...rowsFromBatch(batch));
  }
  return rows;
}

test('runs of three writers merge into one bucket: later slot wins, retractions kept, collisions counted', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'tributary-bucket-merge-'));
  try {
    const store = new LocalObjectStore(dir);
    const table = await createTable(store, {
      database: 'db',
      name: 'merged',
      schema: { fields: [{ name: 'k', type: 'BIGINT NOT NULL' }, { name: 'v', type: 'STRING' }], primaryKeys: ['k'], options: { bucket: '1' } },
    });
    // Writer 0: keys 1..3000 (spilled every 1000 rows); writer 1: keys 200..250 and deletes key 5; writer 2: key 1.
    const runsOf = async (slot: number, rows: [bigint, string][], kinds?: number[]): Promise<CommitMessage[]> => {
      const write = await TableWrite.open(store, table.path, table.schema, { writerId: `w${slot}`, sequenceSlot: slot, dataPath: RUNS, bufferRows: 1000, maxBufferedRows: 1000, baseSnapshotId: null });
      for (let i = 0; i < rows.length; i += 500) await write.writeRows(rows.slice(i, i + 500), kinds?.slice(i, i + 500));
      return write.prepareCommit();
    };
    const w0 = await runsOf(0, Array.from({ length: 3000 }, (_, i) => [BigInt(i + 1), `w0-${i + 1}`]));
    const w1 = await runsOf(1, [...Array.from({ length: 51 }, (_, i): [bigint, string] => [BigInt(200 + i), `w1-${200 + i}`]), [5n, 'gone']], [...new Array<number>(51).fill(0), 3]);
    const w2 = await runsOf(2, [[1n, 'w2-1']]);
    const runs = [w0, w1, w2].flatMap((messages, slot) =>
      messages.flatMap((m) => m.dataIncrement.newFiles.map((f) => ({ fileName: f.fileName, size: Number(f.fileSize), slot, minSequence: f.minSequenceNumber }))),
    );
    assert.ok(runs.length >= 5, `writer 0 spilled several runs (${runs.length} run files)`);
    const merged = await mergeBucket({ store, tablePath: table.path, runsPath: RUNS, schema: table.schema, partition: w0[0]!.partition, bucket: 0, totalBuckets: 1, runs, writerId: 'sync-b0-a1', targetFileSize: 2048 });
    assert.equal(merged.collidingKeys, 53, 'keys 200..250, 1 and 5 were written by more than one writer');
    assert.equal(merged.rows, 3000, 'one record per key, the delete of key 5 included');
    const files = merged.message?.dataIncrement.newFiles ?? [];
    assert.ok(files.length > 1, 'files roll at the target size');
    assert.ok(files.every((f) => f.fileName.startsWith('data-sync-b0-a1-')));
    assert.equal(files.reduce((n, f) => n + Number(f.deleteRowCount), 0), 1, 'the delete stays a delete row');

    await table.newCommit('u').commit([merged.message!]);
    const read = new Map((await table.newRead().toArray()).map((r) => [r[0] as bigint, r[1]]));
    assert.equal(read.size, 2999, 'key 5 deleted');
    assert.equal(read.get(1n), 'w2-1', 'the later writer wins');
    assert.equal(read.get(200n), 'w1-200');
    assert.equal(read.get(199n), 'w0-199');
    assert.equal(read.has(5n), false);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('records equal in key and every sequence (two writers of one slot): the later run keeps the key, in either order', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'tributary-bucket-ties-'));
  try {
    const store = new LocalObjectStore(dir);
    const table = await createTable(store, {
      database: 'db',
      name: 'ties',
      schema: { fields: [{ name: 'k', type: 'BIGINT NOT NULL' }, { name: 'v', type: 'STRING' }], primaryKeys: ['k'], options: { bucket: '1' } },
    });
    // Two writers in the same sequence slot: key k gets the same _SEQUENCE_NUMBER from both.
    const keys = [-(2n ** 63n), -1n, 0n, 7n, 2n ** 63n - 1n];
    const runsOf = async (name: string, value: (k: bigint) => string | null): Promise<{ fileName: string; size: number; slot: number; minSequence: bigint }[]> => {
      const write = await TableWrite.open(store, table.path, table.schema, { writerId: name, sequenceSlot: 0, dataPath: RUNS, baseSnapshotId: null });
      await write.writeRows(keys.map((k) => [k, value(k)]));
      return (await write.prepareCommit()).flatMap((m) => m.dataIncrement.newFiles.map((f) => ({ fileName: f.fileName, size: Number(f.fileSize), slot: 0, minSequence: f.minSequenceNumber })));
    };
    const a = await runsOf('a', (k) => `a-${k}`);
    const b = await runsOf('b', (k) => (k === 7n ? null : `b-😀-${k}`));
    assert.deepEqual(
      b.map((r) => r.minSequence),
      a.map((r) => r.minSequence),
      'both writers numbered their keys alike',
    );
    for (const [order, last] of [[[...a, ...b], 'b'], [[...b, ...a], 'a']] as const) {
      const merged = await mergeBucket({ store, tablePath: table.path, runsPath: RUNS, schema: table.schema, partition: new Uint8Array([0, 0, 0, 0]), bucket: 0, totalBuckets: 1, runs: order, writerId: `ties-${last}` });
      const file = merged.message!.dataIncrement.newFiles[0]!;
      const bytes = await store.get(`${table.path}/bucket-0/${file.fileName}`);
      const reader = await ParquetDataFileReader.open(byteSourceFromBytes(bytes));
      const rows = [];
      for await (const batch of reader.batches(keyValueRowType({ fields: table.schema.fields }, ['k']))) rows.push(...rowsFromBatch(batch));
      assert.deepEqual(
        rows.map((r) => [r[0], r[r.length - 1]]),
        keys.map((k) => [k, last === 'a' ? `a-${k}` : k === 7n ? null : `b-😀-${k}`]),
        `runs ${last === 'b' ? 'a, b' : 'b, a'}: ${last}'s records`,
      );
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('spill mode: each spill is ONE run object with a segment per (partition, bucket); every bucket merges exactly from its segments', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'tributary-bucket-spill-'));
  try {
    const store = new LocalObjectStore(dir);
    const table = await createTable(store, {
      database: 'db',
      name: 'spilled',
      schema: {
        fields: [{ name: 'k', type: 'BIGINT NOT NULL' }, { name: 'dt', type: 'STRING NOT NULL' }, { name: 'v', type: 'STRING' }],
        partitionKeys: ['dt'],
        primaryKeys: ['k', 'dt'],
        options: { bucket: '3' },
      },
    });
    const days = ['2024-01-01', '2024-01-02', '2024-01-03', '2024-01-04'];
    // Writer s writes keys 0..1999 on day k mod 4 (value `w<s>-<k>`); spills every 700 rows (rows) or byte budget.
    const runsOf = async (slot: number, budget: { maxBufferedRows?: number; maxBufferedBytes?: number }): Promise<CommitMessage[]> => {
      const write = await TableWrite.open(store, table.path, table.schema, { writerId: `s${slot}`, sequenceSlot: slot, dataPath: RUNS, spill: true, baseSnapshotId: null, fileOptions: { compression: 'none', rowGroupRows: 128 }, ...budget });
      const rows = Array.from({ length: 2000 }, (_, k): [bigint, string, string] => [BigInt(k), days[k % 4]!, `w${slot}-${k}`]);
      for (let i = 0; i < rows.length; i += 350) await write.writeRows(rows.slice(i, i + 350));
      return write.prepareCommit();
    };
    const shards = [await runsOf(0, { maxBufferedRows: 700 }), await runsOf(1, { maxBufferedBytes: 40_000 }), await runsOf(2, {})];
    const objects: string[] = [];
    for await (const o of store.list(`${RUNS}/`)) objects.push(o.key);
    assert.ok(objects.every((key) => /^staging\/runs\/data-s[0-2]-runs-[0-9a-f-]+\.run$/.test(key)), `run objects only, no per-bucket directory: ${objects.join(', ')}`);
    const perWriter = [0, 1, 2].map((s) => objects.filter((key) => key.includes(`/data-s${s}-runs-`)).length);
    assert.deepEqual(perWriter.map((n) => n > 0), [true, true, true]);
    assert.equal(perWriter[0], 3, 'writer 0: 2000 rows spilled every 700 rows = 3 spills, one object each');
    assert.ok(perWriter[1]! > 1, `writer 1 spilled on its byte budget (${perWriter[1]} objects)`);
    assert.equal(perWriter[2], 1, 'writer 2: one spill at prepareCommit');

    // Every (partition, bucket): its segments across the writers, merged.
    const byBucket = new Map<string, { partition: Uint8Array; bucket: number; runs: { fileName: string; size: number; slot: number; minSequence: bigint }[] }>();
    shards.forEach((messages, slot) => {
      for (const m of messages) {
        const key = `${Buffer.from(m.partition).toString('hex')}/${m.bucket}`;
        const entry = byBucket.get(key) ?? { partition: m.partition, bucket: m.bucket, runs: [] };
        for (const f of m.dataIncrement.newFiles) {
          assert.match(f.fileName, /^data-s[0-2]-runs-[0-9a-f-]+\.run#[0-9]+\.[0-9a-f]{64}$/, 'a segment names its object, offset and SHA-256');
          entry.runs.push({ fileName: f.fileName, size: Number(f.fileSize), slot, minSequence: f.minSequenceNumber });
        }
        byBucket.set(key, entry);
      }
    });
    assert.equal(byBucket.size, 12, '4 partitions × 3 buckets');
    const messages: CommitMessage[] = [];
    let colliding = 0;
    let rows = 0;
    for (const [i, e] of [...byBucket.values()].entries()) {
      const merged = await mergeBucket({ store, tablePath: table.path, runsPath: RUNS, schema: table.schema, partition: e.partition, bucket: e.bucket, totalBuckets: 3, runs: e.runs, writerId: `sync-bucket-${i}-a1` });
      colliding += merged.collidingKeys;
      rows += merged.rows;
      if (merged.message !== undefined) messages.push(merged.message);
    }
    assert.equal(rows, 2000, 'one record per key');
    assert.equal(colliding, 2000, 'every key was written by all three writers');
    await table.newCommit('u').commit(messages);
    const read = await table.newRead().toArray();
    assert.equal(read.length, 2000);
    assert.ok(read.every((r) => r[2] === `w2-${String(r[0])}`), 'the last writer in slot order wins every key');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

for (const mode of ['buffered', 'spilled'] as const) {
test(`adversarial keys and values, runs ${mode}: the merge of many small runs is the model (later slot, then later row, wins; deletes stay), files in key order with full row groups`, async () => {
  const dir = await mkdtemp(join(tmpdir(), 'tributary-bucket-adversarial-'));
  try {
    const store = new LocalObjectStore(dir);
    const table = await createTable(store, {
      database: 'db',
      name: 'adversarial',
      schema: {
        fields: [
          { name: 's', type: 'STRING NOT NULL' },
          { name: 'k', type: 'BIGINT NOT NULL' },
          { name: 'd', type: 'DOUBLE' },
          { name: 'm', type: 'DECIMAL(38, 10)' },
          { name: 'n', type: 'DECIMAL(18, 4)' },
          { name: 't', type: 'TIMESTAMP(9)' },
          { name: 'v', type: 'STRING' },
        ],
        primaryKeys: ['s', 'k'],
        options: { bucket: '1' },
      },
    });
    // Strings where UTF-16 and UTF-8 orders differ, empty; int64 at its limits and around 2^32 and 2^53.
    const strings = ['', 'a', '\uffff', '\ue000', '😀', '😀a', 'é', '中'];
    const longs = [-(2n ** 63n), -(2n ** 32n), -1n, 0n, 2n ** 32n - 1n, 2n ** 32n, 2n ** 53n + 1n, 2n ** 63n - 1n];
    const keyOf = (i: number): [string, bigint] => {
      const long = longs[Math.floor(i / strings.length) % longs.length]!;
      // Moved towards zero, so the limits stay inside int64.
      return [strings[i % strings.length]!, long + (long > 0n ? -1n : 1n) * BigInt(Math.floor(i / 64))];
    };
    const valueOf = (slot: number, i: number): unknown[] => [
      i % 9 === 0 ? null : slot === 1 ? Number.MIN_VALUE * i : (i + 0.1) / 3,
      i % 10 === 0 ? null : (i % 2 === 0 ? 1n : -1n) * (10n ** 38n - 1n - BigInt(i)),
      i % 11 === 0 ? null : (i % 2 === 0 ? 1n : -1n) * (10n ** 18n - 1n - BigInt(slot)),
      i % 12 === 0 ? null : { epochMillis: -1 + i, nanoOfMillis: 999_999 - slot },
      i % 13 === 0 ? null : i % 5 === 0 ? '' : `w${slot}-${i}-😀\uffff`,
    ];
    // The model: key → [row, deleted] of the last write in (slot, row) order.
    const model = new Map<string, { row: unknown[]; deleted: boolean }>();
    const messages: CommitMessage[][] = [];
    for (let slot = 0; slot < 4; slot++) {
      // Spilled: the runs are made from the written batches themselves (each bucket's rows gathered
      // once, in key order, across the batches they arrived in); buffered: from per-bucket copies.
      const budget = mode === 'spilled' ? { spill: true, maxBufferedRows: 700 } : { bufferRows: 700, maxBufferedRows: 700 };
      const write = await TableWrite.open(store, table.path, table.schema, { writerId: `a${slot}`, sequenceSlot: slot, dataPath: RUNS, ...budget, baseSnapshotId: null });
      // Slot s writes every (s + 1)-th key of 4,096, twice for some (the later row of a writer wins), deleting every 17th.
      const rows: unknown[][] = [];
      const kinds: number[] = [];
      for (let i = 0; i < 4096; i += slot + 1) {
        for (const repeat of i % 7 === 0 ? [0, 1] : [0]) {
          const row = [...keyOf(i), ...valueOf(slot, i + repeat)];
          const deleted = i % 17 === 0 && slot === 2;
          rows.push(row);
          kinds.push(deleted ? 3 : 0);
          model.set(JSON.stringify(keyOf(i), (_, v: unknown) => (typeof v === 'bigint' ? String(v) : v)), { row, deleted });
        }
      }
      for (let i = 0; i < rows.length; i += 333) await write.writeRows(rows.slice(i, i + 333) as never, kinds.slice(i, i + 333));
      messages.push(await write.prepareCommit());
    }
    const runs = messages.flatMap((m, slot) => m.flatMap((x) => x.dataIncrement.newFiles.map((f) => ({ fileName: f.fileName, size: Number(f.fileSize), slot, minSequence: f.minSequenceNumber }))));
    assert.ok(runs.length >= 8, `many runs (${runs.length})`);
    const merged = await mergeBucket({ store, tablePath: table.path, runsPath: RUNS, schema: table.schema, partition: messages[0]![0]!.partition, bucket: 0, totalBuckets: 1, runs, writerId: 'adv', batchRows: 256 });
    assert.equal(merged.rows, model.size, 'one record per key, deletes included');
    const files = merged.message?.dataIncrement.newFiles ?? [];
    assert.equal(files.length, 1);
    assert.equal(files[0]!.rowCount, BigInt(model.size));
    await table.newCommit('u').commit([merged.message!]);
    const expected = [...model.values()].filter((e) => !e.deleted).map((e) => e.row);
    const read = await table.newRead().toArray();
    const canonical = (rows: readonly (readonly unknown[])[]): string[] => rows.map((r) => JSON.stringify(r, (_, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v))).sort();
    assert.deepStrictEqual(canonical(read), canonical(expected));
    // The one file: keys strictly ascending in Paimon's order, and row groups filled (not one per merge batch).
    const { reader, rows: fileRows } = await readMergedFile(table, files[0]!.fileName);
    assert.ok(reader.rowGroupCount <= 2, `full row groups (${reader.rowGroupCount} for ${fileRows.length} rows; one per 256-row merge batch would be ${Math.ceil(fileRows.length / 256)})`);
    const types = table.schema.fields.slice(0, 2).map((f) => f.type);
    for (let i = 1; i < fileRows.length; i++) assert.equal(compareKeys(fileRows[i - 1]!.slice(0, 2), fileRows[i]!.slice(0, 2), types), -1, `keys ascend at row ${i}`);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
}

/** A merged data file of bucket 0 of an unpartitioned table, read raw: its reader and its key-value rows in file order. */
async function readMergedFile(table: Table, fileName: string): Promise<{ reader: ParquetDataFileReader; rows: InternalValue[][] }> {
  const bytes = await table.store.get(`${table.path}/bucket-0/${fileName}`);
  const reader = await ParquetDataFileReader.open(byteSourceFromBytes(bytes));
  const rows: InternalValue[][] = [];
  const rowType = keyValueRowType({ fields: table.schema.fields }, table.schema.primaryKeys);
  for await (const batch of reader.batches(rowType)) rows.push(...rowsFromBatch(batch));
  return { reader, rows };
}

test('more runs than one pass may hold: merged in passes through intermediate runs, with exactly the one-pass result, colliding keys counted once, the scratch removed', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'tributary-bucket-passes-'));
  try {
    const store = new LocalObjectStore(dir);
    const table = await createTable(store, {
      database: 'db',
      name: 'passes',
      schema: {
        fields: [{ name: 'k', type: 'BIGINT NOT NULL' }, { name: 'ts', type: 'INT' }, { name: 'v', type: 'STRING' }],
        primaryKeys: ['k'],
        options: { bucket: '1', 'sequence.field': 'ts' },
      },
    });
    // Writer w (slot w; writers 8 and 9 share slot 8, so where their `ts` agrees a key's records
    // can tie in every sequence: the later run decides) writes the keys i < 400 with
    // i % (w % 5 + 2) === 0, in spills of 37 rows (several runs per writer, so a writer's runs fall
    // in different groups); `ts` (the sequence field) is often smaller for a later writer, so it,
    // not the slot, decides; writer 4 deletes some keys.
    const writers = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9];
    const slotOf = (w: number): number => (w === 9 ? 8 : w);
    const written = new Map<bigint, Set<number>>();
    const runs: { fileName: string; size: number; rows: number; slot: number; minSequence: bigint }[] = [];
    for (const w of writers) {
      const write = await TableWrite.open(store, table.path, table.schema, { writerId: `w${w}`, sequenceSlot: slotOf(w), dataPath: RUNS, spill: true, maxBufferedRows: 37, baseSnapshotId: null });
      const rows: [bigint, number | null, string | null][] = [];
      const kinds: number[] = [];
      for (let i = 0; i < 400; i++) {
        if (i % ((w % 5) + 2) !== 0) continue;
        const k = BigInt(i);
        rows.push([k, w === 9 && i % 3 === 0 ? 100 : (i * 7 + slotOf(w) * 13) % 50, i % 11 === 0 ? null : `w${w}-${i}-${'é'.repeat(i % 4)}`]);
        kinds.push(w === 4 && i % 3 === 0 ? 3 : 0);
        written.set(k, (written.get(k) ?? new Set()).add(slotOf(w)));
      }
      for (let i = 0; i < rows.length; i += 37) await write.writeRows(rows.slice(i, i + 37), kinds.slice(i, i + 37));
      for (const m of await write.prepareCommit()) {
        for (const f of m.dataIncrement.newFiles) runs.push({ fileName: f.fileName, size: Number(f.fileSize), rows: Number(f.rowCount), slot: slotOf(w), minSequence: f.minSequenceNumber });
      }
    }
    assert.ok(runs.length > 30, `many runs (${runs.length})`);
    const expectedColliding = [...written.values()].filter((slots) => slots.size > 1).length;

    // Every object the merge puts, by key.
    const puts: string[] = [];
    const spied = new Proxy(store, {
      get(target, name, receiver) {
        const value = Reflect.get(target, name, receiver) as unknown;
        if (typeof value !== 'function') return value;
        if (name === 'put' || name === 'putIfAbsent') {
          return (key: string, ...rest: unknown[]) => {
            puts.push(key);
            return (value as (...a: unknown[]) => unknown).call(target, key, ...rest);
          };
        }
        return (value as (...a: unknown[]) => unknown).bind(target);
      },
    });
    const base = bucketZero(table, runs);
    const readMerged = (message: CommitMessage | undefined) => readKeyValues(store, table, message);
    const once = await mergeBucket({ ...base, store, writerId: 'once', fanIn: Number.POSITIVE_INFINITY, mergeBudgetBytes: Number.POSITIVE_INFINITY });
    for (const limits of [{ fanIn: 3 }, { fanIn: 7 }, { mergeBudgetBytes: 1 }]) {
      puts.length = 0;
      const passes = await mergeBucket({ ...base, store: spied, writerId: 'passes', scratchPath: 'staging/scratch', ...limits });
      const scratch = puts.filter((key) => key.startsWith('staging/scratch/'));
      assert.ok(scratch.length > 0 && scratch.every((key) => /^staging\/scratch\/data-passes-merge-[0-9a-f-]+\.run$/.test(key)), `${JSON.stringify(limits)}: intermediate runs written under the scratch path (${scratch.length})`);
      assert.deepEqual(puts.filter((key) => !key.startsWith('staging/scratch/') && !key.startsWith(`${table.path}/bucket-0/data-passes-`)), [], 'nothing else written');
      const left: string[] = [];
      for await (const o of store.list('staging/scratch/')) left.push(o.key);
      assert.deepEqual(left, [], 'the intermediate runs are deleted once the merge ends');
      assert.equal(passes.collidingKeys, expectedColliding, `${JSON.stringify(limits)}: keys written by several writers, each counted once`);
      assert.equal(passes.rows, once.rows);
      assert.deepEqual(await readMerged(passes.message), await readMerged(once.message), `${JSON.stringify(limits)}: the records of one pass, in order`);
    }
    assert.equal(once.collidingKeys, expectedColliding);
    assert.equal(once.rows, written.size, 'one record per key');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('a bucket a little over one pass: only a leading group of runs is merged first, the rest read once, with exactly the one-pass result', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'tributary-bucket-leading-'));
  try {
    const store = new LocalObjectStore(dir);
    const table = await createTable(store, {
      database: 'db',
      name: 'leading',
      schema: { fields: [{ name: 'k', type: 'BIGINT NOT NULL' }, { name: 'v', type: 'STRING' }], primaryKeys: ['k'], options: { bucket: '1' } },
    });
    // 10 writers (slots) × 3 spills of 5,000 rows: 30 runs of more than one block (4,096 rows)
    // each, keys shared by several writers (writer w writes every key i ≡ w mod 3 of its range).
    const runs: { fileName: string; size: number; rows: number; slot: number; minSequence: bigint }[] = [];
    for (let w = 0; w < 10; w++) {
      const write = await TableWrite.open(store, table.path, table.schema, { writerId: `w${w}`, sequenceSlot: w, dataPath: RUNS, spill: true, maxBufferedRows: 5000, baseSnapshotId: null });
      for (let spill = 0; spill < 3; spill++) {
        const rows: [bigint, string | null][] = [];
        for (let i = 0; i < 5000; i++) {
          const k = BigInt(((spill * 5000 + i) * 3 + (w % 3)) % 40_000);
          rows.push([k, i % 13 === 0 ? null : `w${w}-s${spill}-${i}-${'ü'.repeat(i % 3)}`]);
        }
        await write.writeRows(rows);
      }
      for (const m of await write.prepareCommit()) {
        for (const f of m.dataIncrement.newFiles) runs.push({ fileName: f.fileName, size: Number(f.fileSize), rows: Number(f.rowCount), slot: w, minSequence: f.minSequenceNumber });
      }
    }
    assert.equal(runs.length, 30);
    assert.ok(runs.every((r) => r.rows > 4096), 'every run holds more than one block');
    const runBytes = runs.reduce((a, r) => a + r.size, 0);
    const blocks = runs.reduce((a, r) => a + Math.ceil((r.size * 4096) / r.rows), 0);

    // The bytes of every intermediate run, taken as the merge deletes them.
    let scratchObjects = 0;
    let scratchBytes = 0;
    const spied = new Proxy(store, {
      get(target, name, receiver) {
        const value = Reflect.get(target, name, receiver) as unknown;
        if (typeof value !== 'function') return value;
        if (name === 'deleteMany') {
          return async (keys: Iterable<string>) => {
            const all = [...keys];
            for (const key of all) {
              const meta = await target.stat(key);
              scratchObjects += 1;
              scratchBytes += meta?.size ?? 0;
            }
            return target.deleteMany(all);
          };
        }
        return (value as (...a: unknown[]) => unknown).bind(target);
      },
    });
    const base = bucketZero(table, runs);
    const readMerged = (message: CommitMessage | undefined) => readKeyValues(store, table, message);
    const once = await mergeBucket({ ...base, store, writerId: 'once', fanIn: Number.POSITIVE_INFINITY, mergeBudgetBytes: Number.POSITIVE_INFINITY });
    assert.equal(scratchObjects, 0);

    // The blocks of all 30 runs are 1.25 times what one pass may hold.
    const passes = await mergeBucket({ ...base, store: spied, writerId: 'passes', scratchPath: 'staging/scratch', mergeBudgetBytes: Math.floor(blocks * 0.8) });
    assert.equal(scratchObjects, 1, 'one intermediate run');
    assert.ok(scratchBytes > 0 && scratchBytes < runBytes * 0.4, `the intermediate run holds a leading part of the records (${scratchBytes} of ${runBytes} bytes), not all of them`);
    assert.equal(passes.rows, once.rows);
    assert.equal(passes.collidingKeys, once.collidingKeys);
    assert.ok(once.collidingKeys > 0);
    assert.deepEqual(await readMerged(passes.message), await readMerged(once.message), 'the records of one pass, in order');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
