// The two compatibility oracles start, write and read on local disk, and agree with each other:
// a table written by Paimon Java reads the same in pypaimon and the other way round. Later compat
// tests put Tributary in the middle; this file proves the referees themselves first.
import assert from 'node:assert/strict';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import {
  canonicalRows,
  paimonJava,
  pypaimon,
  readResults,
  services,
  uniqueName,
  type OracleRow,
  type TableDefinition,
  type TableRef,
} from '@tributary/testkit';

const fields = [
  { name: 'id', type: 'INT NOT NULL' },
  { name: 'region', type: 'STRING NOT NULL' },
  { name: 'big', type: 'BIGINT' },
  { name: 'amount', type: 'DECIMAL(18, 2)' },
  { name: 'wide', type: 'DECIMAL(38, 10)' },
  { name: 'name', type: 'STRING' },
  { name: 'payload', type: 'BYTES' },
  { name: 'day', type: 'DATE' },
  { name: 'ts3', type: 'TIMESTAMP(3)' },
  { name: 'ts6', type: 'TIMESTAMP(6)' },
  { name: 'ltz6', type: 'TIMESTAMP(6) WITH LOCAL TIME ZONE' },
  { name: 'flag', type: 'BOOLEAN' },
  { name: 'score', type: 'DOUBLE' },
];

const appendTable: TableDefinition = { fields, partitionKeys: ['region'] };
const pkTable: TableDefinition = {
  fields,
  partitionKeys: ['region'],
  primaryKeys: ['id', 'region'],
  options: { bucket: '2' },
};

const maxDecimal38 = 10n ** 38n - 1n;
const ts = (epochMillis: number, nanoOfMillis = 0) => ({ epochMillis, nanoOfMillis });

/** Extremes of every type: min/max, negative, pre-1970, years 1 and 9999, 4-byte UTF-8, empty, nulls. */
const rows: OracleRow[] = [
  [1, 'eu', 9223372036854775807n, 99999999999999999n, maxDecimal38, '😀 four-byte ✓', new Uint8Array([0, 255, 128]),
    0, ts(1700000000123), ts(1700000000123, 456000), ts(-1, 999000), true, 1.5],
  [2, 'eu', -9223372036854775808n, -1n, -maxDecimal38, '', new Uint8Array(0),
    -1, ts(-86400001), ts(-1, 1000), ts(0), false, -0],
  [3, 'us', null, null, null, null, null, null, null, null, null, null, null],
  [4, 'us', 0n, 1250n, 1n, 'ascii', new Uint8Array([1, 2, 3]),
    19000, ts(253402300799999), ts(-62135596800000, 1000), ts(1, 1000), true, Number.NaN],
  [5, '', 42n, -99999999999999999n, 12345678901234567890n, 'x'.repeat(40), new Uint8Array(64).fill(7),
    2932896, ts(-62135596800000), ts(253402300799999, 999000), ts(-62135596800000), false, 5e-324],
];

/** Commit 2 on a primary-key table: id 1 gets a new name, id 3 is deleted. */
const updated: OracleRow = [1, 'eu', 7n, 100n, 1n, 'renamed', null, 1, null, null, null, null, 2.25];
const afterUpdates = (base: readonly OracleRow[]) => [...base.filter((r) => r[0] !== 1 && r[0] !== 3), updated];
const javaUpdates = { rows: [rows[0]!, updated, rows[2]!], kinds: ['-U', '+U', '-D'] as const };

const dirs: string[] = [];
async function warehouse(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'tributary-oracle-'));
  dirs.push(dir);
  return dir;
}
after(async () => {
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

function ref(warehousePath: string, table: string): TableRef {
  return { warehouse: warehousePath, database: 'compat', table };
}

function assertRows(actual: readonly OracleRow[], expected: readonly OracleRow[], what: string): void {
  assert.deepStrictEqual(canonicalRows(actual), canonicalRows(expected), what);
}

describe('compatibility oracles', () => {
  test('pypaimon creates, writes and reads an append table, with time travel', async () => {
    const t = ref(await warehouse(), 'append');
    const results = await pypaimon.batch([
      { op: 'create', ...t, ...appendTable },
      { op: 'write', ...t, rows: rows.slice(0, 3) },
      { op: 'write', ...t, rows: rows.slice(3) },
      { op: 'read', ...t },
      { op: 'read', ...t, snapshotId: 1 },
    ]);
    assert.deepStrictEqual(results.slice(1, 3), [{ snapshotId: 1 }, { snapshotId: 2 }]);
    const [latest, first] = readResults(results);
    assertRows(latest!.rows, rows, 'latest snapshot');
    assertRows(first!.rows, rows.slice(0, 3), 'snapshot 1');
  });

  test('Paimon Java creates, writes and reads a primary-key table with updates and deletes', async () => {
    const t = ref(await warehouse(), 'pk');
    const results = await paimonJava.batch([
      { op: 'create', ...t, ...pkTable },
      { op: 'write', ...t, rows },
      { op: 'write', ...t, ...javaUpdates },
      { op: 'read', ...t },
      { op: 'read', ...t, snapshotId: 1 },
    ]);
    assert.deepStrictEqual(results.slice(1, 3), [{ snapshotId: 1 }, { snapshotId: 2 }]);
    const [latest, first] = readResults(results);
    assertRows(latest!.rows, afterUpdates(rows), 'latest snapshot');
    assertRows(first!.rows, rows, 'snapshot 1');
    assert.deepStrictEqual(latest!.fields, fields);
  });

  test('tables written by Paimon Java read the same in pypaimon', async () => {
    const dir = await warehouse();
    const [append, pk] = [ref(dir, 'append'), ref(dir, 'pk')];
    await paimonJava.batch([
      { op: 'create', ...append, ...appendTable },
      { op: 'write', ...append, rows: rows.slice(0, 2) },
      { op: 'write', ...append, rows: rows.slice(2) },
      { op: 'create', ...pk, ...pkTable },
      { op: 'write', ...pk, rows },
      { op: 'write', ...pk, ...javaUpdates },
    ]);
    const [appendRead, appendFirst, pkRead, pkFirst] = readResults(
      await pypaimon.batch([
        { op: 'read', ...append },
        { op: 'read', ...append, snapshotId: 1 },
        { op: 'read', ...pk },
        { op: 'read', ...pk, snapshotId: 1 },
      ]),
    );
    assertRows(appendRead!.rows, rows, 'append table, latest');
    assertRows(appendFirst!.rows, rows.slice(0, 2), 'append table, snapshot 1');
    assertRows(pkRead!.rows, afterUpdates(rows), 'primary-key table after updates and deletes');
    assertRows(pkFirst!.rows, rows, 'primary-key table, snapshot 1');
  });

  test('tables written by pypaimon read the same in Paimon Java', async () => {
    const dir = await warehouse();
    const [append, pk] = [ref(dir, 'append'), ref(dir, 'pk')];
    // pypaimon writes only +I: an update is a second insert of the key, merged by `deduplicate`.
    await pypaimon.batch([
      { op: 'create', ...append, ...appendTable },
      { op: 'write', ...append, rows: rows.slice(0, 2) },
      { op: 'write', ...append, rows: rows.slice(2) },
      { op: 'create', ...pk, ...pkTable },
      { op: 'write', ...pk, rows },
      { op: 'write', ...pk, rows: [updated] },
    ]);
    const [appendRead, appendFirst, pkRead, pkFirst] = readResults(
      await paimonJava.batch([
        { op: 'read', ...append },
        { op: 'read', ...append, snapshotId: 1 },
        { op: 'read', ...pk },
        { op: 'read', ...pk, snapshotId: 1 },
      ]),
    );
    assertRows(appendRead!.rows, rows, 'append table, latest');
    assertRows(appendFirst!.rows, rows.slice(0, 2), 'append table, snapshot 1');
    assertRows(pkRead!.rows, [...rows.filter((r) => r[0] !== 1), updated], 'primary-key table after the upsert');
    assertRows(pkFirst!.rows, rows, 'primary-key table, snapshot 1');
  });

  test('on MinIO (s3://), a table each oracle writes reads the same in the other', async () => {
    const dir = `s3://${services.s3.bucket}/${uniqueName('oracles')}`;
    const [byJava, byPython] = [ref(dir, 'by_java'), ref(dir, 'by_python')];
    await paimonJava.batch([
      { op: 'create', ...byJava, ...pkTable },
      { op: 'write', ...byJava, rows },
      { op: 'write', ...byJava, ...javaUpdates },
    ]);
    const [javaTable] = readResults(
      await pypaimon.batch([
        { op: 'create', ...byPython, ...pkTable },
        { op: 'write', ...byPython, rows },
        { op: 'read', ...byJava },
      ]),
    );
    assertRows(javaTable!.rows, afterUpdates(rows), 'pypaimon reads the table Paimon Java wrote');
    assertRows((await paimonJava.read(byPython)).rows, rows, 'Paimon Java reads the table pypaimon wrote');
  });

  test('pypaimon refuses row kinds it cannot write instead of writing them as inserts', async () => {
    const t = ref(await warehouse(), 'pk');
    await assert.rejects(
      pypaimon.batch([{ op: 'create', ...t, ...pkTable }, { op: 'write', ...t, ...javaUpdates }]),
      /pypaimon writes inserts only/,
    );
  });
});

// Where pypaimon 2.1.0 and Paimon Java 1.4.2 disagree, and where pypaimon 1.4.2 disagreed but 2.1.0
// agrees. Each is asserted as it is today, so the tests that build on the oracles know what to avoid,
// and an upgrade that changes one shows up here.
describe('pypaimon 2.1.0 against Paimon Java 1.4.2 at the edges', () => {
  const edges: TableDefinition = {
    fields: [
      { name: 'id', type: 'INT' },
      { name: 'dt', type: 'DATE' },
      { name: 's', type: 'STRING' },
      { name: 'amount', type: 'DECIMAL(18, 2) NOT NULL' },
      { name: 'ts3', type: 'TIMESTAMP(3) NOT NULL' },
    ],
    partitionKeys: ['dt', 's'],
  };
  const edgeRows: OracleRow[] = [[1, 19000, 'a/b:c', -150n, ts(-7)], [2, -1, '', 0n, ts(0)]];

  test('partition paths (DATE by epoch day, escaped strings) and NOT NULL types agree both ways', async () => {
    const dir = await warehouse();
    const [byJava, byPython] = [ref(dir, 'by_java'), ref(dir, 'by_python')];
    await paimonJava.batch([{ op: 'create', ...byJava, ...edges }, { op: 'write', ...byJava, rows: edgeRows }]);
    const [javaTable] = readResults(
      await pypaimon.batch([
        { op: 'create', ...byPython, ...edges },
        { op: 'write', ...byPython, rows: edgeRows },
        { op: 'read', ...byJava },
      ]),
    );
    const bucketDirs = async (t: TableRef) =>
      (await readdir(join(dir, 'compat.db', t.table), { recursive: true })).filter((path) => path.endsWith('bucket-0')).sort();
    // partition.legacy-name defaults to true: a DATE is named by its int value; PartitionPathUtils
    // escapes '/' and ':'; an empty string is the default partition. (pypaimon 1.4.2 wrote
    // 'dt=2022-01-08/s=a/b:c' and could not parse 'DECIMAL(18, 2) NOT NULL'.)
    const expected = ['dt=-1/s=__DEFAULT_PARTITION__/bucket-0', 'dt=19000/s=a%2Fb%3Ac/bucket-0'];
    assert.deepStrictEqual(await bucketDirs(byJava), expected);
    assert.deepStrictEqual(await bucketDirs(byPython), expected);
    assertRows(javaTable!.rows, edgeRows, 'pypaimon reads the table Paimon Java wrote');
    assertRows((await paimonJava.read(byPython)).rows, edgeRows, 'Paimon Java reads the table pypaimon wrote');
  });

  test('pypaimon writes TIMESTAMP(9) as INT64 nanoseconds, which Java reads as milliseconds', async () => {
    const t = ref(await warehouse(), 'ts9');
    const definition: TableDefinition = { fields: [{ name: 'id', type: 'INT' }, { name: 'ts9', type: 'TIMESTAMP(9)' }] };
    const written: OracleRow[] = [[1, ts(-5, 1)]];
    await pypaimon.batch([{ op: 'create', ...t, ...definition }, { op: 'write', ...t, rows: written }]);
    assertRows((await pypaimon.read(t)).rows, written, 'pypaimon reads its own');
    // Java writes TIMESTAMP(7..9) as INT96 and takes an INT64 column as milliseconds.
    assertRows((await paimonJava.read(t)).rows, [[1, ts(-4999999)]], 'Paimon Java reads it');
  });
});
