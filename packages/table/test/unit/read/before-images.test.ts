// BeforeImageProbe against the reference it replaces: for every key of a bucket of several
// overlapping files, each of many small row groups (keys at row-group and file boundaries, keys
// updated and deleted in later files, keys never stored), the probe's before-image is exactly the
// record a sort-merge of all the bucket's files picks (row and _SEQUENCE_NUMBER), or none when the
// winner is a retraction or the key is absent — whatever the batches the keys are asked in.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalObjectStore, createTable, type InternalRow, type KeyedChange } from '@tributary/table';
import { partitionFields } from '../../../src/spec/table-schema.ts';
import { BeforeImageProbe } from '../../../src/read/before-images.ts';
import { mergeDeduplicate } from '../../../src/read/sort-merge-reader.ts';
import { TableRead } from '../../../src/read/table-read.ts';
import { FileStoreScan } from '../../../src/snapshot/file-store-scan.ts';
import { isRetract } from '../../../src/format/key-value.ts';

const STATUSES = ['NEW', 'PAID', 'SHIPPED'];
const upsert = (k: number, version: number): KeyedChange => ({
  kind: 'upsert',
  row: [BigInt(k), version, k % 4 === 1 ? null : `${STATUSES[(k + version) % 3]} ${k}`, k % 6 === 2 ? null : BigInt(k * 1000 + version)],
});
const remove = (k: number): KeyedChange => ({ kind: 'delete', row: [BigInt(k), null, null, null] });

/** Changes cut into batches of `size` (written with row groups of `size` rows, each batch is a row group). */
function batches(changes: readonly KeyedChange[], size: number): KeyedChange[][] {
  const out: KeyedChange[][] = [];
  for (let i = 0; i < changes.length; i += size) out.push(changes.slice(i, i + size));
  return out;
}

/** The probed table: key k, three value columns, one bucket, changelog-producer input. */
function probeTable(dir: string, name: string): ReturnType<typeof createTable> {
  return createTable(new LocalObjectStore(dir), {
    database: 'db',
    name,
    schema: {
      fields: [
        { name: 'k', type: 'BIGINT NOT NULL' },
        { name: 'version', type: 'INT' },
        { name: 'status', type: 'STRING' },
        { name: 'amount', type: 'BIGINT' },
      ],
      primaryKeys: ['k'],
      options: { bucket: '1', 'changelog-producer': 'input' },
    },
  });
}

test('the probe finds exactly the sort-merge winner of every key across files of many row groups', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'before-images-'));
  try {
    const table = await probeTable(dir, 'probe');
    // Even keys 0..398 in row groups of 7; then every 3rd key updated, every 10th deleted and odd
    // keys inserted, in row groups of 5; then keys at the row-group edges of both updated again
    // (and key 0, the first file's minimum, deleted), in row groups of 3.
    const loads: [KeyedChange[], number][] = [
      [Array.from({ length: 200 }, (_, i) => upsert(2 * i, 0)), 7],
      [
        Array.from({ length: 400 }, (_, k) => (k % 10 === 0 && k % 2 === 0 ? remove(k) : k % 3 === 0 || k % 2 === 1 ? upsert(k, 1) : undefined)).filter(
          (c): c is KeyedChange => c !== undefined,
        ),
        5,
      ],
      [[remove(0), ...[12, 13, 14, 15, 26, 27, 28, 29, 30, 398, 399].map((k) => upsert(k, 2))], 3],
    ];
    for (const [i, [changes, size]] of loads.entries()) {
      const write = await table.newChangelogWrite({ baseSnapshotId: i === 0 ? null : i, writerId: `load${i}`, rowGroupRows: size });
      await write.writeBucketBatches(batches(changes, size));
      await table.newCommit(`load${i}`).commit(write.prepareCommit(), i === 0 ? {} : { baseSnapshotId: i });
    }
    const snapshot = await table.snapshot(3);
    const files = await new FileStoreScan(table.store, table.path, partitionFields(table.schema)).plan(snapshot);
    assert.equal(files.length, 3, 'three overlapping files in the bucket');
    const read = new TableRead(table.store, table.path, table.schema, { snapshotId: 3 });
    for (const f of files) {
      const { reader } = await read.openKeyValueFile(f);
      assert.ok(reader.rowGroupCount >= 4, `file ${f.file.fileName} has many row groups (${reader.rowGroupCount})`);
    }
    // The reference: every live record of the bucket as a sort-merge picks it (a key whose winner is a
    // retraction is absent from it).
    const order = read.keyValueOrder();
    const expected = new Map<bigint, { row: InternalRow; sequenceNumber: bigint } | null>();
    for await (const kv of mergeDeduplicate(files.map((f) => read.keyValues(f)), order, { ignoreDelete: false })) {
      expected.set(kv.key[0] as bigint, isRetract(kv.valueKind) ? null : { row: kv.value, sequenceNumber: kv.sequenceNumber });
    }
    // Stored in the first file and deleted later: the probe must not return the first file's row.
    for (const k of [0n, 10n, 20n, 390n]) assert.equal(expected.has(k), false, `key ${k} ends deleted`);
    assert.equal(expected.get(14n)?.row[1], 2, 'key 14 holds its third version');
    const keys = Array.from({ length: 403 }, (_, i) => BigInt(i - 1)); // -1 and 400, 401: outside every file
    for (const split of [1, 3, 7, 64, 403]) {
      const probe = new BeforeImageProbe(read, files, { ignoreDelete: false });
      try {
        for (let i = 0; i < keys.length; i += split) {
          const asked = keys.slice(i, i + split);
          const images = await probe.lookup(asked.map((k) => [k]));
          asked.forEach((k, j) => {
            const want = expected.get(k) ?? null;
            const got = images[j] ?? null;
            assert.deepEqual(got === null ? null : { row: got.row, sequenceNumber: got.sequenceNumber }, want, `key ${k}, batches of ${split}`);
          });
        }
      } finally {
        await probe.close();
      }
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

// The probe gallops from the last row it found (1, 2, 4, … rows on) before its binary search: asked
// keys far apart, near together and at row-group edges, over row groups large enough for long gallops,
// must still find exactly the sort-merge winner.
test('the probe finds the sort-merge winner of sparse and clustered keys in large row groups', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'before-images-sparse-'));
  try {
    const table = await probeTable(dir, 'probe_sparse');
    // Keys 0, 3, 6, … 2997 in row groups of 100; then every 7th key of 0..2999 upserted and every 11th
    // stored key deleted, in row groups of 37; then a cluster at the first file's row-group edges.
    const loads: [KeyedChange[], number][] = [
      [Array.from({ length: 1000 }, (_, i) => upsert(3 * i, 0)), 100],
      [
        Array.from({ length: 3000 }, (_, k) => (k % 33 === 0 ? remove(k) : k % 7 === 0 ? upsert(k, 1) : undefined)).filter(
          (c): c is KeyedChange => c !== undefined,
        ),
        37,
      ],
      [[297, 298, 299, 300, 301, 302, 303, 597, 600, 603].map((k) => upsert(k, 2)), 3],
    ];
    for (const [i, [changes, size]] of loads.entries()) {
      const write = await table.newChangelogWrite({ baseSnapshotId: i === 0 ? null : i, writerId: `load${i}`, rowGroupRows: size });
      await write.writeBucketBatches(batches(changes, size));
      await table.newCommit(`load${i}`).commit(write.prepareCommit(), i === 0 ? {} : { baseSnapshotId: i });
    }
    const snapshot = await table.snapshot(3);
    const files = await new FileStoreScan(table.store, table.path, partitionFields(table.schema)).plan(snapshot);
    assert.equal(files.length, 3, 'three overlapping files in the bucket');
    const read = new TableRead(table.store, table.path, table.schema, { snapshotId: 3 });
    const order = read.keyValueOrder();
    const expected = new Map<bigint, { row: InternalRow; sequenceNumber: bigint } | null>();
    for await (const kv of mergeDeduplicate(files.map((f) => read.keyValues(f)), order, { ignoreDelete: false })) {
      expected.set(kv.key[0] as bigint, isRetract(kv.valueKind) ? null : { row: kv.value, sequenceNumber: kv.sequenceNumber });
    }
    assert.equal(expected.get(300n)?.row[1], 2, 'key 300 holds its third version');
    assert.equal(expected.has(99n), false, 'key 99 ends deleted');
    // Asked sets: strides from dense to one key per row group or more, a seeded random subset, and
    // a clustered set (runs of neighbours separated by long gaps), each from -1 to 3001.
    let seed = 7;
    const random = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
    const all = Array.from({ length: 3003 }, (_, i) => i - 1);
    const sets: [string, number[]][] = [
      ...[1, 2, 5, 17, 64, 301].map((s): [string, number[]] => [`every ${s}th`, all.filter((k) => (k + 1) % s === 0)]),
      ['random', all.filter(() => random() < 0.08)],
      ['clustered', all.filter((k) => k % 250 < 6 || k % 250 > 246)],
    ];
    let found = 0;
    for (const [name, asked] of sets) {
      for (const split of [1, 9, asked.length]) {
        const probe = new BeforeImageProbe(read, files, { ignoreDelete: false });
        try {
          for (let i = 0; i < asked.length; i += split) {
            const part = asked.slice(i, i + split).map(BigInt);
            const images = await probe.lookup(part.map((k) => [k]));
            part.forEach((k, j) => {
              const want = expected.get(k) ?? null;
              const got = images[j] ?? null;
              if (got !== null) found++;
              assert.deepEqual(got === null ? null : { row: got.row, sequenceNumber: got.sequenceNumber }, want, `key ${k}, ${name}, batches of ${split}`);
            });
          }
        } finally {
          await probe.close();
        }
      }
    }
    assert.ok(found > 1000, `the asked keys include many stored ones (${found})`);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
