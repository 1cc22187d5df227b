import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ShardAttempt } from '@tributary/protocol';
import { progressTotals, syncView } from '../../../src/http/sync-view.ts';
import { FIRST_SHARD_PAGE, SyncHeadSchema, syncHead } from '../../../src/sync/head.ts';
import { syncSummary } from '../../../src/sync/summary.ts';
import type { SyncRecord } from '../../../src/sync/state.ts';

const SHARDS = 250;
const ids = Array.from({ length: SHARDS }, (_, i) => `s${i}`);
const preparing: SyncRecord = {
  id: 'sync-1',
  version: 3,
  plan: {
    table: { database: 'db', table: 't' },
    mode: 'append',
    source: { kind: 'generator' },
    shards: ids.map((id, i) => ({ id, spec: { i } })),
    baseSnapshotId: null,
    schemaId: 0,
    commitUser: 'tributary-sync-1',
    commitIdentifier: '1',
    options: { maxAttempts: 3, snapshotProperties: {} },
  },
  state: { phase: 'PREPARING' },
  timings: { PLANNED: '2026-01-01T00:00:00.000Z', PREPARING: '2026-01-01T00:00:00.250Z' },
};
const accepted = Object.fromEntries(ids.map((id, i) => [id, { attemptId: '1', blobKey: `k/${id}`, checksum: i, rows: i + 1, bytes: 10 * i }]));
const committed: SyncRecord = {
  ...preparing,
  version: 5,
  state: { phase: 'COMMITTED', accepted, snapshotId: 4, collidingKeys: 2 },
  timings: { ...preparing.timings, COMMITTING: '2026-01-01T00:00:01.000Z', COMMITTED: '2026-01-01T00:00:01.100Z' },
};
const attempts: ShardAttempt[] = ids.map((shardId, i) => ({
  shardId,
  attemptId: '1',
  status: 'succeeded',
  worker: 'w',
  startedAt: '2026-01-01T00:00:00.300Z',
  finishedAt: '2026-01-01T00:00:00.900Z',
  rows: i + 1,
  bytes: 10 * i,
}));
const acceptedIds = Object.fromEntries(ids.map((id) => [id, '1']));
const firstPage = (list: readonly ShardAttempt[]) => list.filter((a) => Number(a.shardId.slice(1)) < FIRST_SHARD_PAGE);
const pageIds = Object.fromEntries(ids.slice(0, FIRST_SHARD_PAGE).map((id) => [id, '1']));

for (const record of [preparing, committed]) {
  test(`${record.state.phase}: the view from the head equals the view from the whole record`, () => {
    const head = SyncHeadSchema.parse(JSON.parse(JSON.stringify(syncHead(record))));
    assert.equal(head.record.plan.shards.length, FIRST_SHARD_PAGE);
    assert.equal(head.shards, SHARDS);
    const counts = { accepted: SHARDS, attempted: SHARDS };
    const totals = head.frozen === null ? progressTotals(head.record, attempts, acceptedIds) : { rows: head.frozen.rows, bytes: head.frozen.bytes };
    const fromHead = syncView(head.record, firstPage(attempts), pageIds, counts, FIRST_SHARD_PAGE, totals, { shards: head.shards, frozenAccepted: head.frozen?.accepted ?? null });
    const fromRecord = syncView(record, firstPage(attempts), pageIds, counts, FIRST_SHARD_PAGE, progressTotals(record, attempts, acceptedIds));
    assert.deepEqual(fromHead, fromRecord);
    assert.equal(fromHead.shardCounts.total, SHARDS);
    assert.equal(fromHead.rowsRead, (SHARDS * (SHARDS + 1)) / 2);
    assert.notEqual(fromHead.nextShardsCursor, null);
  });
}

test('the head of a committed sync keeps only its first page of accepted attempts; the summary none', () => {
  const head = syncHead(committed);
  assert.ok(head.record.state.phase === 'COMMITTED');
  assert.deepEqual(Object.keys(head.record.state.accepted), ids.slice(0, FIRST_SHARD_PAGE));
  assert.deepEqual(head.frozen, { accepted: SHARDS, rows: (SHARDS * (SHARDS + 1)) / 2, bytes: 10 * ((SHARDS * (SHARDS - 1)) / 2) });
  assert.deepEqual(syncSummary(committed), { id: 'sync-1', phase: 'COMMITTED', table: { database: 'db', table: 't' }, shards: SHARDS, snapshotId: 4, reason: null, timings: committed.timings });
});
