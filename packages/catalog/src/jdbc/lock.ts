/**
 * Paimon's JDBC distributed lock (JdbcCatalogLock), taken the same way so a Tributary commit and a
 * Paimon Java commit to one table exclude each other:
 *
 * - acquire: first delete the lock's row if it outlived its own `expire_time_seconds` (its holder
 *   died), then insert the row `lock_id = <catalog-key>.<db>.<table>` with `expire_time_seconds =
 *   lock-acquire-timeout / 1000`; the primary key lets one insert win;
 * - a lost insert waits (50 ms doubled each time, at most `lock-check-max-sleep`) and tries again
 *   until `lock-acquire-timeout` has passed, then fails (CATALOG_LOCK_TIMEOUT);
 * - release: delete the row.
 *
 * Unlike Paimon Java, which counts any failed insert as "held by another", only a taken key is
 * waited on here: a database that does not answer fails at once (CATALOG_UNAVAILABLE).
 */
import { errorFrom, isTributaryError } from '@tributary/errors';
import { setTimeout as sleep } from 'node:timers/promises';
import { catalogErrors } from '../errors.ts';
import type { SqlClient } from './client.ts';
import { LOCK_ACQUIRE, LOCK_RELEASE, releaseTimedOutLock } from './sql.ts';
import type { JdbcDialect } from './uri.ts';

export interface LockTimings {
  /** Paimon's `lock-acquire-timeout` (default 8 minutes); also the row's expiry, in whole seconds. */
  readonly acquireTimeoutMs: number;
  /** Paimon's `lock-check-max-sleep` (default 8 seconds). */
  readonly checkMaxSleepMs: number;
}

export const DEFAULT_LOCK_TIMINGS: LockTimings = { acquireTimeoutMs: 8 * 60_000, checkMaxSleepMs: 8_000 };

/** One try: clear an expired row, then insert ours. True when this call now holds the lock. */
export async function tryAcquire(client: SqlClient, dialect: JdbcDialect, id: string, timings: LockTimings): Promise<boolean> {
  await client.run(releaseTimedOutLock(dialect), [id]);
  try {
    return (await client.run(LOCK_ACQUIRE, [id, Math.floor(timings.acquireTimeoutMs / 1000)])).affected > 0;
  } catch (error) {
    if (isTributaryError(error) && error.code === 'CATALOG_DUPLICATE_KEY') return false;
    throw error;
  }
}

/** Acquires the lock, waiting as Paimon does. @throws CATALOG_LOCK_TIMEOUT, CATALOG_UNAVAILABLE */
export async function acquire(client: SqlClient, dialect: JdbcDialect, id: string, timings: LockTimings): Promise<void> {
  const start = Date.now();
  let wait = 50;
  while (!(await tryAcquire(client, dialect, id, timings))) {
    if (Date.now() - start > timings.acquireTimeoutMs) {
      throw errorFrom(catalogErrors, 'CATALOG_LOCK_TIMEOUT', `the catalog lock ${id} was not acquired in ${Date.now() - start} ms`, {
        lockId: id,
        waitedMs: Date.now() - start,
      });
    }
    wait = Math.min(wait * 2, timings.checkMaxSleepMs);
    await sleep(wait);
  }
}

export async function release(client: SqlClient, id: string): Promise<void> {
  await client.run(LOCK_RELEASE, [id]);
}
