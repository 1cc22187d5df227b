/**
 * A worker job whose lock lapses twice (BullMQ's default fails a job on its second stall) is run
 * again, not failed, and its sync commits exactly once with exactly the source rows. Real worker
 * processes with short BullMQ locks (3 s): the worker running the job is frozen (SIGSTOP, a process
 * that gets no CPU) until its lock lapses and a worker started after it re-runs the job; that one is
 * frozen in turn until a third worker re-runs it; then the first two are thawed, so three executions
 * of one job run at once. Exactly one attempt is accepted, only its files are in the snapshot, the
 * workers that found the stalls log them.
 *
 * For a shard job (direct layout, a slow generator shard) and a bucket job (bucketed layout, a slow
 * merge). Every step waits for state the test can see (an attempt running in the ledger, the job's
 * state in BullMQ), never for a time.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { ChildProcess } from 'node:child_process';
import { Queue } from 'bullmq';
import type { Coordinator } from '@tributary/coordinator';
import { SYNC_QUEUES, type ShardAttempt } from '@tributary/protocol';
import { openTable } from '@tributary/table';
import { services } from '@tributary/testkit';
import { createOrdersTable, explainSync, generatorSource, inProcessCoordinator, oneTo, outputOf, readRows, spawnWorker, stop, syncEnv, waitForPhase, waitUntil, type Layout } from './harness.ts';

const ROWS = 6000;

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
    queue = new Queue(job.queue, { connection: { host: services.redis.host, port: services.redis.port }, prefix: e.prefix });
  });
  after(async () => {
    for (const w of workers) w.kill('SIGCONT'); // a worker frozen by a failed test must wake to stop
    await Promise.all(workers.map((w) => stop(w)));
    await queue.close();
    await coordinator.close();
  });

  /** Starts a worker and waits until the job's attempt `n` runs on it (the job re-run after a stall); fails at once if BullMQ failed the job instead. */
  async function rerunOnNewWorker(id: string, n: number): Promise<ChildProcess> {
    const worker = await spawnWorker(e, job.workerEnv);
    workers.push(worker);
    await waitUntil(async () => {
      const bull = await queue.getJob(job.jobId(id));
      if ((await bull?.getState()) === 'failed') assert.fail(`BullMQ failed the ${job.kind} job instead of running it again: ${bull?.failedReason}`);
      return (await job.attempts(coordinator, id)).some((a) => a.attemptId === String(n) && a.status === 'running');
    }, `attempt ${n} of the ${job.kind} job runs on the new worker`, 90_000);
    return worker;
  }

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

    await waitUntil(
      async () => (await job.attempts(coordinator, id)).some((a) => a.attemptId === '1' && a.status === 'running' && (a.rows ?? 0) > 0),
      `attempt 1 of the ${job.kind} job is mid-way`,
      90_000,
    );
    first.kill('SIGSTOP'); // its lock lapses: stall 1, found by the next worker's stall check
    const second = await rerunOnNewWorker(id, 2);
    second.kill('SIGSTOP'); // stall 2: BullMQ's default would fail the job here
    const third = await rerunOnNewWorker(id, 3);
    first.kill('SIGCONT'); // now attempts 1, 2 and 3 run at once
    second.kill('SIGCONT');

    const done = await waitForPhase(() => coordinator.syncs.get(id), ['COMMITTED', 'ABORTED'], 120_000, (syncId) => explainSync(coordinator, syncId));
    assert.equal(done.state.phase, 'COMMITTED', JSON.stringify(done.state));
    // Every execution reports its own end, the two thawed ones too.
    const attempts = await waitUntil(async () => {
      const all = await job.attempts(coordinator, id);
      return all.length === 3 && all.every((a) => a.status === 'succeeded' || a.status === 'failed') && all;
    }, 'the three attempts ended', 90_000);
    const accepted = attempts.filter((a) => a.accepted === true);
    assert.equal(accepted.length, 1, JSON.stringify(attempts));
    const winner = accepted[0]?.attemptId;
    assert.ok(winner !== undefined);
    assert.equal(await job.committedAttempt(coordinator, id), winner, 'the sync committed the accepted attempt');

    const bull = await queue.getJob(job.jobId(id));
    assert.equal(await bull?.getState(), 'completed', `the ${job.kind} job: ${bull?.failedReason}`);
    assert.ok((bull?.stalledCounter ?? 0) >= 2, `the job stalled twice (${bull?.stalledCounter})`);
    for (const w of [second, third]) assert.match(outputOf(w), new RegExp(`${job.kind} job stalled \\(its lock lapsed\\)`), 'the worker that found the stall logs it');

    const table = await openTable(e.store, 'shop', 'stalled');
    assert.deepEqual(await table.snapshots.listIds(), [1], 'one snapshot');
    const referenced = (await table.newRead().plan()).map((entry) => entry.file.fileName);
    assert.ok(referenced.length > 0);
    assert.ok(referenced.every((name) => name.includes(job.fileMark(winner))), `only the accepted attempt's files: ${referenced.join(', ')}`);
    const ids = (await readRows(e, 'shop', 'stalled')).map((r) => r[0] as bigint).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    assert.deepEqual(ids, oneTo(ROWS), 'each source row exactly once');
  });
});
