import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { test } from 'node:test';
import { isTributaryError } from '@tributary/protocol';
import { noSourceAccess } from '../../src/access.ts';
import { FilesSource } from '../../src/files/source.ts';
import { GeneratorSource } from '../../src/generator/source.ts';
import { MysqlSource } from '../../src/mysql/source.ts';
import { PostgresSource } from '../../src/postgres/source.ts';
import { SOURCE_KIND_NAMES, SyncSourceSpec, openSource, summarizeSource } from '../../src/registry.ts';
import type { SourceContext } from '../../src/source.ts';

const context: SourceContext = {
  openStore: () => assert.fail('no store is opened to create a source'),
  columns: ['id'],
  access: noSourceAccess(),
};

test('every kind is found by its name, and the request union accepts exactly those kinds', () => {
  assert.deepEqual(SOURCE_KIND_NAMES, ['generator', 'files', 'mysql', 'postgres']);
  assert.ok(openSource({ kind: 'generator', shards: 2, rowsPerShard: 10 }, context) instanceof GeneratorSource);
  assert.ok(openSource({ kind: 'files', format: 'csv', uris: ['file:///in/a.csv'] }, context) instanceof FilesSource);
  assert.ok(openSource({ kind: 'mysql', connection: 'orders-db', databases: 'shop_%', tables: 'orders_%' }, context) instanceof MysqlSource);
  assert.ok(openSource({ kind: 'postgres', connection: 'orders-pg', databases: 'shop_%', tables: 'orders_%' }, context) instanceof PostgresSource);
  assert.equal(SyncSourceSpec.safeParse({ kind: 'postgres', connection: 'x' }).success, false); // no databases, no tables
  assert.equal(SyncSourceSpec.safeParse({ kind: 'oracle', connection: 'x' }).success, false);
  assert.equal(SyncSourceSpec.parse({ kind: 'generator', shards: 2, rowsPerShard: 10 }).kind, 'generator');
});

test('an unknown kind or an invalid spec is SOURCE_SPEC_INVALID, naming the kind', () => {
  assert.throws(
    () => openSource({ kind: 'oracle' }, context),
    (e: unknown) => isTributaryError(e) && e.code === 'SOURCE_SPEC_INVALID' && e.context.kind === 'oracle',
  );
  assert.throws(
    () => openSource({ kind: 'postgres' }, context),
    (e: unknown) => isTributaryError(e) && e.code === 'SOURCE_SPEC_INVALID' && e.message.startsWith('postgres source:'),
  );
  assert.throws(
    () => openSource({ kind: 'files', format: 'xlsx', uris: ['file:///in/a.xlsx'] }, context),
    (e: unknown) => isTributaryError(e) && e.code === 'SOURCE_SPEC_INVALID' && e.message.startsWith('files source:'),
  );
});

test('what a spec says by itself: the generator names its shards and its test hook; others say nothing', () => {
  assert.deepEqual(summarizeSource(SyncSourceSpec.parse({ kind: 'generator', shards: 3, rowsPerShard: 1 })), { shards: 3 });
  assert.deepEqual(summarizeSource(SyncSourceSpec.parse({ kind: 'generator', shards: 3, rowsPerShard: 1, faults: { delayMsPerBatch: 5 } })), {
    shards: 3,
    testHook: 'faults',
  });
  assert.deepEqual(summarizeSource(SyncSourceSpec.parse({ kind: 'files', format: 'ndjson', uris: ['file:///in/a.ndjson'] })), {});
});

test('only @tributary/sources (and @tributary/catalog, for the JDBC catalog) depends on a database driver, and the protocol does not depend on it', () => {
  const packages = new URL('../../../', import.meta.url);
  for (const name of readdirSync(packages)) {
    const manifest = JSON.parse(readFileSync(new URL(`${name}/package.json`, packages), 'utf8')) as { dependencies?: Record<string, string> };
    const deps = Object.keys(manifest.dependencies ?? {});
    for (const driver of ['mysql2', 'mysql', 'pg', 'pg-copy-streams', 'postgres']) {
      const allowed = (name === 'sources' && ['mysql2', 'pg', 'pg-copy-streams'].includes(driver)) || (name === 'catalog' && ['mysql2', 'pg'].includes(driver));
      assert.equal(deps.includes(driver), allowed, `${name} and ${driver}`);
    }
    if (name === 'protocol' || name === 'table') assert.ok(!deps.includes('@tributary/sources'), `${name} must not depend on the sources`);
  }
});
