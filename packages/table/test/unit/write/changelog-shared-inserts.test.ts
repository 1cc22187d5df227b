// A bucket job's new keys above every stored one (a load's appended keys) have no before-image:
// their changelog rows are their data records. ChangelogWrite encodes them once, as row groups
// shared by the data and the changelog file. Here a load of updates, deletes, new keys, a delete of a
// never-stored key among the new ones and new keys after it, in batches of 37, is written
// column-wise (sharing) and by the row path (writeBucketBatches, no sharing) into two tables of the
// same base: both files must hold the same records with the same facts (but their sizes: their row
// groups are cut elsewhere), the shared groups must be the same bytes in both files, and the tables
// must read and replay alike. A table whose changelog files are compressed otherwise shares nothing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalObjectStore, createTable, type InternalRow, type KeyedChange, type Table } from '@tributary/table';
import { batchFromRows, rowsFromBatch, type ColumnBatch } from '../../../src/format/column-batch.ts';
import { keyValueRowType } from '../../../src/format/key-value.ts';
import { ParquetDataFileReader, byteSourceFromBytes } from '../../../src/parquet/parquet-reader.ts';
import type { DataFileMeta } from '../../../src/spec/data-file-meta.ts';
import type { InternalValue } from '../../../src/spec/types.ts';

const FIELDS = [
  { name: 'k', type: 'BIGINT NOT NULL' },
  { name: 'name', type: 'STRING' },
  { name: 'payload', type: 'BYTES' },
  { name: 'amount', type: 'DECIMAL(20, 2)' },
];

const rowOf = (k: number, v: number): InternalRow => [
  BigInt(k),
  k % 13 === 0 ? null : `n${k}.${v}${'\u{1F600}'.repeat(k % 3)}`,
  k % 11 === 0 ? null : Uint8Array.from({ length: k % 7 }, (_, i) => (k + v + i) & 0xff),
  k % 17 === 0 ? null : BigInt(k * 100 + v),
];

const text = (rows: readonly (readonly InternalValue[])[]): string[] =>
  rows.map((row) => JSON.stringify(row, (_, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v instanceof Uint8Array ? [...v] : v)));

/** The load, in key order: stored keys updated and deleted, new keys 200..999, a delete of never-stored 1000, new keys 1001..1100. */
function loadChanges(): KeyedChange[] {
  const changes: KeyedChange[] = [];
  for (let k = 0; k < 200; k++) {
    if (k % 25 === 5) changes.push({ kind: 'delete', row: rowOf(k, 0) });
    else if (k % 10 === 0) changes.push({ kind: 'upsert', row: rowOf(k, 1) });
  }
  for (let k = 200; k < 1000; k++) changes.push({ kind: 'upsert', row: rowOf(k, 1) });
  changes.push({ kind: 'delete', row: rowOf(1000, 1) });
  for (let k = 1001; k <= 1100; k++) changes.push({ kind: 'upsert', row: rowOf(k, 1) });
  return changes;
}

async function baseTable(store: LocalObjectStore, name: string, options: Record<string, string> = {}): Promise<Table> {
  const t = await createTable(store, { database: 'db', name, schema: { fields: FIELDS, primaryKeys: ['k'], options: { bucket: '1', 'changelog-producer': 'input', ...options } } });
  const write = await t.newChangelogWrite({ baseSnapshotId: null, writerId: 'base' });
  await write.write(Array.from({ length: 200 }, (_, k) => ({ kind: 'upsert' as const, row: rowOf(k, 0) })));
  await t.newCommit('base').commit(write.prepareCommit());
  return t;
}

/** The load as the bucket job's merged records (key, _SEQUENCE_NUMBER, _VALUE_KIND, columns), in batches of 37. */
function recordBatches(t: Table, changes: readonly KeyedChange[]): ColumnBatch[] {
  const recordType = keyValueRowType({ fields: t.schema.fields }, ['k']);
  const batches: ColumnBatch[] = [];
  for (let i = 0; i < changes.length; i += 37) {
    batches.push(batchFromRows(recordType, changes.slice(i, i + 37).map((c) => [c.row[0] ?? null, 0n, c.kind === 'delete' ? 3 : 0, ...c.row])));
  }
  return batches;
}

interface FileContent {
  readonly records: string[];
  readonly facts: string[];
  /** Per row group: its rows' keys and its column chunks' bytes. */
  readonly groups: { keys: bigint[]; chunks: Buffer[] }[];
  readonly codecs: string[];
}

async function filesOf(t: Table, files: readonly DataFileMeta[]): Promise<FileContent> {
  const recordType = keyValueRowType({ fields: t.schema.fields }, ['k']);
  const content: FileContent = { records: [], facts: [], groups: [], codecs: [] };
  for (const file of files) {
    const bytes = await t.store.get(`${t.path}/bucket-0/${file.fileName}`);
    const reader = await ParquetDataFileReader.open(byteSourceFromBytes(bytes));
    for (let g = 0; g < reader.rowGroupCount; g++) {
      const rows = rowsFromBatch(await reader.readRowGroup(g, recordType));
      content.records.push(...text(rows));
      const chunks = reader.footer.row_groups[g]!.columns.map((c) => {
        const m = c.meta_data!;
        const from = Number(m.dictionary_page_offset ?? m.data_page_offset);
        return Buffer.from(bytes.subarray(from, from + Number(m.total_compressed_size)));
      });
      content.groups.push({ keys: rows.map((r) => r[0] as bigint), chunks });
      content.codecs.push(...new Set(reader.footer.row_groups[g]!.columns.map((c) => c.meta_data!.codec)));
    }
    const { fileName: _name, creationTimeMillis: _time, fileSize: _size, ...rest } = file;
    content.facts.push(text([[rest as unknown as InternalValue]])[0] as string);
  }
  return content;
}

for (const [label, options, shares] of [
  ['the same file options', {}, true],
  ["changelog files compressed otherwise ('changelog-file.compression' = gzip)", { 'changelog-file.compression': 'gzip' }, false],
] as const) {
  test(`new keys above the stored ones: row groups shared by the data and changelog files when they can be (${label})`, async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tributary-changelog-shared-'));
    try {
      const store = new LocalObjectStore(dir);
      const columns = await baseTable(store, 'columns', options);
      const rows = await baseTable(store, 'rows', options);
      const changes = loadChanges();
      const byColumns = await (await columns.newChangelogWrite({ baseSnapshotId: 1, writerId: 'job', rowGroupRows: 100 })).writeBucketRecords(recordBatches(columns, changes));
      const rowWrite = await rows.newChangelogWrite({ baseSnapshotId: 1, writerId: 'job', rowGroupRows: 100 });
      const batches: KeyedChange[][] = [];
      for (let i = 0; i < changes.length; i += 37) batches.push(changes.slice(i, i + 37));
      const byRows = await rowWrite.writeBucketBatches(batches);
      const counts = (c: typeof byRows) => [c.dataRows, c.inserts, c.updates, c.deletes];
      assert.deepEqual(counts(byColumns), counts(byRows));

      const data = await filesOf(columns, byColumns.message!.dataIncrement.newFiles);
      const changelog = await filesOf(columns, byColumns.message!.dataIncrement.changelogFiles);
      for (const [which, got] of [
        ['newFiles', data],
        ['changelogFiles', changelog],
      ] as const) {
        const want = await filesOf(rows, byRows.message!.dataIncrement[which]);
        assert.deepEqual(got.records, want.records, `${which}: the same records`);
        assert.deepEqual(got.facts, want.facts, `${which}: the same file facts but the size`);
      }
      // Row groups of new keys only (200..999): shared ones are the same bytes in both files.
      const newKeysOnly = (g: { keys: bigint[] }) => g.keys.length > 0 && g.keys.every((k) => k >= 200n && k < 1000n);
      const dataGroups = data.groups.filter(newKeysOnly);
      const changelogGroups = changelog.groups.filter(newKeysOnly);
      const same = dataGroups.filter((d) => changelogGroups.some((c) => c.chunks.length === d.chunks.length && c.chunks.every((b, i) => b.equals(d.chunks[i]!))));
      if (shares) {
        // Shared: the batches of new keys only (a batch holding a stored key too is written to each
        // file on its own), up to the batch with the delete of never-stored 1000 (no more after it).
        const keyOf = (c: KeyedChange) => c.row[0] as bigint;
        const sharedKeys = batches.filter((b) => b.every((c) => keyOf(c) >= 200n && keyOf(c) < 1000n)).flatMap((b) => b.map(keyOf));
        assert.ok(sharedKeys.length > 700, `most new keys are in batches of new keys only (${sharedKeys.length})`);
        assert.equal(same.length, Math.ceil(sharedKeys.length / 100), 'row groups of 100 and the rest, the same bytes in both files');
        assert.deepEqual(same.flatMap((g) => g.keys), sharedKeys);
        assert.deepEqual(
          dataGroups.filter((d) => !same.includes(d)).length + changelogGroups.filter((c) => !same.some((d) => d.chunks.every((b, i) => b.equals(c.chunks[i]!)))).length,
          0,
          'every row group of new keys only is a shared one',
        );
      } else {
        assert.equal(same.length, 0, 'nothing shared');
        assert.ok(changelog.codecs.every((c) => c === 'GZIP') && data.codecs.every((c) => c === 'ZSTD'), `codecs: data ${data.codecs}, changelog ${changelog.codecs}`);
      }

      // Committed, the two tables read and replay alike.
      const a = await columns.newCommit('load').commit([byColumns.message!], { baseSnapshotId: 1 });
      const b = await rows.newCommit('load').commit(rowWrite.prepareCommit(), { baseSnapshotId: 1 });
      assert.deepEqual(text(await columns.newRead().toArray()), text(await rows.newRead().toArray()));
      const replay = async (t: Table, id: number) => {
        const out: InternalValue[][] = [];
        for await (const c of t.changelog(id)) out.push([c.kind, ...c.row]);
        return text(out);
      };
      const replayed = await replay(columns, a.snapshotId);
      assert.deepEqual(replayed, await replay(rows, b.snapshotId));
      assert.equal(replayed.length, byColumns.inserts + 2 * byColumns.updates + byColumns.deletes);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
}

test('shared row groups are sized as the files would cut them: a small target-file-size rolls the data and changelog files as without sharing', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'tributary-changelog-shared-target-'));
  try {
    const store = new LocalObjectStore(dir);
    const t = await baseTable(store, 'target', { 'target-file-size': '8 kb' });
    // 5,000 new keys above the 200 stored ones, after a few updates.
    const changes: KeyedChange[] = [
      ...[3, 50, 199].map((k) => ({ kind: 'upsert' as const, row: rowOf(k, 1) })),
      ...Array.from({ length: 5000 }, (_, i) => ({ kind: 'upsert' as const, row: rowOf(200 + i, 1) })),
    ];
    const written = await (await t.newChangelogWrite({ baseSnapshotId: 1, writerId: 'job' })).writeBucketRecords(recordBatches(t, changes));
    const { newFiles, changelogFiles } = written.message!.dataIncrement;
    for (const [which, files, rows] of [
      ['data', newFiles, 5003],
      ['changelog', changelogFiles, 5006], // each update is -U and +U
    ] as const) {
      assert.ok(files.length >= 3, `${which}: the rows roll into several files (${files.length})`);
      assert.equal(files.reduce((n, f) => n + Number(f.rowCount), 0), rows, `${which}: every row`);
      // A file past its target closes after the row group that took it there: groups of about 1,024 rows here, not one of all 5,000.
      for (const f of files) assert.ok(Number(f.rowCount) <= 2048, `${which} file ${f.fileName}: ${f.rowCount} rows`);
    }
    await t.newCommit('load').commit([written.message!], { baseSnapshotId: 1 });
    const keys = (await t.newRead().toArray()).map((r) => r[0] as bigint);
    assert.equal(keys.length, 5200);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
