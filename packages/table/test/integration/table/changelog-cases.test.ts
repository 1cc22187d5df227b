/**
 * Loads into a table with changelog-producer = input, one per case of the changelog test plan.
 * Each case asserts (a) the changelog rows, (b) the table read, (c) that a retracting
 * SUM(amount) GROUP BY store_id fed only the changelog equals the SUM over the table read (and a
 * replay of the changelog equals the table) at every snapshot, and (d) the snapshot metadata.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { services, uniqueName } from '@tributary/testkit';
import { LocalObjectStore, S3ObjectStore, createTable, type InternalRow, type KeyedChange, type ObjectStore, type Table } from '@tributary/table';
import {
  ChangelogConsumer,
  assertConsumerMatches,
  assertSnapshotInvariants,
  changelogOf,
  del,
  load,
  rowText,
  upsert,
} from '../../support/changelog-harness.ts';

let store: ObjectStore;
let tableCount = 0;
let localDir = '';
const { bucket, endpoint, region, accessKeyId, secretAccessKey } = services.s3;

/** Local disk and MinIO: where the cases run. */
const STORES: [string, () => Promise<ObjectStore>, (store: ObjectStore) => Promise<void>][] = [
  [
    'local disk',
    async () => new LocalObjectStore((localDir = await mkdtemp(join(tmpdir(), 'tributary-changelog-')))),
    async () => rm(localDir, { recursive: true, force: true }),
  ],
  [
    'MinIO (S3)',
    async () => new S3ObjectStore({ bucket, prefix: uniqueName('changelog-cases'), endpoint, region, accessKeyId, secretAccessKey }),
    async (s) => {
      const keys: string[] = [];
      for await (const meta of s.list('')) keys.push(meta.key);
      await s.deleteMany(keys);
      await s.close();
    },
  ],
];

const ts = (epochMillis: number, nanoOfMillis = 0) => ({ epochMillis, nanoOfMillis });

/** orders(id, store_id, amount DECIMAL(18, 2), etl_time TIMESTAMP(3), at TIMESTAMP(6), note); etl_time is ignored by the no-op check. */
async function ordersTable(options: Record<string, string> = {}): Promise<Table> {
  return createTable(store, {
    database: 'cl',
    name: `orders_${tableCount++}`,
    schema: {
      fields: [
        { name: 'id', type: 'BIGINT' },
        { name: 'store_id', type: 'STRING' },
        { name: 'amount', type: 'DECIMAL(18, 2)' },
        { name: 'etl_time', type: 'TIMESTAMP(3)' },
        { name: 'at', type: 'TIMESTAMP(6)' },
        { name: 'note', type: 'STRING' },
      ],
      primaryKeys: ['id'],
      options: { bucket: '2', 'changelog-producer': 'input', 'changelog-producer.row-deduplicate-ignore-fields': 'etl_time', ...options },
    },
  });
}

/** versioned(id, store_id, amount, version) with sequence.field = version. */
async function versionedTable(): Promise<Table> {
  return createTable(store, {
    database: 'cl',
    name: `versioned_${tableCount++}`,
    schema: {
      fields: [
        { name: 'id', type: 'BIGINT' },
        { name: 'store_id', type: 'STRING' },
        { name: 'amount', type: 'DECIMAL(18, 2)' },
        { name: 'version', type: 'BIGINT' },
      ],
      primaryKeys: ['id'],
      options: { bucket: '2', 'changelog-producer': 'input', 'sequence.field': 'version' },
    },
  });
}

const order = (id: number, storeId: string, cents: number, extra: Partial<{ etl: number; at: ReturnType<typeof ts> | null; note: string | null }> = {}): InternalRow => [
  BigInt(id),
  storeId,
  BigInt(cents),
  ts(extra.etl ?? 1_700_000_000_000),
  extra.at ?? null,
  extra.note ?? null,
];
const keyOnly = (id: number): InternalRow => [BigInt(id), null, null, null, null, null];
const versioned = (id: number, storeId: string, cents: number, version: number): InternalRow => [BigInt(id), storeId, BigInt(cents), BigInt(version)];

/**
 * Runs the loads in order and checks, after each one that made a snapshot, the invariants and the
 * consumer against the table. Returns each load's changelog (null: no snapshot).
 */
async function history(table: Table, loads: readonly (readonly KeyedChange[])[]): Promise<([string, InternalRow][] | null)[]> {
  // etl_time (column 3) of the orders table is a row-deduplicate-ignore-field; the versioned table has no column 3 to ignore.
  const consumer = new ChangelogConsumer([0], table.schema.options['changelog-producer.row-deduplicate-ignore-fields'] === undefined ? [] : [3]);
  const out: ([string, InternalRow][] | null)[] = [];
  for (const changes of loads) {
    const { snapshotId, base } = await load(table, changes);
    if (snapshotId === null) {
      out.push(null);
      continue;
    }
    await assertSnapshotInvariants(table, snapshotId, base, [0]);
    await consumer.consume(table, snapshotId);
    await assertConsumerMatches(table, consumer, snapshotId);
    out.push(await changelogOf(table, snapshotId));
  }
  return out;
}

async function tableRows(table: Table): Promise<string[]> {
  return (await table.newRead().toArray()).map(rowText).sort();
}

for (const [storeName, open, close] of STORES) describe(`changelog-producer = input: the cases of the test plan (${storeName})`, () => {
  before(async () => {
    store = await open();
  });
  after(async () => {
    await close(store);
  });

  test('1: 100 → 80 in the same store gives -U(100), +U(80); the SUM goes 100 → 80, never 180', async () => {
    const t = await ordersTable();
    const [, second] = await history(t, [[upsert(order(1, 'A', 10000))], [upsert(order(1, 'A', 8000))]]);
    assert.deepEqual(second, [['-U', order(1, 'A', 10000)], ['+U', order(1, 'A', 8000)]]);
    assert.deepEqual(await tableRows(t), [rowText(order(1, 'A', 8000))]);
  });

  test('1b: 100 → 80 and store A → B gives -U(A, 100), +U(B, 80)', async () => {
    const t = await ordersTable();
    const [, second] = await history(t, [[upsert(order(1, 'A', 10000)), upsert(order(2, 'A', 500))], [upsert(order(1, 'B', 8000))]]);
    assert.deepEqual(second, [['-U', order(1, 'A', 10000)], ['+U', order(1, 'B', 8000)]]);
    assert.deepEqual(await tableRows(t), [order(1, 'B', 8000), order(2, 'A', 500)].map(rowText).sort());
  });

  test('2: a new key gives +I', async () => {
    const t = await ordersTable();
    const [first] = await history(t, [[upsert(order(7, 'A', 123))]]);
    assert.deepEqual(first, [['+I', order(7, 'A', 123)]]);
  });

  test('3: a delete that carries only the key gives -D with the full stored row', async () => {
    const t = await ordersTable();
    const stored = order(3, 'A', 4200, { note: 'kept', at: ts(1_700_000_000_123, 456_000) });
    const [, second] = await history(t, [[upsert(stored), upsert(order(4, 'A', 100))], [del(keyOnly(3))]]);
    assert.deepEqual(second, [['-D', stored]]);
    assert.deepEqual(await tableRows(t), [rowText(order(4, 'A', 100))]);
  });

  test('4: updated twice in one load (100 → 90 → 80) gives exactly -U(100), +U(80)', async () => {
    const t = await ordersTable();
    const [, second] = await history(t, [[upsert(order(1, 'A', 10000))], [upsert(order(1, 'A', 9000)), upsert(order(1, 'A', 8000))]]);
    assert.deepEqual(second, [['-U', order(1, 'A', 10000)], ['+U', order(1, 'A', 8000)]]);
  });

  test('5: a new key inserted then deleted in one load gives nothing, and no data record', async () => {
    const t = await ordersTable();
    const [, second] = await history(t, [[upsert(order(1, 'A', 100))], [upsert(order(2, 'A', 500)), del(keyOnly(2)), upsert(order(1, 'A', 200))]]);
    assert.deepEqual(second, [['-U', order(1, 'A', 100)], ['+U', order(1, 'A', 200)]]);
    const snapshot = await t.latestSnapshot();
    assert.equal(snapshot?.deltaRecordCount, 1n, 'one data record: key 1 only');
    // Alone, the insert-then-delete writes nothing and commits nothing.
    const alone = await load(t, [upsert(order(9, 'A', 500)), del(keyOnly(9))]);
    assert.equal(alone.snapshotId, null);
  });

  test('6: delete then re-insert with the same values gives nothing; with other values -U/+U', async () => {
    const t = await ordersTable();
    const [, same, other] = await history(t, [
      [upsert(order(1, 'A', 100))],
      [del(keyOnly(1)), upsert(order(1, 'A', 100))],
      [del(keyOnly(1)), upsert(order(1, 'A', 300))],
    ]);
    assert.equal(same, null, 'no snapshot: nothing changed');
    assert.deepEqual(other, [['-U', order(1, 'A', 100)], ['+U', order(1, 'A', 300)]]);
  });

  test('7: one key sent twice with different versions: the newest version wins whatever the arrival order', async () => {
    const results: string[] = [];
    for (const arrival of [[1, 2], [2, 1]]) {
      const t = await versionedTable();
      const rows = { 1: versioned(1, 'A', 900, 5), 2: versioned(1, 'B', 700, 6) };
      const [, second] = await history(t, [[upsert(versioned(1, 'A', 100, 1))], arrival.map((i) => upsert(rows[i as 1 | 2]))]);
      assert.deepEqual(second, [['-U', versioned(1, 'A', 100, 1)], ['+U', versioned(1, 'B', 700, 6)]]);
      results.push(JSON.stringify({ changelog: second?.map(([k, r]) => [k, rowText(r)]), table: await tableRows(t) }));
    }
    assert.equal(results[0], results[1], 'identical changelog and table for both arrival orders');
  });

  test('8: one key sent twice with the same version: the later arrival wins (documented tie-break)', async () => {
    const t = await versionedTable();
    const [, second] = await history(t, [[upsert(versioned(1, 'A', 100, 1))], [upsert(versioned(1, 'A', 200, 3)), upsert(versioned(1, 'C', 300, 3))]]);
    assert.deepEqual(second, [['-U', versioned(1, 'A', 100, 1)], ['+U', versioned(1, 'C', 300, 3)]]);
  });

  test('9: a no-op update gives nothing; a change of an ignored field only updates the data, with no changelog', async () => {
    const t = await ordersTable();
    const [, identical, etlOnly, real] = await history(t, [
      [upsert(order(1, 'A', 100, { etl: 1 })), upsert(order(2, 'A', 50))],
      [upsert(order(1, 'A', 100, { etl: 1 }))],
      [upsert(order(1, 'A', 100, { etl: 2 }))],
      [upsert(order(1, 'A', 100, { etl: 3 })), upsert(order(2, 'A', 60))],
    ]);
    assert.equal(identical, null, 'an identical row commits nothing');
    assert.deepEqual(etlOnly, [], 'only etl_time changed: no changelog row');
    const etlSnapshot = await t.snapshot(2);
    assert.equal(etlSnapshot.changelogRecordCount, null);
    assert.equal(etlSnapshot.changelogManifestList, null);
    assert.deepEqual(real, [['-U', order(2, 'A', 50)], ['+U', order(2, 'A', 60)]], 'changelogRecordCount excludes the etl-only key');
    assert.equal((await t.snapshot(3)).changelogRecordCount, 2n);
    assert.deepEqual(await tableRows(t), [order(1, 'A', 100, { etl: 3 }), order(2, 'A', 60)].map(rowText).sort(), 'the table keeps the newest etl_time');
  });

  test('10: a late record (older version than the stored one) gives nothing and the table keeps the stored row', async () => {
    const t = await versionedTable();
    const [, late, lateDelete, removed] = await history(t, [
      [upsert(versioned(1, 'A', 100, 5)), upsert(versioned(2, 'A', 1, 1))],
      [upsert(versioned(1, 'A', 999, 4))],
      [del(versioned(1, 'A', 100, 3))],
      // A key-only delete carries no version: it deletes the stored row (its tombstone is that row).
      [del([1n, null, null, null])],
    ]);
    assert.equal(late, null);
    assert.equal(lateDelete, null, 'a delete with an older version loses too');
    assert.deepEqual(removed, [['-D', versioned(1, 'A', 100, 5)]]);
    assert.deepEqual(await tableRows(t), [rowText(versioned(2, 'A', 1, 1))], 'the late records changed nothing; the key-only delete removed key 1');
  });

  test('11: a full extract diffed against the table: a key missing from the extract gives -D, committed as APPEND', async () => {
    const t = await ordersTable();
    await history(t, [[upsert(order(1, 'A', 100)), upsert(order(2, 'B', 200)), upsert(order(3, 'A', 300))]]);
    const extract = [order(1, 'A', 100), order(3, 'A', 350)];
    const present = await t.newRead().toArray();
    const missing = present.filter((row) => !extract.some((e) => e[0] === row[0]));
    const consumer = new ChangelogConsumer([0]);
    await consumer.consume(t, 1);
    const { snapshotId, base } = await load(t, [...extract.map(upsert), ...missing.map((row) => del([row[0] ?? null, null, null, null, null, null]))]);
    assert.ok(snapshotId !== null);
    await assertSnapshotInvariants(t, snapshotId, base, [0]);
    await consumer.consume(t, snapshotId);
    await assertConsumerMatches(t, consumer, snapshotId);
    const rows = (await changelogOf(t, snapshotId)).map(([k, r]) => `${k} ${rowText(r)}`).sort();
    assert.deepEqual(rows, [`+U ${rowText(order(3, 'A', 350))}`, `-D ${rowText(order(2, 'B', 200))}`, `-U ${rowText(order(3, 'A', 300))}`].sort());
    assert.equal((await t.snapshot(snapshotId)).commitKind, 'APPEND');
  });

  test('12: an empty load, or one that changes nothing, commits no snapshot', async () => {
    const t = await ordersTable();
    assert.equal((await load(t, [])).snapshotId, null);
    await history(t, [[upsert(order(1, 'A', 100))]]);
    assert.equal((await load(t, [upsert(order(1, 'A', 100)), del(keyOnly(42))])).snapshotId, null, 'a no-op and a delete of an absent key');
    assert.equal(Number((await t.latestSnapshot())?.id), 1);
  });

  test('13: a commit into the same bucket after the base makes the changelog stale: refused, nothing visible; recomputed, no double -U', async () => {
    const t = await ordersTable();
    await history(t, [[upsert(order(1, 'A', 100)), upsert(order(2, 'A', 200))]]);
    const consumer = new ChangelogConsumer([0]);
    await consumer.consume(t, 1);
    // Two writers pinned on snapshot 1 both change key 1.
    const first = await t.newChangelogWrite({ baseSnapshotId: 1, writerId: 'cl' });
    await first.write([upsert(order(1, 'A', 150))]);
    const second = await t.newChangelogWrite({ baseSnapshotId: 1, writerId: 'cl' });
    await second.write([upsert(order(1, 'A', 170))]);
    const committed = await t.newCommit('writer-1').commit(first.prepareCommit(), { baseSnapshotId: 1 });
    assert.equal(committed.snapshotId, 2);
    await assert.rejects(t.newCommit('writer-2').commit(second.prepareCommit(), { baseSnapshotId: 1 }), (e: { code?: string; message: string }) => {
      assert.equal(e.code, 'COMMIT_CHANGELOG_STALE');
      assert.doesNotMatch(e.message, /170|150|1\.70/, 'no cell value in the error');
      return true;
    });
    assert.equal(Number((await t.latestSnapshot())?.id), 2, 'nothing visible');
    // Recomputed from the new latest: its -U is the row the first writer stored.
    const retry = await load(t, [upsert(order(1, 'A', 170))], 'writer-2b');
    assert.ok(retry.snapshotId !== null);
    await assertSnapshotInvariants(t, retry.snapshotId, retry.base, [0]);
    for (const id of [2, retry.snapshotId]) {
      await consumer.consume(t, id);
      await assertConsumerMatches(t, consumer, id);
    }
    assert.deepEqual(await changelogOf(t, retry.snapshotId), [['-U', order(1, 'A', 150)], ['+U', order(1, 'A', 170)]]);
  });

  test('13b: a commit into another bucket after the base does not make the changelog stale', async () => {
    const t = await ordersTable();
    await history(t, [[upsert(order(1, 'A', 100)), upsert(order(2, 'A', 200))]]);
    const messagesFor = async (id: number, cents: number) => {
      const w = await t.newChangelogWrite({ baseSnapshotId: 1, writerId: 'cl' });
      await w.write([upsert(order(id, 'A', cents))]);
      return w.prepareCommit();
    };
    const a = await messagesFor(1, 111);
    let other = 2;
    let b = await messagesFor(other, 222);
    while (b[0]?.bucket === a[0]?.bucket) b = await messagesFor(++other, 222);
    assert.notEqual(a[0]?.bucket, b[0]?.bucket);
    await t.newCommit('writer-a').commit(a, { baseSnapshotId: 1 });
    const result = await t.newCommit('writer-b').commit(b, { baseSnapshotId: 1 });
    assert.equal(result.snapshotId, 3);
    const expected = [order(1, 'A', 111), order(2, 'A', 200)];
    if (other !== 2) expected.push(order(other, 'A', 222));
    else expected[1] = order(2, 'A', 222);
    assert.deepEqual(await tableRows(t), expected.map(rowText).sort());
  });

  test('14: a commit retried after its snapshot was written is filtered by its identity: exactly one snapshot', async () => {
    const t = await ordersTable();
    await history(t, [[upsert(order(1, 'A', 100))]]);
    const w = await t.newChangelogWrite({ baseSnapshotId: 1, writerId: 'cl' });
    await w.write([upsert(order(1, 'A', 80))]);
    const messages = w.prepareCommit();
    const first = await t.newCommit('retrying-user').commit(messages, { baseSnapshotId: 1, identifier: 7n });
    const again = await t.newCommit('retrying-user').commit(messages, { baseSnapshotId: 1, identifier: 7n });
    assert.equal(again.snapshotId, first.snapshotId);
    assert.equal(again.alreadyCommitted, true);
    assert.equal(Number((await t.latestSnapshot())?.id), 2);
    assert.deepEqual(await changelogOf(t, 2), [['-U', order(1, 'A', 100)], ['+U', order(1, 'A', 80)]]);
  });

  test('15: decimals, timestamps and nulls: -U is the exact stored row; no-op detection on the stored (canonical) form', async () => {
    const t = await ordersTable();
    const stored = order(1, 'A', 12345, { at: ts(1_700_000_000_001, 2_000), note: null });
    const [, finer, changed] = await history(t, [
      [upsert(stored)],
      // The same instant with nanoseconds below TIMESTAMP(6) precision: stored as the same value.
      [upsert(order(1, 'A', 12345, { at: ts(1_700_000_000_001, 2_999), note: null }))],
      [upsert(order(1, 'A', 12345, { at: ts(1_700_000_000_001, 2_000), note: '' }))],
    ]);
    assert.equal(finer, null, 'a value that stores the same is a no-op');
    assert.deepEqual(changed, [['-U', stored], ['+U', order(1, 'A', 12345, { at: ts(1_700_000_000_001, 2_000), note: '' })]], 'null → empty string is a change');
  });
});
