// Compaction on the local disk: plan (write/compact-table.ts), rewrite each bucket
// (write/compact-bucket.ts) and commit the rewrites as one COMPACT snapshot. The table reads
// exactly the model's rows before and after; full compaction leaves one top-level run per bucket
// with no deletes; a load committed between planning and commit survives; a compaction whose
// inputs were already compacted away gives way with COMMIT_CONFLICT and its files stay unreferenced.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { isTributaryError } from '@tributary/errors';
import { LocalObjectStore, compactBucket, createTable, decodeCompactionInputs, encodeCompactionInputs, liveBucketFiles, planTableCompaction, type CommitMessage, type InternalRow, type Table } from '@tributary/table';
import { canonical } from './table-suite.ts';

const DELETE = 3;

async function load(table: Table, user: string, rows: InternalRow[], kinds?: number[]): Promise<void> {
  const write = await table.newWrite({ writerId: user, baseSnapshotId: (await table.latestSnapshot())?.id === undefined ? null : Number((await table.latestSnapshot())?.id) });
  await write.writeRows(rows, kinds);
  await table.newCommit(user).commit(await write.prepareCommit());
}

async function compactAll(table: Table, full: boolean, writerId: string): Promise<{ messages: CommitMessage[]; base: number }> {
  const plan = await planTableCompaction(table, { full });
  assert.notEqual(plan.baseSnapshotId, null);
  const messages: CommitMessage[] = [];
  for (const b of plan.buckets) {
    // The job gets the inputs' full metadata from the plan's staged object, as a worker does: the
    // entries exactly as the base snapshot's manifests hold them, in the plan's order.
    const staged = decodeCompactionInputs(encodeCompactionInputs(b));
    const live = await liveBucketFiles(table, plan.baseSnapshotId as number, b.partition, b.bucket);
    assert.deepEqual(staged, b.unit.files.map((f) => live.get(f.fileName) ?? assert.fail(`${f.fileName} not live`)));
    const files = staged.map((e) => e.file);
    const done = await compactBucket({ store: table.store, tablePath: table.path, schema: table.schema, partition: b.partition, bucket: b.bucket, totalBuckets: b.totalBuckets, unit: { ...b.unit, files }, writerId: `${writerId}-${b.bucket}` });
    messages.push(done.message);
  }
  return { messages, base: plan.baseSnapshotId as number };
}

async function withTable(options: Record<string, string>, primaryKeys: string[], run: (table: Table) => Promise<void>): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'compaction-'));
  try {
    const table = await createTable(new LocalObjectStore(dir), {
      database: 'db',
      name: 't',
      schema: {
        fields: [
          { name: 'id', type: 'BIGINT NOT NULL' },
          { name: 'dt', type: 'INT NOT NULL' },
          { name: 'v', type: 'STRING' },
        ],
        partitionKeys: ['dt'],
        primaryKeys,
        options,
      },
    });
    await run(table);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

test('primary key: full compaction keeps exactly the rows, one top-level file per bucket, deletes gone', async () => {
  await withTable({ bucket: '2' }, ['id', 'dt'], async (table) => {
    const model = new Map<string, InternalRow>();
    for (let round = 0; round < 6; round++) {
      const rows: InternalRow[] = [];
      for (let id = round; id < 40; id += 3) rows.push([BigInt(id), id % 2, `r${round}-${id}`]);
      await load(table, `load-${round}`, rows);
      for (const r of rows) model.set(`${r[0]}|${r[1]}`, r);
    }
    const gone: InternalRow[] = [[3n, 1, null], [4n, 0, null]];
    await load(table, 'deletes', gone, [DELETE, DELETE]);
    for (const r of gone) model.delete(`${r[0]}|${r[1]}`);
    const before = (await table.dataFiles()).files;
    assert.ok(before.every((f) => f.level === 0));

    const { messages, base } = await compactAll(table, true, 'compact-1');
    assert.equal(messages.length, 4); // 2 partitions × 2 buckets
    const result = await table.newCommit('compactor-1').commit(messages, { kind: 'COMPACT', baseSnapshotId: base });
    const snapshot = await table.snapshot(result.snapshotId);
    assert.equal(snapshot.commitKind, 'COMPACT');
    assert.deepEqual(canonical(await table.newRead().toArray()), canonical([...model.values()]));
    const after = (await table.dataFiles()).files;
    assert.equal(after.length, 4);
    assert.ok(after.every((f) => f.level === 5));
    // The two deletes were dropped: the files hold exactly the live rows.
    assert.equal(after.reduce((n, f) => n + f.rows, 0), model.size);
    assert.equal(Number(snapshot.totalRecordCount), model.size);
    // Nothing left to do.
    assert.equal((await planTableCompaction(table, { full: true })).buckets.length, 0);
  });
});

test('primary key: a load committed between planning and commit survives; the same inputs compacted twice give way', async () => {
  await withTable({ bucket: '1' }, ['id', 'dt'], async (table) => {
    const model = new Map<string, InternalRow>();
    for (let round = 0; round < 3; round++) {
      const rows: InternalRow[] = [[1n, 1, `a${round}`], [BigInt(10 + round), 1, `b${round}`]];
      await load(table, `load-${round}`, rows);
      for (const r of rows) model.set(`${r[0]}|${r[1]}`, r);
    }
    const first = await compactAll(table, true, 'first');
    const second = await compactAll(table, true, 'second');
    // A load lands after both plans: it overwrites key 1 (newer than everything compacted).
    await load(table, 'late', [[1n, 1, 'late']]);
    model.set('1|1', [1n, 1, 'late']);
    await table.newCommit('compactor-first').commit(first.messages, { kind: 'COMPACT', baseSnapshotId: first.base });
    assert.deepEqual(canonical(await table.newRead().toArray()), canonical([...model.values()]));
    await assert.rejects(
      table.newCommit('compactor-second').commit(second.messages, { kind: 'COMPACT', baseSnapshotId: second.base }),
      (e: unknown) => isTributaryError(e) && e.code === 'COMMIT_CONFLICT',
    );
    const live = new Set((await table.dataFiles()).files.map((f) => f.path.split('/').pop()));
    for (const f of second.messages.flatMap((m) => m.compactIncrement.compactAfter)) assert.ok(!live.has(f.fileName), `${f.fileName} of the losing compaction is not referenced`);
    assert.deepEqual(canonical(await table.newRead().toArray()), canonical([...model.values()]));
  });
});

test('append, bucket -1: small files of a partition merged into one, rows and their order by sequence kept', async () => {
  await withTable({ bucket: '-1', 'target-file-size': '1 mb' }, [], async (table) => {
    const all: InternalRow[] = [];
    for (let round = 0; round < 5; round++) {
      const rows: InternalRow[] = [[BigInt(round), 1, `x${round}`], [BigInt(round + 100), 1, `y${round}`]];
      await load(table, `load-${round}`, rows);
      all.push(...rows);
    }
    assert.equal((await table.dataFiles()).files.length, 5);
    const { messages, base } = await compactAll(table, false, 'append');
    assert.equal(messages.length, 1);
    await table.newCommit('compactor').commit(messages, { kind: 'COMPACT', baseSnapshotId: base });
    const files = (await table.dataFiles()).files;
    assert.equal(files.length, 1);
    assert.equal(files[0]?.level, 0);
    assert.deepEqual(await table.newRead().toArray(), all);
  });
});

test('a COMPACT commit refuses new data files and an empty compactBefore', async () => {
  await withTable({ bucket: '1' }, ['id', 'dt'], async (table) => {
    const write = await table.newWrite({ writerId: 'w', baseSnapshotId: null });
    await write.writeRows([[1n, 1, 'a']]);
    const messages = await write.prepareCommit();
    await assert.rejects(table.newCommit('c').commit(messages, { kind: 'COMPACT' }), (e: unknown) => isTributaryError(e) && e.code === 'COMMIT_MESSAGE_UNSUPPORTED');
  });
});
