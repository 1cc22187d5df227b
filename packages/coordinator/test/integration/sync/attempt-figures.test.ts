/**
 * SyncStore.attemptFigures, the light read behind a running sync's totals: the same figures as the
 * fully validated `attempts` for every attempt a worker writes (every status, rows and bytes absent,
 * zero or large, rejected rows, fields the totals do not read), and the same refusal for an attempt
 * whose figures are malformed. Real Redis.
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { Redis } from 'ioredis';
import { services, uniqueName } from '@tributary/testkit';
import { syncRedisKeys, type ShardAttempt } from '@tributary/protocol';
import { SyncStore, type AttemptFigures } from '../../../src/sync/store.ts';
import { progressTotals } from '../../../src/http/sync-view.ts';
import { newSyncRecord } from '../../../src/sync/state.ts';
import { testPlan } from '../../support/plan.ts';

const redis = new Redis({ ...services.redis, maxRetriesPerRequest: null });
after(() => redis.quit());

const figures = (a: AttemptFigures) => ({ shardId: a.shardId, attemptId: a.attemptId, status: a.status, rows: a.rows, bytes: a.bytes, rejected: a.rejected });
const byKey = (a: { shardId: string; attemptId: string }, b: { shardId: string; attemptId: string }) => `${a.shardId}/${a.attemptId}`.localeCompare(`${b.shardId}/${b.attemptId}`);

describe('attempt figures', () => {
  test('the figures of `attempts`, and the same running totals', async () => {
    const prefix = uniqueName('figures');
    const store = new SyncStore(redis, prefix);
    const shards = Array.from({ length: 6 }, (_, i) => ({ id: `s${i}`, spec: {} }));
    await store.create(newSyncRecord('f', testPlan('tributary-sync-f', { shards }), 't'), 1);
    await store.apply('f', { type: 'start' });
    const at = '2026-01-01T00:00:01.000Z';
    const written: ShardAttempt[] = [
      { shardId: 's0', attemptId: '1', status: 'running', startedAt: at },
      { shardId: 's0', attemptId: '2', status: 'running', startedAt: at, rows: 0, bytes: 0 },
      { shardId: 's1', attemptId: '1', status: 'succeeded', startedAt: at, finishedAt: at, rows: 2 ** 53 - 1, bytes: 12, blobKey: 'b/s1', checksum: 7, rejected: 3 },
      { shardId: 's2', attemptId: '1', status: 'failed', startedAt: at, finishedAt: at, rows: 5, bytes: 6, error: { code: 'X', message: 'boom', retryable: true, context: {} } },
      { shardId: 's3', attemptId: '1', status: 'abandoned', startedAt: at, rows: 9, bytes: 9 },
      { shardId: 's4', attemptId: '10', status: 'running', startedAt: at, updatedAt: at, rows: 4, bytes: 40 },
      { shardId: 's4', attemptId: '9', status: 'succeeded', startedAt: at, finishedAt: at, rows: 1, bytes: 1 },
    ] as ShardAttempt[];
    const keys = syncRedisKeys(prefix, 'f');
    for (const a of written) await redis.hset(keys.attempts, `${a.shardId}/${a.attemptId}`, JSON.stringify(a));
    await redis.hset(keys.accepted, 's1', '1', 's4', '9');
    const light = await store.attemptFigures('f');
    const full = await store.attempts('f');
    assert.deepEqual(light.map(figures).sort(byKey), full.map(figures).sort(byKey));
    const record = (await store.get('f'))!;
    const accepted = await store.acceptedAttempts('f');
    assert.deepEqual(progressTotals(record, light, accepted), progressTotals(record, full, accepted));
    // s0's latest running (attempt 2: 0), s1 accepted (2^53 - 1, 3 rejected), s4 accepted attempt 9 (not the running 10)
    assert.deepEqual(progressTotals(record, light, accepted), { rows: 2 ** 53 - 1 + 1, bytes: 13, rejected: 3 });
  });

  test('an attempt with malformed figures is refused as `attempts` refuses it', async () => {
    const prefix = uniqueName('figures');
    const store = new SyncStore(redis, prefix);
    await store.create(newSyncRecord('g', testPlan('tributary-sync-g', { shards: [{ id: 's0', spec: {} }] }), 't'), 1);
    const keys = syncRedisKeys(prefix, 'g');
    for (const bad of [{ rows: '5' }, { rows: -1 }, { bytes: 1.5 }, { status: 'done' }, { attemptId: 1 }, { rejected: null }]) {
      await redis.del(keys.attempts);
      await redis.hset(keys.attempts, 's0/1', JSON.stringify({ shardId: 's0', attemptId: '1', status: 'running', startedAt: '2026-01-01T00:00:01.000Z', ...bad }));
      await assert.rejects(store.attempts('g'), { name: 'ZodError' }, JSON.stringify(bad));
      await assert.rejects(store.attemptFigures('g'), { name: 'ZodError' }, JSON.stringify(bad));
    }
  });
});
