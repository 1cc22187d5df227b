/**
 * The MySQL source's chunking and consistency against the real MariaDB: chunk boundaries by a keyset
 * walk (every planning statement seen, none with OFFSET) over integer, string (utf8mb4, a
 * case-insensitive collation) and composite keys, exact and disjoint; a read inside one consistent
 * snapshot (rows written after the snapshot started, before the SELECT, are not read); the
 * snapshot's position reported on every batch; the zero-date policy.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createConnection, type Connection } from 'mysql2/promise';
import { isTributaryError } from '@tributary/protocol';
import { parseDataTypeString, type RowType } from '@tributary/table';
import { services, uniqueName } from '@tributary/testkit';
import { loadSourceAccess } from '../../src/access.ts';
import { planMysqlShards } from '../../src/mysql/plan.ts';
import { MysqlSource, type MysqlReadHooks } from '../../src/mysql/source.ts';
import { MysqlSourceSpec, type MysqlShard } from '../../src/mysql/spec.ts';
import type { PlannedSourceShard, SourceBatch, SourceRow, TargetColumn } from '../../src/source.ts';
import { rowConverter } from '../../src/values/convert.ts';

describe('mysql chunks and snapshots (MariaDB)', () => {
  const database = uniqueName('w_mysql_snap').replaceAll('-', '_');
  let admin: Connection;
  const { host, port, user } = services.mariadb;
  const access = loadSourceAccess({
    env: { TRIBUTARY_CONNECTIONS_FILE: '/connections.json', PW: services.mariadb.password },
    readText: () => JSON.stringify({ connections: { mariadb: { kind: 'mysql', host, port, user, passwordEnv: 'PW' } } }),
    realpath: (path) => Promise.resolve(path),
  });
  const spec = (tables: string | string[], extra: Record<string, unknown> = {}) => MysqlSourceSpec.parse({ kind: 'mysql', connection: 'mariadb', databases: [database], tables, ...extra });
  const target = (columns: string[]): TargetColumn[] => columns.map((c) => ({ name: c.split(' ')[0] ?? '', type: parseDataTypeString(c.split(' ').slice(1).join(' ')) }));

  async function readAll(source: MysqlSource, shard: PlannedSourceShard): Promise<SourceBatch[]> {
    const batches: SourceBatch[] = [];
    for await (const batch of source.open(shard)) batches.push(batch);
    return batches;
  }

  before(async () => {
    admin = await createConnection({ ...services.mariadb });
    await admin.query(`CREATE DATABASE \`${database}\` CHARACTER SET utf8mb4`);
    // Integer keys with gaps (multiples of 3 up to 3,000, then a jump to 10^15).
    await admin.query(`CREATE TABLE \`${database}\`.nums (id BIGINT NOT NULL PRIMARY KEY, v INT)`);
    await admin.query(`INSERT INTO \`${database}\`.nums SELECT seq * 3, seq FROM \`${database}\`.seq_1_to_1000`);
    await admin.query(`INSERT INTO \`${database}\`.nums VALUES (1000000000000000, -1)`);
    // String keys in a case-insensitive utf8mb4 collation: CJK, emoji, mixed case.
    await admin.query(`CREATE TABLE \`${database}\`.words (w VARCHAR(32) CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci NOT NULL PRIMARY KEY, v INT)`);
    const words = Array.from({ length: 200 }, (_, i) => [`${['a', 'B', 'c', '中', '😀', 'Ω'][i % 6]}${String(i).padStart(3, '0')}`, i]);
    await admin.query(`INSERT INTO \`${database}\`.words VALUES ?`, [words]);
    // A composite key: (tenant INT, code VARCHAR).
    await admin.query(`CREATE TABLE \`${database}\`.pairs (tenant INT NOT NULL, code VARCHAR(8) NOT NULL, v INT, PRIMARY KEY (tenant, code))`);
    const pairs = Array.from({ length: 97 }, (_, i) => [i % 4, `k${String(96 - i).padStart(2, '0')}`, i]);
    await admin.query(`INSERT INTO \`${database}\`.pairs VALUES ?`, [pairs]);
    // A table whose key cannot order a keyset walk.
    await admin.query(`CREATE TABLE \`${database}\`.floats (f DOUBLE NOT NULL PRIMARY KEY, v INT)`);
  });

  after(async () => {
    await admin?.query(`DROP DATABASE IF EXISTS \`${database}\``);
    await admin?.end();
  });

  for (const [table, columns, total, splitRows] of [
    ['nums', ['id BIGINT NOT NULL', 'v INT'], 1001, 64],
    ['words', ['w STRING NOT NULL', 'v INT'], 200, 17],
    ['pairs', ['tenant INT NOT NULL', 'code STRING NOT NULL', 'v INT'], 97, 10],
  ] as const) {
    test(`${table}: chunks of ${splitRows} by a keyset walk (no OFFSET), read exactly once each`, async () => {
      const statements: string[] = [];
      const shards = await planMysqlShards(spec(table, { splitRows }), target([...columns]), access, { onQuery: (sql) => statements.push(sql) });
      assert.equal(shards.length, Math.ceil(total / splitRows));
      assert.ok(statements.length >= shards.length - 1, 'the cuts were observed');
      for (const sql of statements) {
        assert.doesNotMatch(sql, /OFFSET/i);
        assert.match(sql, /ORDER BY .* LIMIT/);
      }
      const source = new MysqlSource(spec(table), columns.map((c) => c.split(' ')[0] ?? ''), access);
      const chunks: SourceRow[][] = [];
      for (const shard of shards) chunks.push((await readAll(source, shard)).flatMap((b) => b.rows));
      assert.deepEqual(chunks.map((c) => c.length), shards.map((_, i) => (i < shards.length - 1 ? splitRows : total - splitRows * (shards.length - 1))));
      const [whole] = await admin.query<(SourceRow & import('mysql2').RowDataPacket)[]>({ sql: `SELECT * FROM \`${database}\`.\`${table}\` ORDER BY 1, 2`, rowsAsArray: true });
      const key = (r: SourceRow) => (table === 'pairs' ? `${String(r[0])}/${String(r[1])}` : String(r[0]));
      assert.deepEqual(chunks.flat().map(key), whole.map((r) => key(r)));
    });
  }

  test('a MariaDB system-versioned table is planned and read (its current rows); a listed name that matches no table is refused, not skipped', async () => {
    await admin.query(`CREATE TABLE \`${database}\`.versioned (id INT NOT NULL PRIMARY KEY, v VARCHAR(8)) WITH SYSTEM VERSIONING`);
    await admin.query(`INSERT INTO \`${database}\`.versioned VALUES (1, 'a'), (2, 'b'), (3, 'c')`);
    await admin.query(`UPDATE \`${database}\`.versioned SET v = 'z' WHERE id = 3`);
    const columns = ['id INT NOT NULL', 'v STRING'];
    for (const tables of [['versioned'], 'version%']) {
      const shards = await planMysqlShards(spec(tables), target(columns), access);
      assert.deepEqual(shards.map((s) => s.id), [`${database}.versioned`], JSON.stringify(tables));
      const rows = (await readAll(new MysqlSource(spec(tables), ['id', 'v'], access), shards[0] as PlannedSourceShard)).flatMap((b) => b.rows);
      assert.deepEqual(rows, [[1, 'a'], [2, 'b'], [3, 'z']]);
    }
    const refused = (names: RegExp) => (e: unknown) => isTributaryError(e) && e.code === 'MYSQL_SOURCE_INVALID' && names.test(e.message);
    await assert.rejects(planMysqlShards(spec(['nums', 'numz']), target(['id BIGINT NOT NULL', 'v INT']), access), refused(/lists names no MySQL table matches: table numz \(/));
    await assert.rejects(
      planMysqlShards(MysqlSourceSpec.parse({ kind: 'mysql', connection: 'mariadb', databases: [database, `${database}_typo`], tables: ['nums'] }), target(['id BIGINT NOT NULL', 'v INT']), access),
      refused(new RegExp(`: database ${database}_typo \\(`)),
    );
    // A LIKE pattern may match a subset: no refusal for what it does not match.
    assert.equal((await planMysqlShards(spec('num%'), target(['id BIGINT NOT NULL', 'v INT']), access)).length, 1);
  });

  test('a primary key that cannot carry a keyset walk is refused at plan time, naming the table', async () => {
    await assert.rejects(
      planMysqlShards(spec('floats', { splitRows: 10 }), target(['f DOUBLE NOT NULL', 'v INT']), access),
      (error: unknown) => isTributaryError(error) && error.code === 'MYSQL_SOURCE_INVALID' && error.context.table === 'floats' && error.message.includes(`${database}.floats`),
    );
  });

  test('rows written after the snapshot started are not read; every batch carries the snapshot position', async () => {
    const writer = await createConnection({ ...services.mariadb });
    try {
      let position: unknown;
      const hooks: MysqlReadHooks = {
        // The snapshot has started; its SELECT has not. Another session changes the range and commits.
        afterSnapshot: async (_shard, at) => {
          position = at;
          await writer.query(`INSERT INTO \`${database}\`.nums VALUES (1, 1), (3001, 2)`);
          await writer.query(`UPDATE \`${database}\`.nums SET v = -v WHERE id = 3`);
          await writer.query(`DELETE FROM \`${database}\`.nums WHERE id = 6`);
        },
      };
      const shard: MysqlShard = { database, table: 'nums', key: [{ name: 'id', kind: 'number' }], to: ['3003'] };
      const source = new MysqlSource(spec('nums', { batchRows: 100 }), ['id', 'v'], access, hooks);
      const batches = await readAll(source, { id: 'nums', spec: shard });
      const rows = batches.flatMap((b) => b.rows);
      assert.equal(rows.length, 1000, 'neither the inserted rows nor the delete');
      assert.deepEqual(rows[0], ['3', 1], 'the row as it was before the update');
      assert.deepEqual(rows[1], ['6', 2]);
      assert.ok(!rows.some((r) => r[0] === '1' || r[0] === '3001'));
      assert.equal(batches.length, 10);
      assert.deepEqual(position, { kind: 'mysql-binlog', source: 'mariadb', server: 'mariadb', serverId: await serverId(), binlogFile: null, binlogPosition: null, gtidSet: null, consistent: true, unavailable: null });
      // Every batch carries that position as its read position (the shared server has no binary log).
      for (const batch of batches) assert.deepEqual(batch.readPosition, { server: { id: `${host}:${port}`, log: { binlog: 'off' }, order: '' } });
      // A read after the commit sees them.
      const again = (await readAll(new MysqlSource(spec('nums'), ['id', 'v'], access), { id: 'nums', spec: shard })).flatMap((b) => b.rows);
      assert.deepEqual(again.slice(0, 2), [['1', 1], ['3', -1]]);
      assert.equal(again.length, 1001);
    } finally {
      await writer.query(`DELETE FROM \`${database}\`.nums WHERE id IN (1, 3001)`);
      await writer.query(`UPDATE \`${database}\`.nums SET v = 1 WHERE id = 3`);
      await writer.query(`INSERT INTO \`${database}\`.nums VALUES (6, 2)`);
      await writer.end();
    }
  });

  test('a shard without rows yields one empty batch carrying the position', async () => {
    const shard: MysqlShard = { database, table: 'nums', key: [{ name: 'id', kind: 'number' }], from: ['3001'], to: ['3002'] };
    const batches = await readAll(new MysqlSource(spec('nums'), ['id', 'v'], access), { id: 'empty', spec: shard });
    assert.equal(batches.length, 1);
    assert.deepEqual(batches[0]?.rows, []);
    assert.equal(batches[0]?.readPosition?.server?.id, `${host}:${port}`);
  });

  test('zero dates: fail (default) leaves them to be refused; null and epoch replace them', async () => {
    await admin.query("SET SESSION sql_mode = ''");
    await admin.query(`CREATE TABLE \`${database}\`.zeros (id INT NOT NULL PRIMARY KEY, d DATE, t DATETIME(3), s TIMESTAMP(0) NULL)`);
    await admin.query(`INSERT INTO \`${database}\`.zeros VALUES (1, '0000-00-00', '0000-00-00 00:00:00', '0000-00-00 00:00:00'), (2, '2024-00-10', '2024-02-00 10:00:00', NULL), (3, '2024-02-29', '2024-02-29 10:00:00.5', '2024-02-29 10:00:00')`);
    const shard = { id: 'zeros', spec: { database, table: 'zeros', key: [{ name: 'id', kind: 'number' }] } };
    const table: RowType = { fields: target(['id INT NOT NULL', 'd DATE', 't TIMESTAMP(3)', 's TIMESTAMP(0)']).map((c, id) => ({ id, ...c })) };
    const rowsOf = async (zeroDates?: string) => {
      const source = new MysqlSource(spec('zeros', zeroDates === undefined ? {} : { zeroDates }), ['id', 'd', 't', 's'], access);
      const convert = rowConverter('zeros', await source.columns(), table);
      return (await readAll(source, shard)).flatMap((b) => b.rows).map((r, i) => convert(r, i));
    };
    const leap = { d: 19_782, t: { epochMillis: Date.UTC(2024, 1, 29, 10, 0, 0, 500), nanoOfMillis: 0 }, s: { epochMillis: Date.UTC(2024, 1, 29, 10), nanoOfMillis: 0 } };
    await assert.rejects(rowsOf(), (error: unknown) => isTributaryError(error) && error.code === 'SOURCE_ROW_INVALID' && error.context.column === 'd' && error.context.position === 0);
    assert.deepEqual(await rowsOf('null'), [
      [1, null, null, null],
      [2, null, null, null],
      [3, leap.d, leap.t, leap.s],
    ]);
    const epoch = { epochMillis: 0, nanoOfMillis: 0 };
    assert.deepEqual(await rowsOf('epoch'), [
      [1, 0, epoch, epoch],
      [2, 0, epoch, null],
      [3, leap.d, leap.t, leap.s],
    ]);
  });

  async function serverId(): Promise<number> {
    const [[row]] = await admin.query<import('mysql2').RowDataPacket[]>({ sql: 'SELECT @@server_id', rowsAsArray: true });
    return Number(row?.[0]);
  }
});
