/**
 * Opens a warehouse's catalog from its options. The options mirror Paimon's catalog options so one
 * set of values serves Tributary and the Java engines pointed at the same catalog (docs/catalogs.md).
 */
import { errorFrom } from '@tributary/errors';
import type { ObjectStore } from '@tributary/table';
import type { Catalog, CatalogKind } from './catalog.ts';
import { catalogErrors } from './errors.ts';
import { filesystemCatalog } from './filesystem.ts';

export interface CatalogOptions {
  readonly type: CatalogKind;
  /** jdbc: `jdbc:postgresql://host:port/db` or `jdbc:mysql://host:port/db` (also `jdbc:mariadb:`); hive: `thrift://host:port`. */
  readonly uri?: string;
  readonly user?: string;
  readonly password?: string;
  /** Paimon's `catalog-key`: the catalog's name in the JDBC tables and its lock ids (default `jdbc`). */
  readonly catalogKey?: string;
  /** Paimon's `lock.enabled`: take the table's catalog lock around each snapshot commit. */
  readonly lockEnabled?: boolean;
  /** Paimon's `lock-acquire-timeout` (default 8 minutes). */
  readonly lockAcquireTimeoutMs?: number;
  /** Paimon's `lock-check-max-sleep` (default 8 seconds). */
  readonly lockCheckMaxSleepMs?: number;
}

export async function openCatalog(warehouse: string, store: ObjectStore, options: CatalogOptions): Promise<Catalog> {
  switch (options.type) {
    case 'filesystem':
      return filesystemCatalog(warehouse, store);
    case 'jdbc':
    case 'hive':
      throw errorFrom(catalogErrors, 'CATALOG_CONFIG_INVALID', `catalog type '${options.type}' is not available yet`, { type: options.type });
  }
}
