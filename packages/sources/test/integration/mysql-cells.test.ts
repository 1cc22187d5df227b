/**
 * The MySQL text protocol's rows read as raw text cells and decoded straight into the table's
 * columns (mysql/text-cells.ts, values/columns.ts `batch`) against the row path they replace
 * (mysql2's row arrays through the source's decoders and the column converter), on the real
 * MariaDB: every cell of every batch is the same, on the type-mapping table's extremes and on
 * seeded adversarial rows (extremes, NULLs in every column, a row of NULLs, empty strings, emoji
 * and other 4-byte UTF-8, DECIMALs of 18 digits and negative ones, DATETIME with 0 to 6 fraction
 * digits, BIGINT UNSIGNED), and zero dates under each policy, where a refusal is the same error.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createConnection, type Connection } from 'mysql2/promise';
import { isTributaryError } from '@tributary/protocol';
import { parseDataTypeString, type Column, type ColumnBatch, type InternalValue, type RowType } from '@tributary/table';
import { services, uniqueName } from '@tributary/testkit';
import { loadSourceAccess } from '../../src/access.ts';
import { planMysqlShards } from '../../src/mysql/plan.ts';
import { MysqlSource } from '../../src/mysql/source.ts';
import { MysqlSourceSpec } from '../../src/mysql/spec.ts';
import type { SourceBatch, TargetColumn } from '../../src/source.ts';
import { columnConverter } from '../../src/values/columns.ts';
import { CASES, plain } from '../support/mysql-type-cases.ts';

function cell(column: Column, r: number): unknown {
  if (column.validity !== undefined && column.validity[r] === 0) return null;
  switch (column.kind) {
    case 'bool':
      return column.values[r] === 1;
    case 'timestamp':
      return { epochMillis: column.millis[r], nanoOfMillis: column.nanos[r] };
    default:
      return plain(column.values[r]);
  }
}

function columnsAsRows(batch: ColumnBatch): unknown[][] {
  return Array.from({ length: batch.length }, (_, r) => batch.columns.map((c) => cell(c, r)));
}

/** A seeded generator (mulberry32): the same rows on every run. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** [column, MySQL type, Paimon type, value text of a random row (undefined: NULL)]. */
type Adversarial = readonly [string, string, string, (next: () => number) => string];

const pick = <T,>(next: () => number, values: readonly T[]): T => values[Math.floor(next() * values.length)] as T;
const digits = (next: () => number, n: number) => Array.from({ length: n }, () => Math.floor(next() * 10)).join('');
const sign = (next: () => number) => (next() < 0.4 ? '-' : '');
const pad = (n: number, width: number) => String(n).padStart(width, '0');
const date = (next: () => number) => `${pad(1000 + Math.floor(next() * 9000), 4)}-${pad(1 + Math.floor(next() * 12), 2)}-${pad(1 + Math.floor(next() * 28), 2)}`;
const time = (next: () => number) => `${pad(Math.floor(next() * 24), 2)}:${pad(Math.floor(next() * 60), 2)}:${pad(Math.floor(next() * 60), 2)}`;
const fraction = (next: () => number, fsp: number) => (fsp === 0 ? '' : `.${digits(next, fsp)}`);
const TEXTS = ['', ' ', 'a', 'é', '😀', '中文', '𝄞x', 'Ωμέγα 😀😀', 'ab\\cd', "it's", '\t\n', '0', '-1', 'NULL', '0000-00-00', 'x'.repeat(16), '😀'.repeat(16)];

const ADVERSARIAL: readonly Adversarial[] = [
  ['tiny', 'TINYINT', 'TINYINT', (n) => pick(n, ['-128', '127', '0', '-1', String(Math.floor(n() * 256) - 128)])],
  ['usmall', 'SMALLINT UNSIGNED', 'INT', (n) => pick(n, ['0', '65535', String(Math.floor(n() * 65536))])],
  ['med', 'MEDIUMINT', 'INT', (n) => pick(n, ['-8388608', '8388607', String(Math.floor(n() * 16777216) - 8388608)])],
  ['i', 'INT', 'INT', (n) => pick(n, ['-2147483648', '2147483647', '0', `${sign(n)}${Math.floor(n() * 2 ** 31)}`])],
  ['uint', 'INT UNSIGNED', 'BIGINT', (n) => pick(n, ['0', '4294967295', String(Math.floor(n() * 2 ** 32))])],
  ['yr', 'YEAR', 'SMALLINT', (n) => pick(n, ['1901', '2155', '2000'])],
  ['big', 'BIGINT', 'BIGINT', (n) => pick(n, ['-9223372036854775808', '9223372036854775807', '0', '-1', '999999999999999', '1000000000000000', `${sign(n)}${digits(n, 1 + Math.floor(n() * 18))}`.replace(/^(-?)0+(?=\d)/, '$1')])],
  ['ubig', 'BIGINT UNSIGNED', 'DECIMAL(20, 0)', (n) => pick(n, ['0', '18446744073709551615', '9223372036854775808', digits(n, 1 + Math.floor(n() * 19)).replace(/^0+(?=\d)/, '')])],
  ['d12', 'DECIMAL(12,2)', 'DECIMAL(12, 2)', (n) => pick(n, ['-9999999999.99', '9999999999.99', '0.00', '-0.01', `${sign(n)}${digits(n, 1 + Math.floor(n() * 10))}.${digits(n, 2)}`])],
  ['d18', 'DECIMAL(18,4)', 'DECIMAL(18, 4)', (n) => pick(n, ['-99999999999999.9999', '99999999999999.9999', '-0.0001', '12345678901234.5678', `${sign(n)}${digits(n, 1 + Math.floor(n() * 14))}.${digits(n, 4)}`])],
  ['d18w', 'DECIMAL(16,4)', 'DECIMAL(18, 6)', (n) => pick(n, ['-999999999999.9999', '999999999999.9999', `${sign(n)}${digits(n, 1 + Math.floor(n() * 12))}.${digits(n, 4)}`])],
  ['d0', 'DECIMAL(18,0)', 'DECIMAL(18, 0)', (n) => pick(n, ['-999999999999999999', '999999999999999999', '0', `${sign(n)}${digits(n, 1 + Math.floor(n() * 18))}`])],
  ['d38', 'DECIMAL(38,10)', 'DECIMAL(38, 10)', (n) => pick(n, ['-9999999999999999999999999999.9999999999', '0.0000000001', `${sign(n)}${digits(n, 1 + Math.floor(n() * 28))}.${digits(n, 10)}`])],
  ['vc', 'VARCHAR(16)', 'VARCHAR(16)', (n) => pick(n, TEXTS)],
  ['ch', 'CHAR(3)', 'CHAR(3)', (n) => pick(n, ['', 'a', '😀😀😀', 'é中'])],
  ['txt', 'TEXT', 'STRING', (n) => pick(n, [...TEXTS, '😀'.repeat(100), 'ü'.repeat(300)])],
  ['lat', 'VARCHAR(8) CHARACTER SET latin1', 'VARCHAR(8)', (n) => pick(n, ['', 'abc', 'é', 'ÿ¿'])],
  ['dt', 'DATE', 'DATE', (n) => pick(n, ['1000-01-01', '9999-12-31', '1970-01-01', '1969-12-31', '2024-02-29', date(n)])],
  ...[0, 1, 2, 3, 4, 5, 6].map((fsp): Adversarial => [`t${fsp}`, `DATETIME(${fsp})`, `TIMESTAMP(${fsp === 0 ? 0 : Math.max(fsp, 3)})`, (n) => pick(n, [`1000-01-01 00:00:00${fraction(() => 0, fsp)}`, `9999-12-31 23:59:59${fsp === 0 ? '' : `.${'9'.repeat(fsp)}`}`, `1969-12-31 23:59:59${fraction(n, fsp)}`, `${date(n)} ${time(n)}${fraction(n, fsp)}`])]),
  ['t6to9', 'DATETIME(6)', 'TIMESTAMP(9)', (n) => `${date(n)} ${time(n)}${fraction(n, 6)}`],
  ['ts', 'TIMESTAMP(6) NULL', 'TIMESTAMP_LTZ(6)', (n) => pick(n, ['1970-01-01 00:00:01.000000', '2038-01-19 03:14:07.999999', `2001-0${1 + Math.floor(n() * 9)}-1${Math.floor(n() * 9)} ${time(n)}${fraction(n, 6)}`])],
  ['flag', 'TINYINT(1)', 'BOOLEAN', (n) => pick(n, ['0', '1'])],
  ['bits', 'BIT(1)', 'BOOLEAN', (n) => pick(n, ["b'0'", "b'1'"])],
  ['tm', 'TIME(3)', 'TIME(3)', (n) => `${time(n)}${fraction(n, 3)}`],
  ['bin', 'VARBINARY(4)', 'VARBINARY(4)', (n) => pick(n, ['', 'ab', '😀'])],
  ['js', 'JSON', 'STRING', (n) => pick(n, ['{}', '[1, "😀"]', '{"n": 12345678901234567890}'])],
];

describe('MySQL text cells straight into columns, against the row path (MariaDB)', () => {
  const database = uniqueName('w_mysql_cells').replaceAll('-', '_');
  let admin: Connection;
  const { host, port, user } = services.mariadb;
  const access = loadSourceAccess({
    env: { TRIBUTARY_CONNECTIONS_FILE: '/connections.json', PW: services.mariadb.password },
    readText: () => JSON.stringify({ connections: { mariadb: { kind: 'mysql', host, port, user, passwordEnv: 'PW' } } }),
    realpath: (path) => Promise.resolve(path),
  });

  before(async () => {
    admin = await createConnection({ ...services.mariadb });
    await admin.query(`CREATE DATABASE \`${database}\` CHARACTER SET utf8mb4`);
  });

  after(async () => {
    await admin?.query(`DROP DATABASE IF EXISTS \`${database}\``);
    await admin?.end();
  });

  /**
   * Reads `table` through the source; per batch, the cells path's columns, then the row path's
   * (`batch.rows` is computed only when read, so the cells path runs first and on its own).
   */
  async function both(table: string, target: readonly TargetColumn[], options: Record<string, unknown> = {}) {
    const spec = MysqlSourceSpec.parse({ kind: 'mysql', connection: 'mariadb', databases: [database], tables: [table], ...options });
    const [shard, ...more] = await planMysqlShards(spec, target, access);
    assert.ok(shard !== undefined && more.length === 0);
    const source = new MysqlSource(spec, target.map((c) => c.name), access);
    const rowType: RowType = { fields: target.map((c, id) => ({ id, ...c })) };
    const toColumns = columnConverter(shard.id, await source.columns(), rowType);
    const batches: { cells: unknown[][] | Error; rows: unknown[][] | Error; batch: SourceBatch }[] = [];
    const attempt = (f: () => ColumnBatch) => {
      try {
        return columnsAsRows(f());
      } catch (error) {
        return error as Error;
      }
    };
    for await (const batch of source.open(shard)) {
      if (batch.columnar === undefined && batch.rows.length === 0) continue;
      assert.ok(batch.columnar !== undefined, 'a text-protocol batch carries its text cells');
      const cells = attempt(() => toColumns.batch(batch));
      const rows = attempt(() => toColumns(batch.rows, batch.firstRowPosition, batch.file));
      batches.push({ cells, rows, batch });
    }
    return batches;
  }

  test('the type-mapping table: the cells path gives the table\'s values, as the row path does', async () => {
    await admin.query("SET time_zone = '+05:30'");
    const table = 'type_cases';
    await admin.query(`CREATE TABLE \`${database}\`.${table} (id INT NOT NULL PRIMARY KEY, ${CASES.map((c, i) => `c${i} ${c[1]}`).join(', ')}) CHARACTER SET utf8mb4`);
    for (const row of [0, 1]) await admin.query(`INSERT INTO \`${database}\`.${table} VALUES (${row}, ${CASES.map((c) => c[3][row]).join(', ')})`);
    await admin.query(`INSERT INTO \`${database}\`.${table} (id) VALUES (2)`);
    const target: TargetColumn[] = [{ name: 'id', type: parseDataTypeString('INT NOT NULL') }, ...CASES.map((c, i) => ({ name: `c${i}`, type: parseDataTypeString(c[2]) }))];
    const batches = await both(table, target);
    assert.equal(batches.length, 1);
    const [{ cells, rows }] = batches as [(typeof batches)[number]];
    assert.ok(Array.isArray(cells) && Array.isArray(rows));
    assert.deepEqual(cells, rows);
    for (const [i, c] of CASES.entries()) {
      for (const row of [0, 1]) {
        const expected = c[4][row] as InternalValue;
        assert.deepEqual(cells[row]?.[i + 1], plain(expected), `${c[0]}: ${c[1]} → ${c[2]}, row ${row}`);
      }
      assert.equal(cells[2]?.[i + 1], null, `${c[0]}: NULL`);
    }
  });

  test('1,500 seeded adversarial rows in batches of 64: every cell equals the row path\'s', async () => {
    await admin.query("SET time_zone = '+00:00'");
    const table = 'adversarial';
    await admin.query(`CREATE TABLE \`${database}\`.${table} (id INT NOT NULL PRIMARY KEY, ${ADVERSARIAL.map(([name, type]) => `${name} ${type}`).join(', ')}) CHARACTER SET utf8mb4`);
    const next = random(20261201);
    const literal = (type: string, text: string) => (text.startsWith("b'") ? text : type.includes('BINARY') ? `X'${Buffer.from(text).toString('hex')}'` : admin.escape(text));
    const rowCount = 1500;
    for (let from = 0; from < rowCount; from += 250) {
      const values = [];
      for (let id = from; id < from + 250; id++) {
        // Row 0: every column NULL; row 1: every column its first value; else NULL one cell in six.
        const cellsOf = ADVERSARIAL.map(([, type, , value]) => (id === 0 || (id > 1 && next() < 1 / 6) ? 'NULL' : literal(type, id === 1 ? value(() => 0) : value(next))));
        values.push(`(${id}, ${cellsOf.join(', ')})`);
      }
      await admin.query(`INSERT INTO \`${database}\`.${table} VALUES ${values.join(', ')}`);
    }
    const target: TargetColumn[] = [{ name: 'id', type: parseDataTypeString('INT NOT NULL') }, ...ADVERSARIAL.map(([name, , type]) => ({ name, type: parseDataTypeString(type) }))];
    const batches = await both(table, target, { batchRows: 64 });
    assert.equal(batches.length, Math.ceil(rowCount / 64));
    let compared = 0;
    for (const { cells, rows, batch } of batches) {
      assert.ok(Array.isArray(cells), `batch at ${batch.firstRowPosition}: ${String(cells)}`);
      assert.deepEqual(cells, rows, `batch at ${batch.firstRowPosition}`);
      compared += cells.length;
    }
    assert.equal(compared, rowCount);
    const all = batches.flatMap((b) => b.cells as unknown[][]);
    assert.ok(all[0]?.slice(1).every((v) => v === null), 'row 0 is NULL in every column');
    for (const [i, [name]] of ADVERSARIAL.entries()) {
      const values = all.map((r) => r[i + 1]);
      assert.ok(values.filter((v) => v === null).length > 100, `${name}: NULLs`);
      assert.ok(new Set(values.map((v) => JSON.stringify(v, (_, x: unknown) => (typeof x === 'bigint' ? String(x) : x)))).size > 2, `${name}: several distinct values`);
    }
  });

  test('zero dates under each policy: the same values, or the same refusal', async () => {
    await admin.query("SET time_zone = '+00:00', sql_mode = ''");
    const table = 'zeros';
    await admin.query(`CREATE TABLE \`${database}\`.${table} (id INT NOT NULL PRIMARY KEY, d DATE NULL, t DATETIME(3) NULL, s VARCHAR(4))`);
    await admin.query(`INSERT INTO \`${database}\`.${table} VALUES (1, '2024-01-02', '2024-01-02 03:04:05.678', 'a'), (2, '0000-00-00', '0000-00-00 00:00:00', '😀'), (3, '2024-00-10', '2024-05-00 00:00:00.5', NULL), (4, NULL, NULL, '')`);
    const target: TargetColumn[] = [
      { name: 'id', type: parseDataTypeString('INT NOT NULL') },
      { name: 'd', type: parseDataTypeString('DATE') },
      { name: 't', type: parseDataTypeString('TIMESTAMP(3)') },
      { name: 's', type: parseDataTypeString('VARCHAR(4)') },
    ];
    for (const zeroDates of ['null', 'epoch'] as const) {
      const [only, ...more] = await both(table, target, { zeroDates });
      assert.ok(only !== undefined && more.length === 0);
      assert.ok(Array.isArray(only.cells), `${zeroDates}: ${String(only.cells)}`);
      assert.deepEqual(only.cells, only.rows, zeroDates);
      assert.deepEqual(only.cells[1]?.slice(1, 3), zeroDates === 'null' ? [null, null] : [0, { epochMillis: 0, nanoOfMillis: 0 }]);
    }
    const [failed] = await both(table, target, { zeroDates: 'fail' });
    assert.ok(failed !== undefined && failed.cells instanceof Error && failed.rows instanceof Error);
    assert.ok(isTributaryError(failed.cells) && isTributaryError(failed.rows));
    assert.equal(failed.cells.code, 'SOURCE_ROW_INVALID');
    assert.deepEqual([failed.cells.code, failed.cells.message, failed.cells.context], [failed.rows.code, failed.rows.message, failed.rows.context]);
  });
});
