/**
 * The prepare timeout on real Redis and BullMQ: it aborts the sync and deletes the staged files at
 * once only when none of the jobs of the phase it aborted is running; otherwise the abort grace
 * waits for them. The interleaving: the sync's commit job takes it from PREPARING to MERGING, and a
 * worker takes a bucket job, just after the timeout read the record (the store stand-in moves it
 * there inside that read).
 */
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, describe, test } from 'node:test';
import { Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { SYNC_QUEUES } from '@tributary/protocol';
import { noSourceAccess } from '@tributary/sources';
import { warehouseTables } from '@tributary/table';
import { services, uniqueName } from '@tributary/testkit';
import { SyncCommitter } from '../../../src/sync/committer.ts';
import { SyncFlows } from '../../../src/sync/flow.ts';
import { SyncService } from '../../../src/sync/service.ts';
import { newSyncRecord, type SyncRecord } from '../../../src/sync/state.ts';
import { SyncStore } from '../../../src/sync/store.ts';
import { testPlan } from '../../support/plan.ts';

const redis = new Redis({ ...services.redis, maxRetriesPerRequest: null });
const open: { close(): Promise<void> }[] = [];
after(async () => {
  for (const o of open.reverse()) await o.close();
  await redis.quit();
});

const plan = testPlan('tributary-sync-t', { options: { layout: 'bucketed', prepareTimeoutMs: 1000 } });

/** A store whose next `require` runs `inside` after reading (what another writer does just then). */
class InterleavingStore extends SyncStore {
  inside: (() => Promise<void>) | undefined;
  override async require(syncId: string): Promise<SyncRecord> {
    const record = await super.require(syncId);
    const inside = this.inside;
    this.inside = undefined;
    await inside?.();
    return record;
  }
}

async function preparingSync(): Promise<{ store: InterleavingStore; flows: SyncFlows; syncs: SyncService; prefix: string }> {
  const prefix = uniqueName('time-out');
  const store = new InterleavingStore(redis, prefix);
  await store.create(newSyncRecord('t', plan, new Date().toISOString()), Date.now());
  await store.apply('t', { type: 'start' });
  const flows = new SyncFlows({ connection: services.redis, prefix, clusterSecret: new Uint8Array(32).fill(1), shardBackoffMs: 100, commitAttempts: 1 });
  open.push(flows);
  const warehouse = pathToFileURL(mkdtempSync(join(tmpdir(), 'time-out-'))).href;
  const tables = warehouseTables();
  const committer = new SyncCommitter({ store, tables, warehouse, clusterSecret: new Uint8Array(32).fill(1), bucketFlows: flows });
  open.push(committer);
  const syncs = new SyncService({ store, flows, committer, tables, warehouse, abortGraceMs: 60_000, sources: noSourceAccess() });
  return { store, flows, syncs, prefix };
}

describe('SyncService.timeOut', () => {
  test('a sync taken to MERGING just after the timeout read it: its running bucket job holds the clean-up for the grace', async () => {
    const { store, flows, syncs, prefix } = await preparingSync();
    const worker = new Worker(SYNC_QUEUES.mergeBucket, null, { connection: services.redis, prefix });
    open.push({ close: () => worker.close(true) });
    store.inside = async () => {
      // The commit job: every shard accepted, MERGING with one bucket job, the bucket flow enqueued;
      // a worker takes the bucket job.
      const accepted = { 'shard-0': { attemptId: '1', blobKey: 'k', checksum: 1, rows: 1, bytes: 1 } };
      const merging = await store.apply('t', { type: 'beginMerge', accepted, buckets: 1 });
      await flows.enqueueBuckets(merging, 'fp', 1);
      const job = await worker.getNextJob('lock');
      assert.equal(await job?.getState(), 'active');
    };
    const left = await syncs.timeOut('t');
    assert.equal(store.inside, undefined, 'the commit job moved the sync inside the timeout\'s read');
    assert.equal(left.state.phase, 'ABORTING');
    const reason = left.state.phase === 'ABORTING' ? left.state.reason.code : undefined;
    assert.equal(reason, 'SYNC_PREPARE_TIMEOUT');
    assert.equal((await store.require('t')).state.phase, 'ABORTING', 'not cleaned up while the bucket job runs');
    const grace = await flows.commitQueue.getJob('abort-grace-t');
    assert.equal(await grace?.getState(), 'delayed', 'the abort grace waits for the bucket job');
  });

  test('with no job running, the timeout cleans up at once', async () => {
    const { store, syncs } = await preparingSync();
    const left = await syncs.timeOut('t');
    assert.equal(left.state.phase, 'ABORTED');
    assert.equal((await store.require('t')).state.phase, 'ABORTED');
  });
});
