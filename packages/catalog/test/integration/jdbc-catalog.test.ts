/**
 * The JDBC catalog against the real PostgreSQL and MariaDB servers, each test in a scratch
 * database: the catalog tables Paimon's JdbcCatalog creates (names, columns, types, keys), the
 * rows it writes for databases and tables under a `catalog-key`, and its distributed lock (the
 * lock row, expiry, timeout, and mutual exclusion between two processes).
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { isTributaryError } from '@tributary/errors';
import { openCatalog, type Catalog, type CatalogOptions } from '@tributary/catalog';
import { createTable, LocalObjectStore, parseDataTypeString } from '@tributary/table';
import { describeCatalogTables, scratchDatabase, type ScratchDatabase } from '../scratch-database.ts';

/** Paimon's catalog tables, column by column: name, SQL type, nullable; then the primary key. */
const PAIMON_TABLES = {
  paimon_tables: { columns: [['catalog_key', 'varchar(255)', false], ['database_name', 'varchar(255)', false], ['table_name', 'varchar(255)', false]], key: ['catalog_key', 'database_name', 'table_name'] },
  paimon_database_properties: {
    columns: [['catalog_key', 'varchar(255)', false], ['database_name', 'varchar(255)', false], ['property_key', 'varchar(255)', false], ['property_value', 'varchar(1000)', true]],
    key: ['catalog_key', 'database_name', 'property_key'],
  },
  paimon_table_properties: {
    columns: [['catalog_key', 'varchar(255)', false], ['database_name', 'varchar(255)', false], ['table_name', 'varchar(255)', false], ['property_key', 'varchar(255)', false], ['property_value', 'varchar(1000)', true]],
    key: ['catalog_key', 'database_name', 'table_name', 'property_key'],
  },
  paimon_distributed_locks: { columns: [['lock_id', 'varchar(255)', false], ['acquired_at', 'timestamp', false], ['expire_time_seconds', 'bigint', false]], key: ['lock_id'] },
} as const;

for (const dialect of ['postgresql', 'mysql'] as const) {
  describe(`JDBC catalog on ${dialect === 'mysql' ? 'MariaDB' : 'PostgreSQL'}`, () => {
    let db: ScratchDatabase;
    let dir = '';
    let warehouse = '';
    let store: LocalObjectStore;
    const open = (options: Partial<CatalogOptions> = {}): Promise<Catalog> =>
      openCatalog(warehouse, store, { type: 'jdbc', uri: db.uri, user: db.user, password: db.password, ...options });

    before(async () => {
      db = await scratchDatabase(dialect);
      dir = await mkdtemp(join(tmpdir(), 'tributary-jdbc-catalog-'));
      warehouse = `file://${dir}`;
      store = new LocalObjectStore(dir);
    });
    after(async () => {
      await db.drop();
      await rm(dir, { recursive: true, force: true });
    });

    test('opening creates exactly the tables, columns, types and keys of Paimon’s JdbcCatalog (the lock table with lock.enabled)', async () => {
      const catalog = await open({ lockEnabled: false });
      await catalog.close();
      const { paimon_distributed_locks: locks, ...withoutLock } = PAIMON_TABLES;
      assert.deepEqual(await describeCatalogTables(db), withoutLock);
      const locking = await open({ lockEnabled: true });
      await locking.close();
      assert.deepEqual(await describeCatalogTables(db), { ...withoutLock, paimon_distributed_locks: locks });
      // Opening again over existing tables changes nothing.
      await (await open({ lockEnabled: true })).close();
      assert.deepEqual(await describeCatalogTables(db), PAIMON_TABLES);
    });

    test('databases and tables are Paimon’s rows under the catalog key; another key sees none of them', async () => {
      const catalog = await open({ catalogKey: 'k1' });
      const other = await open({ catalogKey: 'k2' });
      try {
        await catalog.createDatabase('sales');
        await catalog.createDatabase('sales'); // idempotent
        assert.deepEqual(
          await db.query(`SELECT property_key, property_value FROM paimon_database_properties WHERE catalog_key = 'k1' ORDER BY property_key`),
          [{ property_key: 'exists', property_value: 'true' }, { property_key: 'location', property_value: `${warehouse}/sales.db` }],
        );
        await createTable(store, {
          database: 'sales',
          name: 'orders',
          schema: {
            fields: [{ name: 'id', type: parseDataTypeString('BIGINT NOT NULL') }, { name: 'day', type: parseDataTypeString('STRING NOT NULL') }],
            primaryKeys: ['id', 'day'],
            partitionKeys: ['day'],
            options: { bucket: '2' },
          },
        });
        await catalog.registerTable({ database: 'sales', table: 'orders' }, `${warehouse}/sales.db/orders`);
        assert.deepEqual(await db.query(`SELECT catalog_key, database_name, table_name FROM paimon_tables`), [{ catalog_key: 'k1', database_name: 'sales', table_name: 'orders' }]);
        const properties = Object.fromEntries(
          (await db.query(`SELECT property_key, property_value FROM paimon_table_properties WHERE catalog_key = 'k1'`)).map((r) => [r['property_key'], r['property_value']]),
        );
        assert.equal(properties['primary-key'], 'id,day');
        assert.equal(properties['partition'], 'day');
        assert.equal(properties['bucket-key'], 'id');
        assert.equal(properties['bucket'], '2');

        assert.deepEqual(await catalog.listDatabases(), ['sales']);
        assert.deepEqual(await catalog.listTables('sales'), ['orders']);
        assert.equal(await catalog.tableLocation({ database: 'sales', table: 'orders' }), `${warehouse}/sales.db/orders`);
        assert.equal(await catalog.tableLocation({ database: 'sales', table: 'none' }), null);
        assert.deepEqual(await other.listDatabases(), []);
        assert.deepEqual(await other.listTables('sales'), []);
        assert.equal(await other.tableLocation({ database: 'sales', table: 'orders' }), null);

        await assert.rejects(catalog.registerTable({ database: 'sales', table: 'orders' }, `${warehouse}/sales.db/orders`), (e) => isTributaryError(e) && e.code === 'CATALOG_TABLE_EXISTS');
        await assert.rejects(catalog.registerTable({ database: 'sales', table: 'x' }, `${warehouse}/elsewhere/x`), (e) => isTributaryError(e) && e.code === 'CATALOG_LOCATION_INVALID');

        await catalog.dropTable({ database: 'sales', table: 'orders' });
        await catalog.dropTable({ database: 'sales', table: 'orders' }); // nothing left: no error
        assert.deepEqual(await catalog.listTables('sales'), []);
        assert.deepEqual(await db.query(`SELECT property_key FROM paimon_table_properties WHERE catalog_key = 'k1'`), []);
        assert.deepEqual(await catalog.listDatabases(), ['sales']); // the database stays, as in Paimon
      } finally {
        await catalog.close();
        await other.close();
      }
    });

    test('withLock holds the row <catalog-key>.<db>.<table> with its expiry while the work runs, deletes it after, also after a failure', async () => {
      const catalog = await open({ catalogKey: 'lk', lockEnabled: true, lockAcquireTimeoutMs: 90_000 });
      try {
        const held = await catalog.withLock({ database: 'd', table: 't' }, () => db.query('SELECT lock_id, expire_time_seconds FROM paimon_distributed_locks'));
        assert.deepEqual(held.map((r) => [r['lock_id'], Number(r['expire_time_seconds'])]), [['lk.d.t', 90]]);
        assert.deepEqual(await db.query('SELECT lock_id FROM paimon_distributed_locks'), []);
        await assert.rejects(catalog.withLock({ database: 'd', table: 't' }, () => Promise.reject(new Error('boom'))), /boom/);
        assert.deepEqual(await db.query('SELECT lock_id FROM paimon_distributed_locks'), []);
      } finally {
        await catalog.close();
      }
    });

    test('a held lock makes another taker wait until lock-acquire-timeout (CATALOG_LOCK_TIMEOUT); an expired row is cleared and taken', async () => {
      const catalog = await open({ catalogKey: 'to', lockEnabled: true, lockAcquireTimeoutMs: 1_000, lockCheckMaxSleepMs: 100 });
      try {
        // Another holder, alive: its row is fresh and expires in an hour.
        await db.query(dialect === 'postgresql' ? 'INSERT INTO paimon_distributed_locks (lock_id, expire_time_seconds) VALUES ($1, 3600)' : 'INSERT INTO paimon_distributed_locks (lock_id, expire_time_seconds) VALUES (?, 3600)', ['to.d.t']);
        let ran = false;
        const start = Date.now();
        await assert.rejects(
          catalog.withLock({ database: 'd', table: 't' }, async () => {
            ran = true;
          }),
          (e) => isTributaryError(e) && e.code === 'CATALOG_LOCK_TIMEOUT' && e.retryable,
        );
        assert.equal(ran, false);
        assert.ok(Date.now() - start >= 1_000, 'waited for the acquire timeout');
        // The holder died long ago: its row is older than its expiry and the next taker clears it.
        await db.query(dialect === 'postgresql' ? "UPDATE paimon_distributed_locks SET acquired_at = NOW() - INTERVAL '2 hours'" : 'UPDATE paimon_distributed_locks SET acquired_at = NOW() - INTERVAL 2 HOUR');
        assert.equal(await catalog.withLock({ database: 'd', table: 't' }, async () => 'taken'), 'taken');
        assert.deepEqual(await db.query('SELECT lock_id FROM paimon_distributed_locks'), []);
      } finally {
        await catalog.close();
      }
    });

    test('two processes taking one table’s lock never overlap: 2 × 40 read-modify-writes of a shared counter lose none', async () => {
      await (await open({ catalogKey: 'contend', lockEnabled: true })).close(); // the lock table, before the race
      const counter = join(dir, `counter-${dialect}`);
      await writeFile(counter, '0');
      const rounds = 40;
      const barrier = await mkdtemp(join(dir, 'barrier-'));
      const contender = fileURLToPath(new URL('./lock-contender.ts', import.meta.url));
      const run = () =>
        new Promise<{ sections: [number, number][]; overlaps: number }>((resolve, reject) => {
          const child = spawn(process.execPath, [contender, db.uri, counter, String(rounds), dir, barrier, '2'], {
            env: { ...process.env, CATALOG_USER: db.user, CATALOG_PASSWORD: db.password },
            stdio: ['ignore', 'pipe', 'inherit'],
          });
          let out = '';
          child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
          child.on('error', reject);
          child.on('close', (code) => (code === 0 ? resolve(JSON.parse(out) as { sections: [number, number][]; overlaps: number }) : reject(new Error(`contender exited ${code}`))));
        });
      const [a, b] = await Promise.all([run(), run()]);
      assert.equal(Number(await readFile(counter, 'utf8')), 2 * rounds);
      assert.deepEqual([a.overlaps, b.overlaps], [0, 0], 'a process found the other inside the section');
      assert.equal(a.sections.length + b.sections.length, 2 * rounds);
      for (const [s1, e1] of a.sections) for (const [s2, e2] of b.sections) assert.ok(e1 <= s2 || e2 <= s1, `sections [${s1}, ${e1}] and [${s2}, ${e2}] overlap`);
      assert.deepEqual(await db.query('SELECT lock_id FROM paimon_distributed_locks'), []);
    });
  });
}
