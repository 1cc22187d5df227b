/**
 * A PLANNED sync aborted while its flow is being enqueued, on real Redis and BullMQ: the resume
 * (a coordinator starting) that enqueues it leaves it to the abort instead of throwing (which
 * stopped the coordinator's start). The abort request lands inside the flow's enqueue (the flow
 * stand-in runs it there, after the real enqueue).
 */
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, describe, test } from 'node:test';
import { Redis } from 'ioredis';
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

const plan = testPlan('tributary-sync-e');

/** Real flows whose enqueue lets `inside` run once the flow is in (what an abort request does just then). */
class InterleavingFlows extends SyncFlows {
  inside: (() => Promise<unknown>) | undefined;
  override async enqueue(record: SyncRecord, fingerprint: string): Promise<void> {
    await super.enqueue(record, fingerprint);
    const inside = this.inside;
    this.inside = undefined;
    await inside?.();
  }
}

describe('SyncService.resume of a PLANNED sync', () => {
  test('aborted while its flow is enqueued: the resume leaves it to the abort', async () => {
    const prefix = uniqueName('enqueue-abort');
    const store = new SyncStore(redis, prefix);
    await store.create(newSyncRecord('e', plan, new Date().toISOString()), Date.now());
    const flows = new InterleavingFlows({ connection: services.redis, prefix, clusterSecret: new Uint8Array(32).fill(1), shardBackoffMs: 100, commitAttempts: 1 });
    open.push(flows);
    const warehouse = pathToFileURL(mkdtempSync(join(tmpdir(), 'enqueue-abort-'))).href;
    const tables = warehouseTables();
    const committer = new SyncCommitter({ store, tables, warehouse, clusterSecret: new Uint8Array(32).fill(1) });
    open.push(committer);
    const syncs = new SyncService({ store, flows, committer, tables, warehouse, abortGraceMs: 60_000, sources: noSourceAccess() });
    flows.inside = () => syncs.abort('e', 'stop it');
    assert.equal(await syncs.resume(), 1);
    assert.equal(flows.inside, undefined, 'the abort came while the flow was enqueued');
    const left = await store.require('e');
    assert.equal(left.state.phase, 'ABORTING', 'left to the abort (its shard job waits: the grace ends it)');
    const reason = left.state.phase === 'ABORTING' ? left.state.reason.code : undefined;
    assert.equal(reason, 'SYNC_ABORT_REQUESTED');
    assert.equal(await (await flows.commitQueue.getJob('abort-grace-e'))?.getState(), 'delayed');
  });
});
