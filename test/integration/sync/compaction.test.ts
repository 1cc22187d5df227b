/**
 * Distributed compaction through the coordinator (real Redis and MinIO, real worker processes):
 * `POST /v1/tables/{db}/{table}/compactions` plans one job per (partition, bucket), the workers
 * rewrite them, and the coordinator commits ONE COMPACT snapshot or nothing.
 *
 * 1. Full compaction of a table written by several syncs: one top-level file per bucket, the table
 *    reads exactly what it read before (Tributary, Paimon Java, pypaimon), staged blobs deleted.
 * 2. A compaction worker SIGKILLed mid-job: the job re-runs on another worker, only the accepted
 *    attempt's files are committed, the table is exact, the orphan cleanup removes the rest.
 * 3. The coordinator stopped while a compaction runs: a new coordinator drives it to its commit.
 * 4. A sync and a compaction on the same bucket at once: the sync commits (it never fails because
 *    of a compaction) and so does the compaction, the table holds the sync's rows; an overwrite
 *    that replaces the files a compaction rewrites makes the compaction give way (CONFLICT), and
 *    none of its files stays.
 * 5. A sync with `options.compactAfter`: once it is COMMITTED the coordinator plans a compaction by
 *    the table's rules (here `num-sorted-run.compaction-trigger` 2), which ends in a COMPACT snapshot
 *    after the sync's, the rows unchanged; a sync without the option plans none.
 * 6. An Idempotency-Key: requests sent at once and repeats after the end answer one compaction (one
 *    COMPACT snapshot); the key with another body or another table is refused.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { ChildProcess } from 'node:child_process';
import { Redis } from 'ioredis';
import type { Coordinator } from '@tributary/coordinator';
import { compactionIndexKey, compactionRedisKeys, type ShardAttempt } from '@tributary/protocol';
import { openTable } from '@tributary/table';
import { canonicalRows, paimonJava, pypaimon, readResults, services, type OracleRow } from '@tributary/testkit';
import { ORDERS_COLUMNS, generatorSource, inProcessCoordinator, listKeys, readRows, spawnWorker, stop, syncEnv, waitForPhase, waitUntil } from './harness.ts';

interface CompactionView {
  readonly id: string;
  readonly phase: string;
  readonly snapshotId: number | null;
  readonly jobs: number;
  readonly acceptedJobs: number;
  readonly filesBefore: number;
  readonly filesAfter: number | null;
  readonly error: { code: string } | null;
}

describe('distributed compaction (real Redis and MinIO, real workers)', () => {
  const e = syncEnv('compaction');
  let coordinator: Coordinator;
  const workers: ChildProcess[] = [];

  before(async () => {
    coordinator = await inProcessCoordinator(e);
  });
  after(async () => {
    await Promise.all(workers.map((w) => stop(w)));
    await coordinator.close();
  });

  async function createTable(name: string, bucket: number, options: Record<string, string> = {}): Promise<void> {
    const response = await coordinator.app.inject({ method: 'POST', url: '/v1/tables', payload: { database: 'shop', name, columns: ORDERS_COLUMNS, primaryKeys: ['order_id'], bucket, options } });
    assert.equal(response.statusCode, 201, response.body);
  }

  async function sync(table: string, seed: number, rows: number, mode = 'append', options: Record<string, unknown> = {}): Promise<number> {
    const response = await coordinator.app.inject({
      method: 'POST',
      url: '/v1/syncs',
      payload: { table: { database: 'shop', table }, source: generatorSource(2, rows / 2, { seed }), mode, options: { layout: 'direct', ...options } },
    });
    assert.equal(response.statusCode, 202, response.body);
    const id = response.json<{ id: string }>().id;
    const done = await waitForPhase(() => coordinator.syncs.get(id), ['COMMITTED', 'ABORTED'], 120_000);
    assert.ok(done.state.phase === 'COMMITTED', JSON.stringify(done.state));
    return done.state.snapshotId;
  }

  async function startCompaction(table: string, body: Record<string, unknown> = { full: true }): Promise<CompactionView> {
    const response = await coordinator.app.inject({ method: 'POST', url: `/v1/tables/shop/${table}/compactions`, payload: body });
    assert.equal(response.statusCode, 202, response.body);
    return response.json<CompactionView>();
  }

  async function compaction(table: string, id: string): Promise<CompactionView> {
    const response = await coordinator.app.inject({ method: 'GET', url: `/v1/tables/shop/${table}/compactions/${id}` });
    assert.equal(response.statusCode, 200, response.body);
    return response.json<CompactionView>();
  }

  async function ended(table: string, id: string): Promise<CompactionView> {
    return waitUntil(async () => {
      const view = await compaction(table, id);
      return ['COMMITTED', 'FAILED', 'CONFLICT'].includes(view.phase) ? view : undefined;
    }, `compaction ${id} ended`, 240_000);
  }

  async function attempts(id: string): Promise<ShardAttempt[]> {
    const redis = new Redis(services.redis);
    try {
      return Object.values(await redis.hgetall(compactionRedisKeys(e.prefix, id).attempts)).map((json) => JSON.parse(json) as ShardAttempt);
    } finally {
      redis.disconnect();
    }
  }

  async function files(table: string): Promise<{ path: string; level: number; bucket: number }[]> {
    return (await (await openTable(e.store, 'shop', table)).dataFiles()).files;
  }

  const tributaryRows = async (table: string) => canonicalRows((await readRows(e, 'shop', table)) as OracleRow[]);

  test('full compaction of a table written by several syncs: one top-level file per bucket, the same rows in every reader', async () => {
    workers.push(...(await Promise.all([spawnWorker(e), spawnWorker(e)])));
    await createTable('full', 4);
    for (const seed of [1, 2, 3]) await sync('full', seed, 2000);
    const before = await tributaryRows('full');
    const filesBefore = await files('full');
    assert.ok(filesBefore.length > 4 && filesBefore.every((f) => f.level === 0));

    const started = await startCompaction('full');
    assert.equal(started.phase, 'RUNNING');
    assert.equal(started.jobs, 4);
    assert.equal(started.filesBefore, filesBefore.length);
    const done = await ended('full', started.id);
    assert.equal(done.phase, 'COMMITTED', JSON.stringify(done));
    assert.equal(done.acceptedJobs, 4);
    const table = await openTable(e.store, 'shop', 'full');
    assert.equal((await table.snapshot(done.snapshotId as number)).commitKind, 'COMPACT');
    const after = await files('full');
    assert.equal(after.length, 4);
    assert.equal(done.filesAfter, 4);
    assert.ok(after.every((f) => f.level === 5 && f.path.includes(`/data-${started.id}-`)), JSON.stringify(after));
    assert.deepEqual(await tributaryRows('full'), before);
    const op = { op: 'read' as const, warehouse: e.warehouse, database: 'shop', table: 'full' };
    const [java, python] = await Promise.all([paimonJava.batch([op]), pypaimon.batch([op])]);
    assert.deepEqual(canonicalRows(readResults(java)[0]!.rows), before, 'Paimon Java');
    assert.deepEqual(canonicalRows(readResults(python)[0]!.rows), before, 'pypaimon');
    await waitUntil(async () => (await listKeys(e, `.tributary/compactions/${started.id}/`)).length === 0, 'staged blobs deleted', 30_000);
    // A second request finds nothing to do: no job, no snapshot.
    const again = await startCompaction('full');
    assert.equal(again.phase, 'COMMITTED');
    assert.equal(again.jobs, 0);
    assert.equal(again.snapshotId, null);
    // Unknown ids and other tables' compactions are 404.
    assert.equal((await coordinator.app.inject({ method: 'GET', url: `/v1/tables/shop/other/compactions/${started.id}` })).statusCode, 404);
    assert.equal((await coordinator.app.inject({ method: 'POST', url: '/v1/tables/shop/missing/compactions', payload: {} })).statusCode, 404);
    assert.equal((await coordinator.app.inject({ method: 'POST', url: '/v1/tables/shop/full/compactions', payload: { full: 'yes' } })).statusCode, 400);
    await Promise.all(workers.splice(0).map((w) => stop(w)));
  });

  test('a compaction worker SIGKILLed mid-job: the job re-runs elsewhere, only the accepted files are committed, the cleanup removes the rest', async () => {
    await createTable('killed', 1);
    workers.push(await spawnWorker(e));
    for (const seed of [4, 5]) await sync('killed', seed, 3000);
    await Promise.all(workers.splice(0).map((w) => stop(w)));
    const before = await tributaryRows('killed');
    // Only a slow worker at first: 3,000 rows rewritten in batches of 100 with 50 ms pauses.
    const slow = await spawnWorker(e, { TRIBUTARY_TEST_MERGE_DELAY_MS: '50' });
    const started = await startCompaction('killed');
    const running = await waitUntil(async () => (await attempts(started.id)).find((a) => a.status === 'running' && (a.rows ?? 0) > 0), 'a compaction job mid-rewrite', 60_000);
    await stop(slow, 'SIGKILL');
    workers.push(await spawnWorker(e));
    const done = await ended('killed', started.id);
    assert.equal(done.phase, 'COMMITTED', JSON.stringify(done));
    const all = await attempts(started.id);
    assert.equal(all.find((a) => a.attemptId === running.attemptId)?.status, 'abandoned', JSON.stringify(all));
    const winner = all.filter((a) => a.accepted === true);
    assert.equal(winner.length, 1, JSON.stringify(all));
    assert.notEqual(winner[0]?.attemptId, running.attemptId);
    const live = await files('killed');
    assert.ok(live.length > 0 && live.every((f) => f.path.includes(`/data-${started.id}-job-0-a${winner[0]?.attemptId}-`)), JSON.stringify(live));
    assert.deepEqual(await tributaryRows('killed'), before);
    // The orphan cleanup removes whatever the killed attempt left; the table stays exact.
    const cleanup = await coordinator.app.inject({ method: 'POST', url: '/v1/tables/shop/killed/orphan-cleanups', payload: { olderThanMs: 0, dryRun: false } });
    assert.equal(cleanup.statusCode, 200, cleanup.body);
    const killedMarker = `/data-${started.id}-job-0-a${running.attemptId}-`;
    assert.deepEqual((await listKeys(e, '')).filter((k) => k.includes(killedMarker)), []);
    assert.deepEqual(await tributaryRows('killed'), before);
    await Promise.all(workers.splice(0).map((w) => stop(w)));
  });

  test('the coordinator stopped while a compaction runs: a new coordinator drives it to its COMPACT snapshot', async () => {
    await createTable('resumed', 1);
    workers.push(await spawnWorker(e));
    for (const seed of [10, 11]) await sync('resumed', seed, 2000);
    await Promise.all(workers.splice(0).map((w) => stop(w)));
    const before = await tributaryRows('resumed');
    workers.push(await spawnWorker(e, { TRIBUTARY_TEST_MERGE_DELAY_MS: '100' }));
    const started = await startCompaction('resumed');
    await waitUntil(async () => (await attempts(started.id)).some((a) => a.status === 'running'), 'the compaction job running', 60_000);
    await coordinator.close();
    const redis = new Redis(services.redis);
    const left = await redis.hget(compactionRedisKeys(e.prefix, started.id).record, 'phase');
    redis.disconnect();
    assert.equal(left, 'RUNNING', 'the stopped coordinator left the compaction running');
    coordinator = await inProcessCoordinator(e);
    const done = await ended('resumed', started.id);
    assert.equal(done.phase, 'COMMITTED', JSON.stringify(done));
    assert.equal((await (await openTable(e.store, 'shop', 'resumed')).snapshot(done.snapshotId as number)).commitKind, 'COMPACT');
    assert.deepEqual(await tributaryRows('resumed'), before);
    await Promise.all(workers.splice(0).map((w) => stop(w)));
  });

  test('a sync and a compaction on the same bucket at once: both commit, the table holds the sync; an overwrite makes the compaction give way', async () => {
    await createTable('race', 1);
    workers.push(await spawnWorker(e));
    for (const seed of [6, 7]) await sync('race', seed, 2000);
    await Promise.all(workers.splice(0).map((w) => stop(w)));
    // Only a slow worker takes the compaction job (2,000 merged rows in batches of 100, 2 s apart:
    // about 40 s), so the sync lands while it runs; the sync's shards run on a second worker. (At
    // 800 ms apart, 16 s, a sync on a machine at load average 40 was still running when it ended.)
    workers.push(await spawnWorker(e, { TRIBUTARY_TEST_MERGE_DELAY_MS: '2000' }));
    const compacting = await startCompaction('race');
    await waitUntil(async () => (await attempts(compacting.id)).some((a) => a.status === 'running'), 'the compaction job running', 60_000);
    workers.push(await spawnWorker(e));
    const syncSnapshot = await sync('race', 8, 2000);
    // Not yet committed when the sync was (the shared machine may have let it reach its commit).
    assert.ok(['RUNNING', 'COMMITTING'].includes((await compaction('race', compacting.id)).phase), 'the sync committed while the compaction ran');
    const atSync = canonicalRows((await (await openTable(e.store, 'shop', 'race')).newRead({ snapshotId: syncSnapshot }).toArray()) as OracleRow[]);
    const done = await ended('race', compacting.id);
    assert.equal(done.phase, 'COMMITTED', JSON.stringify(done));
    assert.ok((done.snapshotId as number) > syncSnapshot, 'the compaction committed after the sync');
    assert.deepEqual(await tributaryRows('race'), atSync, 'the sync\'s rows survive the compaction');
    const levels = (await files('race')).map((f) => f.level).sort();
    assert.deepEqual([...new Set(levels)], [0, 5], 'the sync\'s level-0 files beside the compacted run');

    // An overwrite replaces every file while a compaction rewrites them: the compaction gives way.
    // Again only the slow worker takes the compaction job.
    await stop(workers.pop() as ChildProcess);
    const losing = await startCompaction('race');
    await waitUntil(async () => (await attempts(losing.id)).some((a) => a.status === 'running'), 'the second compaction running', 60_000);
    workers.push(await spawnWorker(e));
    const overwritten = await sync('race', 9, 1000, 'overwrite');
    assert.ok(['RUNNING', 'COMMITTING'].includes((await compaction('race', losing.id)).phase), 'the overwrite committed while the compaction ran');
    const gaveWay = await ended('race', losing.id);
    assert.equal(gaveWay.phase, 'CONFLICT', JSON.stringify(gaveWay));
    assert.equal(gaveWay.error?.code, 'COMMIT_CONFLICT');
    const latest = await (await openTable(e.store, 'shop', 'race')).latestSnapshot();
    assert.equal(Number(latest?.id), overwritten, 'nothing committed after the overwrite');
    const atOverwrite = canonicalRows((await (await openTable(e.store, 'shop', 'race')).newRead({ snapshotId: overwritten }).toArray()) as OracleRow[]);
    assert.equal(atOverwrite.length, 1000);
    assert.deepEqual(await tributaryRows('race'), atOverwrite);
    await waitUntil(async () => (await listKeys(e, '')).filter((k) => k.includes(`/data-${losing.id}-`)).length === 0, 'the losing compaction\'s files deleted', 30_000);
    await Promise.all(workers.splice(0).map((w) => stop(w)));
  });

  test('a sync with compactAfter: a compaction by the table\'s rules follows its commit; without the option none does', async () => {
    await createTable('after', 1, { 'num-sorted-run.compaction-trigger': '2' });
    workers.push(await spawnWorker(e));
    const redis = new Redis(services.redis);
    const compactionsOf = async (): Promise<CompactionView[]> => {
      const ids = await redis.zrange(compactionIndexKey(e.prefix), '0', '-1');
      const views = await Promise.all(ids.map(async (id) => JSON.parse((await redis.hget(compactionRedisKeys(e.prefix, id).record, 'view')) ?? 'null') as CompactionView & { table: { table: string } }));
      return views.filter((v) => v.table.table === 'after');
    };
    try {
      const plain = await sync('after', 12, 1000);
      const compacting = await sync('after', 13, 1000, 'append', { compactAfter: true });
      const atSync = canonicalRows((await (await openTable(e.store, 'shop', 'after')).newRead({ snapshotId: compacting }).toArray()) as OracleRow[]);
      const planned = await waitUntil(async () => (await compactionsOf())[0], 'a compaction planned after the sync', 30_000);
      const done = await ended('after', planned.id);
      assert.equal(done.phase, 'COMMITTED', JSON.stringify(done));
      assert.ok(done.jobs === 1 && (done.snapshotId as number) > compacting, JSON.stringify(done));
      assert.equal((await (await openTable(e.store, 'shop', 'after')).snapshot(done.snapshotId as number)).commitKind, 'COMPACT');
      assert.deepEqual(await tributaryRows('after'), atSync);
      // Only the sync with the option planned one (the plain sync's commit ended long before).
      assert.ok(plain < compacting);
      assert.deepEqual((await compactionsOf()).map((v) => v.id), [planned.id]);
      // The option is refused when it is not a boolean.
      const bad = await coordinator.app.inject({ method: 'POST', url: '/v1/syncs', payload: { table: { database: 'shop', table: 'after' }, source: generatorSource(1, 10), options: { compactAfter: 'yes' } } });
      assert.equal(bad.statusCode, 400, bad.body);
    } finally {
      redis.disconnect();
      await Promise.all(workers.splice(0).map((w) => stop(w)));
    }
  });

  test('an Idempotency-Key: requests at once and repeats answer one compaction; the key with another body or table is refused', async () => {
    workers.push(await spawnWorker(e));
    await createTable('idem', 2);
    for (const seed of [11, 12]) await sync('idem', seed, 400);
    const key = `compact-idem-${e.prefix}`;
    const post = (url: string, payload: Record<string, unknown>) => coordinator.app.inject({ method: 'POST', url, payload, headers: { 'idempotency-key': key } });
    const answers = await Promise.all([1, 2, 3].map(() => post('/v1/tables/shop/idem/compactions', { full: true })));
    for (const a of answers) assert.equal(a.statusCode, 202, a.body);
    const ids = new Set(answers.map((a) => a.json<CompactionView>().id));
    assert.equal(ids.size, 1, 'one compaction for the three requests');
    const [id] = ids as Set<string>;
    assert.equal(answers[0]?.headers['location'], `/v1/tables/shop/idem/compactions/${id}`);
    const done = await ended('idem', id as string);
    assert.equal(done.phase, 'COMMITTED', JSON.stringify(done));
    // A repeat once it ended answers the same compaction, and plans nothing.
    const again = await post('/v1/tables/shop/idem/compactions', { full: true });
    assert.equal(again.statusCode, 202, again.body);
    assert.deepEqual([again.json<CompactionView>().id, again.json<CompactionView>().snapshotId], [id, done.snapshotId]);
    const table = await openTable(e.store, 'shop', 'idem');
    const kinds = await Promise.all((await table.snapshots.listIds()).map(async (s) => (await table.snapshot(s)).commitKind));
    assert.deepEqual(kinds, ['APPEND', 'APPEND', 'COMPACT'], 'one COMPACT snapshot');
    const redis = new Redis(services.redis);
    try {
      const ofTable = [];
      for (const c of await redis.zrange(compactionIndexKey(e.prefix), '0', '-1')) {
        const view = JSON.parse((await redis.hget(compactionRedisKeys(e.prefix, c).record, 'view')) ?? '{}') as { table?: { table?: string } };
        if (view.table?.table === 'idem') ofTable.push(c);
      }
      assert.deepEqual(ofTable, [id], 'one compaction recorded for the table');
    } finally {
      redis.disconnect();
    }
    // The key with another body, or for another table, is a reuse.
    const otherBody = await post('/v1/tables/shop/idem/compactions', { full: false });
    assert.equal(otherBody.statusCode, 422, otherBody.body);
    assert.equal(otherBody.json<{ code: string }>().code, 'IDEMPOTENCY_KEY_REUSED');
    await createTable('idem_other', 1);
    const otherTable = await post('/v1/tables/shop/idem_other/compactions', { full: true });
    assert.equal(otherTable.statusCode, 422, otherTable.body);
    // Without the key, a request is a new compaction (nothing to do now).
    const fresh = await startCompaction('idem');
    assert.notEqual(fresh.id, id);
    // A request whose planning fails (no such table) frees its key's planning claim: a repeat plans
    // again and gets the same 404, instead of waiting for the failed planner and a 409.
    const missingKey = `compact-missing-${e.prefix}`;
    for (let i = 0; i < 2; i++) {
      const missing = await coordinator.app.inject({ method: 'POST', url: '/v1/tables/shop/no_such_table/compactions', payload: {}, headers: { 'idempotency-key': missingKey } });
      assert.equal(missing.statusCode, 404, missing.body);
      assert.equal(missing.json<{ code: string }>().code, 'TABLE_NOT_FOUND');
    }
    await Promise.all(workers.splice(0).map((w) => stop(w)));
  });
});
