/**
 * Three syncs into one table at once all commit; the snapshots are linear (1, 2, 3,
 * one per sync, each with its own commit user) and no row is lost.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { ChildProcess } from 'node:child_process';
import type { Coordinator } from '@tributary/coordinator';
import { GENERATOR_COLUMNS, generatorRow, rowConverter } from '@tributary/sources';
import { openTable, type InternalRow } from '@tributary/table';
import { LAYOUTS, createOrdersTable, generatorSource, inProcessCoordinator, pypaimonRead, readRows, spawnWorker, stop, syncEnv, waitForPhase } from './harness.ts';

const key = (row: InternalRow): string => JSON.stringify(row, (_, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));

for (const layout of LAYOUTS) describe(`case 7: concurrent syncs into one table (layout ${layout})`, () => {
  const e = syncEnv(`concurrent-${layout}`);
  let coordinator: Coordinator;
  const workers: ChildProcess[] = [];

  before(async () => {
    coordinator = await inProcessCoordinator(e);
    workers.push(...(await Promise.all([spawnWorker(e, { TRIBUTARY_WORKER_CONCURRENCY: '3' }), spawnWorker(e, { TRIBUTARY_WORKER_CONCURRENCY: '3' })])));
  });
  after(async () => {
    await Promise.all(workers.map((w) => stop(w)));
    await coordinator.close();
  });

  test('three syncs all commit, snapshots 1..3 are linear, every row of every sync is there once', async () => {
    await createOrdersTable(coordinator, 'shop', 'orders');
    const seeds = [11, 22, 33];
    const ids = await Promise.all(
      seeds.map(async (seed) => {
        const response = await coordinator.app.inject({
          method: 'POST',
          url: '/v1/syncs',
          payload: { table: { database: 'shop', table: 'orders' }, source: { ...generatorSource(4, 300), seed }, options: { layout } },
        });
        assert.equal(response.statusCode, 202, response.body);
        return response.json<{ id: string }>().id;
      }),
    );
    const done = await Promise.all(ids.map((id) => waitForPhase(() => coordinator.syncs.get(id), ['COMMITTED', 'ABORTED'], 90_000)));
    assert.deepEqual(done.map((r) => r.state.phase), ['COMMITTED', 'COMMITTED', 'COMMITTED']);

    const table = await openTable(e.store, 'shop', 'orders');
    const snapshots = await Promise.all([1, 2, 3].map((n) => table.snapshot(n)));
    assert.equal(Number((await table.latestSnapshot())?.id), 3, 'exactly three snapshots');
    assert.deepEqual(
      snapshots.map((s) => s.commitUser).sort(),
      done.map((r) => r.plan.commitUser).sort(),
      'one snapshot per sync, each with its own commit user',
    );
    for (const r of done) {
      assert.ok(r.state.phase === 'COMMITTED');
      assert.equal(snapshots[r.state.snapshotId - 1]?.commitUser, r.plan.commitUser);
    }
    assert.deepEqual(snapshots.map((s) => Number(s.totalRecordCount)), [1200, 2400, 3600]);

    const convert = rowConverter('expected', GENERATOR_COLUMNS, { fields: table.schema.fields });
    const expected = seeds.flatMap((seed) => Array.from({ length: 1200 }, (_, i) => key(convert(generatorRow(seed, i + 1), i)))).sort();
    const actual = (await readRows(e, 'shop', 'orders')).map(key).sort();
    assert.equal(actual.length, 3600);
    assert.deepEqual(actual, expected);
    const reference = await pypaimonRead(e, 'shop', 'orders');
    assert.equal(reference.snapshotId, 3);
    assert.deepEqual(reference.rows.map(key).sort(), expected, 'pypaimon reads every row of the three syncs once');
  });
});
