// Tables written by Tributary, read by Paimon Java and by pypaimon: append (bucket -1 and fixed) and
// primary-key tables (fixed buckets), partitioned and not, one column of every type with its
// extremes and nulls, several commits with updates, deletes and a partition overwrite. Each reader
// must return exactly the rows the model (cases.ts) computes from the operations, at the latest
// snapshot and at every earlier one (time travel).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { LocalObjectStore, createTable } from '@tributary/table';
import { paimonJava, pypaimon, readResults, type OracleOp, type OracleRow, type TableRef } from '@tributary/testkit';
import {
  ExpectedTable,
  assertRows,
  extremeRows,
  fullRows,
  plainRows,
  primaryKeyChanges,
  projectOperation,
  sequenceFieldOperations,
  PYPAIMON_PK_UNREADABLE_COLUMNS,
  tables,
  tributaryCommit,
  warehouses,
  withValues,
  type Operation,
  type TableName,
} from './cases.ts';

const warehouse = warehouses('tributary-written');
const database = 'compat';

const extremes = extremeRows(1);
const [maxRow, , nullRow, zeroRow] = extremes as [OracleRow, OracleRow, OracleRow, OracleRow];

const pkChanges = primaryKeyChanges();

const pkPartitionedPlan: readonly Operation[] = [
  { type: 'write', rows: [...extremes, ...plainRows(10, 6, 'us', 'first')] },
  pkChanges,
  { type: 'overwrite', regions: ['eu'], rows: [withValues(maxRow, { s: 'overwritten' }), ...plainRows(400, 2, 'eu', 'overwrite')] },
  { type: 'write', rows: [withValues(nullRow, { s: 'third' }), plainRows(10, 1, 'us', 'x')[0]!], kinds: ['+U', '-D'] },
];

const pkFlatPlan: readonly Operation[] = [
  { type: 'write', rows: [...extremes, ...plainRows(10, 30, 'any', 'first')] },
  pkChanges,
  { type: 'write', rows: [...plainRows(10, 5, 'any', 'third'), plainRows(20, 1, 'any', 'x')[0]!], kinds: ['+U', '+U', '+U', '+U', '+U', '-D'] },
  { type: 'overwrite', rows: [...plainRows(10, 3, 'any', 'whole table overwritten'), zeroRow] },
  { type: 'write', rows: [withValues(zeroRow, { s: 'after overwrite' }), maxRow], kinds: ['+U', '+I'] },
];

/** Each table's commits, in order. */
const plans: Record<TableName, readonly Operation[]> = {
  appendUnaware: [
    { type: 'write', rows: extremes },
    { type: 'write', rows: plainRows(100, 5, 'eu', 'second') },
    { type: 'overwrite', regions: ['us'], rows: plainRows(200, 3, 'us', 'overwrite') },
    { type: 'write', rows: plainRows(300, 2, 'us', 'after-overwrite') },
  ],
  appendFixed: [
    { type: 'write', rows: extremes },
    { type: 'write', rows: plainRows(100, 20, 'x', 'second') },
    { type: 'overwrite', rows: plainRows(500, 4, 'x', 'whole table overwritten') },
    { type: 'write', rows: extremes.slice(0, 2) },
  ],
  pkPartitioned: pkPartitionedPlan,
  pkFlat: pkFlatPlan,
  pkPartitionedPy: pkPartitionedPlan,
  pkFlatPy: pkFlatPlan,
  pkSequence: sequenceFieldOperations(true),
  notNull: [{ type: 'write', rows: fullRows(1).slice(0, 2) }, { type: 'write', rows: fullRows(10) }],
};

interface Written {
  readonly ref: TableRef;
  readonly expected: ExpectedTable;
}

/** Creates every table of `plans` in one warehouse and runs its commits through Tributary. */
async function writeAll(): Promise<Written[]> {
  const dir = await warehouse();
  const store = new LocalObjectStore(dir);
  const written: Written[] = [];
  for (const [name, operations] of Object.entries(plans) as [TableName, readonly Operation[]][]) {
    const table = await createTable(store, { database, name, schema: tables[name] });
    const expected = new ExpectedTable(tables[name]);
    for (const [i, full] of operations.entries()) {
      const operation = projectOperation(full, tables[name]);
      assert.equal(await tributaryCommit(table, operation), i + 1, `${name}: commit ${i + 1} makes snapshot ${i + 1}`);
      expected.apply(operation);
    }
    // Tributary agreeing with itself proves little, but a failure here points at the writer.
    assertRows((await table.newRead().toArray()) as OracleRow[], expected.rows, `${name}: Tributary reads its own table`);
    written.push({ ref: { warehouse: dir, database, table: name }, expected });
  }
  // A table without a commit: no snapshot, no rows.
  await createTable(store, { database, name: 'empty', schema: tables.pkPartitioned });
  written.push({ ref: { warehouse: dir, database, table: 'empty' }, expected: new ExpectedTable(tables.pkPartitioned) });
  return written;
}

/** One read of the latest snapshot and one of every snapshot, per table, in one batch. */
function readOps(written: readonly Written[]): OracleOp[] {
  return written.flatMap(({ ref, expected }) => [
    { op: 'read' as const, ...ref },
    ...expected.snapshots.map((_, i) => ({ op: 'read' as const, ...ref, snapshotId: i + 1 })),
  ]);
}

function checkReads(oracle: string, written: readonly Written[], results: ReturnType<typeof readResults>): void {
  let next = 0;
  for (const { ref, expected } of written) {
    const latest = results[next++]!;
    assert.equal(latest.snapshotId, expected.snapshots.length || null, `${oracle} ${ref.table}: latest snapshot`);
    assertRows(latest.rows, expected.rows, `${oracle} ${ref.table}: latest snapshot`);
    for (const [i, rows] of expected.snapshots.entries()) {
      assertRows(results[next++]!.rows, rows, `${oracle} ${ref.table}: snapshot ${i + 1} (time travel)`);
    }
  }
}

describe('tables written by Tributary', { concurrency: true }, async () => {
  const written = await writeAll();
  const named = (...names: (TableName | 'empty')[]) => written.filter((w) => (names as string[]).includes(w.ref.table));

  test('Paimon Java reads every table, at the latest snapshot and at each earlier one', async () => {
    checkReads('Paimon Java', written, readResults(await paimonJava.batch(readOps(written))));
  });

  test('pypaimon reads every table, at the latest snapshot and at each earlier one', async () => {
    const chosen = named('appendUnaware', 'appendFixed', 'pkPartitionedPy', 'pkFlatPy', 'pkSequence', 'notNull', 'empty');
    checkReads('pypaimon', chosen, readResults(await pypaimon.batch(readOps(chosen))));
  });

  test(
    `pypaimon reads primary-key tables with ${PYPAIMON_PK_UNREADABLE_COLUMNS.join(', ')} at every snapshot`,
    {
      todo: 'pypaimon 2.1.0 drops the nanoseconds of TIMESTAMP(7..9) when it merges a bucket (Java-written files too)',
    },
    async () => {
      const chosen = named('pkPartitioned', 'pkFlat');
      checkReads('pypaimon', chosen, readResults(await pypaimon.batch(readOps(chosen))));
    },
  );
});
