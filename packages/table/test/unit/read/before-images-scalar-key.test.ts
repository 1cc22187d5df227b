// BeforeImageProbe over a key of one integer field (BIGINT, INT): its rows are compared as scalars
// read straight from the key column, without a key row per compared row. Property: over random
// histories of upserts and deletes (keys at the type's limits, around 2^53 and ±2^31, duplicates
// within a load, deletes of absent keys) written as overlapping files of small row groups, and
// random asked keys (stored, deleted, never stored) in random batches, the probe's before-image is
// exactly the record a sort-merge of the bucket's files (the table's own key comparator) picks.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { LocalObjectStore, createTable, type InternalRow, type KeyedChange } from '@tributary/table';
import { partitionFields } from '../../../src/spec/table-schema.ts';
import { BeforeImageProbe } from '../../../src/read/before-images.ts';
import { mergeDeduplicate } from '../../../src/read/sort-merge-reader.ts';
import { TableRead } from '../../../src/read/table-read.ts';
import { FileStoreScan } from '../../../src/snapshot/file-store-scan.ts';
import { isRetract } from '../../../src/format/key-value.ts';

const BIG_EDGES = [-(2n ** 63n), -(2n ** 63n) + 1n, -(2n ** 53n) - 1n, -(2n ** 31n), -1n, 0n, 1n, 2n ** 31n - 1n, 2n ** 31n, 2n ** 53n, 2n ** 53n + 1n, 2n ** 63n - 2n, 2n ** 63n - 1n];
const INT_EDGES = [-(2 ** 31), -(2 ** 31) + 1, -65536, -1, 0, 1, 65535, 2 ** 31 - 2, 2 ** 31 - 1];

const KEY_TYPES = {
  BIGINT: {
    key: fc.oneof(fc.constantFrom(...BIG_EDGES), fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }), fc.bigInt({ min: -40n, max: 40n })),
  },
  INT: {
    key: fc.oneof(fc.constantFrom(...INT_EDGES), fc.integer(), fc.integer({ min: -40, max: 40 })),
  },
} as const;

type Key = bigint | number;

const change = fc.record({
  delete: fc.boolean(),
  amount: fc.oneof(fc.constant(null), fc.double({ noNaN: true }), fc.constantFrom(0.1 + 0.2, -0, Number.MAX_VALUE, Number.MIN_VALUE)),
  note: fc.oneof(fc.constant(null), fc.string({ maxLength: 6 })),
});

for (const [root, { key }] of Object.entries(KEY_TYPES)) {
  test(`the probe over one ${root} key finds exactly the sort-merge winner (property)`, async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(fc.tuple(key as fc.Arbitrary<Key>, change), { minLength: 1, maxLength: 60 }), { minLength: 1, maxLength: 3 }),
        fc.array(key as fc.Arbitrary<Key>, { maxLength: 40 }),
        fc.integer({ min: 1, max: 6 }),
        fc.integer({ min: 1, max: 9 }),
        async (loads, extra, groupRows, split) => {
          const dir = await mkdtemp(join(tmpdir(), 'before-images-scalar-'));
          try {
            const table = await createTable(new LocalObjectStore(dir), {
              database: 'db',
              name: 'scalar',
              schema: {
                fields: [
                  { name: 'k', type: `${root} NOT NULL` },
                  { name: 'amount', type: 'DOUBLE' },
                  { name: 'note', type: 'STRING' },
                ],
                primaryKeys: ['k'],
                options: { bucket: '1', 'changelog-producer': 'input' },
              },
            });
            const cmp = (a: Key, b: Key): number => (a < b ? -1 : a > b ? 1 : 0);
            let committed = 0;
            for (const [i, load] of loads.entries()) {
              // One change per key (the write takes a netted load): the last of duplicates wins.
              const byKey = new Map<string, KeyedChange>();
              for (const [k, c] of load) byKey.set(String(k), { kind: c.delete ? 'delete' : 'upsert', row: [k, c.delete ? null : c.amount, c.delete ? null : c.note] });
              const changes = [...byKey.values()].sort((a, b) => cmp(a.row[0] as Key, b.row[0] as Key));
              const batches: KeyedChange[][] = [];
              for (let j = 0; j < changes.length; j += groupRows) batches.push(changes.slice(j, j + groupRows));
              const write = await table.newChangelogWrite({ baseSnapshotId: committed === 0 ? null : committed, writerId: `load${i}`, rowGroupRows: groupRows });
              await write.writeBucketBatches(batches);
              const messages = write.prepareCommit();
              if (messages.every((m) => m.dataIncrement.newFiles.length === 0)) continue;
              await table.newCommit(`load${i}`).commit(messages, committed === 0 ? {} : { baseSnapshotId: committed });
              committed++;
            }
            if (committed === 0) return;
            const files = await new FileStoreScan(table.store, table.path, partitionFields(table.schema)).plan(await table.snapshot(committed));
            const read = new TableRead(table.store, table.path, table.schema, { snapshotId: committed });
            const expected = new Map<string, { row: InternalRow; sequenceNumber: bigint } | null>();
            for await (const kv of mergeDeduplicate(files.map((f) => read.keyValues(f)), read.keyValueOrder(), { ignoreDelete: false })) {
              expected.set(String(kv.key[0]), isRetract(kv.valueKind) ? null : { row: kv.value, sequenceNumber: kv.sequenceNumber });
            }
            const asked = [...new Map([...loads.flat().map(([k]) => k), ...extra].map((k) => [String(k), k])).values()].sort(cmp);
            const probe = new BeforeImageProbe(read, files, { ignoreDelete: false });
            try {
              for (let i = 0; i < asked.length; i += split) {
                const part = asked.slice(i, i + split);
                const images = await probe.lookup(part.map((k) => [k]));
                part.forEach((k, j) => {
                  const got = images[j] ?? null;
                  assert.deepEqual(got === null ? null : { row: got.row, sequenceNumber: got.sequenceNumber }, expected.get(String(k)) ?? null, `key ${String(k)}`);
                });
              }
            } finally {
              await probe.close();
            }
          } finally {
            await rm(dir, { recursive: true, force: true });
          }
        },
      ),
      { numRuns: 60 },
    );
  });
}
