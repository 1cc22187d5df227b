import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isTributaryError } from '@tributary/protocol';
import { findToken, hashToken, newToken, parseTokenEntries, roleAllows } from '../../../src/auth-tokens.ts';
import { routeRole } from '../../../src/http/auth.ts';
import { isLoopback } from '../../../src/loopback.ts';

const HASH = hashToken('secret-token');

test('token entries: role:hash and role:name:hash, separated by newlines, commas or blanks, with comments', () => {
  const tokens = parseTokenEntries(`# ops\nread:${HASH}\noperate:ci:${HASH.toUpperCase()}, admin:root:${HASH}  # rotated in\n\n`, 'file');
  assert.deepEqual(
    tokens.map((t) => [t.role, t.name, t.sha256]),
    [
      ['read', `read-${HASH.slice(0, 8)}`, HASH],
      ['operate', 'ci', HASH],
      ['admin', 'root', HASH],
    ],
  );
  assert.deepEqual(parseTokenEntries('', 'env'), []);
});

test('a malformed entry is refused by position, without echoing it (a token pasted in clear)', () => {
  for (const bad of ['admin:not-a-hash', `root:${HASH}`, `read:a:b:${HASH}`, `read:bad name!:${HASH}`, 'plain-token']) {
    assert.throws(
      () => parseTokenEntries(`read:${HASH}\n${bad}`, 'TRIBUTARY_AUTH_TOKENS'),
      (error: unknown) => isTributaryError(error) && error.code === 'AUTH_CONFIG_INVALID' && error.message.includes('entry 2') && !error.message.includes(bad),
      bad,
    );
  }
});

test('findToken: the configured token a presented one hashes to; rotation keeps two valid at once', () => {
  const old = newToken('admin', 'old');
  const next = newToken('admin', 'new');
  const tokens = parseTokenEntries(`${old.entry}\n${next.entry}`, 'test');
  assert.equal(findToken(tokens, old.token)?.name, 'old');
  assert.equal(findToken(tokens, next.token)?.name, 'new');
  assert.equal(findToken(tokens, `${old.token}x`), undefined);
  assert.equal(findToken([], old.token), undefined);
  assert.match(old.token, /^[A-Za-z0-9_-]{43}$/);
});

test('roles are ordered: admin ⊇ operate ⊇ read', () => {
  assert.ok(roleAllows('admin', 'operate') && roleAllows('admin', 'read') && roleAllows('operate', 'read') && roleAllows('read', 'read'));
  assert.ok(!roleAllows('read', 'operate') && !roleAllows('operate', 'admin'));
});

test('route roles: configured, public, GET read, dashboard retry operate, any other write admin', () => {
  const pub = ['/healthz'];
  assert.equal(routeRole('POST', '/v1/syncs', 'operate', pub), 'operate');
  assert.equal(routeRole('GET', '/healthz', undefined, pub), 'public');
  assert.equal(routeRole('POST', '/v1/syncs', 'operate', ['/v1/syncs']), 'public', 'the operator\u2019s public list wins');
  assert.equal(routeRole(['GET', 'HEAD'], '/v1/syncs/:id', undefined, pub), 'read');
  assert.equal(routeRole(['PUT'], '/admin/queues/api/queues/:queueName/:jobId/retry', undefined, pub), 'operate');
  assert.equal(routeRole(['PUT'], '/admin/queues/api/queues/:queueName/retry/:queueStatus', undefined, pub), 'operate');
  assert.equal(routeRole(['POST'], '/admin/queues/api/queues/:queueName/add', undefined, pub), 'admin');
  assert.equal(routeRole(['GET', 'HEAD'], '/admin/queues/api/redis/stats', undefined, pub), 'admin', 'Redis\u2019s INFO is admin\u2019s');
  assert.equal(routeRole('DELETE', '/v1/something-new', undefined, pub), 'admin');
  assert.equal(routeRole(['GET', 'POST'], '/v1/mixed', undefined, pub), 'admin');
});

test('loopback addresses', () => {
  for (const h of ['127.0.0.1', '127.1.2.3', '::1', '[::1]', 'localhost']) assert.ok(isLoopback(h), h);
  for (const h of ['0.0.0.0', '::', '10.0.0.1', '192.168.1.2', 'example.com', '']) assert.ok(!isLoopback(h), h);
});
