/**
 * Incremental PostgreSQL loads against the real server, with worker processes:
 *
 * load 1 reads every row and commits the watermark (the maximum of a timestamptz `updated_at`, as
 * its UTC wall clock); between loads, rows are updated and inserted; load 2 is planned while no
 * worker runs, then a late-arriving row (a value above load 2's plan-time maximum) and a late update
 * are written before a worker starts: load 2 holds exactly the rows changed before its plan (the
 * snapshot's delta and the sync's rows), not the late ones, and moves the watermark; load 3 picks
 * the late ones up. Read back by pypaimon. The snapshots carry the server's WAL position. An integer
 * column works the same way; a column that cannot be one is a plan-time 400 naming it; `POST
 * /v1/tables` with `fromSource` makes a table from the source's schema.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { ChildProcess } from 'node:child_process';
import pg from 'pg';
import type { Coordinator } from '@tributary/coordinator';
import { services } from '@tributary/testkit';
import { inProcessCoordinator, pypaimonRead, spawnWorker, stop, syncEnv, waitForPhase } from './harness.ts';

const PASSWORD_ENV = 'TRIBUTARY_TEST_POSTGRES_PASSWORD';

const COLUMNS = [
  { name: 'id', type: 'BIGINT NOT NULL' },
  { name: 'label', type: 'STRING' },
  { name: 'version', type: 'BIGINT NOT NULL' },
  { name: 'updated_at', type: 'TIMESTAMP(3) NOT NULL' },
];

/** `2025-01-01 00:00:00 UTC` plus `seconds`: the instant written at +02:00, and the watermark text it commits (the UTC wall clock, 6 digits). */
const at = (seconds: number): { written: string; watermark: string } => {
  const ms = Date.UTC(2025, 0, 1) + seconds * 1000;
  const local = new Date(ms + 2 * 3_600_000).toISOString();
  const utc = new Date(ms).toISOString();
  return { written: `${local.slice(0, 10)} ${local.slice(11, 23)}+02:00`, watermark: `${utc.slice(0, 10)} ${utc.slice(11, 23)}000` };
};

describe('incremental PostgreSQL loads', () => {
  const { host, port, user, password } = services.postgres;
  const e = syncEnv('pg-incremental', {
    connections: { pg: { kind: 'postgres', host, port, user, database: 'postgres', passwordEnv: PASSWORD_ENV } },
    env: { [PASSWORD_ENV]: password },
  });
  const p = e.prefix.replaceAll('-', '_');
  const databases = [`${p}_inc_0`, `${p}_inc_1`];
  let admin: pg.Client;
  const clients = new Map<string, pg.Client>();
  let coordinator: Coordinator;
  /** What the table must hold: id → label. */
  const expected = new Map<number, string>();
  let version = 0;

  const source = { kind: 'postgres', connection: 'pg', databases, tables: ['orders'], splitRows: 15, incremental: { column: 'updated_at' } };
  const snapshotJson = async (table: string, id: number): Promise<{ properties: Record<string, string>; deltaRecordCount: number }> =>
    JSON.parse(new TextDecoder().decode(await e.store.get(`shop.db/${table}/snapshot/snapshot-${id}`))) as { properties: Record<string, string>; deltaRecordCount: number };
  const db = (d: number): pg.Client => clients.get(databases[d] ?? '') as pg.Client;
  const write = async (d: number, id: number, label: string, seconds: number): Promise<void> => {
    version += 1;
    await db(d).query('INSERT INTO orders VALUES ($1, $2, $3, $4) ON CONFLICT (id) DO UPDATE SET label = EXCLUDED.label, version = EXCLUDED.version, updated_at = EXCLUDED.updated_at', [
      id,
      label,
      version,
      at(seconds).written,
    ]);
    expected.set(id, label);
  };
  /** Starts a sync with no worker running, lets `between` write, then runs one worker until the sync ends. */
  async function load(table: string, spec: Record<string, unknown>, between: () => Promise<void> = async () => undefined): Promise<{ snapshotId: number; rows: number }> {
    const response = await coordinator.app.inject({ method: 'POST', url: '/v1/syncs', payload: { table: { database: 'shop', table }, mode: 'upsert', source: spec } });
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
  async function assertTable(table: string): Promise<void> {
    const { rows } = await pypaimonRead(e, 'shop', table);
    const got = rows.map((r) => [Number(r[0]), r[1]]).sort((a, b) => Number(a[0]) - Number(b[0]));
    const want = [...expected].sort((a, b) => a[0] - b[0]);
    assert.deepEqual(got, want);
  }
  const watermarkOf = (properties: Record<string, string>): unknown => JSON.parse(properties['tributary.watermark'] ?? 'null');
  const createTable = async (name: string): Promise<void> => {
    const created = await coordinator.app.inject({ method: 'POST', url: '/v1/tables', payload: { database: 'shop', name, columns: COLUMNS, primaryKeys: ['id'], bucket: 2 } });
    assert.equal(created.statusCode, 201, created.body);
  };

  before(async () => {
    admin = new pg.Client({ host, port, user, password, database: 'postgres' });
    await admin.connect();
    for (const database of databases) {
      await admin.query(`CREATE DATABASE ${database}`);
      const client = new pg.Client({ host, port, user, password, database });
      await client.connect();
      // A session at another zone than UTC: a timestamptz watermark must not depend on it.
      await client.query("SET TIME ZONE 'Asia/Kolkata'");
      await client.query('CREATE TABLE orders (id int8 PRIMARY KEY, label varchar(32), version int8 NOT NULL, updated_at timestamptz(3) NOT NULL)');
      clients.set(database, client);
    }
    for (let i = 1; i <= 40; i++) await write(0, i, `a${i}`, i);
    for (let i = 101; i <= 140; i++) await write(1, i, `b${i}`, i);
    coordinator = await inProcessCoordinator(e);
    await createTable('changes');
  });
  after(async () => {
    await coordinator?.close();
    for (const client of clients.values()) await client.end().catch(() => undefined);
    for (const database of databases) await admin?.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
    await admin?.end();
  });

  test('three loads: each holds exactly the rows changed since the last watermark, up to its plan-time maximum', async () => {
    const first = await load('changes', source);
    assert.equal(first.rows, 80);
    const s1 = await snapshotJson('changes', first.snapshotId);
    assert.deepEqual(watermarkOf(s1.properties), { column: 'updated_at', value: at(140).watermark });
    await assertTable('changes');

    // Between the loads: two updates and two inserts, each with a later updated_at.
    await write(0, 5, 'a5-updated', 1000);
    await write(1, 105, 'b105-updated', 1001);
    await write(0, 41, 'a41', 1002);
    await write(1, 141, 'b141', 1003);
    const lateRows = async () => {
      // Written after load 2 was planned, before any worker read: above its plan-time maximum.
      version += 1;
      await db(0).query('INSERT INTO orders VALUES (42, $1, $2, $3)', ['a42-late', version, at(2000).written]);
      version += 1;
      await db(1).query('UPDATE orders SET label = $1, version = $2, updated_at = $3 WHERE id = 106', ['b106-late', version, at(2001).written]);
    };
    const second = await load('changes', source, lateRows);
    assert.equal(second.rows, 4, 'the sync read exactly the 4 changed rows');
    const s2 = await snapshotJson('changes', second.snapshotId);
    assert.equal(s2.deltaRecordCount, 4, 'the snapshot added exactly the 4 changed rows');
    assert.deepEqual(watermarkOf(s2.properties), { column: 'updated_at', value: at(1003).watermark });
    await assertTable('changes'); // the late rows are not in yet: `expected` does not have them

    expected.set(42, 'a42-late');
    expected.set(106, 'b106-late');
    const third = await load('changes', source);
    assert.equal(third.rows, 2);
    const s3 = await snapshotJson('changes', third.snapshotId);
    assert.equal(s3.deltaRecordCount, 2);
    assert.deepEqual(watermarkOf(s3.properties), { column: 'updated_at', value: at(2001).watermark });
    assert.equal(s3.properties['tributary.source-id'], s1.properties['tributary.source-id']);
    await assertTable('changes');

    // Nothing new: the load commits no row and keeps the watermark.
    const fourth = await load('changes', source);
    assert.equal(fourth.rows, 0);
    assert.deepEqual(watermarkOf((await snapshotJson('changes', fourth.snapshotId)).properties), { column: 'updated_at', value: at(2001).watermark });

    // The read position: the server's WAL position, per database, no later than the server's now.
    const positions = JSON.parse(s3.properties['tributary.positions'] ?? 'null') as { servers: Record<string, { shards: number; lowest: Record<string, string> }> };
    const server = positions.servers[`${host}:${port}`];
    assert.ok(server !== undefined && server.shards >= 2, JSON.stringify(positions));
    const now = (await admin.query<{ lsn: string }>('SELECT pg_current_wal_lsn()::text AS lsn')).rows[0]?.lsn ?? '';
    const lsnValue = (lsn: string): bigint => {
      const [hi = '0', lo = '0'] = lsn.split('/');
      return (BigInt(`0x${hi}`) << 32n) | BigInt(`0x${lo}`);
    };
    assert.ok(lsnValue(server.lowest.lsn ?? '') > 0n && lsnValue(server.lowest.lsn ?? '') <= lsnValue(now), JSON.stringify(server.lowest));
  });

  test('an integer column is a watermark too: the second load reads only the rows whose version moved', async () => {
    await createTable('by_version');
    const spec = { ...source, incremental: { column: 'version' } };
    const first = await load('by_version', spec);
    assert.equal(first.rows, expected.size);
    const s1 = await snapshotJson('by_version', first.snapshotId);
    assert.deepEqual(watermarkOf(s1.properties), { column: 'version', value: String(version) });
    await write(1, 120, 'b120-v', 3000);
    await write(0, 43, 'a43', 3001);
    const second = await load('by_version', spec);
    assert.equal(second.rows, 2);
    assert.deepEqual(watermarkOf((await snapshotJson('by_version', second.snapshotId)).properties), { column: 'version', value: String(version) });
    await assertTable('by_version');
  });

  test('an incremental column that is not an integer or temporal column is refused at plan time, naming it', async () => {
    const response = await coordinator.app.inject({
      method: 'POST',
      url: '/v1/syncs',
      payload: { table: { database: 'shop', table: 'changes' }, mode: 'upsert', source: { ...source, incremental: { column: 'label' } } },
    });
    assert.equal(response.statusCode, 400, response.body);
    const problem = response.json<{ code: string; context: { column: string } }>();
    assert.equal(problem.code, 'POSTGRES_SCHEMA_MISMATCH');
    assert.equal(problem.context.column, 'label');
  });

  test("POST /v1/tables makes a table from a PostgreSQL source's schema, carrying the primary key over; a sync into it commits", async () => {
    const fromSource = { kind: 'postgres', connection: 'pg', databases, tables: ['orders'] };
    const response = await coordinator.app.inject({ method: 'POST', url: '/v1/tables', payload: { database: 'shop', name: 'from_pg', fromSource } });
    assert.equal(response.statusCode, 201, response.body);
    const made = response.json<{ primaryKeys: string[]; options: Record<string, string>; columns: { name: string; type: string }[] }>();
    assert.deepEqual(
      made.columns.map((c) => [c.name, c.type]),
      [
        ['id', 'BIGINT NOT NULL'],
        ['label', 'VARCHAR(32)'],
        ['version', 'BIGINT NOT NULL'],
        ['updated_at', 'TIMESTAMP(3) WITH LOCAL TIME ZONE NOT NULL'],
      ],
    );
    assert.deepEqual(made.primaryKeys, ['id']);
    assert.equal(made.options.bucket, '1'); // two small tables: well under one GiB
    const sync = await coordinator.app.inject({ method: 'POST', url: '/v1/syncs', payload: { table: { database: 'shop', table: 'from_pg' }, source: fromSource } });
    assert.equal(sync.statusCode, 202, sync.body);
    const id = sync.json<{ id: string }>().id;
    const worker = await spawnWorker(e);
    try {
      const done = await waitForPhase(() => coordinator.syncs.get(id), ['COMMITTED', 'ABORTED'], 90_000);
      assert.equal(done.state.phase, 'COMMITTED', JSON.stringify(done.state));
    } finally {
      await stop(worker);
    }
    const { rows } = await pypaimonRead(e, 'shop', 'from_pg');
    assert.deepEqual(rows.map((r) => [Number(r[0]), r[1]]).sort((a, b) => Number(a[0]) - Number(b[0])), [...expected].sort((a, b) => a[0] - b[0]));
  });
});
