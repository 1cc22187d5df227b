/**
 * Tributary and Paimon Java on ONE JDBC catalog (Paimon's JdbcCatalog tables in PostgreSQL and in
 * MariaDB, the same `catalog-key`) and one warehouse on MinIO: the catalog tables each creates
 * are the same; a table created by either is listed, read and written by the other, dropped by
 * Java it is gone for Tributary; the JDBC lock taken by Tributary holds a Java commit back; and a
 * Java writer and Tributary syncs committing to one table in a loop (20 rounds each, with the lock)
 * lose no snapshot and no row, read back by both.
 */
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { after, before, describe, test } from 'node:test';
import type { Coordinator } from '@tributary/coordinator';
import { openCatalog } from '@tributary/catalog';
import { GENERATOR_COLUMNS, generatorRow, rowConverter } from '@tributary/sources';
import { openTable, type InternalRow } from '@tributary/table';
import { canonicalRows, paimonJava, readResults, type CatalogListing, type OracleRow, type TableRef } from '@tributary/testkit';
import { describeCatalogTables, scratchDatabase, type ScratchDatabase } from '../../packages/catalog/test/scratch-database.ts';
import { ORDERS_COLUMNS, createOrdersTable, explainSync, generatorSource, inProcessCoordinator, listKeys, outputOf, readRows, spawnWorker, stop, syncEnv, waitForPhase, waitUntil, type SyncEnv } from '../integration/sync/harness.ts';

const CATALOG_KEY = 'shared';
const ROUNDS = 20;
const SYNC_SHARDS = 2;
const SYNC_ROWS = 20;
const JAVA_ROWS = 3;

/** A row Paimon Java writes in round `round` (order ids from 1,000,000: none of the generator's). */
function javaRow(round: number, i: number): OracleRow {
  return [BigInt(1_000_000 + round * 100 + i), round, i, 12_345n, 'JAVA', 19_800 + round, { epochMillis: 1_700_000_000_000 + round, nanoOfMillis: 0 }];
}

async function runSync(c: Coordinator, ref: { database: string; table: string }, seed: number, worker: ChildProcess): Promise<number> {
  const started = await c.app.inject({ method: 'POST', url: '/v1/syncs', payload: { table: ref, source: generatorSource(SYNC_SHARDS, SYNC_ROWS, { seed }) } });
  assert.equal(started.statusCode, 202, started.body);
  const explain = async (id: string) => `${await explainSync(c, id)}\nworker output (tail):\n${outputOf(worker).slice(-3000)}`;
  const done = await waitForPhase(() => c.syncs.get(started.json<{ id: string }>().id), ['COMMITTED', 'ABORTED'], 180_000, explain);
  assert.equal(done.state.phase, 'COMMITTED', JSON.stringify(done.state));
  return done.state.phase === 'COMMITTED' ? done.state.snapshotId : -1;
}

for (const dialect of ['postgresql', 'mysql'] as const) {
  describe(`one JDBC catalog on ${dialect === 'mysql' ? 'MariaDB' : 'PostgreSQL'} shared by Tributary and Paimon Java`, () => {
    let db: ScratchDatabase;
    let e: SyncEnv;
    let coordinator: Coordinator;
    let worker: ChildProcess;
    let java: Record<string, string>;
    const javaRef = (database: string, table: string): TableRef => ({ warehouse: e.warehouse, database, table, catalogOptions: java });

    before(async () => {
      db = await scratchDatabase(dialect);
      e = syncEnv(`jdbc-${dialect}`);
      java = { metastore: 'jdbc', uri: db.uri, 'jdbc.user': db.user, 'jdbc.password': db.password, 'catalog-key': CATALOG_KEY, 'lock.enabled': 'true' };
      coordinator = await inProcessCoordinator(e, {
        catalog: { type: 'jdbc', uri: db.uri, user: db.user, password: db.password, catalogKey: CATALOG_KEY, lockEnabled: true, lockCheckMaxSleepMs: 200 },
      });
      worker = await spawnWorker(e);
    });
    after(async () => {
      await stop(worker);
      await coordinator.close();
      await db.drop();
    });

    test('the catalog tables Tributary creates are the ones Paimon Java creates (columns, types, keys)', async () => {
      const other = await scratchDatabase(dialect);
      try {
        // Paimon Java opening its catalog (lock enabled) on an empty database creates its tables.
        await paimonJava.batch([{ op: 'list', warehouse: e.warehouse, database: 'none', table: 'none', catalogOptions: { ...java, uri: other.uri } }]);
        assert.deepEqual(await describeCatalogTables(db), await describeCatalogTables(other));
        assert.deepEqual(Object.keys(await describeCatalogTables(other)).sort(), ['paimon_database_properties', 'paimon_distributed_locks', 'paimon_table_properties', 'paimon_tables']);
      } finally {
        await other.drop();
      }
    });

    test('a table created by Tributary (POST /v1/tables) is listed, written and read by Paimon Java, and the reverse', async () => {
      await createOrdersTable(coordinator, 'shop', 'by_tributary');
      const snapshot = await runSync(coordinator, { database: 'shop', table: 'by_tributary' }, 1, worker);
      const [listing, written, read] = await paimonJava.batch([
        { op: 'list', ...javaRef('shop', 'by_tributary') },
        { op: 'write', ...javaRef('shop', 'by_tributary'), rows: [javaRow(0, 0), javaRow(0, 1)] },
        { op: 'read', ...javaRef('shop', 'by_tributary') },
      ]);
      assert.deepEqual(listing, { databases: ['shop'], tables: ['by_tributary'] } satisfies CatalogListing);
      assert.deepEqual(written, { snapshotId: snapshot + 1 });
      const convert = rowConverter('expected', GENERATOR_COLUMNS, { fields: (await openTable(e.store, 'shop', 'by_tributary')).schema.fields });
      const expected = [...Array.from({ length: SYNC_SHARDS * SYNC_ROWS }, (_, i) => convert(generatorRow(1, i + 1), i) as OracleRow), javaRow(0, 0), javaRow(0, 1)];
      assert.deepEqual(canonicalRows((read as { rows: OracleRow[] }).rows), canonicalRows(expected), 'Paimon Java reads the sync’s rows and its own');
      assert.deepEqual(canonicalRows((await readRows(e, 'shop', 'by_tributary')) as OracleRow[]), canonicalRows(expected), 'Tributary reads them too');

      // The reverse: Paimon Java creates a table in the catalog; Tributary lists, describes and syncs into it.
      await paimonJava.create(javaRef('crm', 'by_java'), { fields: ORDERS_COLUMNS, options: { bucket: '-1' } });
      const tables = await coordinator.app.inject({ method: 'GET', url: '/v1/tables' });
      assert.deepEqual(tables.json<{ tables: { database: string; table: string }[] }>().tables.map((t) => `${t.database}.${t.table}`), ['crm.by_java', 'shop.by_tributary']);
      assert.equal((await coordinator.app.inject({ method: 'GET', url: '/v1/tables/crm/by_java' })).statusCode, 200);
      await runSync(coordinator, { database: 'crm', table: 'by_java' }, 2, worker);
      const javaRead = await paimonJava.read(javaRef('crm', 'by_java'));
      assert.equal(javaRead.snapshotId, 1);
      assert.equal(javaRead.rows.length, SYNC_SHARDS * SYNC_ROWS);

      // Dropped by Paimon Java (catalog row and files): Tributary no longer finds it.
      await paimonJava.batch([{ op: 'drop', ...javaRef('crm', 'by_java') }]);
      assert.equal((await coordinator.app.inject({ method: 'GET', url: '/v1/tables/crm/by_java' })).statusCode, 404);
      // Dropped by Tributary: Paimon Java no longer lists it.
      assert.equal((await coordinator.app.inject({ method: 'DELETE', url: '/v1/tables/shop/by_tributary' })).statusCode, 204);
      const [after] = await paimonJava.batch([{ op: 'list', ...javaRef('shop', 'x') }]);
      assert.deepEqual((after as CatalogListing).tables, []);
      assert.deepEqual(await listKeys(e, 'shop.db/by_tributary/'), []);
    });

    test('the JDBC lock Tributary holds keeps a Paimon Java commit out until it is released', async () => {
      await createOrdersTable(coordinator, 'shop', 'locked');
      const catalog = await openCatalog(e.warehouse, e.store, { type: 'jdbc', uri: db.uri, user: db.user, password: db.password, catalogKey: CATALOG_KEY, lockEnabled: true });
      let javaWrite: Promise<unknown> | undefined;
      try {
        await catalog.withLock({ database: 'shop', table: 'locked' }, async () => {
          javaWrite = paimonJava.write(javaRef('shop', 'locked'), [javaRow(1, 0)]);
          // Java has written its files and its manifest list (the last step before the snapshot, under the lock) ...
          await waitUntil(async () => (await listKeys(e, 'shop.db/locked/manifest/')).some((k) => k.includes('manifest-list-')), 'Paimon Java’s manifest list', 120_000);
          // ... and publishes no snapshot while Tributary holds the lock (watched for 3 s).
          const until = Date.now() + 3_000;
          while (Date.now() < until) assert.deepEqual(await listKeys(e, 'shop.db/locked/snapshot/'), [], 'a snapshot appeared under the lock');
          assert.deepEqual((await db.query('SELECT lock_id FROM paimon_distributed_locks')).map((r) => r['lock_id']), [`${CATALOG_KEY}.shop.locked`]);
        });
        assert.deepEqual(await javaWrite, { snapshotId: 1 });
      } finally {
        await javaWrite?.catch(() => {});
        await catalog.close();
      }
    });

    test(`a Paimon Java writer and Tributary syncs committing to one table, ${ROUNDS} rounds each, lose no snapshot and no row`, async () => {
      // Two writers committing back to back keep taking each other's next snapshot id; each retries up
      // to `commit.max-retries` (Paimon's default 10 gives out under this load), and Java polls a held
      // lock every `lock-check-max-sleep` at most (8 s by default: it would mostly find the id taken).
      await createOrdersTable(coordinator, 'shop', 'contended', { options: { 'commit.max-retries': '200' } });
      const ref = { ...javaRef('shop', 'contended'), catalogOptions: { ...java, 'lock-check-max-sleep': '200 ms' } };
      const javaRounds = paimonJava.batch(
        Array.from({ length: ROUNDS }, (_, round) => ({ op: 'write' as const, ...ref, rows: Array.from({ length: JAVA_ROWS }, (_, i) => javaRow(round, i)) })),
        { timeoutMs: 600_000 },
      );
      // The syncs start once Java commits (its JVM takes seconds to start), so the two writers interleave.
      await waitUntil(async () => (await listKeys(e, 'shop.db/contended/snapshot/')).some((k) => k.endsWith('/snapshot-1')), 'Paimon Java’s first snapshot', 120_000);
      const syncSnapshots: number[] = [];
      for (let round = 0; round < ROUNDS; round++) syncSnapshots.push(await runSync(coordinator, { database: 'shop', table: 'contended' }, 100 + round, worker));
      assert.equal((await javaRounds).length, ROUNDS);

      const table = await openTable(e.store, 'shop', 'contended');
      const ids = (await table.snapshots.listIds()).sort((a, b) => a - b);
      assert.deepEqual(ids, Array.from({ length: 2 * ROUNDS }, (_, i) => i + 1), `snapshots 1..${2 * ROUNDS}, none lost`);
      const bySync: number[] = [];
      for (const id of ids) if ((await table.snapshot(id)).properties?.has('tributary.sync-id') === true) bySync.push(id);
      assert.deepEqual(bySync, [...syncSnapshots].sort((a, b) => a - b), 'each sync’s own snapshot, the other 20 are Java’s');
      const byJava = ids.filter((id) => !bySync.includes(id));
      assert.equal(byJava.length, ROUNDS);
      assert.ok(bySync.some((id) => id > Math.min(...byJava) && id < Math.max(...byJava)), 'the writers interleaved');

      const convert = rowConverter('expected', GENERATOR_COLUMNS, { fields: table.schema.fields });
      const expected: OracleRow[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        for (let i = 0; i < SYNC_SHARDS * SYNC_ROWS; i++) expected.push(convert(generatorRow(100 + round, i + 1), i) as OracleRow);
        for (let i = 0; i < JAVA_ROWS; i++) expected.push(javaRow(round, i));
      }
      const [javaRead] = readResults(await paimonJava.batch([{ op: 'read', ...ref }]));
      assert.equal(javaRead?.snapshotId, 2 * ROUNDS);
      assert.deepEqual(canonicalRows(javaRead?.rows ?? []), canonicalRows(expected), 'Paimon Java reads every row of both writers');
      assert.deepEqual(canonicalRows((await readRows(e, 'shop', 'contended')) as InternalRow[] as OracleRow[]), canonicalRows(expected), 'Tributary reads them too');
      assert.deepEqual(await db.query('SELECT lock_id FROM paimon_distributed_locks'), [], 'no lock left behind');
    });
  });
}
