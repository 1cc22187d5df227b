/**
 * The changelog audit finds each anomaly in a table crafted to have it, and nothing in a table
 * written by the changelog writer.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { LocalObjectStore, RowKind, createTable, type InternalRow, type ObjectStore, type Table } from '@tributary/table';
import { craftCommit } from '../../support/changelog-craft.ts';
import { del, load, upsert } from '../../support/changelog-harness.ts';

let dir = '';
let store: ObjectStore;
let n = 0;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tributary-audit-'));
  store = new LocalObjectStore(dir);
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function table(): Promise<Table> {
  return createTable(store, {
    database: 'audit',
    name: `t${n++}`,
    schema: {
      fields: [
        { name: 'id', type: 'BIGINT' },
        { name: 'store_id', type: 'STRING' },
        { name: 'amount', type: 'DECIMAL(18, 2)' },
      ],
      primaryKeys: ['id'],
      // One bucket: every crafted record lands beside the rows it contradicts.
      options: { bucket: '1', 'changelog-producer': 'input' },
    },
  });
}

const row = (id: number, s: string, cents: number): InternalRow => [BigInt(id), s, BigInt(cents)];
const { INSERT: I, UPDATE_BEFORE: UB, UPDATE_AFTER: UA, DELETE: D } = RowKind;

test('the audit flags each crafted anomaly in its snapshot, on its row', async () => {
  const t = await table();
  await load(t, [upsert(row(1, 'A', 100)), upsert(row(2, 'A', 50)), upsert(row(3, 'A', 70))]);
  const s2 = await craftCommit(t, [{ kind: UA, row: row(1, 'A', 80) }], [{ kind: UA, row: row(1, 'A', 80) }]);
  const s3 = await craftCommit(t, [{ kind: UA, row: row(2, 'A', 60) }], [{ kind: UB, row: row(2, 'A', 55) }, { kind: UA, row: row(2, 'A', 60) }]);
  const s4 = await craftCommit(t, [{ kind: I, row: row(3, 'A', 75) }], [{ kind: I, row: row(3, 'A', 75) }]);
  const s5 = await craftCommit(t, [{ kind: D, row: row(9, 'A', 10) }], [{ kind: D, row: row(9, 'A', 10) }]);
  const s6 = await craftCommit(t, [{ kind: UA, row: row(1, 'A', 90) }], []);
  const s7 = await craftCommit(t, [{ kind: D, row: row(3, 'A', 75) }], [{ kind: UB, row: row(3, 'A', 75) }]);
  const s8 = await craftCommit(t, [{ kind: UA, row: row(2, 'A', 61) }], [{ kind: UB, row: row(2, 'A', 60) }, { kind: UA, row: row(2, 'A', 62) }]);
  const audit = await t.auditChangelog({ from: 1, to: s8, limit: 100 });
  const found = audit.keys.flatMap((k) => k.findings.map((f) => `${k.key[0]}@${f.snapshotId}:${f.flag}:${f.event === null ? '-' : ['+I', '-U', '+U', '-D'][k.events[f.event]?.kind ?? 9]}`)).sort();
  assert.deepEqual(found, [
    `1@${s2}:UPDATE_AFTER_WITHOUT_BEFORE:+U`,
    `1@${s6}:DATA_CHANGE_WITHOUT_CHANGELOG:-`,
    `2@${s3}:BEFORE_IMAGE_MISMATCH:-U`,
    `2@${s8}:CHANGELOG_DIFFERS_FROM_DATA:-`,
    `3@${s4}:DUPLICATE_INSERT:+I`,
    `3@${s7}:UPDATE_BEFORE_WITHOUT_AFTER:-U`,
    `9@${s5}:DELETE_OF_ABSENT_KEY:-D`,
  ].sort());
  assert.equal(audit.counts.DUPLICATE_INSERT, 1);
  assert.equal(audit.truncated, false);
  // Key 2's events carry where each row is stored, in stream order.
  const two = audit.keys.find((k) => k.key[0] === 2n);
  assert.deepEqual(two?.events.map((e) => [e.snapshotId, e.commitKind, e.kind]), [[1, 'APPEND', I], [s3, 'APPEND', UB], [s3, 'APPEND', UA], [s8, 'APPEND', UB], [s8, 'APPEND', UA]]);
  assert.ok(two?.events.every((e) => /^changelog-/.test(e.fileName) && e.sequenceNumber >= 0n));
  // One key, one snapshot: the same findings for that key alone.
  const one = await t.auditChangelog({ from: s2, to: s6, key: [1n], limit: 10 });
  assert.deepEqual(one.keys.map((k) => k.findings.map((f) => f.flag)), [['UPDATE_AFTER_WITHOUT_BEFORE', 'DATA_CHANGE_WITHOUT_CHANGELOG']]);
  // A limit of one key: truncated.
  assert.equal((await t.auditChangelog({ from: 1, to: 1, limit: 1 })).truncated, true);
});

test('the audit finds nothing in a table the changelog writer wrote', async () => {
  const t = await table();
  await load(t, [upsert(row(1, 'A', 100)), upsert(row(2, 'B', 50))]);
  await load(t, [upsert(row(1, 'B', 80)), del([2n, null, null]), upsert(row(3, 'A', 1))]);
  await load(t, [upsert(row(2, 'C', 5)), upsert(row(1, 'B', 80))]);
  const audit = await t.auditChangelog({ from: 1, to: 3, limit: 100 });
  assert.deepEqual(audit.keys.flatMap((k) => k.findings), []);
  assert.deepEqual(audit.keys.map((k) => k.events.map((e) => ['+I', '-U', '+U', '-D'][e.kind]).join(' ')), ['+I -U +U', '+I -D +I', '+I']);
});
