/**
 * An abort of a sync whose shard is blocked inside a MySQL query ends within a bounded time, and the
 * blocked attempt leaves nothing behind once it is free again.
 *
 * The test blocks the shard honestly: its own connection holds `LOCK TABLES … WRITE` on the source
 * table, so the shard's SELECT waits for the table's metadata lock (MariaDB waits lock_wait_timeout,
 * a day by default) and the worker never gets a batch.
 * 1. A live worker: it sees the abort while blocked, kills its own query and fails the attempt; the
 *    sync is ABORTED long before the lock is released.
 * 2. A worker frozen with SIGSTOP while it holds the job: nothing answers for it, so the coordinator
 *    ends the abort after its grace period; once the lock is released and the worker thawed, the
 *    late attempt writes its data file and blob after the cleanup, is fenced (the ledger refuses
 *    it) and deletes them itself (no coordinator runs meanwhile). That worker checks the phase only
 *    every 10 minutes, so that it surely gets that far instead of seeing the abort first. A file
 *    such an attempt would leave if it died first is swept by the coordinator once the job ends.
 * Both cases run in both layouts (a bucketed attempt's late files are its run objects in the sync's staging).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { ChildProcess } from 'node:child_process';
import { createConnection, type Connection, type RowDataPacket } from 'mysql2/promise';
import { Redis } from 'ioredis';
import type { Coordinator } from '@tributary/coordinator';
import { ShardAttempt, syncRedisKeys } from '@tributary/protocol';
import { openTable } from '@tributary/table';
import { services } from '@tributary/testkit';
import { LAYOUTS, inProcessCoordinator, listKeys, spawnWorker, stop, syncEnv, waitForPhase, waitUntil, withMariadb } from './harness.ts';

/** Generous for a slow, shared 2-core machine; the lock is held far longer than this. */
const ABORT_BOUND_MS = 30_000;
const ABORT_GRACE_MS = 2000;

for (const layout of LAYOUTS) describe(`abort of a shard blocked in a MySQL query (real MariaDB, worker processes, layout ${layout})`, () => {
  const e = syncEnv(`blocked-${layout}`, withMariadb());
  const database = `${e.prefix.replaceAll('-', '_')}_src`;
  let admin: Connection;
  let coordinator: Coordinator;
  let coordinatorClosed = false;
  const workers: ChildProcess[] = [];
  const mysql = {
    kind: 'mysql',
    connection: 'mariadb',
    databases: [database],
    batchRows: 50,
  };

  before(async () => {
    admin = await createConnection({ ...services.mariadb });
    await admin.query(`CREATE DATABASE \`${database}\``);
    coordinator = await inProcessCoordinator(e, { abortGraceMs: ABORT_GRACE_MS });
  });

  after(async () => {
    for (const w of workers) w.kill('SIGCONT'); // a worker frozen by a failed test must wake to stop
    await Promise.all(workers.map((w) => stop(w)));
    if (!coordinatorClosed) await coordinator?.close();
    await admin?.query(`DROP DATABASE IF EXISTS \`${database}\``);
    await admin?.end();
  });

  /** A source table of 500 rows and an append table to load it into. */
  async function prepare(name: string): Promise<void> {
    await admin.query(`CREATE TABLE \`${database}\`.\`${name}\` (id BIGINT NOT NULL PRIMARY KEY, note VARCHAR(32) NOT NULL)`);
    const rows = Array.from({ length: 500 }, (_, i) => [i + 1, `note-${i + 1}`]);
    await admin.query(`INSERT INTO \`${database}\`.\`${name}\` VALUES ?`, [rows]);
    const created = await coordinator.app.inject({
      method: 'POST',
      url: '/v1/tables',
      payload: { database: 'shop', name, columns: [{ name: 'id', type: 'BIGINT NOT NULL' }, { name: 'note', type: 'STRING' }] },
    });
    assert.equal(created.statusCode, 201, created.body);
  }

  /** Starts the sync with no worker up yet, so that no shard can read before the lock is taken. */
  async function startSync(name: string): Promise<string> {
    const response = await coordinator.app.inject({ method: 'POST', url: '/v1/syncs', payload: { table: { database: 'shop', table: name }, source: { ...mysql, tables: [name] }, options: { layout } } });
    assert.equal(response.statusCode, 202, response.body);
    const id = response.json<{ id: string }>().id;
    await waitForPhase(() => coordinator.syncs.get(id), ['PREPARING']);
    return id;
  }

  /** A connection holding a write lock on the source table: every other session's read of it waits. */
  async function lockTable(name: string): Promise<Connection> {
    const locker = await createConnection({ ...services.mariadb });
    await locker.query(`LOCK TABLES \`${database}\`.\`${name}\` WRITE`);
    return locker;
  }

  /** The server threads whose query on the table waits for the lock (the shard's SELECT). */
  async function blockedReads(name: string): Promise<number> {
    const [rows] = await admin.query<RowDataPacket[]>(
      "SELECT ID FROM information_schema.PROCESSLIST WHERE STATE LIKE 'Waiting for table metadata lock' AND INFO LIKE ?",
      [`%${database}%${name}%`],
    );
    return rows.length;
  }

  async function abort(id: string): Promise<number> {
    const abortedAt = Date.now();
    const response = await coordinator.app.inject({ method: 'POST', url: `/v1/syncs/${id}/abort`, payload: { reason: 'blocked shard' } });
    assert.equal(response.statusCode, 202, response.body);
    return abortedAt;
  }

  /** Nothing of the sync is visible or staged: no snapshot, no row, no blob, no data file. */
  async function assertNothingLeft(id: string, name: string): Promise<void> {
    const staged = (await listKeys(e, `.tributary/syncs/${id}/`)).filter((k) => !k.endsWith('/outcome.json'));
    assert.deepEqual(staged, [], 'no staged blob left');
    const dataFiles = (await listKeys(e, `shop.db/${name}/`)).filter((k) => k.includes(`/data-${id}-`));
    assert.deepEqual(dataFiles, [], 'no data file of the sync left');
    const table = await openTable(e.store, 'shop', name);
    assert.equal(await table.latestSnapshot(), null, 'no snapshot');
    let rows = 0;
    for await (const _ of table.newRead()) rows++;
    assert.equal(rows, 0, 'no visible row');
  }

  test('a live worker blocked in its query stops at the abort: ABORTED while the lock is still held', async () => {
    await prepare('live');
    const id = await startSync('live');
    const locker = await lockTable('live');
    try {
      workers.push(await spawnWorker(e));
      await waitUntil(async () => (await blockedReads('live')) > 0, "the shard's read waits for the lock");
      const abortedAt = await abort(id);
      const done = await waitForPhase(() => coordinator.syncs.get(id), ['COMMITTED', 'ABORTED'], ABORT_BOUND_MS);
      const tookMs = Date.now() - abortedAt;
      assert.ok(done.state.phase === 'ABORTED', done.state.phase);
      assert.equal(done.state.reason.code, 'SYNC_ABORT_REQUESTED');
      assert.ok(tookMs < ABORT_BOUND_MS, `aborted in ${tookMs} ms`);
      console.log(`blocked shard, live worker: ABORTED ${tookMs} ms after the request, lock still held`);
      // The worker cancelled the query on the server too, not only its side of the socket.
      await waitUntil(async () => (await blockedReads('live')) === 0, 'the blocked query was killed');
      const [attempt] = await coordinator.store.attempts(id);
      assert.equal(attempt?.status, 'failed', JSON.stringify(attempt));
      assert.equal(attempt?.error?.code, 'SYNC_NOT_ACCEPTING');
      await assertNothingLeft(id, 'live');
    } finally {
      await locker.end();
    }
    // Released, the source would now answer: nothing reads it any more and nothing comes back.
    const attempts = await coordinator.store.attempts(id);
    assert.equal(attempts.length, 1, 'the failed attempt is not retried');
    await assertNothingLeft(id, 'live');
    await Promise.all(workers.splice(0).map((w) => stop(w)));
  });

  test('a frozen worker holding the blocked job: ABORTED after the grace period; its late files are cleaned', async () => {
    await prepare('frozen');
    const id = await startSync('frozen');
    const locker = await lockTable('frozen');
    const worker = await spawnWorker(e, { TRIBUTARY_PHASE_CHECK_MS: '600000' });
    workers.push(worker);
    const redis = new Redis(services.redis);
    let released = false;
    try {
      await waitUntil(async () => (await blockedReads('frozen')) > 0, "the shard's read waits for the lock");
      worker.kill('SIGSTOP'); // it can neither see the abort nor give the job back
      const abortedAt = await abort(id);
      const done = await waitForPhase(() => coordinator.syncs.get(id), ['COMMITTED', 'ABORTED'], ABORT_BOUND_MS);
      const tookMs = Date.now() - abortedAt;
      assert.ok(done.state.phase === 'ABORTED', done.state.phase);
      assert.equal(done.state.stagedDeleted, true);
      assert.ok(tookMs >= ABORT_GRACE_MS && tookMs < ABORT_BOUND_MS, `aborted in ${tookMs} ms`);
      console.log(`blocked shard, frozen worker: ABORTED ${tookMs} ms after the request (grace ${ABORT_GRACE_MS} ms), lock still held`);
      const [attempt] = await coordinator.store.attempts(id);
      assert.equal(attempt?.status, 'abandoned', 'the ended sync no longer shows its attempt running');
      await assertNothingLeft(id, 'frozen');

      // No coordinator while the late attempt finishes: what it leaves is its own doing.
      await coordinator.close();
      coordinatorClosed = true;
      await locker.end();
      released = true;
      worker.kill('SIGCONT');
      const attempts = syncRedisKeys(e.prefix, id).attempts;
      const late = await waitUntil(async () => {
        const json = await redis.hget(attempts, `${done.plan.shards[0]?.id}/1`);
        const first = json === null ? undefined : ShardAttempt.parse(JSON.parse(json));
        return first?.status === 'failed' && first;
      }, 'the late attempt ended');
      assert.equal(late.error?.code, 'SYNC_NOT_ACCEPTING', JSON.stringify(late));
      assert.match(late.error?.message ?? '', /no longer accepts shard results/, 'fenced by the ledger after staging its files');
      assert.equal(await redis.hlen(syncRedisKeys(e.prefix, id).accepted), 0, 'the ledger accepted nothing');
      await assertNothingLeft(id, 'frozen');

      // What a late attempt that died before cleaning up would leave: the coordinator sweeps it
      // when the shard's job has ended and the flow's parent runs.
      const orphan = `shop.db/frozen/bucket-0/data-${id}-${done.plan.shards[0]?.id}-a9-0.parquet`;
      await e.store.put(orphan, new Uint8Array([1]));
      coordinator = await inProcessCoordinator(e, { abortGraceMs: ABORT_GRACE_MS });
      coordinatorClosed = false;
      await waitUntil(async () => (await e.store.stat(orphan)) === null, 'the late file was swept', 60_000);
      await assertNothingLeft(id, 'frozen');
      assert.equal((await coordinator.syncs.get(id)).state.phase, 'ABORTED');
    } finally {
      worker.kill('SIGCONT');
      redis.disconnect();
      if (!released) await locker.end();
    }
  });
});
