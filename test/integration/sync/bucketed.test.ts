/**
 * The bucketed layout end to end, with real worker processes, Redis and MinIO:
 *
 * 1. 50 shards into a table partitioned by 30 days with 4 buckets: at most 30 × 4 data files
 *    (nothing here reaches target-file-size), whatever the shard count; Tributary, Paimon Java and
 *    pypaimon read exactly the source rows; the status shows both stages; the runs are gone.
 * 2. A bucket larger than the shards' run budget (TRIBUTARY_RUN_BUFFER_ROWS forces every shard to
 *    spill many sorted runs): merged correctly, the merging worker's peak RSS stays under 512 MB.
 * 3. A worker SIGKILLed in the middle of a bucket's merge: the bucket job re-runs on another
 *    worker, the sync commits exactly the source rows, and only the re-run's files are referenced.
 * 4. A shard job delivered again after the bucket jobs started (added by hand with its valid token):
 *    its attempt was accepted already, so it ends with that attempt's outcome and runs nothing, and
 *    the commit holds only the accepted attempts' rows.
 * 5. An abort while a bucket is being merged: the merge stops, the sync ends ABORTED, and nothing it
 *    staged is left (runs, blobs, the bucket's files).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, afterEach, before, describe, test } from 'node:test';
import type { ChildProcess } from 'node:child_process';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import type { Coordinator } from '@tributary/coordinator';
import { PLAN_HEAD_FIELD, SYNC_QUEUES, SyncPlanHead, encodeVoteToken, shardVoteToken, syncRedisKeys, type ShardAttempt } from '@tributary/protocol';
import { openObjectStore, openTable } from '@tributary/table';
import { canonicalRows, paimonJava, pypaimon, readResults, services, type OracleRow } from '@tributary/testkit';
import { ORDERS_COLUMNS, generatorSource, inProcessCoordinator, listKeys, oneTo, readRows, s3, spawnWorker, stop, syncEnv, waitForPhase, waitUntil } from './harness.ts';

const COLUMNS = [
  { name: 'id', type: 'BIGINT NOT NULL' },
  { name: 'dt', type: 'STRING NOT NULL' },
  { name: 'v', type: 'STRING' },
];
const SHARDS = 50;
const ROWS_PER_SHARD = 120;
const DAYS = 30;
const BUCKETS = 4;

const day = (i: number): string => `2024-01-${String(1 + (i % DAYS)).padStart(2, '0')}`;

interface SyncView {
  phase: string;
  layout: string;
  files: number | null;
  warnings: string[];
  stages: { shards: { total: number | null; accepted: number; rows: number; bytes: number }; buckets: { total: number | null; accepted: number; rows: number; bytes: number } | null };
}

describe('the bucketed layout: one writer per (partition, bucket)', () => {
  const e = syncEnv('bucketed');
  let coordinator: Coordinator;
  const workers: ChildProcess[] = [];

  before(async () => {
    coordinator = await inProcessCoordinator(e);
  });
  // Each test starts its own workers: a worker of an earlier test must not take a later test's jobs.
  afterEach(async () => {
    await Promise.all(workers.splice(0).map((w) => stop(w)));
  });
  after(async () => {
    await coordinator.close();
  });

  async function createTable(name: string, body: Record<string, unknown>): Promise<void> {
    const response = await coordinator.app.inject({ method: 'POST', url: '/v1/tables', payload: { database: 'shop', name, ...body } });
    assert.equal(response.statusCode, 201, response.body);
  }

  async function startSync(table: string, source: Record<string, unknown>, options: Record<string, unknown> = {}): Promise<string> {
    const response = await coordinator.app.inject({ method: 'POST', url: '/v1/syncs', payload: { table: { database: 'shop', table }, source, options } });
    assert.equal(response.statusCode, 202, response.body);
    return response.json<{ id: string }>().id;
  }

  async function view(id: string): Promise<SyncView> {
    const response = await coordinator.app.inject({ method: 'GET', url: `/v1/syncs/${id}` });
    assert.equal(response.statusCode, 200, response.body);
    return response.json<SyncView>();
  }

  async function committed(id: string, timeoutMs = 180_000): Promise<void> {
    const done = await waitForPhase(() => coordinator.syncs.get(id), ['COMMITTED', 'ABORTED'], timeoutMs);
    assert.equal(done.state.phase, 'COMMITTED', JSON.stringify(done.state));
  }

  async function referencedFiles(table: string): Promise<string[]> {
    const t = await openTable(e.store, 'shop', table);
    return (await t.newRead().plan()).map((entry) => entry.file.fileName);
  }

  test('50 shards, 30 day partitions, 4 buckets: at most 120 files; every reader sees exactly the source rows', async () => {
    // Shards and buckets are small and wait on storage: four at a time per worker.
    const busy = { TRIBUTARY_WORKER_CONCURRENCY: '4' };
    workers.push(await spawnWorker(e, busy), await spawnWorker(e, busy));
    const store = openObjectStore(e.sourceRoot, s3);
    const expected: OracleRow[] = [];
    for (let shard = 0; shard < SHARDS; shard++) {
      const rows = Array.from({ length: ROWS_PER_SHARD }, (_, i) => ({ id: shard * 1000 + i, dt: day(shard + i), v: `s${shard}-r${i}` }));
      for (const r of rows) expected.push([BigInt(r.id), r.dt, r.v]);
      await store.put(`days/part-${String(shard).padStart(2, '0')}.ndjson`, new TextEncoder().encode(rows.map((r) => JSON.stringify(r)).join('\n') + '\n'));
    }
    await createTable('days', { columns: COLUMNS, partitionKeys: ['dt'], primaryKeys: ['id', 'dt'], bucket: BUCKETS });
    const uris = Array.from({ length: SHARDS }, (_, s) => `${e.sourceRoot}/days/part-${String(s).padStart(2, '0')}.ndjson`);
    const id = await startSync('days', { kind: 'files', format: 'ndjson', uris, filesPerShard: 1 });
    await committed(id);

    const shown = await view(id);
    assert.equal(shown.layout, 'bucketed', 'the default for a primary-key table');
    const files = await referencedFiles('days');
    assert.ok(files.length <= DAYS * BUCKETS, `${files.length} files for ${DAYS} partitions × ${BUCKETS} buckets`);
    assert.equal(shown.files, files.length, 'the status reports the files the load added');
    assert.deepEqual(shown.warnings, []);
    assert.ok(files.every((name) => /-bucket-\d+-a\d+-/.test(name)), `only bucket jobs' files: ${files.slice(0, 3).join(', ')}`);
    assert.deepEqual(shown.stages.shards, { total: SHARDS, accepted: SHARDS, rows: SHARDS * ROWS_PER_SHARD, bytes: shown.stages.shards.bytes });
    assert.ok(shown.stages.buckets !== null);
    assert.equal(shown.stages.buckets.total, files.length, 'one bucket job per (partition, bucket) written');
    assert.equal(shown.stages.buckets.accepted, files.length);
    assert.equal(shown.stages.buckets.rows, SHARDS * ROWS_PER_SHARD);
    assert.ok(shown.stages.buckets.bytes > 0);
    // The coordinator deletes the runs right after recording COMMITTED.
    await waitUntil(async () => (await listKeys(e, `.tributary/syncs/${id}/runs/`)).length === 0, 'the sorted runs deleted once committed', 120_000);

    const want = canonicalRows(expected);
    const op = { op: 'read' as const, warehouse: e.warehouse, database: 'shop', table: 'days' };
    const [java, python] = await Promise.all([paimonJava.batch([op]), pypaimon.batch([op])]);
    assert.deepStrictEqual(canonicalRows((await readRows(e, 'shop', 'days')) as OracleRow[]), want, 'Tributary');
    assert.deepStrictEqual(canonicalRows(readResults(java)[0]!.rows), want, 'Paimon Java');
    assert.deepStrictEqual(canonicalRows(readResults(python)[0]!.rows), want, 'pypaimon');
  });

  test('a bucket far larger than the run budget: many spilled runs merged exactly, bounded RSS', async () => {
    // 4 shards × 20,000 rows (batches of 250) into one bucket; each shard spills a run every 500 rows: 160 runs.
    const worker = await spawnWorker(e, { TRIBUTARY_RUN_BUFFER_ROWS: '500' });
    workers.push(worker);
    await createTable('spill', { columns: ORDERS_COLUMNS, primaryKeys: ['order_id'], bucket: 1 });
    const id = await startSync('spill', generatorSource(4, 20_000, { batchRows: 250 }));
    await committed(id);
    const runs = await runsOf(id);
    assert.ok(runs >= 160, `every shard spilled its runs (${runs} runs in the bucket plan)`);
    const ids = (await readRows(e, 'shop', 'spill')).map((r) => r[0] as bigint).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    assert.deepEqual(ids, oneTo(80_000), 'each source row exactly once');
    const files = await referencedFiles('spill');
    assert.equal(files.length, 1, 'one bucket, one file');
    const peakKb = Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${worker.pid}/status`, 'utf8'))?.[1]);
    assert.ok(peakKb > 0 && peakKb < 512 * 1024, `worker peak RSS ${peakKb} kB`);
  });

  /** The runs the persisted bucket plan lists (every bucket of the sync). */
  async function runsOf(syncId: string): Promise<number> {
    const redis = new Redis(services.redis);
    try {
      const plan = await redis.hgetall(syncRedisKeys(e.prefix, syncId).plan);
      return Object.entries(plan)
        .filter(([field]) => field.startsWith('bucket:'))
        .reduce((n, [, json]) => n + (JSON.parse(json) as { runs: unknown[] }).runs.length, 0);
    } finally {
      redis.disconnect();
    }
  }

  test('a worker killed mid-merge: the bucket job re-runs elsewhere, only its files are committed', async () => {
    const slow = await spawnWorker(e, { TRIBUTARY_TEST_MERGE_DELAY_MS: '50' });
    workers.push(slow);
    await createTable('killed', { columns: ORDERS_COLUMNS, primaryKeys: ['order_id'], bucket: 1 });
    const id = await startSync('killed', generatorSource(2, 3000));
    // 6,000 rows merged in batches of 100 with 50 ms pauses: about 3 s in the merge.
    const running = await waitUntil(async () => (await coordinator.store.bucketAttempts(id)).find((a) => a.status === 'running' && (a.rows ?? 0) > 0), 'a bucket mid-merge', 60_000);
    await stop(slow, 'SIGKILL');
    workers.push(await spawnWorker(e));
    await committed(id);
    const attempts = await coordinator.store.bucketAttempts(id);
    const dead = attempts.find((a) => a.attemptId === running.attemptId);
    assert.equal(dead?.status, 'abandoned', JSON.stringify(attempts));
    const winner = attempts.filter((a) => a.accepted === true);
    assert.equal(winner.length, 1, JSON.stringify(attempts));
    assert.notEqual(winner[0]?.attemptId, running.attemptId);
    const files = await referencedFiles('killed');
    assert.ok(files.length > 0 && files.every((name) => name.includes(`-bucket-0-a${winner[0]?.attemptId}-`)), files.join(', '));
    const ids = (await readRows(e, 'shop', 'killed')).map((r) => r[0] as bigint).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    assert.deepEqual(ids, oneTo(6000));
  });

  test('a shard job delivered again after the bucket jobs started runs nothing; the commit holds the accepted attempts only', async () => {
    const slow = await spawnWorker(e, { TRIBUTARY_TEST_MERGE_DELAY_MS: '50' });
    workers.push(slow);
    await createTable('late', { columns: ORDERS_COLUMNS, primaryKeys: ['order_id'], bucket: 1 });
    const id = await startSync('late', generatorSource(2, 2000));
    await waitUntil(async () => (await coordinator.store.bucketAttempts(id)).some((a) => a.status === 'running'), 'a bucket job running', 60_000);
    // The shard's job again, as BullMQ would re-deliver it, with its real token, under a new job id:
    // its attempt was accepted before the bucket stage began, so it ends at once with that attempt's
    // outcome, numbering and running no attempt (an execution that was already running when the
    // vote came is refused by the ledger instead: worker-stalls.test.ts).
    const redis = new Redis(services.redis);
    const head = SyncPlanHead.parse(JSON.parse((await redis.hget(syncRedisKeys(e.prefix, id).plan, PLAN_HEAD_FIELD)) ?? '{}'));
    redis.disconnect();
    const queue = new Queue(SYNC_QUEUES.writeShard, { connection: services.redis, prefix: e.prefix });
    try {
      const token = encodeVoteToken(shardVoteToken(e.clusterSecret, id, 'shard-00000', head.fingerprint));
      await queue.add('write-shard', { syncId: id, shardId: 'shard-00000', token }, { jobId: `again-${id}`, attempts: 1 });
      const state = await waitUntil(async () => {
        const s = await (await queue.getJob(`again-${id}`))?.getState();
        return (s === 'completed' || s === 'failed') && s;
      }, 'the job delivered again ended', 60_000);
      const again = await queue.getJob(`again-${id}`);
      assert.equal(state, 'completed', again?.failedReason);
      assert.equal((again?.returnvalue as { attemptId?: string } | undefined)?.attemptId, '1', 'the accepted attempt\'s outcome');
    } finally {
      await queue.close();
    }
    await committed(id);
    const shardAttempts = (await coordinator.store.attempts(id)).filter((a: ShardAttempt) => a.shardId === 'shard-00000');
    assert.deepEqual(shardAttempts.map((a) => a.attemptId), ['1'], 'no attempt numbered by the job delivered again');
    const ids = (await readRows(e, 'shop', 'late')).map((r) => r[0] as bigint).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    assert.deepEqual(ids, oneTo(4000));
    const accepted = (await coordinator.syncs.get(id)).state;
    assert.ok(accepted.phase === 'COMMITTED' && accepted.accepted['shard-00000']?.attemptId === '1', JSON.stringify(accepted));
  });

  test('an abort during MERGING stops the merge and leaves nothing staged', async () => {
    workers.push(await spawnWorker(e, { TRIBUTARY_TEST_MERGE_DELAY_MS: '100' }));
    await createTable('merge_aborted', { columns: ORDERS_COLUMNS, primaryKeys: ['order_id'], bucket: 1 });
    const id = await startSync('merge_aborted', generatorSource(2, 3000));
    await waitUntil(async () => (await coordinator.store.bucketAttempts(id)).find((a) => a.status === 'running' && (a.rows ?? 0) > 0), 'a bucket mid-merge', 60_000);
    const response = await coordinator.app.inject({ method: 'POST', url: `/v1/syncs/${id}/abort`, payload: { reason: 'stop the merge' } });
    assert.equal(response.statusCode, 202, response.body);
    const done = await waitForPhase(() => coordinator.syncs.get(id), ['COMMITTED', 'ABORTED'], 30_000);
    assert.ok(done.state.phase === 'ABORTED' && done.state.stagedDeleted, JSON.stringify(done.state));
    await waitUntil(async () => (await coordinator.store.bucketAttempts(id)).every((a) => a.status !== 'running'), 'the bucket attempt ended');
    const left = (await listKeys(e, `.tributary/syncs/${id}/`)).filter((k) => !k.endsWith('/outcome.json'));
    assert.deepEqual(left, [], 'no run and no blob left');
    assert.deepEqual((await listKeys(e, 'shop.db/merge_aborted/')).filter((k) => k.includes(`/data-${id}-`)), [], 'no data file of the sync left');
    assert.equal(await (await openTable(e.store, 'shop', 'merge_aborted')).latestSnapshot(), null);
  });
});
