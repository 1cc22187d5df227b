// The bucket stage's merge: writers' sorted runs written outside the table (dataPath), merged into
// one bucket's files; the later writer (slot) wins a key, a retraction stays a retraction, keys in
// several writers are counted, files roll at target-file-size, and the table reads the result.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalObjectStore, TableWrite, createTable, mergeBucket, type CommitMessage } from '@tributary/table';

const RUNS = 'staging/runs';

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
