/**
 * The committer at the end of the bucket stage, on real Redis: it aborts a MERGING sync for a
 * missing bucket only when the bucket stage's flow had finished before the acceptances were read.
 * The bucket jobs here are simulated by the flow stand-in: "ending" records their acceptances, as
 * a bucket job's accept does before the job ends and the parent leaves waiting-children.
 */
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, describe, test } from 'node:test';
import { Redis } from 'ioredis';
import { services, uniqueName } from '@tributary/testkit';
import { syncRedisKeys } from '@tributary/protocol';
import { warehouseTables } from '@tributary/table';
import { SyncCommitter, type BucketFlows } from '../../../src/sync/committer.ts';
import type { BucketFlowState } from '../../../src/sync/flow.ts';
import { SyncStore } from '../../../src/sync/store.ts';
import { newSyncRecord } from '../../../src/sync/state.ts';
import { testPlan } from '../../support/plan.ts';

const redis = new Redis({ ...services.redis, maxRetriesPerRequest: null });
after(() => redis.quit());

const plan = testPlan('tributary-sync-m', { options: { layout: 'bucketed' } });

/** A sync in MERGING with two bucket jobs, none accepted yet, and its committer driven by `flows`. */
async function mergingSync(flows: BucketFlows): Promise<{ store: SyncStore; committer: SyncCommitter; accept: () => Promise<void> }> {
  const store = new SyncStore(redis, uniqueName('finish-merge'));
  await store.create(newSyncRecord('m', plan, new Date().toISOString()), Date.now());
  await store.apply('m', { type: 'start' });
  const accepted = { 'shard-0': { attemptId: '1', blobKey: 'k', checksum: 1, rows: 1, bytes: 1 } };
  const merging = await store.apply('m', { type: 'beginMerge', accepted, buckets: 2 });
  assert.equal(merging.state.phase, 'MERGING');
  const warehouse = pathToFileURL(mkdtempSync(join(tmpdir(), 'finish-merge-'))).href;
  const committer = new SyncCommitter({ store, tables: warehouseTables(), warehouse, clusterSecret: new Uint8Array(32), bucketFlows: flows });
  const accept = async () => void (await redis.hset(syncRedisKeys(store.prefix, 'm').bucketAccepted, 'bucket-0', '1', 'bucket-1', '1'));
  return { store, committer, accept };
}

/** A flow stand-in: `state()` answers bucketFlowState (after `onState`), and enqueueing is refused (the flow exists). */
function flowsOf(state: () => Promise<BucketFlowState>): BucketFlows {
  return {
    enqueueBuckets: () => Promise.reject(new Error('the bucket flow exists: nothing to enqueue')),
    bucketFlowState: state,
  };
}

describe('SyncCommitter at the end of the bucket stage', () => {
  test('bucket jobs that end while the committer looks are not taken for missing ones', async () => {
    // The jobs end (both accepted, the parent released) just as the committer asks for the flow's
    // state. Read in the other order (acceptances first, then the flow), the committer saw no
    // acceptance and a finished flow, and aborted the sync with SYNC_BUCKET_MISSING.
    let accept: () => Promise<void> = () => Promise.reject(new Error('not set up'));
    const { store, committer, accept: record } = await mergingSync(
      flowsOf(async () => {
        await accept();
        return 'finished';
      }),
    );
    accept = record;
    // Past the check, the committer reads the accepted bucket blobs; there are none in this test,
    // so the drive stops there (a typed abort, or a retryable error the commit job would retry).
    const outcome = await committer.drive('m').then(
      (r) => r,
      (error: unknown) => error,
    );
    const after = await store.require('m');
    const reason = after.state.phase === 'ABORTED' || after.state.phase === 'ABORTING' ? after.state.reason.code : undefined;
    assert.notEqual(reason, 'SYNC_BUCKET_MISSING', 'both buckets were accepted before the flow was seen finished');
    assert.ok(outcome instanceof Error || reason !== undefined, 'the drive went on to read the bucket blobs (none exist here)');
    await committer.close();
  });

  test('while the bucket jobs run, the sync waits in MERGING', async () => {
    const { store, committer } = await mergingSync(flowsOf(() => Promise.resolve('pending')));
    const left = await committer.drive('m');
    assert.equal(left.state.phase, 'MERGING');
    assert.equal((await store.require('m')).state.phase, 'MERGING');
    await committer.close();
  });

  test('a flow that finished without an acceptance aborts with SYNC_BUCKET_MISSING, naming the buckets', async () => {
    const { committer } = await mergingSync(flowsOf(() => Promise.resolve('finished')));
    const left = await committer.drive('m');
    assert.ok(left.state.phase === 'ABORTED' || left.state.phase === 'ABORTING', left.state.phase);
    const reason = 'reason' in left.state ? left.state.reason : undefined;
    assert.equal(reason?.code, 'SYNC_BUCKET_MISSING');
    assert.match(reason?.message ?? '', /bucket-0, bucket-1/);
    await committer.close();
  });
});
