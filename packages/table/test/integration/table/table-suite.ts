/**
 * The table API end to end (create, write, commit, read) as one suite, run against every
 * ObjectStore: the local disk and MinIO. Each test creates its own table under a unique name.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { errorFrom, isTributaryError } from '@tributary/errors';
import { uniqueName } from '@tributary/testkit';
import { FileStoreScan, createTable, dataFilesMessage, listTables, openTable, tableErrors, type InternalRow, type ObjectStore, type SchemaDefinition, type Table } from '@tributary/table';
import { encodeTableSchema } from '@tributary/table/spec';

const D = 3; // -D
const UB = 1; // -U
const UA = 2; // +U

/** A canonical, order-free form of rows for comparison. */
export function canonical(rows: readonly InternalRow[]): string[] {
  return rows.map((r) => JSON.stringify(r, (_k, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v))).sort();
}

async function codeOf(promise: Promise<unknown>): Promise<string | undefined> {
  try {
    await promise;
    return undefined;
  } catch (error) {
    assert.ok(isTributaryError(error), String(error));
    return error.code;
  }
}

async function writeAndCommit(
  table: Table,
  rows: InternalRow[],
  kinds?: number[],
  commit: { user?: string; identifier?: bigint; overwrite?: Uint8Array[] | 'all' } = {},
): Promise<number> {
  const write = await table.newWrite({ writerId: uniqueName('w') });
  await write.writeRows(rows, kinds);
  const messages = await write.prepareCommit();
  const result = await table.newCommit(commit.user ?? uniqueName('user')).commit(messages, {
    ...(commit.identifier !== undefined ? { identifier: commit.identifier } : {}),
    ...(commit.overwrite !== undefined
      ? { kind: 'OVERWRITE' as const, ...(commit.overwrite === 'all' ? {} : { overwritePartitions: commit.overwrite }) }
      : {}),
  });
  return result.snapshotId;
}

async function readAll(table: Table, snapshotId?: number): Promise<string[]> {
  return canonical(await table.newRead(snapshotId === undefined ? {} : { snapshotId }).toArray());
}

const ORDERS: SchemaDefinition = {
  fields: [
    { name: 'id', type: 'BIGINT' },
    { name: 'dt', type: 'DATE' },
    { name: 'status', type: 'STRING' },
    { name: 'amount', type: 'DECIMAL(18, 2)' },
    { name: 'ts', type: 'TIMESTAMP(3)' },
  ],
};
const ts = (ms: number) => ({ epochMillis: ms, nanoOfMillis: 0 });

export function tableSuite(name: string, makeStore: () => Promise<ObjectStore>, release: (store: ObjectStore) => Promise<void>): void {
  describe(`table API: ${name}`, () => {
    let store: ObjectStore;
    test.before(async () => {
      store = await makeStore();
    });
    test.after(async () => {
      await release(store);
    });
    const newTable = (schema: SchemaDefinition) => createTable(store, { database: 'db', name: uniqueName('t'), schema });

    test('catalog: create, open, refuse a second create and unsupported tables', async () => {
      const table = await newTable({ ...ORDERS, partitionKeys: ['dt'] });
      const opened = await openTable(store, 'db', table.name);
      assert.deepEqual(opened.schema, table.schema);
      assert.equal(opened.schema.options['bucket'], '-1');
      assert.equal(opened.schema.options['file.format'], 'parquet');
      assert.equal(await codeOf(createTable(store, { database: 'db', name: table.name, schema: ORDERS })), 'TABLE_ALREADY_EXISTS');
      assert.equal(await codeOf(openTable(store, 'db', uniqueName('missing'))), 'TABLE_NOT_FOUND');
      const pkDynamic = { ...ORDERS, primaryKeys: ['id'] };
      assert.equal(await codeOf(newTable(pkDynamic)), 'TABLE_UNSUPPORTED');
      assert.equal(await codeOf(newTable({ ...pkDynamic, options: { bucket: '2', 'merge-engine': 'first-row' } })), 'TABLE_UNSUPPORTED');
      assert.equal(await codeOf(newTable({ ...pkDynamic, options: { bucket: '2', 'deletion-vectors.enabled': 'true' } })), 'TABLE_UNSUPPORTED');
      assert.equal(await table.latestSnapshot(), null);
      assert.deepEqual(await table.newRead().toArray(), []);
    });

    test('catalog listing: listTables finds the directories holding a schema; dataFiles lists a snapshot\'s live files', async () => {
      const database = uniqueName('catalog').replace(/-/g, '_');
      const b = await createTable(store, { database, name: 'b', schema: { ...ORDERS, partitionKeys: ['dt'] } });
      await createTable(store, { database, name: 'a', schema: ORDERS });
      await store.put(`${database}.db/not_a_table/data.txt`, new Uint8Array(1)); // no schema
      const listed = (await listTables(store)).filter((t) => t.database === database);
      assert.deepEqual(listed, [{ database, name: 'a' }, { database, name: 'b' }]);
      assert.deepEqual(await b.dataFiles(), { snapshotId: null, files: [] });
      await writeAndCommit(b, [[1n, 19723, 'x', 1n, ts(0)], [2n, 19724, 'y', 2n, ts(0)]]);
      await writeAndCommit(b, [[3n, 19724, 'z', 3n, ts(0)]], undefined, { overwrite: [b.partitionRow({ dt: 19724 })] });
      const first = await b.dataFiles(1);
      assert.equal(first.snapshotId, 1);
      assert.deepEqual(first.files.map((f) => [f.partition, f.bucket, f.level, f.rows]), [['dt=19723/', 0, 0, 1], ['dt=19724/', 0, 0, 1]]);
      const latest = await b.dataFiles();
      assert.equal(latest.snapshotId, 2);
      assert.deepEqual(latest.files.map((f) => [f.partition, f.rows]), [['dt=19723/', 1], ['dt=19724/', 1]]);
      for (const f of latest.files) {
        assert.ok(f.path.startsWith(`${f.partition}bucket-0/`), f.path);
        assert.equal((await store.stat(`${b.path}/${f.path}`))?.size, f.size);
      }
      assert.notEqual(latest.files[1]?.path, first.files[1]?.path, 'the overwritten partition has a new file');
      assert.equal(await codeOf(b.dataFiles(7)), 'SNAPSHOT_NOT_FOUND');
      assert.deepEqual(await b.snapshots.listIds(), [1, 2]);
    });

    test('append table, partitioned, bucket-unaware: commits, overwrite, time travel', async () => {
      const table = await newTable({ ...ORDERS, partitionKeys: ['dt'] });
      const first: InternalRow[] = [
        [1n, 19723, 'new', 1050n, ts(1704067200000)],
        [2n, 19724, 'paid', -1n, ts(-1000)],
        [3n, 19723, null, null, null],
      ];
      const second: InternalRow[] = [[4n, 19725, 'héllo wörld €', 99999n, ts(0)], [1n, 19723, 'new', 1050n, ts(1704067200000)]];
      const s1 = await writeAndCommit(table, first);
      const s2 = await writeAndCommit(table, second);
      assert.deepEqual([s1, s2], [1, 2]);
      assert.deepEqual(await readAll(table), canonical([...first, ...second]));
      // overwrite one partition: its old rows go, the others stay
      const replacement: InternalRow[] = [[9n, 19723, 'replaced', 1n, ts(5)]];
      const s3 = await writeAndCommit(table, replacement, undefined, { overwrite: [table.partitionRow({ dt: 19723 })] });
      assert.equal(s3, 3);
      assert.deepEqual(await readAll(table), canonical([first[1] as InternalRow, second[0] as InternalRow, ...replacement]));
      assert.deepEqual(await readAll(table, 1), canonical(first));
      assert.deepEqual(await readAll(table, 2), canonical([...first, ...second]));
      const snapshot = await table.snapshot(3);
      assert.equal(snapshot.commitKind, 'OVERWRITE');
      assert.equal(snapshot.totalRecordCount, 3n);
      assert.equal(snapshot.deltaRecordCount, 1n - 3n);
      // partition pruning
      assert.deepEqual(canonical(await table.newRead({ partitionFilter: { dt: 19724 } }).toArray()), canonical([first[1] as InternalRow]));
      assert.equal(await codeOf(table.newRead({ snapshotId: 99 }).toArray()), 'SNAPSHOT_NOT_FOUND');
      assert.equal(await codeOf(table.newRead({ partitionFilter: { status: 'x' } }).toArray()), 'SCAN_FILTER_INVALID');
    });

    test('append table, fixed buckets, and an overwrite of the whole table', async () => {
      const table = await newTable({ ...ORDERS, options: { bucket: '3', 'bucket-key': 'id' } });
      const rows: InternalRow[] = Array.from({ length: 50 }, (_, i) => [BigInt(i), 19723 + (i % 3), `s${i}`, BigInt(i * 100), ts(i)]);
      await writeAndCommit(table, rows);
      assert.deepEqual(await readAll(table), canonical(rows));
      const buckets = new Set((await table.newRead().plan()).map((e) => e.bucket));
      assert.deepEqual([...buckets].sort(), [0, 1, 2]);
      for (const e of await table.newRead().plan()) assert.equal(e.totalBuckets, 3);
      const only = await table.newRead({ buckets: [1] }).toArray();
      assert.ok(only.length > 0 && only.length < rows.length);
      await writeAndCommit(table, rows.slice(0, 5), undefined, { overwrite: 'all' });
      assert.deepEqual(await readAll(table), canonical(rows.slice(0, 5)));
      assert.equal(await codeOf(writeAndCommit(table, [[1n, 1, 'x', 1n, ts(1)]], [D])), 'WRITE_ROW_INVALID');
    });

    test('primary-key table: inserts, updates, deletes across commits; time travel', async () => {
      const table = await newTable({ ...ORDERS, partitionKeys: ['dt'], primaryKeys: ['id', 'dt'], options: { bucket: '4' } });
      const v1: InternalRow[] = Array.from({ length: 40 }, (_, i) => [BigInt(i), 19723 + (i % 2), 'new', BigInt(i), ts(i)]);
      await writeAndCommit(table, v1);
      // update even ids, delete ids divisible by 5, insert 40..44; a key written twice in one batch keeps the last
      const updates = v1.filter((r) => (r[0] as bigint) % 2n === 0n).map((r) => [r[0], r[1], 'paid', r[3], r[4]] as InternalRow);
      const deletes = v1.filter((r) => (r[0] as bigint) % 5n === 0n);
      const inserts: InternalRow[] = Array.from({ length: 5 }, (_, i) => [BigInt(40 + i), 19723, 'new', 0n, ts(0)]);
      const twice: InternalRow[] = [[41n, 19723, 'first', 0n, ts(0)], [41n, 19723, 'second', 0n, ts(0)]];
      const rows = [...updates, ...deletes, ...inserts, ...twice];
      const kinds = [...updates.map(() => UA), ...deletes.map(() => D), ...inserts.map(() => 0), 0, 0];
      await writeAndCommit(table, rows, kinds);
      const expected = new Map<bigint, InternalRow>();
      for (const r of v1) expected.set(r[0] as bigint, r);
      for (const r of updates) expected.set(r[0] as bigint, r);
      for (const r of deletes) expected.delete(r[0] as bigint);
      for (const r of [...inserts, ...twice]) expected.set(r[0] as bigint, r);
      assert.deepEqual(await readAll(table), canonical([...expected.values()]));
      assert.deepEqual(await readAll(table, 1), canonical(v1));
      // a -U alone retracts; a +I after a delete brings the key back
      await writeAndCommit(table, [[1n, 19724, 'x', 1n, ts(1)], [0n, 19723, 'back', 0n, ts(0)]], [UB, 0]);
      expected.delete(1n);
      expected.set(0n, [0n, 19723, 'back', 0n, ts(0)]);
      assert.deepEqual(await readAll(table), canonical([...expected.values()]));
      // files record their deletes exactly, and sequence numbers only grow per bucket
      const files = await table.newRead().plan();
      assert.ok(files.some((e) => (e.file.deleteRowCount ?? 0n) > 0n));
      const snapshot = await table.latestSnapshot();
      assert.equal(snapshot?.id, 3n);
    });

    test('primary-key table: many flushes per bucket (bounded buffers) still merge to the latest rows', async () => {
      const table = await newTable({ ...ORDERS, primaryKeys: ['id'], options: { bucket: '2' } });
      const write = await table.newWrite({ writerId: uniqueName('w'), bufferRows: 7, maxBufferedRows: 10 });
      const expected = new Map<bigint, InternalRow>();
      for (let round = 0; round < 6; round++) {
        const rows: InternalRow[] = Array.from({ length: 20 }, (_, i) => [BigInt((i * 7 + round) % 25), 19723, `r${round}`, BigInt(i), ts(round)]);
        await write.writeRows(rows);
        for (const r of rows) expected.set(r[0] as bigint, r);
      }
      const messages = await write.prepareCommit();
      assert.ok(messages.some((m) => m.dataIncrement.newFiles.length > 2), 'several level-0 files in one bucket');
      await table.newCommit(uniqueName('u')).commit(messages);
      assert.deepEqual(await readAll(table), canonical([...expected.values()]));
      assert.equal(await codeOf(write.writeRows([])), 'WRITE_CLOSED');
    });

    test('sequence numbers: contiguous per bucket across flushes, continued from the base snapshot', async () => {
      const table = await newTable({ ...ORDERS, primaryKeys: ['id'], options: { bucket: '1' } });
      const rowsOf = (from: number, n: number): InternalRow[] => Array.from({ length: n }, (_, i) => [BigInt(from + i), 1, 'x', 1n, ts(i)]);
      const first = await table.newWrite({ writerId: uniqueName('w'), bufferRows: 10 });
      for (const [from, n] of [[0, 10], [10, 10], [20, 5]] as const) await first.writeRows(rowsOf(from, n));
      const m1 = await first.prepareCommit();
      const ranges = m1.flatMap((m) => m.dataIncrement.newFiles.map((f) => [f.minSequenceNumber, f.maxSequenceNumber]));
      assert.deepEqual(ranges, [[0n, 9n], [10n, 19n], [20n, 24n]]);
      await table.newCommit(uniqueName('u')).commit(m1);
      const second = await table.newWrite({ writerId: uniqueName('w') });
      await second.writeRows(rowsOf(0, 3));
      const m2 = await second.prepareCommit();
      assert.deepEqual(m2.flatMap((m) => m.dataIncrement.newFiles.map((f) => [f.minSequenceNumber, f.maxSequenceNumber])), [[25n, 27n]]);
      // a writer pinned to an empty base starts again at 0 (its commit would be rebased above the live rows)
      const pinned = await table.newWrite({ writerId: uniqueName('w'), baseSnapshotId: null });
      await pinned.writeRows(rowsOf(0, 1));
      assert.deepEqual((await pinned.prepareCommit()).flatMap((m) => m.dataIncrement.newFiles.map((f) => f.minSequenceNumber)), [0n]);
    });

    test('sequence numbers: a table dropped and made again under its name continues from its own snapshot, not the old table\'s of the same id', async () => {
      const name = uniqueName('t');
      const schema: SchemaDefinition = { ...ORDERS, primaryKeys: ['id'], options: { bucket: '1' } };
      const rowsOf = (n: number): InternalRow[] => Array.from({ length: n }, (_, i) => [BigInt(i), 1, 'x', 1n, ts(i)]);
      const firstSeq = async (table: Table): Promise<bigint[]> => {
        const write = await table.newWrite({ writerId: uniqueName('w') });
        await write.writeRows(rowsOf(1));
        return (await write.prepareCommit()).flatMap((m) => m.dataIncrement.newFiles.map((f) => f.minSequenceNumber));
      };
      const old = await createTable(store, { database: 'db', name, schema });
      assert.equal(await writeAndCommit(old, rowsOf(25)), 1);
      assert.deepEqual(await firstSeq(old), [25n]);
      assert.deepEqual(await firstSeq(old), [25n], 'a second writer on the same snapshot');
      const keys: string[] = [];
      for await (const o of store.list(`${old.path}/`)) keys.push(o.key);
      await store.deleteMany(keys);
      const again = await createTable(store, { database: 'db', name, schema });
      assert.equal(await writeAndCommit(again, rowsOf(3)), 1);
      assert.deepEqual(await firstSeq(again), [3n]);
    });

    test('sequence slots: disjoint ranges per writer, the later slot wins a key whatever the message order', async () => {
      const table = await newTable({ ...ORDERS, primaryKeys: ['id'], options: { bucket: '1' } });
      await writeAndCommit(table, [[1n, 1, 'base', 1n, ts(0)]]);
      const slots = [0, 1, 2];
      const prepared = await Promise.all(
        slots.map(async (slot) => {
          const write = await table.newWrite({ writerId: uniqueName('w'), sequenceSlot: slot });
          await write.writeRows([[1n, 1, `slot-${slot}`, 1n, ts(slot)], [BigInt(10 + slot), 1, 'own', 1n, ts(slot)]]);
          return write.prepareCommit();
        }),
      );
      const firsts = prepared.map((m) => m.flatMap((x) => x.dataIncrement.newFiles.map((f) => f.minSequenceNumber)));
      assert.deepEqual(firsts, [[1n], [1n + 2n ** 32n], [1n + 2n * 2n ** 32n]], 'each slot starts STRIDE after the previous one');
      // One commit, the messages in another order than the slots: slot 2 still wins key 1.
      await table.newCommit(uniqueName('u')).commit([...prepared[2]!, ...prepared[0]!, ...prepared[1]!]);
      const rows = await table.newRead().toArray();
      assert.deepEqual(rows.find((r) => r[0] === 1n)?.[2], 'slot-2');
      assert.equal(rows.length, 4);
      // A slot whose range passes the largest 64-bit number is refused when it writes.
      const far = await table.newWrite({ writerId: uniqueName('w'), sequenceSlot: 2 ** 31 });
      assert.equal(await codeOf(far.writeRows([[1n, 1, 'x', 1n, ts(0)]]).then(() => far.prepareCommit())), 'SEQUENCE_RANGE_EXHAUSTED');
      assert.equal(await codeOf(table.newWrite({ sequenceSlot: -1 })), 'TABLE_OPTION_INVALID');
    });

    test('rebase: two writers on one base snapshot, the later commit wins; the originals stay unreferenced', async () => {
      const table = await newTable({ ...ORDERS, partitionKeys: ['dt'], primaryKeys: ['id', 'dt'], options: { bucket: '2' } });
      const keys = [1n, 2n, 3n, 4n, 5n, 6n];
      await writeAndCommit(table, keys.map((id) => [id, 7, 'base', 1n, ts(0)]));
      const prepare = async (tag: string) => {
        const write = await table.newWrite({ writerId: uniqueName(tag), bufferRows: 4 });
        await write.writeRows(keys.map((id) => [id, 7, tag, 1n, ts(1)]));
        await write.writeRows([[100n, 7, tag, 1n, ts(1)]]);
        return write.prepareCommit();
      };
      const a = await prepare('a');
      const b = await prepare('b');
      await table.newCommit(uniqueName('u')).commit(b);
      const result = await table.newCommit(uniqueName('u')).commit(a);
      assert.equal(result.alreadyCommitted, false);
      const rows = await table.newRead().toArray();
      assert.deepEqual(rows.map((r) => r[2]), Array.from({ length: 7 }, () => 'a'), 'a, committed last, wins every key');
      // a's files were rewritten above b's numbers, under new names; b's were not touched.
      const live = await table.newRead().plan();
      const original = new Set(a.flatMap((m) => m.dataIncrement.newFiles.map((f) => `${m.bucket}/${f.fileName}`)));
      const committedA = live.filter((e) => e.file.fileName.includes('-seq'));
      assert.equal(committedA.length, original.size);
      for (const e of committedA) {
        const bMax = live.filter((x) => x.bucket === e.bucket && !x.file.fileName.includes('-seq')).reduce((m, x) => (x.file.maxSequenceNumber > m ? x.file.maxSequenceNumber : m), -1n);
        assert.ok(e.file.minSequenceNumber > bMax, `${e.file.fileName} starts above the live rows of its bucket`);
      }
      assert.ok(live.every((e) => !original.has(`${e.bucket}/${e.file.fileName}`)), 'no original of a rebased file is referenced');
      for (const key of table.dataFileKeys(a)) assert.notEqual(await store.stat(key), null, 'the originals are left in place');
      const b0 = b.flatMap((m) => m.dataIncrement.newFiles);
      assert.ok(b0.every((f) => live.some((e) => e.file.fileName === f.fileName)), 'b committed as written');
    });

    test('countSharedKeys: keys written by more than one writer, counted once each', async () => {
      const table = await newTable({ ...ORDERS, primaryKeys: ['id'], options: { bucket: '2' } });
      const ids = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => BigInt(from + i));
      const prepare = async (batches: bigint[][]) => {
        const write = await table.newWrite({ writerId: uniqueName('w'), bufferRows: 3 });
        for (const batch of batches) await write.writeRows(batch.map((id) => [id, 1, 'v', 1n, ts(0)]));
        return write.prepareCommit();
      };
      // Writer 0 repeats key 3 in a later flush: a repeat within one writer is not a collision.
      const shards = [await prepare([ids(1, 10), [3n]]), await prepare([ids(5, 15)]), await prepare([ids(14, 20), [1n]]), await prepare([ids(30, 40)])];
      // Shared: 5..10 (writers 0 and 1), 14 and 15 (1 and 2), 1 (0 and 2).
      assert.equal(await table.countSharedKeys(shards), 9);
      assert.equal(await table.countSharedKeys([shards[0]!, shards[3]!]), 0);
      assert.equal(await table.countSharedKeys([shards[0]!]), 0);
      // Random writers (seeded): the count equals a naive count over the written key sets.
      let seed = 7;
      const next = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
      for (let round = 0; round < 4; round++) {
        const sets = Array.from({ length: 2 + next(4) }, () => {
          const from = next(60);
          return Array.from({ length: 1 + next(30) }, () => BigInt(from + next(40)));
        });
        const random = await Promise.all(sets.map((set) => prepare([set.slice(0, set.length >> 1), set.slice(set.length >> 1)])));
        const owners = new Map<bigint, Set<number>>();
        sets.forEach((set, w) => set.forEach((id) => owners.set(id, (owners.get(id) ?? new Set()).add(w))));
        const naive = [...owners.values()].filter((o) => o.size > 1).length;
        assert.equal(await table.countSharedKeys(random), naive, `round ${round}`);
        // Key ranges decoded ahead (writerKeyRanges), all or some: the same count.
        const ranges = random.map((messages) => table.writerKeyRanges(messages));
        assert.equal(await table.countSharedKeys(random, ranges), naive, `round ${round}, ranges decoded ahead`);
        assert.equal(await table.countSharedKeys(random, ranges.map((r, w) => (w % 2 === 0 ? r : undefined))), naive, `round ${round}, some decoded ahead`);
        // Ranges of other messages (each writer given the next one's), or of other key types, are not used: decoded again.
        const shifted = ranges.map((_, w) => ranges[(w + 1) % ranges.length]);
        assert.equal(await table.countSharedKeys(random, shifted), naive, `round ${round}, another writer's ranges ignored`);
        const otherTypes = ranges.map((r) => (r === undefined ? r : { ...r, keyTypes: '[]' }));
        assert.equal(await table.countSharedKeys(random, otherTypes), naive, `round ${round}, ranges of other key types ignored`);
      }
      // Used when they are of these very messages: ranges saying nothing overlaps give no collision (so the test above sees them ignored, not merely equal).
      const ahead = shards.map((messages) => table.writerKeyRanges(messages));
      const empty = ahead.map((r) => (r === undefined ? r : { ...r, files: [] }));
      assert.equal(await table.countSharedKeys(shards, empty), 0);
    });

    test('writerKeyRanges: undefined for an append table; refuses what the count refuses', async () => {
      const append = await newTable({ ...ORDERS, options: { bucket: '-1' } });
      const write = await append.newWrite({ writerId: uniqueName('w') });
      await write.writeRows([[1n, 1, 'v', 1n, ts(0)]]);
      assert.equal(append.writerKeyRanges(await write.prepareCommit()), undefined);
      const keyed = await newTable({ ...ORDERS, primaryKeys: ['id'], options: { bucket: '1' } });
      const w2 = await keyed.newWrite({ writerId: uniqueName('w') });
      await w2.writeRows([[1n, 1, 'v', 1n, ts(0)]]);
      const [m] = await w2.prepareCommit();
      assert.ok(m !== undefined);
      const compacted = { ...m, compactIncrement: { ...m.compactIncrement, compactAfter: m.dataIncrement.newFiles } };
      assert.throws(() => keyed.writerKeyRanges([compacted]), (e: unknown) => isTributaryError(e) && e.code === 'COMMIT_MESSAGE_UNSUPPORTED');
      await assert.rejects(keyed.countSharedKeys([[compacted]]), (e: unknown) => isTributaryError(e) && e.code === 'COMMIT_MESSAGE_UNSUPPORTED');
    });

    test('append table: at most maxOpenFiles files stay open between flushes', async () => {
      const table = await newTable({ ...ORDERS, partitionKeys: ['dt'] });
      const write = await table.newWrite({ writerId: uniqueName('w'), bufferRows: 2, maxOpenFiles: 2 });
      const rows: InternalRow[] = [];
      for (let round = 0; round < 3; round++) {
        const batch = [0, 1, 2, 3].flatMap((p) => [0, 1].map((i): InternalRow => [BigInt(round * 100 + p * 10 + i), 19723 + p, 'v', 1n, ts(i)]));
        rows.push(...batch);
        await write.writeRows(batch);
      }
      const messages = await write.prepareCommit();
      assert.equal(messages.length, 4);
      assert.ok(messages.every((m) => m.dataIncrement.newFiles.length >= 2), 'files were closed early and new ones opened');
      await table.newCommit(uniqueName('u')).commit(messages);
      assert.deepEqual(await readAll(table), canonical(rows));
    });

    test('writes that are not awaited still run in order', async () => {
      const table = await newTable({ ...ORDERS, primaryKeys: ['id'], options: { bucket: '2' } });
      const write = await table.newWrite({ writerId: uniqueName('w'), bufferRows: 3 });
      const calls = [0, 1, 2, 3].map((v) => write.writeRows([[1n, 1, `v${v}`, 1n, ts(v)], [BigInt(10 + v), 1, 'x', 1n, ts(v)]]));
      const messages = await write.prepareCommit();
      await Promise.all(calls);
      await table.newCommit(uniqueName('u')).commit(messages);
      const rows = await readAll(table);
      assert.equal(rows.length, 5);
      assert.ok(rows.some((r) => r.includes('"v3"')), rows.join(' '));
    });

    test('primary-key table with sequence.field: the higher field value wins, not the later write', async () => {
      const table = await newTable({ ...ORDERS, primaryKeys: ['id'], options: { bucket: '1', 'sequence.field': 'ts' } });
      await writeAndCommit(table, [[1n, 1, 'newer', 1n, ts(100)], [2n, 1, 'old', 1n, ts(1)]]);
      await writeAndCommit(table, [[1n, 1, 'stale', 1n, ts(50)], [2n, 1, 'fresh', 1n, ts(2)]]);
      assert.deepEqual(await readAll(table), canonical([[1n, 1, 'newer', 1n, ts(100)], [2n, 1, 'fresh', 1n, ts(2)]]));
    });

    test('primary-key table with ignore-delete: retractions are ignored on write and on read', async () => {
      const table = await newTable({ ...ORDERS, primaryKeys: ['id'], options: { bucket: '2', 'ignore-delete': 'true' } });
      await writeAndCommit(table, [[1n, 1, 'a', 1n, ts(1)], [1n, 1, 'a', 1n, ts(1)], [2n, 1, 'b', 1n, ts(1)]], [0, D, 0]);
      await writeAndCommit(table, [[2n, 1, 'b', 1n, ts(1)]], [D]);
      assert.deepEqual(await readAll(table), canonical([[1n, 1, 'a', 1n, ts(1)], [2n, 1, 'b', 1n, ts(1)]]));
    });

    test('commit race: concurrent commits land with linear snapshot ids and no lost rows', async () => {
      const table = await newTable({ ...ORDERS, partitionKeys: ['dt'], options: { 'commit.max-retries': '40', 'commit.min-retry-wait': '5 ms', 'commit.max-retry-wait': '200 ms' } });
      const n = 8;
      const batches = Array.from({ length: n }, (_, k) => Array.from({ length: 10 }, (_, i): InternalRow => [BigInt(k * 100 + i), 19723 + k, `k${k}`, 1n, ts(k)]));
      const prepared = await Promise.all(batches.map(async (rows) => {
        const write = await table.newWrite({ writerId: uniqueName('w') });
        await write.writeRows(rows);
        return write.prepareCommit();
      }));
      const results = await Promise.all(prepared.map((messages, k) => table.newCommit(`racer-${k}`).commit(messages, { identifier: BigInt(k) })));
      assert.deepEqual(results.map((r) => r.snapshotId).sort((a, b) => a - b), Array.from({ length: n }, (_, i) => i + 1));
      assert.ok(results.some((r) => r.attempts > 1), 'at least one commit lost a race and retried');
      assert.deepEqual(await readAll(table), canonical(batches.flat()));
      const latest = await table.latestSnapshot();
      assert.equal(latest?.totalRecordCount, BigInt(n * 10));
      for (let id = 1; id <= n; id++) assert.equal((await table.snapshot(id)).id, BigInt(id));
    });

    test('commit race on a primary-key table: writers on one base, every commit lands, the last snapshot wins each key', async () => {
      const table = await newTable({ ...ORDERS, primaryKeys: ['id'], options: { bucket: '2', 'commit.max-retries': '40', 'commit.min-retry-wait': '5 ms', 'commit.max-retry-wait': '200 ms' } });
      await writeAndCommit(table, [1n, 2n, 3n, 4n].map((id) => [id, 1, 'base', 1n, ts(0)]));
      const n = 5;
      const prepared = await Promise.all(
        Array.from({ length: n }, async (_, k) => {
          const write = await table.newWrite({ writerId: uniqueName('w') });
          await write.writeRows([1n, 2n, 3n, 4n, BigInt(100 + k)].map((id) => [id, 1, `racer-${k}`, 1n, ts(k)]));
          return write.prepareCommit();
        }),
      );
      const results = await Promise.all(prepared.map((messages, k) => table.newCommit(`racer-${k}`).commit(messages)));
      assert.deepEqual(results.map((r) => r.snapshotId).sort((a, b) => a - b), [2, 3, 4, 5, 6]);
      assert.ok(results.some((r) => r.attempts > 1), 'at least one commit lost a race, rebased again and retried');
      const last = results.findIndex((r) => r.snapshotId === n + 1);
      const rows = await table.newRead().toArray();
      assert.deepEqual(rows.filter((r) => (r[0] as bigint) < 100n).map((r) => r[2]), Array.from({ length: 4 }, () => `racer-${last}`));
      assert.equal(rows.length, 4 + n);
      // And so in every snapshot: the keys hold the value of that snapshot's writer.
      for (const r of results) {
        const at = await table.newRead({ snapshotId: r.snapshotId }).toArray();
        const k = results.indexOf(r);
        assert.deepEqual(at.filter((x) => x[0] === 1n).map((x) => x[2]), [`racer-${k}`], `snapshot ${r.snapshotId}`);
      }
      // A commit retried with the same identity and its original messages finds its snapshot, rebased or not.
      for (const [k, messages] of prepared.entries()) {
        const again = await table.newCommit(`racer-${k}`).commit(messages, { baseSnapshotId: 1 });
        assert.deepEqual([again.alreadyCommitted, again.snapshotId], [true, results[k]!.snapshotId]);
      }
    });

    test('a retried commit with the same identity does not commit twice', async () => {
      const table = await newTable(ORDERS);
      const write = await table.newWrite({ writerId: uniqueName('w') });
      await write.writeRows([[1n, 1, 'a', 1n, ts(1)]]);
      const messages = await write.prepareCommit();
      const first = await table.newCommit('sync-42').commit(messages, { identifier: 7n });
      await writeAndCommit(table, [[2n, 1, 'other', 1n, ts(1)]]);
      const again = await table.newCommit('sync-42').commit(messages, { identifier: 7n });
      assert.deepEqual(again, { snapshotId: first.snapshotId, alreadyCommitted: true, attempts: 1, conflicts: 0 });
      const bounded = await table.newCommit('sync-42').commit(messages, { identifier: 7n, baseSnapshotId: 0 });
      assert.equal(bounded.alreadyCommitted, true);
      assert.equal((await table.latestSnapshot())?.id, 2n);
      assert.deepEqual(await readAll(table), canonical([[1n, 1, 'a', 1n, ts(1)], [2n, 1, 'other', 1n, ts(1)]]));
      // another identifier of the same user is a new commit (and here a conflict: the files are already in)
      assert.equal(await codeOf(table.newCommit('sync-42').commit(messages, { identifier: 8n })), 'COMMIT_CONFLICT');
    });

    test('partitions that share a directory (NULL, blank strings) each keep their own files: append and primary key', async () => {
      const blanks = [null, '', ' ', '\t', '\u3000', '__DEFAULT_PARTITION__', 'a'];
      const rowsOf = (values: readonly (string | null)[], first: number, tag: string, q?: number): InternalRow[] =>
        values.map((p, i): InternalRow => (q === undefined ? [BigInt(first + i), p, `${tag}${i}`] : [BigInt(first + i), p, q, `${tag}${i}`]));
      const one = [{ name: 'id', type: 'BIGINT' }, { name: 'p', type: 'STRING' }, { name: 'v', type: 'STRING' }];
      const two = [{ name: 'id', type: 'BIGINT' }, { name: 'p', type: 'STRING' }, { name: 'q', type: 'INT' }, { name: 'v', type: 'STRING' }];
      const layouts: { schema: SchemaDefinition; commits: InternalRow[][]; expected: InternalRow[] }[] = [];
      const appendCommits = [rowsOf(blanks, 0, 'x'), rowsOf(blanks, 10, 'y')];
      layouts.push({ schema: { fields: one, partitionKeys: ['p'] }, commits: appendCommits, expected: appendCommits.flat() });
      layouts.push({ schema: { fields: one, partitionKeys: ['p'], options: { bucket: '2', 'bucket-key': 'id' } }, commits: appendCommits, expected: appendCommits.flat() });
      const twoCommits = [rowsOf(blanks, 0, 'x', -5), rowsOf(blanks, 10, 'y', -5)];
      layouts.push({ schema: { fields: two, partitionKeys: ['p', 'q'] }, commits: twoCommits, expected: twoCommits.flat() });
      // Primary-key fields are NOT NULL; the second commit updates every key of the first.
      const keys = blanks.filter((p) => p !== null);
      const pk = [rowsOf(keys, 0, 'x'), rowsOf(keys, 0, 'y')];
      layouts.push({ schema: { fields: one, partitionKeys: ['p'], primaryKeys: ['id', 'p'], options: { bucket: '2' } }, commits: pk, expected: pk[1]! });
      const pkTwo = [rowsOf(keys, 0, 'x', -5), [...rowsOf(keys, 0, 'y', -5).slice(0, 2), ...rowsOf(keys, 20, 'z', -5)]];
      layouts.push({
        schema: { fields: two, partitionKeys: ['p', 'q'], primaryKeys: ['id', 'p', 'q'], options: { bucket: '1' } },
        commits: pkTwo,
        expected: [...pkTwo[1]!, ...pkTwo[0]!.slice(2)],
      });
      for (const layout of layouts) {
        const table = await newTable(layout.schema);
        // One writer id for every commit: names stay unique without the caller's help.
        const writerId = uniqueName('w');
        for (const rows of layout.commits) {
          const write = await table.newWrite({ writerId });
          await write.writeRows(rows);
          await table.newCommit(uniqueName('u')).commit(await write.prepareCommit());
        }
        const entries = await table.newRead().plan();
        const keys = table.dataFileKeys(entries.map((e) => dataFilesMessage(e.partition, e.bucket, e.totalBuckets, { newFiles: [e.file] })));
        assert.equal(new Set(keys).size, keys.length, `${JSON.stringify(layout.schema.options)}: one path per file`);
        assert.deepEqual(await readAll(table), canonical(layout.expected), JSON.stringify(layout.schema));
      }
    });

    test('a commit naming one path twice is refused and publishes nothing: within the commit and against live files', async () => {
      const table = await newTable({ fields: [{ name: 'id', type: 'BIGINT' }, { name: 'p', type: 'STRING' }], partitionKeys: ['p'] });
      const prepare = async (rows: InternalRow[]) => {
        const write = await table.newWrite({ writerId: uniqueName('w') });
        await write.writeRows(rows);
        return write.prepareCommit();
      };
      const [live] = await prepare([[1n, ' ']]);
      assert.ok(live);
      await table.newCommit(uniqueName('u')).commit([live]);
      // The same file name under another partition row of the same directory, as a writer that
      // numbered files per partition produced. '\t' sorts before ' ', so the live file's manifest
      // is outside the new row's statistics range: the check must read it by its directory.
      for (const p of [null, '', '\t']) {
        const copy: typeof live = { ...live, partition: table.partitionRow({ p }) };
        assert.equal(await codeOf(table.newCommit(uniqueName('u')).commit([copy])), 'COMMIT_PATH_DUPLICATE', `live file, new partition ${JSON.stringify(p)}`);
      }
      const [fresh] = await prepare([[2n, '']]);
      assert.ok(fresh);
      const twin = { ...fresh, partition: table.partitionRow({ p: null }) };
      assert.equal(await codeOf(table.newCommit(uniqueName('u')).commit([fresh, twin])), 'COMMIT_PATH_DUPLICATE', 'two files of one commit');
      assert.equal((await table.latestSnapshot())?.id, 1n);
      assert.deepEqual(await readAll(table), canonical([[1n, ' ']]));
      await table.newCommit(uniqueName('u')).commit([fresh]);
      assert.deepEqual(await readAll(table), canonical([[1n, ' '], [2n, '']]));
    });

    test('a commit identity reused for other files is an error, not a silent alreadyCommitted', async () => {
      const table = await newTable(ORDERS);
      const prepare = async (rows: InternalRow[]) => {
        const write = await table.newWrite({ writerId: uniqueName('w') });
        await write.writeRows(rows);
        return write.prepareCommit();
      };
      const first = await prepare([[1n, 1, 'a', 1n, ts(1)]]);
      const second = await prepare([[2n, 1, 'b', 1n, ts(1)]]);
      const user = uniqueName('library-user');
      assert.deepEqual(await table.newCommit(user).commit(first), { snapshotId: 1, alreadyCommitted: false, attempts: 1, conflicts: 0 });
      assert.equal(await codeOf(table.newCommit(user).commit(second)), 'COMMIT_IDENTITY_REUSED');
      assert.equal(await codeOf(table.newCommit(user).commit(second, { baseSnapshotId: 0 })), 'COMMIT_IDENTITY_REUSED');
      // The same files again are a retry of the first commit.
      assert.equal((await table.newCommit(user).commit(first)).alreadyCommitted, true);
      // The second batch is not lost: under an identity of its own it lands.
      assert.deepEqual(await table.newCommit(user).commit(second, { identifier: 2n }), { snapshotId: 2, alreadyCommitted: false, attempts: 1, conflicts: 0 });
      assert.deepEqual(await readAll(table), canonical([[1n, 1, 'a', 1n, ts(1)], [2n, 1, 'b', 1n, ts(1)]]));
    });

    test('exclusive: a snapshot after the base with the same property refuses the commit; so does a gone one', async () => {
      const table = await newTable(ORDERS);
      const prepare = async (rows: InternalRow[]) => {
        const write = await table.newWrite({ writerId: uniqueName('w') });
        await write.writeRows(rows);
        return write.prepareCommit();
      };
      const mark = { key: 'loader.source', value: 'folder-a' };
      await table.newCommit(uniqueName('u')).commit(await prepare([[1n, 1, 'a', 1n, ts(1)]]), { properties: { [mark.key]: mark.value } });
      // Planned from snapshot 0 (no history): snapshot 1 carries the mark.
      const late = await prepare([[2n, 1, 'b', 1n, ts(1)]]);
      const refused = await table.newCommit(uniqueName('u')).commit(late, { baseSnapshotId: 0, exclusive: mark }).then(
        () => undefined,
        (e: unknown) => e,
      );
      assert.ok(isTributaryError(refused) && refused.code === 'COMMIT_BASE_SUPERSEDED' && !refused.retryable, String(refused));
      assert.equal(refused.context['snapshotId'], 1);
      assert.equal((await table.latestSnapshot())?.id, 1n, 'nothing published');
      // Another value, or a base that already holds the marked snapshot: it commits.
      assert.equal((await table.newCommit(uniqueName('u')).commit(late, { baseSnapshotId: 0, exclusive: { ...mark, value: 'folder-b' } })).snapshotId, 2);
      const next = await prepare([[3n, 1, 'c', 1n, ts(1)]]);
      assert.equal((await table.newCommit(uniqueName('u')).commit(next, { baseSnapshotId: 1, exclusive: mark })).snapshotId, 3);
      // Base 0 still has the marked snapshot 1 after it, whatever came since.
      const tail = await prepare([[4n, 1, 'd', 1n, ts(1)]]);
      assert.equal(await codeOf(table.newCommit(uniqueName('u')).commit(tail, { baseSnapshotId: 0, exclusive: mark })), 'COMMIT_BASE_SUPERSEDED');
      // Snapshot 2 (after base 1) is gone: it cannot be checked, so the commit is refused.
      await table.store.delete(table.snapshots.snapshotKey(2));
      assert.equal(await codeOf(table.newCommit(uniqueName('u')).commit(tail, { baseSnapshotId: 1, exclusive: mark })), 'COMMIT_BASE_SUPERSEDED');
      assert.equal((await table.latestSnapshot())?.id, 3n);
      assert.equal((await table.newCommit(uniqueName('u')).commit(tail, { baseSnapshotId: 3, exclusive: mark })).snapshotId, 4);
    });

    test('maintenance refuses what it cannot see: expiry of a table whose changelog is kept apart, orphan scans beside branches or a kept changelog', async () => {
      const decoupled = await newTable({ ...ORDERS, options: { 'changelog.num-retained.max': '10' } });
      assert.equal(await codeOf(decoupled.expireSnapshots({ retention: { retainMin: 1, retainMax: 1 } })), 'TABLE_UNSUPPORTED');
      const table = await newTable(ORDERS);
      const write = await table.newWrite({ writerId: uniqueName('w') });
      await write.writeRows([[1n, 1, 'a', 1n, ts(1)]]);
      await table.newCommit(uniqueName('u')).commit(await write.prepareCommit());
      assert.deepEqual((await table.findOrphanFiles({ olderThanMs: 0 })).files, [], 'nothing to find before');
      for (const dir of ['branch/branch-b1/snapshot/snapshot-1', 'changelog/changelog-1']) {
        const key = `${table.path}/${dir}`;
        await table.store.put(key, new TextEncoder().encode('{}'));
        assert.equal(await codeOf(table.findOrphanFiles({ olderThanMs: 0 })), 'TABLE_UNSUPPORTED', dir);
        await table.store.delete(key);
      }
      assert.deepEqual((await table.findOrphanFiles({ olderThanMs: 0 })).files, []);
    });

    test('abort deletes the files of uncommitted messages; the table is unchanged', async () => {
      const table = await newTable({ ...ORDERS, partitionKeys: ['dt'], primaryKeys: ['id', 'dt'], options: { bucket: '2' } });
      await writeAndCommit(table, [[1n, 19723, 'kept', 1n, ts(1)]]);
      const write = await table.newWrite({ writerId: uniqueName('w') });
      await write.writeRows([[2n, 19723, 'a', 1n, ts(1)], [3n, 19724, 'b', 1n, ts(1)]]);
      const messages = await write.prepareCommit();
      const keys = table.dataFileKeys(messages);
      assert.equal(keys.length, messages.reduce((n, m) => n + m.dataIncrement.newFiles.length, 0));
      for (const key of keys) assert.ok(await store.stat(key), key);
      await table.newCommit(uniqueName('u')).abort(messages);
      for (const key of keys) assert.equal(await store.stat(key), null, key);
      assert.deepEqual(await readAll(table), canonical([[1n, 19723, 'kept', 1n, ts(1)]]));
    });

    test('deleting a file that is no longer live is a conflict', async () => {
      const table = await newTable(ORDERS);
      await writeAndCommit(table, [[1n, 1, 'a', 1n, ts(1)]]);
      const [entry] = await table.newRead().plan();
      assert.ok(entry);
      const removal = [dataFilesMessage(entry.partition, entry.bucket, entry.totalBuckets, { deletedFiles: [entry.file] })];
      await table.newCommit(uniqueName('u')).commit(removal);
      assert.deepEqual(await readAll(table), []);
      assert.equal(await codeOf(table.newCommit(uniqueName('u')).commit(removal)), 'COMMIT_CONFLICT');
    });

    test('an unknown publish outcome is resolved by the identity: lost acknowledgement and failed request', async () => {
      const table = await newTable(ORDERS);
      const write = await table.newWrite({ writerId: uniqueName('w') });
      await write.writeRows([[1n, 1, 'a', 1n, ts(1)]]);
      const messages = await write.prepareCommit();
      // The snapshot lands but the answer is lost (a timeout after the write).
      const lostAck = faultyStore(store, { afterWrite: 1 });
      const reopened = await openTable(lostAck, 'db', table.name);
      const first = await reopened.newCommit('sync-lost-ack').commit(messages, { identifier: 1n });
      assert.equal(first.snapshotId, 1);
      assert.equal(lostAck.faults(), 1);
      assert.equal((await table.latestSnapshot())?.id, 1n);
      // The request fails before anything is written: the next attempt publishes.
      const write2 = await table.newWrite({ writerId: uniqueName('w') });
      await write2.writeRows([[2n, 1, 'b', 1n, ts(1)]]);
      const failing = faultyStore(store, { beforeWrite: 2 });
      const second = await (await openTable(failing, 'db', table.name)).newCommit('sync-failed').commit(await write2.prepareCommit(), { identifier: 1n });
      assert.deepEqual([second.snapshotId, second.attempts, failing.faults()], [2, 3, 2]);
      // A manifest write fails (a retryable storage error): the attempt is retried.
      const write3 = await table.newWrite({ writerId: uniqueName('w') });
      await write3.writeRows([[3n, 1, 'c', 1n, ts(1)]]);
      const flaky = faultyStore(store, { manifestPuts: 1 });
      const third = await (await openTable(flaky, 'db', table.name)).newCommit('sync-flaky').commit(await write3.prepareCommit());
      assert.deepEqual([third.snapshotId, third.attempts, flaky.faults()], [3, 2, 1]);
      assert.deepEqual(await readAll(table), canonical([[1n, 1, 'a', 1n, ts(1)], [2n, 1, 'b', 1n, ts(1)], [3n, 1, 'c', 1n, ts(1)]]));
    });

    test('primary-key table against a model: random upserts and deletes over many commits, every snapshot', async () => {
      const table = await newTable({ ...ORDERS, partitionKeys: ['dt'], primaryKeys: ['id', 'dt'], options: { bucket: '3' } });
      const model = new Map<string, InternalRow>();
      const history: string[][] = [];
      let seed = 12345;
      const rand = (n: number) => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) % n);
      for (let commit = 0; commit < 6; commit++) {
        const write = await table.newWrite({ writerId: uniqueName('w'), bufferRows: 1 + rand(20), maxBufferedRows: 25 });
        for (let batch = 0; batch < 3; batch++) {
          const rows: InternalRow[] = [];
          const kinds: number[] = [];
          for (let i = 0; i < 15; i++) {
            const id = BigInt(rand(30));
            const dt = 19723 + rand(2);
            const kind = [0, UA, D, UB][rand(4)] as number;
            const row: InternalRow = [id, dt, `c${commit}b${batch}i${i}`, BigInt(rand(1000)), ts(rand(5000))];
            rows.push(row);
            kinds.push(kind);
            const key = `${id}/${dt}`;
            if (kind === D || kind === UB) model.delete(key);
            else model.set(key, row);
          }
          await write.writeRows(rows, kinds);
        }
        await table.newCommit(uniqueName('u')).commit(await write.prepareCommit());
        history.push(canonical([...model.values()]));
        assert.deepEqual(await readAll(table), history[commit], `after commit ${commit + 1}`);
      }
      for (let id = 1; id <= history.length; id++) assert.deepEqual(await readAll(table, id), history[id - 1], `snapshot ${id}`);
    });

    test('partition filters skip manifests by their partition statistics', async () => {
      const table = await newTable({ ...ORDERS, partitionKeys: ['dt'] });
      for (let day = 0; day < 4; day++) await writeAndCommit(table, [[BigInt(day), 19723 + day, 'x', 1n, ts(day)]]);
      const counting = countingStore(store);
      const view = await openTable(counting, 'db', table.name);
      assert.deepEqual(canonical(await view.newRead({ partitionFilter: { dt: 19725 } }).toArray()), canonical([[2n, 19725, 'x', 1n, ts(2)]]));
      const manifests = counting.gets().filter((k) => /\/manifest\/manifest-[^l]/.test(k));
      assert.equal(manifests.length, 1, manifests.join(' '));
      const dataFiles = counting.gets().filter((k) => k.endsWith('.parquet'));
      assert.ok(dataFiles.every((k) => k.includes('/dt=19725/')), dataFiles.join(' '));
    });

    test('schema evolution: old files are read by field id (a renamed column, a column added later)', async () => {
      const table = await newTable({ ...ORDERS, primaryKeys: ['id'], options: { bucket: '1' } });
      await writeAndCommit(table, [[1n, 1, 'old-name', 1n, ts(1)], [2n, 1, 'kept', 2n, ts(2)]]);
      // schema-1 as an ALTER TABLE would write it: 'status' renamed to 'state', a nullable 'note' added
      const fields = [
        ...table.schema.fields.map((f) => (f.name === 'status' ? { ...f, name: 'state' } : f)),
        { id: 5, name: 'note', type: { root: 'VARCHAR', nullable: true, length: 2147483647 } as const },
      ];
      const evolved = { ...table.schema, id: 1, fields, highestFieldId: 5 };
      await store.putIfAbsent(`${table.path}/schema/schema-1`, new TextEncoder().encode(encodeTableSchema(evolved)));
      const reopened = await openTable(store, 'db', table.name);
      assert.equal(reopened.schema.id, 1);
      assert.deepEqual(await readAll(reopened), canonical([[1n, 1, 'old-name', 1n, ts(1), null], [2n, 1, 'kept', 2n, ts(2), null]]));
      await writeAndCommit(reopened, [[1n, 1, 'new', 3n, ts(3), 'n']]);
      assert.deepEqual(await readAll(reopened), canonical([[1n, 1, 'new', 3n, ts(3), 'n'], [2n, 1, 'kept', 2n, ts(2), null]]));
    });

    test('manifest merging keeps every row; a stale LATEST hint is not trusted', async () => {
      const table = await newTable({ ...ORDERS, partitionKeys: ['dt'], options: { 'manifest.merge-min-count': '3' } });
      const all: InternalRow[] = [];
      for (let i = 0; i < 7; i++) {
        const rows: InternalRow[] = [[BigInt(i), 19723 + (i % 2), `c${i}`, 1n, ts(i)]];
        all.push(...rows);
        await writeAndCommit(table, rows, undefined, i === 4 ? { overwrite: [table.partitionRow({ dt: 19723 })] } : {});
        if (i === 4) all.splice(0, all.length, ...all.filter((r) => r[1] !== 19723 || r[0] === 4n));
      }
      assert.deepEqual(await readAll(table), canonical(all));
      // 7 commits wrote 7 delta manifests; with merge-min-count 3 the base list was compacted
      const latest = await table.latestSnapshot();
      assert.ok(latest);
      const manifests = await new FileStoreScan(store, table.path, []).dataManifests(latest);
      assert.ok(manifests.length < 7, `base + delta hold ${manifests.length} manifests`);
      await store.put(`${table.path}/snapshot/LATEST`, new TextEncoder().encode('3'));
      assert.equal((await table.latestSnapshot())?.id, 7n);
      await store.delete(`${table.path}/snapshot/LATEST`);
      assert.equal((await table.latestSnapshot())?.id, 7n);
      await store.put(`${table.path}/snapshot/LATEST`, new TextEncoder().encode('12'));
      assert.equal((await table.latestSnapshot())?.id, 7n);
      assert.deepEqual(await readAll(table), canonical(all));
    });
  });
}

/**
 * Wraps a real store and makes its snapshot publishes fail: `beforeWrite` times without writing,
 * or `afterWrite` times after the write landed (a lost acknowledgement).
 */
function faultyStore(inner: ObjectStore, plan: { beforeWrite?: number; afterWrite?: number; manifestPuts?: number }): ObjectStore & { faults(): number } {
  let before = plan.beforeWrite ?? 0;
  let after = plan.afterWrite ?? 0;
  let manifestPuts = plan.manifestPuts ?? 0;
  let faults = 0;
  const unavailable = () => errorFrom(tableErrors, 'STORAGE_UNAVAILABLE', 'injected fault', {});
  return {
    uri: inner.uri,
    get: (key) => inner.get(key),
    getRange: (key, offset, length) => inner.getRange(key, offset, length),
    stat: (key) => inner.stat(key),
    put: (key, body) => {
      if (key.includes('/manifest/') && manifestPuts > 0) {
        manifestPuts--;
        faults++;
        return Promise.reject(unavailable());
      }
      return inner.put(key, body);
    },
    list: (prefix) => inner.list(prefix),
    listDirectories: (dir) => inner.listDirectories(dir),
    delete: (key) => inner.delete(key),
    deleteMany: (keys) => inner.deleteMany(keys),
    close: () => Promise.resolve(),
    async putIfAbsent(key, body) {
      if (key.includes('/snapshot/snapshot-') && before > 0) {
        before--;
        faults++;
        throw unavailable();
      }
      await inner.putIfAbsent(key, body);
      if (key.includes('/snapshot/snapshot-') && after > 0) {
        after--;
        faults++;
        throw unavailable();
      }
    },
    faults: () => faults,
  };
}

/** Wraps a real store and records the keys it reads. */
function countingStore(inner: ObjectStore): ObjectStore & { gets(): string[] } {
  const keys: string[] = [];
  return {
    ...faultyStore(inner, {}),
    get: (key) => {
      keys.push(key);
      return inner.get(key);
    },
    getRange: (key, offset, length) => {
      keys.push(key);
      return inner.getRange(key, offset, length);
    },
    gets: () => keys,
  };
}
