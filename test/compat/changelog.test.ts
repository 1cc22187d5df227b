// Paimon Java reads the changelog Tributary's changelog writer commits: its `$audit_log` system
// table, scanned incrementally between two snapshots in changelog mode, returns exactly our rows
// and RowKinds, and the table reads the same in Java and pypaimon; a Java full compaction adds no
// changelog and does not make a pending load's before-images stale. And the other way round:
// Tributary's audit finds the anomaly of a table Paimon Java wrote with its own `input` producer
// (upserts as the input, so +U without -U).
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { canonicalRows, paimonJava, pypaimon, readResults, type TableRef } from '@tributary/testkit';
import { LocalObjectStore, createTable, openTable, type InternalRow, type KeyedChange, type Table } from '@tributary/table';
import { KINDS, changelogText, loadChanges, ourChangelog } from './changelog-loads.ts';

const fields = [
  { name: 'id', type: 'BIGINT NOT NULL' },
  { name: 'store_id', type: 'STRING' },
  { name: 'amount', type: 'DECIMAL(18, 2)' },
  { name: 'at', type: 'TIMESTAMP(6)' },
];
const ts = (epochMillis: number, nanoOfMillis = 0) => ({ epochMillis, nanoOfMillis });
const row = (id: number, store: string | null, cents: number | null, at: ReturnType<typeof ts> | null = null): InternalRow => [
  BigInt(id),
  store,
  cents === null ? null : BigInt(cents),
  at,
];

describe('changelog-producer = input: Paimon Java agrees', () => {
  let dir = '';
  let table: Table;
  let ref: TableRef;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'tributary-changelog-compat-'));
    const store = new LocalObjectStore(dir);
    table = await createTable(store, {
      database: 'compat',
      name: 'orders',
      schema: { fields, primaryKeys: ['id'], options: { bucket: '2', 'changelog-producer': 'input' } },
    });
    ref = { warehouse: dir, database: 'compat', table: 'orders' };
    const load = (changes: readonly KeyedChange[]) => loadChanges(table, changes);
    await load([1, 2, 3, 4, 5].map((id) => ({ kind: 'upsert', row: row(id, id % 2 === 0 ? 'A' : 'B', id * 1000, ts(1_700_000_000_000 + id, 123_000)) })));
    await load([
      { kind: 'upsert', row: row(1, 'A', 800, ts(1_700_000_000_001, 123_000)) },
      { kind: 'delete', row: row(2, null, null) },
      { kind: 'upsert', row: row(3, 'B', 3000, ts(1_700_000_000_003, 123_000)) },
      { kind: 'upsert', row: row(6, null, null) },
    ]);
    await load([
      { kind: 'upsert', row: row(1, 'B', 700) },
      { kind: 'upsert', row: row(2, 'A', 2000) },
      { kind: 'delete', row: row(6, null, null) },
    ]);
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  const ours = (snapshotId: number) => ourChangelog(table, snapshotId);

  test('$audit_log between consecutive snapshots (changelog mode) holds exactly our rows and RowKinds, -U before its +U', async () => {
    const reads = readResults(
      await paimonJava.batch(
        [1, 2].map((from) => ({
          op: 'read' as const,
          ...ref,
          table: 'orders$audit_log',
          options: { 'incremental-between': `${from},${from + 1}`, 'incremental-between-scan-mode': 'changelog' },
        })),
      ),
    );
    for (const [i, read] of reads.entries()) {
      const snapshotId = i + 2;
      assert.equal(read.fields[0]?.name, 'rowkind');
      const java = read.rows.map((r) => changelogText(r));
      const expected = await ours(snapshotId);
      assert.ok(expected.length > 0);
      assert.deepEqual([...java].sort(), [...expected].sort(), `snapshot ${snapshotId}: the same rows and kinds`);
      // Java streams each file in order: within a key, the -U comes right before its +U.
      for (const [k, line] of java.entries()) {
        if (line.startsWith('["-U"')) assert.match(java[k + 1] ?? '', /^\["\+U"/, `snapshot ${snapshotId}: -U followed by +U`);
      }
    }
  });

  test('the table reads the same in Paimon Java and pypaimon as in Tributary, at every snapshot', async () => {
    for (const snapshotId of [1, 2, 3]) {
      const expected = canonicalRows(await table.newRead({ snapshotId }).toArray());
      assert.deepEqual(canonicalRows((await paimonJava.read(ref, { snapshotId })).rows), expected, `Java, snapshot ${snapshotId}`);
    }
    assert.deepEqual(canonicalRows((await pypaimon.read(ref)).rows), canonicalRows(await table.newRead().toArray()), 'pypaimon, latest');
  });

  test('a Paimon Java full compaction emits no second changelog, and a load pinned before it still commits with the right one', async () => {
    const base = Number((await table.latestSnapshot())?.id);
    const pending = await table.newChangelogWrite({ baseSnapshotId: base, writerId: 'compat' });
    await pending.write([{ kind: 'upsert', row: row(3, 'B', 3500, ts(1_700_000_000_003, 123_000)) }]);
    const [compacted] = await paimonJava.batch([{ op: 'compact', ...ref, buckets: [0, 1] }]);
    const compactId = (compacted as { snapshotId: number }).snapshotId;
    assert.equal(compactId, base + 1);
    const compactSnapshot = await table.snapshot(compactId);
    assert.equal(compactSnapshot.commitKind, 'COMPACT');
    assert.equal(compactSnapshot.changelogManifestList, null, 'the input producer compacts without a changelog');
    // A COMPACT snapshot changes no key's value: the load pinned before it is not stale.
    const committed = await table.newCommit('after-compaction').commit(pending.prepareCommit(), { baseSnapshotId: base });
    assert.equal(committed.snapshotId, compactId + 1);
    const [between, load] = readResults(
      await paimonJava.batch(
        [compactId - 1, compactId].map((from) => ({
          op: 'read' as const,
          ...ref,
          table: 'orders$audit_log',
          options: { 'incremental-between': `${from},${from + 1}`, 'incremental-between-scan-mode': 'changelog' },
        })),
      ),
    );
    assert.deepEqual(between?.rows, [], 'no changelog row for the compaction');
    assert.deepEqual(load?.rows.map((r) => changelogText(r)), await ours(committed.snapshotId));
    assert.deepEqual((await ours(committed.snapshotId)).map((line) => line.slice(0, 5)), ['["-U"', '["+U"']);
    assert.deepEqual(canonicalRows((await paimonJava.read(ref)).rows), canonicalRows(await table.newRead().toArray()));
    const audit = await table.auditChangelog({ from: 1, to: committed.snapshotId, limit: 100 });
    assert.deepEqual(audit.keys.flatMap((k) => k.findings), []);
  });

  test('a table Paimon Java wrote with its input producer from upserts: the audit flags +U without -U and the duplicate +I', async () => {
    const javaRef = { warehouse: dir, database: 'compat', table: 'java_orders' };
    await paimonJava.batch([
      { op: 'create', ...javaRef, fields, primaryKeys: ['id'], options: { bucket: '1', 'changelog-producer': 'input' } },
      { op: 'write', ...javaRef, rows: [row(1, 'A', 10000), row(2, 'A', 500)], kinds: ['+I', '+I'] },
      { op: 'write', ...javaRef, rows: [row(1, 'A', 8000), row(2, 'A', 600)], kinds: ['+U', '+I'] },
    ]);
    const javaTable = await openTable(new LocalObjectStore(dir), 'compat', 'java_orders');
    const audit = await javaTable.auditChangelog({ from: 1, to: 2, limit: 10 });
    const findings = audit.keys.flatMap((k) => k.findings.map((f) => `${k.key[0]}@${f.snapshotId}:${f.flag}:${f.event === null ? '-' : KINDS[k.events[f.event]?.kind ?? 9]}`)).sort();
    assert.deepEqual(findings, ['1@2:UPDATE_AFTER_WITHOUT_BEFORE:+U', '2@2:DUPLICATE_INSERT:+I']);
  });
});
