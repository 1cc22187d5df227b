/**
 * The coordinator process SIGKILLs itself just after publishing a compaction's COMPACT snapshot,
 * before recording COMMITTED, or just before publishing (the sync commit's crash hook,
 * `TRIBUTARY_FAULT_KILL_AT`). A new coordinator process resumes the compaction: after the publish,
 * the commit finds its own snapshot by identity (no second COMPACT snapshot); before it, the commit
 * publishes it. Either way the compaction ends COMMITTED with exactly one COMPACT snapshot, and
 * Tributary and Paimon Java read exactly the rows the table held before the compaction.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { Redis } from 'ioredis';
import { compactionRedisKeys } from '@tributary/protocol';
import { openTable } from '@tributary/table';
import { canonicalRows, paimonJava, readResults, services, type OracleRow } from '@tributary/testkit';
import { ORDERS_COLUMNS, generatorSource, inProcessCoordinator, readRows, spawnCoordinator, spawnWorker, stop, syncEnv, waitForPhase, waitUntil } from './harness.ts';

const redis = new Redis({ ...services.redis, maxRetriesPerRequest: null });
let nextPort = 19_400 + Math.floor(Math.random() * 400) * 2;

interface CompactionView {
  readonly id: string;
  readonly phase: string;
  readonly snapshotId: number | null;
  readonly jobs: number;
  readonly filesAfter: number | null;
}

async function call(port: number, method: 'GET' | 'POST', path: string, body?: unknown): Promise<{ status: number; json: Record<string, unknown> }> {
  const response = await fetch(`http://127.0.0.1:${port}${path}`, {
    method,
    ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
  });
  return { status: response.status, json: (await response.json()) as Record<string, unknown> };
}

for (const point of ['after-publish', 'before-publish'] as const) describe(`coordinator killed ${point.replace('-', ' ')} of a COMPACT snapshot`, () => {
  const e = syncEnv(`compaction-crash-${point}`);
  const processes: ChildProcess[] = [];

  before(async () => {
    processes.push(...(await Promise.all([spawnWorker(e), spawnWorker(e)])));
  });
  after(async () => {
    await Promise.all(processes.map((p) => stop(p)));
  });

  test('a restarted coordinator ends the compaction COMMITTED with exactly one COMPACT snapshot', async () => {
    // Three loads into 2 buckets, written by a coordinator without the crash hook.
    const loader = await inProcessCoordinator(e);
    const created = await loader.app.inject({ method: 'POST', url: '/v1/tables', payload: { database: 'shop', name: 'orders', columns: ORDERS_COLUMNS, primaryKeys: ['order_id'], bucket: 2 } });
    assert.equal(created.statusCode, 201, created.body);
    for (const seed of [21, 22, 23]) {
      const started = await loader.app.inject({
        method: 'POST',
        url: '/v1/syncs',
        payload: { table: { database: 'shop', table: 'orders' }, source: generatorSource(2, 500, { seed }), mode: 'append', options: { layout: 'direct' } },
      });
      assert.equal(started.statusCode, 202, started.body);
      const done = await waitForPhase(() => loader.syncs.get(started.json<{ id: string }>().id), ['COMMITTED', 'ABORTED'], 120_000);
      assert.equal(done.state.phase, 'COMMITTED', JSON.stringify(done.state));
    }
    await loader.close();
    const table = await openTable(e.store, 'shop', 'orders');
    const loaded = Number((await table.latestSnapshot())?.id);
    assert.equal(loaded, 3);
    // The model: what the three loads left (the last write of each key), as Tributary reads it.
    const model = canonicalRows((await readRows(e, 'shop', 'orders')) as OracleRow[]);
    assert.ok(model.length > 0);

    const port = nextPort++;
    const doomed = await spawnCoordinator(e, port, { TRIBUTARY_FAULT_KILL_AT: point });
    processes.push(doomed);
    const died = once(doomed, 'exit');
    const started = await call(port, 'POST', '/v1/tables/shop/orders/compactions', { full: true });
    assert.equal(started.status, 202, JSON.stringify(started.json));
    const id = String(started.json.id);
    assert.equal(started.json.jobs, 2);
    const [, signal] = (await died) as [number | null, string | null];
    assert.equal(signal, 'SIGKILL');

    assert.equal(await redis.hget(compactionRedisKeys(e.prefix, id).record, 'phase'), 'COMMITTING', 'the outcome was not recorded');
    const published = await table.latestSnapshot();
    if (point === 'after-publish') {
      // Published but not recorded: the COMPACT snapshot carries the compaction's identity.
      assert.equal(Number(published?.id), loaded + 1);
      assert.equal(published?.commitKind, 'COMPACT');
      assert.equal(published?.commitUser, `tributary-${id}`);
    } else {
      assert.equal(Number(published?.id), loaded, 'nothing published');
    }

    const restartedPort = nextPort++;
    processes.push(await spawnCoordinator(e, restartedPort));
    const done = await waitUntil(async () => {
      const view = await call(restartedPort, 'GET', `/v1/tables/shop/orders/compactions/${id}`);
      assert.equal(view.status, 200, JSON.stringify(view.json));
      const v = view.json as unknown as CompactionView;
      return ['COMMITTED', 'FAILED', 'CONFLICT'].includes(v.phase) ? v : undefined;
    }, `compaction ${id} ended`, 60_000);
    assert.equal(done.phase, 'COMMITTED', JSON.stringify(done));
    assert.equal(done.snapshotId, loaded + 1, 'the snapshot found by identity');
    const latest = await table.latestSnapshot();
    assert.equal(Number(latest?.id), loaded + 1, 'exactly one COMPACT snapshot');
    assert.equal(latest?.commitKind, 'COMPACT');
    assert.equal(latest?.commitUser, `tributary-${id}`);
    const files = (await table.dataFiles()).files;
    assert.equal(files.length, 2);
    assert.equal(done.filesAfter, 2);
    assert.ok(files.every((f) => f.level === 5 && f.path.includes(`/data-${id}-`)), JSON.stringify(files));

    assert.deepEqual(canonicalRows((await readRows(e, 'shop', 'orders')) as OracleRow[]), model, 'Tributary reads the model');
    const java = await paimonJava.batch([{ op: 'read', warehouse: e.warehouse, database: 'shop', table: 'orders' }]);
    assert.deepEqual(canonicalRows(readResults(java)[0]!.rows), model, 'Paimon Java reads the model');
  });
});

after(() => redis.quit());
