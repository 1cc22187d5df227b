// One table, three writers in turn: Tributary commits, then Paimon Java, then Tributary again, then
// pypaimon and Tributary once more. The primary-key table's later commits update keys another
// writer wrote, so a writer that did not continue the bucket's sequence numbers from the files
// before it would lose its updates to older records. After each turn, and at every snapshot, the
// table reads the same in all three.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { LocalObjectStore, createTable, type Table } from '@tributary/table';
import { paimonJava, pypaimon, readResults, type OracleOp, type OracleRow, type ReadResult, type TableRef } from '@tributary/testkit';
import {
  ExpectedTable,
  assertRows,
  extremeRows,
  plainRows,
  projectOperation,
  tables,
  tributaryCommit,
  warehouses,
  withValues,
  type Operation,
} from './cases.ts';

const warehouse = warehouses('interleaved');
const database = 'compat';

const extremes = extremeRows(1);
const [maxRow, minRow, nullRow] = extremes as [OracleRow, OracleRow, OracleRow];
const [javaRow] = plainRows(100, 1, 'eu', 'java');
const [newKey] = plainRows(500, 1, 'us', 'tributary');

// pypaimon must read it too, so the primary-key table leaves out the columns it mis-reads (cases.ts).
const pkDefinition = tables.pkPartitionedPy;
const appendDefinition = tables.appendUnaware;

/** Who commits what, in order. */
const turns: readonly { readonly writer: 'tributary' | 'java' | 'pypaimon'; readonly pk: Operation; readonly append: Operation }[] = [
  {
    writer: 'tributary',
    pk: { type: 'write', rows: [...extremes, ...plainRows(10, 4, 'us', 'first')] },
    append: { type: 'write', rows: extremes },
  },
  {
    writer: 'java',
    pk: {
      type: 'write',
      // Java updates and deletes keys Tributary wrote and adds its own.
      rows: [withValues(maxRow, { s: 'java updated', i64: 1n }), minRow, javaRow!, ...plainRows(101, 2, 'eu', 'java')],
      kinds: ['+U', '-D', '+I', '+I', '+I'],
    },
    append: { type: 'write', rows: plainRows(100, 3, 'eu', 'java') },
  },
  {
    writer: 'tributary',
    pk: {
      type: 'write',
      // Tributary updates keys Java wrote or updated last, deletes one of them, re-adds a key Java deleted.
      rows: [
        withValues(javaRow!, { s: 'tributary updated java row' }),
        withValues(maxRow, { s: 'tributary updated again' }),
        plainRows(101, 1, 'eu', 'java')[0]!,
        withValues(minRow, { s: 'back again' }),
        newKey!,
        withValues(nullRow, { s: 'retracted' }),
      ],
      kinds: ['+U', '+U', '-D', '+I', '+I', '-U'],
    },
    append: { type: 'write', rows: plainRows(200, 2, 'us', 'tributary') },
  },
  {
    writer: 'pypaimon',
    // pypaimon writes inserts only: it re-inserts keys Tributary and Java wrote, and adds one.
    pk: {
      type: 'write',
      rows: [withValues(javaRow!, { s: 'pypaimon upserted java row' }), withValues(newKey!, { s: 'pypaimon upserted' }), ...plainRows(600, 2, 'eu', 'pypaimon')],
    },
    append: { type: 'write', rows: plainRows(300, 2, 'eu', 'pypaimon') },
  },
  {
    writer: 'tributary',
    pk: {
      type: 'write',
      rows: [withValues(newKey!, { s: 'tributary after pypaimon' }), plainRows(600, 1, 'eu', 'pypaimon')[0]!],
      kinds: ['+U', '-D'],
    },
    append: { type: 'write', rows: plainRows(400, 1, 'us', 'tributary') },
  },
];

const pkExpected = new ExpectedTable(pkDefinition);
const appendExpected = new ExpectedTable(appendDefinition);

function oracleWrite(ref: TableRef, operation: Operation): OracleOp {
  assert.equal(operation.type, 'write');
  return { op: 'write', ...ref, rows: operation.rows, ...(operation.type === 'write' && operation.kinds ? { kinds: operation.kinds } : {}) };
}

/** Reads of the latest snapshot and of each one, for both tables. */
function readOps(pk: TableRef, append: TableRef, snapshots: number): OracleOp[] {
  return [pk, append].flatMap((ref) => [
    { op: 'read' as const, ...ref },
    ...Array.from({ length: snapshots }, (_, i) => ({ op: 'read' as const, ...ref, snapshotId: i + 1 })),
  ]);
}

function checkReads(reader: string, results: readonly ReadResult[]): void {
  let next = 0;
  for (const [name, expected] of [['pk', pkExpected], ['append', appendExpected]] as const) {
    assertRows(results[next++]!.rows, expected.rows, `${reader} reads ${name}: latest`);
    for (const [i, rows] of expected.snapshots.entries()) {
      assertRows(results[next++]!.rows, rows, `${reader} reads ${name}: snapshot ${i + 1}`);
    }
  }
}

async function tributaryReads(pk: Table, append: Table): Promise<ReadResult[]> {
  const results: ReadResult[] = [];
  for (const table of [pk, append]) {
    const snapshots = Number((await table.latestSnapshot())?.id ?? 0);
    for (const snapshotId of [undefined, ...Array.from({ length: snapshots }, (_, i) => i + 1)]) {
      const rows = (await table.newRead(snapshotId === undefined ? {} : { snapshotId }).toArray()) as OracleRow[];
      results.push({ snapshotId: snapshotId ?? snapshots, fields: [], rows });
    }
  }
  return results;
}

describe('interleaved commits: Tributary, Paimon Java, Tributary, pypaimon, Tributary', () => {
  test('a primary-key table and an append table stay readable by all three with the right rows', async () => {
    const dir = await warehouse();
    const store = new LocalObjectStore(dir);
    const pk = await createTable(store, { database, name: 'pk', schema: pkDefinition });
    const append = await createTable(store, { database, name: 'append', schema: appendDefinition });
    const refs = { pk: { warehouse: dir, database, table: 'pk' }, append: { warehouse: dir, database, table: 'append' } };

    for (const [i, turn] of turns.entries()) {
      const pkOp = projectOperation(turn.pk, pkDefinition);
      const appendOp = projectOperation(turn.append, appendDefinition);
      pkExpected.apply(pkOp);
      appendExpected.apply(appendOp);
      if (turn.writer === 'tributary') {
        assert.equal(await tributaryCommit(pk, pkOp), i + 1);
        assert.equal(await tributaryCommit(append, appendOp), i + 1);
        continue;
      }
      // The oracle writes, then reads what all wrote so far, in one process.
      const oracle = turn.writer === 'java' ? paimonJava : pypaimon;
      const results = await oracle.batch([
        oracleWrite(refs.pk, pkOp),
        oracleWrite(refs.append, appendOp),
        ...readOps(refs.pk, refs.append, i + 1),
      ]);
      assert.deepStrictEqual(results.slice(0, 2), [{ snapshotId: i + 1 }, { snapshotId: i + 1 }], `${oracle.name} makes one snapshot per commit`);
      checkReads(`${oracle.name} after its turn ${i + 1}`, readResults(results));
    }

    checkReads('Tributary', await tributaryReads(pk, append));
    const ops = readOps(refs.pk, refs.append, turns.length);
    const [java, python] = await Promise.all([paimonJava.batch(ops), pypaimon.batch(ops)]);
    checkReads('Paimon Java', readResults(java));
    checkReads('pypaimon', readResults(python));
  });
});

describe('Paimon Java compacts files Tributary wrote', () => {
  test('a Java commit that compacts Tributary\'s sorted runs keeps the right rows for Java, pypaimon and Tributary', async () => {
    const dir = await warehouse();
    const store = new LocalObjectStore(dir);
    // Compact as soon as a bucket has two sorted runs: Java's next commit merges Tributary's files,
    // relying on their key ranges, sequence numbers and key order.
    const definition = { ...pkDefinition, options: { bucket: '2', 'num-sorted-run.compaction-trigger': '2' } };
    const table = await createTable(store, { database, name: 'compacted', schema: definition });
    const expected = new ExpectedTable(definition);
    const base = plainRows(1, 60, 'eu', 'first');
    const operations: Operation[] = [
      { type: 'write', rows: [...base, ...extremes] },
      { type: 'write', rows: base.filter((_, i) => i % 2 === 0).map((r) => withValues(r, { s: 'second' })) },
      { type: 'write', rows: [...base.filter((_, i) => i % 3 === 0), minRow], kinds: [...base.filter((_, i) => i % 3 === 0).map(() => '-D' as const), '-D'] },
    ].map((o) => projectOperation(o as Operation, definition));
    for (const operation of operations) {
      await tributaryCommit(table, operation);
      expected.apply(operation);
    }
    const javaTurn = projectOperation({ type: 'write', rows: base.filter((_, i) => i % 5 === 0).map((r) => withValues(r, { s: 'java' })) }, definition);
    expected.apply(javaTurn);
    const ref = { warehouse: dir, database, table: 'compacted' };
    const [javaRead] = readResults(await paimonJava.batch([oracleWrite(ref, javaTurn), { op: 'read', ...ref }]));
    assertRows(javaRead!.rows, expected.rows, 'Java reads after its compaction');
    const levels = (await table.newRead().plan()).map((entry) => entry.file.level);
    assert.ok(levels.some((level) => level > 0), `Java compacted Tributary's files (levels ${[...new Set(levels)].join(', ')})`);
    assertRows((await table.newRead().toArray()) as OracleRow[], expected.rows, 'Tributary reads after Java\'s compaction');
    assertRows((await pypaimon.read(ref)).rows, expected.rows, 'pypaimon reads after Java\'s compaction');
  });
});
