// Compaction across implementations. One primary-key table written in turn by Tributary and Paimon
// Java (updates of each other's keys, Java deletes; a high num-sorted-run.compaction-trigger keeps
// Java's writer from compacting on its own): Tributary compacts it fully (one COMPACT
// snapshot, the same rewrite its workers run), then Paimon Java and pypaimon read exactly the
// model's rows; Paimon Java compacts it again and writes on top, and Tributary's universal
// compaction then rewrites Java's output with the new files; all three read the model at the end.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LocalObjectStore, createTable, rewriteTable, type InternalRow, type Table } from '@tributary/table';
import { canonicalRows, paimonJava, pypaimon, readResults, type OracleRow, type RowKindShort, type TableRef } from '@tributary/testkit';
import { warehouses } from './cases.ts';

const warehouse = warehouses('compaction');
const fields = [
  { name: 'id', type: 'BIGINT NOT NULL' },
  { name: 'v', type: 'STRING' },
];
type Model = Map<bigint, OracleRow>;
const rows = (from: number, n: number, tag: string): OracleRow[] => Array.from({ length: n }, (_, i) => [BigInt(from + i), `${tag}-${from + i}`]);

async function tributaryWrite(table: Table, written: readonly OracleRow[]): Promise<void> {
  const write = await table.newWrite({ writerId: `t-${Date.now()}` });
  await write.writeRows(written as InternalRow[]);
  await table.newCommit(`tributary-compat-${Math.random()}`).commit(await write.prepareCommit());
}

async function compact(table: Table, full: boolean): Promise<number> {
  const { baseSnapshotId, messages } = await rewriteTable(table, { full }, `compact-${Date.now()}`);
  assert.ok(messages.length > 0, 'something to compact');
  const result = await table.newCommit(`tributary-compaction-${Math.random()}`).commit(messages, { kind: 'COMPACT', ...(baseSnapshotId === null ? {} : { baseSnapshotId }) });
  assert.equal((await table.snapshot(result.snapshotId)).commitKind, 'COMPACT');
  return result.snapshotId;
}

test('Tributary compacts a table Paimon Java writes too; Java and pypaimon read the model; Java compacts again and writes on top', async () => {
  const dir = await warehouse();
  const ref: TableRef = { warehouse: dir, database: 'compat', table: 'compacted' };
  const table = await createTable(new LocalObjectStore(dir), { database: 'compat', name: 'compacted', schema: { fields, primaryKeys: ['id'], options: { bucket: '2', 'num-sorted-run.compaction-trigger': '50' } } });
  let model: Model = new Map();
  const apply = (written: readonly OracleRow[], kinds?: readonly RowKindShort[]) => {
    model = new Map(model);
    written.forEach((r, i) => (kinds?.[i] === '-D' ? model.delete(r[0] as bigint) : model.set(r[0] as bigint, r)));
  };
  const java = async (written: OracleRow[], kinds?: RowKindShort[]) => {
    await paimonJava.write(ref, written, kinds);
    apply(written, kinds);
  };
  const ours = async (written: OracleRow[]) => {
    await tributaryWrite(table, written);
    apply(written);
  };
  await ours(rows(0, 30, 't1'));
  await java(rows(20, 30, 'j2'));
  await ours(rows(10, 15, 't3'));
  await java([[5n, null], [25n, null], [45n, null]], ['-D', '-D', '-D']);
  await ours(rows(40, 10, 't5'));
  await java(rows(0, 5, 'j6'));
  const want = () => canonicalRows([...model.values()]);

  await compact(table, true);
  const files = (await table.dataFiles()).files;
  assert.equal(files.length, 2, 'one file per bucket');
  // num-levels defaults to the trigger + 1: the top level is 50.
  assert.ok(files.every((f) => f.level === 50), JSON.stringify(files));
  assert.equal(files.reduce((n, f) => n + f.rows, 0), model.size, 'the deletes are gone from the top level');
  const op = { op: 'read' as const, ...ref };
  const [javaRead, pyRead] = await Promise.all([paimonJava.batch([op]), pypaimon.batch([op])]);
  assert.deepEqual(canonicalRows((await table.newRead().toArray()) as OracleRow[]), want(), 'Tributary');
  assert.deepEqual(canonicalRows(readResults(javaRead)[0]!.rows), want(), 'Paimon Java');
  assert.deepEqual(canonicalRows(readResults(pyRead)[0]!.rows), want(), 'pypaimon');

  // Paimon Java writes on top of Tributary's compaction, compacts it all again, writes again.
  const written = rows(50, 5, 'j7');
  const after = rows(2, 3, 'j8');
  const results = await paimonJava.batch([
    { op: 'write', ...ref, rows: written },
    { op: 'compact', ...ref, buckets: [0, 1] },
    { op: 'write', ...ref, rows: after },
    { op: 'read', ...ref },
  ]);
  apply(written);
  apply(after);
  assert.deepEqual(canonicalRows(readResults(results)[0]!.rows), want(), 'Paimon Java after its compaction');
  assert.deepEqual(canonicalRows((await table.newRead().toArray()) as OracleRow[]), want(), 'Tributary after Java\'s compaction');

  // Tributary writes more, and compacts Java's output with the new files (full, to the top level).
  await ours(rows(60, 4, 't9'));
  await compact(table, true);
  assert.equal((await table.dataFiles()).files.length, 2);
  const [finalJava, finalPy] = await Promise.all([paimonJava.batch([op]), pypaimon.batch([op])]);
  assert.deepEqual(canonicalRows((await table.newRead().toArray()) as OracleRow[]), want(), 'Tributary at the end');
  assert.deepEqual(canonicalRows(readResults(finalJava)[0]!.rows), want(), 'Paimon Java at the end');
  assert.deepEqual(canonicalRows(readResults(finalPy)[0]!.rows), want(), 'pypaimon at the end');
});
