/**
 * Every route of the real app (REST, the bull-board dashboard, /docs) refuses a
 * request without a token (401) and with a token below its role (403), and serves the right role.
 * The routes are enumerated from the app itself (printRoutes), so a route added later is checked
 * without anyone listing it here; only the roles expected of writing routes are listed, and a
 * writing route not listed is expected to need `admin` (the app's default).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { Queue } from 'bullmq';
import type { LightMyRequestResponse } from 'fastify';
import { LOGIN_PATH, LOGOUT_PATH, SESSION_COOKIE, newToken, parseTokenEntries, startCoordinator, type Coordinator, type Role } from '@tributary/coordinator';
import { services } from '@tributary/testkit';
import { s3, syncEnv } from '../sync/harness.ts';

type Method = 'GET' | 'HEAD' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** Each line of printRoutes is `<tree>├── <segment> (METHODS)`; a segment continues its parent's path. */
export function enumerateRoutes(tree: string): { method: Method; url: string }[] {
  const routes: { method: Method; url: string }[] = [];
  const stack: string[] = [];
  for (const line of tree.split('\n')) {
    const match = /^(.*?)[├└]── (.+?)(?: \(([A-Z, ]+)\))?$/.exec(line);
    if (match === null) continue;
    const depth = [...(match[1] ?? '')].length / 4;
    stack.length = depth;
    stack.push(match[2] ?? '');
    const url = stack.join('').replace(/\/{2,}/g, '/');
    for (const method of (match[3] ?? '').split(',').map((m) => m.trim()).filter((m) => m !== '')) {
      routes.push({ method: method as Method, url });
    }
  }
  return routes;
}

const PUBLIC = new Set(['/healthz', LOGIN_PATH, LOGOUT_PATH]);

/** The roles writing routes need; reading routes (GET, HEAD) need `read`; any other writing route `admin`. */
const OPERATE = [
  'POST /v1/syncs',
  'POST /v1/syncs/:id/abort',
  'PUT /v1/schedules/:id',
  'DELETE /v1/schedules/:id',
  'PUT /admin/queues/api/queues/:queueName/retry/:queueStatus',
  'PUT /admin/queues/api/queues/:queueName/:jobId/retry',
];

/** Reading routes that need `admin`: the dashboard's Redis statistics (the server's INFO). */
const ADMIN_READS = ['GET /admin/queues/api/redis/stats', 'HEAD /admin/queues/api/redis/stats'];

function expectedRole(method: Method, url: string): Role | 'public' {
  if (PUBLIC.has(url)) return 'public';
  if (ADMIN_READS.includes(`${method} ${url}`)) return 'admin';
  if (method === 'GET' || method === 'HEAD') return 'read';
  return OPERATE.includes(`${method} ${url}`) ? 'operate' : 'admin';
}

/** Parameters that name nothing, so a request that passes auth changes nothing. */
function concrete(url: string): string {
  return url
    .replace(':queueName', 'no-such-queue')
    .replace(':queueStatus', 'failed')
    .replace(/:[A-Za-z]+/g, 'no_such_thing')
    .replace(/\*$/, 'no-such-file');
}

const BELOW: Record<Role, Role | undefined> = { read: undefined, operate: 'read', admin: 'operate' };

describe('authentication and roles on every route (real app, real Redis)', () => {
  const e = syncEnv('auth');
  const tokens = {
    read: newToken('read', 'reader'),
    operate: newToken('operate', 'operator'),
    admin: newToken('admin', 'admin-old'),
    // Rotation: a second admin token valid at the same time as the first.
    admin2: newToken('admin', 'admin-new'),
  };
  const bearer = (t: { token: string }) => ({ authorization: `Bearer ${t.token}` });
  const asRole = (role: Role) => bearer(tokens[role]);
  let c: Coordinator;

  before(async () => {
    c = await startCoordinator({
      redis: services.redis,
      prefix: e.prefix,
      clusterSecret: e.clusterSecret,
      warehouse: e.warehouse,
      s3,
      auth: { tokens: parseTokenEntries(Object.values(tokens).map((t) => t.entry).join('\n'), 'test') },
    });
    await c.app.ready();
  });
  after(async () => {
    await c.close();
  });

  /** Routes no role may use (bull-board's edit of a job's data, which would write [redacted] over its vote token), and their refusal. */
  const REFUSED_TO_ALL: Readonly<Record<string, string>> = { 'PATCH /admin/queues/api/queues/:queueName/:jobId/update-data': 'DASHBOARD_JOB_DATA_READONLY' };

  test('every registered route: 401 without a token, 401 with an unknown one, 403 below its role, served with its role', async () => {
    const routes = enumerateRoutes(c.app.printRoutes({ commonPrefix: false }));
    // The enumeration sees the whole app: the API, the dashboard's UI and API, the docs.
    for (const expected of ['POST /v1/syncs', 'GET /v1/syncs/:id/shards', 'GET /admin/queues/', 'POST /admin/queues/api/queues/:queueName/add', 'GET /docs/json', 'GET /healthz']) {
      assert.ok(routes.some((r) => `${r.method} ${r.url}` === expected), `${expected} is enumerated`);
    }
    assert.ok(routes.length > 60, `${routes.length} routes`);
    const send = (method: Method, url: string, headers: Record<string, string> = {}) => c.app.inject({ method, url: concrete(url), headers });
    const failures: string[] = [];
    const check = (ok: boolean, what: string) => {
      if (!ok) failures.push(what);
    };
    for (const { method, url } of routes) {
      const role = expectedRole(method, url);
      const name = `${method} ${url}`;
      if (role === 'public') {
        check((await send(method, url)).statusCode !== 403, `${name} is public`);
        continue;
      }
      const none = await send(method, url);
      check(none.statusCode === 401, `${name} without a token: ${none.statusCode}`);
      check(String(none.headers['www-authenticate']).startsWith('Bearer'), `${name}: WWW-Authenticate`);
      if (method !== 'HEAD') check(problemCode(none) === 'AUTH_TOKEN_MISSING', `${name}: ${none.body.slice(0, 200)}`);
      const unknown = await send(method, url, { authorization: 'Bearer not-a-configured-token' });
      check(unknown.statusCode === 401, `${name} with an unknown token: ${unknown.statusCode}`);
      const below = BELOW[role];
      if (below !== undefined) {
        const refused = await send(method, url, asRole(below));
        check(refused.statusCode === 403, `${name} as ${below}: ${refused.statusCode}`);
        if (method !== 'HEAD') check(problemCode(refused) === 'AUTH_ROLE_INSUFFICIENT', `${name} as ${below}: ${refused.body.slice(0, 200)}`);
      }
      for (const as of role === 'admin' ? [tokens.admin, tokens.admin2] : [tokens[role]]) {
        const served = await send(method, url, bearer(as));
        // A route no role may use is refused with its own code, after authentication.
        const refusedToAll = REFUSED_TO_ALL[name];
        if (refusedToAll !== undefined) check(served.statusCode === 403 && problemCode(served) === refusedToAll, `${name} with role ${role}: ${served.statusCode} ${served.body.slice(0, 200)}`);
        else check(![401, 403, 429].includes(served.statusCode), `${name} with role ${role}: ${served.statusCode} ${served.body.slice(0, 200)}`);
      }
    }
    assert.deepEqual(failures, []);
  });

  test('401 and 403 are problem+json with stable codes; a higher role may do what a lower one may', async () => {
    const missing = await c.app.inject({ method: 'GET', url: '/v1/syncs' });
    assert.equal(missing.statusCode, 401);
    assert.match(String(missing.headers['content-type']), /^application\/problem\+json/);
    assert.deepEqual(pick(missing.json()), { status: 401, code: 'AUTH_TOKEN_MISSING', retryable: false });
    const malformed = await c.app.inject({ method: 'GET', url: '/v1/syncs', headers: { authorization: `Bearer ${tokens.admin.token} x` } });
    assert.equal(problemCode(malformed), 'AUTH_TOKEN_INVALID');
    const denied = await c.app.inject({ method: 'POST', url: '/v1/tables', headers: asRole('operate'), payload: {} });
    assert.equal(denied.statusCode, 403);
    assert.deepEqual(pick(denied.json()), { status: 403, code: 'AUTH_ROLE_INSUFFICIENT', retryable: false });
    assert.ok(!denied.body.includes(tokens.operate.token), 'the token is not echoed');
    for (const role of ['read', 'operate', 'admin'] as const) {
      assert.equal((await c.app.inject({ method: 'GET', url: '/v1/syncs', headers: asRole(role) })).statusCode, 200, role);
    }
    // An unknown URL needs a token too: nobody learns without one which routes exist.
    assert.equal((await c.app.inject({ method: 'GET', url: '/v1/nothing-here' })).statusCode, 401);
    assert.equal((await c.app.inject({ method: 'GET', url: '/v1/nothing-here', headers: asRole('read') })).statusCode, 404);
  });

  test('only the Bearer scheme carries a token (RFC 6750): a bare token or another scheme is a missing token', async () => {
    for (const authorization of [tokens.admin.token, `Basic ${tokens.admin.token}`, `Token ${tokens.admin.token}`, `Bearer-${tokens.admin.token}`]) {
      const refused = await c.app.inject({ method: 'GET', url: '/v1/syncs', headers: { authorization } });
      assert.equal(refused.statusCode, 401, authorization.slice(0, 12));
      assert.equal(problemCode(refused), 'AUTH_TOKEN_MISSING', authorization.slice(0, 12));
      assert.equal(refused.headers['www-authenticate'], 'Bearer realm="tributary"');
    }
    for (const scheme of ['Bearer', 'bearer', 'BEARER']) {
      assert.equal((await c.app.inject({ method: 'GET', url: '/v1/syncs', headers: { authorization: `${scheme} ${tokens.read.token}` } })).statusCode, 200, scheme);
    }
  });

  test('a URL the router refuses (bad percent-encoding, an over-long parameter): the same 401 on a route and off one without a token, a problem with one', async () => {
    const long = 'a'.repeat(2100);
    const pairs: [string, string][] = [
      ['/v1/syncs/%ff', '/v1/secret-route/%ff'],
      ['/v1/syncs/%E0%A4%A', '/v1/secret-route/%E0%A4%A'],
      [`/v1/syncs/${long}`, `/v1/secret-route/${long}`],
      [`/v1/schedules/${long}`, `/v1/secret/${long}`],
      [`/admin/queues/api/queues/${long}/x`, `/admin/nothing/${long}/x`],
    ];
    const answer = (r: LightMyRequestResponse) => ({ status: r.statusCode, type: r.headers['content-type'], auth: r.headers['www-authenticate'], body: r.body });
    for (const [known, unknown] of pairs) {
      const onRoute = await c.app.inject({ method: 'GET', url: known });
      const offRoute = await c.app.inject({ method: 'GET', url: unknown });
      assert.equal(onRoute.statusCode, 401, `${known.slice(0, 40)}: ${onRoute.body.slice(0, 200)}`);
      assert.equal(problemCode(onRoute), 'AUTH_TOKEN_MISSING');
      assert.deepEqual(answer(onRoute), answer(offRoute), `${known.slice(0, 40)} and ${unknown.slice(0, 40)} answer alike`);
      const wrong = await c.app.inject({ method: 'GET', url: known, headers: { authorization: 'Bearer not-a-configured-token' } });
      assert.equal(problemCode(wrong), 'AUTH_TOKEN_INVALID');
    }
    const badUrl = await c.app.inject({ method: 'GET', url: '/v1/syncs/%ff', headers: asRole('read') });
    assert.equal(badUrl.statusCode, 400, badUrl.body);
    assert.match(String(badUrl.headers['content-type']), /^application\/problem\+json/);
    assert.deepEqual(pick(badUrl.json()), { status: 400, code: 'REQUEST_URL_INVALID', retryable: false });
    const tooLong = await c.app.inject({ method: 'GET', url: `/v1/syncs/${long}`, headers: asRole('read') });
    assert.equal(tooLong.statusCode, 400, tooLong.body.slice(0, 200));
    assert.match(String(tooLong.headers['content-type']), /^application\/problem\+json/);
    assert.deepEqual(pick(tooLong.json()), { status: 400, code: 'REQUEST_INVALID', retryable: false });
    for (const r of [badUrl, tooLong]) assert.ok(!r.body.includes('%ff') && !r.body.includes(long.slice(0, 200)), `the path is not echoed: ${r.body.slice(0, 200)}`);
    // Below the router's limit, the route's schema answers a long parameter with the same code.
    const schemaLong = await c.app.inject({ method: 'GET', url: `/v1/syncs/${'a'.repeat(2000)}`, headers: asRole('read') });
    assert.equal(problemCode(schemaLong), 'REQUEST_INVALID');
  });

  test('the OpenAPI document declares the bearer scheme and security on every operation', async () => {
    const doc = (await c.app.inject({ method: 'GET', url: '/docs/json', headers: asRole('read') })).json<OpenApi>();
    assert.deepEqual(doc.components.securitySchemes.bearerAuth, { type: 'http', scheme: 'bearer', description: doc.components.securitySchemes.bearerAuth?.description });
    const operations = Object.entries(doc.paths).flatMap(([path, methods]) => Object.entries(methods).map(([method, op]) => ({ name: `${method} ${path}`, op })));
    assert.ok(operations.length >= 10);
    for (const { name, op } of operations) {
      assert.deepEqual(op.security, [{ bearerAuth: [] }], name);
      assert.ok(op.responses['401'] !== undefined && op.responses['403'] !== undefined, `${name} documents 401 and 403`);
    }
  });

  test('dashboard: read sees it read-only and cannot act; operate may retry but not add jobs; admin may', async () => {
    const queues = async (role: Role) =>
      (await c.app.inject({ method: 'GET', url: '/admin/queues/api/queues', headers: asRole(role) })).json<{ queues: { name: string; readOnlyMode: boolean; allowRetries: boolean }[] }>().queues;
    const seenByReader = await queues('read');
    assert.ok(seenByReader.length >= 2);
    assert.ok(seenByReader.every((q) => q.readOnlyMode && !q.allowRetries), 'read: the UI shows no actions');
    assert.ok((await queues('operate')).every((q) => !q.readOnlyMode && q.allowRetries));
    const shardQueue = seenByReader.find((q) => q.name === 'write-shard')?.name ?? 'write-shard';
    const add = (role: Role) =>
      c.app.inject({ method: 'POST', url: `/admin/queues/api/queues/${shardQueue}/add`, headers: asRole(role), payload: { name: 'forged', data: {} } });
    assert.equal((await add('read')).statusCode, 403);
    assert.equal((await add('operate')).statusCode, 403, 'adding a job (a forged shard job) needs admin');
    assert.equal((await add('admin')).statusCode, 200);
    const retry = (role: Role) => c.app.inject({ method: 'PUT', url: `/admin/queues/api/queues/${shardQueue}/retry/failed`, headers: asRole(role) });
    assert.equal((await retry('read')).statusCode, 403);
    assert.equal((await retry('operate')).statusCode, 200);
    assert.equal((await c.app.inject({ method: 'GET', url: '/admin/queues/' })).statusCode, 401);
  });

  test('dashboard: no role sees a job\'s vote token (listing, job detail); Redis statistics need admin', async () => {
    const created = await c.app.inject({ method: 'POST', url: '/v1/tables', headers: asRole('admin'), payload: { database: 'shop', name: 'board', columns: [{ name: 'order_id', type: 'BIGINT NOT NULL' }] } });
    assert.equal(created.statusCode, 201, created.body);
    const started = await c.app.inject({ method: 'POST', url: '/v1/syncs', headers: asRole('operate'), payload: { table: { database: 'shop', table: 'board' }, source: { kind: 'generator', shards: 2, rowsPerShard: 1 } } });
    assert.equal(started.statusCode, 202, started.body);
    const syncId = started.json<{ id: string }>().id;
    // No worker runs here: the sync's shard jobs wait in Redis, each with its vote token in its data.
    const shardQueue = new Queue('write-shard', { connection: services.redis, prefix: e.prefix });
    let jobs: { id?: string; data: { syncId?: string; token?: string } }[] = [];
    try {
      for (const deadline = Date.now() + 30_000; jobs.length < 2; await sleep(50)) {
        assert.ok(Date.now() < deadline, `the shard jobs of ${syncId} were not enqueued: ${JSON.stringify(jobs)}`);
        jobs = (await shardQueue.getJobs()).filter((j) => j.data.syncId === syncId);
      }
    } finally {
      await shardQueue.close();
    }
    const secrets = jobs.map((j) => j.data.token ?? '');
    assert.ok(secrets.every((t) => t.length >= 32), 'the jobs carry their tokens');
    for (const role of ['read', 'operate', 'admin'] as const) {
      for (const status of ['latest', 'waiting']) {
        const listing = await c.app.inject({ method: 'GET', url: `/admin/queues/api/queues?activeQueue=write-shard&status=${status}`, headers: asRole(role) });
        assert.equal(listing.statusCode, 200, listing.body.slice(0, 200));
        const listed = listing.json<{ queues: { name: string; jobs: { data: { syncId?: string; token?: string } }[] }[] }>().queues.find((q) => q.name === 'write-shard')?.jobs ?? [];
        const shown = listed.filter((j) => j.data.syncId === syncId);
        assert.equal(shown.length, 2, `${role} ${status}: the jobs are listed`);
        assert.ok(shown.every((j) => j.data.token === '[redacted]'), `${role} ${status}: ${JSON.stringify(shown.map((j) => j.data))}`);
        for (const secret of secrets) assert.ok(!listing.body.includes(secret), `${role} ${status}: a vote token is shown`);
      }
      for (const job of jobs) {
        const detail = await c.app.inject({ method: 'GET', url: `/admin/queues/api/queues/write-shard/${encodeURIComponent(job.id ?? '')}`, headers: asRole(role) });
        assert.equal(detail.statusCode, 200, detail.body.slice(0, 200));
        assert.equal(detail.json<{ job: { data: { syncId: string; token: string } } }>().job.data.token, '[redacted]');
        assert.equal(detail.json<{ job: { data: { syncId: string } } }>().job.data.syncId, syncId, 'the rest of the data is shown');
        for (const secret of secrets) assert.ok(!detail.body.includes(secret), `${role}: the job's detail shows a vote token`);
      }
    }
    // Editing a job's data would start from the redacted data and write [redacted] over its token:
    // refused for every role (admin included), and the job keeps its data.
    for (const role of ['operate', 'admin'] as const) {
      const job = jobs[0];
      const url = `/admin/queues/api/queues/write-shard/${encodeURIComponent(job?.id ?? '')}/update-data`;
      const edit = await c.app.inject({ method: 'PATCH', url, headers: asRole(role), payload: { jobData: { ...job?.data, token: '[redacted]' } } });
      assert.equal(edit.statusCode, 403, `${role}: ${edit.body.slice(0, 300)}`);
      assert.deepEqual(pick(edit.json()), { status: 403, code: role === 'admin' ? 'DASHBOARD_JOB_DATA_READONLY' : 'AUTH_ROLE_INSUFFICIENT', retryable: false });
    }
    assert.equal((await c.app.inject({ method: 'PATCH', url: `/admin/queues/api/queues/write-shard/${encodeURIComponent(jobs[0]?.id ?? '')}/update-data`, payload: { jobData: {} } })).statusCode, 401);
    const after = new Queue('write-shard', { connection: services.redis, prefix: e.prefix });
    try {
      assert.equal((await after.getJob(jobs[0]?.id ?? ''))?.data.token, secrets[0], 'the job keeps its token');
    } finally {
      await after.close();
    }
    for (const role of ['read', 'operate'] as const) {
      const stats = await c.app.inject({ method: 'GET', url: '/admin/queues/api/redis/stats', headers: asRole(role) });
      assert.equal(stats.statusCode, 403, `${role}: ${stats.body.slice(0, 200)}`);
      assert.match(String(stats.headers['content-type']), /^application\/problem\+json/);
      assert.deepEqual(pick(stats.json()), { status: 403, code: 'AUTH_ROLE_INSUFFICIENT', retryable: false });
      assert.ok(!stats.body.includes('"version"') && !stats.body.includes('"os"'), 'nothing of INFO');
    }
    const stats = await c.app.inject({ method: 'GET', url: '/admin/queues/api/redis/stats', headers: asRole('admin') });
    assert.equal(stats.statusCode, 200, stats.body.slice(0, 200));
    assert.equal(stats.json<{ backend: string }>().backend, 'redis', 'admin sees it');
  });

  test('a schedule that starts a compaction needs role admin, like POST …/compactions; one that starts a sync needs operate', async () => {
    const created = await c.app.inject({ method: 'POST', url: '/v1/tables', headers: asRole('admin'), payload: { database: 'shop', name: 'scheduled', columns: [{ name: 'id', type: 'BIGINT NOT NULL' }], primaryKeys: ['id'], bucket: 1 } });
    assert.equal(created.statusCode, 201, created.body);
    const body = { cron: '0 30 2 * * *', compaction: { table: { database: 'shop', table: 'scheduled' } }, enabled: false };
    const refused = await c.app.inject({ method: 'PUT', url: '/v1/schedules/nightly-compaction', headers: asRole('operate'), payload: body });
    assert.equal(refused.statusCode, 403, refused.body);
    assert.equal(problemCode(refused), 'AUTH_ROLE_INSUFFICIENT');
    assert.equal((await c.app.inject({ method: 'GET', url: '/v1/schedules/nightly-compaction', headers: asRole('read') })).statusCode, 404, 'nothing stored');
    const served = await c.app.inject({ method: 'PUT', url: '/v1/schedules/nightly-compaction', headers: asRole('admin'), payload: body });
    assert.equal(served.statusCode, 201, served.body);
    // Changing it needs the role creating it needs: operate may neither replace it (not even with a sync) nor delete it.
    const sync = { cron: '0 30 2 * * *', sync: { table: { database: 'shop', table: 'scheduled' }, source: { kind: 'generator', shards: 1, rowsPerShard: 1 } }, enabled: false };
    for (const [method, payload] of [['PUT', sync], ['PUT', body], ['DELETE', undefined]] as const) {
      const changed = await c.app.inject({ method, url: '/v1/schedules/nightly-compaction', headers: asRole('operate'), ...(payload === undefined ? {} : { payload }) });
      assert.equal(changed.statusCode, 403, `${method} ${JSON.stringify(payload)}: ${changed.body}`);
      assert.equal(problemCode(changed), 'AUTH_ROLE_INSUFFICIENT');
    }
    const kept = await c.app.inject({ method: 'GET', url: '/v1/schedules/nightly-compaction', headers: asRole('read') });
    assert.equal(kept.statusCode, 200);
    assert.ok(kept.json<{ compaction?: unknown; sync?: unknown }>().compaction !== undefined && kept.json<{ sync?: unknown }>().sync === undefined, 'still the admin\'s compaction schedule');
    assert.equal((await c.app.inject({ method: 'DELETE', url: '/v1/schedules/nightly-compaction', headers: asRole('admin') })).statusCode, 204);
    // A sync schedule stays operate's to replace and delete, also over a compaction schedule an admin made a sync one.
    assert.equal((await c.app.inject({ method: 'PUT', url: '/v1/schedules/nightly-sync', headers: asRole('operate'), payload: sync })).statusCode, 201);
    assert.equal((await c.app.inject({ method: 'PUT', url: '/v1/schedules/nightly-sync', headers: asRole('operate'), payload: sync })).statusCode, 200);
    assert.equal((await c.app.inject({ method: 'DELETE', url: '/v1/schedules/nightly-sync', headers: asRole('operate') })).statusCode, 204);
  });

  test('browser login: a posted token becomes an HttpOnly SameSite=Strict cookie that opens the dashboard; a wrong one does not', async () => {
    const form = await c.app.inject({ method: 'GET', url: LOGIN_PATH });
    assert.equal(form.statusCode, 200);
    assert.match(form.body, /<form method="post"/);
    const wrong = await c.app.inject({ method: 'POST', url: LOGIN_PATH, headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: 'token=nope' });
    assert.equal(wrong.statusCode, 401);
    assert.equal(wrong.headers['set-cookie'], undefined);
    const login = await c.app.inject({
      method: 'POST',
      url: LOGIN_PATH,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ token: tokens.read.token }).toString(),
    });
    assert.equal(login.statusCode, 303);
    assert.equal(login.headers.location, '/admin/queues/');
    const cookie = String(login.headers['set-cookie']);
    assert.match(cookie, new RegExp(`^${SESSION_COOKIE}=`));
    for (const attribute of ['HttpOnly', 'SameSite=Strict', 'Path=/']) assert.ok(cookie.includes(attribute), `${attribute} in ${cookie.split(';').slice(1).join(';')}`);
    const sent = cookie.split(';')[0] ?? '';
    const board = await c.app.inject({ method: 'GET', url: '/admin/queues/', headers: { cookie: sent } });
    assert.equal(board.statusCode, 200);
    assert.match(String(board.headers['content-type']), /text\/html/);
    // The cookie carries the read role only.
    const act = await c.app.inject({ method: 'PUT', url: '/admin/queues/api/queues/write-shard/retry/failed', headers: { cookie: sent } });
    assert.equal(act.statusCode, 403);
    const forged = await c.app.inject({ method: 'GET', url: '/admin/queues/', headers: { cookie: `${SESSION_COOKIE}=forged` } });
    assert.equal(forged.statusCode, 401);
    // Login CSRF: another site's page posting its own token into this browser is refused.
    const form2 = { 'content-type': 'application/x-www-form-urlencoded' };
    const payload = new URLSearchParams({ token: tokens.read.token }).toString();
    for (const headers of [{ origin: 'https://evil.example' }, { 'sec-fetch-site': 'cross-site' }]) {
      const csrf = await c.app.inject({ method: 'POST', url: LOGIN_PATH, headers: { ...form2, ...headers }, payload });
      assert.equal(csrf.statusCode, 403, JSON.stringify(headers));
      assert.equal(csrf.json<{ code: string }>().code, 'AUTH_LOGIN_CROSS_SITE');
      assert.equal(csrf.headers['set-cookie'], undefined);
    }
    const sameOrigin = await c.app.inject({ method: 'POST', url: LOGIN_PATH, headers: { ...form2, origin: 'http://localhost:8080', host: 'localhost:8080', 'sec-fetch-site': 'same-origin' }, payload });
    assert.equal(sameOrigin.statusCode, 303);
  });

  test('a write the login cookie authenticates must come from this origin (same-site CSRF); bearer requests and reads are unaffected', async () => {
    const cookieOf = async (token: string): Promise<string> => {
      const login = await c.app.inject({ method: 'POST', url: LOGIN_PATH, headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: new URLSearchParams({ token }).toString() });
      assert.equal(login.statusCode, 303);
      return String(login.headers['set-cookie']).split(';')[0] ?? '';
    };
    const operate = await cookieOf(tokens.operate.token);
    const admin = await cookieOf(tokens.admin.token);
    const host = { host: 'tributary.corp.example:8080' };
    // What a page's fetch(url, {method: 'POST', mode: 'no-cors', credentials: 'include'}) sends: no body, no content type.
    const foreign = [
      {},
      { origin: 'http://evil.example', 'sec-fetch-site': 'cross-site' },
      { origin: 'http://grafana.corp.example', 'sec-fetch-site': 'same-site' },
      { origin: 'http://tributary.corp.example:8000', 'sec-fetch-site': 'same-site' },
      { origin: 'http://tributary.corp.example:8000' },
      { origin: 'null' },
      { 'sec-fetch-site': 'same-site' },
      { origin: 'http://tributary.corp.example:8080', 'sec-fetch-site': 'same-site' },
    ];
    const writes = [
      { cookie: operate, method: 'POST', url: '/v1/syncs/no_such_thing/abort' },
      { cookie: admin, method: 'POST', url: '/v1/tables/shop/no_such_thing/expirations' },
      { cookie: admin, method: 'POST', url: '/v1/tables/shop/no_such_thing/compactions' },
      { cookie: admin, method: 'POST', url: '/v1/tables/shop/no_such_thing/orphan-cleanups' },
      { cookie: operate, method: 'DELETE', url: '/v1/schedules/no_such_thing' },
    ] as const;
    for (const w of writes) {
      for (const headers of foreign) {
        const refused = await c.app.inject({ method: w.method, url: w.url, headers: { ...host, ...headers, cookie: w.cookie } });
        assert.equal(refused.statusCode, 403, `${w.method} ${w.url} ${JSON.stringify(headers)}: ${refused.body}`);
        assert.equal(problemCode(refused), 'AUTH_COOKIE_CROSS_ORIGIN');
      }
      // From the coordinator's own pages: served (the route answers: nothing by that name).
      for (const headers of [{ origin: 'http://tributary.corp.example:8080', 'sec-fetch-site': 'same-origin' }, { 'sec-fetch-site': 'same-origin' }, { origin: 'https://tributary.corp.example:8080' }]) {
        const served = await c.app.inject({ method: w.method, url: w.url, headers: { ...host, ...headers, cookie: w.cookie } });
        assert.ok(served.statusCode === 404 || served.statusCode === 409, `${w.method} ${w.url} ${JSON.stringify(headers)}: ${served.statusCode} ${served.body}`);
      }
      // A bearer token is never sent by a browser on its own: no origin needed.
      const token = w.cookie === admin ? tokens.admin : tokens.operate;
      const api = await c.app.inject({ method: w.method, url: w.url, headers: { ...host, ...bearer(token), 'sec-fetch-site': 'cross-site' } });
      assert.ok(api.statusCode === 404 || api.statusCode === 409, `${w.method} ${w.url} with a bearer: ${api.statusCode} ${api.body}`);
    }
    // Reads with the cookie need no origin (SameSite=Strict; a read changes nothing).
    assert.equal((await c.app.inject({ method: 'GET', url: '/v1/syncs', headers: { ...host, cookie: operate } })).statusCode, 200);
  });

  test('no page may be framed: the dashboard, the login form, the docs and the syncs page say so', async () => {
    const pages: [string, Record<string, string>][] = [
      ['/admin/queues/', asRole('read')],
      ['/admin/queues/api/queues', asRole('read')],
      [LOGIN_PATH, {}],
      ['/docs/', asRole('read')],
      ['/docs/static/index.html', asRole('read')],
      ['/ui/', asRole('read')],
      ['/admin/queues/', {}], // the 401 too
    ];
    for (const [url, headers] of pages) {
      const page = await c.app.inject({ method: 'GET', url, headers });
      assert.ok(page.statusCode < 500, `${url}: ${page.statusCode}`);
      assert.equal(page.headers['x-frame-options'], 'DENY', `${url} (${page.statusCode}) X-Frame-Options`);
      assert.match(String(page.headers['content-security-policy']), /frame-ancestors 'none'/, `${url} (${page.statusCode}) CSP`);
    }
    const ui = await c.app.inject({ method: 'GET', url: '/ui/', headers: asRole('read') });
    assert.match(String(ui.headers['content-security-policy']), /script-src 'self'/, 'the syncs page keeps its own full policy');
  });

  test('the syncs page: a browser without a valid token goes to the login form, which comes back to the page; next takes only known paths', async () => {
    const html = { accept: 'text/html,application/xhtml+xml' };
    for (const [url, headers] of [['/ui/', html], ['/ui/', { ...html, cookie: `${SESSION_COOKIE}=forged` }], ['/ui', html]] as const) {
      const page = await c.app.inject({ method: 'GET', url, headers });
      assert.equal(page.statusCode, 303, `${url} ${JSON.stringify(headers)}`);
      assert.equal(page.headers.location, `${LOGIN_PATH}?next=%2Fui%2F`);
    }
    // Not a page navigation (a script, an API client): the usual 401.
    assert.equal((await c.app.inject({ method: 'GET', url: '/ui/' })).statusCode, 401);
    assert.equal((await c.app.inject({ method: 'GET', url: '/ui/app.js', headers: html })).statusCode, 401);
    const form = await c.app.inject({ method: 'GET', url: `${LOGIN_PATH}?next=%2Fui%2F` });
    assert.match(form.body, /<input type="hidden" name="next" value="\/ui\/">/);
    const foreign = await c.app.inject({ method: 'GET', url: `${LOGIN_PATH}?next=${encodeURIComponent('"><script>alert(1)</script>')}` });
    assert.ok(!foreign.body.includes('<script>'), 'next is never echoed');
    assert.match(foreign.body, /name="next" value="\/admin\/queues\/"/);
    const post = (next: string) =>
      c.app.inject({ method: 'POST', url: LOGIN_PATH, headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: new URLSearchParams({ token: tokens.read.token, next }).toString() });
    assert.equal((await post('/ui/')).headers.location, '/ui/');
    for (const next of ['https://evil.example/', '//evil.example/', '/v1/syncs']) assert.equal((await post(next)).headers.location, '/admin/queues/', next);
    const sent = String((await post('/ui/')).headers['set-cookie']).split(';')[0] ?? '';
    const page = await c.app.inject({ method: 'GET', url: '/ui/', headers: { ...html, cookie: sent } });
    assert.equal(page.statusCode, 200);
    assert.match(String(page.headers['content-security-policy']), /script-src 'self'/);
    assert.ok(!page.body.includes(tokens.read.token));
  });
});

describe('an open coordinator (no token configured) serves this machine only', () => {
  const e = syncEnv('auth-open');
  let c: Coordinator;

  before(async () => {
    c = await startCoordinator({ redis: services.redis, prefix: e.prefix, clusterSecret: e.clusterSecret, warehouse: e.warehouse, s3 });
    await c.app.ready();
  });
  after(async () => {
    await c.close();
  });

  test('a request addressed to another host (DNS rebinding) or sent from another site is refused; loopback callers are served', async () => {
    for (const host of ['localhost:8080', '127.0.0.1:8080', '[::1]:8080']) {
      assert.equal((await c.app.inject({ method: 'GET', url: '/v1/syncs', headers: { host } })).statusCode, 200, host);
    }
    const refused: Record<string, string>[] = [
      { host: 'rebound.example:8080' },
      { host: '127.0.0.1.nip.example' },
      { host: 'localhost:8080', origin: 'https://evil.example' },
      { host: 'localhost:8080', origin: 'null' },
      { host: 'localhost:8080', 'sec-fetch-site': 'cross-site' },
    ];
    for (const headers of refused) {
      const get = await c.app.inject({ method: 'GET', url: '/v1/syncs', headers });
      assert.equal(get.statusCode, 403, JSON.stringify(headers));
      assert.equal(problemCode(get), 'AUTH_OPEN_FOREIGN');
      // The bodiless abort a cross-site form could send never reaches the route.
      const abort = await c.app.inject({ method: 'POST', url: '/v1/syncs/some-sync/abort', headers });
      assert.equal(abort.statusCode, 403, JSON.stringify(headers));
    }
    // A page on this machine (the dashboard itself) may call it.
    const local = await c.app.inject({ method: 'GET', url: '/v1/syncs', headers: { host: '127.0.0.1:8080', origin: 'http://127.0.0.1:8080', 'sec-fetch-site': 'same-origin' } });
    assert.equal(local.statusCode, 200);
  });
});

function problemCode(response: LightMyRequestResponse): string | undefined {
  try {
    return response.json<{ code?: string }>().code;
  } catch {
    return undefined;
  }
}

function pick(body: { status: number; code: string; retryable: boolean }) {
  return { status: body.status, code: body.code, retryable: body.retryable };
}

interface OpenApi {
  components: { securitySchemes: Record<string, { type: string; scheme: string; description?: string } | undefined> };
  paths: Record<string, Record<string, { security?: unknown; responses: Record<string, unknown> }>>;
}
