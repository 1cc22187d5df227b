// Writers that start from the same snapshot and commit one after another. Each
// numbers its rows from the base snapshot's sequence numbers, so without a rebase at commit the
// commit that lands later may lose its keys to the earlier one. The rule: the later snapshot wins.
// Every snapshot is read by Tributary, Paimon Java and pypaimon.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { LocalObjectStore, createTable, type CommitMessage, type InternalRow, type Table } from '@tributary/table';
import { paimonJava, pypaimon, readResults, type OracleOp, type OracleRow, type TableRef } from '@tributary/testkit';
import { ExpectedTable, assertRows, plainRows, project, tables, tributaryCommit, warehouses, type Operation } from './cases.ts';

const warehouse = warehouses('concurrent-writers');
const database = 'compat';
const definition = tables.pkPartitionedPy;
const S = definition.fields.findIndex((f) => f.name === 's');

/** The rows writer `tag` upserts: keys 1..12 in two partitions (shared by every writer) and one key of its own. */
function rowsOf(tag: string, ownKey: number): OracleRow[] {
  return project([...plainRows(1, 12, 'eu', tag), ...plainRows(1, 12, 'us', tag), ...plainRows(ownKey, 1, 'eu', tag)], definition);
}

/** A writer opened on the table's latest snapshot, with its rows written and its messages prepared. */
async function prepared(table: Table, rows: readonly OracleRow[]): Promise<CommitMessage[]> {
  const write = await table.newWrite();
  await write.writeRows(rows as InternalRow[]);
  return write.prepareCommit();
}

async function commit(table: Table, messages: CommitMessage[], user: string): Promise<number> {
  const result = await table.newCommit(user).commit(messages);
  assert.equal(result.alreadyCommitted, false);
  return result.snapshotId;
}

/** Every snapshot and the latest, read by all three, equal the model's. */
async function checkAllReaders(table: Table, ref: TableRef, expected: ExpectedTable): Promise<void> {
  const count = expected.snapshots.length;
  assert.equal(Number((await table.latestSnapshot())?.id), count);
  const ops: OracleOp[] = [{ op: 'read', ...ref }, ...expected.snapshots.map((_, i) => ({ op: 'read' as const, ...ref, snapshotId: i + 1 }))];
  const [java, python] = await Promise.all([paimonJava.batch(ops), pypaimon.batch(ops)]);
  for (const [reader, results] of [['Paimon Java', readResults(java)], ['pypaimon', readResults(python)]] as const) {
    assertRows(results[0]!.rows, expected.rows, `${reader}: latest`);
    expected.snapshots.forEach((rows, i) => assertRows(results[i + 1]!.rows, rows, `${reader}: snapshot ${i + 1}`));
  }
  assertRows((await table.newRead().toArray()) as OracleRow[], expected.rows, 'Tributary: latest');
  for (const [i, rows] of expected.snapshots.entries()) {
    assertRows((await table.newRead({ snapshotId: i + 1 }).toArray()) as OracleRow[], rows, `Tributary: snapshot ${i + 1}`);
  }
}

describe('writers on one base snapshot: the later commit wins', { concurrency: true }, () => {
  for (const order of [['B', 'A'], ['A', 'B']] as const) {
    test(`two Tributary writers, committed ${order.join(' then ')}`, async () => {
      const dir = await warehouse();
      const table = await createTable(new LocalObjectStore(dir), { database, name: 'pk', schema: definition });
      const ref = { warehouse: dir, database, table: 'pk' };
      const expected = new ExpectedTable(definition);
      const base: Operation = { type: 'write', rows: rowsOf('base', 100) };
      assert.equal(await tributaryCommit(table, base), 1);
      expected.apply(base);

      const rows = { A: rowsOf('A', 101), B: rowsOf('B', 102) };
      const messages = { A: await prepared(table, rows.A), B: await prepared(table, rows.B) };
      for (const name of order) {
        await commit(table, messages[name], `writer-${name}`);
        expected.apply({ type: 'write', rows: rows[name] });
      }
      await checkAllReaders(table, ref, expected);
      const last = order[1];
      assert.ok(expected.rows.some((r) => r[S] === `${last}-1`), `the model says ${last} wins`);
    });
  }

  test('three Tributary writers and a Paimon Java commit between them, all on one base', async () => {
    const dir = await warehouse();
    const table = await createTable(new LocalObjectStore(dir), { database, name: 'pk', schema: definition });
    const ref = { warehouse: dir, database, table: 'pk' };
    const expected = new ExpectedTable(definition);
    const base: Operation = { type: 'write', rows: rowsOf('base', 100) };
    assert.equal(await tributaryCommit(table, base), 1);
    expected.apply(base);

    const rows = { A: rowsOf('A', 101), B: rowsOf('B', 102), C: rowsOf('C', 103), java: rowsOf('java', 104) };
    const messages = { A: await prepared(table, rows.A), B: await prepared(table, rows.B), C: await prepared(table, rows.C) };
    // Java writes on the same base (snapshot 1) and commits first: its numbers overlap ours.
    assert.deepStrictEqual(await paimonJava.batch([{ op: 'write', ...ref, rows: rows.java }]), [{ snapshotId: 2 }]);
    expected.apply({ type: 'write', rows: rows.java });
    for (const name of ['B', 'C', 'A'] as const) {
      await commit(table, messages[name], `writer-${name}`);
      expected.apply({ type: 'write', rows: rows[name] });
    }
    await checkAllReaders(table, ref, expected);
  });
});
