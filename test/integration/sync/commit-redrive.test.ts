/**
 * A commit job whose every try fails (storage or Redis away longer than its retries last) does not
 * leave its sync waiting for a coordinator restart: the coordinator drives the sync again later, as
 * a restart would, and the sync commits exactly once when the fault clears. Here the publish step
 * fails on its first three tries (two tries of the commit job, then the first of the redrive).
 */
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { after, before, describe, test } from 'node:test';
import type { Coordinator } from '@tributary/coordinator';
import { openTable } from '@tributary/table';
import { createOrdersTable, explainSync, generatorSource, inProcessCoordinator, readRows, spawnWorker, stop, syncEnv, waitForPhase } from './harness.ts';

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
