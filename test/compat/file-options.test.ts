// A changelog table whose file options differ from the defaults (gzip data files, uncompressed
// changelog files that keep only one column's statistics, per-level compression and stats for the
// top level): Paimon Java reads our changelog and our table, pypaimon our table; then Paimon Java
// compacts it with the same options and Tributary reads what Java wrote.
// (The codecs and statistics themselves: packages/table/test/integration/table/file-options.test.ts.)
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { canonicalRows, paimonJava, pypaimon, readResults, type TableRef } from '@tributary/testkit';
import { LocalObjectStore, createTable, type InternalRow, type KeyedChange, type Table } from '@tributary/table';
import { changelogText, loadChanges, ourChangelog } from './changelog-loads.ts';

const fields = [
  { name: 'id', type: 'BIGINT NOT NULL' },
  { name: 'store_id', type: 'STRING' },
  { name: 'amount', type: 'DECIMAL(18, 2)' },
];
const row = (id: number, store: string | null, cents: number | null): InternalRow => [BigInt(id), store, cents === null ? null : BigInt(cents)];

describe('table file options: Paimon Java and pypaimon read what they made us write, and we read what they make Java write', () => {
  let dir = '';
  let table: Table;
  let ref: TableRef;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'tributary-file-options-compat-'));
    table = await createTable(new LocalObjectStore(dir), {
      database: 'compat',
      name: 'orders',
      schema: {
        fields,
        primaryKeys: ['id'],
        options: {
          bucket: '2',
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
    ref = { warehouse: dir, database: 'compat', table: 'orders' };
    const load = (changes: readonly KeyedChange[]) => loadChanges(table, changes);
    await load([1, 2, 3, 4, 5, 6].map((id) => ({ kind: 'upsert', row: row(id, id % 2 === 0 ? 'A' : 'B', id * 1000) })));
    await load([
      { kind: 'upsert', row: row(1, 'A', 800) },
      { kind: 'delete', row: row(2, null, null) },
      { kind: 'upsert', row: row(3, 'B', 3000) },
      { kind: 'upsert', row: row(7, null, null) },
    ]);
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  test('Java reads our changelog ($audit_log, changelog mode) and our table; pypaimon our table', async () => {
    const [audit] = readResults(
      await paimonJava.batch([{ op: 'read' as const, ...ref, table: 'orders$audit_log', options: { 'incremental-between': '1,2', 'incremental-between-scan-mode': 'changelog' } }]),
    );
    const ours = await ourChangelog(table, 2);
    assert.equal(ours.length, 4, '-U(1), +U(1), -D(2), +I(7); key 3 unchanged');
    assert.deepEqual([...(audit?.rows ?? []).map((r) => changelogText(r))].sort(), [...ours].sort());
    const expected = canonicalRows(await table.newRead().toArray());
    assert.deepEqual(canonicalRows((await paimonJava.read(ref)).rows), expected, 'Java');
    assert.deepEqual(canonicalRows((await pypaimon.read(ref)).rows), expected, 'pypaimon');
  });

  test('Java compacts the table with the same options; Tributary reads its files', async () => {
    const before = canonicalRows(await table.newRead().toArray());
    const [compacted] = await paimonJava.batch([{ op: 'compact', ...ref, buckets: [0, 1] }]);
    const snapshotId = (compacted as { snapshotId: number }).snapshotId;
    assert.equal((await table.snapshot(snapshotId)).commitKind, 'COMPACT');
    const files = await table.newRead({ snapshotId }).plan();
    assert.ok(files.length > 0 && files.every((f) => f.file.level === 5), 'Java wrote the top level');
    assert.deepEqual(canonicalRows(await table.newRead({ snapshotId }).toArray()), before);
  });
});
