/**
 * Source positions, newFilesOnly, plan-time column checks and tables made from a source's schema,
 * against the real Redis and MinIO with worker processes:
 *
 * - a files sync's snapshot lists every file read with its size and ETag (read from the snapshot
 *   JSON itself, compared with MinIO's own listing); Paimon Java still reads the table;
 * - a load of many files keeps the property bounded and puts the full list in an object;
 * - a newFilesOnly schedule fired over a folder that gains one file between loads loads each file
 *   once, and a fire with nothing new is skipped;
 * - generator and files sources whose columns do not fit the table are refused with 400 naming the
 *   column, and nothing is planned;
 * - POST /v1/tables makes tables from the generator's and from an NDJSON file's schema.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import type { Coordinator } from '@tributary/coordinator';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generatorRow } from '@tributary/sources';
import { PYARROW_TABLE_COLUMNS, writePyarrowFiles } from '../../../packages/sources/test/support/pyarrow-files.ts';
import { openObjectStore } from '@tributary/table';
import { paimonJava } from '@tributary/testkit';
import { ORDERS_COLUMNS, createOrdersTable, generatorSource, inProcessCoordinator, readRows, s3, spawnWorker, stop, syncEnv, waitForPhase, waitUntil } from './harness.ts';

const SEED = 11;

function ndjson(from: number, to: number): Uint8Array {
  const lines: string[] = [];
  for (let id = from; id <= to; id++) {
    const [, customer, store, amount, status, date, created] = generatorRow(SEED, id);
    lines.push(JSON.stringify({ order_id: id, customer_id: customer, store_id: store, amount, status, order_date: date, created_at: (created as Date).toISOString() }));
  }
  return new TextEncoder().encode(`${lines.join('\n')}\n`);
}

interface Positions {
  shards: number;
  files?: { count: number; bytes: number; list?: [string, number, string][] };
  object?: string;
  objectSha256?: string;
}

describe('source positions and newFilesOnly (files, generator)', () => {
  const e = syncEnv('positions');
  const src = openObjectStore(e.sourceRoot, s3);
  let coordinator: Coordinator;
  const workers: ChildProcess[] = [];

  const post = (payload: object) => coordinator.app.inject({ method: 'POST', url: '/v1/syncs', payload });
  const syncsOf = async (table: string): Promise<{ id: string }[]> =>
    (await coordinator.app.inject({ method: 'GET', url: `/v1/syncs?table=${table}&limit=500` })).json<{ syncs: { id: string }[] }>().syncs;
  /** The snapshot file itself, as Paimon readers see it. */
  const snapshotJson = async (table: string, id: number): Promise<{ properties: Record<string, string>; deltaRecordCount: number }> =>
    JSON.parse(new TextDecoder().decode(await e.store.get(`shop.db/${table}/snapshot/snapshot-${id}`))) as { properties: Record<string, string>; deltaRecordCount: number };
  const positionsOf = (properties: Record<string, string>): Positions => JSON.parse(properties['tributary.positions'] ?? 'null') as Positions;
  /** MinIO's own listing of a source prefix: [uri, size, etag]. */
  const listed = async (prefix: string): Promise<[string, number, string][]> => {
    const out: [string, number, string][] = [];
    for await (const o of src.list(prefix)) out.push([`${e.sourceRoot}/${o.key}`, o.size, o.etag ?? '']);
    return out;
  };
  async function load(table: string, source: object): Promise<{ id: string; snapshotId: number }> {
    const response = await post({ table: { database: 'shop', table }, source });
    assert.equal(response.statusCode, 202, response.body);
    const id = response.json<{ id: string }>().id;
    const done = await waitForPhase(() => coordinator.syncs.get(id), ['COMMITTED', 'ABORTED'], 90_000);
    assert.equal(done.state.phase, 'COMMITTED', JSON.stringify(done.state));
    assert.ok(done.state.phase === 'COMMITTED');
    return { id, snapshotId: done.state.snapshotId };
  }

  before(async () => {
    // The newFilesOnly schedule below fires every second (the default minimum between fires is 60 s).
    coordinator = await inProcessCoordinator(e, { scheduleLimits: { minIntervalMs: 1000 } });
    workers.push(...(await Promise.all([spawnWorker(e), spawnWorker(e)])));
  });
  after(async () => {
    await Promise.all(workers.map((w) => stop(w)));
    await coordinator.close();
  });

  test('a files sync lists every file read, with its size and ETag, in the snapshot; Paimon Java reads the table', async () => {
    await src.put('three/a.ndjson', ndjson(1, 40));
    await src.put('three/b.ndjson', ndjson(41, 100));
    await src.put('three/c.ndjson', ndjson(101, 130));
    await createOrdersTable(coordinator, 'shop', 'three');
    const { snapshotId } = await load('three', { kind: 'files', format: 'ndjson', uris: [`${e.sourceRoot}/three/*`], filesPerShard: 2 });
    const snapshot = await snapshotJson('three', snapshotId);
    const positions = positionsOf(snapshot.properties);
    const expected = await listed('three/');
    assert.equal(expected.length, 3);
    assert.ok(expected.every(([, , etag]) => /^[0-9a-f]{32}$/.test(etag)), 'MinIO gives an MD5 ETag per file');
    assert.deepEqual(positions.files?.list, expected);
    assert.equal(positions.files?.count, 3);
    assert.equal(positions.files?.bytes, expected.reduce((n, f) => n + f[1], 0));
    assert.equal(positions.shards, 2);
    assert.equal(positions.object, undefined);
    assert.equal(snapshot.properties['tributary.source-kind'], 'files');
    assert.match(snapshot.properties['tributary.source-id'] ?? '', /^[0-9a-f]{64}$/);
    const java = await paimonJava.read({ warehouse: e.warehouse, database: 'shop', table: 'three' });
    assert.equal(java.snapshotId, snapshotId);
    assert.deepEqual(java.rows.map((r) => Number(r[0])).sort((a, b) => a - b), Array.from({ length: 130 }, (_, i) => i + 1));
  });

  test('a load of many files keeps the property small and puts the full list in an object whose SHA-256 it records', async () => {
    const FILES = 160;
    await Promise.all(Array.from({ length: FILES }, (_, i) => src.put(`many/part-with-a-rather-long-name-${String(i).padStart(4, '0')}.ndjson`, ndjson(i * 2 + 1, i * 2 + 2))));
    await createOrdersTable(coordinator, 'shop', 'many');
    const { id, snapshotId } = await load('many', { kind: 'files', format: 'ndjson', uris: [`${e.sourceRoot}/many/*`], filesPerShard: 40 });
    const snapshot = await snapshotJson('many', snapshotId);
    const text = snapshot.properties['tributary.positions'] ?? '';
    assert.ok(Buffer.byteLength(text) <= 16 * 1024, `${Buffer.byteLength(text)} bytes`);
    const positions = positionsOf(snapshot.properties);
    assert.equal(positions.files?.count, FILES);
    assert.equal(positions.files?.list, undefined);
    assert.equal(positions.object, `.tributary/syncs/${id}/positions.json`);
    const bytes = await e.store.get(positions.object);
    assert.equal(createHash('sha256').update(bytes).digest('hex'), positions.objectSha256);
    const full = JSON.parse(new TextDecoder().decode(bytes)) as { syncId: string; shards: Record<string, { files: { uri: string; size: number; etag: string }[] }> };
    assert.equal(full.syncId, id);
    assert.deepEqual(Object.keys(full.shards), ['files-00000', 'files-00001', 'files-00002', 'files-00003']);
    const all = Object.values(full.shards).flatMap((p) => p.files.map((f): [string, number, string] => [f.uri, f.size, f.etag]));
    assert.deepEqual(all, await listed('many/'));
  });

  test('a newFilesOnly schedule over a folder that gains one file between loads loads each file once', async () => {
    await createOrdersTable(coordinator, 'shop', 'landing');
    await src.put('landing/f1.ndjson', ndjson(1001, 1010));
    const put = await coordinator.app.inject({
      method: 'PUT',
      url: '/v1/schedules/landing',
      payload: { cron: '*/1 * * * * *', sync: { table: { database: 'shop', table: 'landing' }, source: { kind: 'files', format: 'ndjson', uris: [`${e.sourceRoot}/landing/*`] } } },
    });
    assert.ok(put.statusCode === 201 || put.statusCode === 200, put.body);
    // The schedule says so: the stored sync loads new files only.
    assert.equal(put.json<{ sync: { source: { newFilesOnly?: boolean } } }>().sync.source.newFilesOnly, true);
    interface Run {
      outcome: string;
      syncId?: string;
      code?: string;
      phase: string | null;
    }
    const runs = async (): Promise<Run[]> => (await coordinator.app.inject({ method: 'GET', url: '/v1/schedules/landing?runs=100' })).json<{ runs: Run[] }>().runs;
    const committedLoads = async (n: number): Promise<Run[]> =>
      waitUntil(async () => {
        const started = (await runs()).filter((r) => r.outcome === 'started');
        return started.length >= n && started.every((r) => r.phase === 'COMMITTED' || r.phase === 'ABORTED') ? started : undefined;
      }, `${n} scheduled loads committed`, 60_000);
    await committedLoads(1);
    await src.put('landing/f2.ndjson', ndjson(1011, 1025));
    await committedLoads(2);
    await src.put('landing/f3.ndjson', ndjson(1026, 1030));
    const started = await committedLoads(3);
    // With no new file, a later fire loads nothing: it is skipped, saying why.
    await waitUntil(async () => (await runs()).some((r) => r.outcome === 'skipped' && r.code === 'SYNC_NOTHING_TO_LOAD'), 'a skipped fire', 30_000);
    const loads = (await runs()).filter((r) => r.outcome === 'started');
    const off = await coordinator.app.inject({ method: 'DELETE', url: '/v1/schedules/landing' });
    assert.ok(off.statusCode < 300, off.body);
    assert.equal(loads.length, 3, JSON.stringify(loads));
    assert.ok(started.every((r) => r.phase === 'COMMITTED'), JSON.stringify(started));
    // Each load read exactly the one file that was new, and the table holds every row once.
    const perLoad: string[][] = [];
    for (let id = 1; id <= 3; id++) perLoad.push((positionsOf((await snapshotJson('landing', id)).properties).files?.list ?? []).map(([uri]) => uri));
    assert.deepEqual(perLoad, [['f1'], ['f2'], ['f3']].map(([f]) => [`${e.sourceRoot}/landing/${f ?? ''}.ndjson`]));
    const ids = (await readRows(e, 'shop', 'landing')).map((r) => Number(r[0])).sort((a, b) => a - b);
    assert.deepEqual(ids, Array.from({ length: 30 }, (_, i) => 1001 + i));
  });

  test('columns that do not fit are refused at plan time with 400 naming the column; nothing is planned', async () => {
    const cases: [string, { name: string; type: string }[], object, string][] = [
      // The generator's order_id is a BIGINT: an INT column cannot hold it.
      ['gen_narrow', [{ name: 'order_id', type: 'INT NOT NULL' }, ...ORDERS_COLUMNS.slice(1)], generatorSource(2, 10), 'order_id'],
      // A NOT NULL column the generator does not have.
      ['gen_extra', [...ORDERS_COLUMNS, { name: 'region', type: 'STRING NOT NULL' }], generatorSource(2, 10), 'region'],
      ['gen_timestamp', [...ORDERS_COLUMNS.slice(0, 6), { name: 'created_at', type: 'TIMESTAMP(0)' }], generatorSource(2, 10), 'created_at'],
    ];
    await src.put('bad/no-store.csv', new TextEncoder().encode('order_id,customer_id,amount\n1,2,3.00\n'));
    cases.push(['csv_missing', [...ORDERS_COLUMNS], { kind: 'files', format: 'csv', uris: [`${e.sourceRoot}/bad/no-store.csv`] }, 'store_id']);
    await src.put('bad/bool.ndjson', new TextEncoder().encode(`${JSON.stringify({ order_id: 1, customer_id: 2, store_id: true })}\n`));
    cases.push(['ndjson_bool', [...ORDERS_COLUMNS], { kind: 'files', format: 'ndjson', uris: [`${e.sourceRoot}/bad/bool.ndjson`] }, 'store_id']);
    // A Parquet file written by pyarrow: its BOOLEAN `flag` cannot fill an INT column, its nested `extra` cannot be read at all.
    const dir = mkdtempSync(join(tmpdir(), 'positions-parquet-'));
    try {
      writePyarrowFiles([{ path: join(dir, 'p.parquet'), start: 0, count: 10, ts_unit: 'us', extra: true }]);
      await src.put('bad/p.parquet', readFileSync(join(dir, 'p.parquet')));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    const parquet = { kind: 'files', format: 'parquet', uris: [`${e.sourceRoot}/bad/p.parquet`] };
    // Its `extra` is no column of the table: refused by default; ignored on request, then `flag` is refused.
    cases.push(['parquet_unknown', PYARROW_TABLE_COLUMNS.map((c) => ({ ...c })), parquet, 'extra']);
    cases.push(['parquet_flag', PYARROW_TABLE_COLUMNS.map((c) => (c.name === 'flag' ? { name: 'flag', type: 'INT' } : { ...c })), { ...parquet, unknownColumns: 'ignore' }, 'flag']);
    cases.push(['parquet_nested', [...PYARROW_TABLE_COLUMNS, { name: 'extra', type: 'STRING' }], parquet, 'extra']);
    for (const [table, columns, source, column] of cases) {
      await createOrdersTable(coordinator, 'shop', table, { columns });
      const response = await post({ table: { database: 'shop', table }, source });
      assert.equal(response.statusCode, 400, `${table}: ${response.body}`);
      const problem = response.json<{ code: string; context?: { column?: string } }>();
      assert.equal(problem.code, 'SOURCE_SCHEMA_MISMATCH', table);
      assert.equal(problem.context?.column, column, table);
      assert.deepEqual(await syncsOf(table), [], `${table}: nothing planned`);
    }
  });

  test('POST /v1/tables makes a table from the generator\'s schema and from an NDJSON file\'s', async () => {
    const generator = await coordinator.app.inject({ method: 'POST', url: '/v1/tables', payload: { database: 'shop', name: 'from_gen', fromSource: generatorSource(4, 25) } });
    assert.equal(generator.statusCode, 201, generator.body);
    const made = generator.json<{ primaryKeys: string[]; options: Record<string, string>; columns: { name: string; type: string }[] }>();
    assert.deepEqual(made.primaryKeys, ['order_id']);
    assert.equal(made.options.bucket, '1'); // 100 rows: well under one GiB
    assert.deepEqual(made.columns.map((c) => [c.name, c.type]), ORDERS_COLUMNS.map((c) => [c.name, c.type]));
    await load('from_gen', generatorSource(4, 25));
    assert.equal((await readRows(e, 'shop', 'from_gen')).length, 100);

    await src.put('schema/x.ndjson', new TextEncoder().encode(`${JSON.stringify({ id: 1, price: 2.5, label: 'a', ok: true })}\n`));
    const files = await coordinator.app.inject({
      method: 'POST',
      url: '/v1/tables',
      payload: { database: 'shop', name: 'from_files', fromSource: { kind: 'files', format: 'ndjson', uris: [`${e.sourceRoot}/schema/x.ndjson`] } },
    });
    assert.equal(files.statusCode, 201, files.body);
    const fromFiles = files.json<{ primaryKeys: string[]; options: Record<string, string>; columns: { name: string; type: string }[] }>();
    assert.deepEqual(fromFiles.columns.map((c) => [c.name, c.type]), [
      ['id', 'BIGINT'],
      ['price', 'DOUBLE'],
      ['label', 'STRING'],
      ['ok', 'BOOLEAN'],
    ]);
    assert.deepEqual(fromFiles.primaryKeys, []);
    assert.equal(fromFiles.options.bucket, '-1');
  });
});
