import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { ChildProcess } from 'node:child_process';
import type { Coordinator } from '@tributary/coordinator';
import { GENERATOR_COLUMNS, generatorRow, rowConverter } from '@tributary/sources';
import { openTable } from '@tributary/table';
import {
  createOrdersTable,
  generatorSource,
  inProcessCoordinator,
  canonicalRows,
  listKeys,
  pypaimonRead,
  readRows,
  spawnWorker,
  stop,
  syncEnv,
  waitForObject,
  waitForPhase,
} from './harness.ts';

const SHARDS = 8;
const ROWS = 500;

describe('a sharded sync, end to end (2 worker processes, real Redis and MinIO)', () => {
  const e = syncEnv('happy');
  let coordinator: Coordinator;
  const workers: ChildProcess[] = [];

  before(async () => {
    coordinator = await inProcessCoordinator(e);
    workers.push(...(await Promise.all([spawnWorker(e), spawnWorker(e)])));
  });
  after(async () => {
    await Promise.all(workers.map((w) => stop(w)));
    await coordinator.close();
  });

  test('8 generated shards commit as one snapshot with exactly the source rows', async () => {
    await createOrdersTable(coordinator, 'shop', 'orders');
    const started = await coordinator.app.inject({
      method: 'POST',
      url: '/v1/syncs',
      headers: { 'idempotency-key': 'happy-1' },
      payload: { table: { database: 'shop', table: 'orders' }, source: generatorSource(SHARDS, ROWS) },
    });
    assert.equal(started.statusCode, 202, started.body);
    const { id } = started.json<{ id: string }>();

    const again = await coordinator.app.inject({
      method: 'POST',
      url: '/v1/syncs',
      headers: { 'idempotency-key': 'happy-1' },
      payload: { table: { database: 'shop', table: 'orders' }, source: generatorSource(SHARDS, ROWS) },
    });
    assert.equal(again.json<{ id: string }>().id, id, 'the same Idempotency-Key starts nothing new');

    const done = await waitForPhase(() => coordinator.syncs.get(id), ['COMMITTED', 'ABORTED'], 90_000);
    assert.equal(done.state.phase, 'COMMITTED', JSON.stringify(done.state));

    const table = await openTable(e.store, 'shop', 'orders');
    const latest = await table.latestSnapshot();
    assert.equal(Number(latest?.id), done.state.phase === 'COMMITTED' ? done.state.snapshotId : -1);
    assert.equal(Number(latest?.id), 1, 'exactly one snapshot');
    assert.equal(latest?.commitUser, done.plan.commitUser);

    const convert = rowConverter('expected', GENERATOR_COLUMNS, { fields: table.schema.fields });
    const expected = Array.from({ length: SHARDS * ROWS }, (_, i) => convert(generatorRow(42, i + 1), i));
    const rows = (await readRows(e, 'shop', 'orders')).sort((a, b) => Number((a[0] as bigint) - (b[0] as bigint)));
    assert.equal(rows.length, SHARDS * ROWS);
    assert.deepEqual(rows, expected);
    const reference = await pypaimonRead(e, 'shop', 'orders');
    assert.equal(reference.snapshotId, 1);
    assert.deepEqual(reference.rows, canonicalRows(expected), 'pypaimon reads exactly the source rows');

    const view = await coordinator.app.inject({ method: 'GET', url: `/v1/syncs/${id}` });
    const body = view.json<{ phase: string; snapshotId: number; shards: { rows: number; acceptedAttempt: string }[] }>();
    assert.equal(body.phase, 'COMMITTED');
    assert.equal(body.snapshotId, 1);
    assert.equal(body.shards.length, SHARDS);
    assert.ok(body.shards.every((s) => s.rows === ROWS && s.acceptedAttempt !== null));
    assert.equal((await listKeys(e, `.tributary/syncs/${id}/`)).filter((k) => k.endsWith('.blob')).length, SHARDS, 'one blob per shard attempt');
    const outcome = await waitForObject(e, `.tributary/syncs/${id}/outcome.json`);
    const summary = JSON.parse(new TextDecoder().decode(outcome)) as { state: { phase: string; snapshotId: number } };
    assert.deepEqual([summary.state.phase, summary.state.snapshotId], ['COMMITTED', 1], 'the outcome summary is written beside the blobs');

    const abortCommitted = await coordinator.app.inject({ method: 'POST', url: `/v1/syncs/${id}/abort` });
    assert.equal(abortCommitted.statusCode, 409);
    assert.equal(abortCommitted.json<{ code: string }>().code, 'SYNC_ILLEGAL_TRANSITION');
    const reused = await coordinator.app.inject({
      method: 'POST',
      url: '/v1/syncs',
      headers: { 'idempotency-key': 'happy-1' },
      payload: { table: { database: 'shop', table: 'orders' }, source: generatorSource(SHARDS, ROWS + 1) },
    });
    assert.equal(reused.statusCode, 422);
    assert.equal(reused.json<{ code: string }>().code, 'IDEMPOTENCY_KEY_REUSED');

    const list = await coordinator.app.inject({ method: 'GET', url: '/v1/syncs?state=COMMITTED&table=orders' });
    assert.deepEqual(list.json<{ syncs: { id: string }[] }>().syncs.map((s) => s.id), [id]);
    const described = await coordinator.app.inject({ method: 'GET', url: '/v1/tables/shop/orders' });
    assert.equal(described.json<{ rowCount: number }>().rowCount, SHARDS * ROWS);
  });

  test('bad requests get problem+json with stable codes', async () => {
    const invalid = await coordinator.app.inject({ method: 'POST', url: '/v1/syncs', payload: { table: { database: 'shop' }, source: { kind: 'nope' } } });
    assert.equal(invalid.statusCode, 400);
    assert.equal(invalid.headers['content-type'], 'application/problem+json; charset=utf-8');
    assert.equal(invalid.json<{ code: string }>().code, 'REQUEST_INVALID');
    const noTable = await coordinator.app.inject({
      method: 'POST',
      url: '/v1/syncs',
      payload: { table: { database: 'shop', table: 'missing' }, source: generatorSource(1, 1) },
    });
    assert.equal(noTable.statusCode, 404);
    assert.equal(noTable.json<{ code: string }>().code, 'TABLE_NOT_FOUND');
    const badType = await coordinator.app.inject({
      method: 'POST',
      url: '/v1/tables',
      payload: { database: 'shop', name: 'bad', columns: [{ name: 'x', type: 'NOT A TYPE' }] },
    });
    assert.equal(badType.statusCode, 400, badType.body);
  });

  test('docs and dashboard are served', async () => {
    const docs = await coordinator.app.inject({ method: 'GET', url: '/docs/json' });
    assert.equal(docs.statusCode, 200);
    assert.ok('/v1/syncs' in docs.json<{ paths: Record<string, unknown> }>().paths);
    const board = await coordinator.app.inject({ method: 'GET', url: '/admin/queues' });
    assert.equal(board.statusCode, 200);
    const missing = await coordinator.app.inject({ method: 'GET', url: '/v1/syncs/sync-nope' });
    assert.equal(missing.statusCode, 404);
    assert.equal(missing.headers['content-type'], 'application/problem+json; charset=utf-8');
    assert.equal(missing.json<{ code: string }>().code, 'SYNC_NOT_FOUND');
  });
});
