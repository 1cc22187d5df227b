/**
 * A whole MySQL sync through REST and a worker process against a MariaDB of its own with the binary
 * log on (the shared test server runs without one): this test starts `mariadbd` on a free port in a
 * temporary directory and stops it at the end. The committed snapshot's `tributary.positions` holds
 * the binlog file, offset and GTID set of the shard's snapshot, taken with it: a transaction that
 * commits while the shard is being read moves the server's position on, but neither its row is in
 * the table nor its position in the snapshot.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { createConnection, type Connection, type RowDataPacket } from 'mysql2/promise';
import type { Coordinator } from '@tributary/coordinator';
import { freePort } from '@tributary/testkit';
import { inProcessCoordinator, pypaimonRead, shardProgressRows, spawnWorker, stop, syncEnv, waitForPhase, waitUntil } from './harness.ts';

const port = await freePort();

describe('a MySQL sync records the binlog position of its snapshot (a private mariadbd with the binary log on)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'tributary-binlog-sync-'));
  const e = syncEnv('binlog-sync', {
    connections: { binlogged: { kind: 'mysql', host: '127.0.0.1', port, user: 'root', passwordEnv: 'TRIBUTARY_TEST_BINLOG_PASSWORD' } },
    env: { TRIBUTARY_TEST_BINLOG_PASSWORD: 'unused' },
  });
  let server: ChildProcess | undefined;
  let admin: Connection;
  let coordinator: Coordinator;
  let worker: ChildProcess | undefined;

  before(async () => {
    const installed = spawnSync('mariadb-install-db', ['--no-defaults', `--datadir=${dir}/data`, `--user=${userInfo().username}`, '--auth-root-authentication-method=normal', '--skip-test-db'], { encoding: 'utf8' });
    assert.equal(installed.status, 0, installed.stderr);
    server = spawn(
      'mariadbd',
      ['--no-defaults', `--datadir=${dir}/data`, `--port=${port}`, '--bind-address=127.0.0.1', `--socket=${dir}/sock`, '--log-bin=binlog', '--server-id=78', '--skip-grant-tables', `--user=${userInfo().username}`, `--log-error=${dir}/error.log`],
      { stdio: 'ignore' },
    );
    // Wait for the server to accept connections (each try is a connection attempt, not a fixed sleep).
    const deadline = Date.now() + 60_000;
    for (;;) {
      try {
        admin = await createConnection({ host: '127.0.0.1', port, user: 'root' });
        break;
      } catch (error) {
        if (Date.now() > deadline || server.exitCode !== null) throw error;
        await new Promise((resolve) => setImmediate(resolve));
      }
    }
    await admin.query('CREATE DATABASE shop');
    await admin.query('CREATE TABLE shop.orders (id INT NOT NULL PRIMARY KEY, v INT)');
    await admin.query(`INSERT INTO shop.orders VALUES ${Array.from({ length: 50 }, (_, i) => `(${i + 1}, ${i * 10})`).join(', ')}`);
    coordinator = await inProcessCoordinator(e);
    const created = await coordinator.app.inject({
      method: 'POST',
      url: '/v1/tables',
      payload: { database: 'shop', name: 'orders', columns: [{ name: 'id', type: 'INT NOT NULL' }, { name: 'v', type: 'INT' }], primaryKeys: ['id'], bucket: 1 },
    });
    assert.equal(created.statusCode, 201, created.body);
  });

  after(async () => {
    if (worker !== undefined) await stop(worker);
    await coordinator?.close();
    await admin?.end();
    if (server !== undefined && server.exitCode === null) {
      const exited = new Promise((resolve) => server?.once('exit', resolve));
      server.kill('SIGTERM');
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  });

  test("the committed snapshot's positions hold the binlog file, offset and GTID set of the shard's snapshot", async () => {
    const [[before]] = await admin.query<RowDataPacket[]>('SHOW MASTER STATUS');
    const [[gtid]] = await admin.query<RowDataPacket[]>('SELECT @@gtid_binlog_pos AS pos');
    assert.ok(before !== undefined && gtid !== undefined && gtid.pos !== '', 'the inserts are in the binary log');
    const response = await coordinator.app.inject({
      method: 'POST',
      url: '/v1/syncs',
      // One row per batch and a pause after each (a test hook): the read is still going when the test writes.
      payload: { table: { database: 'shop', table: 'orders' }, source: { kind: 'mysql', connection: 'binlogged', databases: ['shop'], tables: ['orders'], batchRows: 1, faults: { delayMsPerBatch: 100 } } },
    });
    assert.equal(response.statusCode, 202, response.body);
    const id = response.json<{ id: string }>().id;
    worker = await spawnWorker(e);
    // The shard has written rows: its snapshot is taken. Another transaction commits now.
    await waitUntil(async () => (await shardProgressRows(e, id, 'shop.orders')) > 0, 'the shard to be reading', 60_000);
    await admin.query('INSERT INTO shop.orders VALUES (1000, 1)');
    await admin.query('UPDATE shop.orders SET v = -1 WHERE id = 50');
    const [[moved]] = await admin.query<RowDataPacket[]>('SHOW MASTER STATUS');
    assert.ok(moved !== undefined && Number(moved.Position) > Number(before.Position), 'the server moved past the snapshot');
    const done = await waitForPhase(() => coordinator.syncs.get(id), ['COMMITTED', 'ABORTED'], 120_000);
    assert.equal(done.state.phase, 'COMMITTED', JSON.stringify(done.state));

    const snapshot = JSON.parse(new TextDecoder().decode(await e.store.get(`shop.db/orders/snapshot/snapshot-${done.state.snapshotId}`))) as { properties: Record<string, string> };
    const positions = JSON.parse(snapshot.properties['tributary.positions'] ?? 'null') as { shards: number; servers: Record<string, { shards: number; lowest: unknown; highest: unknown }> };
    const expected = { file: String(before.File), offset: Number(before.Position), gtid: String(gtid.pos), consistent: 'true', serverId: 78 };
    assert.equal(positions.shards, 1);
    assert.deepEqual(positions.servers[`127.0.0.1:${port}`], { shards: 1, lowest: expected, highest: expected });
    // The table is the snapshot's state: no row 1000, row 50 as it was.
    const { rows } = await pypaimonRead(e, 'shop', 'orders');
    assert.deepEqual(
      rows.map((r) => [Number(r[0]), Number(r[1])]).sort((a, b) => (a[0] ?? 0) - (b[0] ?? 0)),
      Array.from({ length: 50 }, (_, i) => [i + 1, i * 10]),
    );
  });
});
