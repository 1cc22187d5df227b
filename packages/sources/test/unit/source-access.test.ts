import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isTributaryError } from '@tributary/protocol';
import { loadSourceAccess, mysqlEndpoint, parseRoot, s3Credentials, uriUnderRoots, type SourceAccessIo } from '../../src/access.ts';

function io(files: Record<string, string>, env: Record<string, string> = {}): SourceAccessIo {
  return {
    env,
    readText: (path) => {
      const text = files[path];
      if (text === undefined) throw Object.assign(new Error(`ENOENT ${path}`), { code: 'ENOENT' });
      return text;
    },
    realpath: (path) => Promise.resolve(path),
  };
}

const codeOf = (fn: () => unknown): string | undefined => {
  try {
    fn();
  } catch (error) {
    return isTributaryError(error) ? error.code : 'untyped';
  }
  return undefined;
};

test('roots: only plain URIs under a root pass, whatever the spelling', () => {
  const roots = ['file:///data/in/', 's3://lake/raw//', 's3a://other'].map(parseRoot);
  const allowed = [
    'file:///data/in/a.csv',
    'file://localhost/data/in/sub/a.csv',
    'FILE:///data/in/a.csv',
    'file:///data/in/*',
    'file:///data/in/part-*',
    'file:///data/in/a%20b.csv',
    's3://lake/raw/x/y.parquet',
    's3a://lake/raw/x.parquet',
    's3://lake/raw/*',
    's3://other/anything/at/all.csv',
  ];
  for (const uri of allowed) assert.equal(uriUnderRoots(uri, roots), true, uri);
  const refused = [
    'file:///etc/passwd',
    'file:///data/in/../../etc/passwd',
    'file:///data/in/%2e%2e/secret.csv',
    'file:///data/in/%2E%2e/secret.csv',
    'file:///data/in/..%2F..%2Fetc/passwd',
    'file:///data/in/sub%2F..%2F..%2Fx.csv',
    'file:///data/in/./a.csv',
    'file:///data/in//a.csv',
    'file:///data/in/',
    'file:///data/in',
    'file:///data/inside/a.csv',
    'file:///data/in*',
    'file://evil.example/data/in/a.csv',
    'file:///data/in/a.csv?x=1',
    'file:///data/in/a.csv#f',
    'file:///data/in/a%00.csv',
    'file:///data/in/a%5C..%5Cb.csv',
    'file:///data/in/%E0%A4%A.csv',
    'file:/data/in/a.csv',
    '/data/in/a.csv',
    'http://lake/raw/x.csv',
    's3://lake/raw',
    's3://lake/rawx/y.csv',
    's3://lake/raw*',
    's3://lake/other/y.csv',
    's3://lake/raw/../warehouse/db.db/t/bucket-0/data.parquet',
    's3://lake.evil/raw/x.csv',
    's3://LAKE/raw/x.csv',
  ];
  for (const uri of refused) assert.equal(uriUnderRoots(uri, roots), false, uri);
  assert.equal(uriUnderRoots('file:///data/in/a.csv', []), false, 'no root, nothing allowed');
});

test('roots must be plain; the warehouse is no root by default', () => {
  assert.equal(codeOf(() => parseRoot('file:///data/../etc')), 'SOURCE_ACCESS_CONFIG_INVALID');
  assert.equal(codeOf(() => parseRoot('http://x/y')), 'SOURCE_ACCESS_CONFIG_INVALID');
  assert.equal(loadSourceAccess(io({})).roots.length, 0);
  const access = loadSourceAccess(io({}, { TRIBUTARY_SOURCE_ROOTS: 'file:///a, s3://bkt/c' }));
  assert.deepEqual(access.roots, [
    { scheme: 'file', segments: ['a'] },
    { scheme: 's3', bucket: 'bkt', segments: ['c'] },
  ]);
});

test('connections file: secrets by file or variable, never inline, and never quoted in an error', () => {
  const file = {
    connections: {
      'orders-db': { kind: 'mysql', host: 'db.internal', user: 'loader', passwordFile: '/run/secrets/orders' },
      analytics: { kind: 'mysql', host: 'an', port: 3307, user: 'ro', passwordEnv: 'AN_PW' },
      landing: { kind: 's3', endpoint: 'http://minio:9000', accessKeyId: 'AK', secretAccessKeyEnv: 'LANDING_KEY' },
    },
    sourceRoots: ['s3://lake/raw'],
  };
  const access = loadSourceAccess(io({ '/etc/t.json': JSON.stringify(file), '/run/secrets/orders': 'pw-1\n' }, { TRIBUTARY_CONNECTIONS_FILE: '/etc/t.json', AN_PW: 'pw-2', LANDING_KEY: 'sk' }));
  assert.equal(access.allowInlineCredentials, false);
  assert.equal(access.roots.length, 1);
  assert.deepEqual(mysqlEndpoint({ connection: 'orders-db' }, access), { host: 'db.internal', port: 3306, user: 'loader', password: 'pw-1', label: 'connection orders-db' });
  assert.equal(mysqlEndpoint({ connection: 'analytics' }, access).password, 'pw-2');
  assert.equal(codeOf(() => mysqlEndpoint({ connection: 'nope' }, access)), 'SOURCE_CONNECTION_UNKNOWN');
  assert.deepEqual(s3Credentials('landing', access), { endpoint: 'http://minio:9000', accessKeyId: 'AK', secretAccessKey: 'sk' });
  assert.equal(codeOf(() => s3Credentials('orders-db', access)), 'SOURCE_CONNECTION_UNKNOWN', 'a MySQL connection is no S3 one');
  assert.equal(codeOf(() => mysqlEndpoint({ connection: 'landing' }, access)), 'SOURCE_CONNECTION_UNKNOWN', 'nor the other way round');
  assert.equal(codeOf(() => mysqlEndpoint({ host: 'h', user: 'u', password: 'p' }, access)), 'SOURCE_CREDENTIALS_INLINE');
  const unset = loadSourceAccess(io({ '/etc/t.json': JSON.stringify(file) }, { TRIBUTARY_CONNECTIONS_FILE: '/etc/t.json' }));
  assert.equal(codeOf(() => mysqlEndpoint({ connection: 'orders-db' }, unset)), 'SOURCE_SECRET_UNAVAILABLE');
  assert.equal(codeOf(() => mysqlEndpoint({ connection: 'analytics' }, unset)), 'SOURCE_SECRET_UNAVAILABLE');

  const inline = loadSourceAccess(io({}, { TRIBUTARY_ALLOW_INLINE_CREDENTIALS: '1' }));
  assert.equal(mysqlEndpoint({ host: 'h', user: 'u', password: 'p' }, inline).port, 3306);

  const withPassword = { connections: { x: { kind: 'mysql', host: 'h', user: 'u', password: 'hunter2-inline' } } };
  const s3Both = { connections: { x: { kind: 's3', accessKeyId: 'a', secretAccessKeyEnv: 'A', secretAccessKeyFile: '/k' } } };
  for (const bad of [withPassword, s3Both, { connections: { x: { kind: 's3', accessKeyId: 'a', secretAccessKey: 'hunter2-inline' } } }, { connections: { x: { kind: 'mysql', host: 'h', user: 'u' } } }, { sourceRoots: ['ftp://x'] }, { extra: 1 }]) {
    try {
      loadSourceAccess(io({ '/c.json': JSON.stringify(bad) }, { TRIBUTARY_CONNECTIONS_FILE: '/c.json' }));
      assert.fail(JSON.stringify(bad));
    } catch (error) {
      assert.ok(isTributaryError(error) && error.code === 'SOURCE_ACCESS_CONFIG_INVALID', String(error));
      assert.ok(!error.message.includes('hunter2'), error.message);
    }
  }
});
