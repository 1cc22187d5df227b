/**
 * A coordinator behind a TLS-terminating reverse proxy (an Ingress): with TRIBUTARY_TRUST_PROXY
 * naming the proxy, a request it forwards has the client's scheme (the login cookie is Secure) and
 * the client's address (a caller without a token, such as a login attempt, is rate-limited on its
 * own, not together with every other client of the proxy). Forwarded headers from any other peer,
 * or from any peer when no proxy is configured, change nothing. Real app, real Redis.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { LOGIN_PATH, SESSION_COOKIE, newToken, parseTokenEntries, type Coordinator } from '@tributary/coordinator';
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

  const sessionCookie = (response: { headers: Record<string, unknown> }): string[] => {
    const set = [response.headers['set-cookie'] ?? []].flat() as string[];
    const session = set.find((s) => s.startsWith(`${SESSION_COOKIE}=`));
    assert.ok(session !== undefined, `a session cookie is set: ${set.length} cookies`);
    return session.split('; ');
  };

  test('the login cookie is Secure when the trusted proxy says the client used https, and only then', async () => {
    const https = { 'x-forwarded-proto': 'https', 'x-forwarded-for': '198.51.100.7' };
    const viaProxy = await login(behind, admin.token, PROXY, https);
    assert.equal(viaProxy.statusCode, 303, viaProxy.body);
    assert.ok(sessionCookie(viaProxy).includes('Secure'), 'Secure behind the trusted proxy');
    // The proxy forwarding plain http: not Secure (a browser would not send a Secure cookie back over http).
    const plainHttp = await login(behind, admin.token, PROXY, { 'x-forwarded-proto': 'http' });
    assert.ok(!sessionCookie(plainHttp).includes('Secure'));
    // The same headers from a peer that is not the proxy, or to a coordinator that trusts no proxy, change nothing.
    assert.ok(!sessionCookie(await login(behind, admin.token, '203.0.113.50', https)).includes('Secure'), 'an untrusted peer');
    assert.ok(!sessionCookie(await login(direct, admin.token, PROXY, https)).includes('Secure'), 'no proxy configured');
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
