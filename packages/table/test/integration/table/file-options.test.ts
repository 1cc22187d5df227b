// The table's file options decide how every file Tributary writes is compressed and which value
// statistics its manifest entry keeps, as Paimon's writer factory does: the codec in each column
// chunk of the written Parquet footers, and `_VALUE_STATS_COLS` of the files' metas, for a load's
// data and changelog files, an append table's files, and a full compaction's top-level files.
// (Paimon Java reading such a table: test/compat/file-options.test.ts.)
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { isTributaryError } from '@tributary/errors';
import { LocalObjectStore, createTable, rewriteTable, type CommitMessage, type DataFileMeta, type Table } from '@tributary/table';
import { ParquetDataFileReader } from '@tributary/table/parquet';

const fields = [
  { name: 'id', type: 'BIGINT NOT NULL' },
  { name: 'store', type: 'STRING' },
  { name: 'amount', type: 'BIGINT' },
];

/** The codecs of a file's column chunks (one value when every chunk agrees). */
async function codecs(table: Table, file: DataFileMeta): Promise<string[]> {
  const key = `${table.path}/bucket-0/${file.fileName}`;
  const reader = await ParquetDataFileReader.open({ size: Number(file.fileSize), read: (offset, length) => table.store.getRange(key, offset, length) });
  return [...new Set(reader.footer.row_groups.flatMap((g) => g.columns.map((c) => String(c.meta_data?.codec))))];
}

const files = (messages: readonly CommitMessage[], pick: (m: CommitMessage) => readonly DataFileMeta[]) => messages.flatMap(pick);

describe('file options: compression and value statistics per kind of file', () => {
  let dir = '';
  let store: LocalObjectStore;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'tributary-file-options-'));
    store = new LocalObjectStore(dir);
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  test('a changelog table: data files gzip, changelog files uncompressed with only the per-field stats, the top level as its level says', async () => {
    const table = await createTable(store, {
      database: 'db',
      name: 'changelog',
      schema: {
        fields,
        primaryKeys: ['id'],
        options: {
          bucket: '1',
          'changelog-producer': 'input',
          'file.compression': 'gzip',
          'changelog-file.compression': 'none',
          'changelog-file.stats-mode': 'none',
          'fields.amount.stats-mode': 'full',
          'file.compression.per.level': '5:uncompressed',
          'metadata.stats-mode.per.level': '5:counts',
        },
      },
    });
    const load = async (rows: readonly [number, string, number][]): Promise<CommitMessage[]> => {
      const latest = await table.latestSnapshot();
      const base = latest === null ? null : Number(latest.id);
      const write = await table.newChangelogWrite({ baseSnapshotId: base, writerId: `w${base ?? 0}` });
      await write.write(rows.map(([id, s, amount]) => ({ kind: 'upsert', row: [BigInt(id), s, BigInt(amount)] })));
      const messages = write.prepareCommit();
      await table.newCommit(`load-${base ?? 0}`).commit(messages, base === null ? {} : { baseSnapshotId: base });
      return messages;
    };
    await load([
      [1, 'a', 100],
      [2, 'b', 200],
    ]);
    const second = await load([
      [1, 'a', 80],
      [3, 'c', 300],
    ]);
    const data = files(second, (m) => m.dataIncrement.newFiles);
    const changelog = files(second, (m) => m.dataIncrement.changelogFiles);
    assert.equal(data.length, 1);
    assert.equal(changelog.length, 1);
    assert.deepEqual(await codecs(table, data[0] as DataFileMeta), ['GZIP']);
    assert.deepEqual(await codecs(table, changelog[0] as DataFileMeta), ['UNCOMPRESSED']);
    assert.equal(data[0]?.valueStatsCols, null, 'a data file keeps every column (truncate(16), amount full)');
    assert.deepEqual(changelog[0]?.valueStatsCols, ['amount'], 'a changelog file keeps only the column whose own mode is set');
    assert.equal(changelog[0]?.rowCount, 3n, '-U(1), +U(1), +I(3)');

    const { baseSnapshotId, messages } = await rewriteTable(table, { full: true }, 'compact');
    const top = files(messages, (m) => m.compactIncrement.compactAfter);
    assert.ok(top.length > 0 && top.every((f) => f.level === 5), 'a full compaction writes the top level');
    for (const file of top) assert.deepEqual(await codecs(table, file), ['UNCOMPRESSED']);
    // counts at level 5: the null counts of every column, no min or max (amount keeps its own full mode).
    assert.deepEqual(top[0]?.valueStats.nullCounts, [0n, 0n, 0n]);
    await table.newCommit('compact').commit(messages, { kind: 'COMPACT', baseSnapshotId: baseSnapshotId as number });
    assert.deepEqual(
      (await table.newRead().toArray()).map((r) => r.map(String)),
      [
        ['1', 'a', '80'],
        ['2', 'b', '200'],
        ['3', 'c', '300'],
      ],
    );
  });

  test('an append table reads file.compression and metadata.stats-mode only, whatever the per-level maps say', async () => {
    const table = await createTable(store, {
      database: 'db',
      name: 'append',
      schema: { fields, options: { bucket: '1', 'bucket-key': 'id', 'file.compression': 'none', 'file.compression.per.level': '0:gzip', 'metadata.stats-mode': 'none', 'metadata.stats-mode.per.level': '0:full' } },
    });
    const write = await table.newWrite({ writerId: 'append' });
    await write.writeRows([
      [1n, 'a', 1n],
      [2n, null, 2n],
    ]);
    const messages = await write.prepareCommit();
    const [file] = files(messages, (m) => m.dataIncrement.newFiles);
    assert.deepEqual(await codecs(table, file as DataFileMeta), ['UNCOMPRESSED']);
    assert.deepEqual(file?.valueStatsCols, [], 'stats mode none for every column');
  });

  test('options Tributary cannot write are refused when the table is created', async () => {
    const refused = async (options: Record<string, string>, code: string, option: string) => {
      await assert.rejects(createTable(store, { database: 'db', name: `bad-${option}`, schema: { fields, primaryKeys: ['id'], options: { bucket: '1', ...options } } }), (error: unknown) => {
        assert.ok(isTributaryError(error), String(error));
        assert.equal(error.code, code);
        assert.equal((error.context as { option?: string }).option, option);
        return true;
      });
    };
    await refused({ 'changelog-file.format': 'avro' }, 'TABLE_UNSUPPORTED', 'changelog-file.format');
    await refused({ 'file.format.per.level': '0:avro,5:parquet' }, 'TABLE_UNSUPPORTED', 'file.format.per.level');
    await refused({ 'file.compression': 'zip' }, 'TABLE_OPTION_INVALID', 'file.compression');
    await refused({ 'changelog-file.stats-mode': 'some' }, 'TABLE_OPTION_INVALID', 'changelog-file.stats-mode');
    await refused({ 'file.compression.per.level': '0=zstd' }, 'TABLE_OPTION_INVALID', 'file.compression.per.level');
  });
});
