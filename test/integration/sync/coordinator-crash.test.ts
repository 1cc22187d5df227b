/**
 * The coordinator process SIGKILLs itself just after publishing the snapshot
 * (before recording the outcome), or just before publishing; a new coordinator process resumes the
 * sync, which ends COMMITTED with exactly one snapshot carrying its identity and each row once.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { Redis } from 'ioredis';
import { SyncStore, type SyncRecord } from '@tributary/coordinator';
import { openTable } from '@tributary/table';
import { services } from '@tributary/testkit';
import { LAYOUTS, ORDERS_COLUMNS, generatorSource, oneTo, pypaimonIds, readRows, spawnCoordinator, spawnWorker, stop, syncEnv, waitForPhase } from './harness.ts';

const redis = new Redis({ ...services.redis, maxRetriesPerRequest: null });
let nextPort = 18_400 + Math.floor(Math.random() * 500) * 2;

async function post(port: number, path: string, body: unknown): Promise<{ status: number; json: Record<string, unknown> }> {
  const response = await fetch(`http://127.0.0.1:${port}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: response.status, json: (await response.json()) as Record<string, unknown> };
}

for (const point of ['after-publish', 'before-publish'] as const) for (const layout of LAYOUTS) {
  describe(`case ${point === 'after-publish' ? 3 : 4}: coordinator killed ${point.replace('-', ' ')} (layout ${layout})`, () => {
    const e = syncEnv(`${point === 'after-publish' ? 'crash3' : 'crash4'}-${layout}`);
    const store = new SyncStore(redis, e.prefix);
    const processes: ChildProcess[] = [];

    before(async () => {
      processes.push(...(await Promise.all([spawnWorker(e), spawnWorker(e)])));
    });
    after(async () => {
      await Promise.all(processes.map((p) => stop(p)));
    });

    test('a restarted coordinator ends the sync COMMITTED with exactly one snapshot', async () => {
      const port = nextPort++;
      const doomed = await spawnCoordinator(e, port, { TRIBUTARY_FAULT_KILL_AT: point });
      processes.push(doomed);
      const died = once(doomed, 'exit');
      const created = await post(port, '/v1/tables', { database: 'shop', name: 'orders', columns: ORDERS_COLUMNS });
      assert.equal(created.status, 201, JSON.stringify(created.json));
      const started = await post(port, '/v1/syncs', { table: { database: 'shop', table: 'orders' }, source: generatorSource(4, 250), options: { layout } });
      assert.equal(started.status, 202, JSON.stringify(started.json));
      const id = String(started.json.id);
      const [, signal] = (await died) as [number | null, string | null];
      assert.equal(signal, 'SIGKILL');

      const orphaned = await store.require(id);
      assert.equal(orphaned.state.phase, 'COMMITTING', 'the outcome was not recorded');
      const table = await openTable(e.store, 'shop', 'orders');
      assert.equal(Number((await table.latestSnapshot())?.id ?? 0), point === 'after-publish' ? 1 : 0);

      processes.push(await spawnCoordinator(e, nextPort++));
      const done: SyncRecord = await waitForPhase(() => store.require(id), ['COMMITTED', 'ABORTED'], 60_000);
      assert.ok(done.state.phase === 'COMMITTED', done.state.phase);
      assert.equal(done.state.snapshotId, 1);
      const latest = await table.latestSnapshot();
      assert.equal(Number(latest?.id), 1, 'exactly one snapshot');
      assert.equal(latest?.commitUser, done.plan.commitUser);
      const ids = (await readRows(e, 'shop', 'orders')).map((r) => r[0] as bigint).sort((a, b) => Number(a - b));
      assert.deepEqual(ids, oneTo(1000));
      assert.deepEqual(await pypaimonIds(e, 'shop', 'orders'), oneTo(1000), 'pypaimon reads each row once');
    });
  });
}

after(() => redis.quit());
