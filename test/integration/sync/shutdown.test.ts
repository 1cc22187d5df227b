/**
 * Graceful shutdown with real processes. SIGTERM to a worker in the middle of a shard: with a long
 * grace it finishes the shard and takes no other; with a short one it releases the shard to the
 * queue (WORKER_SHUTTING_DOWN) and another worker runs it. SIGTERM to a coordinator mid-sync: it
 * exits 0 and a restarted coordinator commits the sync. Each sync commits with exactly its rows.
 * The shard cases run in both layouts (`direct`, and `bucketed`, whose bucket jobs then merge the
 * runs). And a coordinator shutting down refuses new syncs with a 503 problem while /readyz says so.
 */
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { after, describe, test } from 'node:test';
import { Redis } from 'ioredis';
import { SyncStore } from '@tributary/coordinator';
import { services } from '@tributary/testkit';
import {
  LAYOUTS,
  ORDERS_COLUMNS,
  createOrdersTable,
  generatorSource,
  inProcessCoordinator,
  oneTo,
  outputOf,
  readRows,
  spawnListeningCoordinator,
  spawnWorker,
  stop,
  syncEnv,
  waitForPhase,
  waitUntil,
  type Layout,
  type SyncEnv,
} from './harness.ts';

const redis = new Redis({ ...services.redis, maxRetriesPerRequest: null });
after(() => redis.quit());

interface Attempt {
  attemptId: string;
  status: string;
  error?: { code: string };
}
interface ShardView {
  id: string;
  acceptedAttempt: string | null;
  rows: number | null;
  attempts: Attempt[];
}

const SHARDS = 2;
const ROWS = 20_000;
/**
 * 200 batches of 100 rows, 50 ms each: a shard runs at least ten seconds, so a shard seen less than
 * half done is still running after a second worker has started on a loaded machine (at two seconds
 * it sometimes finished first, and the test then saw no shard to finish or release).
 */
const slowSource = () => generatorSource(SHARDS, ROWS, { batchRows: 100, faults: { delayMsPerBatch: 50 } });

async function startSync(url: string, layout: Layout): Promise<string> {
  const post = (path: string, body: unknown) => fetch(`${url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  assert.equal((await post('/v1/tables', { database: 'shop', name: 'orders', columns: ORDERS_COLUMNS })).status, 201);
  const started = await post('/v1/syncs', { table: { database: 'shop', table: 'orders' }, source: slowSource(), options: { layout } });
  assert.equal(started.status, 202);
  return ((await started.json()) as { id: string }).id;
}

/** A shard that has reported rows and is far from done. */
async function runningShard(url: string, id: string): Promise<ShardView> {
  return waitUntil(async () => {
    const view = (await (await fetch(`${url}/v1/syncs/${id}`)).json()) as { shards: ShardView[] };
    return view.shards.find((s) => s.acceptedAttempt === null && (s.rows ?? 0) > 0 && (s.rows ?? 0) < ROWS / 2);
  }, 'a shard in the middle of its work');
}

async function exitCode(child: ChildProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<number | null> {
  const exited = once(child, 'exit') as Promise<[number | null, string | null]>;
  child.kill(signal);
  const [code] = await exited;
  return code;
}

async function expectCommittedExactly(e: SyncEnv, id: string): Promise<void> {
  const done = await waitForPhase(() => new SyncStore(redis, e.prefix).require(id), ['COMMITTED', 'ABORTED'], 120_000);
  assert.equal(done.state.phase, 'COMMITTED', JSON.stringify(done.state));
  const ids = (await readRows(e, 'shop', 'orders')).map((r) => r[0] as bigint).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  assert.deepEqual(ids, oneTo(SHARDS * ROWS), 'each row exactly once');
}

function logLines(child: ChildProcess): Record<string, unknown>[] {
  return outputOf(child)
    .split('\n')
    .filter((l) => l.startsWith('{"level"'))
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

for (const layout of LAYOUTS) describe(`graceful shutdown (real processes, layout ${layout})`, () => {
  const processes: ChildProcess[] = [];
  after(async () => {
    await Promise.all(processes.map((p) => stop(p, 'SIGKILL')));
  });

  test('SIGTERM to a worker with a long grace: it finishes its shard, takes no other, exits 0; the sync commits', async () => {
    const e = syncEnv(`term-finish-${layout}`);
    const { child, url } = await spawnListeningCoordinator(e);
    processes.push(child);
    // The production lock (30 s), not the tests' 3 s: a worker starved for a few seconds on a loaded
    // machine would lose its shard to a re-run and this case is about shutdown, not lost locks.
    const a = await spawnWorker(e, { TRIBUTARY_SHUTDOWN_GRACE_MS: '60000', TRIBUTARY_LOCK_MS: '30000', TRIBUTARY_STALLED_MS: '30000' });
    processes.push(a);
    const id = await startSync(url, layout);
    const shard = await runningShard(url, id);
    const b = await spawnWorker(e);
    processes.push(b);
    assert.equal(await exitCode(a), 0);
    const linesA = logLines(a);
    const startedA = linesA.filter((l) => l.msg === 'shard attempt started');
    assert.deepEqual(
      startedA.map((l) => l.shardId),
      [shard.id],
      'the stopping worker ran only the shard it had',
    );
    assert.ok(linesA.some((l) => l.msg === 'shard attempt succeeded' && l.shardId === shard.id && l.syncId === id), 'and finished it');
    await expectCommittedExactly(e, id);
    const view = (await (await fetch(`${url}/v1/syncs/${id}`)).json()) as { shards: ShardView[] };
    const attempts = view.shards.flatMap((s) => s.attempts);
    assert.ok(attempts.every((t) => t.error?.code !== 'WORKER_SHUTTING_DOWN'), JSON.stringify(attempts));
  });

  test('SIGTERM to a worker with a short grace: its shard goes back to the queue, another worker runs it; the sync commits', async () => {
    const e = syncEnv(`term-release-${layout}`);
    const { child, url } = await spawnListeningCoordinator(e);
    processes.push(child);
    const a = await spawnWorker(e, { TRIBUTARY_SHUTDOWN_GRACE_MS: '100' });
    processes.push(a);
    const id = await startSync(url, layout);
    const shard = await runningShard(url, id);
    const b = await spawnWorker(e);
    processes.push(b);
    assert.equal(await exitCode(a), 0);
    assert.ok(
      logLines(a).some((l) => l.msg === 'shard attempt failed' && l.code === 'WORKER_SHUTTING_DOWN' && l.shardId === shard.id),
      'the shard was released, not finished',
    );
    await expectCommittedExactly(e, id);
    const view = (await (await fetch(`${url}/v1/syncs/${id}`)).json()) as { shards: ShardView[] };
    const released = view.shards.find((s) => s.id === shard.id);
    assert.ok(released?.attempts.some((t) => t.status === 'failed' && t.error?.code === 'WORKER_SHUTTING_DOWN'), JSON.stringify(released));
    assert.notEqual(released?.acceptedAttempt, '1', 'a later attempt (on the other worker) was accepted');
    assert.equal(released?.rows, ROWS);
  });

  test('SIGTERM to the coordinator mid-sync: it exits 0, a restarted coordinator commits the sync', async () => {
    const e = syncEnv(`term-coord-${layout}`);
    const first = await spawnListeningCoordinator(e);
    processes.push(first.child);
    processes.push(...(await Promise.all([spawnWorker(e), spawnWorker(e)])));
    const id = await startSync(first.url, layout);
    await runningShard(first.url, id);
    assert.equal(await exitCode(first.child), 0);
    assert.ok(logLines(first.child).some((l) => l.msg === 'shut down'));
    const second = await spawnListeningCoordinator(e);
    processes.push(second.child);
    await expectCommittedExactly(e, id);
  });
});

describe('a coordinator shutting down', () => {
  test('refuses new syncs with 503 COORDINATOR_SHUTTING_DOWN and is not ready, while it finishes', async () => {
    const e = syncEnv('draining');
    const c = await inProcessCoordinator(e);
    await createOrdersTable(c, 'shop', 'orders');
    const closing = c.close();
    const [refused, ready] = await Promise.all([
      c.app.inject({ method: 'POST', url: '/v1/syncs', payload: { table: { database: 'shop', table: 'orders' }, source: generatorSource(1, 10) } }),
      c.app.inject({ method: 'GET', url: '/readyz' }),
    ]);
    await closing;
    assert.equal(refused.statusCode, 503);
    const problem = refused.json<{ code: string; retryable: boolean }>();
    assert.deepEqual({ code: problem.code, retryable: problem.retryable }, { code: 'COORDINATOR_SHUTTING_DOWN', retryable: true });
    assert.ok(Number(refused.headers['retry-after']) > 0);
    assert.equal(ready.statusCode, 503);
    assert.deepEqual(ready.json<{ checks: { accepting: { ok: boolean } } }>().checks.accepting.ok, false);
    assert.deepEqual(await new SyncStore(redis, e.prefix).list({ limit: 10 }), [], 'no sync was created');
  });
});
