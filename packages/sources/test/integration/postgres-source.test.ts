/**
 * The PostgreSQL source against the real server: every mapped type read exactly (extremes, NULLs,
 * unicode), values no table type holds refused per row, plan-time refusals, key ranges and a resume,
 * the consistent snapshot (rows written while a shard is read do not appear), backpressure (a
 * paused reader leaves the server waiting on its socket while memory stays flat), and cancel on abort.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { isTributaryError } from '@tributary/protocol';
import { parseDataTypeString, type InternalRow, type RowType } from '@tributary/table';
import { services, uniqueName } from '@tributary/testkit';
import { loadSourceAccess } from '../../src/access.ts';
import { PostgresSource } from '../../src/postgres/source.ts';
import type { PostgresShard } from '../../src/postgres/spec.ts';
import type { PlanContext, PlannedSourceShard, SourceBatch, SourcePosition, TargetColumn } from '../../src/source.ts';
import { columnConverter } from '../../src/values/columns.ts';
import { rowConverter } from '../../src/values/convert.ts';
import { PLAN } from '../support/contexts.ts';

const BIG_ROWS = 300_000;

/** Paimon columns of the `types` table, in order. */
const TYPE_COLUMNS = [
  'id BIGINT NOT NULL',
  'b BOOLEAN',
  'i2 SMALLINT',
  'i4 INT',
  'i8 BIGINT',
  'n DECIMAL(38, 10)',
  'nu STRING',
  'nd DECIMAL(38, 10)',
  'f4 FLOAT',
  'f8 DOUBLE',
  't STRING',
  'vc VARCHAR(10)',
  'c CHAR(5)',
  'by BYTES',
  'd DATE',
  'tm TIME(3)',
  'ts TIMESTAMP(6)',
  'tz TIMESTAMP_LTZ(6)',
  'tzw TIMESTAMP(6)',
  'u STRING',
  'j STRING',
  'jb STRING',
  'm STRING',
];

const TYPES_DDL = `(
  id int8 PRIMARY KEY, b bool, i2 int2, i4 int4, i8 int8, n numeric(38,10), nu numeric, nd numeric, f4 float4, f8 float8,
  t text, vc varchar(10), c char(5), by bytea, d date, tm time, ts timestamp, tz timestamptz, tzw timestamptz, u uuid, j json, jb jsonb, m mood)`;

const table = (columns: readonly string[]): RowType => ({
  fields: columns.map((t, id) => ({ id, name: t.split(' ')[0] ?? '', type: parseDataTypeString(t.split(' ').slice(1).join(' ')) })),
});
const target = (columns: readonly string[]): TargetColumn[] => table(columns).fields.map((f) => ({ name: f.name, type: f.type }));
const planContext = (columns: readonly string[]): PlanContext => ({
  ...PLAN,
  target: target(columns),
  maxShards: 10_000,
  tooManyShards: (planned) => new Error(`${planned} shards`),
  refuse: (message) => new Error(message),
});

const DAY = 86_400_000;
const day = (iso: string): number => Date.parse(`${iso}T00:00:00Z`) / DAY;
const instant = (iso: string, micros = 0) => ({ epochMillis: Date.parse(iso), nanoOfMillis: micros * 1000 });

describe('postgres source reading PostgreSQL', () => {
  const database = uniqueName('w_pg').replaceAll('-', '_');
  const { host, port, user, password } = services.postgres;
  const connections = {
    pg: { kind: 'postgres', host, port, user, database: 'postgres', passwordEnv: 'PW' },
    down: { kind: 'postgres', host, port: 1, user, passwordEnv: 'PW' },
    wrongPassword: { kind: 'postgres', host, port, user, passwordEnv: 'WRONG' },
    reader: { kind: 'postgres', host, port, user: `${database}_reader`, database: 'postgres', passwordEnv: 'READER_PW' },
  };
  const access = loadSourceAccess({
    env: { TRIBUTARY_CONNECTIONS_FILE: '/connections.json', PW: password, WRONG: 'not-the-password-x9', READER_PW: 'reader-pw-x7' },
    readText: () => JSON.stringify({ connections }),
    realpath: (path) => Promise.resolve(path),
  });
  const spec = (extra: Record<string, unknown> = {}) => ({ kind: 'postgres', connection: 'pg', databases: [database], tables: 'types', ...extra });
  let admin: pg.Client;
  let db: pg.Client;

  before(async () => {
    admin = new pg.Client({ host, port, user, password, database: 'postgres' });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${database} ENCODING 'UTF8' TEMPLATE template0`);
    db = new pg.Client({ host, port, user, password, database });
    await db.connect();
    await db.query(`CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy 😀')`);
    await db.query(`CREATE TABLE types ${TYPES_DDL}`);
    await db.query(`INSERT INTO types VALUES
      (1, true, -32768, -2147483648, -9223372036854775808, -9999999999999999999999999999.9999999999, '-123456789012345678901234567890.123456789012345678901234567890', '0.0000000001',
       '-3.4028235e38', '-1.7976931348623157e308', '订单 😀 𝄞', 'ünïcødé✓', 'ab', '\\x00ff10', '0001-01-01', '00:00:00', '1900-01-01 00:00:00.000001',
       '1970-01-01 05:30:00.5+05:30', '2024-02-29 23:59:59.999999-08', '00000000-0000-0000-0000-000000000000', '{"b": 1,  "a": [1, 2]}', '{"b": 1,  "a": "😀"}', 'happy 😀'),
      (2, false, 32767, 2147483647, 9223372036854775807, 9999999999999999999999999999.9999999999, 'NaN', '-12.5',
       'NaN', '-0', '', '', '', '\\x', '9999-12-31', '23:59:59.999', '2262-04-11 23:47:16.854775', '1969-12-31 23:59:59.999999Z', '1677-09-21 00:12:43.145225Z',
       'ffffffff-ffff-ffff-ffff-ffffffffffff', '[]', 'null', 'sad'),
      (3, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
      (4, true, 0, 0, 0, 0, '1e-20', '123456789012345678901234567.8', '1.4e-45', '4.9e-324', 'x', 'abcdefghij', 'abcde', '\\xdeadbeef', '1970-01-01', '12:34:56.789', '1970-01-01 00:00:00',
       '0001-01-01 00:00:00Z', '9999-12-31 23:59:59.999999Z', '123e4567-e89b-12d3-a456-426614174000', '"s"', '3.0', 'ok'),
      (5, false, 1, 1, 1, 0.5, 'Infinity', '-0.0000000001', 'Infinity', '-Infinity', 'line\\nbreak', 'a''b', 'é', '\\x0000', '4713-01-01 BC', '00:00:00.001', '0001-01-01 00:00:00', '2000-01-01 00:00:00Z', '2000-01-01 00:00:00Z',
       'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '{}', '{}', 'ok')`);
    await db.query('CREATE TABLE items (tenant int4 NOT NULL, code varchar(16) NOT NULL, qty int4, PRIMARY KEY (tenant, code))');
    await db.query(`INSERT INTO items SELECT i % 5, 'c-' || lpad((49 - i)::text, 2, '0'), i FROM generate_series(0, 49) AS i`);
    await db.query('CREATE TABLE big (id int8 PRIMARY KEY, amount numeric(12,2), created timestamp, note text)');
    await db.query(
      `INSERT INTO big SELECT i, (i % 100000) / 100.0 - 500, timestamp '1999-01-01' + i * interval '1234567 microseconds', repeat('n', 200) || i FROM generate_series(1, ${BIG_ROWS}) AS i`,
    );
    await db.query('CREATE TABLE nokey (id int8, v text)');
    await db.query('CREATE TABLE "Bad-Name" (id int8 PRIMARY KEY)');
    await db.query('CREATE TABLE arrays (id int8 PRIMARY KEY, tags text[])');
    await db.query('CREATE TABLE bad_values (id int8 PRIMARY KEY, d date, tm time, n numeric(10,2))');
    await db.query(`INSERT INTO bad_values VALUES (1, '2020-01-01', '01:00:00', 1), (2, 'infinity', '01:00:00', 1), (3, '2020-01-01', '01:00:00.000001', 1), (4, '2020-01-01', '24:00:00', 1), (5, '2020-01-01', '01:00:00', 'NaN')`);
  });

  after(async () => {
    await db?.end();
    await admin?.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
    await admin?.query(`DROP DATABASE IF EXISTS ${database}_scs WITH (FORCE)`);
    await admin?.query(`DROP ROLE IF EXISTS ${database}_reader`);
    await admin?.end();
  });

  async function read(source: PostgresSource, shard: PlannedSourceShard, from?: SourcePosition): Promise<SourceBatch[]> {
    const batches: SourceBatch[] = [];
    for await (const batch of source.open(shard, from)) batches.push(batch);
    return batches;
  }

  const shardOf = (spec: PostgresShard): PlannedSourceShard => ({ id: `${spec.database}.${spec.schema}.${spec.table}`, spec });

  test('every mapped type is read exactly: extremes, NULLs, unicode; timestamptz as its instant (UTC)', async () => {
    const source = new PostgresSource(spec(), table(TYPE_COLUMNS).fields.map((f) => f.name), access);
    const shards = await source.plan(planContext(TYPE_COLUMNS));
    assert.deepEqual(shards, [{ id: `${database}.public.types`, spec: { database, schema: 'public', table: 'types', only: true, key: [{ name: 'id', kind: 'integer' }] } }]);
    const batches = await read(source, shards[0] as PlannedSourceShard);
    const convert = rowConverter('types', await source.columns(), table(TYPE_COLUMNS));
    const rows: InternalRow[] = batches.flatMap((b) => b.rows).map((r, i) => convert(r, i));
    // The BC day from PostgreSQL itself: days between 4713-01-01 BC and 1970-01-01.
    const bc = (await db.query<{ days: number }>(`SELECT ('4713-01-01 BC'::date - '1970-01-01'::date) AS days`)).rows[0]?.days;
    const hex = (v: unknown) => (v instanceof Uint8Array ? Buffer.from(v).toString('hex') : v);
    const expected: InternalRow[] = [
      [
        1n, true, -32768, -2147483648, -(2n ** 63n), -99999999999999999999999999999999999999n, '-123456789012345678901234567890.123456789012345678901234567890', 1n,
        Math.fround(-3.4028235e38), -1.7976931348623157e308, '订单 😀 𝄞', 'ünïcødé✓', 'ab   ', Uint8Array.of(0, 255, 16), day('0001-01-01'), 0, instant('1900-01-01T00:00:00.000Z', 1),
        instant('1970-01-01T00:00:00.500Z'), instant('2024-03-01T07:59:59.999Z', 999), '00000000-0000-0000-0000-000000000000', '{"b": 1,  "a": [1, 2]}', '{"a": "😀", "b": 1}', 'happy 😀',
      ],
      [
        2n, false, 32767, 2147483647, 2n ** 63n - 1n, 99999999999999999999999999999999999999n, 'NaN', -125000000000n,
        Number.NaN, -0, '', '', '     ', new Uint8Array(), day('9999-12-31'), 86_399_999, instant('2262-04-11T23:47:16.854Z', 775),
        instant('1969-12-31T23:59:59.999Z', 999), instant('1677-09-21T00:12:43.145Z', 225), 'ffffffff-ffff-ffff-ffff-ffffffffffff', '[]', 'null', 'sad',
      ],
      [3n, ...Array<null>(22).fill(null)],
      [
        4n, true, 0, 0, 0n, 0n, '0.00000000000000000001', 1234567890123456789012345678000000000n,
        Math.fround(1.4e-45), 5e-324, 'x', 'abcdefghij', 'abcde', Uint8Array.of(0xde, 0xad, 0xbe, 0xef), 0, 45_296_789, instant('1970-01-01T00:00:00.000Z'),
        instant('0001-01-01T00:00:00.000Z'), instant('9999-12-31T23:59:59.999Z', 999), '123e4567-e89b-12d3-a456-426614174000', '"s"', '3.0', 'ok',
      ],
      [
        5n, false, 1, 1, 1n, 5000000000n, 'Infinity', -1n,
        Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, 'line\\nbreak', "a'b", 'é    ', Uint8Array.of(0, 0), bc ?? 0, 1, instant('0001-01-01T00:00:00.000Z'),
        instant('2000-01-01T00:00:00.000Z'), instant('2000-01-01T00:00:00.000Z'), 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '{}', '{}', 'ok',
      ],
    ];
    assert.deepEqual(rows.map((r) => r.map(hex)), expected.map((r) => r.map(hex)));
    assert.ok(Object.is(rows[1]?.[9], -0), 'float8 -0 keeps its sign');
    const position = batches[0]?.readPosition?.server;
    assert.equal(position?.id, `${services.postgres.host}:${services.postgres.port}`);
    assert.match(String(position?.log.lsn), /^[0-9A-F]+\/[0-9A-F]+$/);
    assert.match(String(position?.log.snapshot), /^\d+:\d+:[\d,]*$/);
  });

  test('values no table type holds fail their row, naming the shard, position and column', async () => {
    const columns = ['id BIGINT NOT NULL', 'd DATE', 'tm TIME(3)', 'n DECIMAL(10, 2)'];
    const source = new PostgresSource(spec({ tables: ['bad_values'] }), ['id', 'd', 'tm', 'n'], access);
    const [shard] = await source.plan(planContext(columns));
    const rows = (await read(source, shard as PlannedSourceShard)).flatMap((b) => b.rows);
    const convert = rowConverter('bad', await source.columns(), table(columns));
    assert.deepEqual(convert(rows[0] ?? [], 0), [1n, day('2020-01-01'), 3_600_000, 100n]);
    for (const [position, column] of [[1, 'd'], [2, 'tm'], [3, 'tm'], [4, 'n']] as const) {
      assert.throws(
        () => convert(rows[position] ?? [], position),
        (e: unknown) => isTributaryError(e) && e.code === 'SOURCE_ROW_INVALID' && e.context.position === position && e.context.column === column,
        `row ${position} ${column}`,
      );
    }
  });

  test('plan refusals: a type that does not fit, an array, no primary key, no table, unknown connection, inline credentials, a server away', async () => {
    const mismatch = new PostgresSource(spec(), table(TYPE_COLUMNS).fields.map((f) => f.name), access);
    const narrower = TYPE_COLUMNS.map((c) => (c.startsWith('i4 ') ? 'i4 SMALLINT' : c));
    await assert.rejects(mismatch.plan(planContext(narrower)), (e: unknown) => {
      assert.ok(isTributaryError(e) && e.code === 'POSTGRES_SCHEMA_MISMATCH', String(e));
      assert.deepEqual(e.context, { database, schema: 'public', table: 'types', column: 'i4' });
      assert.match(e.message, /PostgreSQL integer cannot be loaded into SMALLINT without loss/);
      return true;
    });
    const arrays = new PostgresSource(spec({ tables: ['arrays'] }), ['id', 'tags'], access);
    await assert.rejects(arrays.plan(planContext(['id BIGINT NOT NULL', 'tags STRING'])), (e: unknown) => isTributaryError(e) && e.code === 'POSTGRES_SCHEMA_MISMATCH' && /text\[\] is an array/.test(e.message));
    const nokey = new PostgresSource(spec({ tables: ['nokey'] }), ['id', 'v'], access);
    await assert.rejects(nokey.plan(planContext(['id BIGINT', 'v STRING'])), (e: unknown) => isTributaryError(e) && e.code === 'POSTGRES_SOURCE_INVALID' && /nokey has no primary key/.test(e.message));
    const badName = new PostgresSource(spec({ tables: ['Bad-Name'] }), ['id'], access);
    await assert.rejects(badName.plan(planContext(['id BIGINT'])), (e: unknown) => isTributaryError(e) && e.code === 'POSTGRES_SOURCE_INVALID' && /Bad-Name: only names of ASCII letters, digits and _/.test(e.message));
    const noDatabase = new PostgresSource(spec({ databases: ['no_such_database_x'] }), ['id'], access);
    await assert.rejects(noDatabase.plan(planContext(['id BIGINT'])), (e: unknown) => isTributaryError(e) && e.code === 'POSTGRES_SOURCE_INVALID' && /no PostgreSQL table matches databases \["no_such_database_x"\]/.test(e.message));
    const none = new PostgresSource(spec({ schemas: 'nothing_%' }), ['id'], access);
    await assert.rejects(none.plan(planContext(['id BIGINT'])), (e: unknown) => isTributaryError(e) && e.code === 'POSTGRES_SOURCE_INVALID' && /no PostgreSQL table matches/.test(e.message));
    // A numeric key holding NaN cannot bound a range: said so, not as a query the server refused.
    await db.query(`CREATE TABLE nan_key (id numeric PRIMARY KEY); INSERT INTO nan_key VALUES (1), (2), ('NaN'), ('Infinity')`);
    const nanKey = new PostgresSource(spec({ tables: ['nan_key'], splitRows: 1 }), ['id'], access);
    await assert.rejects(nanKey.plan(planContext(['id STRING NOT NULL'])), (e: unknown) => {
      assert.ok(isTributaryError(e) && e.code === 'POSTGRES_SOURCE_INVALID', String(e));
      assert.match(e.message, /a value of key column id is not a plain number, so the table cannot be split into key ranges \(plan it without splitRows\)/);
      assert.doesNotMatch(e.message, /refused the plan's query|UNKNOWN/);
      return true;
    });
    // A listed name that matches no table is refused, not skipped (a LIKE pattern may match a subset).
    const typo = new PostgresSource(spec({ tables: ['types', 'typez'] }), table(TYPE_COLUMNS).fields.map((f) => f.name), access);
    await assert.rejects(typo.plan(planContext(TYPE_COLUMNS)), (e: unknown) => isTributaryError(e) && e.code === 'POSTGRES_SOURCE_INVALID' && /lists names no PostgreSQL table matches: table typez \(/.test(e.message));
    const typoSchema = new PostgresSource(spec({ schemas: ['public', 'pubic'] }), table(TYPE_COLUMNS).fields.map((f) => f.name), access);
    await assert.rejects(typoSchema.plan(planContext(TYPE_COLUMNS)), (e: unknown) => isTributaryError(e) && e.code === 'POSTGRES_SOURCE_INVALID' && /: schema pubic \(/.test(e.message));
    await assert.rejects(new PostgresSource(spec({ connection: 'other' }), ['id'], access).check(), (e: unknown) => isTributaryError(e) && e.code === 'SOURCE_CONNECTION_UNKNOWN');
    const inline = new PostgresSource({ ...spec(), connection: undefined, host, port, user, password }, ['id'], access);
    await assert.rejects(inline.check(), (e: unknown) => isTributaryError(e) && e.code === 'SOURCE_CREDENTIALS_INLINE' && !e.message.includes(password));
    await assert.rejects(new PostgresSource(spec({ connection: 'down' }), ['id'], access).plan(planContext(['id BIGINT'])), (e: unknown) => {
      assert.ok(isTributaryError(e) && e.code === 'POSTGRES_SOURCE_UNAVAILABLE' && e.retryable, String(e));
      assert.ok(!e.message.includes(password));
      return true;
    });
    await assert.rejects(new PostgresSource(spec({ connection: 'wrongPassword' }), ['id'], access).plan(planContext(['id BIGINT'])), (e: unknown) => {
      assert.ok(isTributaryError(e) && e.code === 'POSTGRES_SOURCE_INVALID' && /28P01/.test(e.message), String(e));
      assert.ok(!e.message.includes('not-the-password-x9'));
      return true;
    });
  });

  test('split into key ranges over a composite key: the ranges read every row once, in key order; a resume reads exactly the rest', async () => {
    const columns = ['tenant INT NOT NULL', 'code STRING NOT NULL', 'qty INT'];
    const source = new PostgresSource(spec({ tables: ['items'], splitRows: 7, batchRows: 3 }), ['tenant', 'code', 'qty'], access);
    const shards = await source.plan(planContext(columns));
    assert.equal(shards.length, 8); // 50 rows in ranges of 7
    assert.deepEqual(shards[1]?.spec, { database, schema: 'public', table: 'items', only: true, key: [{ name: 'tenant', kind: 'integer' }, { name: 'code', kind: 'text' }], from: ['0', 'c-39'], to: ['1', 'c-23'] }); // tenant 0: c-04 c-09 … c-49; tenant 1: c-03 c-08 …
    const perShard = await Promise.all(shards.map(async (s) => (await read(source, s)).flatMap((b) => b.rows)));
    assert.ok(perShard.every((rows, i) => rows.length === (i < 7 ? 7 : 1)));
    const all = perShard.flat();
    const { rows: inOrder } = await db.query<[number, string, number]>({ text: 'SELECT tenant, code, qty FROM items ORDER BY tenant, code', rowMode: 'array' });
    assert.deepEqual(all, inOrder);
    const whole = new PostgresSource(spec({ tables: ['items'], batchRows: 3 }), ['tenant', 'code', 'qty'], access);
    const [one] = await whole.plan(planContext(columns));
    const batches = await read(whole, one as PlannedSourceShard);
    assert.deepEqual(batches[4]?.end, { tenant: '1', code: String(inOrder[14]?.[1]) });
    const rest = (await read(whole, one as PlannedSourceShard, batches[4]?.end)).flatMap((b) => b.rows);
    assert.deepEqual(rest, inOrder.slice(15));
  });

  test('row-level security that applies to the role is refused at plan time, and a read it would filter fails: never a load of the rows the policies show', async () => {
    const reader = `${database}_reader`;
    await admin.query(`CREATE ROLE ${reader} LOGIN PASSWORD 'reader-pw-x7'`);
    await db.query('CREATE TABLE policed (id int8 PRIMARY KEY, owner text NOT NULL)');
    await db.query(`INSERT INTO policed SELECT i, CASE WHEN i % 3 = 0 THEN 'other' ELSE 'me' END FROM generate_series(1, 30) AS i`);
    await db.query(`GRANT SELECT ON policed TO ${reader}`);
    await db.query(`GRANT CONNECT ON DATABASE ${database} TO ${reader}`);
    const columns = ['id BIGINT NOT NULL', 'owner STRING NOT NULL'];
    const asReader = new PostgresSource(spec({ connection: 'reader', tables: ['policed'] }), ['id', 'owner'], access);
    // Without policies in force the role reads every row.
    const [open] = await asReader.plan(planContext(columns));
    assert.equal((await read(asReader, open as PlannedSourceShard)).flatMap((b) => b.rows).length, 30);
    await db.query('ALTER TABLE policed ENABLE ROW LEVEL SECURITY');
    await db.query(`CREATE POLICY mine ON policed FOR SELECT TO ${reader} USING (owner = 'me')`);
    await assert.rejects(asReader.plan(planContext(columns)), (e: unknown) => {
      assert.ok(isTributaryError(e) && e.code === 'POSTGRES_SOURCE_INVALID' && !e.retryable, String(e));
      assert.match(e.message, /policed: row-level security applies to the connection's role/);
      assert.ok(!e.message.includes('reader-pw-x7'));
      return true;
    });
    // Planned before the policy (the shard above), read after it: refused, not 20 of the 30 rows.
    await assert.rejects(read(asReader, open as PlannedSourceShard), (e: unknown) => {
      assert.ok(isTributaryError(e) && e.code === 'POSTGRES_READ_REFUSED' && !e.retryable, String(e));
      return true;
    });
    // The owner (a superuser here) is not subject to the policies: planned and read whole.
    const asOwner = new PostgresSource(spec({ tables: ['policed'] }), ['id', 'owner'], access);
    const [whole] = await asOwner.plan(planContext(columns));
    assert.equal((await read(asOwner, whole as PlannedSourceShard)).flatMap((b) => b.rows).length, 30);
  });

  test('a database that reads a backslash in a literal as an escape (standard_conforming_strings off): text key ranges still read every row once', async () => {
    const scs = `${database}_scs`;
    await admin.query(`CREATE DATABASE ${scs} ENCODING 'UTF8' TEMPLATE template0`);
    const client = new pg.Client({ host, port, user, password, database: scs });
    await client.connect();
    try {
      await client.query('CREATE TABLE k (k text PRIMARY KEY, v int4 NOT NULL)');
      const keys = ['A00', 'A01', 'A02', 'A03', 'A04', 'A05', 'A06', '\\x41005', 'a\\b', 'a\\', "q'1", 'a00', 'a01', 'b'];
      for (const [i, k] of keys.entries()) await client.query('INSERT INTO k VALUES ($1, $2)', [k, i]);
      await admin.query(`ALTER DATABASE ${scs} SET standard_conforming_strings = off`);
      const source = new PostgresSource({ kind: 'postgres', connection: 'pg', databases: [scs], tables: 'k', splitRows: 1, batchRows: 2 }, ['k', 'v'], access);
      const shards = await source.plan(planContext(['k STRING NOT NULL', 'v INT NOT NULL']));
      assert.equal(shards.length, keys.length, 'a range per row');
      const rows = (await Promise.all(shards.map(async (s) => (await read(source, s)).flatMap((b) => b.rows)))).flat();
      const { rows: expected } = await client.query<[string, number]>({ text: 'SELECT k, v FROM k ORDER BY k', rowMode: 'array' });
      assert.deepEqual(rows, expected);
    } finally {
      await client.end();
    }
  });

  test('an inheritance parent is read without its children (each child is a table of its own); a partitioned table with its partitions', async () => {
    await db.query('CREATE TABLE inh_parent (id int8 PRIMARY KEY, v text)');
    await db.query('CREATE TABLE inh_child () INHERITS (inh_parent)');
    await db.query('ALTER TABLE inh_child ADD PRIMARY KEY (id)');
    await db.query("INSERT INTO inh_parent VALUES (1, 'p1'), (2, 'p2')");
    await db.query("INSERT INTO inh_child VALUES (1, 'c1'), (10, 'c10')");
    await db.query('CREATE TABLE inh_parted (id int8 PRIMARY KEY, v text) PARTITION BY RANGE (id)');
    await db.query('CREATE TABLE inh_parted_a PARTITION OF inh_parted FOR VALUES FROM (0) TO (100)');
    await db.query('CREATE TABLE inh_parted_b PARTITION OF inh_parted FOR VALUES FROM (100) TO (200)');
    await db.query("INSERT INTO inh_parted VALUES (5, 'a'), (150, 'b')");
    const rowsOf = async (tables: string | string[], splitRows?: number, incremental?: string) => {
      const source = new PostgresSource(spec({ tables, ...(splitRows === undefined ? {} : { splitRows }), ...(incremental === undefined ? {} : { incremental: { column: incremental } }) }), ['id', 'v'], access);
      const shards = await source.plan(planContext(['id BIGINT NOT NULL', 'v STRING']));
      const rows = (await Promise.all(shards.map(async (s) => (await read(source, s)).flatMap((b) => b.rows)))).flat();
      return { shards: shards.map((s) => s.id.slice(database.length + 1)), rows: rows.map(([id, v]) => `${String(id)}:${String(v)}`).sort() };
    };
    // Parent and child both matched: each row once, from its own table.
    assert.deepEqual(await rowsOf(['inh_parent', 'inh_child']), { shards: ['public.inh_child', 'public.inh_parent'], rows: ['10:c10', '1:c1', '1:p1', '2:p2'] });
    // The parent alone: its own rows, never the child's (whose key 1 would have replaced the parent's in a primary-key table).
    assert.deepEqual(await rowsOf('inh_parent'), { shards: ['public.inh_parent'], rows: ['1:p1', '2:p2'] });
    assert.deepEqual((await rowsOf('inh_parent', 1)).rows, ['1:p1', '2:p2'], 'split into ranges: the cuts are the parent\'s own keys');
    assert.deepEqual((await rowsOf('inh_parent', undefined, 'id')).rows, ['1:p1', '2:p2'], 'incremental: the watermark is the parent\'s own maximum');
    // A partitioned table: one shard, the rows of every partition; the partitions are not listed themselves.
    assert.deepEqual(await rowsOf('inh_parted%'), { shards: ['public.inh_parted'], rows: ['150:b', '5:a'] });
  });

  test('text the server cannot send as UTF-8 (a SQL_ASCII database) fails the shard with SOURCE_ROW_INVALID, not retried, without its bytes', async () => {
    const ascii = `${database}_ascii`;
    await admin.query(`CREATE DATABASE ${ascii} ENCODING 'SQL_ASCII' LC_COLLATE 'C' LC_CTYPE 'C' TEMPLATE template0`);
    try {
      const client = new pg.Client({ host, port, user, password, database: ascii });
      await client.connect();
      try {
        await client.query('CREATE TABLE latin (id int8 PRIMARY KEY, v text)');
        // 'caf\xe9-s3cret' written as bytes: \xe9 alone is not UTF-8.
        await client.query("INSERT INTO latin VALUES (1, 'ok'), (2, convert_from('\\x636166e92d733363726574'::bytea, 'SQL_ASCII'))");
      } finally {
        await client.end();
      }
      const source = new PostgresSource(spec({ databases: [ascii], tables: 'latin' }), ['id', 'v'], access);
      const [shard] = await source.plan(planContext(['id BIGINT NOT NULL', 'v STRING']));
      const failure = await read(source, shard as PlannedSourceShard).then(
        () => undefined,
        (e: unknown) => e,
      );
      assert.ok(isTributaryError(failure), String(failure));
      assert.equal(failure.code, 'SOURCE_ROW_INVALID', failure.message);
      assert.equal(failure.retryable, false);
      assert.doesNotMatch(`${failure.message} ${JSON.stringify(failure.context)}`, /0xe9|0x2d|s3cret|\bcaf/, 'no byte of the value (the database name\'s random hex follows an underscore, so it never matches \\bcaf)');
    } finally {
      await admin.query(`DROP DATABASE IF EXISTS ${ascii} WITH (FORCE)`);
    }
  });

  test('rows written while a shard is read do not appear: one REPEATABLE READ snapshot for the whole shard', async () => {
    await db.query('CREATE TABLE moving (id int8 PRIMARY KEY, v text)');
    await db.query(`INSERT INTO moving SELECT i, 'v' || i FROM generate_series(1, 20000) AS i`);
    const before = (await db.query<[string, string]>({ text: 'SELECT id::text, v FROM moving ORDER BY moving.id', rowMode: 'array' })).rows;
    const source = new PostgresSource(spec({ tables: ['moving'], batchRows: 100 }), ['id', 'v'], access);
    const [shard] = await source.plan(planContext(['id BIGINT NOT NULL', 'v STRING']));
    const lsn = async () => (await db.query<{ lsn: string }>('SELECT pg_current_wal_lsn()::text AS lsn')).rows[0]?.lsn;
    const atOpen = await lsn();
    const iterator = source.open(shard as PlannedSourceShard)[Symbol.asyncIterator]();
    const first = await iterator.next(); // the read has begun: its snapshot is taken, its COPY is running (paused)
    assert.equal(first.done, false);
    await db.query(`INSERT INTO moving SELECT i, 'late' FROM generate_series(20001, 20100) AS i`);
    await db.query(`UPDATE moving SET v = 'changed' WHERE id IN (5, 15000)`);
    await db.query('DELETE FROM moving WHERE id = 19999');
    // The read's position lies between the open and the writes it does not see.
    const read = (first.value as SourceBatch).readPosition?.server?.log.lsn;
    const order = await db.query<{ ok: boolean }>('SELECT $1::pg_lsn <= $2::pg_lsn AND $2::pg_lsn < $3::pg_lsn AS ok', [atOpen, read, await lsn()]);
    assert.equal(order.rows[0]?.ok, true, `${String(atOpen)} ≤ ${String(read)} < after the writes`);
    const rows = [...(first.value as SourceBatch).rows];
    for (let next = await iterator.next(); next.done !== true; next = await iterator.next()) rows.push(...next.value.rows);
    // Compared as one text each: a diff of 20,000 rows would take minutes to print.
    const text = (list: readonly (readonly unknown[])[]) => list.map((r) => `${String(r[0])}=${String(r[1])}`).join('\n');
    assert.equal(rows.length, before.length);
    assert.ok(text(rows) === text(before), 'the rows read are the rows before the writes');
  });

  test('the column path: the cells written into the columns give exactly the columns and errors of the decoded rows, on the server\'s adversarial values', async () => {
    await db.query('CREATE TABLE adversarial (id int8 PRIMARY KEY, n numeric, n2 numeric(12,2), d date, ts timestamp, tz timestamptz, i2 int2, i4 int4, i8 int8, v varchar(8))');
    await db.query(`INSERT INTO adversarial SELECT i,
        CASE WHEN i % 23 = 0 THEN 'NaN'::numeric WHEN i % 29 = 0 THEN 10::numeric ^ (i % 40) ELSE ((i * 7919) % 1000003 - 500000)::numeric / 10::numeric ^ (i % 9) END,
        CASE WHEN i % 17 = 0 THEN NULL ELSE ((i * 104729) % 2000000000 - 1000000000)::numeric / 100 END,
        CASE i % 31 WHEN 0 THEN 'infinity'::date WHEN 1 THEN '-infinity'::date WHEN 2 THEN '4713-01-01 BC'::date WHEN 3 THEN '5874897-12-31'::date ELSE date '2000-01-01' + (i * 37 % 200000 - 100000)::int4 END,
        CASE i % 37 WHEN 0 THEN 'infinity'::timestamp WHEN 1 THEN '-infinity'::timestamp WHEN 2 THEN '294276-12-31 23:59:59.999999'::timestamp WHEN 3 THEN '4713-01-01 00:00:00 BC'::timestamp
          ELSE timestamp '2000-01-01' + (i * 7777777 % 100000000000 - 50000000000) * interval '1 microsecond' * (1 + i % 1000) END,
        CASE WHEN i % 41 = 0 THEN NULL ELSE timestamptz '1970-01-01 00:00:00Z' + (i * 999983 % 1000000) * interval '1 microsecond' - i * interval '1 day' END,
        (i * 31 % 65536 - 32768)::int2, (i::int8 * 2654435761 % 4294967296 - 2147483648)::int4,
        CASE WHEN i % 3 = 0 THEN -9223372036854775808 WHEN i % 3 = 1 THEN 9223372036854775807 ELSE i * -1234567891 END,
        CASE WHEN i % 19 = 0 THEN NULL ELSE left(repeat('é😀a订' || i, 3), (i % 9)::int4) END
      FROM generate_series(1::int8, 2000) AS i`);
    const names = ['id', 'n', 'n2', 'd', 'ts', 'tz', 'i2', 'i4', 'i8', 'v'];
    const source = new PostgresSource(spec({ tables: ['adversarial'], batchRows: 7 }), names, access);
    const shard = shardOf({ database, schema: 'public', table: 'adversarial', key: [{ name: 'id', kind: 'integer' }] });
    const batches = await read(source, shard);
    assert.equal(batches.reduce((n, b) => n + b.rows.length, 0), 2000);
    const outcome = (run: () => unknown): unknown => {
      try {
        return run();
      } catch (error) {
        assert.ok(isTributaryError(error), String(error));
        return { code: error.code, message: error.message, context: error.context };
      }
    };
    // Loose and tight tables: most batches convert, many fail on a value one of the tables cannot hold.
    const layouts = [
      ['id BIGINT NOT NULL', 'n STRING', 'n2 DECIMAL(12, 2)', 'd DATE', 'ts TIMESTAMP(6)', 'tz TIMESTAMP_LTZ(6)', 'i2 SMALLINT', 'i4 INT', 'i8 BIGINT', 'v VARCHAR(8)'],
      ['id BIGINT NOT NULL', 'n DECIMAL(18, 4)', 'n2 DECIMAL(18, 6)', 'd DATE NOT NULL', 'ts TIMESTAMP(3)', 'tz TIMESTAMP(0)', 'i2 INT', 'i4 BIGINT', 'i8 BIGINT', 'v VARCHAR(3)'],
      ['id BIGINT NOT NULL', 'n DECIMAL(38, 10)', 'n2 DECIMAL(11, 2)', 'd DATE', 'ts TIMESTAMP(9)', 'tz TIMESTAMP_LTZ(3)', 'i2 SMALLINT NOT NULL', 'i4 INT', 'i8 BIGINT', 'v STRING'],
    ];
    let converted = 0;
    let refused = 0;
    for (const layout of layouts) {
      const converter = columnConverter('adversarial', await source.columns(), table(layout));
      for (const batch of batches) {
        assert.ok(batch.columnar !== undefined, 'the source gives its cells');
        const byColumns = outcome(() => converter.batch(batch).columns);
        const byRows = outcome(() => converter(batch.rows, batch.firstRowPosition).columns);
        assert.deepStrictEqual(byColumns, byRows, `${layout.join(', ')}: batch at ${batch.firstRowPosition}`);
        if (Array.isArray(byRows)) converted++;
        else refused++;
      }
    }
    assert.ok(converted > 100 && refused > 100, `both outcomes compared (${converted} converted, ${refused} refused)`);
  });

  test('backpressure: while the reader holds a batch the server waits on its socket, and memory stays flat', async () => {
    const source = new PostgresSource(spec({ tables: ['big'], batchRows: 1000 }), ['id', 'amount', 'created', 'note'], access);
    const [shard] = await source.plan(planContext(['id BIGINT NOT NULL', 'amount DECIMAL(12, 2)', 'created TIMESTAMP(6)', 'note STRING']));
    const iterator = source.open(shard as PlannedSourceShard)[Symbol.asyncIterator]();
    await iterator.next();
    global.gc?.();
    const heldBefore = process.memoryUsage().rss;
    // The table is about 70 MB; the backend blocks writing to the client once the socket buffers are full.
    const waiting = async () => {
      const { rows } = await db.query<{ wait_event: string | null }>(`SELECT wait_event FROM pg_stat_activity WHERE datname = $1 AND application_name = 'tributary-read' AND query LIKE 'COPY%'`, [database]);
      return rows[0]?.wait_event === 'ClientWrite';
    };
    for (let i = 0; !(await waiting()); i++) {
      assert.ok(i < 200, 'the COPY backend never waited on its client');
      await sleep(50);
    }
    const growth = process.memoryUsage().rss - heldBefore;
    assert.ok(growth < 32 * 1024 * 1024, `RSS grew ${growth} bytes while paused`);
    let rows = 1000;
    for (let next = await iterator.next(); next.done !== true; next = await iterator.next()) rows += next.value.rows.length;
    assert.equal(rows, BIG_ROWS);
  });

  test('a table gone since the plan is SOURCE_SCHEMA_MISMATCH; a server away when reading is POSTGRES_READ_FAILED (retried)', async () => {
    const vanished = { database, schema: 'public', table: 'vanished', key: [{ name: 'id', kind: 'integer' as const }] };
    const source = new PostgresSource(spec(), ['id'], access);
    await assert.rejects(read(source, shardOf(vanished)), (e: unknown) => isTributaryError(e) && e.code === 'SOURCE_SCHEMA_MISMATCH' && !e.retryable && e.context.shard === `${database}.public.vanished`);
    const away = new PostgresSource(spec({ connection: 'down' }), ['id'], access);
    await assert.rejects(read(away, shardOf({ ...vanished, table: 'types' })), (e: unknown) => {
      assert.ok(isTributaryError(e) && e.code === 'POSTGRES_READ_FAILED' && e.retryable, String(e));
      assert.ok(!e.message.includes(password) && !e.message.includes(host), e.message);
      return true;
    });
  });

  test('an abort cancels the COPY on the server and fails the read with the reason', async () => {
    const source = new PostgresSource(spec({ tables: ['big'], columns: ['id', 'note'], batchRows: 1000 }), ['id', 'note'], access);
    const [shard] = await source.plan(planContext(['id BIGINT NOT NULL', 'note STRING']));
    const controller = new AbortController();
    const reason = new Error('aborted by the test');
    let seen = 0;
    await assert.rejects(
      (async () => {
        for await (const batch of source.open(shard as PlannedSourceShard, undefined, controller.signal)) {
          seen += batch.rows.length;
          if (seen === 2000) controller.abort(reason);
        }
      })(),
      (e: unknown) => e === reason || (isTributaryError(e) && (e.cause as unknown) === reason),
    );
    const active = async () => (await db.query(`SELECT 1 FROM pg_stat_activity WHERE datname = $1 AND application_name = 'tributary-read'`, [database])).rowCount ?? 0;
    for (let i = 0; (await active()) > 0; i++) {
      assert.ok(i < 200, 'the reading backend is still there');
      await sleep(50);
    }
  });
});
