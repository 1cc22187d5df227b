/**
 * The committer's blob prefetch on real Redis: constant Redis work per finished shard (the plan is
 * read once per sync, the phase and the shard's acceptance with one HGET each), nothing read for a
 * sync that left PREPARING, and a close that waits for the running prefetches.
 */
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { services, uniqueName } from '@tributary/testkit';
import { syncRedisKeys } from '@tributary/protocol';
import { warehouseTables } from '@tributary/table';
import { SyncCommitter } from '../../../src/sync/committer.ts';
import { SyncStore } from '../../../src/sync/store.ts';
import { newSyncRecord, type SyncPhase, type SyncRecord } from '../../../src/sync/state.ts';
import { testPlan } from '../../support/plan.ts';

const redis = new Redis({ ...services.redis, maxRetriesPerRequest: null });
after(() => redis.quit());

/**
 * The real store, counting how often the whole record is read and parsed, how many prefetches
 * started (each asks for the phase first) and how many got an answer about their shard's acceptance.
 */
class CountingStore extends SyncStore {
  recordReads = 0;
  phaseCalls = 0;
  acceptanceAnswers = 0;
  override async get(syncId: string): Promise<SyncRecord | undefined> {
    this.recordReads++;
    return super.get(syncId);
  }
  override async phase(syncId: string): Promise<SyncPhase | undefined> {
    this.phaseCalls++;
    return super.phase(syncId);
  }
  override async acceptedAttempt(syncId: string, shardId: string): Promise<string | undefined> {
    const attempt = await super.acceptedAttempt(syncId, shardId);
    this.acceptanceAnswers++;
    return attempt;
  }
}

/** Polls until `done()`; fails after `timeoutMs`, saying `what`. */
async function until(what: string, done: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`not within ${timeoutMs} ms: ${what}`);
    await sleep(5);
  }
}

const SHARDS = 200;
const plan = testPlan('tributary-sync-p', { shards: SHARDS });

/** A PREPARING sync whose every shard accepted attempt 1 (no blobs: each prefetch's read fails and is only a miss). */
async function preparingSync(): Promise<{ store: CountingStore; committer: SyncCommitter }> {
  const store = new CountingStore(redis, uniqueName('prefetch'));
  await store.create(newSyncRecord('p', plan, new Date().toISOString()), Date.now());
  await store.apply('p', { type: 'start' });
  const accepted = plan.shards.flatMap((s) => [s.id, '1']);
  await redis.hset(syncRedisKeys(store.prefix, 'p').accepted, ...accepted);
  const warehouse = pathToFileURL(mkdtempSync(join(tmpdir(), 'prefetch-'))).href;
  store.recordReads = 0;
  store.phaseCalls = 0;
  store.acceptanceAnswers = 0;
  return { store, committer: new SyncCommitter({ store, tables: warehouseTables(), warehouse, clusterSecret: new Uint8Array(32) }) };
}

describe('SyncCommitter prefetch on Redis', () => {
  test('the record (with its plan of every shard) is read once per sync, not once per shard', async () => {
    const { store, committer } = await preparingSync();
    for (const shard of plan.shards) committer.prefetch('p', shard.id, '1');
    // Every prefetch got past the acceptance check; close waits for those still reading the plan.
    await until(`${SHARDS} prefetches checked their shard's acceptance`, () => store.acceptanceAnswers === SHARDS);
    await committer.close();
    assert.equal(store.recordReads, 1);
  });

  test('an attempt that is not the accepted one reads no record and no blob', async () => {
    const { store, committer } = await preparingSync();
    for (const shard of plan.shards) committer.prefetch('p', shard.id, '2');
    await until(`${SHARDS} prefetches checked their shard's acceptance`, () => store.acceptanceAnswers === SHARDS);
    await committer.close();
    assert.equal(store.recordReads, 0);
  });

  test('a sync that left PREPARING is not read at all', async () => {
    const { store, committer } = await preparingSync();
    await store.apply('p', { type: 'abort', reason: { code: 'SYNC_ABORT_REQUESTED', message: 'stop', retryable: false, context: {} } });
    store.recordReads = 0;
    for (const shard of plan.shards) committer.prefetch('p', shard.id, '1');
    // The first prefetch to see the phase drops the queued rest; close waits for the running ones.
    await until('a prefetch read the phase', () => store.phaseCalls > 0);
    await committer.close();
    assert.equal(store.recordReads, 0);
  });

  test('close with thousands queued: resolves, leaves no unhandled rejection, and later prefetches are ignored', async () => {
    const { store, committer } = await preparingSync();
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown): void => void unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      for (let round = 0; round < 20; round++) for (const shard of plan.shards) committer.prefetch('p', shard.id, '1');
      await committer.close();
      const readsAtClose = store.recordReads;
      const startedAtClose = store.phaseCalls;
      // A prefetch starts (asking for the phase) as it is pushed when a slot is free, and every slot
      // is free after close: one that did not start now is refused, not queued.
      committer.prefetch('p', 'shard-0', '1');
      assert.equal(store.phaseCalls, startedAtClose, 'no prefetch started after close');
      assert.equal(store.recordReads, readsAtClose);
      assert.ok(readsAtClose <= 1);
      assert.deepEqual(unhandled, []);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });
});
