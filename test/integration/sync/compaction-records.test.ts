/**
 * Compaction records in Redis are bounded (real Redis and MinIO, a real worker process): a
 * compaction's id is in the live set only while it runs (the maintenance reads that set, not every
 * compaction recorded), and once it ends its record, plan and ledger expire after the retention
 * (here 20 s): GET answers 404 after, and the index drops it as new compactions start. A
 * compaction with nothing to do is ended at once and expires the same way. The table maintenance
 * still protects a live compaction's files (its orphan cleanup with guard age 0 keeps them).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { ChildProcess } from 'node:child_process';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import type { Coordinator } from '@tributary/coordinator';
import { COMPACTION_QUEUE, compactionIndexKey, compactionLiveKey, compactionRedisKeys } from '@tributary/protocol';
import { services } from '@tributary/testkit';
import { ORDERS_COLUMNS, generatorSource, inProcessCoordinator, listKeys, spawnWorker, stop, syncEnv, waitForPhase, waitUntil } from './harness.ts';

const RETENTION_MS = 20_000;

interface CompactionView {
  readonly id: string;
  readonly phase: string;
  readonly jobs: number;
}

describe('compaction records: a live set, and ended records expire (real Redis and MinIO, a real worker)', () => {
  const e = syncEnv('compaction-records');
  let coordinator: Coordinator;
  let queue: Queue;
  let redis: Redis;
  const workers: ChildProcess[] = [];

  before(async () => {
    coordinator = await inProcessCoordinator(e, { compactionRecordRetentionMs: RETENTION_MS });
    queue = new Queue(COMPACTION_QUEUE, { connection: services.redis, prefix: e.prefix });
    redis = new Redis(services.redis);
    workers.push(await spawnWorker(e));
  });
  after(async () => {
    await Promise.all(workers.map((w) => stop(w)));
    await queue.close();
    redis.disconnect();
    await coordinator.close();
  });

  async function get(id: string): Promise<{ status: number; view: CompactionView }> {
    const response = await coordinator.app.inject({ method: 'GET', url: `/v1/tables/shop/records/compactions/${id}` });
    return { status: response.statusCode, view: response.json<CompactionView>() };
  }

  async function start(): Promise<CompactionView> {
    const response = await coordinator.app.inject({ method: 'POST', url: '/v1/tables/shop/records/compactions', payload: { full: true } });
    assert.equal(response.statusCode, 202, response.body);
    return response.json<CompactionView>();
  }

  test('live while it runs, then out of the live set and expiring; a no-op compaction expires too', async () => {
    const created = await coordinator.app.inject({ method: 'POST', url: '/v1/tables', payload: { database: 'shop', name: 'records', columns: ORDERS_COLUMNS, primaryKeys: ['order_id'], bucket: 1 } });
    assert.equal(created.statusCode, 201, created.body);
    for (const seed of [1, 2]) {
      const response = await coordinator.app.inject({
        method: 'POST',
        url: '/v1/syncs',
        payload: { table: { database: 'shop', table: 'records' }, source: generatorSource(2, 200, { seed }), mode: 'append', options: { layout: 'direct' } },
      });
      assert.equal(response.statusCode, 202, response.body);
      const done = await waitForPhase(() => coordinator.syncs.get(response.json<{ id: string }>().id), ['COMMITTED', 'ABORTED'], 120_000);
      assert.equal(done.state.phase, 'COMMITTED', JSON.stringify(done.state));
    }

    // Its job held back (the queue paused): RUNNING, in the live set, no expiry; the orphan cleanup
    // (guard age 0) leaves its staged inputs alone.
    await queue.pause();
    const running = await start();
    assert.equal(running.phase, 'RUNNING');
    const keys = compactionRedisKeys(e.prefix, running.id);
    assert.deepEqual(await redis.smembers(compactionLiveKey(e.prefix)), [running.id]);
    assert.equal(await redis.pttl(keys.record), -1, 'no expiry while it runs');
    const cleanup = await coordinator.app.inject({ method: 'POST', url: '/v1/tables/shop/records/orphan-cleanups', payload: { olderThanMs: 0, dryRun: false } });
    assert.equal(cleanup.statusCode, 200, cleanup.body);
    assert.equal((await listKeys(e, `.tributary/compactions/${running.id}/`)).length, 1, 'its staged inputs kept');

    await queue.resume();
    const committed = await waitUntil(async () => {
      const { view } = await get(running.id);
      return ['COMMITTED', 'FAILED', 'CONFLICT'].includes(view.phase) ? view : undefined;
    }, `compaction ${running.id} ended (a real worker rewriting its bucket)`, 240_000);
    assert.equal(committed.phase, 'COMMITTED', JSON.stringify(committed));
    assert.deepEqual(await redis.smembers(compactionLiveKey(e.prefix)), [], 'out of the live set once ended');
    for (const key of [keys.record, keys.plan, keys.accepted, keys.votes, keys.attempts, keys.attemptSeq]) {
      const ttl = await redis.pttl(key);
      assert.ok(ttl > 0 && ttl <= RETENTION_MS, `${key} expires after the retention (pttl ${ttl})`);
    }

    // Nothing left to do: ended at once, never live, expiring.
    const noop = await start();
    assert.equal(noop.phase, 'COMMITTED');
    assert.equal(noop.jobs, 0);
    assert.deepEqual(await redis.smembers(compactionLiveKey(e.prefix)), []);
    const noopTtl = await redis.pttl(compactionRedisKeys(e.prefix, noop.id).record);
    assert.ok(noopTtl > 0 && noopTtl <= RETENTION_MS, `pttl ${noopTtl}`);

    // After the retention: both gone (GET 404), and the next compaction's start trims the index.
    await waitUntil(async () => (await get(running.id)).status === 404 && (await get(noop.id)).status === 404, 'the ended compactions\' records expired', 120_000);
    assert.deepEqual(await redis.exists(keys.plan, keys.accepted, keys.votes, keys.attempts, keys.attemptSeq), 0, 'its plan and ledger expired too');
    const later = await start();
    assert.deepEqual(await redis.zrange(compactionIndexKey(e.prefix), '0', '-1'), [later.id], 'the index holds only compactions within the retention');
  });
});
