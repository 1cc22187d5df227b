/**
 * Full-precision values from MariaDB through a real sync, read back by Paimon Java bit for bit:
 * random DOUBLE and FLOAT bit patterns (with subnormals and the extremes), BIGINT at ±2^63, BIGINT
 * UNSIGNED up to 2^64 − 1 and DATETIME(6)/TIMESTAMP(6) microseconds.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { ChildProcess } from 'node:child_process';
import { createConnection, type Connection } from 'mysql2/promise';
import type { Coordinator } from '@tributary/coordinator';
import { paimonJava, services, type OracleRow, mulberry32 } from '@tributary/testkit';
import { inProcessCoordinator, spawnWorker, stop, syncEnv, waitForPhase, withMariadb } from './harness.ts';

const ROWS = 20_000;
const SEED = Number(process.env.TRIBUTARY_TEST_SEED ?? 8);


const view = new DataView(new ArrayBuffer(8));
const double = (high: number, low: number): number => (view.setUint32(0, high), view.setUint32(4, low), view.getFloat64(0));
const float = (bits: number): number => (view.setUint32(0, bits), view.getFloat32(0));
const doubleBits = (d: number): string => (view.setFloat64(0, d), view.getBigUint64(0).toString(16));
const floatBits = (f: number): string => (view.setFloat32(0, f), view.getUint32(0).toString(16));

interface Row {
  id: number;
  d: number;
  f: number;
  b: bigint;
  u: bigint;
  micros: bigint; // since 1970, for both DATETIME(6) and TIMESTAMP(6)
}

function rows(): Row[] {
  const next = mulberry32(SEED);
  const edges = [
    [5e-324, float(1)],
    [Number.MAX_VALUE, float(0x7f7fffff)],
    [2.2250738585072014e-308, float(0x00800000)],
    [double(0x000fffff, 0xffffffff), float(0x007fffff)],
    [902127236.7868943, Math.fround(1.2345678)],
  ];
  const out: Row[] = [];
  for (let id = 0; id < ROWS; id++) {
    const edge = edges[id >> 1];
    let d = edge === undefined ? double(next(), next()) : (edge[0] ?? 0) * (id % 2 === 0 ? 1 : -1);
    while (!Number.isFinite(d)) d = double(next(), next());
    let f = edge === undefined ? float(next()) : (edge[1] ?? 0) * (id % 2 === 0 ? 1 : -1);
    while (!Number.isFinite(f)) f = float(next());
    const b = id === 0 ? -(2n ** 63n) : id === 1 ? 2n ** 63n - 1n : BigInt.asIntN(64, (BigInt(next()) << 32n) | BigInt(next()));
    const u = id === 0 ? 2n ** 64n - 1n : (BigInt(next()) << 32n) | BigInt(next());
    const micros = 1_000_000n + ((BigInt(next()) << 20n) | BigInt(next() >>> 12)) % 2_147_483_646_000_000n; // TIMESTAMP's range
    out.push({ id, d, f, b, u, micros });
  }
  return out;
}

const text = (micros: bigint): string => {
  const millis = Number(micros / 1000n);
  return `${new Date(millis).toISOString().slice(0, 19).replace('T', ' ')}.${String(micros % 1_000_000n).padStart(6, '0')}`;
};

describe('mysql source → sync → Paimon Java, bit for bit', () => {
  const e = syncEnv('mysql-exact', withMariadb());
  const database = `${e.prefix.replaceAll('-', '_')}_exact`;
  const source = rows();
  let admin: Connection;
  let coordinator: Coordinator;
  let worker: ChildProcess | undefined;

  before(async () => {
    admin = await createConnection({ ...services.mariadb });
    await admin.query(`CREATE DATABASE \`${database}\``);
    await admin.query(`CREATE TABLE \`${database}\`.numbers (id INT NOT NULL PRIMARY KEY, d DOUBLE, f FLOAT, b BIGINT, u BIGINT UNSIGNED, dt DATETIME(6), ts TIMESTAMP(6) NULL)`);
    await admin.query("SET time_zone = '+00:00'");
    for (let start = 0; start < ROWS; start += 1000) {
      const batch = source.slice(start, start + 1000);
      // The binary protocol sends the JS numbers as 8-byte doubles: exact (the FLOAT ones are floats).
      const params = batch.flatMap((r) => [r.id, r.d, r.f, r.b.toString(), r.u.toString(), text(r.micros), text(r.micros)]);
      await admin.execute(`INSERT INTO \`${database}\`.numbers VALUES ${batch.map(() => '(?, ?, ?, ?, ?, ?, ?)').join(', ')}`, params);
    }
    coordinator = await inProcessCoordinator(e);
    worker = await spawnWorker(e);
  });

  after(async () => {
    if (worker) await stop(worker);
    await coordinator?.close();
    await admin?.query(`DROP DATABASE IF EXISTS \`${database}\``);
    await admin?.end();
  });

  test(`${ROWS} rows: DOUBLE, FLOAT, BIGINT, BIGINT UNSIGNED, DATETIME(6), TIMESTAMP(6)`, async () => {
    const columns = [
      { name: 'id', type: 'INT NOT NULL' },
      { name: 'd', type: 'DOUBLE' },
      { name: 'f', type: 'FLOAT' },
      { name: 'b', type: 'BIGINT' },
      { name: 'u', type: 'DECIMAL(20, 0)' },
      { name: 'dt', type: 'TIMESTAMP(6)' },
      { name: 'ts', type: 'TIMESTAMP(6)' },
    ];
    const created = await coordinator.app.inject({ method: 'POST', url: '/v1/tables', payload: { database: 'shop', name: 'numbers', columns, primaryKeys: ['id'], bucket: 2 } });
    assert.equal(created.statusCode, 201, created.body);
    const mysql = { kind: 'mysql', connection: 'mariadb', databases: [database], tables: ['numbers'], splitRows: 7000 };
    const response = await coordinator.app.inject({ method: 'POST', url: '/v1/syncs', payload: { table: { database: 'shop', table: 'numbers' }, source: mysql } });
    assert.equal(response.statusCode, 202, response.body);
    const done = await waitForPhase(() => coordinator.syncs.get(response.json<{ id: string }>().id), ['COMMITTED', 'ABORTED'], 120_000);
    assert.equal(done.state.phase, 'COMMITTED', JSON.stringify(done.state));

    const read = await paimonJava.read({ warehouse: e.warehouse, database: 'shop', table: 'numbers' });
    const byId = new Map<number, OracleRow>(read.rows.map((r) => [r[0] as number, r]));
    assert.equal(byId.size, ROWS);
    const wrong: string[] = [];
    for (const r of source) {
      const got = byId.get(r.id) ?? [];
      const instant = { epochMillis: Number(r.micros / 1000n), nanoOfMillis: Number(r.micros % 1000n) * 1000 };
      // Java prints a float as the shortest text that identifies it: rounding that text to a float is exact.
      const seen = [doubleBits(got[1] as number), floatBits(Math.fround(got[2] as number)), got[3], got[4], JSON.stringify(got[5]), JSON.stringify(got[6])];
      const want = [doubleBits(r.d), floatBits(r.f), r.b, r.u, JSON.stringify(instant), JSON.stringify(instant)];
      if (JSON.stringify(seen, (_, v: unknown) => (typeof v === 'bigint' ? v.toString() : v)) !== JSON.stringify(want, (_, v: unknown) => (typeof v === 'bigint' ? v.toString() : v))) {
        wrong.push(`id ${r.id}`);
      }
    }
    assert.deepEqual(wrong.slice(0, 10), [], `${wrong.length} of ${ROWS} rows differ (seed ${SEED})`);
  });
});
