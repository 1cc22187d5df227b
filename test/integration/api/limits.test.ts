/**
 * Limits of the real app on real Redis and MinIO, with a worker process.
 * - a sync planning more shards than allowed is refused with 400 at once, nothing persisted or
 *   enqueued (100,000 generator shards against the default 10,000; a file listing stops early);
 * - non-terminal syncs per table and overall are capped (429 with Retry-After);
 * - requests per token (per address when open) are rate limited (429 problem+json);
 * - GET /v1/syncs/{id} shows counts and the first page of shards; /shards pages through the rest;
 * - test hooks (the generator's `faults`) are refused unless the coordinator runs in test mode.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { ChildProcess } from 'node:child_process';
import { Redis } from 'ioredis';
import { newToken, parseTokenEntries, startCoordinator, type Coordinator, type CoordinatorConfig } from '@tributary/coordinator';
import { generatorShardId } from '@tributary/sources';
import { openObjectStore } from '@tributary/table';
import { services } from '@tributary/testkit';
import { FAST_LOCKS, createOrdersTable, generatorSource, s3, spawnWorker, stop, syncEnv, waitForPhase, type SyncEnv } from '../sync/harness.ts';

const redis = new Redis({ ...services.redis, maxRetriesPerRequest: null });
// Both suites read keys with it.
after(async () => {
  await redis.quit();
});

function start(e: SyncEnv, extra: Partial<CoordinatorConfig>): Promise<Coordinator> {
  return startCoordinator({ redis: services.redis, prefix: e.prefix, warehouse: e.warehouse, s3, sources: e.sources, clusterSecret: e.clusterSecret, ...FAST_LOCKS, ...extra });
}

async function post(c: Coordinator, url: string, payload: unknown, headers: Record<string, string> = {}) {
  const response = await c.app.inject({ method: 'POST', url, payload: payload as object, headers });
  return { status: response.statusCode, headers: response.headers, body: response.json<Record<string, unknown>>() };
}

const table = (name: string) => ({ database: 'shop', table: name });

/** Every Redis key of a deployment prefix. */
async function keysOf(prefix: string): Promise<string[]> {
  const keys: string[] = [];
  let cursor = '0';
  do {
    const [next, batch] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
    cursor = next;
    keys.push(...batch);
  } while (cursor !== '0');
  return keys;
}

describe('limits (real app, real Redis and MinIO)', () => {
  const running = syncEnv('limits-run');
  const strict = syncEnv('limits-strict');
  let a: Coordinator; // test mode, small limits, with a worker
  let b: Coordinator; // production defaults: not test mode, 10,000 shards
  let worker: ChildProcess;

  before(async () => {
    [a, b] = await Promise.all([
      start(running, { testMode: true, limits: { maxShards: 200, maxActivePerTable: 2, maxActive: 3 } }),
      start(strict, {}),
    ]);
    worker = await spawnWorker(running, { TRIBUTARY_WORKER_CONCURRENCY: '4' });
    await Promise.all([createOrdersTable(b, 'shop', 'orders'), ...['orders', 'other', 'third', 'paged'].map((n) => createOrdersTable(a, 'shop', n))]);
  });
  after(async () => {
    await stop(worker);
    await Promise.all([a.close(), b.close()]);
  });

  test('100,000 generator shards against the default limit of 10,000: 400 at once, nothing persisted or enqueued', async () => {
    const t0 = performance.now();
    const refused = await post(b, '/v1/syncs', { table: table('orders'), source: generatorSource(100_000, 10) }, { 'idempotency-key': 'too-many' });
    const ms = performance.now() - t0;
    assert.equal(refused.status, 400);
    assert.equal(refused.body.code, 'SYNC_TOO_MANY_SHARDS');
    assert.deepEqual(refused.body.context, { limit: 10_000, planned: '100000' });
    // Refused from the request alone (SyncService.check), before any planning: the time is printed, not asserted.
    console.log(`100,000 shards refused in ${ms.toFixed(1)} ms`);
    assert.deepEqual(await b.store.list({ limit: 10 }), []);
    const keys = await keysOf(strict.prefix);
    assert.deepEqual(keys.filter((k) => /sync-|idempotency|write-shard:(?!meta|stalled-check|events)/.test(k)), [], 'no sync record, idempotency key or shard job');
  });

  test('a file listing that makes more shards than allowed stops early and is refused', async () => {
    const src = openObjectStore(running.sourceRoot, s3);
    for (let i = 0; i < 205; i++) await src.put(`many/f-${String(i).padStart(3, '0')}.ndjson`, new TextEncoder().encode('{}\n'));
    const refused = await post(a, '/v1/syncs', { table: table('other'), source: { kind: 'files', format: 'ndjson', uris: [`${running.sourceRoot}/many/f-*`] } });
    assert.equal(refused.status, 400);
    assert.deepEqual([refused.body.code, (refused.body.context as { planned: string }).planned], ['SYNC_TOO_MANY_SHARDS', 'more than 200']);
    const fits = await post(a, '/v1/syncs', { table: table('other'), source: generatorSource(201, 1) });
    assert.equal(fits.body.code, 'SYNC_TOO_MANY_SHARDS', 'the generator is checked before planning');
  });

  test('test hooks are refused without test mode, for syncs and schedules, and nothing is persisted', async () => {
    const faulty = { table: table('orders'), source: generatorSource(2, 10, { faults: { delayMsPerBatch: 10 } }) };
    const refused = await post(b, '/v1/syncs', faulty);
    assert.equal(refused.status, 400);
    assert.equal(refused.body.code, 'TEST_HOOKS_DISABLED');
    const badRow = await post(b, '/v1/syncs', { ...faulty, source: generatorSource(2, 10, { faults: { badRow: { shard: 0, position: 1 } } }) });
    assert.equal(badRow.body.code, 'TEST_HOOKS_DISABLED');
    const schedule = await b.app.inject({ method: 'PUT', url: '/v1/schedules/faulty', payload: { cron: '0 0 * * *', sync: faulty } });
    assert.equal(schedule.statusCode, 400);
    assert.equal(schedule.json<{ code: string }>().code, 'TEST_HOOKS_DISABLED');
    assert.deepEqual((await b.schedules.list()).map((s) => s.id), []);
    assert.ok((await b.store.list({ limit: 10 })).every((r) => r.plan.source.faults === undefined));
  });

  test('concurrent syncs: 2 per table and 3 overall, refused with 429 and Retry-After, accepted again once one ends', async () => {
    const slow = (name: string, seed: number) => ({ table: table(name), source: { ...generatorSource(2, 2000, { batchRows: 100, faults: { delayMsPerBatch: 100 } }), seed } });
    const first = await post(a, '/v1/syncs', slow('orders', 1));
    const second = await post(a, '/v1/syncs', slow('orders', 2));
    assert.deepEqual([first.status, second.status], [202, 202]);
    const third = await post(a, '/v1/syncs', slow('orders', 3));
    assert.equal(third.status, 429);
    assert.equal(third.body.code, 'SYNC_CONCURRENCY_LIMIT');
    assert.equal((third.body.context as { scope: string }).scope, 'table');
    assert.ok(Number(third.headers['retry-after']) > 0, 'Retry-After');
    const otherTable = await post(a, '/v1/syncs', slow('other', 4));
    assert.equal(otherTable.status, 202, 'another table still has room');
    const overall = await post(a, '/v1/syncs', slow('third', 5));
    assert.equal(overall.status, 429);
    assert.equal((overall.body.context as { scope: string }).scope, 'overall');
    const ids = [first, second, otherTable].map((r) => String(r.body.id));
    const done = await Promise.all(ids.map((id) => waitForPhase(() => a.syncs.get(id), ['COMMITTED', 'ABORTED'], 120_000)));
    assert.deepEqual(done.map((r) => r.state.phase), ['COMMITTED', 'COMMITTED', 'COMMITTED']);
    const again = await post(a, '/v1/syncs', slow('orders', 3));
    assert.equal(again.status, 202, JSON.stringify(again.body));
    await waitForPhase(() => a.syncs.get(String(again.body.id)), ['COMMITTED', 'ABORTED'], 120_000);
  });

  test('shards are paged: the view has counts and the first page, /shards pages through all in plan order', async () => {
    const SHARDS = 150;
    const started = await post(a, '/v1/syncs', { table: table('paged'), source: generatorSource(SHARDS, 1) });
    assert.equal(started.status, 202);
    const id = String(started.body.id);
    await waitForPhase(() => a.syncs.get(id), ['COMMITTED', 'ABORTED'], 120_000);
    const view = (await a.app.inject({ method: 'GET', url: `/v1/syncs/${id}` })).json<SyncViewBody>();
    assert.equal(view.phase, 'COMMITTED');
    assert.deepEqual(view.shardCounts, { total: SHARDS, accepted: SHARDS, attempted: SHARDS });
    assert.equal(view.shards.length, 100);
    assert.equal('shards' in view.plan, false, 'the plan is shown without its shard list');
    assert.equal('accepted' in view.state, false, 'the state is shown without every shard\u2019s accepted attempt');
    assert.equal(typeof view.nextShardsCursor, 'string');

    const seen: ShardBody[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const url: string = `/v1/syncs/${id}/shards?limit=60${cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`}`;
      const page = (await a.app.inject({ method: 'GET', url })).json<{ shards: ShardBody[]; nextCursor: string | null }>();
      seen.push(...page.shards);
      cursor = page.nextCursor;
      pages++;
    } while (cursor !== null);
    assert.equal(pages, 3);
    assert.deepEqual(seen.map((s) => s.id), Array.from({ length: SHARDS }, (_, i) => generatorShardId(i)), 'every shard once, in plan order');
    assert.deepEqual(seen.slice(0, 100).map((s) => s.id), view.shards.map((s) => s.id), 'the first page of /shards is the view\u2019s');
    for (const s of seen) {
      assert.ok(s.acceptedAttempt !== null && s.rows === 1, s.id);
      assert.ok(s.attempts.some((x) => x.attemptId === s.acceptedAttempt && x.status === 'succeeded'), s.id);
    }

    const bad = await a.app.inject({ method: 'GET', url: `/v1/syncs/${id}/shards?cursor=not-a-cursor` });
    assert.equal(bad.statusCode, 400);
    assert.equal(bad.json<{ code: string }>().code, 'SYNC_CURSOR_INVALID');
    const other = (await a.store.list({ table: 'orders', limit: 1 }))[0];
    assert.ok(other !== undefined);
    const foreign = await a.app.inject({ method: 'GET', url: `/v1/syncs/${other.id}/shards?cursor=${encodeURIComponent(view.nextShardsCursor ?? '')}` });
    assert.equal(foreign.json<{ code: string }>().code, 'SYNC_CURSOR_INVALID', 'a cursor of another sync is refused');
  });
});

describe('request rate limit (real app, counts in Redis)', () => {
  const e = syncEnv('limits-rate');
  const first = newToken('read', 'first');
  const second = newToken('read', 'second');
  let withTokens: Coordinator;
  let open: Coordinator;

  before(async () => {
    withTokens = await start(e, { auth: { tokens: parseTokenEntries(`${first.entry}\n${second.entry}`, 'test') }, rateLimit: { max: 5, timeWindowMs: 60_000 } });
    open = await start(syncEnv('limits-rate-open'), { rateLimit: { max: 3, timeWindowMs: 60_000 } });
  });
  after(async () => {
    await Promise.all([withTokens.close(), open.close()]);
  });

  test('per token: the 6th request in the window is 429 problem+json with Retry-After; another token is not affected', async () => {
    const get = (token: string) => withTokens.app.inject({ method: 'GET', url: '/v1/syncs', headers: { authorization: `Bearer ${token}` } });
    for (let i = 0; i < 5; i++) assert.equal((await get(first.token)).statusCode, 200, `request ${i + 1}`);
    const limited = await get(first.token);
    assert.equal(limited.statusCode, 429);
    assert.match(String(limited.headers['content-type']), /^application\/problem\+json/);
    assert.deepEqual([limited.json<{ code: string }>().code, limited.json<{ retryable: boolean }>().retryable], ['RATE_LIMITED', true]);
    assert.ok(Number(limited.headers['retry-after']) > 0);
    assert.equal((await get(second.token)).statusCode, 200, 'counted per token');
    assert.equal((await withTokens.app.inject({ method: 'GET', url: '/healthz' })).statusCode, 200, 'public health checks are not counted');
    // One counter per token, under the key its code names (the token's name, never the token).
    assert.deepEqual((await keysOf(e.prefix)).filter((k) => k.includes(':rate-limit:')).sort(), [`${e.prefix}:rate-limit:token:first`, `${e.prefix}:rate-limit:token:second`]);
  });

  test('open (no token configured): counted per client address', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await open.app.inject({ method: 'GET', url: '/v1/syncs' })).statusCode);
    assert.deepEqual(statuses, [200, 200, 200, 429]);
  });
});

interface ShardBody {
  id: string;
  acceptedAttempt: string | null;
  rows: number | null;
  attempts: { attemptId: string; status: string }[];
}

interface SyncViewBody {
  phase: string;
  state: Record<string, unknown>;
  plan: Record<string, unknown>;
  shardCounts: { total: number; accepted: number; attempted: number };
  shards: ShardBody[];
  nextShardsCursor: string | null;
}
