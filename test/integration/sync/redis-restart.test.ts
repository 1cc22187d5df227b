/**
 * Redis restarted in the middle of a sync. The test runs its own redis-server (on a
 * free port, append-only, in a temporary directory) so restarting it disturbs no other test; the
 * coordinator and the workers are the usual processes. The sync must end COMMITTED or ABORTED with
 * a reason, never stuck and never half visible.
 */
import assert from 'node:assert/strict';
import { type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, test } from 'node:test';
import { Redis } from 'ioredis';
import { SyncStore, type SyncRecord } from '@tributary/coordinator';
import { openTable } from '@tributary/table';
import { freePort } from '@tributary/testkit';
import {
  ORDERS_COLUMNS,
  generatorSource,
  oneTo,
  outputOf,
  pypaimonIds,
  readRows,
  shardProgressRows,
  spawnCoordinator,
  spawnWorker,
  startRedis,
  stop,
  syncEnv,
  waitUntil,
  LAYOUTS,
} from './harness.ts';

for (const layout of LAYOUTS) describe(`case 9: Redis restarted in the middle of a sync (layout ${layout})`, () => {
  const dir = mkdtempSync(join(tmpdir(), 'tributary-redis-'));
  let redisPort = 0;
  let redisProcess: ChildProcess;
  const processes: ChildProcess[] = [];

  before(async () => {
    redisPort = await freePort();
    redisProcess = await startRedis(redisPort, dir);
  });
  after(async () => {
    await Promise.all(processes.map((p) => stop(p)));
    await stop(redisProcess);
    rmSync(dir, { recursive: true, force: true });
  });

  test('the sync ends COMMITTED (or ABORTED with a reason), all or nothing', async () => {
    const e = syncEnv(`redis-${layout}`);
    const env = { TRIBUTARY_REDIS_PORT: String(redisPort) };
    const port = await freePort();
    processes.push(await spawnCoordinator(e, port, env));
    processes.push(...(await Promise.all([spawnWorker(e, env), spawnWorker(e, env)])));
    const post = (path: string, body: unknown) =>
      fetch(`http://127.0.0.1:${port}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    assert.equal((await post('/v1/tables', { database: 'shop', name: 'orders', columns: ORDERS_COLUMNS })).status, 201);
    const started = await post('/v1/syncs', { table: { database: 'shop', table: 'orders' }, source: generatorSource(6, 3000, { batchRows: 100, faults: { delayMsPerBatch: 30 } }), options: { layout } });
    assert.equal(started.status, 202);
    const { id } = (await started.json()) as { id: string };

    const redis = new Redis({ host: '127.0.0.1', port: redisPort, maxRetriesPerRequest: null });
    redis.on('error', () => undefined); // refused while this test's Redis is down
    try {
      const store = new SyncStore(redis, e.prefix);
      await waitUntil(async () => {
        const running = (await store.attempts(id)).filter((a) => a.status === 'running');
        const rows = await Promise.all(running.map((a) => shardProgressRows(e, id, a.shardId, { host: '127.0.0.1', port: redisPort })));
        return rows.some((n) => n > 0);
      }, 'a shard is in the middle of writing rows');
      const printed = processes.map((p) => outputOf(p).length);
      await stop(redisProcess); // SIGTERM: Redis writes its append-only file and exits
      // Down until the coordinator and each worker has found Redis gone (each logs "redis: <error>").
      await waitUntil(
        async () => processes.every((p, i) => outputOf(p).slice(printed[i]).includes('redis: ')),
        'the coordinator and both workers logged the lost Redis connection',
      );
      redisProcess = await startRedis(redisPort, dir);

      let record: SyncRecord | undefined;
      const deadline = Date.now() + 90_000;
      for (;;) {
        record = await store.get(id);
        if (record !== undefined && (record.state.phase === 'COMMITTED' || record.state.phase === 'ABORTED')) break;
        assert.ok(Date.now() < deadline, `sync stuck in ${record?.state.phase ?? 'no record'}`);
        await sleep(200);
      }
      const table = await openTable(e.store, 'shop', 'orders');
      if (record.state.phase === 'COMMITTED') {
        assert.equal(Number((await table.latestSnapshot())?.id), 1);
        const ids = (await readRows(e, 'shop', 'orders')).map((r) => r[0] as bigint).sort((a, b) => (a < b ? -1 : 1));
        assert.deepEqual(ids, oneTo(18_000));
        assert.deepEqual(await pypaimonIds(e, 'shop', 'orders'), oneTo(18_000));
      } else {
        assert.ok(record.state.reason.code.length > 0);
        assert.equal(await table.latestSnapshot(), null, 'an aborted sync is not visible');
      }
      console.log(`after a Redis restart the sync ended ${record.state.phase}`);
    } finally {
      await redis.quit();
    }
  });
});
