import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { Redis } from 'ioredis';
import { services, uniqueName } from '@tributary/testkit';
import { isTributaryError, syncRedisKeys } from '@tributary/protocol';
import { SyncStore } from '../../../src/sync/store.ts';
import { newSyncRecord } from '../../../src/sync/state.ts';
import { testPlan } from '../../support/plan.ts';

const redis = new Redis({ ...services.redis, maxRetriesPerRequest: null });
after(() => redis.quit());

const plan = testPlan('tributary-sync-a', { shards: [{ id: 's0', spec: {} }] });
const reason = { code: 'SYNC_ABORT_REQUESTED', message: 'stop', retryable: false, context: {} };

/** The real store, counting its reads of whole records. */
class CountingStore extends SyncStore {
  reads = 0;
  override async get(syncId: string): ReturnType<SyncStore['get']> {
    this.reads++;
    return super.get(syncId);
  }
}

describe('SyncStore on Redis', () => {
  test('create persists once; a second create with the same id is refused', async () => {
    const store = new SyncStore(redis, uniqueName('store'));
    const record = newSyncRecord('a', plan, new Date().toISOString());
    assert.equal(await store.create(record, Date.now()), true);
    assert.equal(await store.create(record, Date.now()), false);
    assert.deepEqual(await store.get('a'), record);
    assert.deepEqual(await store.activeIds(), ['a']);
    assert.equal(await redis.hget(syncRedisKeys(store.prefix, 'a').record, 'phase'), 'PLANNED');
  });

  test('concurrent transitions from one state: exactly one wins, the other sees the new state', async () => {
    const store = new SyncStore(redis, uniqueName('store'));
    await store.create(newSyncRecord('a', plan, 't'), Date.now());
    await store.apply('a', { type: 'start' });
    // Ten racing aborts and ten racing commit starts from PREPARING.
    const accepted = { s0: { attemptId: 'x', blobKey: 'k', checksum: 1, rows: 1, bytes: 1 } };
    const results = await Promise.allSettled([
      ...Array.from({ length: 10 }, () => store.apply('a', { type: 'abort', reason })),
      ...Array.from({ length: 10 }, () => store.apply('a', { type: 'beginCommit', accepted })),
    ]);
    const final = await store.require('a');
    assert.equal(final.version, 2, 'exactly one transition out of PREPARING was persisted');
    if (final.state.phase === 'ABORTING') {
      // every beginCommit was refused as illegal
      assert.equal(results.slice(10).every((r) => r.status === 'rejected'), true);
    } else {
      assert.equal(final.state.phase, 'COMMITTING');
      for (const r of results.slice(0, 10)) {
        assert.equal(r.status, 'rejected');
        assert.ok(r.status === 'rejected' && isTributaryError(r.reason) && r.reason.code === 'SYNC_COMMIT_IN_PROGRESS');
      }
    }
  });

  test('apply with a known record: no read while it is the stored one; a stale one is never what decides', async () => {
    const store = new CountingStore(redis, uniqueName('store'));
    await store.create(newSyncRecord('a', plan, 't'), Date.now());
    const preparing = await store.apply('a', { type: 'start' });
    const accepted = { s0: { attemptId: 'x', blobKey: 'k', checksum: 1, rows: 1, bytes: 1 } };

    // Current: written without a read, as the event makes it from there.
    store.reads = 0;
    const committing = await store.apply('a', { type: 'beginCommit', accepted }, undefined, preparing);
    assert.equal(store.reads, 0);
    assert.equal(committing.state.phase, 'COMMITTING');
    assert.deepEqual(await store.get('a'), committing);

    // Stale (the sync moved on since): the write is refused, the stored record read and decided on.
    // From the stale PREPARING record an abort would be legal; from COMMITTING it is refused.
    store.reads = 0;
    await assert.rejects(store.apply('a', { type: 'abort', reason }, undefined, preparing), { code: 'SYNC_COMMIT_IN_PROGRESS' });
    assert.equal(store.reads, 1);
    assert.deepEqual(await store.get('a'), committing);

    // Stale, and the event is refused by it but legal on the stored record: applied to the stored one.
    const committed = await store.apply('a', { type: 'committed', snapshotId: 7 }, undefined, preparing);
    assert.equal(committed.state.phase, 'COMMITTED');
    assert.equal(committed.version, committing.version + 1);
    assert.deepEqual(await store.get('a'), committed);

    // Stale, and the event leaves the stored record unchanged: the stored record is returned, not the stale one.
    const again = await store.apply('a', { type: 'committed', snapshotId: 7 }, undefined, committing);
    assert.deepEqual(again, committed);
  });

  test('pageRecord: one read of the record while its version holds, the new one after a write, at most 4 kept', async () => {
    const store = new CountingStore(redis, uniqueName('store'));
    for (const id of ['a', 'b', 'c', 'd', 'e']) await store.create(newSyncRecord(id, plan, 't'), Date.now());
    const first = await store.pageRecord('a');
    assert.deepEqual(first, await store.get('a'));
    store.reads = 0;
    for (let i = 0; i < 5; i++) assert.equal(await store.pageRecord('a'), first);
    assert.equal(store.reads, 0, 'the version held: no read');

    const started = await store.apply('a', { type: 'start' });
    store.reads = 0;
    const after = await store.pageRecord('a');
    assert.equal(store.reads, 1);
    assert.deepEqual(after, started);
    assert.equal(after.state.phase, 'PREPARING');

    // Four more syncs paged: 'a' is the least recent of five and is dropped; the rest are kept.
    for (const id of ['b', 'c', 'd', 'e']) await store.pageRecord(id);
    store.reads = 0;
    for (const id of ['b', 'c', 'd', 'e']) await store.pageRecord(id);
    assert.equal(store.reads, 0);
    await store.pageRecord('a');
    assert.equal(store.reads, 1);

    await assert.rejects(store.pageRecord('nope'), { code: 'SYNC_NOT_FOUND' });
  });

  test('a second sync loading only what is new from one source into one table is refused until the first ends, even when started at once', async () => {
    const store = new SyncStore(redis, uniqueName('store'));
    const planOf = (commitUser: string, source: Record<string, unknown>, sourceId: string, table = 'orders') => ({
      ...testPlan(commitUser, { table: { database: 'db', table }, options: { snapshotProperties: { 'tributary.source-id': sourceId } } }),
      source,
    });
    const newFiles = { kind: 'files', newFilesOnly: true };
    const busy = (e: unknown) => isTributaryError(e) && e.code === 'SYNC_SOURCE_BUSY' && e.retryable;
    // Ten at once: exactly one is created.
    const racing = await Promise.allSettled(Array.from({ length: 10 }, (_, i) => store.create(newSyncRecord(`n${i}`, planOf(`u${i}`, newFiles, 'src-1'), 't'), Date.now())));
    assert.equal(racing.filter((r) => r.status === 'fulfilled' && r.value).length, 1);
    assert.ok(racing.every((r) => r.status === 'fulfilled' || busy(r.reason)));
    const first = (await store.activeIds())[0];
    assert.ok(first !== undefined);
    // Another source, another table, a sync that reads everything, an incremental load of another source: all created.
    assert.equal(await store.create(newSyncRecord('other-source', planOf('v1', newFiles, 'src-2'), 't'), Date.now()), true);
    assert.equal(await store.create(newSyncRecord('other-table', planOf('v2', newFiles, 'src-1', 'events'), 't'), Date.now()), true);
    assert.equal(await store.create(newSyncRecord('everything', planOf('v3', { kind: 'files' }, 'src-1'), 't'), Date.now()), true);
    await assert.rejects(store.create(newSyncRecord('incremental', planOf('v4', { kind: 'mysql', incremental: { column: 'id' } }, 'src-2'), 't'), Date.now()), busy);
    // The first ends: the next one is created.
    await store.apply(first, { type: 'abort', reason });
    await store.apply(first, { type: 'cleaned' });
    assert.equal((await store.require(first)).state.phase, 'ABORTED');
    assert.equal(await store.create(newSyncRecord('next', planOf('v5', newFiles, 'src-1'), 't'), Date.now()), true);
  });

  test('terminal syncs leave the active set; list filters by phase and table', async () => {
    const store = new SyncStore(redis, uniqueName('store'));
    await store.create(newSyncRecord('a', plan, 't'), 1);
    await store.create(newSyncRecord('b', { ...plan, table: { database: 'db', table: 'other' } }, 't'), 2);
    await store.apply('a', { type: 'abort', reason });
    await store.apply('a', { type: 'cleaned' });
    assert.deepEqual(await store.activeIds(), ['b']);
    assert.deepEqual((await store.list({ limit: 10 })).map((r) => r.id), ['b', 'a']);
    assert.deepEqual((await store.list({ limit: 10, phase: 'ABORTED' })).map((r) => r.id), ['a']);
    assert.deepEqual((await store.list({ limit: 10, table: 'other' })).map((r) => r.id), ['b']);
  });

  test('phase reads only the phase field and follows every transition; unknown sync: undefined', async () => {
    const store = new SyncStore(redis, uniqueName('store'));
    assert.equal(await store.phase('a'), undefined);
    await store.create(newSyncRecord('a', plan, 't'), 1);
    assert.equal(await store.phase('a'), 'PLANNED');
    await store.apply('a', { type: 'start' });
    assert.equal(await store.phase('a'), 'PREPARING');
    await store.apply('a', { type: 'abort', reason });
    assert.equal(await store.phase('a'), 'ABORTING');
    // The phase is checked, not trusted: a field that is no phase is refused.
    await redis.hset(syncRedisKeys(store.prefix, 'a').record, 'phase', 'NOPE');
    await assert.rejects(store.phase('a'));
  });

  test('discard is 1 only while and after aborting from before the commit, never after a commit started', async () => {
    const store = new SyncStore(redis, uniqueName('store'));
    const discard = async (id: string) => redis.hget(syncRedisKeys(store.prefix, id).record, 'discard');
    await store.create(newSyncRecord('a', plan, 't'), 1);
    await store.apply('a', { type: 'start' });
    assert.equal(await discard('a'), '0');
    await store.apply('a', { type: 'abort', reason });
    assert.equal(await discard('a'), '1');
    await store.apply('a', { type: 'cleaned' });
    assert.equal(await discard('a'), '1');

    await store.create(newSyncRecord('b', plan, 't'), 2);
    await store.apply('b', { type: 'start' });
    await store.apply('b', { type: 'beginCommit', accepted: { s0: { attemptId: '1', blobKey: 'k', checksum: 1, rows: 1, bytes: 1 } } });
    await store.apply('b', { type: 'abandonCommit', reason });
    assert.equal(await discard('b'), '0', 'a commit that may have published keeps its files');
    await store.apply('b', { type: 'cleaned' });
    assert.equal(await discard('b'), '0');
  });

  test('the transition that ends a sync marks its attempts still running abandoned, and only those', async () => {
    const store = new SyncStore(redis, uniqueName('store'));
    const key = syncRedisKeys(store.prefix, 'a').attempts;
    const attempt = (shardId: string, attemptId: string, status: string) => JSON.stringify({ shardId, attemptId, status, startedAt: `2026-01-01T00:00:0${attemptId}.000Z` });
    await redis.hset(key, 's0/1', attempt('s0', '1', 'running'), 's0/2', attempt('s0', '2', 'succeeded'), 's1/1', attempt('s1', '1', 'failed'));
    await store.create(newSyncRecord('a', plan, 't'), 1);
    await store.apply('a', { type: 'start' });
    await store.apply('a', { type: 'abort', reason });
    assert.deepEqual((await store.attempts('a')).map((a) => a.status), ['running', 'succeeded', 'failed'], 'not yet: ABORTING is not the end');
    await store.apply('a', { type: 'cleaned' });
    assert.deepEqual((await store.attempts('a')).map((a) => a.status), ['abandoned', 'succeeded', 'failed']);
  });

  test('acceptedAttempt reads one shard of the accepted hash, as acceptedAttempts does for all', async () => {
    const store = new SyncStore(redis, uniqueName('store'));
    const key = syncRedisKeys(store.prefix, 'a').accepted;
    assert.equal(await store.acceptedAttempt('a', 's0'), undefined);
    await redis.hset(key, 's0', '2', 's1', '1');
    assert.equal(await store.acceptedAttempt('a', 's0'), '2');
    assert.equal(await store.acceptedAttempt('a', 's1'), '1');
    assert.equal(await store.acceptedAttempt('a', 's9'), undefined);
    assert.deepEqual(await store.acceptedAttempts('a'), { s0: '2', s1: '1' });
  });

  test('an Idempotency-Key binds one sync; reuse with another body is refused', async () => {
    const store = new SyncStore(redis, uniqueName('store'));
    assert.equal(await store.claimIdempotencyKey('k', 'h1', 'sync-1'), undefined);
    assert.equal(await store.claimIdempotencyKey('k', 'h1', 'sync-2'), 'sync-1');
    await assert.rejects(store.claimIdempotencyKey('k', 'h2', 'sync-3'), (e) => isTributaryError(e) && e.code === 'IDEMPOTENCY_KEY_REUSED');
  });
});
