/**
 * Logs, metrics, readiness and live progress, with real processes: a coordinator with tokens and
 * two workers with their metrics listener, one sync of slow generated shards. Progress must move
 * while the shards run; after the commit the coordinator's rows metric equals the rows committed
 * and the workers' accepted rows add up to them; every log line is JSON, the shard lines carry the
 * sync id, shard id, attempt and duration, and no token or query string reaches the output.
 * Readiness turns 503 (naming Redis) when the test's own Redis stops, and back when it restarts.
 */
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { newToken } from '@tributary/coordinator';
import { startShardWorker } from '@tributary/worker';
import { freePort } from '@tributary/testkit';
import {
  ORDERS_COLUMNS,
  generatorSource,
  inProcessCoordinator,
  oneTo,
  outputOf,
  readRows,
  s3,
  spawnListeningCoordinator,
  spawnWorker,
  startRedis,
  stop,
  syncEnv,
  waitUntil,
} from './harness.ts';

interface ShardView {
  id: string;
  acceptedAttempt: string | null;
  rows: number | null;
  bytes: number | null;
  startedAt: string | null;
  updatedAt: string | null;
}
interface SyncView {
  phase: string;
  rowsRead: number;
  bytesWritten: number;
  shards: ShardView[];
}

/** The value of the sample `name{labels}` in Prometheus text (labels: the exact label text, or none). */
function sample(text: string, name: string, labels = ''): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${name}${labels === '' ? '' : `{${labels}}`} `));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
}

/** Every line a process wrote to stderr, parsed; fails on a line that is not JSON. */
function jsonLines(child: ChildProcess, stdoutLines: readonly string[] = []): Record<string, unknown>[] {
  return outputOf(child)
    .split('\n')
    .filter((l) => l.trim() !== '' && !stdoutLines.some((s) => l.includes(s)))
    .map((l) => {
      try {
        return JSON.parse(l) as Record<string, unknown>;
      } catch {
        assert.fail(`not a JSON log line: ${l.slice(0, 200)}`);
      }
    });
}

describe('logs, metrics and live progress (coordinator and worker processes)', () => {
  const reader = newToken('read', 'prometheus');
  const operator = newToken('operate', 'ops');
  const admin = newToken('admin', 'admin');
  const e = syncEnv('observe', { env: { TRIBUTARY_AUTH_TOKENS: [reader, operator, admin].map((t) => t.entry).join(','), TRIBUTARY_LOG_LEVEL: 'info' } });
  const processes: ChildProcess[] = [];
  let url = '';
  let coordinator: ChildProcess;
  let workers: ChildProcess[] = [];
  const as = (t: { token: string }) => ({ authorization: `Bearer ${t.token}`, 'content-type': 'application/json' });

  before(async () => {
    ({ child: coordinator, url } = await spawnListeningCoordinator(e));
    workers = await Promise.all([spawnWorker(e, { TRIBUTARY_METRICS_PORT: '0' }), spawnWorker(e, { TRIBUTARY_METRICS_PORT: '0' })]);
    processes.push(coordinator, ...workers);
  });
  after(async () => {
    await Promise.all(processes.map((p) => stop(p)));
  });

  test('progress moves while shards run; /metrics, /readyz and the logs after the commit', async () => {
    const created = await fetch(`${url}/v1/tables`, { method: 'POST', headers: as(admin), body: JSON.stringify({ database: 'shop', name: 'orders', columns: ORDERS_COLUMNS }) });
    assert.equal(created.status, 201);
    const shards = 4;
    const rowsPerShard = 3000;
    const source = generatorSource(shards, rowsPerShard, { batchRows: 100, faults: { delayMsPerBatch: 40 } });
    const started = await fetch(`${url}/v1/syncs`, { method: 'POST', headers: as(operator), body: JSON.stringify({ table: { database: 'shop', table: 'orders' }, source }) });
    assert.equal(started.status, 202);
    const { id } = (await started.json()) as { id: string };
    const view = async (): Promise<SyncView> => (await (await fetch(`${url}/v1/syncs/${id}`, { headers: as(reader) })).json()) as SyncView;

    // A shard in the middle of its work: rows reported, not yet accepted, the sync still preparing.
    const running = await waitUntil(async () => {
      const v = await view();
      const shard = v.shards.find((s) => s.acceptedAttempt === null && (s.rows ?? 0) > 0 && (s.rows ?? 0) < rowsPerShard);
      return v.phase === 'PREPARING' && shard !== undefined && v.rowsRead > 0 ? { v, shard } : undefined;
    }, 'a running shard reporting rows');
    assert.ok(running.shard.startedAt !== null && running.shard.updatedAt !== null && running.shard.updatedAt >= running.shard.startedAt);
    // ... and it moves on before that shard is done.
    await waitUntil(async () => {
      const v = await view();
      const shard = v.shards.find((s) => s.id === running.shard.id);
      return (shard?.rows ?? 0) > (running.shard.rows ?? 0) && v.rowsRead > running.v.rowsRead;
    }, 'the running shard reports more rows');

    const done = await waitUntil(async () => {
      const v = await view();
      return v.phase === 'COMMITTED' || v.phase === 'ABORTED' ? v : undefined;
    }, 'the sync ends', 120_000);
    assert.equal(done.phase, 'COMMITTED');
    assert.equal(done.rowsRead, shards * rowsPerShard);
    for (const s of done.shards) {
      assert.equal(s.rows, rowsPerShard, s.id);
      assert.ok((s.bytes ?? 0) > 0 && s.startedAt !== null && s.updatedAt !== null, JSON.stringify(s));
    }
    assert.equal(done.bytesWritten, done.shards.reduce((n, s) => n + (s.bytes ?? 0), 0));
    const page = (await (await fetch(`${url}/v1/syncs/${id}/shards?limit=2`, { headers: as(reader) })).json()) as { shards: ShardView[] };
    assert.deepEqual(page.shards.map((s) => s.rows), [rowsPerShard, rowsPerShard]);
    const ids = (await readRows(e, 'shop', 'orders')).map((r) => r[0] as bigint).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    assert.deepEqual(ids, oneTo(shards * rowsPerShard));

    // The coordinator's metrics follow the API's auth (read role).
    assert.equal((await fetch(`${url}/metrics`)).status, 401);
    const metrics = await (await fetch(`${url}/metrics`, { headers: as(reader) })).text();
    assert.equal(sample(metrics, 'tributary_rows_committed_total', 'table="shop.orders"'), shards * rowsPerShard, 'rows metric = rows committed');
    assert.equal(sample(metrics, 'tributary_bytes_committed_total', 'table="shop.orders"'), done.bytesWritten);
    assert.equal(sample(metrics, 'tributary_syncs_finished_total', 'phase="COMMITTED"'), 1);
    assert.equal(sample(metrics, 'tributary_syncs_started_total'), 1);
    assert.equal(sample(metrics, 'tributary_commit_duration_seconds_count'), 1);
    assert.equal(sample(metrics, 'tributary_syncs', 'phase="PREPARING"'), 0);
    assert.equal(sample(metrics, 'tributary_queue_jobs', 'queue="write-shard",state="waiting"'), 0);
    assert.equal(sample(metrics, 'tributary_workers_busy'), 0);
    assert.ok((sample(metrics, 'tributary_workers') ?? 0) >= 2, 'both workers are connected');
    assert.ok(sample(metrics, 'tributary_commit_conflicts_total') !== undefined && sample(metrics, 'tributary_commit_retries_total', 'level="job"') === undefined);

    assert.equal((await fetch(`${url}/healthz`)).status, 200, 'public');
    assert.equal((await fetch(`${url}/readyz`)).status, 401, 'needs read unless made public');
    const ready = await fetch(`${url}/readyz`, { headers: as(reader) });
    assert.equal(ready.status, 200);
    assert.deepEqual(await ready.json(), { ready: true, checks: { redis: { ok: true }, storage: { ok: true }, accepting: { ok: true } } });

    // Each worker's listener: its accepted rows add up to the rows committed.
    let acceptedRows = 0;
    let attempts = 0;
    for (const worker of workers) {
      const workerUrl = /"metrics":"([^"]+)"/.exec(outputOf(worker))?.[1];
      assert.ok(workerUrl !== undefined, outputOf(worker).slice(0, 300));
      const text = await (await fetch(`${workerUrl}/metrics`)).text();
      acceptedRows += sample(text, 'tributary_worker_rows_written_total', 'accepted="true"') ?? 0;
      attempts += sample(text, 'tributary_worker_shard_duration_seconds_count', 'outcome="succeeded"') ?? 0;
      assert.equal(sample(text, 'tributary_worker_busy_jobs'), 0);
      assert.equal((await fetch(`${workerUrl}/healthz`)).status, 200);
      const workerReady = await fetch(`${workerUrl}/readyz`);
      assert.deepEqual({ status: workerReady.status, body: await workerReady.json() }, { status: 200, body: { ready: true, checks: { redis: { ok: true }, storage: { ok: true } } } });
    }
    assert.equal(acceptedRows, shards * rowsPerShard);
    assert.ok(attempts >= shards);

    // A request whose query string carries something secret-looking: refused, and never logged.
    const cursorSecret = `s3cr3t-${Date.now()}`;
    assert.equal((await fetch(`${url}/v1/syncs/${id}/shards?cursor=${cursorSecret}`, { headers: as(reader) })).status, 400);

    await Promise.all(processes.map((p) => stop(p)));
    const coordinatorLines = jsonLines(coordinator, ['"listening"']);
    const committed = coordinatorLines.find((l) => l.msg === 'sync committed');
    assert.ok(committed !== undefined && committed.syncId === id && typeof committed.durationMs === 'number', JSON.stringify(committed));
    const requests = coordinatorLines.filter((l) => l.msg === 'request' && l.route === '/v1/syncs/:id');
    assert.ok(requests.length > 0, 'GET /v1/syncs/{id} is logged');
    for (const l of requests) assert.deepEqual({ syncId: l.syncId, status: l.status, token: l.token, path: l.path }, { syncId: id, status: 200, token: 'prometheus', path: `/v1/syncs/${id}` });
    const workerLines = workers.flatMap((w) => jsonLines(w, ['"worker":"ready"']));
    const succeeded = workerLines.filter((l) => l.msg === 'shard attempt succeeded');
    assert.equal(new Set(succeeded.map((l) => l.shardId)).size, shards);
    for (const l of succeeded) {
      assert.ok(l.syncId === id && typeof l.shardId === 'string' && typeof l.attempt === 'number' && typeof l.durationMs === 'number', JSON.stringify(l));
    }
    const everything = [coordinator, ...workers].map(outputOf).join('\n');
    for (const secret of [reader.token, operator.token, admin.token, cursorSecret, 'tributary-secret', e.env.TRIBUTARY_CLUSTER_SECRET ?? '-']) {
      assert.ok(!everything.includes(secret), 'a secret or a query string reached the output');
    }
    assert.ok(!/authorization|cookie/i.test(everything), 'no header is logged');
  });
});

describe('/readyz when Redis is unreachable (a Redis of the test, stopped and restarted)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'tributary-readyz-'));
  const e = syncEnv('readyz');
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('coordinator and worker: 503 naming redis while it is down, ready again once it is back', async () => {
    const port = await freePort();
    let redis = await startRedis(port, dir);
    const redisAt = { host: '127.0.0.1', port };
    const c = await inProcessCoordinator(e, { redis: redisAt });
    const w = startShardWorker({ redis: redisAt, prefix: e.prefix, clusterSecret: e.clusterSecret, s3, storageProbe: e.warehouse });
    try {
      const readyz = async () => {
        const r = await c.app.inject({ method: 'GET', url: '/readyz' });
        return { status: r.statusCode, body: r.json<{ ready: boolean; checks: Record<string, { ok: boolean; error?: string }> }>() };
      };
      assert.equal((await readyz()).status, 200);
      await waitUntil(async () => (await w.readiness()).ready, 'the worker is ready once connected');

      await stop(redis);
      const down = await waitUntil(async () => {
        const r = await readyz();
        return r.status === 503 ? r : undefined;
      }, 'the coordinator is unready');
      assert.equal(down.body.ready, false);
      assert.equal(down.body.checks.redis?.ok, false);
      assert.ok((down.body.checks.redis?.error ?? '').length > 0);
      assert.equal(down.body.checks.storage?.ok, true, 'storage is still reachable');
      const workerDown = await waitUntil(async () => {
        const r = await w.readiness();
        return r.ready ? undefined : r;
      }, 'the worker is unready');
      assert.deepEqual({ redis: workerDown.checks.redis?.ok, storage: workerDown.checks.storage?.ok }, { redis: false, storage: true });

      redis = await startRedis(port, dir);
      await waitUntil(async () => (await readyz()).status === 200, 'the coordinator is ready again');
      await waitUntil(async () => (await w.readiness()).ready, 'the worker is ready again');
    } finally {
      // The clients close against a running server: a BullMQ worker's close waits for its Redis.
      if (redis.exitCode !== null || redis.signalCode !== null) redis = await startRedis(port, dir);
      await w.close();
      await c.close();
      await stop(redis);
    }
  });

  // BullMQ's graceful close waits for its blocking client's `end` event, which ioredis never emits for
  // a client parked between two reconnection attempts (BullMQ #4656): closing right after Redis came
  // back, while a queue connection still waits out its next attempt, once hung a CI run for good.
  test('coordinator and worker close while a queue connection still waits to reconnect after a Redis restart', async () => {
    const port = await freePort();
    let redis = await startRedis(port, dir);
    const redisAt = { host: '127.0.0.1', port };
    const c = await inProcessCoordinator(e, { redis: redisAt });
    const w = startShardWorker({ redis: redisAt, prefix: e.prefix, clusterSecret: e.clusterSecret, s3 });
    let closed = false;
    try {
      await waitUntil(async () => (await w.readiness()).ready, 'the worker is ready once connected');
      const blocking = await w.worker.getBackend().blockingClient;
      assert.ok(blocking !== undefined, 'a BullMQ worker has a blocking connection');
      let nextAttemptMs = 0;
      blocking.on('reconnecting', (delayMs: number) => (nextAttemptMs = delayMs));

      await stop(redis);
      // BullMQ's retry delay grows with each failed attempt: wait until the next one is seconds away.
      await waitUntil(async () => nextAttemptMs >= 2000, 'the blocking connection waits seconds between attempts', 120_000);
      redis = await startRedis(port, dir);
      assert.equal(blocking.status, 'reconnecting', 'the blocking connection is still parked');
      const parked = await w.readiness();
      assert.equal(parked.ready, false, 'a worker whose blocking connection is parked is not ready');

      const deadline = new Promise<'hung'>((resolve) => setTimeout(resolve, 90_000, 'hung').unref());
      assert.equal(await Promise.race([w.close().then(() => 'closed' as const), deadline]), 'closed', 'the worker closes');
      assert.equal(await Promise.race([c.close().then(() => 'closed' as const), deadline]), 'closed', 'the coordinator closes');
      closed = true;
    } finally {
      if (!closed) {
        // Leave nothing behind that keeps the file's process alive after a failed assertion.
        await Promise.race([Promise.all([w.close(), c.close()]), new Promise((resolve) => setTimeout(resolve, 5000).unref())]);
      }
      await stop(redis);
    }
  });
});
