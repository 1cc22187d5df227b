/**
 * What a changelog table refuses, with the reason in the message, and what the changelog writer
 * reads: only the base files whose key range holds a touched key.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { LocalObjectStore, createTable, type InternalRow, type ObjectStore, type Table } from '@tributary/table';
import { load, upsert } from '../../support/changelog-harness.ts';

let dir = '';
let store: ObjectStore;
let n = 0;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tributary-changelog-refusals-'));
  store = new LocalObjectStore(dir);
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

const fields = [{ name: 'id', type: 'BIGINT' }, { name: 'store_id', type: 'STRING' }, { name: 'amount', type: 'DECIMAL(10, 2)' }];
const create = (options: Record<string, string>, primaryKeys = ['id']): Promise<Table> =>
  createTable(store, { database: 'refusals', name: `t${n++}`, schema: { fields, primaryKeys, options: { bucket: primaryKeys.length > 0 ? '2' : '-1', ...options } } });

async function refusal(fn: () => Promise<unknown>): Promise<{ code: string; message: string }> {
  try {
    await fn();
  } catch (error) {
    return error as { code: string; message: string };
  }
  assert.fail('expected a refusal');
}

test('lookup and full-compaction producers, and partial-update or aggregation with a changelog, are refused with their reason', async () => {
  for (const [options, reason] of [
    [{ 'changelog-producer': 'lookup' }, /Java compaction in a later snapshot.*second -U\/\+U/],
    [{ 'changelog-producer': 'full-compaction' }, /full compaction.*second -U\/\+U/],
    [{ 'changelog-producer': 'input', 'merge-engine': 'partial-update' }, /partial-update merge semantics, which Tributary does not implement/],
    [{ 'changelog-producer': 'input', 'merge-engine': 'aggregation' }, /aggregation merge semantics/],
    [{ 'changelog-producer': 'bogus' }, /not a changelog producer Tributary writes/],
  ] as const) {
    const e = await refusal(() => create(options));
    assert.equal(e.code, 'TABLE_UNSUPPORTED', JSON.stringify(options));
    assert.match(e.message, reason);
  }
  const append = await refusal(() => create({ 'changelog-producer': 'input' }, []));
  assert.equal(append.code, 'TABLE_UNSUPPORTED');
  assert.match(append.message, /needs a primary key/);
  assert.equal((await refusal(() => create({ 'changelog-producer': 'input', 'changelog-producer.row-deduplicate-ignore-fields': 'nope' }))).code, 'SCHEMA_INVALID');
  assert.equal((await refusal(() => create({ 'changelog-producer': 'input', 'changelog-producer.row-deduplicate-ignore-fields': 'id' }))).code, 'SCHEMA_INVALID');
});

test('an input table is written by the changelog writer only; the changelog writer takes only input tables', async () => {
  const input = await create({ 'changelog-producer': 'input' });
  const plain = await refusal(() => input.newWrite());
  assert.equal(plain.code, 'TABLE_UNSUPPORTED');
  assert.match(plain.message, /newChangelogWrite/);
  const none = await create({});
  assert.equal((await refusal(() => none.newChangelogWrite({ baseSnapshotId: null }))).code, 'TABLE_UNSUPPORTED');
});

test('writeBucket refuses rows out of key order, of two buckets, with a null key, or a bucket twice, without cell values in the message', async () => {
  const t = await create({ 'changelog-producer': 'input' });
  const w = await t.newChangelogWrite({ baseSnapshotId: null });
  const rows = (ids: number[]) => ids.map((id): { kind: 'upsert'; row: InternalRow } => ({ kind: 'upsert', row: [BigInt(id), 'secret-store', 100n] }));
  // Ids of one bucket, and one of the other.
  const messages = await Promise.all([1, 2, 3, 4, 5, 6, 7, 8].map(async (id) => {
    const probe = await t.newChangelogWrite({ baseSnapshotId: null });
    return { id, bucket: (await probe.writeBucket(rows([id])))?.message?.bucket };
  }));
  const zero = messages.filter((m) => m.bucket === 0).map((m) => m.id);
  const one = messages.filter((m) => m.bucket === 1).map((m) => m.id);
  assert.ok(zero.length >= 2 && one.length >= 1);
  for (const [name, bad] of [
    ['descending', rows([zero[1] as number, zero[0] as number])],
    ['repeated', rows([zero[0] as number, zero[0] as number])],
    ['two buckets', rows([Math.min(zero[0] as number, one[0] as number), Math.max(zero[0] as number, one[0] as number)])],
    ['null key', [{ kind: 'upsert' as const, row: [null, 'x', 1n] }]],
  ] as const) {
    const e = await refusal(() => w.writeBucket(bad));
    assert.equal(e.code, 'WRITE_ROW_INVALID', name);
    assert.doesNotMatch(e.message, /secret-store/);
  }
  await w.writeBucket(rows([zero[0] as number]));
  assert.equal((await refusal(() => w.writeBucket(rows([zero[1] as number])))).code, 'WRITE_ROW_INVALID', 'a bucket is written once');
});

test('before-images read only the base files whose key range holds a touched key', async () => {
  const t = await create({ 'changelog-producer': 'input', bucket: '1' });
  // Four loads of disjoint key ranges: four files in the one bucket.
  for (const start of [0, 100, 200, 300]) await load(t, Array.from({ length: 10 }, (_, i) => upsert([BigInt(start + i), 'A', 1n])));
  const base = Number((await t.latestSnapshot())?.id);
  const w = await t.newChangelogWrite({ baseSnapshotId: base });
  const [one] = await w.write([upsert([205n, 'A', 2n])]);
  assert.equal(one?.filesRead, 1, 'one file holds key 205');
  assert.equal(one?.updates, 1);
  const w2 = await t.newChangelogWrite({ baseSnapshotId: base });
  const [none] = await w2.write([upsert([150n, 'A', 2n]), upsert([999n, 'A', 2n])]);
  assert.equal(none?.filesRead, 0, 'no file holds keys 150 or 999');
  assert.equal(none?.inserts, 2);
  const w3 = await t.newChangelogWrite({ baseSnapshotId: base });
  const [two] = await w3.write([upsert([5n, 'A', 2n]), upsert([305n, 'A', 2n])]);
  assert.equal(two?.filesRead, 2);
});
