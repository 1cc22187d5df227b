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
