/**
 * The tables API against real Redis, MinIO and worker processes: list (paged), describe, preview
 * rows (JSON-safe values, bounded limit), snapshots, files (paged), and drop (admin; refused while
 * a sync of the table has not ended).
 */
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { after, before, describe, test } from 'node:test';
import type { Coordinator } from '@tributary/coordinator';
import {
  createOrdersTable,
  generatorSource,
  inProcessCoordinator,
  listKeys,
  readRows,
  spawnWorker,
  stop,
  syncEnv,
  waitForPhase,
  waitUntil,
} from '../sync/harness.ts';


describe('tables API (real Redis, MinIO, 1 worker process)', () => {
  const e = syncEnv('tables-api');
  let c: Coordinator;
  let worker: ChildProcess;

  const get = async (url: string) => c.app.inject({ method: 'GET', url });
  const json = async <T>(url: string, status = 200): Promise<T> => {
    const response = await get(url);
    assert.equal(response.statusCode, status, `${url}: ${response.body}`);
    return response.json<T>();
  };
  const problem = async (method: 'GET' | 'DELETE', url: string) => {
    const response = await c.app.inject({ method, url });
    assert.match(String(response.headers['content-type']), /^application\/problem\+json/, `${url}: ${response.body}`);
    return { status: response.statusCode, ...response.json<{ code: string; detail: string }>() };
  };
  const sync = async (table: string, source: Record<string, unknown>): Promise<string> => {
    const response = await c.app.inject({ method: 'POST', url: '/v1/syncs', payload: { table: { database: 'shop', table }, source } });
    assert.equal(response.statusCode, 202, response.body);
    return response.json<{ id: string }>().id;
  };

  before(async () => {
    c = await inProcessCoordinator(e);
    worker = await spawnWorker(e);
    await createOrdersTable(c, 'shop', 'orders', { primaryKeys: ['order_id'], bucket: 2 });
    await createOrdersTable(c, 'shop', 'events', { partitionKeys: ['order_date'] });
    await createOrdersTable(c, 'archive', 'old_orders');
    const id = await sync('orders', generatorSource(3, 40));
    assert.equal((await waitForPhase(() => c.syncs.get(id), ['COMMITTED', 'ABORTED'])).state.phase, 'COMMITTED');
    const second = await sync('events', generatorSource(2, 30));
    assert.equal((await waitForPhase(() => c.syncs.get(second), ['COMMITTED', 'ABORTED'])).state.phase, 'COMMITTED');
  });
  after(async () => {
    await stop(worker);
    await c.close();
  });

  test('GET /v1/tables lists every table with its keys, bucket and latest snapshot; pages follow the cursor', async () => {
    type Tables = { tables: { database: string; table: string; primaryKeys: string[]; partitionKeys: string[]; bucket: number; latestSnapshotId: number | null }[]; nextCursor: string | null };
    const all = await json<Tables>('/v1/tables');
    assert.deepEqual(all, {
      tables: [
        { database: 'archive', table: 'old_orders', primaryKeys: [], partitionKeys: [], bucket: -1, latestSnapshotId: null },
        { database: 'shop', table: 'events', primaryKeys: [], partitionKeys: ['order_date'], bucket: -1, latestSnapshotId: 1 },
        { database: 'shop', table: 'orders', primaryKeys: ['order_id'], partitionKeys: [], bucket: 2, latestSnapshotId: 1 },
      ],
      nextCursor: null,
    });
    const seen: string[] = [];
    let url = '/v1/tables?limit=2';
    for (let pages = 0; ; pages++) {
      assert.ok(pages < 3, 'two pages');
      const page = await json<Tables>(url);
      seen.push(...page.tables.map((t) => `${t.database}.${t.table}`));
      if (page.nextCursor === null) break;
      url = `/v1/tables?limit=2&cursor=${encodeURIComponent(page.nextCursor)}`;
    }
    assert.deepEqual(seen, ['archive.old_orders', 'shop.events', 'shop.orders']);
    const bad = await problem('GET', '/v1/tables?cursor=not-a-cursor');
    assert.deepEqual([bad.status, bad.code], [400, 'TABLE_CURSOR_INVALID']);
    const other = Buffer.from(JSON.stringify({ k: 'files', of: 'shop.orders', s: 1, o: 1 })).toString('base64url');
    assert.equal((await problem('GET', `/v1/tables?cursor=${other}`)).code, 'TABLE_CURSOR_INVALID');
    assert.equal((await problem('GET', '/v1/tables?limit=1001')).code, 'REQUEST_INVALID');
  });

  test('GET …/rows previews JSON-safe rows of the latest or a given snapshot; the limit is bounded', async () => {
    type Rows = { snapshotId: number | null; columns: { name: string; type: string }[]; rows: (string | number | boolean | null)[][] };
    const preview = await json<Rows>('/v1/tables/shop/orders/rows?limit=7');
    assert.equal(preview.snapshotId, 1);
    assert.deepEqual(preview.columns.map((col) => col.name), ['order_id', 'customer_id', 'store_id', 'amount', 'status', 'order_date', 'created_at']);
    assert.equal(preview.columns[3]?.type, 'DECIMAL(12, 2)');
    assert.equal(preview.rows.length, 7);
    // Each previewed row is a row of the table, its values written as JSON can carry them.
    const table = new Map((await readRows(e, 'shop', 'orders')).map((r) => [String(r[0]), r]));
    for (const row of preview.rows) {
      const [orderId, customerId, , amount, status, orderDate] = row;
      assert.equal(typeof orderId, 'string', 'BIGINT as text');
      const stored = table.get(orderId as string);
      assert.ok(stored !== undefined, `order ${String(orderId)} is in the table`);
      assert.equal(customerId, stored[1]);
      const cents = stored[3] as bigint;
      const sign = cents < 0n ? '-' : '';
      const abs = cents < 0n ? -cents : cents;
      assert.equal(amount, `${sign}${abs / 100n}.${String(abs % 100n).padStart(2, '0')}`, 'DECIMAL as plain text');
      assert.equal(status, stored[4]);
      assert.equal(orderDate, new Date((stored[5] as number) * 86_400_000).toISOString().slice(0, 10));
    }
    assert.equal((await json<Rows>('/v1/tables/shop/orders/rows?snapshot=1&limit=1000')).rows.length, 120);
    assert.equal((await json<Rows>('/v1/tables/shop/orders/rows')).rows.length, 20, 'default limit');
    assert.deepEqual(await json<Rows>('/v1/tables/archive/old_orders/rows'), { ...(await json<Rows>('/v1/tables/archive/old_orders/rows')), snapshotId: null, rows: [] });
    const tooMany = await problem('GET', '/v1/tables/shop/orders/rows?limit=1001');
    assert.deepEqual([tooMany.status, tooMany.code], [400, 'REQUEST_INVALID']);
    assert.equal((await problem('GET', '/v1/tables/shop/orders/rows?limit=0')).code, 'REQUEST_INVALID');
    const missingSnapshot = await problem('GET', '/v1/tables/shop/orders/rows?snapshot=99');
    assert.deepEqual([missingSnapshot.status, missingSnapshot.code], [404, 'SNAPSHOT_NOT_FOUND']);
    const missingTable = await problem('GET', '/v1/tables/shop/nothing/rows');
    assert.deepEqual([missingTable.status, missingTable.code], [404, 'TABLE_NOT_FOUND']);
    // An error names no cell value.
    assert.ok(!missingSnapshot.detail.includes(String(preview.rows[0]?.[0])));
  });

  test('GET …/snapshots lists snapshots newest first with kind, time, counts and commit user', async () => {
    type Snapshots = { snapshots: { id: number; commitKind: string; time: string; commitUser: string; totalRecordCount: number; deltaRecordCount: number }[]; nextCursor: string | null };
    const second = await sync('orders', generatorSource(1, 10, { seed: 7 }));
    assert.equal((await waitForPhase(() => c.syncs.get(second), ['COMMITTED', 'ABORTED'])).state.phase, 'COMMITTED');
    const list = await json<Snapshots>('/v1/tables/shop/orders/snapshots');
    assert.deepEqual(list.snapshots.map((s) => s.id), [2, 1]);
    const [newest] = list.snapshots;
    assert.equal(newest?.commitUser, `tributary-${second}`);
    assert.equal(newest?.commitKind, 'APPEND');
    assert.equal(newest?.deltaRecordCount, 10);
    assert.equal(newest?.totalRecordCount, 130);
    assert.ok(Math.abs(Date.parse(newest?.time ?? '') - Date.now()) < 10 * 60_000, newest?.time);
    const first = await json<Snapshots>('/v1/tables/shop/orders/snapshots?limit=1');
    assert.deepEqual(first.snapshots.map((s) => s.id), [2]);
    assert.ok(first.nextCursor !== null);
    const rest = await json<Snapshots>(`/v1/tables/shop/orders/snapshots?limit=1&cursor=${encodeURIComponent(first.nextCursor)}`);
    assert.deepEqual([rest.snapshots.map((s) => s.id), rest.nextCursor], [[1], null]);
    assert.equal((await problem('GET', `/v1/tables/shop/events/snapshots?cursor=${encodeURIComponent(first.nextCursor)}`)).code, 'TABLE_CURSOR_INVALID', "another table's cursor");
    assert.deepEqual(await json<Snapshots>('/v1/tables/archive/old_orders/snapshots'), { snapshots: [], nextCursor: null });
  });

  test('GET …/files lists the live files of a snapshot with partition, bucket, level, rows and size; paged', async () => {
    type Files = { snapshotId: number | null; files: { partition: string; bucket: number; level: number; path: string; rows: number; size: number }[]; nextCursor: string | null };
    const described = await json<{ fileCount: number; rowCount: number; latestSnapshotId: number }>('/v1/tables/shop/events');
    const all = await json<Files>('/v1/tables/shop/events/files');
    assert.equal(all.snapshotId, described.latestSnapshotId);
    assert.equal(all.files.length, described.fileCount);
    assert.equal(all.files.reduce((n, f) => n + f.rows, 0), described.rowCount);
    const keys = new Set(await listKeys(e, 'shop.db/events/'));
    for (const f of all.files) {
      assert.match(f.partition, /^order_date=\d+\/$/);
      assert.ok(f.path.startsWith(`${f.partition}bucket-${f.bucket}/`), f.path);
      assert.ok(keys.has(`shop.db/events/${f.path}`), `${f.path} exists`);
      assert.ok(f.size > 0 && f.level === 0);
    }
    assert.deepEqual(all.files.map((f) => f.path), [...all.files.map((f) => f.path)].sort());
    const paged: string[] = [];
    let url = '/v1/tables/shop/events/files?limit=2';
    for (;;) {
      const page = await json<Files>(url);
      paged.push(...page.files.map((f) => f.path));
      if (page.nextCursor === null) break;
      url = `/v1/tables/shop/events/files?limit=2&cursor=${encodeURIComponent(page.nextCursor)}`;
    }
    assert.deepEqual(paged, all.files.map((f) => f.path));
    const pk = await json<Files>('/v1/tables/shop/orders/files?snapshot=1');
    assert.equal(pk.snapshotId, 1);
    assert.deepEqual([...new Set(pk.files.map((f) => f.bucket))].sort(), [0, 1]);
    assert.equal(pk.files.reduce((n, f) => n + f.rows, 0), 120);
    assert.equal((await problem('GET', '/v1/tables/shop/orders/files?snapshot=42')).code, 'SNAPSHOT_NOT_FOUND');
  });

  test('DELETE /v1/tables/{db}/{table}: 409 while a sync of it runs, then removes the directory; 404 when missing', async () => {
    await createOrdersTable(c, 'shop', 'doomed');
    const id = await sync('doomed', generatorSource(2, 2000, { batchRows: 10, faults: { delayMsPerBatch: 200 } }));
    await waitUntil(async () => (await c.syncs.get(id)).state.phase === 'PREPARING', 'the sync is preparing');
    const refused = await problem('DELETE', '/v1/tables/shop/doomed');
    assert.deepEqual([refused.status, refused.code], [409, 'TABLE_SYNC_ACTIVE']);
    assert.ok(refused.detail.includes(id), refused.detail);
    assert.equal((await get('/v1/tables/shop/doomed')).statusCode, 200, 'the table is still there');
    assert.equal((await c.app.inject({ method: 'POST', url: `/v1/syncs/${id}/abort`, payload: {} })).statusCode, 202);
    await waitForPhase(() => c.syncs.get(id), ['ABORTED']);
    const dropped = await c.app.inject({ method: 'DELETE', url: '/v1/tables/shop/doomed' });
    assert.equal(dropped.statusCode, 204, dropped.body);
    assert.deepEqual(await listKeys(e, 'shop.db/doomed/'), []);
    assert.equal((await problem('GET', '/v1/tables/shop/doomed')).code, 'TABLE_NOT_FOUND');
    const again = await problem('DELETE', '/v1/tables/shop/doomed');
    assert.deepEqual([again.status, again.code], [404, 'TABLE_NOT_FOUND']);
    const listed = await json<{ tables: { table: string }[] }>('/v1/tables');
    assert.ok(!listed.tables.some((t) => t.table === 'doomed'));
    assert.equal((await problem('DELETE', '/v1/tables/shop/no%2Fslash')).code, 'REQUEST_INVALID');
  });
});
