/**
 * `tributary coordinator` with a JDBC catalog (catalog.* keys), real processes and a scratch
 * PostgreSQL database: a catalog URL that is not one is a configuration error (exit 2), a catalog
 * database that does not answer exits 3, and the password is never printed; with the catalog up, the
 * CLI's table commands create, list and drop through it (its rows in paimon_tables).
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { scratchDatabase, type ScratchDatabase } from '../../../packages/catalog/test/scratch-database.ts';
import { createTable, parseDataTypeString } from '@tributary/table';
import { freePort } from '@tributary/testkit';
import { ORDERS_COLUMNS, spawnListeningCoordinator, spawnWorker, stop, syncEnv } from '../sync/harness.ts';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const SECRET_PASSWORD_MARK = 'pw-s3cr3t';

function tributary(args: readonly string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, ['packages/cli/src/main.ts', ...args], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve) => child.once('close', (code) => resolve({ code, stdout, stderr })));
}

describe('tributary coordinator with a JDBC catalog', () => {
  const e = syncEnv('cli-catalog');

  test('a URL that is not a JDBC one: exit 2, CATALOG_CONFIG_INVALID; an unreachable catalog database: exit 3; the password never printed', async () => {
    const password = `${SECRET_PASSWORD_MARK}-1`;
    const bad = await tributary(['coordinator', '--port', '0'], { ...e.env, TRIBUTARY_CATALOG_TYPE: 'jdbc', TRIBUTARY_CATALOG_URI: 'jdbc:sqlite:/tmp/catalog.db', TRIBUTARY_CATALOG_PASSWORD: password });
    assert.equal(bad.code, 2, bad.stderr);
    assert.match(bad.stderr, /^coordinator: CATALOG_CONFIG_INVALID: catalog\.uri is not a JDBC URL/m);
    const port = await freePort();
    const away = await tributary(['coordinator', '--port', '0'], {
      ...e.env,
      TRIBUTARY_CATALOG_TYPE: 'jdbc',
      TRIBUTARY_CATALOG_URI: `jdbc:postgresql://127.0.0.1:${port}/catalog`,
      TRIBUTARY_CATALOG_USER: 'tributary',
      TRIBUTARY_CATALOG_PASSWORD: password,
    });
    assert.equal(away.code, 3, away.stderr);
    assert.match(away.stderr, /^coordinator: CATALOG_UNAVAILABLE: /m);
    for (const run of [bad, away]) assert.ok(!run.stdout.includes(password) && !run.stderr.includes(password), 'the password is not printed');
  });

  describe('with the catalog database up', () => {
    let db: ScratchDatabase;
    let coordinator: ChildProcess;
    let worker: ChildProcess;
    let env: NodeJS.ProcessEnv = {};

    before(async () => {
      db = await scratchDatabase('postgresql');
      const catalogEnv = { TRIBUTARY_CATALOG_TYPE: 'jdbc', TRIBUTARY_CATALOG_URI: db.uri, TRIBUTARY_CATALOG_USER: db.user, TRIBUTARY_CATALOG_PASSWORD: db.password, TRIBUTARY_CATALOG_KEY: 'cli' };
      const started = await spawnListeningCoordinator(e, catalogEnv);
      coordinator = started.child;
      worker = await spawnWorker(e);
      env = { ...e.env, TRIBUTARY_URL: started.url };
    });
    after(async () => {
      await Promise.all([stop(worker), stop(coordinator)]);
      await db.drop();
    });

    test('table create, list and drop go through the catalog', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'tributary-cli-catalog-'));
      writeFileSync(join(dir, 'columns.json'), JSON.stringify(ORDERS_COLUMNS));
      const created = await tributary(['table', 'create', 'shop.orders', '--columns', `@${join(dir, 'columns.json')}`], env);
      assert.equal(created.code, 0, created.stderr);
      assert.deepEqual(await db.query('SELECT catalog_key, database_name, table_name FROM paimon_tables'), [{ catalog_key: 'cli', database_name: 'shop', table_name: 'orders' }]);
      // A table written straight into the warehouse, without the catalog, is not one of its tables.
      await createTable(e.store, { database: 'shop', name: 'stray', schema: { fields: [{ name: 'id', type: parseDataTypeString('INT NOT NULL') }] } });
      const listed = await tributary(['table', 'list'], env);
      assert.equal(listed.code, 0, listed.stderr);
      assert.match(listed.stdout, /shop\.orders|shop\s+orders/);
      assert.doesNotMatch(listed.stdout, /stray/);
      const dropped = await tributary(['table', 'drop', 'shop.orders', '--yes'], env);
      assert.equal(dropped.code, 0, dropped.stderr);
      assert.deepEqual(await db.query('SELECT table_name FROM paimon_tables'), []);
      assert.equal((await tributary(['table', 'show', 'shop.orders'], env)).code, 1);
    });
  });
});
