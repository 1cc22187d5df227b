/**
 * The binlog position a MySQL shard's read reports, against a MariaDB of its own with the binary log
 * on (the shared test server runs without one): this test starts `mariadbd` on a free port in a
 * temporary directory and stops it at the end. The position is the snapshot's (MariaDB's
 * binlog_snapshot_file/position and the GTID set at it), not the server's current one: a
 * transaction committed after the snapshot started moves the server's position but not the read's.
 * The same private server is then set to sql_mode NO_BACKSLASH_ESCAPES (which the shared server
 * cannot be: other tests share it), under which string key values with backslashes and quotes must
 * still plan into ranges that read every row once.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { createConnection, type Connection, type RowDataPacket } from 'mysql2/promise';
import { freePort } from '@tributary/testkit';
import { loadSourceAccess } from '../../src/access.ts';
import { planMysqlShards } from '../../src/mysql/plan.ts';
import { MysqlSource } from '../../src/mysql/source.ts';
import { MysqlSourceSpec } from '../../src/mysql/spec.ts';
import { parseDataTypeString } from '@tributary/table';
import type { ShardReadPosition } from '@tributary/protocol';
import type { SourceBatch, SourceRow } from '../../src/source.ts';

describe('mysql read position with the binary log on (a private mariadbd)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'tributary-binlog-'));
  let server: ChildProcess | undefined;
  let port = 0;
  let admin: Connection;

  before(async () => {
    const installed = spawnSync('mariadb-install-db', ['--no-defaults', `--datadir=${dir}/data`, `--user=${userInfo().username}`, '--auth-root-authentication-method=normal', '--skip-test-db'], { encoding: 'utf8' });
    assert.equal(installed.status, 0, installed.stderr);
    port = await freePort();
    server = spawn(
      'mariadbd',
      ['--no-defaults', `--datadir=${dir}/data`, `--port=${port}`, '--bind-address=127.0.0.1', `--socket=${dir}/sock`, '--log-bin=binlog', '--server-id=77', '--skip-grant-tables', `--user=${userInfo().username}`, `--log-error=${dir}/error.log`],
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
    await admin.query('INSERT INTO shop.orders VALUES (1, 10), (2, 20)');
  });

  after(async () => {
    await admin?.end();
    if (server !== undefined && server.exitCode === null) {
      const exited = new Promise((resolve) => server?.once('exit', resolve));
      server.kill('SIGTERM');
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  });

  test('every batch carries the binlog file, position and GTID set of its snapshot, taken with the snapshot', async () => {
    const access = loadSourceAccess({
      env: { TRIBUTARY_CONNECTIONS_FILE: '/connections.json', PW: 'unused' },
      readText: () => JSON.stringify({ connections: { binlogged: { kind: 'mysql', host: '127.0.0.1', port, user: 'root', passwordEnv: 'PW' } } }),
      realpath: (path) => Promise.resolve(path),
    });
    const [[before]] = await admin.query<RowDataPacket[]>('SHOW MASTER STATUS');
    const [[gtid]] = await admin.query<RowDataPacket[]>('SELECT @@gtid_binlog_pos AS pos');
    assert.ok(before !== undefined && gtid !== undefined);
    assert.notEqual(gtid.pos, '', 'the inserts are in the binary log');
    let movedTo: RowDataPacket | undefined;
    const source = new MysqlSource({ kind: 'mysql', connection: 'binlogged', databases: ['shop'], tables: ['orders'], batchRows: 1 }, ['id', 'v'], access, {
      // After the snapshot started, another transaction commits: the server's position moves on.
      afterSnapshot: async () => {
        await admin.query('INSERT INTO shop.orders VALUES (3, 30)');
        [[movedTo]] = await admin.query<RowDataPacket[]>('SHOW MASTER STATUS');
      },
    });
    const batches: SourceBatch[] = [];
    for await (const batch of source.open({ id: 'shop.orders', spec: { database: 'shop', table: 'orders', key: [{ name: 'id', kind: 'number' }] } })) batches.push(batch);
    assert.deepEqual(batches.flatMap((b) => b.rows), [[1, 10], [2, 20]]);
    const expected: ShardReadPosition = {
      server: {
        id: `127.0.0.1:${port}`,
        log: { file: String(before.File), offset: Number(before.Position), gtid: String(gtid.pos), consistent: 'true', serverId: 77 },
        order: `${String(before.File)}:${String(before.Position).padStart(20, '0')}`,
      },
    };
    for (const batch of batches) assert.deepEqual(batch.readPosition, expected);
    assert.ok(movedTo !== undefined && Number(movedTo.Position) > Number(before.Position), 'the server moved past the snapshot');
  });

  test('a server whose sql_mode reads a backslash as itself (NO_BACKSLASH_ESCAPES): string keys with \\ and \' plan into ranges that read every row once', async () => {
    const access = loadSourceAccess({
      env: { TRIBUTARY_CONNECTIONS_FILE: '/connections.json', PW: 'unused' },
      readText: () => JSON.stringify({ connections: { nbe: { kind: 'mysql', host: '127.0.0.1', port, user: 'root', passwordEnv: 'PW' } } }),
      realpath: (path) => Promise.resolve(path),
    });
    await admin.query('CREATE TABLE shop.words (w VARCHAR(16) NOT NULL PRIMARY KEY, v INT NOT NULL)');
    const keys = ['a00', 'a01', 'a\\', 'a\\\\z', 'a\\b', 'a\\c', "q'1", "q'2", 'q\\\'3', 'b00', 'z0'];
    await admin.query('INSERT INTO shop.words VALUES ?', [keys.map((k, i) => [k, i])]); // this session's mode: escapes as the driver writes them
    await admin.query("SET GLOBAL sql_mode = CONCAT(@@GLOBAL.sql_mode, ',NO_BACKSLASH_ESCAPES')"); // every later connection
    const spec = MysqlSourceSpec.parse({ kind: 'mysql', connection: 'nbe', databases: ['shop'], tables: ['words'] });
    const columns = [
      { name: 'w', type: parseDataTypeString('STRING NOT NULL') },
      { name: 'v', type: parseDataTypeString('INT NOT NULL') },
    ];
    for (const splitRows of [1, 2, 3]) {
      const shards = await planMysqlShards({ ...spec, splitRows }, columns, access);
      assert.equal(shards.length, Math.ceil(keys.length / splitRows), `splitRows ${splitRows}`);
      const source = new MysqlSource(spec, ['w', 'v'], access);
      const rows: SourceRow[] = [];
      for (const shard of shards) for await (const batch of source.open(shard)) rows.push(...batch.rows);
      const [whole] = await admin.query<(SourceRow & RowDataPacket)[]>({ sql: 'SELECT w, v FROM shop.words ORDER BY w', rowsAsArray: true });
      assert.deepEqual(rows, whole.map((r) => [...r]), `splitRows ${splitRows}`);
    }
  });
});
