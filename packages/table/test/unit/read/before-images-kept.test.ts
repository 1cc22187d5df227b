// The probe decompresses each row group's pages into buffers it hands out again for the next row
// group (parquet/page-arena.ts). A before-image is kept by its caller long after the probe has moved
// on, so none of its values may be a view of those buffers: here every image of a bucket of many
// small row groups (BYTES, STRING, DECIMAL and BIGINT values, NULLs) is kept to the end of the probe
// and only then compared with the sort-merge winner of its key.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalObjectStore, createTable, type InternalRow, type KeyedChange } from '@tributary/table';
import { partitionFields } from '../../../src/spec/table-schema.ts';
import { BeforeImageProbe, type BeforeImage } from '../../../src/read/before-images.ts';
import { mergeDeduplicate } from '../../../src/read/sort-merge-reader.ts';
import { TableRead } from '../../../src/read/table-read.ts';
import { FileStoreScan } from '../../../src/snapshot/file-store-scan.ts';
import { isRetract } from '../../../src/format/key-value.ts';

/** Bytes of their own per key and version, of several lengths (0 included). */
function payload(k: number, version: number): Uint8Array {
  return Uint8Array.from({ length: (k * 7 + version) % 23 }, (_, i) => (k * 31 + version * 17 + i * 13) & 0xff);
}

const upsert = (k: number, version: number): KeyedChange => ({
  kind: 'upsert',
  row: [BigInt(k), k % 9 === 4 ? null : payload(k, version), `name ${k}.${version} ${'é'.repeat(k % 5)}`, k % 6 === 1 ? null : BigInt(k) * 100n + BigInt(version), BigInt(version)],
});

test('before-images kept past the probe\'s later row groups keep their values (BYTES, STRING, DECIMAL)', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'before-images-kept-'));
  try {
    const table = await createTable(new LocalObjectStore(dir), {
      database: 'db',
      name: 'kept',
      schema: {
        fields: [
          { name: 'k', type: 'BIGINT NOT NULL' },
          { name: 'payload', type: 'BYTES' },
          { name: 'name', type: 'STRING' },
          { name: 'price', type: 'DECIMAL(20, 2)' },
          { name: 'version', type: 'BIGINT' },
        ],
        primaryKeys: ['k'],
        options: { bucket: '1', 'changelog-producer': 'input' },
      },
    });
    // 600 keys in row groups of 11, then every 5th key updated in row groups of 7: two files of many groups.
    const loads: [KeyedChange[], number][] = [
      [Array.from({ length: 600 }, (_, k) => upsert(k, 0)), 11],
      [Array.from({ length: 120 }, (_, i) => upsert(5 * i, 1)), 7],
    ];
    for (const [i, [changes, size]] of loads.entries()) {
      const write = await table.newChangelogWrite({ baseSnapshotId: i === 0 ? null : i, writerId: `load${i}`, rowGroupRows: size });
      const batches: KeyedChange[][] = [];
      for (let j = 0; j < changes.length; j += size) batches.push(changes.slice(j, j + size));
      await write.writeBucketBatches(batches);
      await table.newCommit(`load${i}`).commit(write.prepareCommit(), i === 0 ? {} : { baseSnapshotId: i });
    }
    const snapshot = await table.snapshot(2);
    const files = await new FileStoreScan(table.store, table.path, partitionFields(table.schema)).plan(snapshot);
    assert.equal(files.length, 2);
    const read = new TableRead(table.store, table.path, table.schema, { snapshotId: 2 });
    for (const f of files) assert.ok((await read.openKeyValueFile(f)).reader.rowGroupCount >= 17, 'many row groups per file');

    const kept: (BeforeImage | null)[] = [];
    const probe = new BeforeImageProbe(read, files, { ignoreDelete: false });
    try {
      for (let k = 0; k < 600; k += 13) kept.push(...(await probe.lookup(Array.from({ length: Math.min(13, 600 - k) }, (_, j) => [BigInt(k + j)]))));
    } finally {
      await probe.close();
    }

    const expected = new Map<bigint, { row: InternalRow; sequenceNumber: bigint }>();
    for await (const kv of mergeDeduplicate(files.map((f) => read.keyValues(f)), read.keyValueOrder(), { ignoreDelete: false })) {
      if (!isRetract(kv.valueKind)) expected.set(kv.key[0] as bigint, { row: kv.value, sequenceNumber: kv.sequenceNumber });
    }
    assert.equal(kept.length, 600);
    for (const [k, image] of kept.entries()) {
      const want = expected.get(BigInt(k));
      assert.ok(image !== null && want !== undefined, `key ${k} is stored`);
      assert.deepEqual({ row: image.row, sequenceNumber: image.sequenceNumber }, want, `key ${k}'s image, read back after the whole probe`);
      assert.deepEqual(image.row[1], k % 9 === 4 ? null : payload(k, k % 5 === 0 ? 1 : 0), `key ${k}'s bytes`);
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
