// A bucket written on its own (writeBucket / writeBucketBatches, as a bucket job does) reads the
// base files of its own (partition, bucket) only, found by a scan filtered to them; a write of many
// buckets at once (write) scans the base once for all. Both must see exactly the bucket's live files:
// here the same keys are stored in every partition with other values (a file of another partition
// taken for the bucket's would give a wrong before-image), later commits touch some partitions only
// (manifests without the others), delete keys, and the load asks for keys absent from the base and
// a partition the base lacks. The changelog of each must be the one a model of the table predicts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalObjectStore, ManifestCache, createTable, openTable, type CommitMessage, type KeyedChange, type Table } from '@tributary/table';
import { batchFromRows } from '../../../src/format/column-batch.ts';
import { RowRouter } from '../../../src/write/row-routing.ts';
import { countedStore } from '../../support/counted-store.ts';

const KINDS = ['+I', '-U', '+U', '-D'];
const upsert = (p: string, k: number, v: number): KeyedChange => ({ kind: 'upsert', row: [p, BigInt(k), BigInt(v)] });
const remove = (p: string, k: number): KeyedChange => ({ kind: 'delete', row: [p, BigInt(k), null] });
const value = (p: string, k: number, version: number) => k * 100 + p.charCodeAt(0) * 10 + version;

type Model = Map<string, number>;

function apply(model: Model, changes: readonly KeyedChange[]): string[] {
  const changelog: string[] = [];
  for (const { kind, row } of changes) {
    const id = `${String(row[0])},${String(row[1])}`;
    const before = model.get(id);
    if (kind === 'delete') {
      if (before !== undefined) changelog.push(`-D(${id},${before})`);
      model.delete(id);
    } else if (before === undefined) {
      changelog.push(`+I(${id},${String(row[2])})`);
      model.set(id, Number(row[2]));
    } else if (before !== Number(row[2])) {
      changelog.push(`-U(${id},${before})`, `+U(${id},${String(row[2])})`);
      model.set(id, Number(row[2]));
    }
  }
  return changelog.sort();
}

/** Three partitions of 4 buckets holding the same keys; then commits that touch one partition each. */
async function baseTable(dir: string, name: string): Promise<{ table: Table; model: Model }> {
  const table = await createTable(new LocalObjectStore(dir), {
    database: 'db',
    name,
    schema: {
      fields: [
        { name: 'p', type: 'STRING NOT NULL' },
        { name: 'k', type: 'BIGINT NOT NULL' },
        { name: 'v', type: 'BIGINT' },
      ],
      partitionKeys: ['p'],
      primaryKeys: ['p', 'k'],
      options: { bucket: '4', 'changelog-producer': 'input' },
    },
  });
  const model: Model = new Map();
  const loads: KeyedChange[][] = [
    ['a', 'b', 'c'].flatMap((p) => Array.from({ length: 90 }, (_, k) => upsert(p, k, value(p, k, 0)))),
    Array.from({ length: 30 }, (_, k) => upsert('a', k, value('a', k, 1))),
    Array.from({ length: 30 }, (_, i) => remove('b', 10 + i)),
    Array.from({ length: 10 }, (_, i) => upsert('c', 100 + i, value('c', 100 + i, 0))),
  ];
  for (const [i, changes] of loads.entries()) {
    const write = await table.newChangelogWrite({ baseSnapshotId: i === 0 ? null : i, writerId: `base${i}` });
    await write.write(changes);
    await table.newCommit(`base${i}`).commit(write.prepareCommit(), i === 0 ? {} : { baseSnapshotId: i });
    apply(model, changes);
  }
  return { table, model };
}

/** Keys 0..119 of partitions a..d, in (p, k) order: updates, deletes, no-ops and inserts in every bucket. */
function load(model: Model): KeyedChange[] {
  const changes: KeyedChange[] = [];
  for (const p of ['a', 'b', 'c', 'd']) {
    for (let k = 0; k < 120; k++) {
      const stored = model.get(`${p},${k}`);
      if (k % 7 === 0) changes.push(remove(p, k));
      else if (k % 11 === 0 && stored !== undefined) changes.push(upsert(p, k, stored));
      else if (k % 3 === 0 || stored === undefined) changes.push(upsert(p, k, value(p, k, 9)));
    }
  }
  return changes;
}

async function committedChangelog(table: Table, messages: CommitMessage[]): Promise<string[]> {
  const committed = await table.newCommit('load').commit(messages, { baseSnapshotId: 4 });
  const changelog: string[] = [];
  for await (const c of table.changelog(committed.snapshotId)) changelog.push(`${KINDS[c.kind]}(${String(c.row[0])},${String(c.row[1])},${String(c.row[2])})`);
  return changelog.sort();
}

test('a bucket written alone reads only its own (partition, bucket) base files, and the changelog is the one of many buckets written at once', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'tributary-changelog-bucket-files-'));
  try {
    const alone = await baseTable(dir, 'alone');
    const together = await baseTable(dir, 'together');
    const changes = load(alone.model);
    const want = apply(new Map(alone.model), changes);
    assert.ok(want.includes(`-U(a,3,${value('a', 3, 1)})`), 'an update of a key the second commit updated (partition a only)');
    assert.ok(want.includes(`-D(c,7,${value('c', 7, 0)})`), 'a delete of a key stored with other values in every partition');
    assert.ok(!want.some((r) => r.startsWith('-D(b,14,')), 'no -D of a key the base deleted');
    assert.ok(want.includes(`+I(d,3,${value('d', 3, 9)})`), 'an insert into a partition the base lacks');

    // Each (partition, bucket) on its own ChangelogWrite, as a bucket job writes it.
    const router = new RowRouter(alone.table.schema);
    const routed = router.route(batchFromRows({ fields: alone.table.schema.fields.map((f) => ({ ...f, type: { ...f.type, nullable: true } })) }, changes.map((c) => c.row)));
    assert.ok(routed.length >= 12, `the load spans many buckets (${routed.length})`);
    const messages: CommitMessage[] = [];
    let filesRead = 0;
    for (const [i, { rows }] of routed.entries()) {
      const write = await alone.table.newChangelogWrite({ baseSnapshotId: 4, writerId: `bucket${i}` });
      const written = await write.writeBucketBatches([rows.map((r) => changes[r] as KeyedChange)]);
      filesRead += written.filesRead;
      if (written.message !== null) messages.push(written.message);
    }
    assert.deepEqual(await committedChangelog(alone.table, messages), want);

    // The same load as one write of every bucket (one scan of the base).
    const write = await together.table.newChangelogWrite({ baseSnapshotId: 4, writerId: 'all' });
    const all = await write.write(changes);
    assert.equal(all.reduce((n, b) => n + b.filesRead, 0), filesRead, 'the same base files read');
    assert.deepEqual(await committedChangelog(together.table, write.prepareCommit()), want);

    // Each bucket on its own write again, sharing one manifest cache as a worker's bucket jobs do:
    // the same changelog, and each manifest file and list read from the store once.
    await baseTable(dir, 'cached');
    const store = countedStore(dir);
    const cachedTable = await openTable(store, 'db', 'cached');
    const cache = new ManifestCache();
    const cachedMessages: CommitMessage[] = [];
    for (const [i, { rows }] of routed.entries()) {
      const write = await cachedTable.newChangelogWrite({ baseSnapshotId: 4, writerId: `bucket${i}`, manifestCache: cache });
      const written = await write.writeBucketBatches([rows.map((r) => changes[r] as KeyedChange)]);
      if (written.message !== null) cachedMessages.push(written.message);
    }
    const manifestReads = [...store.reads].filter(([key]) => key.includes('/manifest/'));
    assert.ok(manifestReads.length >= 3, `the base's manifests were read (${manifestReads.length})`);
    assert.deepEqual(manifestReads.filter(([, n]) => n > 1), [], 'no manifest read twice');
    assert.ok(cache.stats().hits >= routed.length, `the later buckets' scans were answered by the cache (${JSON.stringify(cache.stats())})`);
    assert.deepEqual(await committedChangelog(cachedTable, cachedMessages), want);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
