/**
 * The catalog of a warehouse: where users (and other engines) find its databases and tables. A
 * table's files (schema, snapshots, data) always live at its location in the warehouse; the
 * catalog records which tables exist and where, and may guard a table's snapshot commit with a
 * lock that Paimon Java writers take too. One `Catalog` serves one warehouse.
 *
 * - `filesystem`: the warehouse's directory layout is the catalog (`<db>.db/<table>` with a
 *   schema), Paimon's FileSystemCatalog. No lock: Tributary's put-if-absent snapshot commit
 *   protects Tributary writers from each other.
 * - `jdbc`: Paimon's JdbcCatalog tables in PostgreSQL or MySQL/MariaDB, and its distributed lock.
 * - `hive`: a Hive Metastore over Thrift (tables, partitions, its lock).
 */
import type { TableRef } from '@tributary/table';

export type { TableRef };

export type CatalogKind = 'filesystem' | 'jdbc' | 'hive';

export const CATALOG_KINDS: readonly CatalogKind[] = ['filesystem', 'jdbc', 'hive'];

/** What a published snapshot changed, as `afterCommit` needs it. */
export interface CommittedSnapshot {
  readonly snapshotId: number;
  /** The partitions the snapshot added files to, partition key -> value (empty for an unpartitioned table). */
  readonly addedPartitions: readonly Readonly<Record<string, string>>[];
}

export interface Catalog {
  readonly kind: CatalogKind;
  /** Creates the database if it does not exist (idempotent). */
  createDatabase(database: string): Promise<void>;
  /** Every database, sorted. */
  listDatabases(): Promise<string[]>;
  /**
   * Records the table at `location` (its schema already written there). @throws CATALOG_TABLE_EXISTS
   * when the catalog already holds the table.
   */
  registerTable(ref: TableRef, location: string): Promise<void>;
  /** The tables of a database, sorted. */
  listTables(database: string): Promise<string[]>;
  /** Where the table's files live, null when the catalog does not hold it. */
  tableLocation(ref: TableRef): Promise<string | null>;
  /** Forgets the table (its files are the caller's to delete). No error when it is not there. */
  dropTable(ref: TableRef): Promise<void>;
  /**
   * Runs `fn` holding the table's catalog lock when the catalog's lock is enabled (Paimon's
   * `CatalogLock.runWithLock`), else just runs it. @throws CATALOG_LOCK_TIMEOUT
   */
  withLock<T>(ref: TableRef, fn: () => Promise<T>): Promise<T>;
  /**
   * Tells the catalog a snapshot was published (a metastore registers the added partitions).
   * Never throws: the snapshot is committed whatever happens here; a failure is retried and
   * reported by the implementation.
   */
  afterCommit(ref: TableRef, commit: CommittedSnapshot): Promise<void>;
  /**
   * Whether the catalog answers (readiness): one cheap request to its database or metastore.
   * @throws CATALOG_UNAVAILABLE
   */
  ping(): Promise<void>;
  close(): Promise<void>;
}
