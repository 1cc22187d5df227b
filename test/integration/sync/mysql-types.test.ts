/**
 * Every row of the MySQL type-mapping table through REST: 3 databases × 4 tables in MariaDB, each
 * with a column of every mapped type holding its extremes, utf8mb4 text and NULL, synced into one
 * Paimon table and read back by Tributary and by pypaimon, compared row by row with the source.
 * Twice: without FLOAT/DOUBLE columns (MySQL's text protocol) and with them (the binary protocol,
 * which then carries every column).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { ChildProcess } from 'node:child_process';
import { createConnection, type Connection } from 'mysql2/promise';
import type { Coordinator } from '@tributary/coordinator';
import type { InternalRow } from '@tributary/table';
import { services } from '@tributary/testkit';
import { CASES, FLOATS, plain, type TypeCase } from '../../../packages/sources/test/support/mysql-type-cases.ts';
import { canonicalRows, inProcessCoordinator, pypaimonRead, readRows, spawnWorker, stop, syncEnv, waitForPhase, withMariadb } from './harness.ts';

describe('the MySQL type mapping through a sync (3 databases × 4 tables, pypaimon)', () => {
  const e = syncEnv('mytypes', withMariadb());
  const p = e.prefix.replaceAll('-', '_');
  let admin: Connection;
  let coordinator: Coordinator;
  const workers: ChildProcess[] = [];
  const databases = [0, 1, 2].map((d) => `${p}_types_${d}`);

  before(async () => {
    admin = await createConnection({ ...services.mariadb });
    await admin.query("SET time_zone = '+05:30'");
    for (const database of databases) await admin.query(`CREATE DATABASE \`${database}\` CHARACTER SET utf8mb4`);
    coordinator = await inProcessCoordinator(e);
    workers.push(...(await Promise.all([spawnWorker(e), spawnWorker(e)])));
  });

  after(async () => {
    await Promise.all(workers.map((w) => stop(w)));
    await coordinator?.close();
    for (const database of databases) await admin?.query(`DROP DATABASE IF EXISTS \`${database}\``);
    await admin?.end();
  });

  for (const [name, cases] of [
    ['text', CASES],
    ['binary', [...CASES, ...FLOATS]],
  ] as const) {
    test(`${name} protocol: ${cases.length} mapped types, extremes, utf8mb4 and NULL, row by row`, async () => {
      const expected: InternalRow[] = [];
      for (const [d, database] of databases.entries()) {
        for (let t = 0; t < 4; t++) {
          const table = `${name}_${t}`;
          await admin.query(`CREATE TABLE \`${database}\`.${table} (id INT NOT NULL PRIMARY KEY, ${cases.map((c: TypeCase, i) => `c${i} ${c[1]}`).join(', ')}) CHARACTER SET utf8mb4`);
          const base = (d * 4 + t) * 10;
          for (const row of [0, 1] as const) {
            await admin.query(`INSERT INTO \`${database}\`.${table} VALUES (${base + row}, ${cases.map((c) => c[3][row]).join(', ')})`);
            expected.push([base + row, ...cases.map((c) => c[4][row])]);
          }
          await admin.query(`INSERT INTO \`${database}\`.${table} (id) VALUES (${base + 2})`);
          expected.push([base + 2, ...cases.map(() => null)]);
        }
      }
      const created = await coordinator.app.inject({
        method: 'POST',
        url: '/v1/tables',
        payload: { database: 'shop', name: `types_${name}`, columns: [{ name: 'id', type: 'INT NOT NULL' }, ...cases.map((c, i) => ({ name: `c${i}`, type: c[2] }))], primaryKeys: ['id'], bucket: 2 },
      });
      assert.equal(created.statusCode, 201, created.body);
      const source = { kind: 'mysql', connection: 'mariadb', databases: `${p}\\_types\\_%`, tables: `${name}\\_%`, batchRows: 2 };
      const response = await coordinator.app.inject({ method: 'POST', url: '/v1/syncs', payload: { table: { database: 'shop', table: `types_${name}` }, source, mode: 'upsert' } });
      assert.equal(response.statusCode, 202, response.body);
      const id = response.json<{ id: string }>().id;
      const done = await waitForPhase(() => coordinator.syncs.get(id), ['COMMITTED', 'ABORTED'], 90_000);
      assert.equal(done.state.phase, 'COMMITTED', JSON.stringify(done.state));
      assert.equal(done.plan.shards.length, 12);

      const byId = (a: InternalRow, b: InternalRow) => Number(a[0]) - Number(b[0]);
      const rows = (await readRows(e, 'shop', `types_${name}`)).sort(byId);
      expected.sort(byId);
      assert.equal(rows.length, 36);
      for (const [r, row] of rows.entries()) {
        for (const [i, c] of cases.entries()) assert.deepEqual(plain(row[i + 1]), plain(expected[r]?.[i + 1]), `id ${String(row[0])}, ${c[0]}: ${c[1]} → ${c[2]}`);
      }
      assert.deepEqual((await pypaimonRead(e, 'shop', `types_${name}`)).rows, canonicalRows(expected), 'pypaimon reads the same rows');
    });
  }
});
