// ChangelogWrite.writeBucketBatches: one bucket's changes streamed in small batches against a base
// of several overlapping files (an update and a delete of earlier files, later inserts) give the
// changelog and table a model of the keys predicts, the same as the whole bucket at once; a batch
// that goes back in key order is WRITE_ROW_INVALID at its row counted from the first batch.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isTributaryError } from '@tributary/errors';
import { LocalObjectStore, createTable, type BucketChangelog, type Table } from '@tributary/table';
import { ParquetDataFileReader, byteSourceFromBytes } from '../../../src/parquet/parquet-reader.ts';

const KINDS = ['+I', '-U', '+U', '-D'];
type Change = { kind: 'upsert' | 'delete'; row: [bigint, bigint] };
const upsert = (k: number, v: number): Change => ({ kind: 'upsert', row: [BigInt(k), BigInt(v)] });
const remove = (k: number): Change => ({ kind: 'delete', row: [BigInt(k), 0n] });

/** A table whose only bucket holds three files: keys 0..199, then 100..149 updated and 150..159 deleted, then 300..349. */
async function baseTable(dir: string, name: string): Promise<{ table: Table; model: Map<number, number> }> {
  const table = await createTable(new LocalObjectStore(dir), {
    database: 'db',
    name,
    schema: { fields: [{ name: 'k', type: 'BIGINT NOT NULL' }, { name: 'v', type: 'BIGINT' }], primaryKeys: ['k'], options: { bucket: '1', 'changelog-producer': 'input' } },
  });
  const model = new Map<number, number>();
  const loads: Change[][] = [
    Array.from({ length: 200 }, (_, k) => upsert(k, k * 10)),
    [...Array.from({ length: 50 }, (_, i) => upsert(100 + i, (100 + i) * 10 + 1)), ...Array.from({ length: 10 }, (_, i) => remove(150 + i))],
    Array.from({ length: 50 }, (_, i) => upsert(300 + i, (300 + i) * 10)),
  ];
  for (const [i, load] of loads.entries()) {
    const write = await table.newChangelogWrite({ baseSnapshotId: i === 0 ? null : i, writerId: `base${i}` });
    await write.write(load);
    await table.newCommit(`base${i}`).commit(write.prepareCommit(), i === 0 ? {} : { baseSnapshotId: i });
    for (const c of load) {
      if (c.kind === 'delete') model.delete(Number(c.row[0]));
      else model.set(Number(c.row[0]), Number(c.row[1]));
    }
  }
  return { table, model };
}

/** Keys 0..399: every 5th updated, every 7th deleted, every 11th set to its stored value, the others from 200 up inserted. */
function load(model: ReadonlyMap<number, number>): Change[] {
  const changes: Change[] = [];
  for (let k = 0; k < 400; k++) {
    if (k % 7 === 0) changes.push(remove(k));
    else if (k % 11 === 0 && model.has(k)) changes.push(upsert(k, model.get(k) as number));
    else if (k % 5 === 0 || k >= 200) changes.push(upsert(k, k * 10 + 7));
  }
  return changes;
}

function expected(model: ReadonlyMap<number, number>, changes: readonly Change[]): { changelog: string[]; table: string[] } {
  const after = new Map(model);
  const changelog: string[] = [];
  for (const { kind, row } of changes) {
    const k = Number(row[0]);
    const before = model.get(k);
    if (kind === 'delete') {
      if (before !== undefined) changelog.push(`-D(${k},${before})`);
      after.delete(k);
    } else if (before === undefined) {
      changelog.push(`+I(${k},${row[1]})`);
      after.set(k, Number(row[1]));
    } else if (before !== Number(row[1])) {
      changelog.push(`-U(${k},${before})`, `+U(${k},${row[1]})`);
      after.set(k, Number(row[1]));
    }
  }
  return { changelog, table: [...after.entries()].sort(([a], [b]) => a - b).map(([k, v]) => `${k}=${v}`) };
}

async function outcome(table: Table, written: BucketChangelog): Promise<{ changelog: string[]; table: string[] }> {
  const committed = await table.newCommit('load').commit([written.message!], { baseSnapshotId: 3 });
  const changelog: string[] = [];
  for await (const c of table.changelog(committed.snapshotId)) changelog.push(`${KINDS[c.kind]}(${String(c.row[0])},${String(c.row[1])})`);
  const rows = (await table.newRead().toArray()).map((r) => [Number(r[0]), Number(r[1])] as const);
  return { changelog, table: rows.sort(([a], [b]) => a - b).map(([k, v]) => `${k}=${v}`) };
}

test('a bucket streamed in batches of 7 gives the changelog and table the model predicts, as the whole bucket at once does', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'tributary-changelog-stream-'));
  try {
    const whole = await baseTable(dir, 'whole');
    const streamed = await baseTable(dir, 'streamed');
    const changes = load(whole.model);
    const want = expected(whole.model, changes);
    assert.ok(want.changelog.includes('-D(105,1051)'), 'the load deletes a key the second file updated');

    const atOnce = await (await whole.table.newChangelogWrite({ baseSnapshotId: 3, writerId: 'once' })).writeBucket(changes);
    async function* batches(): AsyncGenerator<Change[]> {
      for (let i = 0; i < changes.length; i += 7) yield changes.slice(i, i + 7);
    }
    const inBatches = await (await streamed.table.newChangelogWrite({ baseSnapshotId: 3, writerId: 'batches' })).writeBucketBatches(batches());

    assert.deepEqual(await outcome(whole.table, atOnce), want);
    assert.deepEqual(await outcome(streamed.table, inBatches), want);
    const counts = (b: BucketChangelog) => [b.dataRows, b.inserts, b.updates, b.deletes, b.filesRead];
    assert.deepEqual(counts(inBatches), counts(atOnce));
    assert.equal(atOnce.filesRead, 3, 'every base file overlaps the load');
    // Written batch by batch, the data and changelog files still get full row groups, not one per batch of 7.
    const increment = inBatches.message!.dataIncrement;
    const written = [...increment.newFiles, ...increment.changelogFiles];
    assert.equal(written.length, 2, 'one data file and one changelog file');
    for (const file of written) {
      const reader = await ParquetDataFileReader.open(byteSourceFromBytes(await streamed.table.store.get(`${streamed.table.path}/bucket-0/${file.fileName}`)));
      assert.equal(reader.rowGroupCount, 1, `${file.fileName}: ${reader.rowGroupCount} row groups for ${file.rowCount} rows`);
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('a later batch that goes back in key order is WRITE_ROW_INVALID at its row counted from the first batch', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'tributary-changelog-stream-order-'));
  try {
    const { table } = await baseTable(dir, 'order');
    const write = await table.newChangelogWrite({ baseSnapshotId: 3, writerId: 'order' });
    const error = await write.writeBucketBatches([[upsert(1, 1), upsert(5, 5)], [upsert(6, 6), upsert(4, 4)]]).then(
      () => assert.fail('an out-of-order batch was written'),
      (e: unknown) => e,
    );
    assert.ok(isTributaryError(error));
    assert.equal(error.code, 'WRITE_ROW_INVALID');
    assert.equal(error.context['row'], 3);
    const first = await write.writeBucketBatches([[upsert(2, 2)], [upsert(3, 3)]]).catch((e: unknown) => e);
    assert.ok(isTributaryError(first) && first.code === 'WRITE_ROW_INVALID', 'the bucket was taken by the failed write');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
