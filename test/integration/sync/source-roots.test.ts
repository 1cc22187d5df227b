/**
 * Source roots, against a coordinator and a worker process configured through the environment
 * (TRIBUTARY_SOURCE_ROOTS): files outside the roots — /etc/passwd, `..`, percent-encoded dots, a
 * symlink out of a root, a host in a file URI, another table's data files in the warehouse's own
 * bucket — are refused at plan time with 403 SOURCE_NOT_ALLOWED, and with the very same body
 * whether the path exists or not. Files under a root (also through a symlink that stays inside)
 * load.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { ChildProcess } from 'node:child_process';
import type { SyncRecord } from '@tributary/coordinator';
import { openObjectStore } from '@tributary/table';
import { services } from '@tributary/testkit';
import { ORDERS_COLUMNS, generatorSource, listKeys, s3, spawnListeningCoordinator, spawnWorker, stop, syncEnv, waitForPhase } from './harness.ts';

const COLUMNS = [
  { name: 'id', type: 'BIGINT' },
  { name: 'name', type: 'STRING' },
];

describe('source roots (coordinator and worker processes)', () => {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'tributary-roots-')));
  const root = join(dir, 'root');
  // An S3 connection of the operator's (the local MinIO, its secret key in a file), and one with a wrong key.
  const s3Connection = (secretAccessKeyFile: string) => ({ kind: 's3', endpoint: services.s3.endpoint, region: services.s3.region, accessKeyId: services.s3.accessKeyId, secretAccessKeyFile });
  writeFileSync(join(dir, 'landing.key'), `${services.s3.secretAccessKey}\n`, { mode: 0o600 });
  writeFileSync(join(dir, 'wrong.key'), 'not-the-secret-key-4711\n', { mode: 0o600 });
  const e = syncEnv('roots', { roots: [`file://${root}`], connections: { landing: s3Connection(join(dir, 'landing.key')), wrong: s3Connection(join(dir, 'wrong.key')) } });
  const processes: ChildProcess[] = [];
  let url = '';

  const request = async (method: string, path: string, body?: unknown): Promise<{ status: number; text: string }> => {
    const response = await fetch(`${url}${path}`, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, text: await response.text() };
  };
  const startSync = (table: string, source: unknown) => request('POST', '/v1/syncs', { table: { database: 'shop', table }, source });
  const csv = (uris: string[]) => ({ kind: 'files', format: 'csv', uris });
  const record = async (id: string) => JSON.parse((await request('GET', `/v1/syncs/${id}`)).text) as SyncRecord;

  before(async () => {
    mkdirSync(join(root, 'in'), { recursive: true });
    writeFileSync(join(root, 'in', 'a.csv'), 'id,name\n1,one\n2,two\n');
    writeFileSync(join(root, 'in', 'b.csv'), 'id,name\n3,three\n');
    writeFileSync(join(dir, 'outside.csv'), 'id,name\n666,outside\n');
    symlinkSync('/etc/passwd', join(root, 'passwd.csv'));
    symlinkSync('/etc', join(root, 'etc'));
    symlinkSync(join(dir, 'outside.csv'), join(root, 'out.csv'));
    symlinkSync(join(root, 'in', 'b.csv'), join(root, 'inner.csv'));
    const coordinator = await spawnListeningCoordinator(e);
    processes.push(coordinator.child, await spawnWorker(e));
    url = coordinator.url;
    await openObjectStore(e.sourceRoot, s3).put('landing/part-0.csv', new TextEncoder().encode('id,name\n7,seven\n8,eight\n'));
    for (const name of ['victim', 'files', 'thief', 'landed']) {
      const created = await request('POST', '/v1/tables', { database: 'shop', name, columns: name === 'victim' ? ORDERS_COLUMNS : COLUMNS });
      assert.equal(created.status, 201, created.text);
    }
  });

  after(async () => {
    await Promise.all(processes.map((p) => stop(p)));
    rmSync(dir, { recursive: true, force: true });
  });

  test('files outside the roots are refused at plan time with one body, whether they exist or not', async () => {
    // Another table's data files, in the warehouse's own bucket: the warehouse is no source root.
    const loaded = await startSync('victim', generatorSource(1, 10));
    assert.equal(loaded.status, 202, loaded.text);
    const victim = await waitForPhase(() => record(JSON.parse(loaded.text).id), ['COMMITTED', 'ABORTED']);
    assert.equal(victim.state.phase, 'COMMITTED');
    const dataFile = (await listKeys(e, 'shop.db/victim/')).find((k) => k.endsWith('.parquet'));
    assert.ok(dataFile !== undefined);

    const refused: [string, boolean][] = [
      ['file:///etc/passwd', true],
      ['file:///etc/no-such-file-4711', false],
      [`file://${root}/../outside.csv`, true],
      [`file://${root}/../no-such.csv`, false],
      [`file://${root}/%2e%2e/outside.csv`, true],
      [`file://${root}/%2E%2E/no-such.csv`, false],
      [`file://${root}/in/..%2F..%2Foutside.csv`, true],
      [`file://${root}/passwd.csv`, true], // a symlink out of the root
      [`file://${root}/out.csv`, true],
      [`file://${root}/etc/passwd`, true], // through a symlinked directory
      [`file://${root}/etc/no-such-file-4711`, false],
      [`file://${root}/etc/*`, true],
      [`file://${root}/etc/no-such-dir/*`, false],
      [`file://other.host${root}/in/a.csv`, true],
      [`file://${root}`, true],
      [`file://${root}/`, true],
      [`file://${root}*`, true],
      [`s3://${services.s3.bucket}/${e.prefix}/${dataFile}`, true],
      [`s3://${services.s3.bucket}/${e.prefix}/shop.db/victim/no-such.parquet`, false],
      [`s3://${services.s3.bucket}/${e.prefix}/*`, true],
      [`s3a://${services.s3.bucket}/${e.prefix}-src/../${e.prefix}/${dataFile}`, true],
      [`s3://${services.s3.bucket}/${e.prefix}-src%2F..%2F${e.prefix}/${dataFile}`, true],
    ];
    const bodies = new Set<string>();
    for (const [uri] of refused) {
      const response = await startSync('thief', csv([uri]));
      assert.equal(response.status, 403, `${uri}: ${response.text}`);
      bodies.add(response.text);
    }
    assert.equal(bodies.size, 1, [...bodies].join('\n'));
    const problem = JSON.parse([...bodies][0] ?? '{}') as { code: string; detail: string; context: unknown };
    assert.equal(problem.code, 'SOURCE_NOT_ALLOWED');
    assert.deepEqual(problem.context, { index: 0 });
    assert.ok(!problem.detail.includes('/'), 'no path in the answer');

    // The second URI of a request: only its index is named.
    const second = await startSync('thief', csv([`file://${root}/in/a.csv`, 'file:///etc/passwd']));
    assert.equal(second.status, 403, second.text);
    assert.deepEqual(JSON.parse(second.text).context, { index: 1 });
    // A schedule is checked when it is stored.
    const schedule = await request('PUT', `/v1/schedules/${e.prefix}-thief`, { cron: '0 0 1 1 *', sync: { table: { database: 'shop', table: 'thief' }, source: csv(['file:///etc/passwd']) } });
    assert.equal(schedule.status, 403, schedule.text);

    const syncs = JSON.parse((await request('GET', '/v1/syncs?database=shop&table=thief')).text) as { syncs: unknown[] };
    assert.equal(syncs.syncs.length, 0, 'nothing was planned');
  });

  test('files under a root load, also through a symlink that stays inside; a missing one is an ordinary 400', async () => {
    const response = await startSync('files', csv([`file://${root}/in/a.csv`, `file://localhost${root}/inner.csv`]));
    assert.equal(response.status, 202, response.text);
    const done = await waitForPhase(() => record(JSON.parse(response.text).id), ['COMMITTED', 'ABORTED']);
    assert.equal(done.state.phase, 'COMMITTED', JSON.stringify(done.state));
    const table = JSON.parse((await request('GET', '/v1/tables/shop/files')).text) as { rowCount: number };
    assert.equal(table.rowCount, 3);

    const missing = await startSync('files', csv([`file://${root}/in/no-such.csv`]));
    assert.equal(missing.status, 400, missing.text);
    assert.equal(JSON.parse(missing.text).code, 'REQUEST_INVALID');
  });

  test('a files source reads s3:// through a named S3 connection: its key, not the service’s, from the operator’s file', async () => {
    const source = (connection: string) => ({ ...csv([`${e.sourceRoot}/landing/part-*`]), connection });
    const response = await startSync('landed', source('landing'));
    assert.equal(response.status, 202, response.text);
    const done = await waitForPhase(() => record(JSON.parse(response.text).id), ['COMMITTED', 'ABORTED']);
    assert.equal(done.state.phase, 'COMMITTED', JSON.stringify(done.state));
    assert.equal((JSON.parse((await request('GET', '/v1/tables/shop/landed')).text) as { rowCount: number }).rowCount, 2);

    const wrong = await startSync('landed', source('wrong'));
    assert.equal(JSON.parse(wrong.text).code, 'STORAGE_ACCESS_DENIED', wrong.text);
    assert.ok(!wrong.text.includes('not-the-secret-key-4711'));
    const unknown = await startSync('landed', source('nope'));
    assert.equal(unknown.status, 400, unknown.text);
    assert.equal(JSON.parse(unknown.text).code, 'SOURCE_CONNECTION_UNKNOWN');
    const outside = await startSync('landed', { ...csv([`s3://${services.s3.bucket}/${e.prefix}/${(await listKeys(e, 'shop.db/'))[0] ?? ''}`]), connection: 'landing' });
    assert.equal(outside.status, 403, outside.text);
  });
});
