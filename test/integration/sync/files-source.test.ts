/**
 * The files source: NDJSON and CSV files in MinIO, named by a glob, several files per shard; the
 * table ends with exactly the files' rows (checked with our reader and with pypaimon).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { ChildProcess } from 'node:child_process';
import type { Coordinator } from '@tributary/coordinator';
import { GENERATOR_COLUMNS, generatorRow, rowConverter } from '@tributary/sources';
import { openObjectStore, openTable, type InternalRow } from '@tributary/table';
import { ORDERS_COLUMNS, canonicalRows, createOrdersTable, inProcessCoordinator, pypaimonRead, readRows, s3, spawnWorker, stop, syncEnv, waitForPhase } from './harness.ts';

const SEED = 5;
const FILES = [
  [1, 700],
  [701, 1500],
  [1501, 2000],
] as const;

function objectOf(id: number): Record<string, unknown> {
  const [, customer, store, amount, status, date, created] = generatorRow(SEED, id);
  return { order_id: id, customer_id: customer, store_id: store, amount, status, order_date: date, created_at: (created as Date).toISOString() };
}

function csvLine(id: number): string {
  const o = objectOf(id);
  return [o.order_id, o.customer_id, o.store_id, o.amount, `"${String(o.status)}, ""quoted"""`, o.order_date, o.created_at].join(',');
}

describe('files source (NDJSON and CSV in S3)', () => {
  const e = syncEnv('files');
  const source = e.sourceRoot;
  let coordinator: Coordinator;
  const workers: ChildProcess[] = [];

  before(async () => {
    const store = openObjectStore(source, s3);
    for (const [i, [from, to]] of FILES.entries()) {
      const ids = Array.from({ length: to - from + 1 }, (_, k) => from + k);
      await store.put(`ndjson/part-${i}.ndjson`, new TextEncoder().encode(ids.map((id) => JSON.stringify(objectOf(id))).join('\n') + '\n'));
      const header = 'order_id,customer_id,store_id,amount,status,order_date,created_at';
      await store.put(`csv/part-${i}.csv`, new TextEncoder().encode([header, ...ids.map(csvLine)].join('\r\n') + '\r\n'));
    }
    coordinator = await inProcessCoordinator(e);
    workers.push(...(await Promise.all([spawnWorker(e), spawnWorker(e)])));
  });
  after(async () => {
    await Promise.all(workers.map((w) => stop(w)));
    await coordinator.close();
  });

  for (const format of ['ndjson', 'csv'] as const) {
    test(`${format}: 3 files in 2 shards commit with exactly their rows`, async () => {
      const table = `from_${format}`;
      await createOrdersTable(coordinator, 'shop', table, { columns: [...ORDERS_COLUMNS.slice(0, 4), { name: 'status', type: 'STRING' }, ...ORDERS_COLUMNS.slice(5)] });
      const response = await coordinator.app.inject({
        method: 'POST',
        url: '/v1/syncs',
        payload: { table: { database: 'shop', table }, source: { kind: 'files', format, uris: [`${source}/${format}/part-*`], filesPerShard: 2 } },
      });
      assert.equal(response.statusCode, 202, response.body);
      const id = response.json<{ id: string }>().id;
      const done = await waitForPhase(() => coordinator.syncs.get(id), ['COMMITTED', 'ABORTED'], 60_000);
      assert.equal(done.state.phase, 'COMMITTED', JSON.stringify(done.state));
      assert.deepEqual(done.plan.shards.map((s) => s.id), ['files-00000', 'files-00001']);

      const t = await openTable(e.store, 'shop', table);
      const convert = rowConverter('expected', GENERATOR_COLUMNS, { fields: t.schema.fields });
      const expected: InternalRow[] = Array.from({ length: 2000 }, (_, i) => {
        const row = convert(generatorRow(SEED, i + 1), i);
        return format === 'csv' ? row.map((v, c) => (c === 4 ? `${String(v)}, "quoted"` : v)) : row;
      });
      const rows = (await readRows(e, 'shop', table)).sort((a, b) => Number((a[0] as bigint) - (b[0] as bigint)));
      assert.deepEqual(rows, expected);
      assert.deepEqual((await pypaimonRead(e, 'shop', table)).rows, canonicalRows(expected));
    });
  }

  test('a misspelt column name is refused, not loaded as a column of NULLs: 400 at plan time, an abort when a worker finds it', async () => {
    const table = 'misspelt';
    const columns = [...ORDERS_COLUMNS.slice(0, 4), { name: 'status', type: 'STRING' }, ...ORDERS_COLUMNS.slice(5)];
    await createOrdersTable(coordinator, 'shop', table, { columns });
    const store = openObjectStore(source, s3);
    const ids = [1, 2, 3];
    // `amout` for `amount` (a nullable column): before, the header loaded amount as null in every row.
    const header = 'order_id,customer_id,store_id,amout,status,order_date,created_at';
    await store.put('misspelt/a.csv', new TextEncoder().encode([header, ...ids.map(csvLine)].join('\n') + '\n'));
    const start = (src: Record<string, unknown>) => coordinator.app.inject({ method: 'POST', url: '/v1/syncs', payload: { table: { database: 'shop', table }, source: src } });
    const before = await coordinator.app.inject({ method: 'GET', url: '/v1/syncs?limit=500' });
    const refused = await start({ kind: 'files', format: 'csv', uris: [`${source}/misspelt/a.csv`] });
    assert.equal(refused.statusCode, 400, refused.body);
    const problem = refused.json<{ code: string; context: { column?: string }; detail: string }>();
    assert.equal(problem.code, 'SOURCE_SCHEMA_MISMATCH');
    assert.equal(problem.context.column, 'amout');
    assert.match(problem.detail, /column amount is not in the file/);
    assert.match(problem.detail, /unknownColumns/);
    assert.equal((await coordinator.app.inject({ method: 'GET', url: '/v1/syncs?limit=500' })).body, before.body, 'nothing was started');

    // An NDJSON key misspelt in a later object (the plan reads the first object only): the worker
    // refuses the file, the sync aborts, and nothing is committed.
    const lines = ids.map((id) => JSON.stringify(objectOf(id)));
    const { amount, ...rest } = objectOf(4);
    lines.push(JSON.stringify({ ...rest, amout: amount }));
    await store.put('misspelt/b.ndjson', new TextEncoder().encode(lines.join('\n') + '\n'));
    const started = await start({ kind: 'files', format: 'ndjson', uris: [`${source}/misspelt/b.ndjson`] });
    assert.equal(started.statusCode, 202, started.body);
    const aborted = await waitForPhase(() => coordinator.syncs.get(started.json<{ id: string }>().id), ['COMMITTED', 'ABORTED'], 60_000);
    assert.equal(aborted.state.phase, 'ABORTED', JSON.stringify(aborted.state));
    assert.equal(aborted.state.phase === 'ABORTED' ? aborted.state.reason.code : '', 'SOURCE_SCHEMA_MISMATCH');
    assert.equal(await (await openTable(e.store, 'shop', table)).latestSnapshot(), null);

    // Asked to, the CSV loads without its unknown column: amount is null, as the user chose.
    const ignored = await start({ kind: 'files', format: 'csv', uris: [`${source}/misspelt/a.csv`], unknownColumns: 'ignore' });
    assert.equal(ignored.statusCode, 202, ignored.body);
    const done = await waitForPhase(() => coordinator.syncs.get(ignored.json<{ id: string }>().id), ['COMMITTED', 'ABORTED'], 60_000);
    assert.equal(done.state.phase, 'COMMITTED', JSON.stringify(done.state));
    const rows = (await pypaimonRead(e, 'shop', table)).rows;
    assert.equal(rows.length, 3);
    const amountAt = columns.findIndex((c) => c.name === 'amount');
    assert.deepEqual(rows.map((r) => r[amountAt]), [null, null, null]);
  });
});
