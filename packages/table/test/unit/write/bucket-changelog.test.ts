// A load's bucket job into a changelog-producer = input table, without the sync around it: two
// writers' sorted runs (the same key in both, a delete by one) merged (mergeBucketRuns), a full
// extract's deletes added (fullExtractDeletes), the changelog written against the base snapshot
// (writeBucketChangelog) and committed as one APPEND snapshot; and partitionRowOf, the partition of
// a full extract given as its directory's text values, byte-equal to the partition a write routes a
// row to.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isTributaryError } from '@tributary/errors';
import { LocalObjectStore, TableWrite, createTable, fullExtractDeletes, mergeBucketRuns, partitionRowOf, writeBucketChangelog, type CommitMessage } from '@tributary/table';

const RUNS = 'staging/runs';
const KINDS = ['+I', '-U', '+U', '-D'];

test('merged runs with a full extract\'s deletes become one bucket\'s data and changelog: -U/+U, -D with the stored row, no-op silent', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'tributary-bucket-changelog-'));
  try {
    const store = new LocalObjectStore(dir);
    const table = await createTable(store, {
      database: 'db',
      name: 'changes',
      schema: { fields: [{ name: 'k', type: 'BIGINT NOT NULL' }, { name: 'v', type: 'BIGINT' }], primaryKeys: ['k'], options: { bucket: '1', 'changelog-producer': 'input' } },
    });
    const base = await table.newChangelogWrite({ baseSnapshotId: null, writerId: 'base' });
    await base.write([1, 2, 3, 4, 5, 6].map((k) => ({ kind: 'upsert' as const, row: [BigInt(k), BigInt(k * 100)] })));
    assert.equal((await table.newCommit('base').commit(base.prepareCommit())).snapshotId, 1);

    // The runs of a load pinned on snapshot 1: writer 0 sets key 1 to 90 and key 4 to 400 (no-op);
    // writer 1 (later slot) sets key 1 to 80, deletes key 2 and adds key 7. Keys 5 and 6 are in neither.
    const runsOf = async (slot: number, rows: [bigint, bigint | null][], kinds: number[]): Promise<CommitMessage[]> => {
      const write = await TableWrite.open(store, table.path, table.schema, { writerId: `w${slot}`, sequenceSlot: slot, dataPath: RUNS, baseSnapshotId: 1 });
      await write.writeRows(rows, kinds);
      return write.prepareCommit();
    };
    const w0 = await runsOf(0, [[1n, 90n], [3n, 300n], [4n, 400n]], [0, 0, 0]);
    const w1 = await runsOf(1, [[1n, 80n], [2n, null], [7n, 700n]], [0, 3, 0]);
    const runs = [w0, w1].flatMap((messages, slot) =>
      messages.flatMap((m) => m.dataIncrement.newFiles.map((f) => ({ fileName: f.fileName, size: Number(f.fileSize), slot, minSequence: f.minSequenceNumber }))),
    );
    const input = { store, tablePath: table.path, runsPath: RUNS, schema: table.schema, partition: w0[0]!.partition, bucket: 0, totalBuckets: 1, runs, writerId: 'sync-b0-a1' };
    const extracted = fullExtractDeletes(input, mergeBucketRuns(input), 1);
    const write = await table.newChangelogWrite({ baseSnapshotId: 1, writerId: 'sync-b0-a1' });
    const merged = await writeBucketChangelog(input, extracted, write);
    assert.equal(extracted.deletes(), 2, 'keys 5 and 6 are absent from the extract');
    assert.equal(merged.collidingKeys, 1, 'key 1 is in both writers');
    assert.deepEqual([merged.changelog.inserts, merged.changelog.updates, merged.changelog.deletes], [1, 1, 3]);
    assert.ok(merged.message?.dataIncrement.changelogFiles.every((f) => f.fileName.startsWith('changelog-sync-b0-a1-')));

    const committed = await table.newCommit('sync').commit([merged.message!], { baseSnapshotId: 1 });
    const snapshot = await table.snapshot(committed.snapshotId);
    assert.equal(snapshot.commitKind, 'APPEND');
    assert.equal(snapshot.changelogRecordCount, 6n);
    const rows: string[] = [];
    for await (const c of table.changelog(committed.snapshotId)) rows.push(`${KINDS[c.kind]}(${String(c.row[0])},${String(c.row[1])})`);
    assert.deepEqual(rows, ['-U(1,100)', '+U(1,80)', '-D(2,200)', '-D(5,500)', '-D(6,600)', '+I(7,700)'], 'key order, -U right before +U, -D with the stored row');
    const read = (await table.newRead().toArray()).map((r) => `${String(r[0])}=${String(r[1])}`);
    assert.deepEqual(read.sort(), ['1=80', '3=300', '4=400', '7=700']);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('partitionRowOf: the bytes a write routes the partition to; the wrong keys or a bad value are PARTITION_SPEC_INVALID', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'tributary-partition-spec-'));
  try {
    const store = new LocalObjectStore(dir);
    const table = await createTable(store, {
      database: 'db',
      name: 'parted',
      schema: {
        fields: [{ name: 'dt', type: 'DATE NOT NULL' }, { name: 'region', type: 'STRING' }, { name: 'k', type: 'BIGINT NOT NULL' }],
        partitionKeys: ['dt', 'region'],
        options: {},
      },
    });
    const write = await table.newWrite({ baseSnapshotId: null });
    await write.writeRows([[19_723, 'eu/west', 1n], [19_723, null, 2n]]);
    const routed = (await write.prepareCommit()).map((m) => Buffer.from(m.partition).toString('hex')).sort();
    const spec = [Buffer.from(partitionRowOf(table.schema, { dt: '19723', region: 'eu/west' })).toString('hex'), Buffer.from(partitionRowOf(table.schema, { dt: '19723', region: null })).toString('hex')].sort();
    assert.deepEqual(spec, routed);
    const invalid = (error: unknown) => isTributaryError(error) && error.code === 'PARTITION_SPEC_INVALID';
    assert.throws(() => partitionRowOf(table.schema, { dt: '2024-01-01' }), invalid, 'a key missing');
    assert.throws(() => partitionRowOf(table.schema, { dt: '2024-01-01', region: 'x', k: '1' }), invalid, 'a key that is no partition key');
    assert.throws(() => partitionRowOf(table.schema, { dt: 'yesterday', region: 'x' }), invalid, 'a value that is no DATE');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
