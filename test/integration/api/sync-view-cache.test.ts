/**
 * GET /v1/syncs/:id answers from a view kept by its revision (the record's version and the workers'
 * activity counter): after every write a worker makes through its attempt ledger (a new attempt, a
 * report, progress, an accept, earlier attempts abandoned, in the shard and the bucket stage) and
 * every transition of the record, the next answer is exactly what a coordinator that keeps nothing
 * answers, though the same view was just asked for. Real Redis, two real coordinators in process.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Redis } from 'ioredis';
import { services } from '@tributary/testkit';
import { SyncStore, type Coordinator } from '@tributary/coordinator';
import { AttemptLedger } from '@tributary/worker';
import type { ShardAttempt } from '@tributary/protocol';
import { inProcessCoordinator, syncEnv, type SyncEnv } from '../sync/harness.ts';

const redis = new Redis({ ...services.redis, maxRetriesPerRequest: null });

let env: SyncEnv;
let kept: Coordinator;
let fresh: Coordinator;

before(async () => {
  env = syncEnv('view-cache');
  // Long enough that only a revision can end a kept view while the test runs.
  kept = await inProcessCoordinator(env, { apiCacheMs: 600_000 });
  fresh = await inProcessCoordinator(env, { apiCacheMs: 0 });
});
after(async () => {
  await kept?.close();
  await fresh?.close();
  await redis.quit();
});

function recordOf(id: string, shards: number) {
  return {
    id,
    version: 0,
    plan: {
      table: { database: 'db', table: 't' },
      mode: 'append' as const,
      source: { kind: 'generator', shards, rowsPerShard: 10 },
      shards: Array.from({ length: shards }, (_, i) => ({ id: `s${i}`, spec: { index: i } })),
      baseSnapshotId: null,
      schemaId: 0,
      commitUser: `tributary-${id}`,
      commitIdentifier: '1',
      // Bucketed: the view shows the bucket stage while the sync is MERGING.
      options: { maxAttempts: 3, snapshotProperties: {}, layout: 'bucketed' as const },
    },
    state: { phase: 'PLANNED' as const },
    timings: { PLANNED: new Date(Date.UTC(2026, 0, 1)).toISOString() },
  };
}

const attempt = (shardId: string, attemptId: string, status: ShardAttempt['status'], rows: number): ShardAttempt =>
  ({ shardId, attemptId, status, rows, bytes: rows * 10, startedAt: '2026-01-01T00:00:01.000Z', updatedAt: '2026-01-01T00:00:02.000Z', ...(status === 'running' ? {} : { finishedAt: '2026-01-01T00:00:03.000Z' }) }) as ShardAttempt;

async function view(c: Coordinator, id: string): Promise<{ status: number; body: string }> {
  const response = await c.app.inject({ method: 'GET', url: `/v1/syncs/${id}` });
  return { status: response.statusCode, body: response.body };
}

/**
 * Asks the keeping coordinator twice (the second answer kept), writes, then both must answer alike.
 * `shows`: whether the write changes the view (a second attempt counter alone does not: the view
 * lists reported attempts, and counts shards with an attempt).
 */
async function afterWrite(id: string, what: string, write: () => Promise<unknown>, shows = true): Promise<void> {
  const before = await view(kept, id);
  assert.deepEqual(await view(kept, id), before);
  await write();
  const [answer, truth] = [await view(kept, id), await view(fresh, id)];
  assert.equal(truth.status, 200, what);
  if (shows) assert.notEqual(truth.body, before.body, `${what}: the write changes the view`);
  assert.deepEqual(answer, truth, `${what}: the kept view answers as one read now`);
}

describe('GET /v1/syncs/:id kept by revision', () => {
  test('every attempt-ledger write and every transition shows in the next answer', async () => {
    const store = new SyncStore(redis, env.prefix);
    const id = 'view-cache-1';
    assert.equal(await store.create(recordOf(id, 2), Date.now()), true);
    await afterWrite(id, 'start', () => store.apply(id, { type: 'start' }));
    const shards = new AttemptLedger(redis, env.prefix, id);
    await afterWrite(id, 'a new attempt', () => shards.nextAttempt('s0'));
    await afterWrite(id, 'its report', () => shards.report(attempt('s0', '1', 'running', 0)));
    await afterWrite(id, 'its progress', () => shards.progress(attempt('s0', '1', 'running', 7)));
    await afterWrite(id, 'a second attempt', () => shards.nextAttempt('s0'), false);
    await afterWrite(id, 'the first abandoned', () => shards.abandonEarlier('s0', 2));
    await afterWrite(id, 'the second done', () => shards.report(attempt('s0', '2', 'succeeded', 10)));
    await afterWrite(id, 'its accept', async () => assert.equal(await shards.accept('s0', 2, { attemptId: '2', blobKey: 'b/s0', checksum: 1, rows: 10, bytes: 100 } as never), 'accepted'));
    await afterWrite(id, 'the other shard', async () => {
      await shards.nextAttempt('s1');
      await shards.report(attempt('s1', '1', 'succeeded', 10));
      await shards.accept('s1', 1, { attemptId: '1', blobKey: 'b/s1', checksum: 1, rows: 10, bytes: 100 } as never);
    });
    const accepted = { s0: { attemptId: '2', blobKey: 'b/s0', checksum: 1, rows: 10, bytes: 100 }, s1: { attemptId: '1', blobKey: 'b/s1', checksum: 1, rows: 10, bytes: 100 } };
    await afterWrite(id, 'the merge began', () => store.apply(id, { type: 'beginMerge', accepted, buckets: 1 }));
    const buckets = new AttemptLedger(redis, env.prefix, id, 'buckets');
    await afterWrite(id, 'a bucket attempt counted', () => buckets.nextAttempt('bucket-0'), false);
    await afterWrite(id, 'its report (the stage counts accepted buckets only)', () => buckets.report(attempt('bucket-0', '1', 'succeeded', 20)), false);
    await afterWrite(id, 'its accept', async () =>
      assert.equal(await buckets.accept('bucket-0', 1, { attemptId: '1', blobKey: 'b/bucket-0', checksum: 1, rows: 20, bytes: 200 } as never), 'accepted'),
    );
    await afterWrite(id, 'aborted', () => store.apply(id, { type: 'abort', reason: { code: 'SYNC_ABORT_REQUESTED', message: 'stop', retryable: false, context: {} } }));
  });

  test('a sync that does not exist is 404 from both, and asked at once the kept view is one answer', async () => {
    assert.equal((await view(kept, 'no-such-sync')).status, 404);
    const store = new SyncStore(redis, env.prefix);
    const id = 'view-cache-2';
    assert.equal(await store.create(recordOf(id, 3), Date.now()), true);
    const answers = await Promise.all(Array.from({ length: 20 }, () => view(kept, id)));
    const truth = await view(fresh, id);
    for (const answer of answers) assert.deepEqual(answer, truth);
  });
});
