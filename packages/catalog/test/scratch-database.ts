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
    // Without nullCatalogMeansCurrent, MySQL's JDBC driver finds the catalog tables of ANY database
    // of the server, and Paimon Java then skips creating its own (docs/catalogs.md).
    uri: `jdbc:mysql://${host}:${port}/${name}?nullCatalogMeansCurrent=true`,
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

/** The catalog tables of a scratch database as information_schema describes them, in one shape for both servers. */
export async function describeCatalogTables(db: ScratchDatabase): Promise<Record<string, { columns: [string, string, boolean][]; key: string[] }>> {
  const schemaFilter = db.dialect === 'postgresql' ? "c.table_schema = current_schema()" : 'c.table_schema = DATABASE()';
  const columns = await db.query(
    `SELECT c.table_name AS t, c.column_name AS c, c.data_type AS dt, c.character_maximum_length AS len, c.is_nullable AS n
       FROM information_schema.columns c WHERE ${schemaFilter} AND c.table_name LIKE 'paimon%' ORDER BY c.table_name, c.ordinal_position`,
  );
  const keys = await db.query(
    `SELECT k.table_name AS t, k.column_name AS c FROM information_schema.key_column_usage k
       JOIN information_schema.table_constraints c ON c.constraint_name = k.constraint_name AND c.table_name = k.table_name AND c.table_schema = k.table_schema
      WHERE ${schemaFilter} AND c.constraint_type = 'PRIMARY KEY' AND k.table_name LIKE 'paimon%' ORDER BY k.table_name, k.ordinal_position`,
  );
  const out: Record<string, { columns: [string, string, boolean][]; key: string[] }> = {};
  for (const row of columns) {
    const table = String(row['t'] ?? row['T'] ?? row['TABLE_NAME']);
    const type = String(row['dt']).toLowerCase().replace('character varying', 'varchar').replace('timestamp without time zone', 'timestamp');
    const sqlType = row['len'] === null || row['len'] === undefined ? type : `${type}(${String(row['len'])})`;
    (out[table] ??= { columns: [], key: [] }).columns.push([String(row['c']), sqlType, row['n'] === 'YES']);
  }
  for (const row of keys) (out[String(row['t'])] ??= { columns: [], key: [] }).key.push(String(row['c']));
  return out;
}
