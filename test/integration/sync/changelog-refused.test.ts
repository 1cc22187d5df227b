/**
 * A sync into a table with changelog-producer = input is not written yet (a sync must net each key
 * across all its shards before the changelog can be computed): its shards refuse the table, the
 * sync ends ABORTED with TABLE_UNSUPPORTED, and nothing is visible.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { ChildProcess } from 'node:child_process';
import type { Coordinator } from '@tributary/coordinator';
import { openTable } from '@tributary/table';
import { createOrdersTable, generatorSource, inProcessCoordinator, listKeys, spawnWorker, stop, syncEnv, waitForPhase } from './harness.ts';

describe('a sync into an input changelog table (real Redis and MinIO, 1 worker process)', () => {
  const e = syncEnv('changelog-refused');
  let coordinator: Coordinator;
  let worker: ChildProcess;

  before(async () => {
    coordinator = await inProcessCoordinator(e);
    worker = await spawnWorker(e);
  });
  after(async () => {
    await stop(worker);
    await coordinator.close();
  });

  test('ends ABORTED with TABLE_UNSUPPORTED; no snapshot, no data file', async () => {
    await createOrdersTable(coordinator, 'shop', 'changes', { primaryKeys: ['order_id'], bucket: 2, options: { 'changelog-producer': 'input' } });
    const response = await coordinator.app.inject({ method: 'POST', url: '/v1/syncs', payload: { table: { database: 'shop', table: 'changes' }, source: generatorSource(2, 20) } });
    assert.equal(response.statusCode, 202, response.body);
    const done = await waitForPhase(() => coordinator.syncs.get(response.json<{ id: string }>().id), ['COMMITTED', 'ABORTED'], 60_000);
    assert.ok(done.state.phase === 'ABORTED', done.state.phase);
    assert.equal(done.state.reason.code, 'TABLE_UNSUPPORTED');
    assert.match(done.state.reason.message, /newChangelogWrite/);
    assert.equal(await (await openTable(e.store, 'shop', 'changes')).latestSnapshot(), null);
    assert.deepEqual((await listKeys(e, 'shop.db/changes/')).filter((k) => k.includes('/data-') || k.includes('/changelog-')), []);
  });
});
