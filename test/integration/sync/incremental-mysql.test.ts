/**
 * Incremental MySQL loads against the real MariaDB, with worker processes:
 *
 * load 1 reads every row and commits the watermark (the maximum of `updated_at`); between loads,
 * rows are updated and inserted; load 2 is planned while no worker runs, then a late-arriving row
 * (a value above load 2's plan-time maximum) and a late update are written before a worker starts:
 * load 2 holds exactly the rows changed before its plan (the snapshot's delta and the sync's rows),
 * not the late ones, and moves the watermark; load 3 picks the late ones up. Read back by pypaimon.
 * The snapshots also carry the server's binlog position as the server states it, and a plan-time
 * 400 names an incremental column that cannot be one.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { ChildProcess } from 'node:child_process';
import { createConnection, type Connection, type RowDataPacket } from 'mysql2/promise';
import type { Coordinator } from '@tributary/coordinator';
import { services } from '@tributary/testkit';
import { inProcessCoordinator, pypaimonRead, spawnWorker, stop, syncEnv, waitForPhase, withMariadb } from './harness.ts';

const COLUMNS = [
  { name: 'id', type: 'BIGINT NOT NULL' },
  { name: 'label', type: 'STRING' },
  { name: 'updated_at', type: 'TIMESTAMP(3)' },
];

/** `2025-01-01 00:00:00` plus `seconds`, as MySQL DATETIME(3) text. */
const at = (seconds: number): string => new Date(Date.UTC(2025, 0, 1) + seconds * 1000).toISOString().replace('T', ' ').replace('Z', '');

describe('incremental MySQL loads (MariaDB)', () => {
  const e = syncEnv('incremental', withMariadb());
  const p = e.prefix.replaceAll('-', '_');
  const databases = [`${p}_inc_0`, `${p}_inc_1`];
  let admin: Connection;
  let coordinator: Coordinator;
  /** What the table must hold: id → [label, updated_at text]. */
  const expected = new Map<number, [string, string]>();

  const source = { kind: 'mysql', connection: 'mariadb', databases, tables: ['orders'], incremental: { column: 'updated_at' } };
  const snapshotJson = async (id: number): Promise<{ properties: Record<string, string>; deltaRecordCount: number }> =>
    JSON.parse(new TextDecoder().decode(await e.store.get(`shop.db/changes/snapshot/snapshot-${id}`))) as { properties: Record<string, string>; deltaRecordCount: number };
  const write = async (db: string, id: number, label: string, updated: string): Promise<void> => {
    await admin.query(`INSERT INTO \`${db}\`.orders VALUES (?, ?, ?) ON DUPLICATE KEY UPDATE label = VALUES(label), updated_at = VALUES(updated_at)`, [id, label, updated]);
    expected.set(id, [label, updated]);
  };
  /** Starts a sync with no worker running, lets `between` write, then runs one worker until the sync ends. */
  async function load(between: () => Promise<void> = async () => undefined): Promise<{ snapshotId: number; rows: number }> {
    const response = await coordinator.app.inject({ method: 'POST', url: '/v1/syncs', payload: { table: { database: 'shop', table: 'changes' }, mode: 'upsert', source } });
    assert.equal(response.statusCode, 202, response.body);
    const id = response.json<{ id: string }>().id;
    await between();
    const worker: ChildProcess = await spawnWorker(e);
    try {
      const done = await waitForPhase(() => coordinator.syncs.get(id), ['COMMITTED', 'ABORTED'], 90_000);
      assert.ok(done.state.phase === 'COMMITTED', JSON.stringify(done.state));
      return { snapshotId: done.state.snapshotId, rows: Object.values(done.state.accepted).reduce((n, a) => n + a.rows, 0) };
    } finally {
      await stop(worker);
    }
  }
  async function assertTable(): Promise<void> {
    const { rows } = await pypaimonRead(e, 'shop', 'changes');
    const got = rows.map((r) => [Number(r[0]), r[1]]).sort((a, b) => Number(a[0]) - Number(b[0]));
    const want = [...expected].sort((a, b) => a[0] - b[0]).map(([id, [label]]) => [id, label]);
    assert.deepEqual(got, want);
  }
  const watermarkOf = (properties: Record<string, string>): unknown => JSON.parse(properties['tributary.watermark'] ?? 'null');

  before(async () => {
    const { host, port, user, password } = services.mariadb;
    admin = await createConnection({ host, port, user, password, dateStrings: true });
    for (const db of databases) {
      await admin.query(`CREATE DATABASE \`${db}\``);
      await admin.query(`CREATE TABLE \`${db}\`.orders (id BIGINT NOT NULL PRIMARY KEY, label VARCHAR(32) NULL, updated_at DATETIME(3) NOT NULL)`);
    }
    for (let i = 1; i <= 40; i++) await write(databases[0] ?? '', i, `a${i}`, at(i));
    for (let i = 101; i <= 140; i++) await write(databases[1] ?? '', i, `b${i}`, at(i));
    coordinator = await inProcessCoordinator(e);
    const created = await coordinator.app.inject({ method: 'POST', url: '/v1/tables', payload: { database: 'shop', name: 'changes', columns: COLUMNS, primaryKeys: ['id'], bucket: 2 } });
    assert.equal(created.statusCode, 201, created.body);
  });
  after(async () => {
    await coordinator.close();
    for (const db of databases) await admin.query(`DROP DATABASE IF EXISTS \`${db}\``);
    await admin.end();
  });

  test('three loads: each holds exactly the rows changed since the last watermark, up to its plan-time maximum', async () => {
    const first = await load();
    assert.equal(first.rows, 80);
    const s1 = await snapshotJson(first.snapshotId);
    assert.deepEqual(watermarkOf(s1.properties), { column: 'updated_at', value: `${at(140)}` });
    await assertTable();

    // Between the loads: two updates and two inserts, each with a later updated_at.
    await write(databases[0] ?? '', 5, 'a5-updated', at(1000));
    await write(databases[1] ?? '', 105, 'b105-updated', at(1001));
    await write(databases[0] ?? '', 41, 'a41', at(1002));
    await write(databases[1] ?? '', 141, 'b141', at(1003));
    const lateRows = async () => {
      // Written after load 2 was planned, before any worker read: above its plan-time maximum.
      await admin.query(`INSERT INTO \`${databases[0]}\`.orders VALUES (42, 'a42-late', ?)`, [at(2000)]);
      await admin.query(`UPDATE \`${databases[1]}\`.orders SET label = 'b106-late', updated_at = ? WHERE id = 106`, [at(2001)]);
    };
    const second = await load(lateRows);
    assert.equal(second.rows, 4, 'the sync read exactly the 4 changed rows');
    const s2 = await snapshotJson(second.snapshotId);
    assert.equal(s2.deltaRecordCount, 4, 'the snapshot added exactly the 4 changed rows');
    assert.deepEqual(watermarkOf(s2.properties), { column: 'updated_at', value: at(1003) });
    await assertTable(); // the late rows are not in yet: `expected` does not have them

    expected.set(42, ['a42-late', at(2000)]);
    expected.set(106, ['b106-late', at(2001)]);
    const third = await load();
    assert.equal(third.rows, 2);
    const s3 = await snapshotJson(third.snapshotId);
    assert.equal(s3.deltaRecordCount, 2);
    assert.deepEqual(watermarkOf(s3.properties), { column: 'updated_at', value: at(2001) });
    assert.equal(s3.properties['tributary.source-id'], s1.properties['tributary.source-id']);
    await assertTable();

    // The read position: the server's binlog position as SHOW MASTER STATUS gives it, or "off".
    const [status] = await admin.query<RowDataPacket[]>('SHOW MASTER STATUS');
    const positions = JSON.parse(s3.properties['tributary.positions'] ?? 'null') as { shards: number; servers: Record<string, { shards: number; lowest: Record<string, unknown> }> };
    const server = positions.servers[`${services.mariadb.host}:${services.mariadb.port}`];
    assert.equal(positions.shards, 2);
    assert.equal(server?.shards, 2);
    if (status[0] === undefined) assert.deepEqual(server.lowest, { binlog: 'off' });
    else assert.equal(server?.lowest.file, status[0].File);
  });

  test('an incremental column that is not an integer or temporal column is refused at plan time, naming it', async () => {
    const response = await coordinator.app.inject({
      method: 'POST',
      url: '/v1/syncs',
      payload: { table: { database: 'shop', table: 'changes' }, mode: 'upsert', source: { ...source, incremental: { column: 'label' } } },
    });
    assert.equal(response.statusCode, 400, response.body);
    const problem = response.json<{ code: string; context: { column: string } }>();
    assert.equal(problem.code, 'MYSQL_SCHEMA_MISMATCH');
    assert.equal(problem.context.column, 'label');
  });

  test('POST /v1/tables makes a table from a MySQL source\'s schema, carrying the primary key over; a sync into it commits', async () => {
    const response = await coordinator.app.inject({
      method: 'POST',
      url: '/v1/tables',
      payload: { database: 'shop', name: 'from_mysql', fromSource: { kind: 'mysql', connection: 'mariadb', databases, tables: ['orders'] } },
    });
    assert.equal(response.statusCode, 201, response.body);
    const made = response.json<{ primaryKeys: string[]; options: Record<string, string>; columns: { name: string; type: string }[] }>();
    assert.deepEqual(made.columns.map((c) => [c.name, c.type]), [
      ['id', 'BIGINT NOT NULL'],
      ['label', 'VARCHAR(32)'],
      ['updated_at', 'TIMESTAMP(3) NOT NULL'],
    ]);
    assert.deepEqual(made.primaryKeys, ['id']);
    assert.equal(made.options.bucket, '1'); // two small tables: well under one GiB
    const sync = await coordinator.app.inject({ method: 'POST', url: '/v1/syncs', payload: { table: { database: 'shop', table: 'from_mysql' }, source: { kind: 'mysql', connection: 'mariadb', databases, tables: ['orders'] } } });
    assert.equal(sync.statusCode, 202, sync.body);
    const id = sync.json<{ id: string }>().id;
    const worker = await spawnWorker(e);
    try {
      const done = await waitForPhase(() => coordinator.syncs.get(id), ['COMMITTED', 'ABORTED'], 90_000);
      assert.equal(done.state.phase, 'COMMITTED', JSON.stringify(done.state));
    } finally {
      await stop(worker);
    }
    const [count] = await admin.query<RowDataPacket[]>(`SELECT (SELECT COUNT(*) FROM \`${databases[0]}\`.orders) + (SELECT COUNT(*) FROM \`${databases[1]}\`.orders) AS n`);
    assert.equal((await pypaimonRead(e, 'shop', 'from_mysql')).rows.length, Number(count[0]?.n));
  });

  test('a MySQL column that does not fit the table is refused at plan time with 400 naming it', async () => {
    const narrow = await coordinator.app.inject({ method: 'POST', url: '/v1/tables', payload: { database: 'shop', name: 'narrow', columns: [{ name: 'id', type: 'INT NOT NULL' }, ...COLUMNS.slice(1)] } });
    assert.equal(narrow.statusCode, 201, narrow.body);
    const response = await coordinator.app.inject({ method: 'POST', url: '/v1/syncs', payload: { table: { database: 'shop', table: 'narrow' }, source } });
    assert.equal(response.statusCode, 400, response.body);
    assert.equal(response.json<{ context: { column: string } }>().context.column, 'id');
  });
});
