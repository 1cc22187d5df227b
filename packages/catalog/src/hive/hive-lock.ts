/**
 * The table's Hive Metastore lock, as Paimon's HiveCatalogLock takes it: one EXCLUSIVE lock at
 * TABLE level on `<database>.<table>`, outside any transaction (no txnid, no operation type), for
 * the current user and host; while the metastore answers WAITING, check_lock again after
 * 50 ms doubled up to `checkMaxSleepMs`, until `acquireTimeoutMs` has passed; a lock not acquired is
 * released (unlock) and the wait fails with CATALOG_LOCK_TIMEOUT. Paimon Java writers committing
 * to the same table through a HiveCatalog with `lock.enabled` take this same lock, so their commits
 * and Tributary's never overlap.
 *
 * While the guarded function runs, the lock is heartbeated every `heartbeatMs` so that the
 * metastore does not time it out (its `metastore.txn.timeout`, 300 s by default) during a long
 * commit.
 *
 * A `lock` call that gets no answer (a timeout, a broken connection) may still have been granted:
 * such a lock, which nobody will release, would hold off every writer of the table until the
 * metastore times it out. Each request therefore carries an agent id of its own
 * (`tributary <uuid>`), and after an unanswered `lock` the table's locks are listed and the ones
 * with that id released. (A request the metastore only takes after that sweep is still left to its
 * timeout.)
 */
import { randomUUID } from 'node:crypto';
import { hostname, userInfo } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { errorFrom, isTributaryError } from '@tributary/errors';
import type { TableRef } from '@tributary/table';
import types from './generated/hive_metastore_subset_types.js';
import { MetastoreException, rejected, type MetastoreConnection } from './metastore-client.ts';
import { catalogErrors } from '../errors.ts';
import { struct } from './struct.ts';

export interface HiveLockOptions {
  /** Paimon's `lock-acquire-timeout` (default 8 minutes). */
  readonly acquireTimeoutMs: number;
  /** Paimon's `lock-check-max-sleep` (default 8 s). */
  readonly checkMaxSleepMs: number;
  /** How often the held lock is heartbeated (default 60 s). */
  readonly heartbeatMs: number;
}

/** The agent id's prefix on Tributary's lock requests (each adds a uuid of its own). */
const AGENT = 'tributary';

export const DEFAULT_LOCK_OPTIONS: HiveLockOptions = { acquireTimeoutMs: 8 * 60_000, checkMaxSleepMs: 8_000, heartbeatMs: 60_000 };

function currentUser(): string {
  try {
    return userInfo().username;
  } catch {
    return 'tributary';
  }
}

async function lockCall<T>(conn: MetastoreConnection, operation: string, fn: Parameters<MetastoreConnection['call']>[1]): Promise<T> {
  try {
    return (await conn.call(operation, fn)) as T;
  } catch (error) {
    if (error instanceof MetastoreException) throw rejected(operation, error, { keepMessage: true });
    throw error;
  }
}

type LockId = InstanceType<typeof types.LockResponse>['lockid'];

async function acquire(conn: MetastoreConnection, ref: TableRef, options: HiveLockOptions): Promise<LockId> {
  const started = Date.now();
  const component = struct(types.LockComponent, { type: types.LockType.EXCLUSIVE, level: types.LockLevel.TABLE, dbname: ref.database, tablename: ref.table });
  // Paimon unsets the component's operation type (and leaves its transaction flags unset): a lock
  // outside any transaction. The generated struct fills in the IDL's defaults, so they are cleared.
  Object.assign(component, { operationType: null, isTransactional: null, isDynamicPartitionWrite: null });
  const agentInfo = `${AGENT} ${randomUUID()}`;
  const request = struct(types.LockRequest, {
    component: [component],
    user: currentUser(),
    hostname: hostname(),
    agentInfo,
  });
  let response: InstanceType<typeof types.LockResponse>;
  try {
    response = await lockCall(conn, 'lock', (c) => c.lock(request));
  } catch (error) {
    if (isTributaryError(error) && error.code === 'CATALOG_UNAVAILABLE') await releaseUnanswered(conn, ref, agentInfo);
    throw error;
  }
  const lockId = response.lockid;
  let nextSleep = 50;
  try {
    while (response.state === types.LockState.WAITING && Date.now() - started < options.acquireTimeoutMs) {
      nextSleep = Math.min(nextSleep * 2, options.checkMaxSleepMs);
      await sleep(nextSleep);
      response = await lockCall(conn, 'check_lock', (c) => c.check_lock(struct(types.CheckLockRequest, { lockid: response.lockid })));
    }
  } finally {
    if (response.state !== types.LockState.ACQUIRED) await release(conn, response.lockid);
  }
  if (response.state === types.LockState.ACQUIRED) return lockId;
  throw errorFrom(catalogErrors, 'CATALOG_LOCK_TIMEOUT', `the Hive Metastore lock on ${ref.database}.${ref.table} was not acquired in ${Date.now() - started} ms (state ${types.LockState[response.state] ?? response.state})`, {
    database: ref.database,
    table: ref.table,
    lockId: lockId.toString(),
  });
}

/** Releases the table's locks requested with `agentInfo` (a `lock` call that got no answer); best effort. */
async function releaseUnanswered(conn: MetastoreConnection, ref: TableRef, agentInfo: string): Promise<void> {
  let locks;
  try {
    locks = await tableLocks(conn, ref);
  } catch {
    return;
  }
  for (const lock of locks) if (lock.agentInfo === agentInfo) await release(conn, lock.lockid);
}

/** Releases a lock; false when the metastore could not be told (it then times the lock out). */
async function release(conn: MetastoreConnection, lockid: LockId): Promise<boolean> {
  try {
    await conn.call('unlock', (c) => c.unlock(struct(types.UnlockRequest, { lockid })));
    return true;
  } catch {
    return false;
  }
}

/** Runs `fn` holding the table's metastore lock. @throws CATALOG_LOCK_TIMEOUT, CATALOG_UNAVAILABLE */
export async function withHiveLock<T>(conn: MetastoreConnection, ref: TableRef, options: HiveLockOptions, fn: () => Promise<T>): Promise<T> {
  const lockid = await acquire(conn, ref, options);
  const heartbeat = setInterval(() => {
    conn.call('heartbeat', (c) => c.heartbeat(struct(types.HeartbeatRequest, { lockid }))).catch(() => {});
  }, options.heartbeatMs);
  heartbeat.unref();
  try {
    return await fn();
  } finally {
    clearInterval(heartbeat);
    await release(conn, lockid);
  }
}

/** A lock the metastore holds or queues on a table (its SHOW LOCKS), with the enums by name. */
export interface HiveTableLock {
  readonly lockId: string;
  /** ACQUIRED, WAITING, ABORT or NOT_ACQUIRED. */
  readonly state: string;
  /** SHARED_READ, SHARED_WRITE, EXCLUSIVE or EXCL_WRITE. */
  readonly type: string;
  readonly user: string;
  readonly hostname: string;
  /** `tributary <uuid>` for Tributary's (a uuid per request); Paimon Java sends none (the metastore's `Unknown`). */
  readonly agentInfo: string | null;
}

/** The locks the metastore holds or queues on `<database>.<table>`. @throws CATALOG_UNAVAILABLE, CATALOG_REQUEST_FAILED */
export async function showTableLocks(conn: MetastoreConnection, ref: TableRef): Promise<HiveTableLock[]> {
  return (await tableLocks(conn, ref)).map((l) => ({
    lockId: l.lockid.toString(),
    state: types.LockState[l.state] ?? String(l.state),
    type: types.LockType[l.type] ?? String(l.type),
    user: l.user,
    hostname: l.hostname,
    agentInfo: l.agentInfo ?? null,
  }));
}

async function tableLocks(conn: MetastoreConnection, ref: TableRef) {
  const request = struct(types.ShowLocksRequest, { dbname: ref.database, tablename: ref.table });
  const response = await lockCall<InstanceType<typeof types.ShowLocksResponse>>(conn, 'show_locks', (c) => c.show_locks(request));
  return response.locks ?? [];
}
