/**
 * The configuration: precedence (flags > environment > file > defaults), every bad value an error
 * naming its key and source and never the value, unknown file keys refused, the variables the
 * processes have always read, and docs/configuration.md equal to the key table.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { CONFIG_KEYS, ConfigError, ConfigSchema, CONFIGURATION_DOC, configAsEnv, configurationDoc, resolveConfig } from '@tributary/cli';

const problemsOf = (fn: () => unknown): readonly string[] => {
  try {
    fn();
  } catch (error) {
    assert.ok(error instanceof ConfigError, String(error));
    return error.problems;
  }
  assert.fail('no ConfigError');
};

describe('configuration', () => {
  test('defaults, then file, then environment, then flags', () => {
    const file = { path: 'cfg.json', json: { redis: { port: 7001, host: 'file-host' }, coordinator: { port: 9001 }, prefix: 'from-file' } };
    const { config, sources } = resolveConfig({
      env: { TRIBUTARY_REDIS_PORT: '7002', TRIBUTARY_PORT: '9002', TRIBUTARY_PREFIX: '' },
      flags: { 'coordinator.port': '9003' },
      file,
    });
    assert.equal(config['coordinator.port'], 9003);
    assert.equal(sources['coordinator.port'], 'flag');
    assert.equal(config['redis.port'], 7002);
    assert.equal(sources['redis.port'], 'environment');
    assert.equal(config['redis.host'], 'file-host');
    assert.equal(sources['redis.host'], 'file');
    // An empty variable is unset: the file's value holds.
    assert.equal(config.prefix, 'from-file');
    assert.equal(config['worker.concurrency'], 1);
    assert.equal(sources['worker.concurrency'], 'default');
    assert.equal(config.warehouse, 's3://tributary/warehouse');
    assert.equal(config.clusterSecret, undefined);
  });

  test('typed values: lists, booleans, numbers from text and from JSON', () => {
    const { config } = resolveConfig({
      env: { TRIBUTARY_SOURCE_ROOTS: 'file:///a, s3://b/c', TRIBUTARY_TEST_MODE: '1' },
      file: { path: 'f', json: { sources: { allowInlineCredentials: true }, worker: { concurrency: 4 } } },
    });
    assert.deepEqual(config['sources.roots'], ['file:///a', 's3://b/c']);
    assert.equal(config['coordinator.testMode'], true);
    assert.equal(config['sources.allowInlineCredentials'], true);
    assert.equal(config['worker.concurrency'], 4);
  });

  test('every bad value at once, each naming key and source, never the value', () => {
    const secret = 'not-a-number-s3cr3t';
    const problems = problemsOf(() =>
      resolveConfig({
        env: { TRIBUTARY_REDIS_PORT: secret, TRIBUTARY_S3_ENDPOINT: 'ftp://x' },
        flags: { 'worker.concurrency': '0' },
        file: { path: 'my.json', json: { client: { token: 12345678901 } } },
      }),
    );
    assert.deepEqual(problems, [
      'redis.port (environment variable TRIBUTARY_REDIS_PORT) must be an integer from 1 to 65535',
      's3.endpoint (environment variable TRIBUTARY_S3_ENDPOINT) must be an http(s) URL',
      'worker.concurrency (flag --concurrency) must be an integer from 1 to 1024',
      'client.token (file my.json) must be a bearer token',
    ]);
    assert.ok(!problems.join('\n').includes(secret) && !problems.join('\n').includes('12345678901'));
  });

  test('a file: unknown keys and non-objects are refused by name', () => {
    assert.deepEqual(problemsOf(() => resolveConfig({ env: {}, file: { path: 'f.json', json: { redis: { prot: 1 }, colour: 'x' } } })), [
      'file f.json: unknown key redis.prot',
      'file f.json: unknown key colour',
    ]);
    assert.deepEqual(problemsOf(() => resolveConfig({ env: {}, file: { path: 'f.json', json: [1] } })), ['file f.json: must hold a JSON object']);
  });

  test('as variables: each key under the variable the processes always read', () => {
    const { config } = resolveConfig({ env: { TRIBUTARY_AUTH_PUBLIC: '/healthz,/docs', TRIBUTARY_TEST_MODE: 'true' } });
    const env = configAsEnv(config, { OTHER: 'kept', TRIBUTARY_CLUSTER_SECRET: 'stale' });
    assert.equal(env.OTHER, 'kept');
    assert.equal(env.TRIBUTARY_AUTH_PUBLIC, '/healthz,/docs');
    assert.equal(env.TRIBUTARY_TEST_MODE, '1');
    assert.equal(env.TRIBUTARY_REDIS_PORT, '6390');
    assert.equal(env.TRIBUTARY_CLUSTER_SECRET, undefined, 'unset in the configuration is unset in its variables');
  });

  test('every key has a distinct variable; secrets have no flag', () => {
    const specs = Object.values(CONFIG_KEYS);
    assert.equal(new Set(specs.map((s) => s.env)).size, specs.length);
    for (const s of specs) if ('secret' in s && s.secret) assert.equal('flag' in s, false, s.env);
  });

  test('docs/configuration.md is the generated table, one row per key of the schema', () => {
    const doc = readFileSync(CONFIGURATION_DOC, 'utf8');
    assert.equal(doc, configurationDoc(), 'run: node packages/cli/src/config/doc.ts --write');
    for (const key of Object.keys(ConfigSchema.shape)) assert.match(doc, new RegExp(`^\\| \`${key.replaceAll('.', '\\.')}\` \\|`, 'm'));
  });
});
