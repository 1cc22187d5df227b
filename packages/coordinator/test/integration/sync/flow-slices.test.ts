/**
 * The sync's flow added in slices on real Redis: every planned shard job is added exactly once, the
 * parent commit job cannot run before the last slice is in (its gate holds it even when every
 * shard job added so far has finished), and an enqueue cut off mid-way (a coordinator crash) and
 * run again adds the missing jobs, none twice, then releases the parent.
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { Worker, type Queue } from 'bullmq';
import { SYNC_QUEUES } from '@tributary/protocol';
import { services, uniqueName } from '@tributary/testkit';
import { SyncFlows, type FlowOptions } from '../../../src/sync/flow.ts';
import { newSyncRecord } from '../../../src/sync/state.ts';
import { testPlan } from '../../support/plan.ts';

const SHARDS = 25;
const SLICE = 10;
const plan = testPlan('tributary-sync-f', { shards: SHARDS, options: { maxAttempts: 1 } });
const record = newSyncRecord('f', plan, new Date().toISOString());

const open: { close(): Promise<void> }[] = [];
after(async () => {
  for (const o of open.reverse()) await o.close();
});

function flows(prefix: string, extra: Partial<FlowOptions> = {}): SyncFlows {
  const f = new SyncFlows({ connection: services.redis, prefix, clusterSecret: new Uint8Array(32).fill(1), shardBackoffMs: 100, commitAttempts: 1, enqueueSlice: SLICE, ...extra });
  open.push(f);
  return f;
}

/** Completes every shard job it is given, as a worker would (without reading anything). */
function completer(prefix: string): Worker {
  const w = new Worker(SYNC_QUEUES.writeShard, async () => 'done', { connection: services.redis, prefix, concurrency: 8 });
  open.push(w);
  return w;
}

async function until(what: string, check: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`not within ${timeoutMs} ms: ${what}`);
    await sleep(20);
  }
}

async function shardJobIds(queue: Queue): Promise<string[]> {
  const jobs = await queue.getJobs(['waiting', 'active', 'completed', 'failed', 'delayed', 'prioritized']);
  return jobs.map((j) => j.id ?? '').sort();
}

async function parentState(f: SyncFlows): Promise<string | undefined> {
  return (await f.commitQueue.getJob('commit-f'))?.getState();
}

const expectedIds = plan.shards.map((s) => `shard-f-${s.id}`).sort();

describe('SyncFlows.enqueue in slices', () => {
  test('every planned shard job once, each a child of the parent, which runs once they have all finished', async () => {
    const prefix = uniqueName('flow');
    const f = flows(prefix);
    const added: number[] = [];
    await flows(prefix, { sliceAdded: (n) => void added.push(n) }).enqueue(record, 'fp');
    assert.deepEqual(added, [10, 20, 25]);
    assert.deepEqual(await shardJobIds(f.shardQueue), expectedIds);
    const parent = await f.commitQueue.getJob('commit-f');
    assert.ok(parent !== undefined);
    assert.equal(await parent.getState(), 'waiting-children');
    assert.deepEqual(await parent.getDependenciesCount({ unprocessed: true }), { unprocessed: SHARDS });
    // Enqueueing again (a resume after a crash that came after the enqueue) adds nothing.
    await f.enqueue(record, 'fp');
    assert.deepEqual(await shardJobIds(f.shardQueue), expectedIds);
    completer(prefix);
    await until('the parent runnable', async () => (await parentState(f)) === 'waiting');
    assert.equal(await f.shardQueue.getCompletedCount(), SHARDS);
  });

  test('cut off after the first slice: the parent stays held though those jobs finished; enqueued again, the rest is added once and the parent released', async () => {
    const prefix = uniqueName('flow');
    const f = flows(prefix);
    const crashing = flows(prefix, {
      sliceAdded: (n) => {
        if (n === SLICE) throw new Error('coordinator killed mid-enqueue');
      },
    });
    await assert.rejects(crashing.enqueue(record, 'fp'), /killed mid-enqueue/);
    assert.equal((await shardJobIds(f.shardQueue)).length, SLICE);
    completer(prefix);
    await until(`the first ${SLICE} shard jobs completed`, async () => (await f.shardQueue.getCompletedCount()) === SLICE);
    assert.equal(await parentState(f), 'waiting-children', 'the gate holds the parent while slices are missing');
    await f.enqueue(record, 'fp');
    await until('every shard job completed', async () => (await f.shardQueue.getCompletedCount()) === SHARDS);
    assert.deepEqual(await shardJobIds(f.shardQueue), expectedIds);
    await until('the parent runnable', async () => (await parentState(f)) === 'waiting');
    const parent = await f.commitQueue.getJob('commit-f');
    assert.deepEqual(await parent?.getDependenciesCount({ processed: true }), { processed: SHARDS });
  });

  test('every shard job finished before the gate goes: the parent waits for the gate, then runs', async () => {
    const prefix = uniqueName('flow');
    const f = flows(prefix);
    completer(prefix);
    let heldWhileAllDone: string | undefined;
    await flows(prefix, {
      sliceAdded: async (n) => {
        if (n < SHARDS) return;
        await until('every shard job completed', async () => (await f.shardQueue.getCompletedCount()) === SHARDS);
        heldWhileAllDone = await parentState(f);
      },
    }).enqueue(record, 'fp');
    assert.equal(heldWhileAllDone, 'waiting-children');
    assert.equal(await parentState(f), 'waiting', 'removing the gate released the parent');
  });
});
