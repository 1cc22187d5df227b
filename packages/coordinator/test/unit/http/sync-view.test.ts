import assert from 'node:assert/strict';
import { test } from 'node:test';
import { syncView } from '../../../src/http/sync-view.ts';
import type { SyncRecord } from '../../../src/sync/state.ts';

const record: SyncRecord = {
  id: 'sync-1',
  version: 3,
  plan: {
    table: { database: 'db', table: 't' },
    mode: 'append',
    source: { kind: 'generator' },
    shards: [
      { id: 's0', spec: {} },
      { id: 's1', spec: {} },
    ],
    baseSnapshotId: null,
    schemaId: 0,
    commitUser: 'tributary-sync-1',
    commitIdentifier: '9223372036854775807',
    options: { maxAttempts: 3, snapshotProperties: {} },
  },
  state: { phase: 'PREPARING' },
  timings: { PLANNED: '2026-01-01T00:00:00.000Z', PREPARING: '2026-01-01T00:00:00.250Z' },
};

const error = { code: 'STORAGE_UNAVAILABLE', message: 'timeout', retryable: true, context: {} };

test('per shard: accepted attempt, its rows and duration; an unfinished shard shows its last error', () => {
  const view = syncView(
    record,
    [
      { shardId: 's0', attemptId: '1', status: 'failed', startedAt: '2026-01-01T00:00:01.000Z', finishedAt: '2026-01-01T00:00:02.000Z', error },
      { shardId: 's0', attemptId: '2', status: 'succeeded', accepted: true, rows: 10, bytes: 99, startedAt: '2026-01-01T00:00:03.000Z', finishedAt: '2026-01-01T00:00:03.500Z' },
      { shardId: 's1', attemptId: '1', status: 'failed', startedAt: '2026-01-01T00:00:01.000Z', finishedAt: '2026-01-01T00:00:01.100Z', error },
    ],
    { s0: '2' },
  );
  assert.equal(view.phase, 'PREPARING');
  assert.equal(view.snapshotId, null);
  assert.deepEqual(view.phaseDurationsMs, { PLANNED: 250 });
  const [s0, s1] = view.shards;
  assert.deepEqual({ accepted: s0?.acceptedAttempt, rows: s0?.rows, bytes: s0?.bytes, ms: s0?.durationMs, error: s0?.error }, { accepted: '2', rows: 10, bytes: 99, ms: 500, error: undefined });
  assert.equal(s0?.attempts.length, 2);
  assert.equal(s0?.attempts[0]?.durationMs, 1000);
  assert.deepEqual({ accepted: s1?.acceptedAttempt, rows: s1?.rows, error: s1?.error?.code }, { accepted: null, rows: null, error: 'STORAGE_UNAVAILABLE' });
});

test('a committed sync shows the attempts frozen at commit and the snapshot id', () => {
  const attempt = { attemptId: '7', blobKey: 'k', checksum: 1, rows: 5, bytes: 6 };
  const committed: SyncRecord = { ...record, state: { phase: 'COMMITTED', accepted: { s0: attempt, s1: attempt }, snapshotId: 4 } };
  const view = syncView(committed, [], {});
  assert.equal(view.snapshotId, 4);
  assert.equal(view.collidingKeys, null, 'not counted (an append table, or a record from before the count)');
  assert.equal(syncView({ ...committed, state: { ...committed.state, collidingKeys: 2 } } as SyncRecord, [], {}).collidingKeys, 2);
  assert.deepEqual(view.shards.map((s) => s.acceptedAttempt), ['7', '7']);
});

test('progress: a running shard shows its rows and bytes so far; the sync sums running and accepted attempts only', () => {
  const at = (s: number) => `2026-01-01T00:00:0${s}.000Z`;
  const view = syncView(
    record,
    [
      { shardId: 's0', attemptId: '1', status: 'succeeded', accepted: true, rows: 10, bytes: 99, startedAt: at(1), finishedAt: at(2) },
      { shardId: 's1', attemptId: '1', status: 'failed', rows: 500, bytes: 5000, startedAt: at(1), finishedAt: at(2), error },
      { shardId: 's1', attemptId: '2', status: 'running', rows: 7, bytes: 0, startedAt: at(3), updatedAt: at(4) },
    ],
    { s0: '1' },
  );
  assert.deepEqual({ rows: view.rowsRead, bytes: view.bytesWritten }, { rows: 17, bytes: 99 }, 'the failed attempt counts nothing');
  const s1 = view.shards[1];
  assert.deepEqual({ rows: s1?.rows, bytes: s1?.bytes, startedAt: s1?.startedAt, updatedAt: s1?.updatedAt, accepted: s1?.acceptedAttempt }, { rows: 7, bytes: 0, startedAt: at(3), updatedAt: at(4), accepted: null });
  const s0 = view.shards[0];
  assert.deepEqual({ startedAt: s0?.startedAt, updatedAt: s0?.updatedAt }, { startedAt: at(1), updatedAt: at(2) }, 'a finished attempt without updatedAt shows its end');
});

test('progress of a committed sync: the frozen accepted attempts', () => {
  const attempt = { attemptId: '7', blobKey: 'k', checksum: 1, rows: 5, bytes: 6 };
  const committed: SyncRecord = { ...record, state: { phase: 'COMMITTED', accepted: { s0: attempt, s1: attempt }, snapshotId: 4 } };
  const view = syncView(committed, [], {});
  assert.deepEqual({ rows: view.rowsRead, bytes: view.bytesWritten }, { rows: 10, bytes: 12 });
});
