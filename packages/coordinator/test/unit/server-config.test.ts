import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isTributaryError } from '@tributary/protocol';
import { hashToken } from '../../src/auth-tokens.ts';
import { securityFromEnv } from '../../src/server-config.ts';

test('schedule limits: 1,000 schedules and 60 s between fires by default; the variables set them; a bad value names its variable', () => {
  assert.deepEqual(securityFromEnv({}).scheduleLimits, { maxSchedules: 1000, minIntervalMs: 60_000 });
  assert.deepEqual(securityFromEnv({ TRIBUTARY_MAX_SCHEDULES: '25', TRIBUTARY_SCHEDULE_MIN_INTERVAL_MS: '0' }).scheduleLimits, { maxSchedules: 25, minIntervalMs: 0 });
  for (const [name, value] of [['TRIBUTARY_MAX_SCHEDULES', '0'], ['TRIBUTARY_SCHEDULE_MIN_INTERVAL_MS', '-1'], ['TRIBUTARY_SCHEDULE_MIN_INTERVAL_MS', '86400001'], ['TRIBUTARY_SCHEDULE_MIN_INTERVAL_MS', 'soon']] as const) {
    assert.throws(() => securityFromEnv({ [name]: value }), (e: unknown) => isTributaryError(e) && e.context['variable'] === name, `${name}=${value}`);
  }
});

test('trusted proxies: none by default; addresses, CIDR ranges and range names; anything else, or proxies without a token, refused naming the variable', () => {
  const tokens = { TRIBUTARY_AUTH_TOKENS: `admin:${hashToken('a-token-of-forty-characters-or-so-000000')}` };
  assert.equal(securityFromEnv(tokens).auth.trustProxy, undefined);
  assert.deepEqual(securityFromEnv({ ...tokens, TRIBUTARY_TRUST_PROXY: ' 10.0.0.0/8, 192.168.1.7 fd00::/8,::1 loopback ' }).auth.trustProxy, ['10.0.0.0/8', '192.168.1.7', 'fd00::/8', '::1', 'loopback']);
  for (const value of ['true', '*', 'ingress.local', '10.0.0.0/33', 'fd00::/129', '10.0.0.0/', '10.0.0/8', '1']) {
    assert.throws(
      () => securityFromEnv({ ...tokens, TRIBUTARY_TRUST_PROXY: `loopback,${value}` }),
      (e: unknown) => isTributaryError(e) && e.code === 'REQUEST_INVALID' && e.context['variable'] === 'TRIBUTARY_TRUST_PROXY' && /entry 2/.test(e.message),
      value,
    );
  }
  assert.throws(() => securityFromEnv({ TRIBUTARY_TRUST_PROXY: 'loopback' }), (e: unknown) => isTributaryError(e) && e.code === 'AUTH_CONFIG_INVALID');
});
