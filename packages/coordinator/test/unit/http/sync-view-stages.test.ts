import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ShardAttempt } from '@tributary/protocol';
import { DIRECT_FILES_WARNING, syncView } from '../../../src/http/sync-view.ts';
import type { AcceptedAttempt, SyncRecord } from '../../../src/sync/state.ts';

const plan = (layout: 'direct' | 'bucketed'): SyncRecord['plan'] => ({
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
  options: { maxAttempts: 3, snapshotProperties: {}, layout },
});
const accepted = (rows: number, files: number): AcceptedAttempt => ({ attemptId: '1', blobKey: 'k', checksum: 1, rows, bytes: rows * 10, files });
const timings = { PLANNED: '2026-01-01T00:00:00.000Z' };

test('a direct load reports its files, and warns past 1,000 of them', () => {
  const few: SyncRecord = { id: 'sync-1', version: 5, plan: plan('direct'), state: { phase: 'COMMITTED', accepted: { s0: accepted(5, 400), s1: accepted(5, 600) }, snapshotId: 1 }, timings };
  const view = syncView(few, [], {});
  assert.equal(view.layout, 'direct');
  assert.equal(view.files, 1000);
  assert.deepEqual(view.warnings, []);
  assert.equal(view.stages.buckets, null);
  const many = { ...few, state: { phase: 'COMMITTED' as const, accepted: { s0: accepted(5, 400), s1: accepted(5, 601) }, snapshotId: 1 } };
  const warned = syncView(many, [], {});
  assert.equal(warned.files, DIRECT_FILES_WARNING + 1);
  assert.equal(warned.warnings.length, 1);
  assert.match(warned.warnings[0] ?? '', /1001 data files/);
});

test('a bucketed load shows both stages: shards read, then buckets written', () => {
  const merging: SyncRecord = { id: 'sync-2', version: 4, plan: plan('bucketed'), state: { phase: 'MERGING', accepted: { s0: accepted(7, 3), s1: accepted(9, 3) }, buckets: 3 }, timings };
  const at = '2026-01-01T00:00:01.000Z';
  const bucketAttempts: ShardAttempt[] = [
    { shardId: 'bucket-0', attemptId: '1', status: 'succeeded', accepted: true, startedAt: at, rows: 6, bytes: 60 },
    { shardId: 'bucket-1', attemptId: '1', status: 'running', startedAt: at, rows: 4, bytes: 0 },
  ];
  const view = syncView(merging, [], {}, undefined, 100, undefined, undefined, { attempts: bucketAttempts, accepted: { 'bucket-0': '1' } });
  assert.equal(view.state.phase, 'MERGING');
  assert.deepEqual(view.stages.shards, { total: 2, accepted: 2, rows: 0, bytes: 0 });
  assert.deepEqual(view.stages.buckets, { total: 3, accepted: 1, rows: 10, bytes: 60 });
  assert.equal(view.files, null, 'not known before the commit began');

  const committed: SyncRecord = {
    ...merging,
    state: { phase: 'COMMITTED', accepted: merging.state.phase === 'MERGING' ? merging.state.accepted : {}, snapshotId: 2, bucketStage: { accepted: { 'bucket-0': accepted(6, 1), 'bucket-1': accepted(4, 2) }, files: 3 } },
  };
  const done = syncView(committed, [], {});
  assert.equal(done.files, 3);
  assert.deepEqual(done.stages.buckets, { total: 2, accepted: 2, rows: 10, bytes: 100 });
  assert.deepEqual(done.stages.shards, { total: 2, accepted: 2, rows: 16, bytes: 160 });
  assert.deepEqual(done.warnings, []);
});
