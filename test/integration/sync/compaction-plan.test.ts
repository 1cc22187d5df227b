/**
 * A compaction job gets its input files' metadata from the plan, not from the table's manifests
 * (real Redis and MinIO, a real worker process). The coordinator stages each job's inputs (a
 * manifest file of the base snapshot's entries) and binds them to the job's vote token through the
 * plan's fingerprint; the job's queue is paused while the test acts between planning and the job.
 *
 * 1. A sync committed between the plan (at snapshot N) and the job: the compaction rewrites exactly
 *    the files live at N, its COMPACT snapshot deletes exactly them (Paimon Java reads the table, so
 *    its DELETE entries matched the manifests' ADD entries), the sync's files stay beside the output,
 *    no file is referenced twice, the rows are those of the sync's snapshot.
 * 2. A plan altered after planning is refused before anything is rewritten, with a typed error:
 *    an entry changed (COMPACTION_PLAN_ALTERED), another job's inputs object staged in its place
 *    (COMPACTION_PLAN_ALTERED), an entry changed with the head's digest list made to match
 *    (COMPACTION_PLAN_ALTERED), and everything recomputed but the vote token, which only the cluster
 *    secret makes (COMPACTION_TOKEN_INVALID). The compaction FAILS and the table is untouched.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { ChildProcess } from 'node:child_process';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import type { Coordinator } from '@tributary/coordinator';
import {
  COMPACTION_QUEUE,
  CompactionPlanHead,
  PLAN_HEAD_FIELD,
  PlannedCompactionEntry,
  compactionEntryDigest,
  compactionPlanFingerprint,
  compactionRedisKeys,
  planJobField,
  stagedCompactionInputsKey,
} from '@tributary/protocol';
import { openTable } from '@tributary/table';
import { canonicalRows, paimonJava, readResults, services, type OracleRow } from '@tributary/testkit';
import { ORDERS_COLUMNS, generatorSource, inProcessCoordinator, listKeys, readRows, spawnWorker, stop, syncEnv, waitForPhase, waitUntil } from './harness.ts';

interface CompactionView {
  readonly id: string;
  readonly phase: string;
  readonly snapshotId: number | null;
  readonly baseSnapshotId: number | null;
  readonly jobs: number;
  readonly filesBefore: number;
  readonly filesAfter: number | null;
  readonly error: { code: string; message: string } | null;
}

describe('compaction jobs take their inputs from the plan (real Redis and MinIO, a real worker)', () => {
  const e = syncEnv('compaction-plan');
  let coordinator: Coordinator;
  let queue: Queue;
  let redis: Redis;
  const workers: ChildProcess[] = [];

  before(async () => {
    coordinator = await inProcessCoordinator(e);
    queue = new Queue(COMPACTION_QUEUE, { connection: services.redis, prefix: e.prefix });
    redis = new Redis(services.redis);
    workers.push(await spawnWorker(e));
  });
  after(async () => {
    await Promise.all(workers.map((w) => stop(w)));
    await queue.close();
    redis.disconnect();
    await coordinator.close();
  });

  async function createTable(name: string, bucket: number): Promise<void> {
    const response = await coordinator.app.inject({ method: 'POST', url: '/v1/tables', payload: { database: 'shop', name, columns: ORDERS_COLUMNS, primaryKeys: ['order_id'], bucket } });
    assert.equal(response.statusCode, 201, response.body);
  }

  async function sync(table: string, seed: number, rows: number): Promise<number> {
    const response = await coordinator.app.inject({
      method: 'POST',
      url: '/v1/syncs',
      payload: { table: { database: 'shop', table }, source: generatorSource(2, rows / 2, { seed }), mode: 'append', options: { layout: 'direct' } },
    });
    assert.equal(response.statusCode, 202, response.body);
    const id = response.json<{ id: string }>().id;
    const done = await waitForPhase(() => coordinator.syncs.get(id), ['COMMITTED', 'ABORTED'], 120_000);
    assert.ok(done.state.phase === 'COMMITTED', JSON.stringify(done.state));
    return done.state.snapshotId;
  }

  /** A full compaction planned while its queue is paused: its jobs wait until the queue resumes. */
  async function plannedCompaction(table: string): Promise<CompactionView> {
    await queue.pause();
    const response = await coordinator.app.inject({ method: 'POST', url: `/v1/tables/shop/${table}/compactions`, payload: { full: true } });
    assert.equal(response.statusCode, 202, response.body);
    const view = response.json<CompactionView>();
    assert.equal(view.phase, 'RUNNING', JSON.stringify(view));
    return view;
  }

  async function ended(table: string, id: string): Promise<CompactionView> {
    return waitUntil(async () => {
      const response = await coordinator.app.inject({ method: 'GET', url: `/v1/tables/shop/${table}/compactions/${id}` });
      assert.equal(response.statusCode, 200, response.body);
      const view = response.json<CompactionView>();
      return ['COMMITTED', 'FAILED', 'CONFLICT'].includes(view.phase) ? view : undefined;
    }, `compaction ${id} ended (a real worker rewriting its buckets)`, 240_000);
  }

  async function liveFiles(table: string): Promise<string[]> {
    return (await (await openTable(e.store, 'shop', table)).dataFiles()).files.map((f) => f.path);
  }

  test('a sync committed between the plan and the job: the compaction rewrites exactly the files live at its base, the sync\'s stay', async () => {
    await createTable('between', 2);
    for (const seed of [1, 2]) await sync('between', seed, 1000);
    const atBase = await liveFiles('between');
    const compacting = await plannedCompaction('between');
    assert.equal(compacting.jobs, 2);
    assert.equal(compacting.filesBefore, atBase.length);
    // Each job's inputs are staged before any job runs.
    for (const job of ['job-0', 'job-1']) assert.deepEqual(await listKeys(e, stagedCompactionInputsKey(compacting.id, job)), [stagedCompactionInputsKey(compacting.id, job)]);
    const syncSnapshot = await sync('between', 3, 1000);
    assert.ok(syncSnapshot > (compacting.baseSnapshotId as number));
    const added = (await liveFiles('between')).filter((f) => !atBase.includes(f));
    assert.ok(added.length > 0, 'the sync added files');
    const atSync = canonicalRows((await readRows(e, 'shop', 'between')) as OracleRow[]);
    await queue.resume();

    const done = await ended('between', compacting.id);
    assert.equal(done.phase, 'COMMITTED', JSON.stringify(done));
    assert.ok((done.snapshotId as number) > syncSnapshot);
    const after = await liveFiles('between');
    assert.equal(new Set(after).size, after.length, 'no file referenced twice');
    assert.deepEqual(after.filter((f) => atBase.includes(f)), [], 'every file live at the base was rewritten');
    assert.deepEqual(after.filter((f) => !f.includes(`/data-${compacting.id}-`)).sort(), [...added].sort(), 'the sync\'s files stay, nothing else');
    assert.equal(after.length - added.length, done.filesAfter);
    assert.deepEqual(canonicalRows((await readRows(e, 'shop', 'between')) as OracleRow[]), atSync);
    const java = await paimonJava.batch([{ op: 'read', warehouse: e.warehouse, database: 'shop', table: 'between' }]);
    assert.deepEqual(canonicalRows(readResults(java)[0]!.rows), atSync, 'Paimon Java reads the rows of the sync\'s snapshot');
    await waitUntil(async () => (await listKeys(e, `.tributary/compactions/${compacting.id}/`)).length === 0, 'the staged inputs and blobs deleted once committed', 30_000);
  });

  test('a plan altered after planning: the job is refused with a typed error, the compaction fails, the table is untouched', async () => {
    await createTable('altered', 2);
    for (const seed of [4, 5]) await sync('altered', seed, 1000);
    const snapshot = Number((await (await openTable(e.store, 'shop', 'altered')).latestSnapshot())?.id);
    const rows = canonicalRows((await readRows(e, 'shop', 'altered')) as OracleRow[]);

    const plan = async (id: string) => {
      const key = compactionRedisKeys(e.prefix, id).plan;
      const [head, entry] = await redis.hmget(key, PLAN_HEAD_FIELD, planJobField('job-0'));
      return { key, head: CompactionPlanHead.parse(JSON.parse(head as string)), entry: PlannedCompactionEntry.parse(JSON.parse(entry as string)) };
    };
    // `job`: the job refused. A head altered for every job (the last two) refuses whichever job runs
    // first, and the coordinator names the first failed job it sees.
    const tampers: { what: string; code: string; job: string; tamper: (id: string) => Promise<void> }[] = [
      {
        what: 'an entry changed',
        code: 'COMPACTION_PLAN_ALTERED',
        job: 'job-0',
        tamper: async (id) => {
          const { key, entry } = await plan(id);
          await redis.hset(key, planJobField('job-0'), JSON.stringify({ ...entry, dropDelete: !entry.dropDelete }));
        },
      },
      {
        what: 'another job\'s inputs staged in its place',
        code: 'COMPACTION_PLAN_ALTERED',
        job: 'job-0',
        tamper: async (id) => {
          await e.store.put(stagedCompactionInputsKey(id, 'job-0'), await e.store.get(stagedCompactionInputsKey(id, 'job-1')));
        },
      },
      {
        what: 'an entry changed and the head\'s digest made to match',
        code: 'COMPACTION_PLAN_ALTERED',
        job: 'job-[01]',
        tamper: async (id) => {
          const { key, head, entry } = await plan(id);
          const forged = { ...entry, bucket: 1 };
          const entryDigests = head.entryDigests.map((d, i) => (i === 0 ? compactionEntryDigest(forged) : d));
          await redis.hset(key, planJobField('job-0'), JSON.stringify(forged), PLAN_HEAD_FIELD, JSON.stringify({ ...head, entryDigests }));
        },
      },
      {
        what: 'everything recomputed but the vote token',
        code: 'COMPACTION_TOKEN_INVALID',
        job: 'job-[01]',
        tamper: async (id) => {
          const { key, head, entry } = await plan(id);
          const forged = { ...entry, bucket: 1 };
          const entryDigests = head.entryDigests.map((d, i) => (i === 0 ? compactionEntryDigest(forged) : d));
          const { entryDigests: _, fingerprint: __, ...basics } = head;
          const fingerprint = compactionPlanFingerprint(basics, entryDigests);
          await redis.hset(key, planJobField('job-0'), JSON.stringify(forged), PLAN_HEAD_FIELD, JSON.stringify({ ...head, entryDigests, fingerprint }));
        },
      },
    ];
    for (const { what, code, job, tamper } of tampers) {
      const compacting = await plannedCompaction('altered');
      await tamper(compacting.id);
      await queue.resume();
      const done = await ended('altered', compacting.id);
      assert.equal(done.phase, 'FAILED', `${what}: ${JSON.stringify(done)}`);
      assert.equal(done.error?.code, 'COMPACTION_JOB_FAILED', what);
      assert.match(done.error?.message ?? '', new RegExp(`${job} of compaction ${compacting.id} failed: ${code}: `), what);
      const table = await openTable(e.store, 'shop', 'altered');
      assert.equal(Number((await table.latestSnapshot())?.id), snapshot, `${what}: nothing committed`);
      assert.ok((await liveFiles('altered')).every((f) => !f.includes(`/data-${compacting.id}-`)), what);
      // job-0 was refused before its first attempt: nothing of it was written.
      assert.deepEqual((await listKeys(e, '')).filter((k) => k.includes(`/data-${compacting.id}-job-0-`)), [], what);
    }
    assert.deepEqual(canonicalRows((await readRows(e, 'shop', 'altered')) as OracleRow[]), rows);
  });
});
