// Property test of data file paths on the local disk (fast-check): random batches over string
// partitions whose values often share a directory (NULL, '', blank strings and the literal default
// name are all `__DEFAULT_PARTITION__`), with path-like and unicode values beside them, random bucket
// counts, append and primary-key tables, several commits with one writer id or a new one each. In
// every snapshot no two manifest entries that add a file name one path, every live file on storage
// is the file its entry describes, and a read returns exactly the rows written.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import fc from 'fast-check';
import { FileStoreScan, LocalObjectStore, createTable, dataFilesMessage, type InternalRow, type Table } from '@tributary/table';
import type { ManifestEntry } from '@tributary/table/spec';
import { canonical } from './table-suite.ts';

const partitionValue = fc.oneof(
  fc.constantFrom(null, '', ' ', '\t', ' \t ', '\u3000', '\n', '__DEFAULT_PARTITION__', 'a', 'b'),
  fc.constantFrom('x/y', 'k=v', '%41', '..', '.', 'a b', 'ü😀', '数据', 'c:#?*'),
  fc.string({ maxLength: 3 }),
);

interface Layout {
  readonly primaryKey: boolean;
  /** -1: bucket-unaware (append only). */
  readonly buckets: number;
  readonly twoColumns: boolean;
  readonly sameWriterId: boolean;
  readonly bufferRows: number;
  readonly maxOpenFiles: number;
}

const layout: fc.Arbitrary<Layout> = fc
  .record({
    primaryKey: fc.boolean(),
    buckets: fc.integer({ min: -1, max: 4 }),
    twoColumns: fc.boolean(),
    sameWriterId: fc.boolean(),
    bufferRows: fc.integer({ min: 1, max: 8 }),
    maxOpenFiles: fc.integer({ min: 1, max: 3 }),
  })
  .map((l) => ({ ...l, buckets: l.buckets === 0 || (l.primaryKey && l.buckets < 0) ? 1 : l.buckets }));

type Cell = { readonly id: number; readonly p: string | null; readonly q: string | null };
const cell = fc.record({ id: fc.integer({ min: 0, max: 6 }), p: partitionValue, q: partitionValue });
const commits = fc.array(fc.array(cell, { minLength: 1, maxLength: 25 }), { minLength: 1, maxLength: 4 });

let tag = 0;

/** The table's rows for the cells; primary-key fields are NOT NULL, so a null becomes ''. */
function rowsOf(l: Layout, cells: readonly Cell[]): InternalRow[] {
  return cells.map((c) => {
    const p = l.primaryKey ? (c.p ?? '') : c.p;
    const q = l.primaryKey ? (c.q ?? '') : c.q;
    return l.twoColumns ? [BigInt(c.id), p, q, `v${tag++}`] : [BigInt(c.id), p, `v${tag++}`];
  });
}

/** Every ADD entry in the snapshot's manifests (base and delta): each names a file added once. */
async function addedEntries(table: Table, id: number): Promise<ManifestEntry[]> {
  const scan = new FileStoreScan(table.store, table.path, table.schema.fields.filter((f) => table.schema.partitionKeys.includes(f.name)));
  const entries: ManifestEntry[] = [];
  for (const meta of await scan.dataManifests(await table.snapshot(id))) entries.push(...(await scan.readManifest(meta.fileName)));
  return entries.filter((e) => e.kind === 'ADD');
}

const keysOf = (table: Table, entries: readonly ManifestEntry[]) =>
  table.dataFileKeys(entries.map((e) => dataFilesMessage(e.partition, e.bucket, e.totalBuckets, { newFiles: [e.file] })));

test('data file paths stay distinct and reads stay exact over random partitioned batches', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'tributary-path-prop-'));
  const store = new LocalObjectStore(dir);
  let tables = 0;
  try {
    await fc.assert(
      fc.asyncProperty(layout, commits, async (l, batches) => {
        const keyFields = l.twoColumns ? ['p', 'q'] : ['p'];
        const table = await createTable(store, {
          database: 'db',
          name: `t${tables++}`,
          schema: {
            fields: [{ name: 'id', type: 'BIGINT' }, ...keyFields.map((name) => ({ name, type: 'STRING' })), { name: 'v', type: 'STRING' }],
            partitionKeys: keyFields,
            ...(l.primaryKey ? { primaryKeys: ['id', ...keyFields] } : {}),
            options: { bucket: String(l.buckets), ...(l.buckets > 0 && !l.primaryKey ? { 'bucket-key': 'id' } : {}) },
          },
        });
        const appended: InternalRow[] = [];
        const latest = new Map<string, InternalRow>();
        const writerId = `w${tables}`;
        for (const [i, cells] of batches.entries()) {
          const rows = rowsOf(l, cells);
          const write = await table.newWrite({
            ...(l.sameWriterId ? { writerId } : {}),
            bufferRows: l.bufferRows,
            maxBufferedRows: 3 * l.bufferRows,
            maxOpenFiles: l.maxOpenFiles,
          });
          await write.writeRows(rows);
          await table.newCommit(`u${i}`).commit(await write.prepareCommit());
          appended.push(...rows);
          for (const r of rows) latest.set(canonical([r.slice(0, -1)])[0]!, r);

          const added = keysOf(table, await addedEntries(table, i + 1));
          assert.equal(new Set(added).size, added.length, `snapshot ${i + 1}: ${added.length} added entries name ${new Set(added).size} paths`);
          const live = await table.newRead().plan();
          const liveKeys = keysOf(table, live);
          for (const [k, key] of liveKeys.entries()) {
            assert.equal((await store.stat(key))?.size, Number(live[k]!.file.fileSize), `${key} is the file its entry describes`);
          }
          const expected = l.primaryKey ? [...latest.values()] : appended;
          assert.deepEqual(canonical(await table.newRead().toArray()), canonical(expected), `snapshot ${i + 1}`);
        }
      }),
      { numRuns: 30 },
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
