/**
 * The MySQL source reads numbers and instants bit for bit: 100,000 random full-precision DOUBLE and
 * FLOAT bit patterns (with subnormals, ±max, ±min normal, zeros) inserted exactly into MariaDB come
 * back with the same bits, through the converter too; BIGINT at ±2^63, BIGINT UNSIGNED at 2^64 − 1,
 * DECIMAL(65, 30) at its extremes and DATETIME(6)/TIMESTAMP(6) microseconds come back exactly, whether
 * the shard is read through the binary protocol (it has a floating column) or the text protocol.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createConnection, type Connection, type RowDataPacket } from 'mysql2/promise';
import { loadSourceAccess } from '../../src/access.ts';
import type { MysqlShard } from '../../src/mysql/spec.ts';
import { parseDataTypeString, type RowType } from '@tributary/table';
import { services, uniqueName, mulberry32 } from '@tributary/testkit';
import { rowConverter } from '../../src/values/convert.ts';
import { MysqlSource } from '../../src/mysql/source.ts';
import type { SourceRow } from '../../src/source.ts';

const ROWS = 100_000;
const SEED = Number(process.env.TRIBUTARY_TEST_SEED ?? 20_261_201);


const f64 = new Float64Array(1);
const w64 = new Uint32Array(f64.buffer);
const f32 = new Float32Array(1);
const w32 = new Uint32Array(f32.buffer);

function doubleOf(low: number, high: number): number {
  w64[0] = low;
  w64[1] = high;
  return f64[0] ?? NaN;
}

function floatOf(bits: number): number {
  w32[0] = bits;
  return f32[0] ?? NaN;
}

const doubleBits = (d: number): string => {
  f64[0] = d;
  return `${(w64[1] ?? 0).toString(16).padStart(8, '0')}${(w64[0] ?? 0).toString(16).padStart(8, '0')}`;
};
const floatBits = (f: number): string => {
  f32[0] = f;
  return (w32[0] ?? 0).toString(16).padStart(8, '0');
};

/** Edge values first (both signs), then random finite bit patterns (NaN and infinities cannot be stored). */
function values(): { doubles: number[]; floats: number[] } {
  const doubleEdges = [0, -0, 5e-324, doubleOf(0xffffffff, 0x000fffff), 2.2250738585072014e-308, Number.MAX_VALUE, 1, 0.1, 902127236.7868943, 2 ** 53 + 2];
  const floatEdges = [0, -0, floatOf(1), floatOf(0x007fffff), floatOf(0x00800000), floatOf(0x7f7fffff), 1, Math.fround(0.1), 16777216, Math.fround(1.2345678)];
  const doubles = [...doubleEdges, ...doubleEdges.map((d) => -d)];
  const floats = [...floatEdges, ...floatEdges.map((f) => -f)];
  const next = mulberry32(SEED);
  while (doubles.length < ROWS) {
    const subnormal = doubles.length % 50 === 0;
    const high = subnormal ? next() & 0x800fffff : next();
    const d = doubleOf(next(), high);
    if (Number.isFinite(d)) doubles.push(d);
  }
  while (floats.length < ROWS) {
    const bits = floats.length % 50 === 0 ? next() & 0x807fffff : next();
    const f = floatOf(bits);
    if (Number.isFinite(f)) floats.push(f);
  }
  return { doubles, floats };
}

describe('mysql source: exact numbers and instants against MariaDB', () => {
  const database = uniqueName('w_exact').replaceAll('-', '_');
  let admin: Connection;
  const { doubles, floats } = values();
  const spec = { kind: 'mysql', ...services.mariadb, databases: [database], tables: '%', batchRows: 10_000 };
  const shard = (table: string): MysqlShard => ({ database, table, key: [{ name: 'id', kind: 'number' }] });
  // Inline credentials, as an operator may allow: this test is about reading, not about connections.
  const access = loadSourceAccess({ env: { TRIBUTARY_ALLOW_INLINE_CREDENTIALS: '1' }, readText: () => '', realpath: (path) => Promise.resolve(path) });

  async function read(columns: string[], table: string): Promise<SourceRow[]> {
    const source = new MysqlSource(spec, columns, access);
    const rows: SourceRow[] = [];
    for await (const batch of source.open({ id: `${database}.${table}`, spec: shard(table) })) rows.push(...batch.rows);
    return rows;
  }

  before(async () => {
    admin = await createConnection({ ...services.mariadb });
    await admin.query(`CREATE DATABASE \`${database}\``);
    await admin.query(`CREATE TABLE \`${database}\`.floats (id INT NOT NULL PRIMARY KEY, d DOUBLE NOT NULL, f FLOAT NOT NULL, d_text VARCHAR(32) NOT NULL, f_text VARCHAR(32) NOT NULL)`);
    // The binary protocol sends each JS number as a DOUBLE's 8 bytes: the INSERT is exact (checked below).
    const perInsert = 2000;
    for (let start = 0; start < ROWS; start += perInsert) {
      const ids = Array.from({ length: Math.min(perInsert, ROWS - start) }, (_, k) => start + k);
      const params = ids.flatMap((id) => [id, doubles[id] ?? NaN, floats[id] ?? NaN, String(doubles[id]), String(floats[id])]);
      await admin.execute(`INSERT INTO \`${database}\`.floats VALUES ${ids.map(() => '(?, ?, ?, ?, ?)').join(', ')}`, params);
    }
  });

  after(async () => {
    await admin?.query(`DROP DATABASE IF EXISTS \`${database}\``);
    await admin?.end();
  });

  test('the INSERT is exact: the stored values equal the server parsing their shortest text; -0.0 is stored as +0', async () => {
    const [[differ]] = await admin.query<RowDataPacket[]>(
      `SELECT COUNT(*) AS n FROM \`${database}\`.floats WHERE d <> CAST(d_text AS DOUBLE) OR f <> CAST(f_text AS DOUBLE)`,
    );
    assert.equal(Number(differ?.n), 0);
    // MariaDB normalises a negative zero to +0 when it stores it (ATAN2 tells the two apart).
    const [[zeros]] = await admin.query<RowDataPacket[]>(`SELECT ATAN2(d, -1) > 0 AS d_positive, ATAN2(f, -1) > 0 AS f_positive FROM \`${database}\`.floats WHERE id = 1`);
    assert.deepEqual([Number(zeros?.d_positive), Number(zeros?.f_positive)], [1, 1]);
  });

  test(`${ROWS} DOUBLE and FLOAT values come back bit for bit, through the converter too`, async () => {
    const rows = await read(['id', 'd', 'f'], 'floats');
    assert.equal(rows.length, ROWS);
    const convert = rowConverter('floats', [{ name: 'd', sourceType: 'mysql' }, { name: 'f', sourceType: 'mysql' }], {
      fields: [
        { id: 0, name: 'd', type: parseDataTypeString('DOUBLE NOT NULL') },
        { id: 1, name: 'f', type: parseDataTypeString('FLOAT NOT NULL') },
      ],
    });
    const wrong: string[] = [];
    for (const [i, row] of rows.entries()) {
      const expectedD = Object.is(doubles[i], -0) ? 0 : (doubles[i] ?? NaN); // stored as +0 (see above)
      const expectedF = Object.is(floats[i], -0) ? 0 : (floats[i] ?? NaN);
      const [d, f] = convert([row[1] ?? null, row[2] ?? null], i);
      const got = [row[1], row[2], d, f] as number[];
      if (row[0] !== i || got.some((v) => typeof v !== 'number')) wrong.push(`row ${i}: ${JSON.stringify(row)}`);
      else if (doubleBits(got[0] ?? NaN) !== doubleBits(expectedD) || doubleBits(got[2] ?? NaN) !== doubleBits(expectedD)) wrong.push(`row ${i} d: ${doubleBits(got[0] ?? NaN)} ≠ ${doubleBits(expectedD)}`);
      else if (Math.fround(got[1] ?? NaN) !== got[1] || floatBits(got[1] ?? NaN) !== floatBits(expectedF) || floatBits(got[3] ?? NaN) !== floatBits(expectedF)) wrong.push(`row ${i} f: ${floatBits(got[1] ?? NaN)} ≠ ${floatBits(expectedF)}`);
    }
    assert.deepEqual(wrong.slice(0, 10), [], `${wrong.length} of ${ROWS} values differ (seed ${SEED})`);
  });

  for (const withDouble of [false, true]) {
    test(`BIGINT ±2^63, BIGINT UNSIGNED 2^64 − 1, DECIMAL(65, 30) extremes, DATETIME(6)/TIMESTAMP(6) microseconds (${withDouble ? 'binary' : 'text'} protocol)`, async () => {
      const table = withDouble ? 'wide_binary' : 'wide_text';
      await admin.query(
        `CREATE TABLE \`${database}\`.${table} (id INT NOT NULL PRIMARY KEY, b BIGINT, u BIGINT UNSIGNED, m DECIMAL(65, 30), dt DATETIME(6), ts TIMESTAMP(6) NULL${withDouble ? ', d DOUBLE' : ''})`,
      );
      const nines = '9'.repeat(35);
      const fraction = '9'.repeat(30);
      const cases: [string, string, string, string, string][] = [
        ['-9223372036854775808', '18446744073709551615', `-${nines}.${fraction}`, '1000-01-01 00:00:00.000000', '1970-01-01 00:00:01.000001'],
        ['9223372036854775807', '9223372036854775808', `${nines}.${fraction}`, '9999-12-31 23:59:59.999999', '2038-01-19 03:14:07.999999'],
        ['9007199254740993', '9007199254740993', `0.${'0'.repeat(29)}1`, '1969-12-31 23:59:59.999999', '1970-01-01 00:00:01.000000'],
        ['-9007199254740993', '0', `-0.${'0'.repeat(29)}1`, '1970-01-01 00:00:00.000001', '2000-02-29 12:34:56.000010'],
      ];
      await admin.query("SET time_zone = '+00:00'");
      for (const [i, c] of cases.entries()) await admin.query(`INSERT INTO \`${database}\`.${table} (id, b, u, m, dt, ts) VALUES (?, ?, ?, ?, ?, ?)`, [i, ...c]);
      const rows = await read(['id', 'b', 'u', 'm', 'dt', 'ts'], table);
      const instant = (text: string) => {
        const [date = '', time = ''] = text.split(' ');
        const [whole = '', micros = '0'] = time.split('.');
        const epochMillis = Date.parse(`${date}T${whole}Z`) + Math.floor(Number(micros) / 1000);
        return { epochMillis, nanoOfMillis: (Number(micros) % 1000) * 1000 };
      };
      assert.deepEqual(
        rows.map((r) => [r[0], String(r[1]), String(r[2]), r[3], r[4], r[5]]),
        cases.map((c, i) => [i, c[0], c[1], c[2], instant(c[3]), instant(c[4])]),
      );
      const table2: RowType = {
        fields: ['b BIGINT', 'u DECIMAL(20, 0)', 'dt TIMESTAMP(6)', 'ts TIMESTAMP_LTZ(6)'].map((t, id) => ({ id, name: t.split(' ')[0] ?? '', type: parseDataTypeString(t.slice(t.indexOf(' ') + 1)) })),
      };
      const convert = rowConverter(table, ['b', 'u', 'dt', 'ts'].map((name) => ({ name, sourceType: 'mysql' })), table2);
      assert.deepEqual(
        rows.map((r, i) => convert([r[1] ?? null, r[2] ?? null, r[4] ?? null, r[5] ?? null], i)),
        cases.map((c) => [BigInt(c[0]), BigInt(c[1]), instant(c[3]), instant(c[4])]),
      );
    });
  }
});
