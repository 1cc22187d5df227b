/**
 * The MySQL 分库分表 source against the real MariaDB: 3 databases × 4 tables of varied types load into
 * one primary-key table as one snapshot (read back by Tributary and by pypaimon); a table whose
 * column does not fit is refused at plan time; a connection cut while planning is a typed error and
 * nothing is enqueued.
 */
import assert from 'node:assert/strict';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { after, before, describe, test } from 'node:test';
import type { ChildProcess } from 'node:child_process';
import { createConnection, type Connection } from 'mysql2/promise';
import { Redis } from 'ioredis';
import type { Coordinator } from '@tributary/coordinator';
import type { InternalRow } from '@tributary/table';
import { services } from '@tributary/testkit';
import { canonicalRows, inProcessCoordinator, pypaimonRead, readRows, spawnWorker, stop, syncEnv, waitForPhase, waitUntil } from './harness.ts';

const PASSWORD_ENV = 'TRIBUTARY_TEST_MYSQL_PASSWORD';
const ROWS_PER_TABLE = 250;
const DAY_MS = 86_400_000;

const MYSQL_DDL = `(
  order_id BIGINT NOT NULL PRIMARY KEY,
  customer_id INT UNSIGNED NOT NULL,
  amount DECIMAL(12,2) NULL,
  qty SMALLINT NULL,
  ratio DOUBLE NULL,
  note VARCHAR(64) CHARACTER SET utf8mb4 NULL,
  payload VARBINARY(16) NULL,
  order_date DATE NULL,
  created_at DATETIME(6) NULL,
  paid TINYINT(1) NULL,
  doc JSON NULL,
  big BIGINT UNSIGNED NULL
)`;

const PAIMON_COLUMNS = [
  { name: 'order_id', type: 'BIGINT NOT NULL' },
  { name: 'customer_id', type: 'BIGINT NOT NULL' },
  { name: 'amount', type: 'DECIMAL(12, 2)' },
  { name: 'qty', type: 'SMALLINT' },
  { name: 'ratio', type: 'DOUBLE' },
  { name: 'note', type: 'STRING' },
  { name: 'payload', type: 'VARBINARY(16)' },
  { name: 'order_date', type: 'DATE' },
  { name: 'created_at', type: 'TIMESTAMP(6)' },
  { name: 'paid', type: 'BOOLEAN' },
  { name: 'doc', type: 'STRING' },
  { name: 'big', type: 'DECIMAL(20, 0)' },
];

/** One source row, as MySQL parameters and as the table's internal values. */
function sourceRow(id: number): { params: unknown[]; expected: InternalRow } {
  const cents = ((id * 7919) % 2_000_000) - 1_000_000;
  const amount = id % 11 === 0 ? null : `${cents < 0 ? '-' : ''}${Math.floor(Math.abs(cents) / 100)}.${String(Math.abs(cents) % 100).padStart(2, '0')}`;
  const customer = id === 1 ? 4_294_967_295 : (id * 7) % 4_000_000_000;
  const qty = id % 13 === 0 ? null : (id % 65_536) - 32_768;
  const ratio = id % 9 === 0 ? null : id * 1.5 - 1000.25;
  const note = id % 7 === 0 ? null : `订单-😀-${id}`;
  const payload = id % 5 === 0 ? null : Uint8Array.of(id & 255, (id >> 8) & 255, 0, 255);
  const days = id % 17 === 0 ? null : Math.floor(Date.UTC(1960, 0, 1) / DAY_MS) + id;
  const micros = id % 19 === 0 ? null : -1_000_000_000_000_000n + BigInt(id) * 123_456_789n;
  const paid = id % 3 === 0 ? null : id % 3 === 1;
  const doc = id % 23 === 0 ? null : JSON.stringify({ id, tags: ['a', '😀'] });
  const big = 18_446_744_073_709_551_615n - BigInt(id);
  const epochMillis = micros === null ? null : Number(micros >= 0n ? micros / 1000n : -((-micros + 999n) / 1000n));
  const created = micros === null || epochMillis === null ? null : { epochMillis, nanoOfMillis: Number(micros - BigInt(epochMillis) * 1000n) * 1000 };
  const createdText = created === null ? null : `${new Date(created.epochMillis).toISOString().slice(0, 23).replace('T', ' ')}${String(created.nanoOfMillis / 1000).padStart(3, '0')}`;
  const dateText = days === null ? null : new Date(days * DAY_MS).toISOString().slice(0, 10);
  const paidNumber = paid === null ? null : paid ? 1 : 0;
  return {
    params: [id, customer, amount, qty, ratio, note, payload === null ? null : Buffer.from(payload), dateText, createdText, paidNumber, doc, big.toString()],
    expected: [
      BigInt(id),
      BigInt(customer),
      amount === null ? null : BigInt(amount.replace('.', '')),
      qty,
      ratio,
      note,
      payload,
      days,
      created,
      paid,
      doc,
      big,
    ],
  };
}

const hex = (row: InternalRow): InternalRow => row.map((v) => (v instanceof Uint8Array ? Buffer.from(v).toString('hex') : v));

describe('mysql source (3 databases × 4 tables in MariaDB)', () => {
  // Named connections, as an operator defines them: MariaDB, and MariaDB behind a proxy that cuts.
  const proxyPort = 21_000 + Math.floor(Math.random() * 2000);
  const { host, port, user } = services.mariadb;
  const e = syncEnv('mysql', {
    connections: {
      mariadb: { kind: 'mysql', host, port, user, passwordEnv: PASSWORD_ENV },
      cut: { kind: 'mysql', host: '127.0.0.1', port: proxyPort, user, passwordEnv: PASSWORD_ENV },
    },
    env: { [PASSWORD_ENV]: services.mariadb.password },
  });
  const p = e.prefix.replaceAll('-', '_');
  const databases = [0, 1, 2].map((d) => `${p}_shop_${d}`);
  const badDatabase = `${p}_bad_0`;
  let admin: Connection;
  let coordinator: Coordinator;
  const workers: ChildProcess[] = [];
  const expected: InternalRow[] = [];
  const mysql = { kind: 'mysql', connection: 'mariadb' };

  before(async () => {
    admin = await createConnection({ ...services.mariadb, multipleStatements: true });
    for (const [d, database] of databases.entries()) {
      await admin.query(`CREATE DATABASE \`${database}\` CHARACTER SET utf8mb4`);
      for (let t = 0; t < 4; t++) {
        await admin.query(`CREATE TABLE \`${database}\`.orders_${t} ${MYSQL_DDL}`);
        const rows = Array.from({ length: ROWS_PER_TABLE }, (_, i) => sourceRow((d * 4 + t) * 1000 + i + 1));
        await admin.query(`INSERT INTO \`${database}\`.orders_${t} VALUES ?`, [rows.map((r) => r.params)]);
        expected.push(...rows.map((r) => r.expected));
      }
    }
    await admin.query(`CREATE DATABASE \`${badDatabase}\``);
    await admin.query(`CREATE TABLE \`${badDatabase}\`.orders_0 ${MYSQL_DDL}`);
    await admin.query(`CREATE TABLE \`${badDatabase}\`.orders_1 ${MYSQL_DDL.replace('amount DECIMAL(12,2)', 'amount DECIMAL(14,2)')}`);
    coordinator = await inProcessCoordinator(e);
    workers.push(...(await Promise.all([spawnWorker(e), spawnWorker(e)])));
  });

  after(async () => {
    await Promise.all(workers.map((w) => stop(w)));
    await coordinator?.close();
    for (const database of [...databases, badDatabase]) await admin?.query(`DROP DATABASE IF EXISTS \`${database}\``);
    await admin?.end();
  });

  async function createTable(name: string): Promise<void> {
    const response = await coordinator.app.inject({
      method: 'POST',
      url: '/v1/tables',
      payload: { database: 'shop', name, columns: PAIMON_COLUMNS, primaryKeys: ['order_id'], bucket: 2 },
    });
    assert.equal(response.statusCode, 201, response.body);
  }

  async function startSync(table: string, source: Record<string, unknown>) {
    return coordinator.app.inject({ method: 'POST', url: '/v1/syncs', payload: { table: { database: 'shop', table }, source } });
  }

  test('12 physical tables load as one snapshot with exactly their rows (Tributary and pypaimon)', async () => {
    await createTable('orders_all');
    const started = Date.now();
    const response = await startSync('orders_all', { ...mysql, databases: `${p}\\_shop\\_%`, tables: 'orders_%', splitRows: 100, batchRows: 64 });
    assert.equal(response.statusCode, 202, response.body);
    const id = response.json<{ id: string }>().id;
    const done = await waitForPhase(() => coordinator.syncs.get(id), ['COMMITTED', 'ABORTED'], 90_000);
    assert.equal(done.state.phase, 'COMMITTED', JSON.stringify(done.state));
    const seconds = (Date.now() - started) / 1000;
    const ids = done.plan.shards.map((s) => s.id);
    assert.equal(ids.length, 36); // 250 rows per table in ranges of 100: 3 parts × 12 tables
    assert.deepEqual(ids, [...ids].sort());
    assert.equal(ids[0], `${databases[0]}.orders_0.p00000`);

    const sorted = [...expected].sort((a, b) => Number((a[0] as bigint) - (b[0] as bigint)));
    const rows = (await readRows(e, 'shop', 'orders_all')).sort((a, b) => Number((a[0] as bigint) - (b[0] as bigint)));
    assert.equal(rows.length, 12 * ROWS_PER_TABLE);
    assert.deepEqual(rows.map(hex), sorted.map(hex));
    assert.deepEqual((await pypaimonRead(e, 'shop', 'orders_all')).rows, canonicalRows(sorted));
    console.log(`mysql source: ${rows.length} rows from 12 tables in ${ids.length} shards, sync ${seconds.toFixed(1)} s`);
  });

  test('composite primary keys split into ranges; explicit columns skip the key and an extra column', async () => {
    const database = `${p}_items`;
    await admin.query(`CREATE DATABASE \`${database}\``);
    const expectedRows: [string, number][] = [];
    for (let t = 0; t < 2; t++) {
      await admin.query(`CREATE TABLE \`${database}\`.items_${t} (tenant INT NOT NULL, code VARCHAR(16) NOT NULL, qty INT, extra TEXT, PRIMARY KEY (tenant, code))`);
      const rows = Array.from({ length: 30 }, (_, i) => [i % 3, `t${t}-${String(29 - i).padStart(2, '0')}`, t * 100 + i, 'skipped']);
      await admin.query(`INSERT INTO \`${database}\`.items_${t} VALUES ?`, [rows]);
      expectedRows.push(...rows.map((r): [string, number] => [r[1] as string, r[2] as number]));
    }
    try {
      const created = await coordinator.app.inject({
        method: 'POST',
        url: '/v1/tables',
        payload: { database: 'shop', name: 'items', columns: [{ name: 'code', type: 'STRING' }, { name: 'qty', type: 'INT' }] },
      });
      assert.equal(created.statusCode, 201, created.body);
      const response = await startSync('items', { ...mysql, databases: [database], tables: 'items\\_%', columns: ['code', 'qty'], splitRows: 7 });
      assert.equal(response.statusCode, 202, response.body);
      const id = response.json<{ id: string }>().id;
      const done = await waitForPhase(() => coordinator.syncs.get(id), ['COMMITTED', 'ABORTED'], 60_000);
      assert.equal(done.state.phase, 'COMMITTED', JSON.stringify(done.state));
      assert.equal(done.plan.shards.length, 10); // 30 rows in ranges of 7: 5 per table
      assert.deepEqual(done.plan.shards[1]?.spec, {
        database,
        table: 'items_0',
        key: [
          { name: 'tenant', kind: 'number' },
          { name: 'code', kind: 'string' },
        ],
        from: ['0', 't0-23'], // keys (0, t0-02) (0, t0-05) … (0, t0-20) make the first range of 7
        to: ['1', 't0-13'],
      });
      const sortRows = (rows: readonly (readonly unknown[])[]) => rows.map((r) => JSON.stringify(r)).sort();
      assert.deepEqual(sortRows(await readRows(e, 'shop', 'items')), sortRows(expectedRows));
    } finally {
      await admin.query(`DROP DATABASE IF EXISTS \`${database}\``);
    }
  });

  test('a physical table whose column does not fit the target refuses the sync, naming the table and column', async () => {
    await createTable('orders_bad');
    const response = await startSync('orders_bad', { ...mysql, databases: [badDatabase], tables: 'orders_%' });
    assert.equal(response.statusCode, 400, response.body);
    const problem = response.json<{ code: string; detail: string; context: Record<string, unknown> }>();
    assert.equal(problem.code, 'MYSQL_SCHEMA_MISMATCH');
    assert.match(problem.detail, new RegExp(`${badDatabase}\\.orders_1, column amount: MySQL decimal\\(14,2\\)`));
    assert.deepEqual(problem.context, { database: badDatabase, table: 'orders_1', column: 'amount' });
  });

  test('no matching table, or a table without a primary key, is MYSQL_SOURCE_INVALID', async () => {
    await createTable('orders_invalid');
    const none = await startSync('orders_invalid', { ...mysql, databases: `${p}\\_nothing\\_%`, tables: '%' });
    assert.equal(none.statusCode, 400, none.body);
    assert.equal(none.json<{ code: string }>().code, 'MYSQL_SOURCE_INVALID');
    const database = `${p}_nokey`;
    await admin.query(`CREATE DATABASE \`${database}\``);
    try {
      await admin.query(`CREATE TABLE \`${database}\`.orders_0 ${MYSQL_DDL.replace(' PRIMARY KEY', '')}`);
      const response = await startSync('orders_invalid', { ...mysql, databases: [database], tables: ['orders_0'] });
      assert.equal(response.statusCode, 400, response.body);
      const problem = response.json<{ code: string; detail: string }>();
      assert.equal(problem.code, 'MYSQL_SOURCE_INVALID');
      assert.match(problem.detail, new RegExp(`${database}\\.orders_0 has no primary key`));
    } finally {
      await admin.query(`DROP DATABASE IF EXISTS \`${database}\``);
    }
  });

  test('host, port and password in a request are refused before any connection is tried (no port scanning), as is an unknown connection', async () => {
    await createTable('orders_inline');
    const patterns = { databases: `${p}\\_shop\\_%`, tables: 'orders_%' };
    const bodies: string[] = [];
    for (const inline of [{ host, port, user, password: services.mariadb.password }, { host: '127.0.0.1', port: 1, user: 'x', password: 'y' }, { host: '10.255.255.1', port: 3306, user: 'x', password: 'y' }]) {
      const response = await startSync('orders_inline', { kind: 'mysql', ...inline, ...patterns });
      assert.equal(response.statusCode, 400, response.body);
      assert.equal(response.json<{ code: string }>().code, 'SOURCE_CREDENTIALS_INLINE');
      assert.ok(!response.body.includes(services.mariadb.password));
      bodies.push(response.body);
    }
    assert.equal(new Set(bodies).size, 1, 'an open port, a closed one and an unroutable host answer alike');
    const unknown = await startSync('orders_inline', { kind: 'mysql', connection: 'nope', ...patterns });
    assert.equal(unknown.statusCode, 400, unknown.body);
    assert.equal(unknown.json<{ code: string }>().code, 'SOURCE_CONNECTION_UNKNOWN');
  });

  test('a connection cut while planning is MYSQL_SOURCE_UNAVAILABLE and nothing is enqueued', async () => {
    await createTable('orders_cut');
    const proxy = await cuttingProxy('information_schema.COLUMNS', proxyPort);
    const redis = new Redis(services.redis);
    try {
      // Queue and sync keys; BullMQ's stalled-check markers come and go by themselves.
      const keys = async () => (await redis.keys(`${e.prefix}:*`)).filter((k) => !k.endsWith(':stalled-check')).sort();
      // The earlier tests' commit jobs go on after their syncs commit (outcome, expiration): the
      // keys are compared once no job of this prefix runs (no lock, no active list).
      await waitUntil(async () => !(await keys()).some((k) => k.endsWith(':lock') || k.endsWith(':active')), 'the earlier jobs to finish', 120_000);
      const before = await keys();
      const response = await startSync('orders_cut', { ...mysql, connection: 'cut', databases: `${p}\\_shop\\_%`, tables: 'orders_%' });
      assert.equal(response.statusCode, 503, response.body);
      const problem = response.json<{ code: string; retryable: boolean; detail: string }>();
      assert.equal(problem.code, 'MYSQL_SOURCE_UNAVAILABLE');
      assert.equal(problem.retryable, true);
      assert.equal(proxy.cuts(), 1, 'the cut came after the connection was made, while planning');
      assert.ok(!problem.detail.includes(services.mariadb.password), 'the password is never in a message');
      assert.deepEqual(await keys(), before);
    } finally {
      redis.disconnect();
      await proxy.close();
    }
  });
});

/** A TCP proxy to MariaDB that drops both sides as soon as the client sends a packet containing `marker`. */
async function cuttingProxy(marker: string, port: number): Promise<{ cuts: () => number; close: () => Promise<void> }> {
  let cuts = 0;
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = connect(services.mariadb.port, services.mariadb.host);
    sockets.add(client).add(upstream);
    client.on('data', (chunk: Buffer) => {
      if (chunk.includes(marker)) {
        cuts++;
        client.destroy();
        upstream.destroy();
      } else upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => client.write(chunk));
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    cuts: () => cuts,
    close: () => {
      for (const s of sockets) s.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
