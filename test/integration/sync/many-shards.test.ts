/**
 * A sync of 1,000 small shards commits, and the coordinator process's memory stays
 * bounded. Prints the coordinator's peak RSS (VmHWM) and the commit latency (last shard done →
 * COMMITTED recorded).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import type { ChildProcess } from 'node:child_process';
import { Redis } from 'ioredis';
import { SyncStore } from '@tributary/coordinator';
import { openTable } from '@tributary/table';
import { services } from '@tributary/testkit';
import { ORDERS_COLUMNS, generatorSource, spawnCoordinator, spawnWorker, stop, syncEnv, waitForPhase } from './harness.ts';

const SHARDS = 1000;
const ROWS = 5;
/** Peak RSS allowed to the coordinator process (Node's own baseline with Fastify, BullMQ and the AWS SDK is about 150 MB). */
const RSS_LIMIT_MB = 400;

function peakRssMb(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8').split('\n').find((l) => l.startsWith('VmHWM:'));
  return Number(/(\d+)/.exec(line ?? '')?.[1] ?? NaN) / 1024;
}

describe('case 10: 1,000 small shards', () => {
  const e = syncEnv('many');
  const redis = new Redis({ ...services.redis, maxRetriesPerRequest: null });
  const processes: ChildProcess[] = [];
  const port = 19_000 + Math.floor(Math.random() * 900);
  let coordinator: ChildProcess;

  before(async () => {
    coordinator = await spawnCoordinator(e, port);
    processes.push(coordinator);
    const concurrency = { TRIBUTARY_WORKER_CONCURRENCY: '8' };
    processes.push(...(await Promise.all([spawnWorker(e, concurrency), spawnWorker(e, concurrency)])));
  });
  after(async () => {
    await Promise.all(processes.map((p) => stop(p)));
    await redis.quit();
  });

  test('commits as one snapshot with bounded coordinator memory', async () => {
    const post = (path: string, body: unknown) =>
      fetch(`http://127.0.0.1:${port}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    assert.equal((await post('/v1/tables', { database: 'shop', name: 'orders', columns: ORDERS_COLUMNS })).status, 201);
    const started = await post('/v1/syncs', { table: { database: 'shop', table: 'orders' }, source: generatorSource(SHARDS, ROWS) });
    assert.equal(started.status, 202);
    const { id } = (await started.json()) as { id: string };
    const store = new SyncStore(redis, e.prefix);
    const done = await waitForPhase(() => store.require(id), ['COMMITTED', 'ABORTED'], 240_000);
    assert.ok(done.state.phase === 'COMMITTED', JSON.stringify(done.state));

    const table = await openTable(e.store, 'shop', 'orders');
    const latest = await table.latestSnapshot();
    assert.equal(Number(latest?.id), 1);
    assert.equal(Number(latest?.totalRecordCount), SHARDS * ROWS);
    assert.equal((await table.newRead().plan()).length, SHARDS, 'one data file per shard');

    const lastShardDone = Math.max(...(await store.attempts(id)).map((a) => Date.parse(a.finishedAt ?? '')));
    const committedAt = Date.parse(done.timings.COMMITTED ?? '');
    const rss = peakRssMb(coordinator.pid ?? -1);
    const committingAt = Date.parse(done.timings.COMMITTING ?? '');
    console.log(
      `1000 shards: prepare ${done.timings.PREPARING} → committed ${done.timings.COMMITTED}; commit latency ${committedAt - lastShardDone} ms ` +
        `(last shard → blobs verified ${committingAt - lastShardDone} ms, publish ${committedAt - committingAt} ms); coordinator peak RSS ${rss.toFixed(0)} MB`,
    );
    assert.ok(rss < RSS_LIMIT_MB, `coordinator peak RSS ${rss} MB`);
  });
});
