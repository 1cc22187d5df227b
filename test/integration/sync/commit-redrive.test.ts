/**
 * A commit job whose every try fails (storage or Redis away longer than its retries last) does not
 * leave its sync waiting for a coordinator restart: the coordinator drives the sync again later, as
 * a restart would, and the sync commits exactly once when the fault clears. Here the publish step
 * fails on its first three tries (two tries of the commit job, then the first of the redrive).
 *
 * And a commit job whose lock lapses (the coordinator's event loop held past the lock, as a starved
 * or very busy coordinator is) is run again, not failed: the sync commits at once, without waiting
 * for a redrive.
 */
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { after, before, describe, test } from 'node:test';
import type { Coordinator } from '@tributary/coordinator';
import { openTable } from '@tributary/table';
import { Queue } from 'bullmq';
import { services } from '@tributary/testkit';
import { FAST_LOCKS, createOrdersTable, explainSync, generatorSource, inProcessCoordinator, readRows, spawnWorker, stop, syncEnv, waitForPhase, waitUntil } from './harness.ts';

describe('a sync whose commit job used every try', () => {
  const e = syncEnv('commit-redrive');
  let coordinator: Coordinator;
  let worker: ChildProcess;
  let publishTries = 0;
  const FAILING_TRIES = 3;

  before(async () => {
    coordinator = await inProcessCoordinator(e, {
      commitAttempts: 2,
      redriveDelayMs: 300,
      faultPoint: (point) => {
        if (point !== 'before-publish') return;
        publishTries++;
        if (publishTries <= FAILING_TRIES) throw new Error(`injected publish failure ${publishTries}`);
      },
    });
    worker = await spawnWorker(e);
  });
  after(async () => {
    await stop(worker);
    await coordinator.close();
  });

  test('is driven again and commits exactly one snapshot once the fault clears', async () => {
    await createOrdersTable(coordinator, 'shop', 'redriven');
    const started = await coordinator.app.inject({ method: 'POST', url: '/v1/syncs', payload: { table: { database: 'shop', table: 'redriven' }, source: generatorSource(2, 50) } });
    assert.equal(started.statusCode, 202, started.body);
    const id = started.json<{ id: string }>().id;
    const done = await waitForPhase(() => coordinator.syncs.get(id), ['COMMITTED', 'ABORTED'], 120_000, (syncId) => explainSync(coordinator, syncId));
    assert.equal(done.state.phase, 'COMMITTED', JSON.stringify(done.state));
    assert.equal(publishTries, FAILING_TRIES + 1, 'two tries of the commit job, two of the redrive');
    const table = await openTable(e.store, 'shop', 'redriven');
    assert.deepEqual(await table.snapshots.listIds(), [1]);
    assert.equal((await readRows(e, 'shop', 'redriven')).length, 100);
  });
});

describe('a commit job whose lock lapses', () => {
  const e = syncEnv('commit-stall');
  let coordinator: Coordinator;
  let worker: ChildProcess;
  const blocked = new Set<string>();

  before(async () => {
    coordinator = await inProcessCoordinator(e, {
      faultPoint: (point) => {
        // Once before the publish and once after it: the job stalls, and stalls again when its
        // second run was taken before the second hold (BullMQ's default fails a job on its second
        // stall). Each holds the event loop past the commit job's lock (FAST_LOCKS: 3 s).
        if (blocked.has(point)) return;
        blocked.add(point);
        const until = Date.now() + FAST_LOCKS.lockDurationMs + 1500;
        while (Date.now() < until) {
          // busy: a coordinator that does not get the CPU
        }
      },
    });
    worker = await spawnWorker(e);
  });
  after(async () => {
    await stop(worker);
    await coordinator.close();
  });

  test('is run again rather than failed; the sync commits one snapshot without a redrive', async () => {
    await createOrdersTable(coordinator, 'shop', 'stalled');
    const started = await coordinator.app.inject({ method: 'POST', url: '/v1/syncs', payload: { table: { database: 'shop', table: 'stalled' }, source: generatorSource(2, 50) } });
    assert.equal(started.statusCode, 202, started.body);
    const id = started.json<{ id: string }>().id;
    const done = await waitForPhase(() => coordinator.syncs.get(id), ['COMMITTED', 'ABORTED'], 60_000, (syncId) => explainSync(coordinator, syncId));
    assert.equal(done.state.phase, 'COMMITTED', JSON.stringify(done.state));
    assert.equal(blocked.size, 2);
    const queue = new Queue('commit', { connection: { host: services.redis.host, port: services.redis.port }, prefix: e.prefix });
    try {
      const job = await waitUntil(async () => {
        const j = await queue.getJob(`commit-${id}`);
        const state = await j?.getState();
        return (state === 'completed' || state === 'failed') && j !== undefined && { j, state };
      }, 'the commit job ended');
      assert.equal(job.state, 'completed', `commit job ${job.state}: ${job.j.failedReason}`);
      assert.ok(job.j.stalledCounter >= 1, 'the lock lapsed and the job was run again');
      assert.equal(await queue.getJob(`redrive-${id}`), undefined, 'no redrive was needed');
    } finally {
      await queue.close();
    }
    const table = await openTable(e.store, 'shop', 'stalled');
    assert.deepEqual(await table.snapshots.listIds(), [1]);
    assert.equal((await readRows(e, 'shop', 'stalled')).length, 100);
  });
});
