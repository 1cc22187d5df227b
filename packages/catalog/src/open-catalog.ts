/**
 * Opens a warehouse's catalog from its options. The options mirror Paimon's catalog options
 * (`metastore`, `uri`, `jdbc.user`, `catalog-key`, `lock.enabled`, …) so one set of values serves
 * Tributary and the Java engines pointed at the same catalog (docs/catalogs.md).
 */
import { errorFrom } from '@tributary/errors';
import type { ObjectStore } from '@tributary/table';
import type { Catalog, CatalogKind } from './catalog.ts';
import { catalogErrors } from './errors.ts';
import { filesystemCatalog } from './filesystem.ts';
import { hiveCatalog, type CatalogLog, type HiveRefreshEvent, type HiveRefreshOptions } from './hive/hive-catalog.ts';
import { jdbcCatalog } from './jdbc/catalog.ts';
import { openSqlClient } from './jdbc/client.ts';
import { DEFAULT_LOCK_TIMINGS } from './jdbc/lock.ts';
import { parseJdbcUri } from './jdbc/uri.ts';

export interface CatalogOptions {
  readonly type: CatalogKind;
  /** jdbc: `jdbc:postgresql://host:port/db` or `jdbc:mysql://host:port/db` (also `jdbc:mariadb:`); hive: `thrift://host:port`. */
  readonly uri?: string;
  readonly user?: string;
  readonly password?: string;
  /** Paimon's `catalog-key`: the catalog's name in the JDBC tables and its lock ids (default `jdbc`). */
  readonly catalogKey?: string;
  /**
   * Paimon's `lock.enabled`: take the table's catalog lock around each snapshot commit. Unset:
   * Paimon's default, on for a warehouse on an object store (s3://), off on a file system.
   */
  readonly lockEnabled?: boolean;
  /** Paimon's `lock-acquire-timeout` (default 8 minutes); a JDBC lock row also expires after it. */
  readonly lockAcquireTimeoutMs?: number;
  /** Paimon's `lock-check-max-sleep` (default 8 seconds). */
  readonly lockCheckMaxSleepMs?: number;
  /** Paimon's `sync-all-properties` (default true): the table's options and keys as catalog properties. */
  readonly syncAllProperties?: boolean;
  /** Told when a lock could not be released after the work it guarded succeeded (the row expires on its own). */
  readonly onLockReleaseFailure?: (lockId: string, error: unknown) => void;
  /** hive: how a failed metastore refresh after a commit is retried (default DEFAULT_REFRESH_OPTIONS). */
  readonly refresh?: Partial<HiveRefreshOptions>;
  /** hive: told each refresh's outcome (the coordinator moves the table's refresh mark on `refreshed`). */
  readonly onRefresh?: (event: HiveRefreshEvent) => void;
  /** hive: where the refresh outcomes are logged. */
  readonly log?: CatalogLog;
}

/** Paimon's `lock-key-max-length` default. */
const LOCK_KEY_MAX_LENGTH = 255;

/** Whether a catalog of these options takes its lock around commits to a table of `warehouse` (Paimon's rule). */
export function lockEnabledFor(warehouse: string, options: Pick<CatalogOptions, 'lockEnabled'>): boolean {
  return options.lockEnabled ?? /^s3a?:\/\//.test(warehouse);
}

/** @throws CATALOG_CONFIG_INVALID, CATALOG_UNAVAILABLE (the catalog's database is not reachable) */
export async function openCatalog(warehouse: string, store: ObjectStore, options: CatalogOptions): Promise<Catalog> {
  switch (options.type) {
    case 'filesystem':
      return filesystemCatalog(warehouse, store);
    case 'jdbc': {
      if (options.uri === undefined) {
        throw errorFrom(catalogErrors, 'CATALOG_CONFIG_INVALID', 'a jdbc catalog needs catalog.uri (jdbc:postgresql://… or jdbc:mysql://…)', { key: 'catalog.uri' });
      }
      const endpoint = parseJdbcUri(options.uri);
      const client = await openSqlClient(endpoint, { ...(options.user === undefined ? {} : { user: options.user }), ...(options.password === undefined ? {} : { password: options.password }) });
      try {
        return await jdbcCatalog(client, {
          warehouse,
          store,
          dialect: endpoint.dialect,
          catalogKey: options.catalogKey ?? 'jdbc',
          lockEnabled: lockEnabledFor(warehouse, options),
          lockTimings: {
            acquireTimeoutMs: options.lockAcquireTimeoutMs ?? DEFAULT_LOCK_TIMINGS.acquireTimeoutMs,
            checkMaxSleepMs: options.lockCheckMaxSleepMs ?? DEFAULT_LOCK_TIMINGS.checkMaxSleepMs,
          },
          lockKeyMaxLength: LOCK_KEY_MAX_LENGTH,
          syncAllProperties: options.syncAllProperties ?? true,
          ...(options.onLockReleaseFailure === undefined ? {} : { onReleaseFailure: options.onLockReleaseFailure }),
        });
      } catch (error) {
        await client.close().catch(() => {});
        throw error;
      }
    }
    case 'hive':
      if (options.uri === undefined) throw errorFrom(catalogErrors, 'CATALOG_CONFIG_INVALID', 'the Hive catalog needs catalog.uri = thrift://host:port', { type: options.type });
      return hiveCatalog({
        uri: options.uri,
        warehouse,
        store,
        lockEnabled: lockEnabledFor(warehouse, options),
        lock: {
          ...(options.lockAcquireTimeoutMs === undefined ? {} : { acquireTimeoutMs: options.lockAcquireTimeoutMs }),
          ...(options.lockCheckMaxSleepMs === undefined ? {} : { checkMaxSleepMs: options.lockCheckMaxSleepMs }),
        },
        ...(options.refresh === undefined ? {} : { refresh: options.refresh }),
        ...(options.onRefresh === undefined ? {} : { onRefresh: options.onRefresh }),
        ...(options.log === undefined ? {} : { log: options.log }),
      });
  }
}
