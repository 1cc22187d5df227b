/**
 * The changelog audit over REST and through the CLI, against a coordinator process and a table on
 * MinIO loaded by the changelog writer: per key its RowKinds with snapshot, commit kind, file and
 * sequence number; a crafted +U without -U flagged; typed 400s for bad windows and keys (no key
 * value echoed); 404s; and pypaimon reading the data of the same table.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { canonicalRows, pypaimon, uniqueName } from '@tributary/testkit';
import { dataFilesMessage, openTable, type InternalRow, type KeyedChange, type Table } from '@tributary/table';
import { spawnListeningCoordinator, stop, syncEnv } from '../sync/harness.ts';

const root = fileURLToPath(new URL('../../../', import.meta.url));

function cli(args: readonly string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, ['packages/cli/src/main.ts', ...args], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve) => child.once('close', (code) => resolve({ code, stdout, stderr })));
}

interface Audit {
  from: number | null;
  to: number | null;
  nextFrom: number | null;
  keyColumns: string[];
  keys: {
    partition: string;
    bucket: number;
    key: unknown[];
    events: { snapshotId: number; commitKind: string; commitUser: string; file: string; sequenceNumber: string; rowKind: string; row: unknown[] }[];
    findings: { snapshotId: number; flag: string; event: number | null }[];
  }[];
  counts: Record<string, number>;
  truncated: boolean;
}

describe('GET /v1/tables/{db}/{table}/changelog and tributary table changelog (coordinator process, MinIO)', () => {
  const e = syncEnv('changelog-api');
  const database = uniqueName('cl_db').replaceAll('-', '_');
  let coordinator: ChildProcess;
  let url = '';
  let table: Table;

  const get = async (path: string) => {
    const response = await fetch(`${url}${path}`);
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };
  const load = async (changes: readonly KeyedChange[]) => {
    const latest = await table.latestSnapshot();
    const base = latest === null ? null : Number(latest.id);
    const write = await table.newChangelogWrite({ baseSnapshotId: base, writerId: 'api' });
    await write.write(changes);
    await table.newCommit(uniqueName('loader')).commit(write.prepareCommit(), base === null ? {} : { baseSnapshotId: base });
  };
  const order = (id: number, storeId: string, cents: number): InternalRow => [BigInt(id), storeId, BigInt(cents)];

  before(async () => {
    const started = await spawnListeningCoordinator(e);
    coordinator = started.child;
    url = started.url;
    const created = await fetch(`${url}/v1/tables`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        database,
        name: 'orders',
        columns: [{ name: 'id', type: 'BIGINT NOT NULL' }, { name: 'store_id', type: 'STRING' }, { name: 'amount', type: 'DECIMAL(18, 2)' }],
        primaryKeys: ['id'],
        bucket: 2,
        options: { 'changelog-producer': 'input' },
      }),
    });
    assert.equal(created.status, 201, await created.text());
    const append = await fetch(`${url}/v1/tables`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ database, name: 'events', columns: [{ name: 'id', type: 'BIGINT' }] }),
    });
    assert.equal(append.status, 201);
    table = await openTable(e.store, database, 'orders');
    await load([{ kind: 'upsert', row: order(1, 'A', 10000) }, { kind: 'upsert', row: order(2, 'B', 500) }]);
    await load([{ kind: 'upsert', row: order(1, 'A', 8000) }, { kind: 'delete', row: [2n, null, null] }]);
  });
  after(async () => {
    await stop(coordinator);
  });

  test('a clean table: per key its RowKinds, snapshots, files and sequence numbers, no finding', async () => {
    const { status, body } = await get(`/v1/tables/${database}/orders/changelog`);
    assert.equal(status, 200, JSON.stringify(body));
    const audit = body as unknown as Audit;
    assert.equal(audit.from, 1);
    assert.equal(audit.to, 2);
    assert.equal(audit.nextFrom, null);
    assert.deepEqual(audit.keyColumns, ['id']);
    assert.deepEqual(
      audit.keys.map((k) => [k.key, k.events.map((ev) => `${ev.snapshotId}:${ev.commitKind}:${ev.rowKind}:${JSON.stringify(ev.row)}`)]),
      [
        [['1'], ['1:APPEND:+I:["1","A","100.00"]', '2:APPEND:-U:["1","A","100.00"]', '2:APPEND:+U:["1","A","80.00"]']],
        [['2'], ['1:APPEND:+I:["2","B","5.00"]', '2:APPEND:-D:["2","B","5.00"]']],
      ].sort((a, b) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1)),
    );
    for (const k of audit.keys) {
      assert.deepEqual(k.findings, []);
      for (const ev of k.events) {
        assert.match(ev.file, new RegExp(`^bucket-${k.bucket}/changelog-api-[0-9a-f-]{36}-\\d+\\.parquet$`));
        assert.match(ev.sequenceNumber, /^\d+$/);
      }
    }
    assert.ok(Object.values(audit.counts).every((n) => n === 0));
    // One key, one snapshot.
    const one = (await get(`/v1/tables/${database}/orders/changelog?from=2&to=2&key=1`)).body as unknown as Audit;
    assert.deepEqual(one.keys.map((k) => k.events.map((ev) => ev.rowKind)), [['-U', '+U']]);
    assert.equal(one.nextFrom, null);
    const first = (await get(`/v1/tables/${database}/orders/changelog?from=1&to=1`)).body as unknown as Audit;
    assert.equal(first.nextFrom, 2, 'the next window starts after this one');
  });

  test('pypaimon reads the table the changelog writer wrote', async () => {
    const read = await pypaimon.read({ warehouse: e.warehouse, database, table: 'orders' });
    assert.equal(read.snapshotId, 2);
    assert.deepEqual(canonicalRows(read.rows), canonicalRows([[1n, 'A', 8000n]]));
  });

  test('a crafted duplicate +I is flagged, on its row; the CLI prints it', async () => {
    const latest = Number((await table.latestSnapshot())?.id);
    const w = await table.newChangelogWrite({ baseSnapshotId: latest, writerId: 'api' });
    const [result] = await w.write([{ kind: 'upsert', row: order(1, 'A', 9000) }]);
    const message = result?.message;
    assert.ok(message !== null && message !== undefined);
    // A loader that copies its input into the changelog (Paimon's input producer fed upserts as +I):
    // key 1's data file of this write, with the changelog file of a write from an empty base (+I).
    const lone = await table.newChangelogWrite({ baseSnapshotId: null, writerId: 'api' });
    const [insert] = await lone.write([{ kind: 'upsert', row: order(1, 'A', 9000) }]);
    const crafted = dataFilesMessage(message.partition, message.bucket, message.totalBuckets, {
      newFiles: message.dataIncrement.newFiles,
      changelogFiles: insert?.message?.dataIncrement.changelogFiles ?? [],
    });
    await table.newCommit(uniqueName('bad-loader')).commit([crafted], { baseSnapshotId: latest });
    const audit = (await get(`/v1/tables/${database}/orders/changelog?from=${latest + 1}&to=${latest + 1}`)).body as unknown as Audit;
    assert.deepEqual(audit.keys.map((k) => k.findings.map((f) => [f.flag, f.event === null ? null : k.events[f.event]?.rowKind])), [[['DUPLICATE_INSERT', '+I']]]);
    const run = await cli(['table', 'changelog', `${database}.orders`, '--from', String(latest + 1)], { ...e.env, TRIBUTARY_URL: url });
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /^ID\s+BUCKET\s+SNAPSHOT\s+COMMIT\s+KIND\s+SEQ\s+FILE\s+ROW\s+FLAGS/m);
    assert.match(run.stdout, /DUPLICATE_INSERT/);
    assert.match(run.stdout, /1 keys, DUPLICATE_INSERT 1/);
    const json = await cli(['table', 'changelog', `${database}.orders`, '--key', '2', '--json'], { ...e.env, TRIBUTARY_URL: url });
    assert.equal(json.code, 0, json.stderr);
    assert.deepEqual((JSON.parse(json.stdout) as Audit).keys.map((k) => k.events.map((ev) => ev.rowKind)), [['+I', '-D']]);
  });

  test('typed 400s for a bad window, key or limit, without echoing the key; 404s for a missing table or snapshot', async () => {
    const bad = async (query: string, code: string) => {
      const { status, body } = await get(`/v1/tables/${database}/orders/changelog${query}`);
      assert.equal(status, 400, `${query}: ${JSON.stringify(body)}`);
      assert.equal(body.code, code, query);
      return body;
    };
    await bad('?from=2&to=1', 'CHANGELOG_AUDIT_INVALID');
    await bad('?from=1&to=101', 'CHANGELOG_AUDIT_INVALID');
    await bad('?key=1&key=2', 'CHANGELOG_AUDIT_INVALID');
    const unparsable = await bad('?key=secret-value-7', 'CHANGELOG_AUDIT_INVALID');
    assert.doesNotMatch(JSON.stringify(unparsable), /secret-value-7/);
    await bad('?limit=0', 'REQUEST_INVALID');
    // The key's bounds keep the longest URL inside Node's request-head limit: a 400, never Node's 431.
    await bad(`?key=${'7'.repeat(129)}`, 'REQUEST_INVALID');
    await bad(`?${Array.from({ length: 9 }, () => 'key=1').join('&')}`, 'REQUEST_INVALID');
    await bad('?from=abc', 'REQUEST_INVALID');
    const append = await get(`/v1/tables/${database}/events/changelog`);
    assert.equal(append.status, 400, 'an append table has no keys');
    assert.equal(append.body.code, 'CHANGELOG_AUDIT_INVALID');
    assert.equal((await get(`/v1/tables/${database}/missing/changelog`)).status, 404);
    assert.equal((await get(`/v1/tables/${database}/orders/changelog?from=1&to=50`)).status, 404, 'snapshots past the latest');
  });
});
