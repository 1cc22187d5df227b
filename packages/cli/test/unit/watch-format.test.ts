/** `sync watch`'s arithmetic: rows/s between samples, ETA from expected rows or shards done, the frame. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { eta, frame, progressOf, summaryLine, type ShardSample, type SyncSample } from '@tributary/cli';

const shard = (id: string, status: ShardSample['status'], rows: number | null, durationMs: number | null = null): ShardSample => ({ id, status, rows, bytes: null, durationMs });
const sample = (at: number, shards: ShardSample[], expected: number | null = 1000, phase = 'PREPARING'): SyncSample => ({
  at,
  id: 'sync-1',
  phase,
  shards,
  expectedRowsPerShard: expected,
  snapshotId: null,
  error: null,
});

test('a running shard’s rate is measured between samples; its ETA from the rows it still has to write', () => {
  const origins = new Map();
  const first = progressOf(sample(0, [shard('s0', 'running', 100), shard('s1', 'waiting', null)]), origins, 0);
  assert.equal(first.shards[0]?.rowsPerSec, null, 'one sample gives no rate');
  const second = progressOf(sample(2000, [shard('s0', 'running', 500), shard('s1', 'waiting', null)]), origins, 0);
  assert.equal(second.shards[0]?.rowsPerSec, 200);
  assert.equal(second.shards[0]?.etaSec, 2.5);
  assert.equal(second.rows, 500);
  assert.equal(second.rowsPerSec, 250);
  assert.equal(second.etaSec, (2000 - 500) / 250);
});

test('a finished shard’s rate is rows over duration; without expected rows the ETA comes from shards done', () => {
  const p = progressOf(sample(4000, [shard('a', 'done', 800, 2000), shard('b', 'running', 10), shard('c', 'waiting', null), shard('d', 'waiting', null)], null), new Map(), 0);
  assert.equal(p.shards[0]?.rowsPerSec, 400);
  assert.equal(p.done, 1);
  assert.equal(p.etaSec, 12, '3 shards left at 4 s per shard');
  assert.equal(eta(p.etaSec), 'ETA 12 s');
  assert.equal(eta(125), 'ETA 2 min 5 s');
  assert.equal(eta(null), 'ETA —');
});

test('the summary line and the frame', () => {
  const s = sample(1000, [shard('s0', 'done', 1000, 500), shard('s1', 'running', 250)]);
  const p = progressOf(s, new Map(), 0);
  assert.equal(summaryLine(s, p, 1000), 'PREPARING   shards 1/2  rows 1,250  1,250 rows/s  ETA 1 s  (1.0 s)');
  const lines = frame(s, p, 1000);
  assert.equal(lines[0], 'sync sync-1');
  assert.match(lines[2] ?? '', /^ {2}s1 +\[#####>\.+\] running +250 rows/);
  assert.match(lines[3] ?? '', /^ {2}s0 +\[#{20}\] done +1,000 rows {2}2,000 rows\/s$/);
  const committed = { ...s, phase: 'COMMITTED', snapshotId: 7, shards: [shard('s0', 'done', 1000, 500), shard('s1', 'done', 1000, 500)] };
  assert.equal(summaryLine(committed, progressOf(committed, new Map(), 0), 1500), 'COMMITTED   shards 2/2  rows 2,000  (1.5 s)  snapshot 7');
});

test('a bucketed load: the buckets done once it merges, and the time left from the rows merged since the stage was first seen', () => {
  const done = [shard('s0', 'done', 1000, 500), shard('s1', 'done', 1000, 500)];
  const origins = new Map();
  const preparing = { ...sample(1000, done), buckets: { accepted: 0, total: null, rows: 0 } };
  assert.equal(summaryLine(preparing, progressOf(preparing, origins, 0), 1000), 'PREPARING   shards 2/2  rows 2,000  2,000 rows/s  ETA 0 s  (1.0 s)');
  const first = { ...sample(2000, done, 1000, 'MERGING'), buckets: { accepted: 0, total: 4, rows: 200 } };
  const p1 = progressOf(first, origins, 0);
  assert.equal(p1.etaSec, null, 'one sample of the stage gives no rate');
  assert.equal(summaryLine(first, p1, 2000), 'MERGING     shards 2/2  rows 2,000  buckets 0/4  1,000 rows/s  ETA —  (2.0 s)');
  const second = { ...sample(3000, done, 1000, 'MERGING'), buckets: { accepted: 2, total: 4, rows: 1100 } };
  const p2 = progressOf(second, origins, 0);
  assert.equal(p2.etaSec, 1, '900 rows merged in 1 s, 900 left');
  assert.equal(summaryLine(second, p2, 3000), 'MERGING     shards 2/2  rows 2,000  buckets 2/4  667 rows/s  ETA 1 s  (3.0 s)');
  const committed = { ...sample(4000, done, 1000, 'COMMITTED'), snapshotId: 3, buckets: { accepted: 4, total: 4, rows: 2000 } };
  assert.equal(summaryLine(committed, progressOf(committed, origins, 0), 4000), 'COMMITTED   shards 2/2  rows 2,000  buckets 4/4  (4.0 s)  snapshot 3');
  const aborted = { ...sample(4000, done, 1000, 'ABORTED'), buckets: { accepted: 0, total: null, rows: 0 } };
  assert.equal(summaryLine(aborted, progressOf(aborted, new Map(), 0), 4000), 'ABORTED     shards 2/2  rows 2,000  (4.0 s)', 'no bucket ever planned: nothing to say of them');
});
