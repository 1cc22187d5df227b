/**
 * A worker job whose lock lapses twice (BullMQ's default fails a job on its second stall) is run
 * again, not failed, and its sync commits exactly once with exactly the source rows. Real worker
 * processes with short BullMQ locks (3 s): the worker running the job is frozen (SIGSTOP, a process
 * that gets no CPU) until its lock lapses and a worker started after it re-runs the job; that one is
 * frozen in turn until a third worker re-runs it; then the first two are thawed, so three executions
 * of one job run at once. Exactly one attempt is accepted, only its files are in the snapshot, the
 * workers that found the stalls log them.
 *
 * For a shard job (direct layout, a slow generator shard), a bucket job (bucketed layout, a slow
 * merge) and a compaction job (a slow rewrite): the compaction commits one COMPACT snapshot of the
 * accepted attempt's files and the table reads as before. Every step waits for state the test can
 * see (an attempt running in the ledger, the job's state in BullMQ), never for a time.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { ChildProcess } from 'node:child_process';
import { Queue, type Job } from 'bullmq';
import { Redis } from 'ioredis';
import type { Coordinator } from '@tributary/coordinator';
import { COMPACTION_QUEUE, PLAN_HEAD_FIELD, SYNC_QUEUES, SyncPlanHead, SyncShardResult, compactionRedisKeys, encodeVoteToken, shardVoteToken, syncRedisKeys, type ShardAttempt } from '@tributary/protocol';
import { openTable } from '@tributary/table';
import { canonicalRows, services, type OracleRow } from '@tributary/testkit';
import {
  ORDERS_COLUMNS,
  createOrdersTable,
  explainSync,
  generatorSource,
  inProcessCoordinator,
  oneTo,
  outputOf,
  readRows,
  spawnWorker,
  stop,
  syncEnv,
  waitForPhase,
  waitUntil,
  type Layout,
  type SyncEnv,
} from './harness.ts';

const ROWS = 6000;
const connection = { host: services.redis.host, port: services.redis.port };

/** What the choreography needs of a job: where its attempts are and which BullMQ job it is. */
interface Watched {
  readonly kind: 'shard' | 'bucket' | 'compaction';
  readonly queue: Queue;
  readonly bullJobId: string;
  readonly attempts: () => Promise<ShardAttempt[]>;
  /** Extra worker environment (a slow merge or rewrite). */
  readonly workerEnv: NodeJS.ProcessEnv;
}

/**
 * With the job's attempt 1 mid-way on `first`: freezes it until a new worker runs attempt 2 (stall
 * 1), freezes that one until a third runs attempt 3 (stall 2, where BullMQ's default fails the
 * job), then thaws both. Returns the workers that found the stalls. Fails at once if BullMQ failed
 * the job instead of running it again.
 */
async function stallTwice(e: SyncEnv, workers: ChildProcess[], first: ChildProcess, job: Watched): Promise<ChildProcess[]> {
  await waitUntil(async () => (await job.attempts()).some((a) => a.attemptId === '1' && a.status === 'running' && (a.rows ?? 0) > 0), `attempt 1 of the ${job.kind} job is mid-way`, 90_000);
  const rerunOnNewWorker = async (n: number): Promise<ChildProcess> => {
    const worker = await spawnWorker(e, job.workerEnv);
    workers.push(worker);
    await waitUntil(async () => {
      const bull = await job.queue.getJob(job.bullJobId);
      if ((await bull?.getState()) === 'failed') assert.fail(`BullMQ failed the ${job.kind} job instead of running it again: ${bull?.failedReason}`);
      return (await job.attempts()).some((a) => a.attemptId === String(n) && a.status === 'running');
    }, `attempt ${n} of the ${job.kind} job runs on the new worker`, 90_000);
    return worker;
  };
  first.kill('SIGSTOP'); // its lock lapses: stall 1, found by the next worker's stall check
  const second = await rerunOnNewWorker(2);
  second.kill('SIGSTOP'); // stall 2: BullMQ's default would fail the job here
  const third = await rerunOnNewWorker(3);
  first.kill('SIGCONT'); // now attempts 1, 2 and 3 run at once
  second.kill('SIGCONT');
  return [second, third];
}

/** A BullMQ job once it completed or failed, read after that (its result or reason with it). */
async function ended(queue: Queue, jobId: string, what: string): Promise<{ j: Job; state: 'completed' | 'failed' }> {
  const state = await waitUntil(async () => {
    const s = await (await queue.getJob(jobId))?.getState();
    return (s === 'completed' || s === 'failed') && s;
  }, what, 90_000);
  const j = await queue.getJob(jobId);
  assert.ok(j !== undefined, `${jobId} is gone`);
  return { j, state };
}

/** Once all three executions ended (the thawed ones report too): the one accepted attempt; the BullMQ job completed after two stalls, both logged. */
async function assertOneAccepted(job: Watched, finders: readonly ChildProcess[]): Promise<string> {
  const attempts = await waitUntil(async () => {
    const all = await job.attempts();
    return all.length === 3 && all.every((a) => a.status === 'succeeded' || a.status === 'failed') && all;
  }, 'the three attempts ended', 90_000);
  const accepted = attempts.filter((a) => a.accepted === true);
  assert.equal(accepted.length, 1, JSON.stringify(attempts));
  const winner = accepted[0]?.attemptId;
  assert.ok(winner !== undefined);
  const bull = await ended(job.queue, job.bullJobId, `the ${job.kind} job ended in BullMQ`);
  if (job.kind === 'compaction' && bull.state === 'failed') {
    // A compaction commits once every job has an accepted attempt, without waiting for the jobs'
    // ends in BullMQ: the execution still holding the job then stops, fenced, and fails the job.
    assert.match(bull.j.failedReason, /^SYNC_NOT_ACCEPTING: /, 'fenced by the commit, not failed for its stalls');
  } else {
    assert.equal(bull.state, 'completed', `the ${job.kind} job: ${bull.j.failedReason}`);
  }
  assert.ok(bull.j.stalledCounter >= 2, `the job stalled twice (${bull.j.stalledCounter})`);
  for (const w of finders) assert.match(outputOf(w), new RegExp(`${job.kind} job stalled \\(its lock lapsed\\)`), 'the worker that found the stall logs it');
  return winner;
}

interface StalledJob {
  readonly layout: Layout;
  readonly kind: 'shard' | 'bucket';
  /** The ledgered job's id in its stage, and its BullMQ queue and job id. */
  readonly ledgerId: string;
  readonly queue: string;
  readonly jobId: (syncId: string) => string;
  readonly source: Record<string, unknown>;
  /** Extra worker environment (a bucket job's slow merge). */
  readonly workerEnv: NodeJS.ProcessEnv;
  /** The job's attempts in the ledger. */
  readonly attempts: (c: Coordinator, syncId: string) => Promise<ShardAttempt[]>;
  /** The attempt the committed sync recorded as accepted for the job. */
  readonly committedAttempt: (c: Coordinator, syncId: string) => Promise<string | undefined>;
  /** The data files of the job's attempt `a` carry this in their names. */
  readonly fileMark: (attempt: string) => string;
}

const CASES: readonly StalledJob[] = [
  {
    layout: 'direct',
    kind: 'shard',
    ledgerId: 'shard-00000',
    queue: SYNC_QUEUES.writeShard,
    jobId: (syncId) => `shard-${syncId}-shard-00000`,
    // One shard of 60 batches × 200 ms: at least 12 s per execution, so a frozen one is mid-shard.
    source: generatorSource(1, ROWS, { batchRows: 100, faults: { delayMsPerBatch: 200 } }),
    workerEnv: {},
    attempts: async (c, id) => (await c.store.attempts(id)).filter((a) => a.shardId === 'shard-00000'),
    committedAttempt: async (c, id) => {
      const { state } = await c.syncs.get(id);
      return state.phase === 'COMMITTED' ? state.accepted['shard-00000']?.attemptId : undefined;
    },
    fileMark: (attempt) => `-shard-00000-a${attempt}-`,
  },
  {
    layout: 'bucketed',
    kind: 'bucket',
    ledgerId: 'bucket-0',
    queue: SYNC_QUEUES.mergeBucket,
    jobId: (syncId) => `bucket-0-${syncId}`,
    source: generatorSource(1, ROWS),
    // One bucket merged in batches of 100 rows with 200 ms pauses: at least 12 s per execution.
    workerEnv: { TRIBUTARY_TEST_MERGE_DELAY_MS: '200' },
    attempts: async (c, id) => (await c.store.bucketAttempts(id)).filter((a) => a.shardId === 'bucket-0'),
    committedAttempt: async (c, id) => {
      const { state } = await c.syncs.get(id);
      return state.phase === 'COMMITTED' ? state.bucketStage?.accepted['bucket-0']?.attemptId : undefined;
    },
    fileMark: (attempt) => `-bucket-0-a${attempt}-`,
  },
];

for (const job of CASES) describe(`a ${job.kind} job whose lock lapses twice (real workers, short locks, layout ${job.layout})`, () => {
  const e = syncEnv(`wstall-${job.layout}`);
  let coordinator: Coordinator;
  let queue: Queue;
  const workers: ChildProcess[] = [];

  before(async () => {
    coordinator = await inProcessCoordinator(e);
    queue = new Queue(job.queue, { connection, prefix: e.prefix });
  });
  after(async () => {
    for (const w of workers) w.kill('SIGCONT'); // a worker frozen by a failed test must wake to stop
    await Promise.all(workers.map((w) => stop(w)));
    await queue.close();
    await coordinator.close();
  });

  test('is run again each time; three live executions, one accepted; the sync commits once with exactly the source rows', async () => {
    await createOrdersTable(coordinator, 'shop', 'stalled', job.layout === 'bucketed' ? { primaryKeys: ['order_id'], bucket: 1 } : {});
    const first = await spawnWorker(e, job.workerEnv);
    workers.push(first);
    const response = await coordinator.app.inject({
      method: 'POST',
      url: '/v1/syncs',
      payload: { table: { database: 'shop', table: 'stalled' }, source: job.source, options: { layout: job.layout } },
    });
    assert.equal(response.statusCode, 202, response.body);
    const id = response.json<{ id: string }>().id;
    const watched: Watched = { kind: job.kind, queue, bullJobId: job.jobId(id), attempts: () => job.attempts(coordinator, id), workerEnv: job.workerEnv };
    const finders = await stallTwice(e, workers, first, watched);

    const done = await waitForPhase(() => coordinator.syncs.get(id), ['COMMITTED', 'ABORTED'], 120_000, (syncId) => explainSync(coordinator, syncId));
    assert.equal(done.state.phase, 'COMMITTED', JSON.stringify(done.state));
    const winner = await assertOneAccepted(watched, finders);
    assert.equal(await job.committedAttempt(coordinator, id), winner, 'the sync committed the accepted attempt');

    const table = await openTable(e.store, 'shop', 'stalled');
    assert.deepEqual(await table.snapshots.listIds(), [1], 'one snapshot');
    const referenced = (await table.newRead().plan()).map((entry) => entry.file.fileName);
    assert.ok(referenced.length > 0);
    assert.ok(referenced.every((name) => name.includes(job.fileMark(winner))), `only the accepted attempt's files: ${referenced.join(', ')}`);
    const ids = (await readRows(e, 'shop', 'stalled')).map((r) => r[0] as bigint).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    assert.deepEqual(ids, oneTo(ROWS), 'each source row exactly once');
  });

  if (job.kind === 'shard') {
    test('a re-delivery of a job whose attempt was accepted runs nothing and ends at once with the accepted attempt', async () => {
      await createOrdersTable(coordinator, 'shop', 'settled');
      workers.push(await spawnWorker(e));
      const response = await coordinator.app.inject({ method: 'POST', url: '/v1/syncs', payload: { table: { database: 'shop', table: 'settled' }, source: generatorSource(1, 100), options: { layout: 'direct' } } });
      assert.equal(response.statusCode, 202, response.body);
      const id = response.json<{ id: string }>().id;
      const done = await waitForPhase(() => coordinator.syncs.get(id), ['COMMITTED', 'ABORTED'], 120_000, (syncId) => explainSync(coordinator, syncId));
      assert.ok(done.state.phase === 'COMMITTED', JSON.stringify(done.state));
      const accepted = done.state.accepted['shard-00000'];
      assert.ok(accepted !== undefined);
      const before = await job.attempts(coordinator, id);
      // The shard's job again, with its real token, as BullMQ delivers a job whose lock lapsed (a
      // starved worker's re-run that comes after the vote): before, it numbered a new attempt and
      // redid the whole shard, so a job whose every execution outlived its lock never completed.
      const redis = new Redis(connection);
      const head = SyncPlanHead.parse(JSON.parse((await redis.hget(syncRedisKeys(e.prefix, id).plan, PLAN_HEAD_FIELD)) ?? '{}'));
      redis.disconnect();
      const token = encodeVoteToken(shardVoteToken(e.clusterSecret, id, 'shard-00000', head.fingerprint));
      await queue.add('write-shard', { syncId: id, shardId: 'shard-00000', token }, { jobId: `again-${id}`, attempts: 1 });
      const again = await ended(queue, `again-${id}`, 'the re-delivered job ended');
      assert.equal(again.state, 'completed', again.j.failedReason);
      const result = SyncShardResult.parse(again.j.returnvalue);
      assert.equal(result.attemptId, accepted.attemptId);
      assert.equal(result.accepted, true);
      assert.equal(result.rows, 100);
      assert.equal(result.settled, true, 'marked as ran nothing (the worker counts no rows for it)');
      assert.deepEqual(await job.attempts(coordinator, id), before, 'no attempt numbered or run');
    });
  }
});

describe('a compaction job whose lock lapses twice (real workers, short locks)', () => {
  const e = syncEnv('wstall-compaction');
  let coordinator: Coordinator;
  let queue: Queue;
  const workers: ChildProcess[] = [];

  before(async () => {
    coordinator = await inProcessCoordinator(e);
    queue = new Queue(COMPACTION_QUEUE, { connection, prefix: e.prefix });
  });
  after(async () => {
    for (const w of workers) w.kill('SIGCONT');
    await Promise.all(workers.map((w) => stop(w)));
    await queue.close();
    await coordinator.close();
  });

  async function compactionAttempts(id: string): Promise<ShardAttempt[]> {
    const redis = new Redis(connection);
    try {
      return Object.values(await redis.hgetall(compactionRedisKeys(e.prefix, id).attempts)).map((json) => JSON.parse(json) as ShardAttempt);
    } finally {
      redis.disconnect();
    }
  }

  test('is run again each time; three live executions, one accepted; one COMPACT snapshot of its files, the rows unchanged', async () => {
    const created = await coordinator.app.inject({ method: 'POST', url: '/v1/tables', payload: { database: 'shop', name: 'compacted', columns: ORDERS_COLUMNS, primaryKeys: ['order_id'], bucket: 1 } });
    assert.equal(created.statusCode, 201, created.body);
    const loader = await spawnWorker(e);
    workers.push(loader);
    for (const seed of [1, 2]) {
      const response = await coordinator.app.inject({
        method: 'POST',
        url: '/v1/syncs',
        payload: { table: { database: 'shop', table: 'compacted' }, source: generatorSource(2, ROWS / 2, { seed }), options: { layout: 'direct' } },
      });
      assert.equal(response.statusCode, 202, response.body);
      const done = await waitForPhase(() => coordinator.syncs.get(response.json<{ id: string }>().id), ['COMMITTED', 'ABORTED'], 120_000);
      assert.equal(done.state.phase, 'COMMITTED', JSON.stringify(done.state));
    }
    await stop(loader);
    const rows = async () => canonicalRows((await readRows(e, 'shop', 'compacted')) as OracleRow[]);
    const before = await rows();
    assert.equal(before.length, ROWS);

    // The rewrite in batches of 100 rows with 200 ms pauses: at least 12 s per execution.
    const workerEnv = { TRIBUTARY_TEST_MERGE_DELAY_MS: '200' };
    const first = await spawnWorker(e, workerEnv);
    workers.push(first);
    const started = await coordinator.app.inject({ method: 'POST', url: '/v1/tables/shop/compacted/compactions', payload: { full: true } });
    assert.equal(started.statusCode, 202, started.body);
    const id = started.json<{ id: string }>().id;
    const watched: Watched = { kind: 'compaction', queue, bullJobId: `${id}-job-0`, attempts: () => compactionAttempts(id), workerEnv };
    const finders = await stallTwice(e, workers, first, watched);

    const done = await waitUntil(async () => {
      const view = (await coordinator.app.inject({ method: 'GET', url: `/v1/tables/shop/compacted/compactions/${id}` })).json<{ phase: string; snapshotId: number | null }>();
      return ['COMMITTED', 'FAILED', 'CONFLICT'].includes(view.phase) && view;
    }, `compaction ${id} ended`, 180_000);
    assert.equal(done.phase, 'COMMITTED', JSON.stringify(done));
    const winner = await assertOneAccepted(watched, finders);

    const table = await openTable(e.store, 'shop', 'compacted');
    assert.equal((await table.snapshot(done.snapshotId as number)).commitKind, 'COMPACT');
    assert.deepEqual(await table.snapshots.listIds(), [1, 2, 3], 'two syncs and one compaction');
    const live = (await table.dataFiles()).files;
    assert.ok(live.length > 0 && live.every((f) => f.path.includes(`/data-${id}-job-0-a${winner}-`)), `only the accepted attempt's files: ${JSON.stringify(live)}`);
    assert.deepEqual(await rows(), before, 'the rows unchanged');
  });
});
