/**
 * A coordinator behind a TLS-terminating reverse proxy (an Ingress): with TRIBUTARY_TRUST_PROXY
 * naming the proxy, a request it forwards has the client's scheme (the login cookie is Secure and
 * `__Host-` prefixed, and only that name authenticates over https) and
 * the client's address (a caller without a token, such as a login attempt, is rate-limited on its
 * own, not together with every other client of the proxy). Forwarded headers from any other peer,
 * or from any peer when no proxy is configured, change nothing. Real app, real Redis.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { LOGIN_PATH, SECURE_SESSION_COOKIE, SESSION_COOKIE, newToken, parseTokenEntries, type Coordinator } from '@tributary/coordinator';
import { inProcessCoordinator, syncEnv } from '../sync/harness.ts';

/** The proxy (the trusting coordinator trusts its /24); the rate-limit test uses another of its addresses, so the login test's counts are not in its way. */
const PROXY = '10.1.2.3';
const PROXY_2 = '10.1.2.4';
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };
const LIMIT = 3;

describe('a coordinator behind a trusted reverse proxy (real app, real Redis)', () => {
  const admin = newToken('admin', 'admin');
  const trusting = syncEnv('proxy-trusted');
  const plain = syncEnv('proxy-none');
  let behind: Coordinator;
  let direct: Coordinator;

  const start = (e: ReturnType<typeof syncEnv>, trustProxy?: string[]) =>
    inProcessCoordinator(e, {
      auth: { tokens: parseTokenEntries(admin.entry, 'test'), ...(trustProxy === undefined ? {} : { trustProxy }) },
      rateLimit: { max: LIMIT, timeWindowMs: 60_000 },
    });

  before(async () => {
    [behind, direct] = await Promise.all([start(trusting, ['10.1.2.0/24']), start(plain)]);
  });
  after(async () => {
    await Promise.all([behind.close(), direct.close()]);
  });

  const login = (c: Coordinator, token: string, remoteAddress: string, forwarded: Record<string, string>) =>
    c.app.inject({ method: 'POST', url: LOGIN_PATH, remoteAddress, headers: { ...FORM, ...forwarded }, payload: new URLSearchParams({ token }).toString() });

  const setCookies = (response: { headers: Record<string, unknown> }): string[] => [response.headers['set-cookie'] ?? []].flat() as string[];
  const sessionCookie = (response: { headers: Record<string, unknown> }, name = SESSION_COOKIE): string[] => {
    const set = setCookies(response);
    const session = set.find((s) => s.startsWith(`${name}=`));
    assert.ok(session !== undefined, `a ${name} cookie is set: ${set.map((c) => c.split('=')[0]).join(', ')}`);
    return session.split('; ');
  };

  test('the login cookie is Secure and __Host- prefixed when the trusted proxy says the client used https, and only then', async () => {
    const https = { 'x-forwarded-proto': 'https', 'x-forwarded-for': '198.51.100.7' };
    const viaProxy = await login(behind, admin.token, PROXY, https);
    assert.equal(viaProxy.statusCode, 303, viaProxy.body);
    const secure = sessionCookie(viaProxy, SECURE_SESSION_COOKIE);
    // What a browser requires of a __Host- cookie: Secure, Path=/, no Domain.
    assert.ok(secure.includes('Secure') && secure.includes('Path=/') && !secure.some((a) => /^domain=/i.test(a)), secure.join('; '));
    assert.ok(!setCookies(viaProxy).some((c) => c.startsWith(`${SESSION_COOKIE}=`)), 'no plain-named session cookie over https');
    // The proxy forwarding plain http: not Secure (a browser would not send a Secure cookie back over http), the plain name.
    const plainHttp = await login(behind, admin.token, PROXY, { 'x-forwarded-proto': 'http' });
    assert.ok(!sessionCookie(plainHttp).includes('Secure'));
    // The same headers from a peer that is not the proxy, or to a coordinator that trusts no proxy, change nothing.
    assert.ok(!sessionCookie(await login(behind, admin.token, '203.0.113.50', https)).includes('Secure'), 'an untrusted peer');
    assert.ok(!sessionCookie(await login(direct, admin.token, PROXY, https)).includes('Secure'), 'no proxy configured');
  });

  test('over https only the __Host- cookie authenticates: a plain-named session cookie (planted from a sibling subdomain, or an old one) is refused and expired', async () => {
    const https = (client: string) => ({ 'x-forwarded-proto': 'https', 'x-forwarded-for': client });
    const read = (client: string, cookie: string) => behind.app.inject({ method: 'GET', url: '/v1/syncs', remoteAddress: PROXY, headers: { ...https(client), cookie } });
    // A valid session id, as a plain-named cookie would carry it: one opened over http.
    const id = sessionCookie(await login(behind, admin.token, PROXY, { 'x-forwarded-proto': 'http', 'x-forwarded-for': '198.51.100.30' }))[0]?.split('=')[1] ?? '';
    assert.match(id, /^.{43}$/);
    assert.equal((await read('198.51.100.31', `${SESSION_COOKIE}=${id}`)).statusCode, 401, 'the plain name over https');
    assert.equal((await read('198.51.100.32', `${SECURE_SESSION_COOKIE}=${id}`)).statusCode, 200, 'the __Host- name over https');
    // Over http the plain name is the login cookie (a browser never sends a Secure cookie there).
    const overHttp = await behind.app.inject({ method: 'GET', url: '/v1/syncs', remoteAddress: PROXY, headers: { 'x-forwarded-proto': 'http', cookie: `${SESSION_COOKIE}=${id}` } });
    assert.equal(overHttp.statusCode, 200);
    // A login over https from a browser still sending the plain-named cookie expires it.
    const relogin = await behind.app.inject({
      method: 'POST',
      url: LOGIN_PATH,
      remoteAddress: PROXY,
      headers: { ...FORM, ...https('198.51.100.33'), cookie: `${SESSION_COOKIE}=${id}` },
      payload: new URLSearchParams({ token: admin.token }).toString(),
    });
    assert.equal(relogin.statusCode, 303, relogin.body);
    assert.ok(sessionCookie(relogin, SESSION_COOKIE).includes('Max-Age=0'), 'the plain-named cookie expired');
    assert.match(sessionCookie(relogin, SECURE_SESSION_COOKIE)[0] ?? '', new RegExp(`^${SECURE_SESSION_COOKIE}=.{43}$`));
  });

  test('callers without a token are rate-limited per client behind the trusted proxy, not all together', async () => {
    const attempt = (c: Coordinator, client: string) => login(c, 'not-a-configured-token', PROXY_2, { 'x-forwarded-for': client });
    for (const c of [behind, direct]) {
      for (let i = 0; i < LIMIT; i++) assert.equal((await attempt(c, '198.51.100.20')).statusCode, 401);
      const over = await attempt(c, '198.51.100.20');
      assert.equal(over.statusCode, 429, over.body);
      assert.equal(over.json<{ code: string }>().code, 'RATE_LIMITED');
    }
    // Another client of the same proxy: its own count behind the trusting coordinator…
    assert.equal((await attempt(behind, '198.51.100.21')).statusCode, 401);
    // …but the proxy's one address for all its clients where the headers are not believed.
    assert.equal((await attempt(direct, '198.51.100.21')).statusCode, 429);
    // A client cannot escape its count by naming another address through a peer that is not the proxy.
    const spoof = (client: string) => behind.app.inject({ method: 'POST', url: LOGIN_PATH, remoteAddress: '203.0.113.60', headers: { ...FORM, 'x-forwarded-for': client }, payload: 'token=x' });
    for (let i = 0; i < LIMIT; i++) assert.equal((await spoof(`192.0.2.${i}`)).statusCode, 401);
    assert.equal((await spoof('192.0.2.99')).statusCode, 429);
  });
});
