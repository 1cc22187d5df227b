/**
 * Which row a primary key keeps when several writers carry it.
 *
 * - The same key in three shards of one sync, the shards finishing in each of the six orders: one
 *   identical table every time, the later shard in plan order winning the key (or, with
 *   `sequence.field`, the greatest field value); the sync's status counts the colliding keys.
 * - Two syncs planned on the same snapshot, committed in either order: the later snapshot's values.
 *
 * The coordinator runs in this process with its real commit worker; the shard jobs are taken off
 * the real queue and run through the worker's real processor here, one at a time, in the order the
 * test chooses (each completes its BullMQ job, which is what lets the sync's commit run).
 * Every table is read by Tributary, Paimon Java and pypaimon. Both layouts: `direct` (each shard
 * writes the table's files) and `bucketed` (shards write sorted runs; bucket jobs, run here by the
 * worker's real merge-bucket processor, merge them).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Worker, type Job } from 'bullmq';
import { Redis } from 'ioredis';
import type { Coordinator } from '@tributary/coordinator';
import { SYNC_QUEUES, type SyncShardResult } from '@tributary/protocol';
import { openObjectStore, warehouseTables } from '@tributary/table';
import { canonicalRows, paimonJava, pypaimon, readResults, services, type OracleRow } from '@tributary/testkit';
import { mergeBucketProcessor, writeShardProcessor } from '@tributary/worker';
import { HeldJobs } from './held-jobs.ts';
import { LAYOUTS, inProcessCoordinator, readRows, s3, syncEnv, waitForPhase, type SyncEnv } from './harness.ts';

/** Shard jobs taken off the queue and run here, each when the test says so. */
class ShardRunner extends HeldJobs<SyncShardResult> {
  constructor(e: SyncEnv) {
    super(e, SYNC_QUEUES.writeShard, (redis) => writeShardProcessor({ redis, prefix: e.prefix, clusterSecret: e.clusterSecret, tables: warehouseTables(s3), sources: e.sources }), (job) => job.data.shardId as string);
  }
}

const ORDERS = [[0, 1, 2], [0, 2, 1], [1, 0, 2], [1, 2, 0], [2, 0, 1], [2, 1, 0]] as const;
const COLUMNS = [
  { name: 'id', type: 'BIGINT NOT NULL' },
  { name: 'v', type: 'STRING' },
  { name: 'ver', type: 'BIGINT' },
];

/**
 * Shard i's rows: key 1 in all three shards, key 2 in shards 0 and 1, and keys of its own. `ver`
 * falls with the shard index, so with `sequence.field = ver` the first shard wins.
 */
function shardRows(shard: number): { id: number; v: string; ver: number }[] {
  const own = Array.from({ length: 20 }, (_, i) => ({ id: 100 * (shard + 1) + i, v: `own-${shard}`, ver: 0 }));
  return [{ id: 1, v: `shard-${shard}`, ver: 10 - shard }, ...(shard < 2 ? [{ id: 2, v: `shard-${shard}`, ver: 10 - shard }] : []), ...own];
}

function expectedRows(winner: (key: number) => number): OracleRow[] {
  const rows = new Map<number, OracleRow>();
  for (const shard of [0, 1, 2]) {
    for (const r of shardRows(shard)) if (r.id > 2 || winner(r.id) === shard) rows.set(r.id, [BigInt(r.id), r.v, BigInt(r.ver)]);
  }
  return canonicalRows([...rows.values()]);
}

for (const layout of LAYOUTS) describe(`keys in several shards and syncs: one documented winner (layout ${layout})`, () => {
  const e = syncEnv(`seq-order-${layout}`);
  const source = `s3://${services.s3.bucket}/${e.prefix}-src`;
  let coordinator: Coordinator;
  let runner: ShardRunner;
  let buckets: { worker: Worker; redis: Redis } | undefined;

  before(async () => {
    const store = openObjectStore(source, s3);
    for (const shard of [0, 1, 2]) {
      await store.put(`part-${shard}.ndjson`, new TextEncoder().encode(shardRows(shard).map((r) => JSON.stringify(r)).join('\n') + '\n'));
    }
    coordinator = await inProcessCoordinator(e);
    runner = new ShardRunner(e);
    if (layout === 'bucketed') {
      // Bucket jobs only exist once every shard is accepted: any order of them is fine.
      const connection = { host: services.redis.host, port: services.redis.port, maxRetriesPerRequest: null };
      const redis = new Redis(connection);
      const merge = mergeBucketProcessor({ redis, prefix: e.prefix, clusterSecret: e.clusterSecret, tables: warehouseTables(s3) });
      buckets = { redis, worker: new Worker(SYNC_QUEUES.mergeBucket, (job: Job) => merge(job), { connection, prefix: e.prefix }) };
    }
  });
  after(async () => {
    await buckets?.worker.close();
    await buckets?.redis.quit();
    await runner.close();
    await coordinator.close();
  });

  async function createTable(name: string, options: Record<string, string> = {}): Promise<void> {
    const response = await coordinator.app.inject({
      method: 'POST',
      url: '/v1/tables',
      payload: { database: 'shop', name, columns: COLUMNS, primaryKeys: ['id'], bucket: 2, options },
    });
    assert.equal(response.statusCode, 201, response.body);
  }

  async function startSync(table: string, uris: string[]): Promise<string> {
    const response = await coordinator.app.inject({
      method: 'POST',
      url: '/v1/syncs',
      payload: { table: { database: 'shop', table }, source: { kind: 'files', format: 'ndjson', uris, filesPerShard: 1 }, options: { layout } },
    });
    assert.equal(response.statusCode, 202, response.body);
    return response.json<{ id: string }>().id;
  }

  async function committed(id: string): Promise<{ snapshotId: number; collidingKeys: number | null }> {
    const record = await waitForPhase(() => coordinator.syncs.get(id), ['COMMITTED', 'ABORTED'], 60_000);
    assert.equal(record.state.phase, 'COMMITTED', JSON.stringify(record.state));
    const view = await coordinator.app.inject({ method: 'GET', url: `/v1/syncs/${id}` });
    assert.equal(view.statusCode, 200, view.body);
    return view.json<{ snapshotId: number; collidingKeys: number | null }>();
  }

  /** Rows of each table as Tributary, Paimon Java and pypaimon read them. */
  async function readAll(tables: readonly string[]): Promise<Map<string, { tributary: OracleRow[]; java: OracleRow[]; python: OracleRow[] }>> {
    const ops = tables.map((table) => ({ op: 'read' as const, warehouse: e.warehouse, database: 'shop', table }));
    const [java, python] = await Promise.all([paimonJava.batch(ops), pypaimon.batch(ops)]);
    const out = new Map<string, { tributary: OracleRow[]; java: OracleRow[]; python: OracleRow[] }>();
    for (const [i, table] of tables.entries()) {
      out.set(table, {
        tributary: canonicalRows((await readRows(e, 'shop', table)) as OracleRow[]),
        java: canonicalRows(readResults(java)[i]!.rows),
        python: canonicalRows(readResults(python)[i]!.rows),
      });
    }
    return out;
  }

  const uris = [0, 1, 2].map((shard) => `${source}/part-${shard}.ndjson`);

  for (const variant of ['plan order', 'sequence.field'] as const) {
    test(`the same key in three shards, finishing in all six orders: one table; winner by ${variant}`, async () => {
      const tables: string[] = [];
      for (const order of ORDERS) {
        const table = `${variant === 'plan order' ? 'plan' : 'seqfield'}_${order.join('')}`;
        await createTable(table, variant === 'plan order' ? {} : { 'sequence.field': 'ver' });
        const id = await startSync(table, uris);
        await runner.take(id, 3);
        const record = await coordinator.syncs.get(id);
        assert.deepEqual(record.plan.shards.map((s) => s.id), ['files-00000', 'files-00001', 'files-00002']);
        for (const shard of order) await runner.finish(id, `files-0000${shard}`);
        const view = await committed(id);
        assert.equal(view.collidingKeys, 2, 'keys 1 and 2 are in more than one shard');
        tables.push(table);
      }
      const expected = expectedRows(variant === 'plan order' ? (key) => (key === 1 ? 2 : 1) : () => 0);
      for (const [table, read] of await readAll(tables)) {
        assert.deepStrictEqual(read.tributary, expected, `Tributary reads ${table}`);
        assert.deepStrictEqual(read.java, expected, `Paimon Java reads ${table}`);
        assert.deepStrictEqual(read.python, expected, `pypaimon reads ${table}`);
      }
    });
  }

  for (const first of ['x', 'y'] as const) {
    test(`two syncs planned on the same snapshot, ${first} committed first: the later snapshot's values`, async () => {
      const table = `two_syncs_${first}_first`;
      await createTable(table);
      const base = await startSync(table, [uris[2]!]);
      await runner.take(base, 1);
      await runner.finish(base, 'files-00000');
      assert.equal((await committed(base)).snapshotId, 1);
      // x upserts shard 0's rows, y shard 1's: keys 1 and 2 are in both; both pin snapshot 1.
      const x = await startSync(table, [uris[0]!]);
      const y = await startSync(table, [uris[1]!]);
      assert.deepEqual([(await coordinator.syncs.get(x)).plan.baseSnapshotId, (await coordinator.syncs.get(y)).plan.baseSnapshotId], [1, 1]);
      await runner.take(x, 1);
      await runner.take(y, 1);
      const [early, late] = first === 'x' ? [x, y] : [y, x];
      await runner.finish(early, 'files-00000');
      assert.equal((await committed(early)).snapshotId, 2);
      await runner.finish(late, 'files-00000');
      assert.equal((await committed(late)).snapshotId, 3);
      const lateShard = late === x ? 0 : 1;
      const rows = new Map<number, OracleRow>();
      for (const shard of [2, 1 - lateShard, lateShard]) for (const r of shardRows(shard)) rows.set(r.id, [BigInt(r.id), r.v, BigInt(r.ver)]);
      const expected = canonicalRows([...rows.values()]);
      const read = (await readAll([table])).get(table)!;
      assert.deepStrictEqual(read.tributary, expected, 'Tributary');
      assert.deepStrictEqual(read.java, expected, 'Paimon Java');
      assert.deepStrictEqual(read.python, expected, 'pypaimon');
    });
  }
});
