/**
 * Workers that die or hang in the middle of a shard, with real worker processes:
 * 1. a worker SIGKILLed in the middle of a shard: BullMQ re-runs the stalled job on another
 *    worker and the sync commits with exactly the source rows; the dead attempt is shown
 *    `abandoned` from the moment its re-run starts, never `running` for ever;
 * 2. two live attempts of one shard (the first worker is frozen with SIGSTOP until its lock
 *    expires and another worker re-runs the shard, then thawed so both run): exactly one attempt is
 *    accepted and no file of the other is referenced by the snapshot.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { ChildProcess } from 'node:child_process';
import type { Coordinator } from '@tributary/coordinator';
import type { ShardAttempt } from '@tributary/protocol';
import { openTable } from '@tributary/table';
import {
  createOrdersTable,
  generatorSource,
  inProcessCoordinator,
  oneTo,
  pypaimonIds,
  readRows,
  shardProgressRows,
  spawnWorker,
  stop,
  syncEnv,
  waitForPhase,
  waitUntil,
  LAYOUTS,
  type Layout,
} from './harness.ts';
import { Redis } from 'ioredis';
import { services } from '@tributary/testkit';
import { syncRedisKeys } from '@tributary/protocol';

/** The run files the persisted bucket plan of a bucketed sync lists, over all its buckets. */
async function plannedRuns(prefix: string, syncId: string): Promise<string[]> {
  const redis = new Redis(services.redis);
  try {
    const plan = await redis.hgetall(syncRedisKeys(prefix, syncId).plan);
    return Object.entries(plan)
      .filter(([field]) => field.startsWith('bucket:'))
      .flatMap(([, json]) => (JSON.parse(json) as { runs: { fileName: string }[] }).runs.map((r) => r.fileName));
  } finally {
    redis.disconnect();
  }
}

async function startSync(c: Coordinator, table: string, source: Record<string, unknown>, layout: Layout): Promise<string> {
  const response = await c.app.inject({ method: 'POST', url: '/v1/syncs', payload: { table: { database: 'shop', table }, source, options: { layout } } });
  assert.equal(response.statusCode, 202, response.body);
  return response.json<{ id: string }>().id;
}

async function waitForRunning(c: Coordinator, id: string, count: number): Promise<ShardAttempt[]> {
  return waitUntil(async () => {
    const running = (await c.store.attempts(id)).filter((a) => a.status === 'running');
    return running.length >= count && running;
  }, `${count} attempt(s) running`);
}

/** Waits until a running attempt's shard has written rows: the worker is in the middle of it. */
async function waitForMidShard(e: ReturnType<typeof syncEnv>, c: Coordinator, id: string): Promise<ShardAttempt> {
  const [running] = await waitForRunning(c, id, 1);
  assert.ok(running !== undefined);
  await waitUntil(async () => (await shardProgressRows(e, id, running.shardId)) > 0, `shard ${running.shardId} wrote rows`);
  return running;
}

async function assertExactIds(e: ReturnType<typeof syncEnv>, table: string, total: number): Promise<void> {
  const ids = (await readRows(e, 'shop', table)).map((r) => r[0] as bigint).sort((a, b) => Number(a - b));
  assert.equal(ids.length, total);
  assert.deepEqual(ids, oneTo(total), 'each source row exactly once');
  assert.deepEqual(await pypaimonIds(e, 'shop', table), oneTo(total), 'pypaimon reads each source row exactly once');
}

for (const layout of LAYOUTS) describe(`worker faults (real processes, short BullMQ locks, layout ${layout})`, () => {
  const e = syncEnv(`wfault-${layout}`);
  let coordinator: Coordinator;
  const workers: ChildProcess[] = [];

  before(async () => {
    coordinator = await inProcessCoordinator(e);
  });
  after(async () => {
    for (const w of workers) w.kill('SIGCONT'); // a worker frozen by a failed test must wake to stop
    await Promise.all(workers.map((w) => stop(w)));
    await coordinator.close();
  });

  test('case 1: a worker killed mid-shard; the shard is re-run elsewhere and the sync commits', async () => {
    await createOrdersTable(coordinator, 'shop', 'killed');
    const first = await spawnWorker(e);
    workers.push(first);
    const id = await startSync(coordinator, 'killed', generatorSource(2, 2000, { batchRows: 100, faults: { delayMsPerBatch: 50 } }), layout);
    const killed = await waitForMidShard(e, coordinator, id);
    await stop(first, 'SIGKILL');
    workers.push(await spawnWorker(e));
    // Once its job is re-run, the dead attempt no longer claims to be running.
    const dead = await waitUntil(async () => {
      const attempts = await coordinator.store.attempts(id);
      const rerunStarted = attempts.some((a) => a.shardId === killed.shardId && a.attemptId !== killed.attemptId);
      return rerunStarted && attempts.find((a) => a.shardId === killed.shardId && a.attemptId === killed.attemptId);
    }, 'the killed shard re-ran');
    assert.equal(dead.status, 'abandoned', JSON.stringify(dead));
    const done = await waitForPhase(() => coordinator.syncs.get(id), ['COMMITTED', 'ABORTED'], 60_000);
    assert.equal(done.state.phase, 'COMMITTED', JSON.stringify(done.state));
    await assertExactIds(e, 'killed', 4000);
    const attempts = await coordinator.store.attempts(id);
    assert.ok(attempts.every((a) => a.status !== 'running'), JSON.stringify(attempts));
    const view = await coordinator.app.inject({ method: 'GET', url: `/v1/syncs/${id}` });
    const shown = view.json<{ shards: { id: string; attempts: ShardAttempt[] }[] }>().shards.find((s) => s.id === killed.shardId);
    assert.equal(shown?.attempts.find((a) => a.attemptId === killed.attemptId)?.status, 'abandoned', 'the API shows the dead attempt abandoned');
    const openApi = await coordinator.app.inject({ method: 'GET', url: '/docs/json' });
    assert.ok(openApi.body.includes('"abandoned"'), 'the OpenAPI document lists the status');
    const rerun = attempts.filter((a) => a.shardId === killed.shardId && a.status === 'succeeded');
    assert.equal(rerun.length, 1);
    assert.equal(rerun[0]?.accepted, true);
    await Promise.all(workers.map((w) => stop(w))); // case 2 needs to know which worker holds its shard
  });

  test('case 2: two live attempts of one shard; exactly one is accepted, the other is never referenced', async () => {
    await createOrdersTable(coordinator, 'shop', 'twice');
    const frozen = await spawnWorker(e);
    workers.push(frozen);
    // One shard of 60 batches × 100 ms: about 6 s.
    const id = await startSync(coordinator, 'twice', generatorSource(1, 6000, { batchRows: 100, faults: { delayMsPerBatch: 100 } }), layout);
    await waitForMidShard(e, coordinator, id);
    frozen.kill('SIGSTOP'); // its lock expires; the stalled check hands the job to the next worker
    const other = await spawnWorker(e);
    workers.push(other);
    // The re-run's start marks the frozen attempt abandoned (it lost its job), though it is alive.
    await waitUntil(async () => {
      const attempts = await coordinator.store.attempts(id);
      return attempts.length === 2 && attempts.some((a) => a.status === 'running');
    }, 'the shard re-ran on the other worker');
    frozen.kill('SIGCONT'); // now both attempts run at once
    const done = await waitForPhase(() => coordinator.syncs.get(id), ['COMMITTED', 'ABORTED'], 60_000);
    assert.ok(done.state.phase === 'COMMITTED', done.state.phase);
    // Let the slower attempt finish too: it reports its own outcome over the abandoned mark.
    await waitUntil(async () => (await coordinator.store.attempts(id)).every((a) => a.status === 'succeeded' || a.status === 'failed'), 'both attempts ended', 60_000);
    const attempts = await coordinator.store.attempts(id);
    assert.equal(attempts.length, 2);
    const accepted = attempts.filter((a) => a.accepted === true);
    assert.equal(accepted.length, 1, JSON.stringify(attempts));
    const winner = accepted[0]?.attemptId;
    assert.equal(done.state.accepted['shard-00000']?.attemptId, winner);
    const loser = attempts.find((a) => a.attemptId !== winner);
    assert.ok(loser !== undefined);

    const table = await openTable(e.store, 'shop', 'twice');
    const referenced = (await table.newRead().plan()).map((entry) => entry.file.fileName);
    assert.ok(referenced.length > 0);
    // Bucketed: the table holds the bucket jobs' files, merged from the runs the bucket plan lists.
    const written = layout === 'direct' ? referenced : await plannedRuns(e.prefix, id);
    assert.ok(written.length > 0);
    assert.ok(written.every((name) => name.includes(`-shard-00000-a${winner}-`)), `only the winner's files: ${written.join(', ')}`);
    assert.ok(!written.some((name) => name.includes(`-a${loser.attemptId}-`)));
    if (layout === 'bucketed') assert.ok(referenced.every((name) => /-bucket-\d+-a\d+-/.test(name)), referenced.join(', '));
    await assertExactIds(e, 'twice', 6000);
  });
});
