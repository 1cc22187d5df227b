// BeforeImageProbe over a key of integer types only (BIGINT, DATE, SMALLINT): its keys are compared
// without the per-value type dispatch. Keys at the int64, DATE and SMALLINT limits, negative and
// positive, equal in one field and not the next, stored over three overlapping files of small row
// groups (updated and deleted later), asked with absent keys between them: the probe's before-image
// must be exactly the record a sort-merge of the files (the table's own key comparator) picks.
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

const BIGS = [-(2n ** 63n), -(2n ** 63n) + 1n, -(2n ** 32n), -1n, 0n, 1n, 2n ** 31n, 2n ** 53n, 2n ** 53n + 1n, 2n ** 63n - 1n];
const DAYS = [-719_162, -1, 0, 2_932_896];
const SMALLS = [-32768, 0, 32767];
const ALL: InternalRow[] = BIGS.flatMap((b) => DAYS.flatMap((d) => SMALLS.map((s) => [b, d, s] as InternalRow)));
const text = (key: InternalRow) => key.map(String).join('/');

test('the probe over an integer key finds exactly the sort-merge winner at the types\' limits', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'before-images-integer-'));
  try {
    const table = await createTable(new LocalObjectStore(dir), {
      database: 'db',
      name: 'integer_keys',
      schema: {
        fields: [
          { name: 'b', type: 'BIGINT NOT NULL' },
          { name: 'd', type: 'DATE NOT NULL' },
          { name: 's', type: 'SMALLINT NOT NULL' },
          { name: 'v', type: 'INT' },
        ],
        primaryKeys: ['b', 'd', 's'],
        options: { bucket: '1', 'changelog-producer': 'input' },
      },
    });
    // Every other key stored, then every 3rd key of all upserted and every 5th stored deleted, then a few again.
    const upsert = (key: InternalRow, v: number): KeyedChange => ({ kind: 'upsert', row: [...key, v] });
    const loads: KeyedChange[][] = [
      ALL.filter((_, i) => i % 2 === 0).map((key) => upsert(key, 0)),
      ALL.flatMap((key, i) => (i % 10 === 0 ? [{ kind: 'delete' as const, row: [...key, null] }] : i % 3 === 0 ? [upsert(key, 1)] : [])),
      ALL.filter((_, i) => i % 7 === 0).map((key) => upsert(key, 2)),
    ];
    for (const [i, changes] of loads.entries()) {
      const write = await table.newChangelogWrite({ baseSnapshotId: i === 0 ? null : i, writerId: `load${i}`, rowGroupRows: 5 });
      const batches: KeyedChange[][] = [];
      for (let j = 0; j < changes.length; j += 5) batches.push(changes.slice(j, j + 5));
      await write.writeBucketBatches(batches);
      await table.newCommit(`load${i}`).commit(write.prepareCommit(), i === 0 ? {} : { baseSnapshotId: i });
    }
    const files = await new FileStoreScan(table.store, table.path, partitionFields(table.schema)).plan(await table.snapshot(3));
    assert.equal(files.length, 3, 'three overlapping files');
    const read = new TableRead(table.store, table.path, table.schema, { snapshotId: 3 });
    const expected = new Map<string, { row: InternalRow; sequenceNumber: bigint } | null>();
    for await (const kv of mergeDeduplicate(files.map((f) => read.keyValues(f)), read.keyValueOrder(), { ignoreDelete: false })) {
      expected.set(text(kv.key), isRetract(kv.valueKind) ? null : { row: kv.value, sequenceNumber: kv.sequenceNumber });
    }
    assert.ok([...expected.values()].filter((v) => v !== null).length > ALL.length / 3, 'many keys stored');
    for (const split of [1, 4, ALL.length]) {
      const probe = new BeforeImageProbe(read, files, { ignoreDelete: false });
      try {
        for (let i = 0; i < ALL.length; i += split) {
          const asked = ALL.slice(i, i + split);
          const images = await probe.lookup(asked);
          asked.forEach((key, j) => {
            const got = images[j] ?? null;
            assert.deepEqual(got === null ? null : { row: got.row, sequenceNumber: got.sequenceNumber }, expected.get(text(key)) ?? null, `key ${text(key)}, batches of ${split}`);
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
