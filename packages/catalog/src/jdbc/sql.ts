/**
 * The statements of Paimon's JDBC catalog (JdbcUtils, and the PostgreSQL and MySQL lock dialects),
 * with the same tables, columns, types and keys, so Tributary and Paimon Java share one catalog:
 *
 *   paimon_tables               (catalog_key, database_name, table_name)                  one row per table
 *   paimon_database_properties  (catalog_key, database_name, property_key, property_value) `exists`, `location`, …
 *   paimon_table_properties     (catalog_key, database_name, table_name, property_key, property_value)
 *   paimon_distributed_locks    (lock_id, acquired_at, expire_time_seconds)               one row per held lock
 *
 * Every catalog statement is scoped by `catalog_key` (Paimon's `catalog-key` option), so several
 * catalogs share the tables. Placeholders are `?`; `placeholders` turns them into PostgreSQL's `$n`.
 * Pure: text only.
 */
import type { JdbcDialect } from './uri.ts';

export const CREATE_CATALOG_TABLES: readonly string[] = [
  'CREATE TABLE IF NOT EXISTS paimon_tables(catalog_key VARCHAR(255) NOT NULL,database_name VARCHAR(255) NOT NULL,' +
    'table_name VARCHAR(255) NOT NULL, PRIMARY KEY (catalog_key, database_name, table_name))',
  'CREATE TABLE IF NOT EXISTS paimon_database_properties(catalog_key VARCHAR(255) NOT NULL,database_name VARCHAR(255) NOT NULL,' +
    'property_key VARCHAR(255),property_value VARCHAR(1000),PRIMARY KEY (catalog_key, database_name, property_key))',
  'CREATE TABLE IF NOT EXISTS paimon_table_properties(catalog_key VARCHAR(255) NOT NULL,database_name VARCHAR(255) NOT NULL,' +
    'table_name VARCHAR(255) NOT NULL,property_key VARCHAR(255) NOT NULL,property_value VARCHAR(1000),' +
    'PRIMARY KEY (catalog_key, database_name, table_name, property_key))',
];

/** The lock table, the same text in both dialects; `lockKeyMaxLength` is Paimon's `lock-key-max-length` (255). */
export function createLockTable(lockKeyMaxLength: number): string {
  return (
    `CREATE TABLE IF NOT EXISTS paimon_distributed_locks(lock_id VARCHAR(${lockKeyMaxLength}) NOT NULL,` +
    'acquired_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP NOT NULL,expire_time_seconds BIGINT DEFAULT 0 NOT NULL,PRIMARY KEY (lock_id))'
  );
}

export const GET_TABLE = 'SELECT table_name FROM paimon_tables WHERE catalog_key = ? AND database_name = ? AND table_name = ?';
export const LIST_TABLES = 'SELECT table_name FROM paimon_tables WHERE catalog_key = ? AND database_name = ?';
export const INSERT_TABLE = 'INSERT INTO paimon_tables (catalog_key, database_name, table_name) VALUES (?,?,?)';
export const DROP_TABLE = 'DELETE FROM paimon_tables WHERE catalog_key = ? AND database_name = ? AND table_name = ?';
export const DROP_TABLE_PROPERTIES = 'DELETE FROM paimon_table_properties WHERE catalog_key = ? AND database_name = ? AND table_name = ?';
export const LIST_TABLE_DATABASES = 'SELECT DISTINCT database_name FROM paimon_tables WHERE catalog_key = ?';
export const LIST_PROPERTY_DATABASES = 'SELECT DISTINCT database_name FROM paimon_database_properties WHERE catalog_key = ?';
export const GET_TABLE_DATABASE = 'SELECT database_name FROM paimon_tables WHERE catalog_key = ? AND database_name = ? LIMIT 1';
export const GET_PROPERTY_DATABASE = 'SELECT database_name FROM paimon_database_properties WHERE catalog_key = ? AND database_name = ? LIMIT 1';

/** One multi-row INSERT of database properties, as Paimon's insertProperties. */
export function insertDatabaseProperties(count: number): string {
  return `INSERT INTO paimon_database_properties (catalog_key, database_name, property_key, property_value) VALUES ${Array(count).fill('(?,?,?,?)').join(', ')}`;
}

/** One multi-row INSERT of table properties, as Paimon's insertTableProperties. */
export function insertTableProperties(count: number): string {
  return `INSERT INTO paimon_table_properties (catalog_key, database_name, table_name, property_key, property_value) VALUES ${Array(count).fill('(?,?,?,?,?)').join(', ')}`;
}

/** Acquire: the insert succeeds only when no row holds the lock id (the primary key). */
export const LOCK_ACQUIRE = 'INSERT INTO paimon_distributed_locks (lock_id,expire_time_seconds) VALUES (?,?)';
export const LOCK_RELEASE = 'DELETE FROM paimon_distributed_locks WHERE lock_id = ?';

/** Clears the lock row once it is older than its own `expire_time_seconds` (a holder that died). */
export function releaseTimedOutLock(dialect: JdbcDialect): string {
  return dialect === 'postgresql'
    ? 'DELETE FROM paimon_distributed_locks WHERE EXTRACT(EPOCH FROM AGE(NOW(), acquired_at)) >expire_time_seconds and lock_id = ?'
    : 'DELETE FROM paimon_distributed_locks WHERE TIMESTAMPDIFF(SECOND, acquired_at, NOW()) >expire_time_seconds and lock_id = ?';
}

/** PostgreSQL numbers its placeholders (`$1`, `$2`, …); MySQL takes `?`. No statement here has a `?` in a literal. */
export function placeholders(dialect: JdbcDialect, sql: string): string {
  if (dialect === 'mysql') return sql;
  let n = 0;
  return sql.replace(/\?/g, () => `$${++n}`);
}

/** Paimon's lock id of a table: `<catalog-key>.<database>.<table>`. */
export function lockId(catalogKey: string, database: string, table: string): string {
  return `${catalogKey}.${database}.${table}`;
}
