/**
 * The dashboard's login session (http/auth.ts, sessions.ts) through the real app on real Redis: the
 * cookie holds a random session id, never the token; it authenticates reads and same-origin writes
 * with its token's current role; logging out ends it; a session whose token is no longer configured,
 * and any cookie the coordinator did not issue, are refused like an unknown token; Redis and the log
 * hold neither a token nor a session id.
 */
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import type { LightMyRequestResponse } from 'fastify';
import { LOGIN_PATH, LOGOUT_PATH, SESSION_COOKIE, SESSION_TTL_S, hashToken, newToken, parseTokenEntries, startCoordinator, type Coordinator } from '@tributary/coordinator';
import { services } from '@tributary/testkit';
import { s3, syncEnv } from '../sync/harness.ts';

const HOST = 'tributary.test:8080';
/** What a browser sends with a write from the coordinator's own page. */
const SAME_ORIGIN = { host: HOST, origin: `http://${HOST}`, 'sec-fetch-site': 'same-origin' };
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };
const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

describe('the dashboard login is a server-side session (real app, real Redis)', () => {
  const e = syncEnv('login-session');
  const tokens = {
    reader: newToken('read', 'reader'),
    operator: newToken('operate', 'operator'),
    admin: newToken('admin', 'admin'),
  };
  const redis = new Redis({ ...services.redis, maxRetriesPerRequest: null });
  /** Every line the coordinator logs, to check none carries a token or a session id. */
  const logLines: string[] = [];
  /** Tokens configured later, in a test; looked for too. */
  const laterTokens: { token: string }[] = [];
  /** Every session id a login issued, to look for in Redis and the log. */
  const issued: string[] = [];
  let c: Coordinator;

  const start = (entries: readonly string[]) =>
    startCoordinator({
      redis: services.redis,
      prefix: e.prefix,
      clusterSecret: e.clusterSecret,
      warehouse: e.warehouse,
      s3,
      auth: { tokens: parseTokenEntries(entries.join('\n'), 'test') },
      logger: pino({ level: 'trace' }, { write: (line: string) => void logLines.push(line) }),
    });

  /** Signs in with a token through the form; returns the answer and the cookie to send back (`name=id`). */
  const login = async (token: string, app = c.app, headers: Record<string, string> = {}) => {
    const response = await app.inject({ method: 'POST', url: LOGIN_PATH, headers: { ...FORM, ...headers }, payload: new URLSearchParams({ token }).toString() });
    assert.equal(response.statusCode, 303, response.body);
    const setCookies = [response.headers['set-cookie'] ?? []].flat();
    const session = setCookies.find((s) => s.startsWith(`${SESSION_COOKIE}=`));
    assert.ok(session !== undefined, `a ${SESSION_COOKIE} cookie is set: ${JSON.stringify(setCookies)}`);
    const cookie = session.split(';')[0] ?? '';
    const id = cookie.slice(SESSION_COOKIE.length + 1);
    issued.push(id);
    return { response, setCookie: session, cookie, id };
  };
  const get = (url: string, cookie: string, app = c.app) => app.inject({ method: 'GET', url, headers: { host: HOST, cookie } });

  before(async () => {
    c = await start(Object.values(tokens).map((t) => t.entry));
    await c.app.ready();
  });
  after(async () => {
    await c.close();
    redis.disconnect();
  });

  test('login sets a cookie holding a random 256-bit session id, not the token; it opens reads and same-origin writes with the token\'s role', async () => {
    const { setCookie, cookie, id } = await login(tokens.operator.token);
    assert.match(id, /^[A-Za-z0-9_-]{43}$/, 'a base64url id of 32 bytes');
    for (const attribute of ['HttpOnly', 'SameSite=Strict', 'Path=/', `Max-Age=${SESSION_TTL_S}`]) assert.ok(setCookie.split('; ').includes(attribute), `${attribute} in ${setCookie.replace(id, '<id>')}`);
    assert.equal(SESSION_TTL_S, 12 * 3600);
    for (const secret of [tokens.operator.token, encodeURIComponent(tokens.operator.token), hashToken(tokens.operator.token)]) assert.ok(!setCookie.includes(secret), 'the cookie holds nothing of the token');
    assert.notEqual((await login(tokens.operator.token)).id, id, 'each login gets a new id');

    assert.equal((await get('/v1/syncs', cookie)).statusCode, 200);
    assert.equal((await get('/admin/queues/', cookie)).statusCode, 200);
    // Also for a URL the router refuses before any hook (http/framework-errors.ts): authenticated, then 400.
    const badUrl = await get('/v1/syncs/%ff', cookie);
    assert.equal(badUrl.statusCode, 400);
    assert.equal(code(badUrl), 'REQUEST_URL_INVALID');
    assert.equal((await get('/v1/syncs/%ff', `${SESSION_COOKIE}=${randomBytes(32).toString('base64url')}`)).statusCode, 401);
    // A write from this origin is served (nothing by that name), one from elsewhere refused.
    const abort = (headers: Record<string, string>) => c.app.inject({ method: 'POST', url: '/v1/syncs/no_such_thing/abort', headers: { ...headers, cookie } });
    assert.equal((await abort(SAME_ORIGIN)).statusCode, 404);
    const foreign = await abort({ host: HOST, origin: 'http://evil.example', 'sec-fetch-site': 'cross-site' });
    assert.equal(foreign.statusCode, 403);
    assert.equal(code(foreign), 'AUTH_COOKIE_CROSS_ORIGIN');
    // The session carries the operator's role, no more.
    const admin = await c.app.inject({ method: 'POST', url: '/v1/tables/shop/no_such_thing/expirations', headers: { ...SAME_ORIGIN, cookie } });
    assert.equal(admin.statusCode, 403);
    assert.equal(code(admin), 'AUTH_ROLE_INSUFFICIENT');
    assert.ok(!admin.body.includes(id));
  });

  test('logout ends the session: the cookie is expired and the old one gets 401; it must come from this origin', async () => {
    const { cookie, id } = await login(tokens.reader.token);
    assert.equal((await get('/v1/syncs', cookie)).statusCode, 200);
    const logout = (headers: Record<string, string>, payload?: string) => c.app.inject({ method: 'POST', url: LOGOUT_PATH, headers, ...(payload === undefined ? {} : { payload }) });

    // Another site's page, or a page of the same site on another origin, cannot sign the browser out.
    const foreign: Record<string, string>[] = [
      { host: HOST, cookie, origin: 'http://evil.example', 'sec-fetch-site': 'cross-site' },
      { host: HOST, cookie, origin: 'http://tributary.test:8000', 'sec-fetch-site': 'same-site' },
      { host: HOST, cookie }, // no Origin, no Sec-Fetch-Site: like any write the cookie authenticates
      { host: HOST, origin: 'http://evil.example', 'sec-fetch-site': 'cross-site' }, // the browser withheld the cookie
    ];
    for (const headers of foreign) {
      const refused = await logout(headers);
      assert.equal(refused.statusCode, 403, JSON.stringify({ ...headers, cookie: undefined }));
      assert.equal(code(refused), 'AUTH_COOKIE_CROSS_ORIGIN');
      assert.equal(refused.headers['set-cookie'], undefined);
    }
    assert.equal((await get('/v1/syncs', cookie)).statusCode, 200, 'the session survived the refused logouts');

    const out = await logout({ ...SAME_ORIGIN, ...FORM, cookie }, new URLSearchParams({ next: '/ui/' }).toString());
    assert.equal(out.statusCode, 303);
    assert.equal(out.headers.location, `${LOGIN_PATH}?next=%2Fui%2F`);
    const cleared = String(out.headers['set-cookie']);
    assert.ok(cleared.startsWith(`${SESSION_COOKIE}=;`) && cleared.includes('Max-Age=0'), cleared);
    assert.ok(!out.body.includes(id) && !cleared.includes(id));

    const after = await get('/v1/syncs', cookie);
    assert.equal(after.statusCode, 401);
    assert.equal(code(after), 'AUTH_TOKEN_INVALID');
    assert.match(String(after.headers['www-authenticate']), /^Bearer /);
    assert.ok(!after.body.includes(id));
    const page = await c.app.inject({ method: 'GET', url: '/ui/', headers: { host: HOST, cookie, accept: 'text/html' } });
    assert.equal(page.statusCode, 303);
    assert.equal(page.headers.location, `${LOGIN_PATH}?next=%2Fui%2F`);
    assert.equal(await redis.exists(`${e.prefix}:session:${sha256(id)}`), 0, 'the session is gone from Redis');
    // Signing out again, or without a session, still clears the cookie.
    assert.equal((await logout({ ...SAME_ORIGIN, cookie })).statusCode, 303);
    assert.equal((await logout({ host: HOST })).statusCode, 303);
  });

  test('a new login from the same browser ends the session its cookie held', async () => {
    const first = await login(tokens.reader.token);
    const second = await login(tokens.admin.token, c.app, { cookie: first.cookie, ...SAME_ORIGIN });
    assert.equal((await get('/v1/syncs', first.cookie)).statusCode, 401);
    assert.equal((await get('/admin/queues/api/redis/stats', second.cookie)).statusCode, 200);
  });

  test('a session opens only while its token is configured: refused once the token is removed, replaced or renamed; its role is the current one', async () => {
    const renamed = newToken('read', 'auditor');
    laterTokens.push(renamed);
    const more = await start([...Object.values(tokens).map((t) => t.entry), renamed.entry]);
    const sessions = {
      reader: await login(tokens.reader.token),
      operator: await login(tokens.operator.token),
      admin: await login(tokens.admin.token),
      auditor: await login(renamed.token, more.app),
    };
    await more.close();
    // Tokens are read at start: a coordinator started with another token file (as after a restart),
    // on the same Redis. The reader's token became operate, the operator's was replaced under its
    // name, the admin's removed, the auditor's kept under another name.
    const replacement = newToken('operate', 'operator');
    laterTokens.push(replacement);
    const changed = await start([`operate:reader:${hashToken(tokens.reader.token)}`, replacement.entry, `read:auditor-2:${hashToken(renamed.token)}`]);
    try {
      await changed.app.ready();
      for (const name of ['operator', 'admin', 'auditor'] as const) {
        const refused = await get('/v1/syncs', sessions[name].cookie, changed.app);
        assert.equal(refused.statusCode, 401, name);
        assert.equal(code(refused), 'AUTH_TOKEN_INVALID', name);
        assert.ok(!refused.body.includes(sessions[name].id));
        // Refused by the configuration: the session itself is still stored.
        assert.equal(await redis.exists(`${e.prefix}:session:${sha256(sessions[name].id)}`), 1, name);
      }
      // The reader's session follows its token's role there, and keeps read here.
      const abort = (app: Coordinator['app']) => app.inject({ method: 'POST', url: '/v1/syncs/no_such_thing/abort', headers: { ...SAME_ORIGIN, cookie: sessions.reader.cookie } });
      assert.equal((await abort(changed.app)).statusCode, 404);
      assert.equal((await abort(c.app)).statusCode, 403);
      // A login with the replacement works there; the sessions refused there still open the coordinator that has their tokens.
      assert.equal((await get('/v1/syncs', (await login(replacement.token, changed.app)).cookie, changed.app)).statusCode, 200);
      for (const name of ['operator', 'admin'] as const) assert.equal((await get('/v1/syncs', sessions[name].cookie)).statusCode, 200, name);
    } finally {
      await changed.close();
    }
  });

  test('a forged, random, malformed or old-style cookie is refused like an unknown token, and never echoed', async () => {
    const { id } = await login(tokens.admin.token);
    const values = [
      'forged',
      '',
      randomBytes(32).toString('base64url'), // well-formed, never issued
      tokens.admin.token, // a token where a session id belongs (the old cookie's content)
      sha256(id), // the session's Redis key: what a reader of Redis learns
      `${id}x`,
      `${id.slice(0, -1)}%41`,
      `"${id}"`.replace(id, randomBytes(32).toString('base64url')),
    ];
    for (const value of values) {
      const refused = await get('/v1/syncs', `${SESSION_COOKIE}=${value}`);
      assert.equal(refused.statusCode, 401, value);
      assert.equal(code(refused), 'AUTH_TOKEN_INVALID', value);
      if (value.length > 2) assert.ok(!refused.body.includes(value), 'the cookie is not echoed');
      const page = await c.app.inject({ method: 'GET', url: '/ui/', headers: { host: HOST, cookie: `${SESSION_COOKIE}=${value}`, accept: 'text/html' } });
      assert.equal(page.statusCode, 303, value);
    }
    // The old cookie, holding a configured token itself, authenticates nothing: sign in again.
    const legacy = `tributary_token=${tokens.admin.token}`;
    const old = await get('/v1/syncs', legacy);
    assert.equal(old.statusCode, 401);
    assert.equal(code(old), 'AUTH_TOKEN_MISSING');
    const page = await c.app.inject({ method: 'GET', url: '/ui/', headers: { host: HOST, cookie: legacy, accept: 'text/html' } });
    assert.equal(page.headers.location, `${LOGIN_PATH}?next=%2Fui%2F`);
    // Signing in from that browser expires the old cookie, so the token leaves its cookie store.
    const relogin = await login(tokens.admin.token, c.app, { ...SAME_ORIGIN, cookie: legacy });
    const expired = [relogin.response.headers['set-cookie'] ?? []].flat().find((s) => s.startsWith('tributary_token='));
    assert.ok(expired !== undefined && expired.startsWith('tributary_token=;') && expired.includes('Max-Age=0'), String(expired));
  });

  test('Redis holds no token and no session id: only <prefix>:session:<SHA-256 of the id>, with the token\'s name and role, expiring with the cookie; nor does the log', async () => {
    const { id } = await login(tokens.operator.token);
    const key = `${e.prefix}:session:${sha256(id)}`;
    const stored = JSON.parse((await redis.get(key)) ?? 'null') as Record<string, unknown> | null;
    assert.ok(stored !== null, `${key} holds the session`);
    assert.equal(stored.name, 'operator');
    assert.equal(stored.role, 'operate');
    const ttl = await redis.ttl(key);
    assert.ok(ttl > SESSION_TTL_S - 60 && ttl <= SESSION_TTL_S, `TTL ${ttl}`);

    // Every key of this coordinator and its value; every key name of the whole server.
    const secrets = [...[...Object.values(tokens), ...laterTokens].flatMap((t) => [t.token, hashToken(t.token)]), ...issued];
    const found: string[] = [];
    const look = (where: string, text: string) => {
      for (const secret of secrets) if (text.includes(secret)) found.push(`${where} holds ${secret === id || issued.includes(secret) ? 'a session id' : 'a token or its hash'}`);
    };
    let cursor = '0';
    let keys = 0;
    do {
      const [next, batch] = await redis.scan(cursor, 'COUNT', 1000);
      cursor = next;
      for (const name of batch) {
        look(`key name ${name}`, name);
        if (!name.startsWith(`${e.prefix}:`)) continue;
        keys++;
        look(name, await valueText(redis, name));
      }
    } while (cursor !== '0');
    assert.ok(keys > 0);
    assert.deepEqual(found, []);

    // Every login, request, refusal and logout of this file went through the log: none names a secret.
    assert.ok(logLines.length > 0);
    assert.deepEqual(logLines.filter((line) => secrets.some((s) => line.includes(s))), []);
  });
});

/** A key's value as text, whatever its type. */
async function valueText(redis: Redis, key: string): Promise<string> {
  switch (await redis.type(key)) {
    case 'string':
      return (await redis.get(key)) ?? '';
    case 'hash':
      return JSON.stringify(await redis.hgetall(key));
    case 'list':
      return JSON.stringify(await redis.lrange(key, 0, -1));
    case 'set':
      return JSON.stringify(await redis.smembers(key));
    case 'zset':
      return JSON.stringify(await redis.zrange(key, '0', '-1', 'WITHSCORES'));
    case 'stream':
      return JSON.stringify(await redis.xrange(key, '-', '+'));
    default:
      return '';
  }
}

function code(response: LightMyRequestResponse): string | undefined {
  try {
    return response.json<{ code?: string }>().code;
  } catch {
    return undefined;
  }
}
