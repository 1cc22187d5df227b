/**
 * A database of its own on the shared PostgreSQL or MariaDB server for one test file, so the
 * catalog tables (and their lock table) it creates meet no other test's; dropped at the end.
 */
import { services, uniqueName } from '@tributary/testkit';
import { createConnection } from 'mysql2/promise';
import pg from 'pg';

export type ScratchDialect = 'postgresql' | 'mysql';

export interface ScratchDatabase {
  readonly dialect: ScratchDialect;
  readonly name: string;
  /** The JDBC URL Tributary and Paimon Java are given (MariaDB is reached with `jdbc:mysql:`, as Paimon's lock requires). */
  readonly uri: string;
  readonly user: string;
  readonly password: string;
  /** Runs one statement in the scratch database (`?` placeholders for MySQL, `$n` for PostgreSQL). */
  query(sql: string, params?: readonly unknown[]): Promise<Record<string, unknown>[]>;
  drop(): Promise<void>;
}

export async function scratchDatabase(dialect: ScratchDialect): Promise<ScratchDatabase> {
  const name = uniqueName('cat').replace(/-/g, '_');
  if (dialect === 'postgresql') {
    const { host, port, user, password } = services.postgres;
    const admin = new pg.Client({ host, port, user, password, database: user });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
    await admin.end();
    const client = new pg.Client({ host, port, user, password, database: name });
    await client.connect();
    return {
      dialect,
      name,
      uri: `jdbc:postgresql://${host}:${port}/${name}`,
      user,
      password,
      query: async (sql, params = []) => (await client.query(sql, [...params])).rows as Record<string, unknown>[],
      drop: async () => {
        await client.end();
        const dropper = new pg.Client({ host, port, user, password, database: user });
        await dropper.connect();
        await dropper.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
        await dropper.end();
      },
    };
  }
  const { host, port, user, password } = services.mariadb;
  const connection = await createConnection({ host, port, user, password });
  await connection.query(`CREATE DATABASE ${name}`);
  await connection.query(`USE ${name}`);
  return {
    dialect,
    name,
    uri: `jdbc:mysql://${host}:${port}/${name}`,
    user,
    password,
    query: async (sql, params = []) => {
      const [rows] = await connection.query(sql, [...params]);
      return Array.isArray(rows) ? (rows as Record<string, unknown>[]) : [];
    },
    drop: async () => {
      await connection.query(`DROP DATABASE IF EXISTS ${name}`);
      await connection.end();
    },
  };
}
