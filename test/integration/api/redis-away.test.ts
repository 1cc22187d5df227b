/**
 * The API while the coordinator's Redis is away (http/redis-gate.ts), on a redis-server of the
 * test's own: every route but the ops ones answers 503 REDIS_UNAVAILABLE with Retry-After at once,
 * whether the caller signs in by bearer token or by the dashboard's session cookie, and a write
 * refused so does nothing; /healthz answers and /readyz names Redis; once Redis is back the same
 * session and token are served again.
 */
import assert from 'node:assert/strict';
import { type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { LOGIN_PATH, newToken, parseTokenEntries, startCoordinator, type Coordinator } from '@tributary/coordinator';
import { freePort } from '@tributary/testkit';
import { ORDERS_COLUMNS, generatorSource, s3, startRedis, stop, syncEnv, waitUntil } from '../sync/harness.ts';

/** A request that has not been answered by then is one that waits for Redis: the failure this test exists for. */
const UNANSWERED_MS = 10_000;

describe('the API while Redis is away (own redis-server, real app)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'tributary-redis-away-'));
  const e = syncEnv('redis-away');
  const admin = newToken('admin', 'admin');
  let redisPort = 0;
  let redisProcess: ChildProcess;
  let c: Coordinator;
  let cookie = '';

  /** The answer, or a failure naming the request if it waits past UNANSWERED_MS. */
  const answer = async (what: string, request: Promise<LightMyRequestResponse>): Promise<LightMyRequestResponse> => {
    let timer: NodeJS.Timeout | undefined;
    const waited = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what}: not answered within ${UNANSWERED_MS} ms`)), UNANSWERED_MS)));
    try {
      return await Promise.race([request, waited]);
    } finally {
      clearTimeout(timer);
    }
  };
  const bearer = { authorization: `Bearer ${admin.token}` };
  const withCookie = () => ({ cookie, host: 'tributary.test' });

  before(async () => {
    redisPort = await freePort();
    redisProcess = await startRedis(redisPort, dir);
    c = await startCoordinator({
      redis: { host: '127.0.0.1', port: redisPort },
      prefix: e.prefix,
      clusterSecret: e.clusterSecret,
      warehouse: e.warehouse,
      s3,
      auth: { tokens: parseTokenEntries(admin.entry, 'test') },
    });
    await c.app.ready();
    const created = await c.app.inject({ method: 'POST', url: '/v1/tables', headers: bearer, payload: { database: 'shop', name: 'orders', columns: ORDERS_COLUMNS } });
    assert.equal(created.statusCode, 201, created.body);
    const login = await c.app.inject({ method: 'POST', url: LOGIN_PATH, headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: new URLSearchParams({ token: admin.token }).toString() });
    assert.equal(login.statusCode, 303, login.body);
    cookie = String([login.headers['set-cookie'] ?? []].flat().find((s) => s.startsWith('tributary_session='))).split(';')[0] ?? '';
    assert.match(cookie, /^tributary_session=.{43}$/);
  });
  after(async () => {
    // A failed test may leave Redis down: the coordinator's close needs it.
    if (redisProcess.exitCode !== null || redisProcess.signalCode !== null) redisProcess = await startRedis(redisPort, dir);
    await c?.close();
    await stop(redisProcess);
    rmSync(dir, { recursive: true, force: true });
  });

  test('503 REDIS_UNAVAILABLE at once while Redis is down, nothing done; served again once it is back', async () => {
    assert.equal((await c.app.inject({ method: 'GET', url: '/v1/syncs', headers: withCookie() })).statusCode, 200, 'the session reads while Redis is up');

    await stop(redisProcess); // SIGTERM: Redis writes its append-only file and exits
    await waitUntil(async () => (await c.readiness()).checks.redis?.ok === false, 'the coordinator finds Redis gone');
    // The connection may need a moment to leave `ready` after the probe saw it fail: the first refusal is the sign.
    await waitUntil(async () => (await answer('GET /v1/syncs (bearer)', c.app.inject({ method: 'GET', url: '/v1/syncs', headers: bearer }))).statusCode === 503, 'the API refuses while Redis is away');

    const calls: [string, Promise<LightMyRequestResponse>][] = [
      ['GET /v1/syncs (bearer)', c.app.inject({ method: 'GET', url: '/v1/syncs', headers: bearer })],
      ['GET /v1/syncs (session cookie)', c.app.inject({ method: 'GET', url: '/v1/syncs', headers: withCookie() })],
      ['GET /v1/tables (no token)', c.app.inject({ method: 'GET', url: '/v1/tables' })],
      ['POST /v1/syncs (bearer)', c.app.inject({ method: 'POST', url: '/v1/syncs', headers: bearer, payload: { table: { database: 'shop', table: 'orders' }, source: generatorSource(2, 10) } })],
    ];
    for (const [what, request] of calls) {
      const response = await answer(what, request);
      assert.equal(response.statusCode, 503, `${what}: ${response.body}`);
      assert.equal(response.headers['retry-after'], '2', what);
      const body = response.json<{ code: string; retryable: boolean; detail: string }>();
      assert.equal(body.code, 'REDIS_UNAVAILABLE', what);
      assert.equal(body.retryable, true, what);
      assert.ok(!response.body.includes(admin.token) && !response.body.includes(cookie.split('=')[1] ?? '-'), `${what}: no secret in the answer`);
    }
    const health = await answer('/healthz', c.app.inject({ method: 'GET', url: '/healthz' }));
    assert.equal(health.statusCode, 200, health.body);
    const ready = await answer('/readyz', c.app.inject({ method: 'GET', url: '/readyz', headers: bearer }));
    assert.equal(ready.statusCode, 503, ready.body);
    assert.equal(ready.json<{ checks: Record<string, { ok: boolean }> }>().checks.redis?.ok, false);

    redisProcess = await startRedis(redisPort, dir);
    const listed = await waitUntil(async () => {
      const response = await c.app.inject({ method: 'GET', url: '/v1/syncs', headers: withCookie() });
      return response.statusCode === 200 ? response : undefined;
    }, 'the same session is served once Redis is back');
    assert.deepEqual(listed.json<{ syncs: unknown[] }>().syncs, [], 'the POST refused while Redis was away started no sync');
    assert.equal((await c.app.inject({ method: 'GET', url: '/v1/tables', headers: bearer })).statusCode, 200);
  });
});
