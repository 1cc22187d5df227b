/**
 * A sync's flow can finish before the sync's start is written (the service enqueues the flow, then
 * writes PLANNED → PREPARING; CI saw every shard and the commit job finish in between). The commit
 * job's drive then finds the sync PLANNED: it must start it and judge its shards, not leave it
 * PLANNED with no commit job left to run (it would wait in PREPARING forever). Real Redis.
 */
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, describe, test } from 'node:test';
import { Redis } from 'ioredis';
import { services, uniqueName } from '@tributary/testkit';
import { isTributaryError, syncRedisKeys } from '@tributary/protocol';
import { warehouseTables } from '@tributary/table';
import { SyncCommitter } from '../../../src/sync/committer.ts';
import { SyncStore } from '../../../src/sync/store.ts';
import { newSyncRecord } from '../../../src/sync/state.ts';
import { testPlan } from '../../support/plan.ts';

const redis = new Redis({ ...services.redis, maxRetriesPerRequest: null });
after(() => redis.quit());

const at = '2026-01-01T00:00:01.000Z';

describe('a flow that finished before the sync started', () => {
  test("the commit job's drive starts the PLANNED sync and judges its shards (one failed: aborted naming it)", async () => {
    const store = new SyncStore(redis, uniqueName('planned'));
    const plan = testPlan('tributary-sync-q', { shards: 2 });
    const [first, second] = plan.shards.map((s) => s.id) as [string, string];
    await store.create(newSyncRecord('q', plan, new Date().toISOString()), Date.now());
    // What the two shard jobs left while the sync was still PLANNED (the accept script accepts then):
    // the first accepted, the second failed for good.
    const keys = syncRedisKeys(store.prefix, 'q');
    await redis.hset(keys.attemptSeq, first, '1', second, '1');
    await redis.hset(keys.accepted, first, '1');
    await redis.hset(keys.attempts, `${first}/1`, JSON.stringify({ shardId: first, attemptId: '1', status: 'succeeded', startedAt: at, finishedAt: at, rows: 1, bytes: 1 }));
    const failure = { code: 'SOURCE_UNREACHABLE', message: 'the source did not answer', retryable: false, context: {} };
    await redis.hset(keys.attempts, `${second}/1`, JSON.stringify({ shardId: second, attemptId: '1', status: 'failed', startedAt: at, finishedAt: at, error: failure }));
    const warehouse = pathToFileURL(mkdtempSync(join(tmpdir(), 'planned-'))).href;
    const committer = new SyncCommitter({ store, tables: warehouseTables(), warehouse, clusterSecret: new Uint8Array(32) });
    try {
      const record = await committer.drive('q');
      assert.notEqual(record.state.phase, 'PLANNED');
      assert.ok(record.state.phase === 'ABORTED' || record.state.phase === 'ABORTING', record.state.phase);
      assert.equal((record.state as { reason: { code: string } }).reason.code, 'SOURCE_UNREACHABLE');
      assert.ok(record.timings.PREPARING !== undefined, 'the drive wrote the start');
      // The service's own start, written after: refused as a transition out of an ended sync (the
      // service takes that refusal as "already moved on" and returns the record).
      await assert.rejects(store.apply('q', { type: 'start' }), (error) => isTributaryError(error) && error.code === 'SYNC_ILLEGAL_TRANSITION');
    } finally {
      await committer.close();
    }
  });

  test('a sync aborted while PLANNED is not started by the drive: it goes on with the abort', async () => {
    const store = new SyncStore(redis, uniqueName('planned'));
    const plan = testPlan('tributary-sync-r', { shards: 1 });
    await store.create(newSyncRecord('r', plan, new Date().toISOString()), Date.now());
    await store.apply('r', { type: 'abort', reason: { code: 'SYNC_ABORT_REQUESTED', message: 'stop', retryable: false, context: {} } });
    const warehouse = pathToFileURL(mkdtempSync(join(tmpdir(), 'planned-'))).href;
    const committer = new SyncCommitter({ store, tables: warehouseTables(), warehouse, clusterSecret: new Uint8Array(32) });
    try {
      const record = await committer.drive('r');
      assert.equal(record.state.phase, 'ABORTED');
      assert.equal(record.timings.PREPARING, undefined);
    } finally {
      await committer.close();
    }
  });
});
