/**
 * The MySQL source's reading side against the real MariaDB: key order over a composite key, batches
 * and a resume at a batch's end, a range shard, values that do not fit refused with their position
 * and column, typed errors for a vanished table and an unreachable server, and streaming speed.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createConnection, type Connection, type RowDataPacket } from 'mysql2/promise';
import { isTributaryError } from '@tributary/protocol';
import { loadSourceAccess } from '../../src/access.ts';
import type { MysqlShard } from '../../src/mysql/spec.ts';
import { parseDataTypeString, type RowType } from '@tributary/table';
import { services, uniqueName } from '@tributary/testkit';
import { rowConverter } from '../../src/values/convert.ts';
import { MysqlSource } from '../../src/mysql/source.ts';
import type { SourceBatch, SourcePosition } from '../../src/source.ts';

const BIG_ROWS = 200_000;

describe('mysql source reading MariaDB', () => {
  const database = uniqueName('w_mysql').replaceAll('-', '_');
  let admin: Connection;
  const spec = (extra: Record<string, unknown> = {}) => ({
    kind: 'mysql',
    connection: 'mariadb',
    databases: [database],
    tables: '%',
    ...extra,
  });
  // The worker's own named connections, as a connections file would define them.
  const { host, port, user } = services.mariadb;
  const connections = { mariadb: { kind: 'mysql', host, port, user, passwordEnv: 'PW' }, down: { kind: 'mysql', host, port: 1, user, passwordEnv: 'PW' } };
  const access = loadSourceAccess({
    env: { TRIBUTARY_CONNECTIONS_FILE: '/connections.json', PW: services.mariadb.password },
    readText: () => JSON.stringify({ connections }),
    realpath: (path) => Promise.resolve(path),
  });
  const items: MysqlShard = {
    database,
    table: 'items',
    key: [
      { name: 'tenant', kind: 'number' },
      { name: 'code', kind: 'string' },
    ],
  };

  before(async () => {
    admin = await createConnection({ ...services.mariadb });
    await admin.query(`CREATE DATABASE \`${database}\` CHARACTER SET utf8mb4`);
    await admin.query(`CREATE TABLE \`${database}\`.items (tenant INT NOT NULL, code VARCHAR(16) NOT NULL, flag TINYINT(1), at TIME(3), PRIMARY KEY (tenant, code))`);
    const rows = Array.from({ length: 50 }, (_, i) => [i % 5, `c-${String(49 - i).padStart(2, '0')}`, i % 2, `0${i % 10}:00:00.${String(i).padStart(3, '0')}`]);
    await admin.query(`INSERT INTO \`${database}\`.items VALUES ?`, [rows]);
    await admin.query(`CREATE TABLE \`${database}\`.big (id BIGINT NOT NULL PRIMARY KEY, amount DECIMAL(12,2), created DATETIME(6), note VARCHAR(32))`);
    await admin.query(
      `INSERT INTO \`${database}\`.big SELECT seq, (seq % 100000) / 100 - 500, TIMESTAMPADD(MICROSECOND, seq * 1234567, '1999-01-01'), CONCAT('note-', seq) FROM \`${database}\`.seq_1_to_${BIG_ROWS}`,
    );
  });

  after(async () => {
    await admin?.query(`DROP DATABASE IF EXISTS \`${database}\``);
    await admin?.end();
  });

  async function read(source: MysqlSource, shard: MysqlShard, from?: SourcePosition): Promise<SourceBatch[]> {
    const batches: SourceBatch[] = [];
    for await (const batch of source.open({ id: `${shard.database}.${shard.table}`, spec: shard }, from)) batches.push(batch);
    return batches;
  }

  test('a composite key is read in key order, in batches; a resume at a batch end reads exactly the rest', async () => {
    const source = new MysqlSource(spec({ batchRows: 7 }), ['tenant', 'code', 'flag', 'at'], access);
    const batches = await read(source, items);
    assert.deepEqual(batches.map((b) => b.rows.length), [7, 7, 7, 7, 7, 7, 7, 1]);
    const rows = batches.flatMap((b) => b.rows);
    const keys = rows.map((r) => `${String(r[0])}/${String(r[1])}`);
    assert.deepEqual(keys, [...keys].sort());
    assert.deepEqual(rows[0], [0, 'c-04', 1, 18_000_045]); // i = 45: TIME 05:00:00.045 as milliseconds of the day
    assert.deepEqual(batches[2]?.end, { tenant: '2', code: rows[20]?.[1] }); // 10 rows per tenant
    const rest = (await read(source, items, batches[2]?.end)).flatMap((b) => b.rows);
    assert.deepEqual(rest, rows.slice(21));
  });

  test('a range shard [from, to) over a composite key; booleans only where the plan says so', async () => {
    const source = new MysqlSource(spec(), ['tenant', 'code', 'flag'], access);
    const rows = (await read(source, { ...items, from: ['1', 'c-20'], to: ['3', 'c-00'], booleans: ['flag'] })).flatMap((b) => b.rows);
    const all = (await read(source, items)).flatMap((b) => b.rows);
    const expected = all.filter((r) => `${String(r[0])}/${String(r[1])}` >= '1/c-20' && `${String(r[0])}/${String(r[1])}` < '3/c-00');
    assert.ok(expected.length > 0);
    assert.deepEqual(rows, expected.map((r) => [r[0], r[1], r[2] === 1]));
  });

  test('a value that does not fit is refused with its shard, position and column', async () => {
    await admin.query(`UPDATE \`${database}\`.items SET flag = 2 WHERE tenant = 2 AND code = 'c-17'`);
    const table: RowType = { fields: ['tenant INT NOT NULL', 'code STRING NOT NULL', 'flag BOOLEAN'].map((t, id) => ({ id, name: t.split(' ')[0] ?? '', type: parseDataTypeString(t.split(' ').slice(1).join(' ')) })) };
    const source = new MysqlSource(spec(), ['tenant', 'code', 'flag'], access);
    const convert = rowConverter('items', await source.columns(), table);
    const batches = await read(source, { ...items, booleans: ['flag'] });
    const rows = batches.flatMap((b) => b.rows);
    const bad = rows.findIndex((r) => r[0] === 2 && r[1] === 'c-17');
    assert.throws(
      () => rows.forEach((r, i) => convert(r, i)),
      (error: unknown) => isTributaryError(error) && error.code === 'SOURCE_ROW_INVALID' && error.context.position === bad && error.context.column === 'flag',
    );
  });

  test('a table gone since the plan is SOURCE_SCHEMA_MISMATCH; an unreachable server MYSQL_READ_FAILED (retryable)', async () => {
    const gone = read(new MysqlSource(spec(), ['tenant'], access), { ...items, table: 'vanished' });
    await assert.rejects(gone, (error: unknown) => isTributaryError(error) && error.code === 'SOURCE_SCHEMA_MISMATCH' && !error.retryable);
    const down = read(new MysqlSource(spec({ connection: 'down' }), ['tenant'], access), items);
    await assert.rejects(down, (error: unknown) => isTributaryError(error) && error.code === 'MYSQL_READ_FAILED' && error.retryable && !error.message.includes(services.mariadb.password));
  });

  test('the worker resolves a connection by name from its own configuration; inline credentials and unknown names are refused', async () => {
    const inline = { ...spec(), connection: undefined, host, port, user, password: services.mariadb.password };
    await assert.rejects(read(new MysqlSource(inline, ['tenant'], access), items), (error: unknown) => isTributaryError(error) && error.code === 'SOURCE_CREDENTIALS_INLINE');
    await assert.rejects(read(new MysqlSource(spec({ connection: 'other' }), ['tenant'], access), items), (error: unknown) => isTributaryError(error) && error.code === 'SOURCE_CONNECTION_UNKNOWN');
    const allowed = loadSourceAccess({ env: { TRIBUTARY_ALLOW_INLINE_CREDENTIALS: '1' }, readText: () => '', realpath: (path) => Promise.resolve(path) });
    assert.equal((await read(new MysqlSource(inline, ['tenant'], allowed), items)).flatMap((b) => b.rows).length, 50, 'allowed by the operator');
  });

  test('BIT(1) → boolean, TIMESTAMP as its UTC instant whatever time zone wrote it, JSON as text, zero dates left to refuse', async () => {
    await admin.query(`CREATE TABLE \`${database}\`.kinds (id INT NOT NULL PRIMARY KEY, b BIT(1), t TIMESTAMP(3) NULL, j JSON, d DATE)`);
    await admin.query("SET time_zone = '+08:00', sql_mode = ''");
    await admin.query(`INSERT INTO \`${database}\`.kinds VALUES (1, b'1', '2020-01-01 08:00:00.123', '{"a": [1, "😀"]}', '1969-07-20'), (2, b'0', NULL, NULL, '0000-00-00')`);
    const source = new MysqlSource(spec(), ['id', 'b', 't', 'j', 'd'], access);
    const rows = (await read(source, { database, table: 'kinds', key: [{ name: 'id', kind: 'number' }] })).flatMap((b) => b.rows);
    assert.deepEqual(rows, [
      [1, true, { epochMillis: Date.UTC(2020, 0, 1, 0, 0, 0, 123), nanoOfMillis: 0 }, '{"a": [1, "😀"]}', '1969-07-20'],
      [2, false, null, null, '0000-00-00'],
    ]);
    const table: RowType = { fields: [{ id: 0, name: 'd', type: parseDataTypeString('DATE') }] };
    assert.throws(() => rowConverter('kinds', [{ name: 'd', sourceType: 'mysql column' }], table)(['0000-00-00'], 1), (error: unknown) => isTributaryError(error) && error.code === 'SOURCE_ROW_INVALID');
  });

  test('TIME(6) with digits below the millisecond is refused per row, never cut: text and binary protocol', async () => {
    // A DOUBLE column makes the shard read through prepared statements (the binary protocol).
    for (const [name, extra] of [['times_text', ''], ['times_binary', ', g DOUBLE']] as const) {
      await admin.query(`CREATE TABLE \`${database}\`.${name} (id INT NOT NULL PRIMARY KEY, t TIME(6)${extra})`);
      const values = ['12:00:00.500000', '12:00:00.000001', '23:59:59.999999', '00:00:00.000900', '01:02:03'];
      await admin.query(`INSERT INTO \`${database}\`.${name} (id, t) VALUES ${values.map((v, i) => `(${i}, '${v}')`).join(', ')}`);
      const source = new MysqlSource(spec(), ['id', 't'], access);
      const rows = (await read(source, { database, table: name, key: [{ name: 'id', kind: 'number' }] })).flatMap((b) => b.rows);
      const table: RowType = { fields: [{ id: 0, name: 'id', type: parseDataTypeString('INT') }, { id: 1, name: 't', type: parseDataTypeString('TIME(3)') }] };
      const convert = rowConverter(name, [{ name: 'id', sourceType: 'mysql column' }, { name: 't', sourceType: 'mysql column' }], table);
      const outcome = rows.map((row, i) => {
        try {
          return convert(row, i)[1];
        } catch (error) {
          assert.ok(isTributaryError(error) && error.code === 'SOURCE_ROW_INVALID', String(error));
          assert.doesNotMatch(error.message, /00000|999999|0009/, 'no value in the message');
          return 'refused';
        }
      });
      assert.deepEqual(outcome, [43_200_500, 'refused', 'refused', 'refused', 3_723_000], name);
    }
  });

  test('a connection killed mid-stream fails the read with MYSQL_READ_FAILED (retryable)', async () => {
    // The result (about 64 MB) is many times what the socket buffers between server and client can
    // hold, and the reader is paused (backpressure) while the first batch waits here: the server is
    // provably still sending when it is killed. With a small result it may already have written its
    // last row into the buffers, and the read would end cleanly.
    await admin.query(`CREATE TABLE \`${database}\`.wide (id BIGINT NOT NULL PRIMARY KEY, note VARCHAR(1024))`);
    await admin.query(`INSERT INTO \`${database}\`.wide SELECT seq, REPEAT(CHAR(97 + seq % 26), 1000) FROM \`${database}\`.seq_1_to_64000`);
    const source = new MysqlSource(spec({ batchRows: 1000 }), ['id', 'note'], access);
    const shard: MysqlShard = { database, table: 'wide', key: [{ name: 'id', kind: 'number' }] };
    let batches = 0;
    const reading = (async () => {
      for await (const batch of source.open({ id: 'wide', spec: shard })) {
        batches++;
        if (batches === 1) {
          const pattern = `%FROM \`${database}\`.\`wide\`%`;
          const [rows] = await admin.query<RowDataPacket[]>('SELECT ID FROM information_schema.PROCESSLIST WHERE ID <> CONNECTION_ID() AND INFO LIKE ?', [pattern]);
          assert.equal(rows.length, 1);
          await admin.query(`KILL CONNECTION ${String(rows[0]?.ID)}`);
        }
        assert.ok(batch.rows.length > 0);
      }
    })();
    await assert.rejects(reading, (error: unknown) => isTributaryError(error) && error.code === 'MYSQL_READ_FAILED' && error.retryable);
  });

  test(`streams ${BIG_ROWS} rows with exact values, one batch in memory at a time`, async () => {
    const source = new MysqlSource(spec({ batchRows: 10_000 }), ['id', 'amount', 'created', 'note'], access);
    const shard: MysqlShard = { database, table: 'big', key: [{ name: 'id', kind: 'number' }] };
    let count = 0;
    let idSum = 0n;
    let maxBatch = 0;
    let last: unknown[] = [];
    const started = process.hrtime.bigint();
    for await (const batch of source.open({ id: 'big', spec: shard })) {
      count += batch.rows.length;
      maxBatch = Math.max(maxBatch, batch.rows.length);
      for (const row of batch.rows) idSum += BigInt(row[0] as string);
      last = [...(batch.rows.at(-1) ?? [])];
    }
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    assert.equal(count, BIG_ROWS);
    assert.equal(idSum, (BigInt(BIG_ROWS) * BigInt(BIG_ROWS + 1)) / 2n);
    assert.equal(maxBatch, 10_000);
    const micros = BigInt(BIG_ROWS) * 1_234_567n;
    const expectedMillis = Date.UTC(1999, 0, 1) + Number(micros / 1000n);
    assert.deepEqual(last, [String(BIG_ROWS), '-500.00', { epochMillis: expectedMillis, nanoOfMillis: Number(micros % 1000n) * 1000 }, `note-${BIG_ROWS}`]);
    console.log(`mysql source: ${count} rows in ${seconds.toFixed(2)} s = ${Math.round(count / seconds)} rows/s (4 columns, batches of 10,000)`);
  });
});
