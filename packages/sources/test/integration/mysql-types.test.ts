/**
 * The MySQL type mapping of packages/sources/README.md, one case per row of its table, against the
 * real MariaDB: each MySQL column is planned into its Paimon column (the plan accepts the pair), read
 * by the source and converted, and its extreme values and NULL arrive exactly. FLOAT and DOUBLE are
 * read through the binary protocol, so they have a table of their own.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createConnection, type Connection } from 'mysql2/promise';
import { parseDataTypeString, type RowType } from '@tributary/table';
import { services, uniqueName } from '@tributary/testkit';
import { loadSourceAccess } from '../../src/access.ts';
import { planMysqlShards } from '../../src/mysql/plan.ts';
import { MysqlSource } from '../../src/mysql/source.ts';
import { MysqlSourceSpec } from '../../src/mysql/spec.ts';
import type { TargetColumn } from '../../src/source.ts';
import { rowConverter } from '../../src/values/convert.ts';
import { CASES, FLOATS, plain } from '../support/mysql-type-cases.ts';

describe('the MySQL type mapping, row by row (MariaDB)', () => {
  const database = uniqueName('w_mysql_types').replaceAll('-', '_');
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
    await admin.query("SET time_zone = '+05:30'");
  });

  after(async () => {
    await admin?.query(`DROP DATABASE IF EXISTS \`${database}\``);
    await admin?.end();
  });

  for (const [table, cases] of [
    ['text_protocol', CASES],
    ['binary_protocol', FLOATS],
  ] as const) {
    test(`${table}: ${cases.map((c) => c[0]).join('; ')}`, async () => {
      const columns = cases.map((_, i) => `c${i}`);
      await admin.query(`CREATE TABLE \`${database}\`.${table} (id INT NOT NULL PRIMARY KEY, ${cases.map((c, i) => `c${i} ${c[1]}`).join(', ')}) CHARACTER SET utf8mb4`);
      for (const row of [0, 1]) await admin.query(`INSERT INTO \`${database}\`.${table} VALUES (${row}, ${cases.map((c) => c[3][row]).join(', ')})`);
      await admin.query(`INSERT INTO \`${database}\`.${table} (id) VALUES (2)`);
      const target: TargetColumn[] = [
        { name: 'id', type: parseDataTypeString('INT NOT NULL') },
        ...cases.map((c, i) => ({ name: `c${i}`, type: parseDataTypeString(c[2]) })),
      ];
      const spec = MysqlSourceSpec.parse({ kind: 'mysql', connection: 'mariadb', databases: [database], tables: [table] });
      const [shard, ...more] = await planMysqlShards(spec, target, access);
      assert.ok(shard !== undefined && more.length === 0);
      const source = new MysqlSource(spec, ['id', ...columns], access);
      const rowType: RowType = { fields: target.map((c, id) => ({ id, ...c })) };
      const convert = rowConverter(shard.id, await source.columns(), rowType);
      const rows = [];
      for await (const batch of source.open(shard)) rows.push(...batch.rows.map((r, i) => convert(r, batch.firstRowPosition + i)));
      assert.equal(rows.length, 3);
      for (const [i, c] of cases.entries()) {
        for (const row of [0, 1]) assert.deepEqual(plain(rows[row]?.[i + 1]), plain(c[4][row]), `${c[0]}: ${c[1]} → ${c[2]}, row ${row}`);
        assert.equal(rows[2]?.[i + 1], null, `${c[0]}: NULL`);
      }
    });
  }
});
