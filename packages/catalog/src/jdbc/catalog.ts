/**
 * Paimon's JDBC catalog (JdbcCatalog) over PostgreSQL or MySQL/MariaDB: the same tables and rows
 * Paimon Java reads and writes (sql.ts), scoped by `catalog-key`, and its distributed lock (lock.ts).
 * A table's files live where Paimon puts them, `<warehouse>/<db>.db/<table>`; the catalog holds
 * its name (and, with `sync-all-properties`, its options, keys and partitioning as properties).
 */
import { errorFrom, isTributaryError } from '@tributary/errors';
import { openTable, type ObjectStore, type TableRef } from '@tributary/table';
import { bucketKeys, type TableSchema } from '@tributary/table/spec';
import type { Catalog, CommittedSnapshot } from '../catalog.ts';
import { catalogErrors } from '../errors.ts';
import { databaseLocationIn, tableLocationIn } from '../location.ts';
import type { SqlClient } from './client.ts';
import { acquire, release, type LockTimings } from './lock.ts';
import * as sql from './sql.ts';
import type { JdbcDialect } from './uri.ts';

export interface JdbcCatalogSettings {
  readonly warehouse: string;
  /** Where the table schemas are read from (for the table properties). */
  readonly store: ObjectStore;
  readonly dialect: JdbcDialect;
  /** Paimon's `catalog-key` (default `jdbc`). */
  readonly catalogKey: string;
  readonly lockEnabled: boolean;
  readonly lockTimings: LockTimings;
  /** Paimon's `lock-key-max-length` (default 255): the lock table's key column. */
  readonly lockKeyMaxLength: number;
  /** Paimon's `sync-all-properties` (default true): table options and keys in paimon_table_properties. */
  readonly syncAllProperties: boolean;
  /** A lock row that could not be deleted after the work it guarded succeeded (it expires on its own). */
  readonly onReleaseFailure?: (lockId: string, error: unknown) => void;
}

/** Creates the catalog tables if missing (as Paimon's JdbcCatalog does when it opens), then serves them. */
export async function jdbcCatalog(client: SqlClient, settings: JdbcCatalogSettings): Promise<Catalog> {
  const { catalogKey, warehouse } = settings;
  const statements = [...sql.CREATE_CATALOG_TABLES, ...(settings.lockEnabled ? [sql.createLockTable(settings.lockKeyMaxLength)] : [])];
  for (const statement of statements) await createIfMissing(client, statement);

  const names = (rows: readonly Readonly<Record<string, unknown>>[], column: string) => rows.map((row) => String(row[column]));
  const databaseExists = async (database: string): Promise<boolean> =>
    (await client.run(sql.GET_TABLE_DATABASE, [catalogKey, database])).rows.length > 0 ||
    (await client.run(sql.GET_PROPERTY_DATABASE, [catalogKey, database])).rows.length > 0;
  const insertIgnoringTaken = async (statement: string, params: readonly string[]): Promise<boolean> => {
    try {
      await client.run(statement, params);
      return true;
    } catch (error) {
      if (isTributaryError(error) && error.code === 'CATALOG_DUPLICATE_KEY') return false;
      throw error;
    }
  };

  return {
    kind: 'jdbc',
    async createDatabase(database: string): Promise<void> {
      if (await databaseExists(database)) return;
      // Paimon's createDatabaseImpl: the `exists` marker and the database's location, in one insert.
      const properties = [['exists', 'true'], ['location', databaseLocationIn(warehouse, database)]] as const;
      await insertIgnoringTaken(
        sql.insertDatabaseProperties(properties.length),
        properties.flatMap(([key, value]) => [catalogKey, database, key, value]),
      );
    },
    async listDatabases(): Promise<string[]> {
      const fromTables = names((await client.run(sql.LIST_TABLE_DATABASES, [catalogKey])).rows, 'database_name');
      const fromProperties = names((await client.run(sql.LIST_PROPERTY_DATABASES, [catalogKey])).rows, 'database_name');
      return [...new Set([...fromTables, ...fromProperties])].sort();
    },
    async registerTable(ref: TableRef, location: string): Promise<void> {
      const expected = tableLocationIn(warehouse, ref);
      if (location.replace(/\/+$/, '') !== expected) {
        throw errorFrom(catalogErrors, 'CATALOG_LOCATION_INVALID', `a JDBC catalog keeps ${ref.database}.${ref.table} at ${expected}`, {
          database: ref.database,
          table: ref.table,
        });
      }
      if (!(await insertIgnoringTaken(sql.INSERT_TABLE, [catalogKey, ref.database, ref.table]))) {
        throw errorFrom(catalogErrors, 'CATALOG_TABLE_EXISTS', `the catalog already holds ${ref.database}.${ref.table}`, { ...ref });
      }
      if (!settings.syncAllProperties) return;
      const properties = Object.entries(tableProperties((await openTable(settings.store, ref.database, ref.table)).schema));
      if (properties.length === 0) return;
      await client.run(
        sql.insertTableProperties(properties.length),
        properties.flatMap(([key, value]) => [catalogKey, ref.database, ref.table, key, value]),
      );
    },
    async listTables(database: string): Promise<string[]> {
      return names((await client.run(sql.LIST_TABLES, [catalogKey, database])).rows, 'table_name').sort();
    },
    async tableLocation(ref: TableRef): Promise<string | null> {
      const found = (await client.run(sql.GET_TABLE, [catalogKey, ref.database, ref.table])).rows.length > 0;
      return found ? tableLocationIn(warehouse, ref) : null;
    },
    async dropTable(ref: TableRef): Promise<void> {
      const dropped = await client.run(sql.DROP_TABLE, [catalogKey, ref.database, ref.table]);
      if (dropped.affected > 0) await client.run(sql.DROP_TABLE_PROPERTIES, [catalogKey, ref.database, ref.table]);
    },
    async withLock<T>(ref: TableRef, fn: () => Promise<T>): Promise<T> {
      if (!settings.lockEnabled) return fn();
      const id = sql.lockId(catalogKey, ref.database, ref.table);
      await acquire(client, settings.dialect, id, settings.lockTimings);
      let result: T;
      try {
        result = await fn();
      } catch (error) {
        await release(client, id).catch((releaseError: unknown) => settings.onReleaseFailure?.(id, releaseError));
        throw error;
      }
      // The guarded work succeeded: a row left behind expires on its own and must not undo that.
      await release(client, id).catch((releaseError: unknown) => settings.onReleaseFailure?.(id, releaseError));
      return result;
    },
    async afterCommit(_ref: TableRef, _commit: CommittedSnapshot): Promise<void> {},
    async ping(): Promise<void> {
      await client.run('SELECT 1');
    },
    close: () => client.close(),
  };
}

/** Paimon's collectTableProperties: the schema's options, then `primary-key`, `partition`, `bucket-key` (comma lists). */
export function tableProperties(schema: TableSchema): Record<string, string> {
  const properties: Record<string, string> = { ...schema.options };
  if (schema.primaryKeys.length > 0) properties['primary-key'] = schema.primaryKeys.join(',');
  if (schema.partitionKeys.length > 0) properties['partition'] = schema.partitionKeys.join(',');
  const buckets = bucketKeys(schema);
  if (buckets.length > 0) properties['bucket-key'] = buckets.join(',');
  return properties;
}

/** CREATE TABLE IF NOT EXISTS can still lose a race to another process creating the same table. */
async function createIfMissing(client: SqlClient, statement: string): Promise<void> {
  try {
    await client.run(statement);
  } catch (error) {
    if (isTributaryError(error) && (error.code === 'CATALOG_DUPLICATE_KEY' || error.context['driverCode'] === '42P07' || error.context['driverCode'] === 'ER_TABLE_EXISTS_ERROR')) return;
    throw error;
  }
}
