/**
 * The PostgreSQL source against the real server, through REST: 3 databases × 4 tables with every
 * mapped type (NULLs, extremes, unicode) load into one primary-key table as one snapshot, read back
 * by Tributary and by pypaimon and compared row by row with the source; a worker SIGKILLed in the
 * middle of a shard's COPY is replaced and the shard re-runs to an exact result; rows inserted,
 * updated and deleted while a shard is being read do not show in the load; an empty table commits
 * an empty load; plan-time refusals
 * (a column that does not fit, no table, an unknown connection, a server away) are typed answers
 * and nothing is enqueued.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { ChildProcess } from 'node:child_process';
import pg from 'pg';
import { Redis } from 'ioredis';
import type { Coordinator } from '@tributary/coordinator';
import type { InternalRow } from '@tributary/table';
import { services } from '@tributary/testkit';
import {
  canonicalRows,
  inProcessCoordinator,
  oneTo,
  pypaimonIds,
  pypaimonRead,
  readRows,
  shardProgressRows,
  spawnWorker,
  stop,
  syncEnv,
  waitForPhase,
  waitUntil,
} from './harness.ts';

const PASSWORD_ENV = 'TRIBUTARY_TEST_POSTGRES_PASSWORD';
const ROWS_PER_TABLE = 120;
const KILL_ROWS = 150_000;
const DAY_MS = 86_400_000;

const PG_DDL = `(
  order_id int8 PRIMARY KEY,
  flag bool,
  qty int2,
  units int4,
  amount numeric(12,2),
  exact numeric,
  ratio float8,
  score float4,
  note text,
  code varchar(20),
  grade char(2),
  payload bytea,
  order_date date,
  at_time time(3),
  created_at timestamp(6),
  paid_at timestamptz(6),
  uid uuid,
  doc jsonb,
  mood mood
)`;

const PAIMON_COLUMNS = [
  { name: 'order_id', type: 'BIGINT NOT NULL' },
  { name: 'flag', type: 'BOOLEAN' },
  { name: 'qty', type: 'SMALLINT' },
  { name: 'units', type: 'INT' },
  { name: 'amount', type: 'DECIMAL(12, 2)' },
  { name: 'exact', type: 'STRING' },
  { name: 'ratio', type: 'DOUBLE' },
  { name: 'score', type: 'FLOAT' },
  { name: 'note', type: 'STRING' },
  { name: 'code', type: 'VARCHAR(20)' },
  { name: 'grade', type: 'CHAR(2)' },
  { name: 'payload', type: 'BYTES' },
  { name: 'order_date', type: 'DATE' },
  { name: 'at_time', type: 'TIME(3)' },
  { name: 'created_at', type: 'TIMESTAMP(6)' },
  { name: 'paid_at', type: 'TIMESTAMP_LTZ(6)' },
  { name: 'uid', type: 'STRING' },
  { name: 'doc', type: 'STRING' },
  { name: 'mood', type: 'STRING' },
];

const MOODS = ['sad', 'ok', 'happy 😀'];

/** An instant as PostgreSQL text with microseconds (`YYYY-MM-DD HH:MM:SS.ffffff`), UTC. */
function microsText(micros: bigint): { text: string; value: { epochMillis: number; nanoOfMillis: number } } {
  const epochMillis = Number(micros >= 0n ? micros / 1000n : -((-micros + 999n) / 1000n));
  const nanoOfMillis = Number(micros - BigInt(epochMillis) * 1000n) * 1000;
  const iso = new Date(epochMillis).toISOString();
  return { text: `${iso.slice(0, 10)} ${iso.slice(11, 23)}${String(nanoOfMillis / 1000).padStart(3, '0')}`, value: { epochMillis, nanoOfMillis } };
}

/** One source row, as PostgreSQL text parameters and as the table's internal values. */
function sourceRow(id: number): { params: (string | null)[]; expected: InternalRow } {
  const flag = id % 3 === 0 ? null : id % 2 === 0;
  const qty = id % 13 === 0 ? null : id % 50 === 0 ? 32767 : (id % 65_536) - 32_768;
  const units = id % 11 === 0 ? null : id % 40 === 0 ? -2_147_483_648 : (id * 7919) % 2_000_000_000;
  const cents = ((id * 7919) % 2_000_000) - 1_000_000;
  const amount = id % 7 === 0 ? null : `${cents < 0 ? '-' : ''}${Math.floor(Math.abs(cents) / 100)}.${String(Math.abs(cents) % 100).padStart(2, '0')}`;
  const exact = id % 29 === 0 ? 'NaN' : id % 17 === 0 ? null : `-${id}123456789012345678901234567890.${'0'.repeat(id % 20)}1`;
  const ratio = id % 31 === 0 ? Number.NaN : id % 37 === 0 ? -0 : id % 41 === 0 ? Number.POSITIVE_INFINITY : id % 9 === 0 ? null : id * 1.5 - 1000.25 + 1 / 3;
  const score = id % 19 === 0 ? null : Math.fround(id / 3);
  const note = id % 43 === 0 ? '' : id % 5 === 0 ? null : `订单-😀-${id}-𝄞`;
  const grade = id % 4 === 0 ? null : ['A', 'B+', 'é'][id % 3] ?? 'A';
  const payload = id % 6 === 0 ? null : Uint8Array.of(id & 255, (id >> 8) & 255, 0, 255);
  const days = id % 23 === 0 ? null : id % 47 === 0 ? Date.parse('0001-01-01T00:00:00Z') / DAY_MS : Math.floor(Date.UTC(1960, 0, 1) / DAY_MS) + id;
  const ms = id % 21 === 0 ? null : (id * 1_234_567) % DAY_MS;
  const micros = id % 27 === 0 ? null : -1_000_000_000_000_000n + BigInt(id) * 123_456_789_123n;
  const created = micros === null ? null : microsText(micros);
  const uid = id % 8 === 0 ? null : `00000000-0000-4000-8000-${id.toString(16).padStart(12, '0')}`;
  const doc = id % 10 === 0 ? null : `{"id": ${id}, "tags": ["a", "😀"]}`;
  const mood = id % 9 === 0 ? null : (MOODS[id % 3] ?? 'ok');
  const dateText = days === null ? null : new Date(days * DAY_MS).toISOString().slice(0, 10);
  const timeText = ms === null ? null : new Date(ms).toISOString().slice(11, 23);
  const floatText = (v: number | null) => (v === null ? null : Object.is(v, -0) ? '-0' : String(v));
  return {
    params: [
      String(id),
      flag === null ? null : String(flag),
      qty === null ? null : String(qty),
      units === null ? null : String(units),
      amount,
      exact,
      floatText(ratio),
      floatText(score),
      note,
      `c-${id}`,
      grade,
      payload === null ? null : `\\x${Buffer.from(payload).toString('hex')}`,
      dateText,
      timeText,
      created?.text ?? null,
      // The same instant written at +05:30: a timestamptz loads as its instant.
      created === null ? null : `${microsText(micros as bigint + 19_800_000_000n).text}+05:30`,
      uid,
      doc,
      mood,
    ],
    expected: [
      BigInt(id),
      flag,
      qty,
      units,
      amount === null ? null : BigInt(amount.replace('.', '')),
      exact,
      ratio,
      score,
      note,
      `c-${id}`,
      grade === null ? null : grade.padEnd(2, ' '),
      payload,
      days,
      ms,
      created?.value ?? null,
      created?.value ?? null,
      uid,
      doc,
      mood,
    ],
  };
}

const hex = (row: InternalRow): InternalRow => row.map((v) => (v instanceof Uint8Array ? Buffer.from(v).toString('hex') : v));
const byId = (a: InternalRow, b: InternalRow) => Number((a[0] as bigint) - (b[0] as bigint));

describe('postgres source (3 databases × 4 tables in PostgreSQL)', () => {
  const { host, port, user, password } = services.postgres;
  const e = syncEnv('postgres', {
    connections: {
      pg: { kind: 'postgres', host, port, user, database: 'postgres', passwordEnv: PASSWORD_ENV },
      away: { kind: 'postgres', host: '127.0.0.1', port: 1, user, passwordEnv: PASSWORD_ENV },
    },
    env: { [PASSWORD_ENV]: password },
  });
  const p = e.prefix.replaceAll('-', '_');
  const databases = [0, 1, 2].map((d) => `${p}_shop_${d}`);
  const killDatabase = `${p}_kill`;
  let admin: pg.Client;
  let coordinator: Coordinator;
  const workers: ChildProcess[] = [];
  const expected: InternalRow[] = [];
  const source = { kind: 'postgres', connection: 'pg' };

  before(async () => {
    admin = new pg.Client({ host, port, user, password, database: 'postgres' });
    await admin.connect();
    for (const [d, database] of databases.entries()) {
      await admin.query(`CREATE DATABASE ${database} ENCODING 'UTF8' TEMPLATE template0`);
      const db = new pg.Client({ host, port, user, password, database });
      await db.connect();
      try {
        await db.query(`CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy 😀')`);
        for (let t = 0; t < 4; t++) {
          await db.query(`CREATE TABLE orders_${t} ${PG_DDL}`);
          const rows = Array.from({ length: ROWS_PER_TABLE }, (_, i) => sourceRow((d * 4 + t) * 1000 + i + 1));
          const width = rows[0]?.params.length ?? 0;
          const values = rows.map((_, r) => `(${Array.from({ length: width }, (_, c) => `$${r * width + c + 1}`).join(', ')})`).join(', ');
          await db.query(`INSERT INTO orders_${t} VALUES ${values}`, rows.flatMap((r) => r.params));
          expected.push(...rows.map((r) => r.expected));
        }
        if (d === 0) {
          await db.query(`CREATE TABLE misfit ${PG_DDL.replace('amount numeric(12,2)', 'amount numeric(14,2)')}`);
          await db.query(`CREATE TABLE empty ${PG_DDL}`);
        }
      } finally {
        await db.end();
      }
    }
    await admin.query(`CREATE DATABASE ${killDatabase}`);
    const db = new pg.Client({ host, port, user, password, database: killDatabase });
    await db.connect();
    await db.query('CREATE TABLE big (order_id int8 PRIMARY KEY, note text)');
    await db.query(`INSERT INTO big SELECT i, repeat('x', 100) || i FROM generate_series(1, ${KILL_ROWS}) AS i`);
    await db.end();
    coordinator = await inProcessCoordinator(e);
  });

  after(async () => {
    await Promise.all(workers.map((w) => stop(w)));
    await coordinator?.close();
    for (const database of [...databases, killDatabase]) await admin?.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
    await admin?.end();
  });

  async function createTable(name: string, columns: readonly { name: string; type: string }[] = PAIMON_COLUMNS): Promise<void> {
    const response = await coordinator.app.inject({ method: 'POST', url: '/v1/tables', payload: { database: 'shop', name, columns, primaryKeys: ['order_id'], bucket: 2 } });
    assert.equal(response.statusCode, 201, response.body);
  }

  async function startSync(table: string, spec: Record<string, unknown>) {
    return coordinator.app.inject({ method: 'POST', url: '/v1/syncs', payload: { table: { database: 'shop', table }, source: spec } });
  }

  test('12 physical tables in 3 databases load as one snapshot with exactly their rows (Tributary and pypaimon)', async () => {
    workers.push(...(await Promise.all([spawnWorker(e), spawnWorker(e)])));
    await createTable('orders_all');
    const response = await startSync('orders_all', { ...source, databases: `${p}\\_shop\\_%`, tables: 'orders\\_%', splitRows: 50, batchRows: 32 });
    assert.equal(response.statusCode, 202, response.body);
    const id = response.json<{ id: string }>().id;
    const done = await waitForPhase(() => coordinator.syncs.get(id), ['COMMITTED', 'ABORTED'], 120_000);
    assert.equal(done.state.phase, 'COMMITTED', JSON.stringify(done.state));
    const ids = done.plan.shards.map((s) => s.id);
    assert.equal(ids.length, 36); // 120 rows per table in ranges of 50: 3 parts × 12 tables
    assert.deepEqual(ids, [...ids].sort());
    assert.equal(ids[0], `${databases[0]}.public.orders_0.p00000`);

    const sorted = [...expected].sort(byId);
    const rows = (await readRows(e, 'shop', 'orders_all')).sort(byId);
    assert.equal(rows.length, 12 * ROWS_PER_TABLE);
    for (const [i, row] of rows.entries()) assert.deepEqual(hex(row), hex(sorted[i] ?? []), `row ${i}`);
    assert.deepEqual((await pypaimonRead(e, 'shop', 'orders_all')).rows, canonicalRows(sorted));
    await Promise.all(workers.splice(0).map((w) => stop(w)));
  });

  test('a worker SIGKILLed in the middle of a COPY: the shard re-runs on another worker and the table holds each row once', async () => {
    const columns = [
      { name: 'order_id', type: 'BIGINT NOT NULL' },
      { name: 'note', type: 'STRING' },
    ];
    await createTable('killed', columns);
    const first = await spawnWorker(e);
    workers.push(first);
    const response = await startSync('killed', { ...source, databases: [killDatabase], tables: ['big'], batchRows: 500 });
    assert.equal(response.statusCode, 202, response.body);
    const id = response.json<{ id: string }>().id;
    const [running] = await waitUntil(async () => {
      const attempts = (await coordinator.store.attempts(id)).filter((a) => a.status === 'running');
      return attempts.length > 0 && attempts;
    }, 'the shard is running');
    assert.ok(running !== undefined);
    await waitUntil(async () => (await shardProgressRows(e, id, running.shardId)) > 0, 'the shard wrote rows');
    await stop(first, 'SIGKILL');
    workers.push(await spawnWorker(e));
    const done = await waitForPhase(() => coordinator.syncs.get(id), ['COMMITTED', 'ABORTED'], 120_000);
    assert.equal(done.state.phase, 'COMMITTED', JSON.stringify(done.state));
    const attempts = await coordinator.store.attempts(id);
    assert.equal(attempts.find((a) => a.attemptId === running.attemptId)?.status, 'abandoned', 'the killed attempt did not finish');
    // Exactly one accepted attempt per shard, the one the sync committed; the killed one is not it.
    // How many executions succeeded is not the invariant: a re-run whose lock lapsed too (a starved
    // worker) is run again, and each execution that finishes reports `succeeded`, not accepted.
    for (const shard of done.plan.shards) {
      const accepted = attempts.filter((a) => a.shardId === shard.id && a.accepted === true);
      assert.equal(accepted.length, 1, JSON.stringify(attempts));
      assert.equal(accepted[0]?.status, 'succeeded');
      assert.equal(done.state.accepted[shard.id]?.attemptId, accepted[0]?.attemptId, 'the committed attempt is the accepted one');
    }
    assert.notEqual(done.state.accepted[running.shardId]?.attemptId, running.attemptId, 'the killed attempt was not accepted');
    const rows = (await readRows(e, 'shop', 'killed')).sort(byId);
    assert.deepEqual(rows.map((r) => r[0]), oneTo(KILL_ROWS));
    assert.ok(rows.every((r) => r[1] === `${'x'.repeat(100)}${String(r[0])}`), 'every note as in the source');
    assert.deepEqual(await pypaimonIds(e, 'shop', 'killed'), oneTo(KILL_ROWS));
  });

  test('rows written while a shard is being read do not appear in the load: the shard reads one snapshot', async () => {
    assert.ok(workers.length > 0, 'the worker of the previous test is running');
    await createTable('consistent', [
      { name: 'order_id', type: 'BIGINT NOT NULL' },
      { name: 'note', type: 'STRING' },
    ]);
    const response = await startSync('consistent', { ...source, databases: [killDatabase], tables: ['big'], batchRows: 200 });
    assert.equal(response.statusCode, 202, response.body);
    const id = response.json<{ id: string }>().id;
    const [running] = await waitUntil(async () => {
      const attempts = (await coordinator.store.attempts(id)).filter((a) => a.status === 'running');
      return attempts.length > 0 && attempts;
    }, 'the shard is running');
    assert.ok(running !== undefined);
    await waitUntil(async () => (await shardProgressRows(e, id, running.shardId)) > 0, 'the shard wrote rows');
    const db = new pg.Client({ host, port, user, password, database: killDatabase });
    await db.connect();
    try {
      await db.query(`INSERT INTO big SELECT i, 'late' FROM generate_series(${KILL_ROWS + 1}, ${KILL_ROWS + 1000}) AS i`);
      await db.query(`UPDATE big SET note = 'changed' WHERE order_id IN (1, ${KILL_ROWS})`);
      await db.query('DELETE FROM big WHERE order_id = 2');
    } finally {
      await db.end();
    }
    // The reader runs at most a batch and the socket's buffers ahead of the rows written: with this
    // many rows still to write, the COPY was running when the writes above committed.
    const written = await shardProgressRows(e, id, running.shardId);
    assert.ok(written < KILL_ROWS - 20_000, `the shard had written ${written} rows: too far along to show anything`);
    const done = await waitForPhase(() => coordinator.syncs.get(id), ['COMMITTED', 'ABORTED'], 120_000);
    assert.equal(done.state.phase, 'COMMITTED', JSON.stringify(done.state));
    const rows = (await readRows(e, 'shop', 'consistent')).sort(byId);
    assert.deepEqual(rows.map((r) => r[0]), oneTo(KILL_ROWS), 'no late row, the deleted row still there');
    assert.ok(rows.every((r) => r[1] === `${'x'.repeat(100)}${String(r[0])}`), 'no changed note');
  });

  test('an empty table is one shard that reads nothing, and the sync commits', async () => {
    assert.ok(workers.length > 0, 'the worker of the previous test is running');
    await createTable('orders_empty');
    const response = await startSync('orders_empty', { ...source, databases: [databases[0]], tables: ['empty'] });
    assert.equal(response.statusCode, 202, response.body);
    const done = await waitForPhase(() => coordinator.syncs.get(response.json<{ id: string }>().id), ['COMMITTED', 'ABORTED'], 60_000);
    assert.equal(done.state.phase, 'COMMITTED', JSON.stringify(done.state));
    assert.deepEqual(done.plan.shards.map((s) => s.id), [`${databases[0]}.public.empty`]);
    assert.deepEqual(await readRows(e, 'shop', 'orders_empty'), []);
  });

  test('plan-time refusals are typed and name the problem: a misfit column, no table, an unknown connection, a server away', async () => {
    await createTable('orders_refused');
    const redis = new Redis(services.redis);
    try {
      const keys = async () => (await redis.keys(`${e.prefix}:*`)).filter((k) => !k.endsWith(':stalled-check')).sort();
      // The earlier tests' commit jobs go on after their syncs commit (outcome, expiration): the
      // keys are compared once no job of this prefix runs (no lock, no active list).
      await waitUntil(async () => !(await keys()).some((k) => k.endsWith(':lock') || k.endsWith(':active')), 'the earlier jobs to finish', 120_000);
      const before = await keys();
      const misfit = await startSync('orders_refused', { ...source, databases: [databases[0]], tables: ['misfit'] });
      assert.equal(misfit.statusCode, 400, misfit.body);
      const problem = misfit.json<{ code: string; detail: string; context: Record<string, unknown> }>();
      assert.equal(problem.code, 'POSTGRES_SCHEMA_MISMATCH');
      assert.match(problem.detail, /misfit, column amount: PostgreSQL numeric\(14,2\) cannot be loaded into DECIMAL\(12, 2\)/);
      assert.deepEqual(problem.context, { database: databases[0], schema: 'public', table: 'misfit', column: 'amount' });

      const noSchema = await startSync('orders_refused', { ...source, databases: `${p}\\_shop\\_%`, schemas: ['no_such_schema'], tables: 'orders\\_%' });
      assert.equal(noSchema.statusCode, 400, noSchema.body);
      assert.equal(noSchema.json<{ code: string }>().code, 'POSTGRES_SOURCE_INVALID');
      assert.match(noSchema.json<{ detail: string }>().detail, /no PostgreSQL table matches .*no_such_schema/);

      const unknown = await startSync('orders_refused', { ...source, connection: 'nope', databases: `${p}\\_shop\\_%`, tables: 'orders\\_%' });
      assert.equal(unknown.statusCode, 400, unknown.body);
      assert.equal(unknown.json<{ code: string }>().code, 'SOURCE_CONNECTION_UNKNOWN');

      const inline = await startSync('orders_refused', { kind: 'postgres', host, port, user, password, databases: `${p}\\_shop\\_%`, tables: 'orders\\_%' });
      assert.equal(inline.statusCode, 400, inline.body);
      assert.equal(inline.json<{ code: string }>().code, 'SOURCE_CREDENTIALS_INLINE');
      assert.ok(!inline.body.includes(password));

      const away = await startSync('orders_refused', { ...source, connection: 'away', databases: `${p}\\_shop\\_%`, tables: 'orders\\_%' });
      assert.equal(away.statusCode, 503, away.body);
      const unavailable = away.json<{ code: string; retryable: boolean; detail: string }>();
      assert.equal(unavailable.code, 'POSTGRES_SOURCE_UNAVAILABLE');
      assert.equal(unavailable.retryable, true);
      assert.ok(!away.body.includes(password));
      assert.deepEqual(await keys(), before, 'nothing was enqueued');
    } finally {
      redis.disconnect();
    }
  });
});
