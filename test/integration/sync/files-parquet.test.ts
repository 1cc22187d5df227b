/**
 * The files source over Parquet files written by pyarrow: four files holding one logical data set
 * in different physical encodings (timestamps as millis, micros and INT96; decimals as INT64 and
 * fixed bytes; snappy, zstd, gzip; several row groups), uploaded to MinIO and synced with 2 worker
 * processes in 2 shards. The table ends with exactly the files' rows, read by our reader and by
 * pypaimon. A value that does not fit aborts the sync with the file, row and column in the reason.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { ChildProcess } from 'node:child_process';
import type { Coordinator } from '@tributary/coordinator';
import { openObjectStore, type InternalRow } from '@tributary/table';
import { PYARROW_TABLE_COLUMNS, pyarrowRow, writePyarrowFiles, type PyarrowFileSpec } from '../../../packages/sources/test/support/pyarrow-files.ts';
import { canonicalRows, inProcessCoordinator, listKeys, pypaimonRead, readRows, s3, spawnWorker, stop, syncEnv, waitForPhase } from './harness.ts';

const dir = mkdtempSync(join(tmpdir(), 'tributary-parquet-sync-'));

const FILES: readonly PyarrowFileSpec[] = [
  { path: join(dir, 'part-0.parquet'), start: 0, count: 2000, ts_unit: 'ms', decimal_int: true, compression: 'snappy', row_group: 700 },
  { path: join(dir, 'part-1.parquet'), start: 2000, count: 3000, ts_unit: 'us', compression: 'zstd', row_group: 1000 },
  { path: join(dir, 'part-2.parquet'), start: 5000, count: 1000, ts_unit: 'int96', compression: 'gzip', rename: { name: 'Name' }, extra: true },
  { path: join(dir, 'part-3.parquet'), start: 6000, count: 1500, ts_unit: 'ns', decimal_int: true, compression: 'zstd', drop: ['note'], data_page_version: '2.0' },
];
const BAD: PyarrowFileSpec = { path: join(dir, 'bad.parquet'), start: 0, count: 100, ts_unit: 'us', overflow_row: 73 };

describe('files source: Parquet files written by pyarrow, in MinIO', () => {
  const e = syncEnv('parquet');
  const source = e.sourceRoot;
  let coordinator: Coordinator;
  const workers: ChildProcess[] = [];

  before(async () => {
    writePyarrowFiles([...FILES, BAD]);
    const store = openObjectStore(source, s3);
    for (const f of [...FILES, BAD]) await store.put(`${f === BAD ? 'bad' : 'good'}/${f.path.split('/').pop() ?? ''}`, readFileSync(f.path));
    coordinator = await inProcessCoordinator(e);
    workers.push(...(await Promise.all([spawnWorker(e), spawnWorker(e)])));
  });
  after(async () => {
    await Promise.all(workers.map((w) => stop(w)));
    await coordinator.close();
    rmSync(dir, { recursive: true, force: true });
  });

  function start(table: string, uris: string[], options: { unknownColumns?: 'ignore' } = {}) {
    return coordinator.app.inject({
      method: 'POST',
      url: '/v1/syncs',
      payload: { table: { database: 'lake', table }, source: { kind: 'files', format: 'parquet', uris, filesPerShard: 2, ...options } },
    });
  }

  async function sync(table: string, uris: string[], options: { unknownColumns?: 'ignore' } = {}) {
    const created = await coordinator.app.inject({ method: 'POST', url: '/v1/tables', payload: { database: 'lake', name: table, columns: PYARROW_TABLE_COLUMNS } });
    assert.equal(created.statusCode, 201, created.body);
    const response = await start(table, uris, options);
    assert.equal(response.statusCode, 202, response.body);
    return waitForPhase(() => coordinator.syncs.get(response.json<{ id: string }>().id), ['COMMITTED', 'ABORTED'], 90_000);
  }

  test('4 files in 2 shards commit with exactly their rows, whatever their encoding', async () => {
    // part-2 has a column the table lacks (extra): refused unless the source ignores such columns.
    const created = await coordinator.app.inject({ method: 'POST', url: '/v1/tables', payload: { database: 'lake', name: 'events_strict', columns: PYARROW_TABLE_COLUMNS } });
    assert.equal(created.statusCode, 201, created.body);
    const refused = await start('events_strict', [`${source}/good/part-*`]);
    assert.equal(refused.statusCode, 400, refused.body);
    assert.deepEqual(refused.json<{ code: string; context: unknown }>().code, 'SOURCE_SCHEMA_MISMATCH');
    assert.deepEqual(refused.json<{ context: unknown }>().context, { file: `${source}/good/part-2.parquet`, column: 'extra' });

    const done = await sync('events', [`${source}/good/part-*`], { unknownColumns: 'ignore' });
    assert.equal(done.state.phase, 'COMMITTED', JSON.stringify(done.state));
    assert.deepEqual(done.plan.shards.map((s) => s.id), ['files-00000', 'files-00001']);

    const expected: InternalRow[] = Array.from({ length: 7500 }, (_, i) => pyarrowRow(i, i >= 6000 ? ['note'] : []));
    const rows = (await readRows(e, 'lake', 'events')).sort((a, b) => Number((a[0] as bigint) - (b[0] as bigint)));
    assert.equal(rows.length, expected.length);
    assert.deepEqual(rows, expected);
    const oracle = await pypaimonRead(e, 'lake', 'events');
    assert.equal(oracle.rows.length, expected.length);
    assert.deepEqual(oracle.rows, canonicalRows(expected));
  });

  test('a value that does not fit aborts the sync naming the file, the row and the column; nothing is committed', async () => {
    const done = await sync('events_bad', [`${source}/bad/bad.parquet`]);
    assert.equal(done.state.phase, 'ABORTED');
    if (done.state.phase !== 'ABORTED') return;
    const reason = done.state.reason;
    assert.equal(reason.code, 'SOURCE_ROW_INVALID');
    assert.deepEqual(
      { shard: reason.context.shard, file: reason.context.file, fileRow: reason.context.fileRow, column: reason.context.column },
      { shard: 'files-00000', file: `${source}/bad/bad.parquet`, fileRow: 73, column: 'amount' },
    );
    assert.match(reason.message, /bad\.parquet row 73, column amount: a number too large for DECIMAL\(12, 2\)/);
    assert.deepEqual(await readRows(e, 'lake', 'events_bad'), []);
    assert.equal(done.state.stagedDeleted, true);
    assert.deepEqual((await listKeys(e, `.tributary/syncs/${done.id}/`)).filter((k) => !k.endsWith('/outcome.json')), []);
    assert.deepEqual((await listKeys(e, 'lake.db/events_bad/')).filter((k) => k.includes(`/data-${done.id}-`)), []);
  });
});
