/**
 * TIMESTAMP(p) and TIMESTAMP_LTZ(p) below milliseconds (p = 0, 1, 2) through real syncs of the
 * files source: the instants are cut toward the past to the column's precision (also before 1970),
 * so two rows whose primary key is equal at the column's precision are one row, and a later load
 * of a value equal at the precision is no change (no -U/+U in the input changelog). The table is
 * read by Paimon Java, pypaimon and our reader, against expected values written out here.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { ChildProcess } from 'node:child_process';
import type { Coordinator } from '@tributary/coordinator';
import { openObjectStore, openTable, type InternalRow } from '@tributary/table';
import { oraclePaths, paimonJava, readResults, type OracleRow } from '@tributary/testkit';
import { canonicalRows, inProcessCoordinator, pypaimonRead, readRows, s3, spawnWorker, stop, syncEnv, waitForPhase } from './harness.ts';

const ts = (epochMillis: number) => ({ epochMillis, nanoOfMillis: 0 });

const COLUMNS = [
  { name: 'id', type: 'BIGINT NOT NULL' },
  { name: 'ts', type: 'TIMESTAMP(0) NOT NULL' },
  { name: 'l', type: 'TIMESTAMP_LTZ(1)' },
  { name: 'c', type: 'TIMESTAMP(2)' },
  { name: 'v', type: 'STRING' },
];

const LATE = '2020-06-01 12:34:56.987654321';
const EARLY = '1969-12-31 23:59:59.987654321';
/** In file order: the first two rows are one key at TIMESTAMP(0), so the second (the later) stays. */
const ROWS = [
  ['1', '2020-01-01 00:00:00.100', LATE, LATE, 'first'],
  ['1', '2020-01-01 00:00:00.900', LATE, LATE, 'second'],
  ['2', EARLY, EARLY, EARLY, 'before 1970'],
] as const;

/** Written out: cut toward the past to 0, 1 and 2 digits. */
const EXPECTED: InternalRow[] = [
  [1n, ts(1_577_836_800_000), ts(1_591_014_896_900), ts(1_591_014_896_980), 'second'],
  [2n, ts(-1000), ts(-100), ts(-20), 'before 1970'],
];

const csv = (): string => ['id,ts,l,c,v', ...ROWS.map((r) => r.join(','))].join('\n') + '\n';
const ndjson = (): string => ROWS.map(([id, t, l, c, v]) => JSON.stringify({ id: Number(id), ts: t.replace(' ', 'T'), l, c, v })).join('\n') + '\n';

/** The rows as a Parquet file of pyarrow's timestamp[ns] columns (nanoseconds kept in the file). */
function parquet(dir: string): Uint8Array {
  const path = join(dir, 'rows.parquet');
  const script = `
import sys, json, pyarrow as pa, pyarrow.parquet as pq
rows = json.loads(sys.argv[2])
ns = lambda s: pa.array([s], type=pa.string()).cast(pa.timestamp('ns'))[0].value
cols = {'id': pa.array([int(r[0]) for r in rows], type=pa.int64())}
for i, name in ((1, 'ts'), (2, 'l'), (3, 'c')):
    cols[name] = pa.array([ns(r[i]) for r in rows], type=pa.timestamp('ns'))
cols['v'] = pa.array([r[4] for r in rows], type=pa.string())
pq.write_table(pa.table(cols), sys.argv[1])
`;
  execFileSync(oraclePaths.python, ['-c', script, path, JSON.stringify(ROWS)], { stdio: ['ignore', 'ignore', 'pipe'] });
  return readFileSync(path);
}

describe('TIMESTAMP(0..2) and TIMESTAMP_LTZ(0..2) through the files source: cut toward the past', () => {
  const e = syncEnv('ts-precision');
  const dir = mkdtempSync(join(tmpdir(), 'tributary-ts-precision-'));
  let coordinator: Coordinator;
  const workers: ChildProcess[] = [];

  before(async () => {
    const store = openObjectStore(e.sourceRoot, s3);
    await store.put('rows.csv', new TextEncoder().encode(csv()));
    await store.put('rows.ndjson', new TextEncoder().encode(ndjson()));
    await store.put('rows.parquet', parquet(dir));
    await store.put('first.csv', new TextEncoder().encode('id,ts\n1,2020-01-01 00:00:00.100\n'));
    await store.put('again.csv', new TextEncoder().encode('id,ts\n1,2020-01-01 00:00:00.900\n'));
    coordinator = await inProcessCoordinator(e);
    workers.push(await spawnWorker(e));
  });
  after(async () => {
    await Promise.all(workers.map((w) => stop(w)));
    await coordinator.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function createTable(name: string, body: Record<string, unknown>): Promise<void> {
    const created = await coordinator.app.inject({ method: 'POST', url: '/v1/tables', payload: { database: 'shop', name, ...body } });
    assert.equal(created.statusCode, 201, created.body);
  }

  async function load(table: string, format: string, file: string): Promise<void> {
    const response = await coordinator.app.inject({
      method: 'POST',
      url: '/v1/syncs',
      payload: { table: { database: 'shop', table }, source: { kind: 'files', format, uris: [`${e.sourceRoot}/${file}`] } },
    });
    assert.equal(response.statusCode, 202, response.body);
    const done = await waitForPhase(() => coordinator.syncs.get(response.json<{ id: string }>().id), ['COMMITTED', 'ABORTED'], 90_000);
    assert.equal(done.state.phase, 'COMMITTED', JSON.stringify(done.state));
  }

  test('CSV, NDJSON and Parquet timestamp[ns] into a (id, TIMESTAMP(0)) primary key: one row per key at the precision; Paimon Java, pypaimon and our reader read the floored values', async () => {
    const formats = [
      ['csv', 'rows.csv'],
      ['ndjson', 'rows.ndjson'],
      ['parquet', 'rows.parquet'],
    ] as const;
    for (const [format, file] of formats) {
      await createTable(`pk_${format}`, { columns: COLUMNS, primaryKeys: ['id', 'ts'], bucket: 1 });
      await load(`pk_${format}`, format, file);
    }
    const java = readResults(await paimonJava.batch(formats.map(([format]) => ({ op: 'read' as const, warehouse: e.warehouse, database: 'shop', table: `pk_${format}` }))));
    const expected = canonicalRows(EXPECTED as OracleRow[]);
    for (const [i, [format]] of formats.entries()) {
      assert.deepStrictEqual(canonicalRows(java[i]?.rows ?? []), expected, `${format}: Paimon Java`);
      assert.deepStrictEqual((await pypaimonRead(e, 'shop', `pk_${format}`)).rows, expected, `${format}: pypaimon`);
      assert.deepStrictEqual(canonicalRows((await readRows(e, 'shop', `pk_${format}`)) as OracleRow[]), expected, `${format}: our reader`);
    }
  });

  test('changelog-producer = input: a later load of a value equal at TIMESTAMP(0) is no change (Paimon Java $audit_log)', async () => {
    await createTable('changelog', { columns: [COLUMNS[0], { name: 'ts', type: 'TIMESTAMP(0)' }], primaryKeys: ['id'], bucket: 1, options: { 'changelog-producer': 'input' } });
    await load('changelog', 'csv', 'first.csv');
    await load('changelog', 'csv', 'again.csv');
    const ref = { warehouse: e.warehouse, database: 'shop' };
    const [all, audit] = readResults(
      await paimonJava.batch([
        { op: 'read', ...ref, table: 'changelog' },
        { op: 'read', ...ref, table: 'changelog$audit_log', options: { 'incremental-between': '1,2', 'incremental-between-scan-mode': 'changelog' } },
      ]),
    );
    assert.equal((await (await openTable(e.store, 'shop', 'changelog')).latestSnapshot())?.id, 2n, 'the second load committed snapshot 2');
    assert.deepStrictEqual(audit?.rows ?? [], [], 'no -U/+U for a value equal at the precision');
    assert.deepStrictEqual(canonicalRows(all?.rows ?? []), [[1n, ts(1_577_836_800_000)]], 'Paimon Java reads the value cut');
  });
});
