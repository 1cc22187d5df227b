/**
 * Only the coordinator's planned jobs can vote. Two attacks that once worked:
 *
 * 1. A job added to the shard queue by hand (as the bull-board dashboard can), for a live sync's
 *    shard, with a 3-row CSV as its source, ran first and won the shard's vote: the sync committed
 *    3,003 rows instead of 6,000. Now the worker takes the shard's source from the persisted plan,
 *    refuses a job without the coordinator's token or for a shard the plan does not have, and the
 *    sync commits exactly the planned rows.
 * 2. The accepted blob rewritten after the vote, with a recomputed CRC and one file's row count +1,
 *    was committed. Now the coordinator compares the blob with the accepted vote: the sync aborts
 *    with a typed reason and the table has no snapshot.
 * 4. A bucketed load's sorted run rewritten in the staging area with its length and CRC32Cs kept
 *    (four bytes chosen) was merged and committed with another amount. The blob now names each run
 *    segment's SHA-256: the bucket job refuses it and the sync aborts.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { Queue, type Job } from 'bullmq';
import { Redis } from 'ioredis';
import { SyncStore, type Coordinator } from '@tributary/coordinator';
import { SYNC_QUEUES, decodeBlob, encodeBlob, stagedBlobKey, syncRedisKeys } from '@tributary/protocol';
import { openObjectStore } from '@tributary/table';
import { generatorRow } from '@tributary/sources';
import { matchCrc32c, paimonJava, readResults, services } from '@tributary/testkit';
import {
  ORDERS_COLUMNS,
  createOrdersTable,
  generatorSource,
  inProcessCoordinator,
  listKeys,
  oneTo,
  pypaimonIds,
  readRows,
  s3,
  spawnCoordinator,
  spawnWorker,
  stop,
  syncEnv,
  waitForPhase,
  type SyncEnv,
} from './harness.ts';

const redis = new Redis({ ...services.redis, maxRetriesPerRequest: null });
after(() => redis.quit());

async function startSync(c: Coordinator, source: unknown): Promise<string> {
  const response = await c.app.inject({ method: 'POST', url: '/v1/syncs', payload: { table: { database: 'shop', table: 'orders' }, source } });
  assert.equal(response.statusCode, 202, response.body);
  return response.json<{ id: string }>().id;
}

/** A job once it exists (the flow is enqueued right after the plan is persisted). */
async function jobOnceAdded(queue: Queue, id: string): Promise<Job> {
  for (let i = 0; i < 200; i++) {
    const job = await queue.getJob(id);
    if (job !== undefined) return job;
    await sleep(50);
  }
  throw new Error(`job ${id} was never added`);
}

async function finished(queue: Queue, id: string, timeoutMs = 60_000): Promise<{ state: string; job: Job }> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const job = await queue.getJob(id);
    const state = job === undefined ? 'missing' : await job.getState();
    if (job !== undefined && (state === 'completed' || state === 'failed')) return { state, job };
    if (Date.now() > deadline) throw new Error(`job ${id} still ${state} after ${timeoutMs} ms`);
    await sleep(100);
  }
}

/** Rewrites a shard's accepted blob as an attacker with write access to the staging area would: one file's row count +1, resealed. */
async function rewriteAcceptedBlob(e: SyncEnv, syncId: string, shardId: string): Promise<void> {
  const attempt = await redis.hget(syncRedisKeys(e.prefix, syncId).accepted, shardId);
  assert.ok(attempt !== null);
  const key = stagedBlobKey(syncId, shardId, attempt);
  const blob = decodeBlob(await e.store.get(key), { syncId, shardId, tablePath: 'shop.db/orders', schemaId: 0n });
  const file = blob.messages[0]!.dataIncrement.newFiles[0]!;
  const messages = blob.messages.map((m, i) =>
    i > 0 ? m : { ...m, dataIncrement: { ...m.dataIncrement, newFiles: [{ ...file, rowCount: file.rowCount + 1n }, ...m.dataIncrement.newFiles.slice(1)] } },
  );
  await e.store.put(key, encodeBlob({ ...blob.header, rowCount: blob.header.rowCount + 1n }, messages));
}

async function orderIds(e: SyncEnv): Promise<bigint[]> {
  return (await readRows(e, 'shop', 'orders')).map((r) => r[0] as bigint).sort((a, b) => Number(a - b));
}

describe('attack 1: a job added to the shard queue by hand', () => {
  const e = syncEnv('forged');
  const csvRoot = `s3://${services.s3.bucket}/${e.prefix}-src`;
  const csvUri = `${csvRoot}/forged.csv`;
  let coordinator: Coordinator;
  let queue: Queue;
  let worker: ChildProcess | undefined;

  before(async () => {
    const lines = ['order_id,customer_id,store_id,amount,status,order_date,created_at'];
    for (const id of [900_001, 900_002, 900_003]) lines.push(`${id},1,1,1.00,NEW,2024-01-01,2024-01-01T00:00:00.000Z`);
    await openObjectStore(csvRoot, s3).put('forged.csv', new TextEncoder().encode(`${lines.join('\n')}\n`));
    coordinator = await inProcessCoordinator(e);
    queue = new Queue(SYNC_QUEUES.writeShard, { connection: { ...services.redis, maxRetriesPerRequest: null }, prefix: e.prefix });
    await createOrdersTable(coordinator, 'shop', 'orders');
  });
  after(async () => {
    if (worker !== undefined) await stop(worker);
    await queue.close();
    await coordinator.close();
  });

  test('cannot win a shard\'s vote: the sync commits exactly the planned 6,000 rows', async () => {
    // No worker runs yet, so the real shard jobs wait in the queue; the forged ones are added at the
    // head (LIFO) and the one worker (concurrency 1) takes them first: without the fix, the copy
    // with the CSV source won shard-00000's vote.
    const id = await startSync(coordinator, generatorSource(2, 3000));
    const real = (await jobOnceAdded(queue, `shard-${id}-shard-00000`)).data as Record<string, unknown>;
    const forgedSource = { source: { kind: 'files', format: 'csv', uris: [csvUri], filesPerShard: 1 }, shard: { files: [csvUri] } };
    const forged = {
      // The real payload (its token included) with another source: the source is taken from the plan.
      copy: { ...real, ...forgedSource },
      // Another token: refused before any work.
      token: { ...real, ...forgedSource, token: Buffer.alloc(32, 7).toString('base64url') },
      // A shard the plan does not have (the real token of shard-00000 does not cover it).
      unplanned: { ...real, ...forgedSource, shardId: 'shard-00007' },
    };
    for (const [name, data] of Object.entries(forged)) {
      await queue.add('write-shard', data, { jobId: `forged-${name}`, lifo: true, attempts: 1 });
    }
    worker = await spawnWorker(e);

    const done = await waitForPhase(() => coordinator.syncs.get(id), ['COMMITTED', 'ABORTED'], 120_000);
    assert.equal(done.state.phase, 'COMMITTED', JSON.stringify(done.state));
    const ids = await orderIds(e);
    assert.equal(ids.length, 6000, `${ids.length} rows committed`);
    assert.deepEqual(ids, oneTo(6000), 'the planned rows, none of the CSV\'s');
    // The copy ran first and won shard-00000's vote, but with the planned source.
    const copy = await finished(queue, 'forged-copy');
    assert.equal(copy.state, 'completed');
    assert.equal((copy.job.returnvalue as { accepted: boolean }).accepted, true);
    const bad = await finished(queue, 'forged-token');
    assert.equal(bad.state, 'failed');
    assert.match(bad.job.failedReason, /^SHARD_TOKEN_INVALID: /);
    const unplanned = await finished(queue, 'forged-unplanned');
    assert.equal(unplanned.state, 'failed');
    assert.match(unplanned.job.failedReason, /^SHARD_NOT_PLANNED: /);
    assert.deepEqual(await pypaimonIds(e, 'shop', 'orders'), oneTo(6000));
    const attempts = await coordinator.store.attempts(id);
    assert.ok(attempts.every((a) => a.shardId === 'shard-00000' || a.shardId === 'shard-00001'), 'refused jobs report no attempt');
  });
});

/**
 * For the attacks that change something while no coordinator runs: the sync's environment, the
 * shard queue as seen from outside, and the workers and coordinator a test starts, closed after it.
 */
function restartFixture(name: string): { readonly e: SyncEnv; readonly workers: ChildProcess[]; queue: Queue; coordinator?: Coordinator } {
  const f: { e: SyncEnv; workers: ChildProcess[]; queue: Queue; coordinator?: Coordinator } = { e: syncEnv(name), workers: [], queue: undefined as unknown as Queue };
  before(() => {
    f.queue = new Queue(SYNC_QUEUES.writeShard, { connection: { ...services.redis, maxRetriesPerRequest: null }, prefix: f.e.prefix });
  });
  after(async () => {
    await Promise.all(f.workers.map((w) => stop(w)));
    await f.queue.close();
    await f.coordinator?.close();
  });
  return f;
}

describe('attack 2: the accepted blob rewritten after the vote, with a valid checksum', () => {
  const f = restartFixture('reseal');

  test('aborts with a typed reason; the table gets no snapshot and the staged files go', async () => {
    const first = await inProcessCoordinator(f.e);
    await createOrdersTable(first, 'shop', 'orders');
    const id = await startSync(first, generatorSource(2, 3000));
    // The coordinator goes away while the shards prepare, so that nothing has read a blob yet when
    // the attacker rewrites it; the next coordinator resumes the sync and reads every blob.
    await first.close();
    f.workers.push(await spawnWorker(f.e));
    for (const shard of ['shard-00000', 'shard-00001']) assert.equal((await finished(f.queue, `shard-${id}-${shard}`)).state, 'completed');

    await rewriteAcceptedBlob(f.e, id, 'shard-00000');

    f.coordinator = await inProcessCoordinator(f.e);
    const done = await waitForPhase(() => f.coordinator!.syncs.get(id), ['COMMITTED', 'ABORTED'], 60_000);
    assert.ok(done.state.phase === 'ABORTED', `${done.state.phase}: the rewritten blob was committed`);
    assert.equal(done.state.reason.code, 'SYNC_VOTE_MISMATCH');
    assert.equal(done.state.reason.context.shard, 'shard-00000');
    const table = await f.coordinator.tables.describeTable(f.e.warehouse, { database: 'shop', table: 'orders' });
    assert.equal(table?.latestSnapshotId, null, 'nothing visible');
    assert.deepEqual((await listKeys(f.e, `.tributary/syncs/${id}/`)).filter((k) => k.endsWith('.blob')), []);
    assert.deepEqual((await listKeys(f.e, 'shop.db/orders/')).filter((k) => k.includes(`/data-${id}-`)), []);
  });
});

describe('attack 3: the sync record changed after planning (append turned into overwrite)', () => {
  const f = restartFixture('remode');

  test('every blob fails its token, the sync aborts, the earlier rows stay', async () => {
    const first = await inProcessCoordinator(f.e);
    await createOrdersTable(first, 'shop', 'orders');
    const worker = await spawnWorker(f.e);
    f.workers.push(worker);
    const earlier = await startSync(first, generatorSource(1, 500));
    assert.equal((await waitForPhase(() => first.syncs.get(earlier), ['COMMITTED', 'ABORTED'], 60_000)).state.phase, 'COMMITTED');
    // No worker runs the next sync's shard while its first coordinator lives: that coordinator
    // would commit the sync (a close finishes the commits in flight) before the record is changed.
    await stop(worker);
    const id = await startSync(first, generatorSource(1, 200, { seed: 7 }));
    await first.close();
    f.workers.push(await spawnWorker(f.e));
    assert.equal((await finished(f.queue, `shard-${id}-shard-00000`)).state, 'completed');
    assert.equal((await new SyncStore(redis, f.e.prefix).require(id)).state.phase, 'PREPARING', 'nothing has committed it yet');

    // What only direct Redis access allows: the record's mode rewritten while no coordinator runs.
    const key = syncRedisKeys(f.e.prefix, id).record;
    const json = await redis.hget(key, 'json');
    assert.ok(json !== null);
    const record = JSON.parse(json) as { plan: { mode: string } };
    assert.equal(record.plan.mode, 'append');
    record.plan.mode = 'overwrite';
    await redis.hset(key, 'json', JSON.stringify(record));

    f.coordinator = await inProcessCoordinator(f.e);
    const done = await waitForPhase(() => f.coordinator!.syncs.get(id), ['COMMITTED', 'ABORTED'], 60_000);
    assert.equal(done.state.phase, 'ABORTED', 'a commit of the changed plan would have replaced the table');
    const table = await f.coordinator.tables.describeTable(f.e.warehouse, { database: 'shop', table: 'orders' });
    assert.equal(table?.rowCount, 500, 'the earlier sync\'s rows are all there');
  });
});

describe('attack 2 after the commit started: the blob rewritten while the coordinator was down in COMMITTING', () => {
  const e = syncEnv('reseal-commit');
  const store = new SyncStore(redis, e.prefix);
  const processes: ChildProcess[] = [];
  let port = 19_000 + Math.floor(Math.random() * 500) * 2;

  after(async () => {
    await Promise.all(processes.map((p) => stop(p)));
  });

  async function post(path: string, body: unknown): Promise<{ status: number; json: Record<string, unknown> }> {
    const response = await fetch(`http://127.0.0.1:${port}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    return { status: response.status, json: (await response.json()) as Record<string, unknown> };
  }

  test('the restarted coordinator re-reads the blobs, refuses the changed one and publishes nothing', async () => {
    processes.push(await spawnWorker(e));
    const doomed = await spawnCoordinator(e, port, { TRIBUTARY_FAULT_KILL_AT: 'before-publish' });
    processes.push(doomed);
    const died = once(doomed, 'exit');
    assert.equal((await post('/v1/tables', { database: 'shop', name: 'orders', columns: ORDERS_COLUMNS })).status, 201);
    const started = await post('/v1/syncs', { table: { database: 'shop', table: 'orders' }, source: generatorSource(2, 3000) });
    assert.equal(started.status, 202, JSON.stringify(started.json));
    const id = String(started.json.id);
    await died;
    assert.equal((await store.require(id)).state.phase, 'COMMITTING');

    await rewriteAcceptedBlob(e, id, 'shard-00001');
    port += 1;
    processes.push(await spawnCoordinator(e, port));
    const done = await waitForPhase(() => store.require(id), ['COMMITTED', 'ABORTED'], 60_000);
    assert.ok(done.state.phase === 'ABORTED', `${done.state.phase}: the rewritten blob was committed`);
    assert.equal(done.state.reason.code, 'SYNC_VOTE_MISMATCH');
    assert.equal(done.state.reason.context.shard, 'shard-00001');
    assert.equal(done.state.stagedDeleted, false, 'from COMMITTING on nothing is deleted');
    const table = await fetch(`http://127.0.0.1:${port}/v1/tables/shop/orders`).then((r) => r.json() as Promise<{ latestSnapshotId: number | null }>);
    assert.equal(table.latestSnapshotId, null, 'nothing visible');
  });
});

describe('the cluster secret', () => {
  test('a worker or a coordinator without it, or with a short one, does not start, and says why without the value', async () => {
    const e = syncEnv('nosecret');
    await assert.rejects(spawnWorker(e, { TRIBUTARY_CLUSTER_SECRET: '' }), /exited with 1: worker: CLUSTER_SECRET_INVALID: no cluster secret/);
    await assert.rejects(
      spawnCoordinator(e, 0, { TRIBUTARY_CLUSTER_SECRET: 'too-short-to-sign' }),
      (error: Error) => /exited with 2: coordinator: CLUSTER_SECRET_INVALID/.test(error.message) && !error.message.includes('too-short-to-sign'),
    );
  });
});

describe('attack 4: a bucketed load\'s sorted run rewritten after the vote, keeping its length and every CRC32C', () => {
  const f = restartFixture('rerun');

  test('the bucket job refuses it by its SHA-256; the sync aborts and nothing is visible', async () => {
    const first = await inProcessCoordinator(f.e);
    await createOrdersTable(first, 'shop', 'orders', { primaryKeys: ['order_id'], bucket: 1 });
    const id = await startSync(first, generatorSource(1, 50, { seed: 7 }));
    // As in attack 2: no coordinator runs while the shard writes its run, so no bucket job can
    // have merged it before the attacker rewrites it.
    await first.close();
    f.workers.push(await spawnWorker(f.e));
    assert.equal((await finished(f.queue, `shard-${id}-shard-00000`)).state, 'completed');

    const [key, ...others] = (await listKeys(f.e, `.tributary/syncs/${id}/runs/`)).filter((k) => k.endsWith('.run'));
    assert.ok(key !== undefined && others.length === 0, 'one spill: one run object');
    const bytes = await f.e.store.get(key);
    // Its one segment: header (8), the block's record (16: tag, rows, body length, CRC32C), the body.
    const body = bytes.subarray(24, 24 + new DataView(bytes.buffer, bytes.byteOffset).getUint32(16, true));
    const amountAt = (orderId: number): number => {
      const cents = Math.round(Number(generatorRow(7, orderId)[3]) * 100);
      const le = new Uint8Array(new BigInt64Array([BigInt(cents)]).buffer);
      const at = Buffer.from(body).indexOf(le);
      assert.ok(at >= 0 && Buffer.from(body).indexOf(le, at + 1) < 0, `order ${orderId}'s amount is in the run once`);
      return at;
    };
    const forged = Uint8Array.from(body);
    forged[amountAt(1) + 2] = (forged[amountAt(1) + 2] as number) ^ 0x01; // order 1's amount + 655.36
    matchCrc32c(body, forged, amountAt(2)); // order 2's amount's low four bytes keep every CRC32C
    const altered = Uint8Array.from(bytes);
    altered.set(forged, 24);
    await f.e.store.put(key, altered);

    f.coordinator = await inProcessCoordinator(f.e);
    const done = await waitForPhase(() => f.coordinator!.syncs.get(id), ['COMMITTED', 'ABORTED'], 90_000);
    assert.ok(done.state.phase === 'ABORTED', `${done.state.phase}: the rewritten run was committed`);
    assert.equal(done.state.reason.code, 'RUN_CORRUPT');
    const table = await f.coordinator.tables.describeTable(f.e.warehouse, { database: 'shop', table: 'orders' });
    assert.equal(table?.latestSnapshotId, null, 'nothing visible');
  });
});

/**
 * 5. Redis write alone: the workers' copy of the plan (`:plan`) rewritten while the sync prepares,
 *    its stored fingerprint kept. The worker trusted that stored fingerprint, so a head naming
 *    another source (20 planned rows → 10,000 of another seed), a shard spec naming another part,
 *    or a bucket entry without one shard's runs was loaded and committed. Now every job recomputes
 *    the fingerprint from the plan it reads, and each entry carries the coordinator's seal: the
 *    job is refused, the sync aborts with SYNC_PLAN_ALTERED and the table is unchanged.
 */
type Fixture = ReturnType<typeof restartFixture>;

async function rewritePlanField(e: SyncEnv, id: string, field: string, change: (value: Record<string, unknown>) => void): Promise<void> {
  const key = syncRedisKeys(e.prefix, id).plan;
  const json = await redis.hget(key, field);
  assert.ok(json !== null, `${field} is in the plan`);
  const value = JSON.parse(json) as Record<string, unknown>;
  change(value);
  await redis.hset(key, field, JSON.stringify(value));
}

/** A coordinator with one committed sync of 500 rows in shop.orders and no worker running; the table's snapshot id. */
async function withEarlierRows(f: Fixture, table: Record<string, unknown> = {}): Promise<number | null | undefined> {
  f.coordinator = await inProcessCoordinator(f.e);
  await createOrdersTable(f.coordinator, 'shop', 'orders', table);
  const worker = await spawnWorker(f.e);
  const earlier = await startSync(f.coordinator, generatorSource(1, 500));
  assert.equal((await waitForPhase(() => f.coordinator!.syncs.get(earlier), ['COMMITTED', 'ABORTED'], 60_000)).state.phase, 'COMMITTED');
  await stop(worker);
  return (await f.coordinator.tables.describeTable(f.e.warehouse, { database: 'shop', table: 'orders' }))?.latestSnapshotId;
}

/** The sync aborted for its altered plan, and the table is as before, by Tributary's reader and Paimon Java. */
async function refused(f: Fixture, id: string, field: string, snapshotId: number | null | undefined): Promise<void> {
  const done = await waitForPhase(() => f.coordinator!.syncs.get(id), ['COMMITTED', 'ABORTED'], 90_000);
  assert.ok(done.state.phase === 'ABORTED', `${done.state.phase}: the rewritten plan was committed (${JSON.stringify(done.state)})`);
  assert.equal(done.state.reason.code, 'SYNC_PLAN_ALTERED', JSON.stringify(done.state.reason));
  assert.equal(done.state.reason.context.field, field);
  const table = await f.coordinator!.tables.describeTable(f.e.warehouse, { database: 'shop', table: 'orders' });
  assert.equal(table?.latestSnapshotId, snapshotId, 'no new snapshot');
  assert.deepEqual(await orderIds(f.e), oneTo(500), "Tributary's reader: the earlier rows only");
  const [java] = readResults(await paimonJava.batch([{ op: 'read', warehouse: f.e.warehouse, database: 'shop', table: 'orders' }]));
  assert.deepEqual(java!.rows.map((r) => BigInt(r[0] as number | bigint)).sort((a, b) => Number(a - b)), oneTo(500), 'Paimon Java: the earlier rows only');
}

/**
 * 5. Redis write alone: the workers' copy of the plan (`:plan`) rewritten while the sync prepares,
 *    its stored fingerprint kept. The worker trusted that stored fingerprint, so a head naming
 *    another source (20 planned rows, 10,000 of another seed loaded), a shard spec naming another
 *    part, or a bucket entry without one shard's runs was loaded and committed. Now every job
 *    recomputes the fingerprint from the plan it reads, and each entry carries the coordinator's
 *    seal: the job is refused, the sync aborts with SYNC_PLAN_ALTERED and the table is unchanged.
 */
describe('attack 5a: the plan head\'s source rewritten in Redis (20 rows planned, 10,000 of another seed)', () => {
  const f = restartFixture('replan-head');

  test('the shards refuse it; the sync aborts with a typed reason and nothing is committed', async () => {
    const snapshotId = await withEarlierRows(f);
    const id = await startSync(f.coordinator!, generatorSource(2, 10, { seed: 1 }));
    await jobOnceAdded(f.queue, `shard-${id}-shard-00001`);
    await rewritePlanField(f.e, id, 'head', (head) => {
      const source = head.source as Record<string, unknown>;
      source.rowsPerShard = 5000;
      source.seed = 999;
    });
    f.workers.push(await spawnWorker(f.e));
    await refused(f, id, 'head', snapshotId);
  });
});

describe('attack 5b: one shard\'s spec rewritten in Redis (shard 1 pointed at shard 0\'s rows)', () => {
  const f = restartFixture('replan-shard');

  test('the shard refuses it; the sync aborts with a typed reason and nothing is committed', async () => {
    const snapshotId = await withEarlierRows(f);
    const id = await startSync(f.coordinator!, generatorSource(2, 10));
    await jobOnceAdded(f.queue, `shard-${id}-shard-00001`);
    await rewritePlanField(f.e, id, 'shard:shard-00001', (entry) => {
      (entry.spec as Record<string, unknown>).index = 0;
    });
    f.workers.push(await spawnWorker(f.e));
    await refused(f, id, 'shard:shard-00001', snapshotId);
  });
});

describe('attack 5c: a bucket entry rewritten in Redis (bucketed layout, one shard\'s runs left out)', () => {
  const f = restartFixture('replan-bucket');

  test('the bucket job refuses it; the sync aborts with a typed reason and nothing is committed', async () => {
    const snapshotId = await withEarlierRows(f, { primaryKeys: ['order_id'], bucket: 1 });
    const id = await startSync(f.coordinator!, generatorSource(2, 10, { seed: 3 }));
    // The shards run while no coordinator does; the next one writes the bucket plan and enqueues
    // the bucket jobs while no worker runs; the attacker rewrites the plan in between.
    await f.coordinator!.close();
    const worker = await spawnWorker(f.e);
    for (const shard of ['shard-00000', 'shard-00001']) assert.equal((await finished(f.queue, `shard-${id}-${shard}`)).state, 'completed');
    await stop(worker);
    f.coordinator = await inProcessCoordinator(f.e);
    assert.equal((await waitForPhase(() => f.coordinator!.syncs.get(id), ['MERGING', 'ABORTED', 'COMMITTED'], 60_000)).state.phase, 'MERGING');
    await rewritePlanField(f.e, id, 'bucket:bucket-0', (entry) => {
      const runs = entry.runs as { slot: number }[];
      assert.ok(runs.some((r) => r.slot === 1) && runs.some((r) => r.slot === 0), 'both shards have runs in the bucket');
      entry.runs = runs.filter((r) => r.slot === 0);
    });
    f.workers.push(await spawnWorker(f.e));
    await refused(f, id, 'bucket:bucket-0', snapshotId);
  });
});
