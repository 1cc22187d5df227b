/**
 * A shard that fails for good, and an explicit abort while shards run: the sync ends
 * ABORTED with a typed reason, no snapshot exists, and every staged file is gone.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { ChildProcess } from 'node:child_process';
import type { Coordinator, SyncRecord } from '@tributary/coordinator';
import { openTable } from '@tributary/table';
import {
  createOrdersTable,
  generatorSource,
  inProcessCoordinator,
  listKeys,
  pypaimonRead,
  shardProgressRows,
  spawnWorker,
  stop,
  syncEnv,
  waitForPhase,
  waitUntil,
  LAYOUTS,
  type Layout,
  type SyncEnv,
} from './harness.ts';

async function startSync(c: Coordinator, table: string, source: Record<string, unknown>, layout: Layout): Promise<string> {
  const response = await c.app.inject({ method: 'POST', url: '/v1/syncs', payload: { table: { database: 'shop', table }, source, options: { layout } } });
  assert.equal(response.statusCode, 202, response.body);
  return response.json<{ id: string }>().id;
}

async function assertNothingStaged(e: SyncEnv, record: SyncRecord, table: string): Promise<void> {
  const left = await listKeys(e, `.tributary/syncs/${record.id}/`);
  assert.deepEqual(left.filter((k) => !k.endsWith('/outcome.json')), [], 'no staged blob left, only the outcome summary');
  const dataFiles = (await listKeys(e, `shop.db/${table}/`)).filter((k) => k.includes(`/data-${record.id}-`));
  assert.deepEqual(dataFiles, [], 'no data file of the sync left');
  assert.equal(await (await openTable(e.store, 'shop', table)).latestSnapshot(), null, 'no snapshot');
  assert.deepEqual(await pypaimonRead(e, 'shop', table), { snapshotId: null, rows: [] }, 'pypaimon sees no snapshot and no row');
}

for (const layout of LAYOUTS) describe(`aborts (real Redis and MinIO, 2 worker processes, layout ${layout})`, () => {
  const e = syncEnv(`abort-${layout}`);
  let coordinator: Coordinator;
  const workers: ChildProcess[] = [];

  before(async () => {
    coordinator = await inProcessCoordinator(e);
    workers.push(...(await Promise.all([spawnWorker(e), spawnWorker(e)])));
  });
  after(async () => {
    await Promise.all(workers.map((w) => stop(w)));
    await coordinator.close();
  });

  test('case 5: a row that cannot be converted aborts the sync with its shard, position and column', async () => {
    await createOrdersTable(coordinator, 'shop', 'bad_row');
    const id = await startSync(coordinator, 'bad_row', generatorSource(8, 400, { batchRows: 50, faults: { badRow: { shard: 3, position: 123 } } }), layout);
    const done = await waitForPhase(() => coordinator.syncs.get(id), ['COMMITTED', 'ABORTED'], 60_000);
    assert.equal(done.state.phase, 'ABORTED');
    assert.ok(done.state.phase === 'ABORTED');
    assert.equal(done.state.reason.code, 'SOURCE_ROW_INVALID');
    assert.deepEqual(
      { shard: done.state.reason.context.shard, position: done.state.reason.context.position, column: done.state.reason.context.column },
      { shard: 'shard-00003', position: 123, column: 'amount' },
    );
    assert.equal(done.state.stagedDeleted, true);
    await assertNothingStaged(e, done, 'bad_row');
    // A deterministic failure is not retried: the shard ran once.
    const attempts = (await coordinator.store.attempts(id)).filter((a) => a.shardId === 'shard-00003');
    assert.equal(attempts.length, 1);
  });

  test('case 6: an explicit abort while shards run stops them, removes staged files, commits nothing', async () => {
    await createOrdersTable(coordinator, 'shop', 'aborted');
    // 8 shards of 40 batches × 100 ms: about 4 s each, 16 s for the whole sync on 2 workers.
    const id = await startSync(coordinator, 'aborted', generatorSource(8, 4000, { batchRows: 100, faults: { delayMsPerBatch: 100 } }), layout);
    // Two shards started and wrote some batches.
    await waitUntil(async () => {
      const running = (await coordinator.store.attempts(id)).filter((a) => a.status === 'running');
      if (running.length < 2) return false;
      const rows = await Promise.all(running.map((a) => shardProgressRows(e, id, a.shardId)));
      return rows.filter((n) => n > 0).length >= 2;
    }, 'two shards are writing', 20_000);
    const abortedAt = Date.now();
    const response = await coordinator.app.inject({ method: 'POST', url: `/v1/syncs/${id}/abort`, payload: { reason: 'operator said stop' } });
    assert.equal(response.statusCode, 202, response.body);
    const done = await waitForPhase(() => coordinator.syncs.get(id), ['COMMITTED', 'ABORTED'], 30_000);
    assert.ok(Date.now() - abortedAt < 8000, `aborted in ${Date.now() - abortedAt} ms, well before the shards would have finished`);
    assert.ok(done.state.phase === 'ABORTED', done.state.phase);
    assert.equal(done.state.reason.code, 'SYNC_ABORT_REQUESTED');
    assert.equal(done.state.reason.message, 'operator said stop');
    await assertNothingStaged(e, done, 'aborted');
    const attempts = await coordinator.store.attempts(id);
    assert.ok(attempts.every((a) => a.status !== 'running'), 'no attempt still running');
    assert.ok(attempts.every((a) => a.accepted !== true), 'no attempt was accepted');
    // Aborting again is a no-op; aborting a committed sync is refused (tested in the state table).
    const again = await coordinator.app.inject({ method: 'POST', url: `/v1/syncs/${id}/abort` });
    assert.equal(again.statusCode, 202, again.body);
  });
});

describe('prepare timeout (no worker is running)', () => {
  const e = syncEnv('timeout');
  let coordinator: Coordinator;
  before(async () => {
    coordinator = await inProcessCoordinator(e);
  });
  after(() => coordinator.close());

  test('a sync nobody works on ends ABORTED with SYNC_PREPARE_TIMEOUT instead of waiting for ever', async () => {
    await createOrdersTable(coordinator, 'shop', 'idle');
    const response = await coordinator.app.inject({
      method: 'POST',
      url: '/v1/syncs',
      payload: { table: { database: 'shop', table: 'idle' }, source: generatorSource(4, 100), options: { prepareTimeoutMs: 1500 } },
    });
    assert.equal(response.statusCode, 202, response.body);
    const id = response.json<{ id: string }>().id;
    const done = await waitForPhase(() => coordinator.syncs.get(id), ['COMMITTED', 'ABORTED'], 60_000);
    assert.ok(done.state.phase === 'ABORTED', done.state.phase);
    assert.equal(done.state.reason.code, 'SYNC_PREPARE_TIMEOUT');
    await assertNothingStaged(e, done, 'idle');
  });
});
