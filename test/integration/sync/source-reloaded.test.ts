/**
 * Two loads of one source that plan from the same snapshots must not both commit: each would load
 * what the table's history says is new, and the table would hold those rows twice. One Redis
 * refuses the second while the first runs (SYNC_SOURCE_BUSY), but two deployments (two key
 * prefixes, one warehouse), or a plan read just before the first one committed, are only caught at
 * commit: a newFilesOnly sync whose base snapshot is followed by a snapshot of the same source is
 * refused (COMMIT_BASE_SUPERSEDED), ends ABORTED, and publishes nothing. Real Redis, MinIO and the
 * worker's real shard processor; Paimon Java reads the table.
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
