/**
 * Issue cases 1 and 2, with real worker processes:
 * 1. a worker SIGKILLed in the middle of a shard: BullMQ re-runs the stalled job on another
 *    worker and the sync commits with exactly the source rows;
 * 2. two live attempts of one shard (the first worker is frozen with SIGSTOP until its lock
 *    expires and another worker re-runs the shard, then thawed so both run): exactly one attempt is
 *    accepted and no file of the other is referenced by the snapshot.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { ChildProcess } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Coordinator } from '@tributary/coordinator';
import { openTable } from '@tributary/table';
import { createOrdersTable, generatorSource, inProcessCoordinator, oneTo, pypaimonIds, readRows, spawnWorker, stop, syncEnv, waitForPhase } from './harness.ts';

async function startSync(c: Coordinator, table: string, source: Record<string, unknown>): Promise<string> {
  const response = await c.app.inject({ method: 'POST', url: '/v1/syncs', payload: { table: { database: 'shop', table }, source } });
  assert.equal(response.statusCode, 202, response.body);
  return response.json<{ id: string }>().id;
}

async function waitForRunning(c: Coordinator, id: string, count: number): Promise<void> {
  const deadline = Date.now() + 30_000;
  while ((await c.store.attempts(id)).filter((a) => a.status === 'running').length < count) {
    assert.ok(Date.now() < deadline, `${count} attempt(s) running: ${JSON.stringify(await c.store.attempts(id))}`);
    await sleep(50);
  }
}

async function assertExactIds(e: ReturnType<typeof syncEnv>, table: string, total: number): Promise<void> {
  const ids = (await readRows(e, 'shop', table)).map((r) => r[0] as bigint).sort((a, b) => Number(a - b));
  assert.equal(ids.length, total);
  assert.deepEqual(ids, oneTo(total), 'each source row exactly once');
  assert.deepEqual(await pypaimonIds(e, 'shop', table), oneTo(total), 'pypaimon reads each source row exactly once');
}

describe('worker faults (real processes, short BullMQ locks)', () => {
  const e = syncEnv('wfault');
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
    const id = await startSync(coordinator, 'killed', generatorSource(2, 2000, { batchRows: 100, faults: { delayMsPerBatch: 50 } }));
    await waitForRunning(coordinator, id, 1);
    await sleep(300);
    await stop(first, 'SIGKILL');
    workers.push(await spawnWorker(e));
    const done = await waitForPhase(() => coordinator.syncs.get(id), ['COMMITTED', 'ABORTED'], 60_000);
    assert.equal(done.state.phase, 'COMMITTED', JSON.stringify(done.state));
    await assertExactIds(e, 'killed', 4000);
    const attempts = await coordinator.store.attempts(id);
    const killed = attempts.find((a) => a.status === 'running');
    assert.ok(killed !== undefined, 'the killed attempt never finished');
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
    const id = await startSync(coordinator, 'twice', generatorSource(1, 6000, { batchRows: 100, faults: { delayMsPerBatch: 100 } }));
    await waitForRunning(coordinator, id, 1);
    await sleep(500);
    frozen.kill('SIGSTOP'); // its lock expires; the stalled check hands the job to the next worker
    const other = await spawnWorker(e);
    workers.push(other);
    await waitForRunning(coordinator, id, 2);
    frozen.kill('SIGCONT'); // now both attempts run at once
    const done = await waitForPhase(() => coordinator.syncs.get(id), ['COMMITTED', 'ABORTED'], 60_000);
    assert.ok(done.state.phase === 'COMMITTED', done.state.phase);
    // Let the slower attempt finish too.
    const deadline = Date.now() + 20_000;
    while ((await coordinator.store.attempts(id)).some((a) => a.status === 'running')) {
      assert.ok(Date.now() < deadline, 'both attempts ended');
      await sleep(100);
    }
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
    assert.ok(referenced.every((name) => name.includes(`-shard-00000-a${winner}-`)), `only the winner's files: ${referenced.join(', ')}`);
    assert.ok(!referenced.some((name) => name.includes(`-a${loser.attemptId}-`)));
    await assertExactIds(e, 'twice', 6000);
  });
});
