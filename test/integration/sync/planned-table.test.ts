/**
 * A commit lands only in the table, and on the history, its sync planned from. Real Redis, MinIO
 * and the worker's real shard processor; Paimon Java reads the table.
 *
 * - Two loads of one source that plan from the same snapshots must not both commit: each would
 *   load what the table's history says is new, and the table would hold those rows twice. One Redis
 *   refuses the second while the first runs (SYNC_SOURCE_BUSY), but two deployments (two key
 *   prefixes, one warehouse), or a plan read just before the first one committed, are only caught
 *   at commit: a newFilesOnly sync whose base snapshot is followed by a snapshot of the same source
 *   is refused (COMMIT_BASE_SUPERSEDED), ends ABORTED, and publishes nothing.
 * - A table dropped and created again under its name (here by Paimon Java) while a sync of it is
 *   running, with DECIMAL(10,2) now DECIMAL(10,4): the files were written for the first table (1.50
 *   would read as 0.0150), so the commit is refused (SYNC_TABLE_REPLACED) and the new table stays
 *   empty.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Coordinator } from '@tributary/coordinator';
import { SYNC_QUEUES, type SyncShardResult } from '@tributary/protocol';
import { openObjectStore, warehouseTables } from '@tributary/table';
import { paimonJava, uniqueName } from '@tributary/testkit';
import { writeShardProcessor } from '@tributary/worker';
import { HeldJobs } from './held-jobs.ts';
import { inProcessCoordinator, s3, syncEnv, waitForPhase, type SyncEnv } from './harness.ts';
import { canonicalRows } from '@tributary/testkit';

const ndjson = (from: number, to: number) =>
  new TextEncoder().encode(Array.from({ length: to - from + 1 }, (_, i) => JSON.stringify({ id: from + i, v: `row ${from + i}` })).join('\n') + '\n');

function shardRunner(e: SyncEnv): HeldJobs<SyncShardResult> {
  return new HeldJobs(
    e,
    SYNC_QUEUES.writeShard,
    (redis) => writeShardProcessor({ redis, prefix: e.prefix, clusterSecret: e.clusterSecret, tables: warehouseTables(s3), sources: e.sources }),
    (job) => job.data.shardId as string,
  );
}

describe('two deployments load one folder with newFilesOnly into one table at once', () => {
  const first = syncEnv('reloaded');
  // A second deployment: its own Redis keys, the same warehouse, sources and secret.
  const second: SyncEnv = { ...first, prefix: uniqueName('t-reloaded-other') };
  let coordinators: Coordinator[] = [];
  let runners: HeldJobs<SyncShardResult>[] = [];

  before(async () => {
    const source = openObjectStore(first.sourceRoot, s3);
    await source.put('landing/a.ndjson', ndjson(1, 40));
    await source.put('landing/b.ndjson', ndjson(41, 100));
    coordinators = [await inProcessCoordinator(first), await inProcessCoordinator(second)];
    runners = [shardRunner(first), shardRunner(second)];
  });
  after(async () => {
    for (const r of runners) await r.close();
    for (const c of coordinators) await c.close();
  });

  test('the one that commits second is refused with COMMIT_BASE_SUPERSEDED; the table holds every row once', async () => {
    const [x, y] = coordinators as [Coordinator, Coordinator];
    const [heldX, heldY] = runners as [HeldJobs<SyncShardResult>, HeldJobs<SyncShardResult>];
    const created = await x.app.inject({
      method: 'POST',
      url: '/v1/tables',
      payload: { database: 'shop', name: 'landing', columns: [{ name: 'id', type: 'BIGINT' }, { name: 'v', type: 'STRING' }] },
    });
    assert.equal(created.statusCode, 201, created.body);
    const start = async (c: Coordinator): Promise<{ id: string; shards: number }> => {
      const response = await c.app.inject({
        method: 'POST',
        url: '/v1/syncs',
        payload: { table: { database: 'shop', table: 'landing' }, source: { kind: 'files', format: 'ndjson', uris: [`${first.sourceRoot}/landing/*`], newFilesOnly: true } },
      });
      assert.equal(response.statusCode, 202, response.body);
      const id = response.json<{ id: string }>().id;
      return { id, shards: (await c.syncs.get(id))?.plan.shards.length ?? 0 };
    };
    // Both plan from the empty table: each would load both files.
    const a = await start(x);
    const b = await start(y);
    await heldX.take(a.id, a.shards);
    await heldY.take(b.id, b.shards);
    for (const shard of heldY.held(b.id)) await heldY.finish(b.id, shard);
    const committed = await waitForPhase(() => y.syncs.get(b.id), ['COMMITTED', 'ABORTED'], 60_000);
    assert.equal(committed.state.phase, 'COMMITTED', JSON.stringify(committed.state));

    for (const shard of heldX.held(a.id)) await heldX.finish(a.id, shard);
    const refused = await waitForPhase(() => x.syncs.get(a.id), ['COMMITTED', 'ABORTED'], 60_000);
    assert.equal(refused.state.phase, 'ABORTED', JSON.stringify(refused.state));
    assert.ok(refused.state.phase === 'ABORTED');
    assert.equal(refused.state.reason.code, 'COMMIT_BASE_SUPERSEDED');
    assert.match(refused.state.reason.message, /snapshot 1 .* has the same tributary\.source-id/);

    // Paimon Java reads one snapshot holding ids 1..100 once.
    const read = await paimonJava.read({ warehouse: first.warehouse, database: 'shop', table: 'landing' });
    assert.equal(read.snapshotId, 1);
    assert.deepEqual(read.rows.map((row) => Number(row[0])).sort((p, q) => p - q), Array.from({ length: 100 }, (_, i) => i + 1));

    // The table's history now holds both files: a new sync has nothing to load.
    const again = await x.app.inject({
      method: 'POST',
      url: '/v1/syncs',
      payload: { table: { database: 'shop', table: 'landing' }, source: { kind: 'files', format: 'ndjson', uris: [`${first.sourceRoot}/landing/*`], newFilesOnly: true } },
    });
    assert.equal(again.statusCode, 422, again.body);
    assert.equal(again.json<{ code: string }>().code, 'SYNC_NOTHING_TO_LOAD');
  });
});

describe('a table dropped and created again while a sync of it runs', () => {
  const e = syncEnv('replaced');
  let coordinator: Coordinator;
  let held: HeldJobs<SyncShardResult>;

  before(async () => {
    const lines = Array.from({ length: 20 }, (_, i) => JSON.stringify({ id: i + 1, amount: '1.50' })).join('\n') + '\n';
    await openObjectStore(e.sourceRoot, s3).put('prices.ndjson', new TextEncoder().encode(lines));
    coordinator = await inProcessCoordinator(e);
    held = shardRunner(e);
  });
  after(async () => {
    await held.close();
    await coordinator.close();
  });

  test('the commit is refused with SYNC_TABLE_REPLACED; the new table has no snapshot; a new sync loads it right', async () => {
    const ref = { warehouse: e.warehouse, database: 'shop', table: 'prices' };
    const created = await coordinator.app.inject({
      method: 'POST',
      url: '/v1/tables',
      payload: { database: 'shop', name: 'prices', columns: [{ name: 'id', type: 'BIGINT' }, { name: 'amount', type: 'DECIMAL(10, 2)' }] },
    });
    assert.equal(created.statusCode, 201, created.body);
    const start = async (): Promise<{ id: string; shards: number }> => {
      const response = await coordinator.app.inject({
        method: 'POST',
        url: '/v1/syncs',
        payload: { table: { database: 'shop', table: 'prices' }, source: { kind: 'files', format: 'ndjson', uris: [`${e.sourceRoot}/prices.ndjson`] } },
      });
      assert.equal(response.statusCode, 202, response.body);
      const id = response.json<{ id: string }>().id;
      return { id, shards: (await coordinator.syncs.get(id))?.plan.shards.length ?? 0 };
    };
    const sync = await start();
    await held.take(sync.id, sync.shards);
    const shards = held.held(sync.id);
    // The first shard writes its files for DECIMAL(10,2); then the table is replaced, by Paimon Java.
    await held.finish(sync.id, shards[0] ?? '', async () => {
      await paimonJava.batch([
        { op: 'drop', ...ref },
        { op: 'create', ...ref, fields: [{ name: 'id', type: 'BIGINT' }, { name: 'amount', type: 'DECIMAL(10, 4)' }] },
      ]);
    });
    for (const shard of shards.slice(1)) await held.finish(sync.id, shard);
    const done = await waitForPhase(() => coordinator.syncs.get(sync.id), ['COMMITTED', 'ABORTED'], 60_000);
    assert.equal(done.state.phase, 'ABORTED', JSON.stringify(done.state));
    assert.ok(done.state.phase === 'ABORTED');
    assert.equal(done.state.reason.code, 'SYNC_TABLE_REPLACED');
    assert.equal((await paimonJava.read(ref)).snapshotId, null, 'nothing landed in the new table');

    // A sync planned now writes for DECIMAL(10,4): Paimon Java reads 1.5000 (unscaled 15000).
    const again = await start();
    await held.take(again.id, again.shards);
    for (const shard of held.held(again.id)) await held.finish(again.id, shard);
    const committed = await waitForPhase(() => coordinator.syncs.get(again.id), ['COMMITTED', 'ABORTED'], 60_000);
    assert.equal(committed.state.phase, 'COMMITTED', JSON.stringify(committed.state));
    const read = await paimonJava.read(ref);
    assert.deepEqual(canonicalRows(read.rows), canonicalRows(Array.from({ length: 20 }, (_, i) => [BigInt(i + 1), 15_000n])));
  });
});
