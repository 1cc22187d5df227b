// The public API of @tributary/catalog: a warehouse's catalog (filesystem, JDBC, Hive Metastore),
// opened from its options.
export { CATALOG_KINDS, type Catalog, type CatalogKind, type CommittedSnapshot, type TableRef } from './catalog.ts';
export { catalogErrors } from './errors.ts';
export { filesystemCatalog } from './filesystem.ts';
export { DEFAULT_REFRESH_OPTIONS, HiveCatalog, hiveCatalog, type CatalogLog, type HiveCatalogOptions, type HiveRefreshEvent, type HiveRefreshOptions } from './hive/hive-catalog.ts';
export { tableLocationIn } from './location.ts';
export { lockEnabledFor, openCatalog, type CatalogOptions } from './open-catalog.ts';
export { parseJdbcUri, type JdbcEndpoint } from './jdbc/uri.ts';
export { catalogTables, type AfterCommitJournal, type CatalogTables, type CatalogTablesOptions } from './catalog-tables.ts';
export { MetastoreConnection, type MetastoreAddress } from './hive/metastore-client.ts';
export { showTableLocks, type HiveTableLock } from './hive/hive-lock.ts';
