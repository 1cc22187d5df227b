// Tables written by Paimon Java and by pypaimon, read by Tributary (table.newRead()): the same
// layouts and columns as tributary-written.test.ts. Java writes every row kind, so its primary-key
// tables carry updates and deletes as -U/+U/-D records; pypaimon writes inserts only, so its
// updates are re-inserts of a key that `deduplicate` merges. Neither oracle overwrites partitions.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { LocalObjectStore, openTable } from '@tributary/table';
import { isTributaryError } from '@tributary/protocol';
import { paimonJava, pypaimon, type Oracle, type OracleOp, type OracleRow, type TableDefinition, type TableRef } from '@tributary/testkit';
import {
  ExpectedTable,
  assertRows,
  extremeRows,
  fullRows,
  plainRows,
  primaryKeyChanges,
  projectOperation,
  sequenceFieldOperations,
  tables,
  warehouses,
  withValues,
  type Operation,
  type TableName,
} from './cases.ts';

const warehouse = warehouses('oracle-written');
const database = 'compat';

const extremes = extremeRows(1);
const [maxRow, , , , , plainRow] = extremes as [OracleRow, OracleRow, OracleRow, OracleRow, OracleRow, OracleRow];

/** Java's updates and deletes of a primary-key table. */
const javaChanges = primaryKeyChanges();

/** pypaimon's updates: inserts of keys that exist. */
const pythonChanges: Operation = {
  type: 'write',
  rows: [withValues(maxRow, { s: 'updated max', i64: -5n }), withValues(plainRow, { s: 'updated plain' }), ...plainRows(100, 3, 'eu', 'second')],
};

function plans(changes: Operation, withKinds: boolean): Record<Exclude<TableName, 'pkPartitionedPy' | 'pkFlatPy'>, readonly Operation[]> {
  return {
    appendUnaware: [{ type: 'write', rows: extremes }, { type: 'write', rows: plainRows(100, 5, 'eu', 'second') }],
    appendFixed: [{ type: 'write', rows: extremes }, { type: 'write', rows: plainRows(100, 20, 'x', 'second') }],
    pkPartitioned: [{ type: 'write', rows: [...extremes, ...plainRows(10, 6, 'us', 'first')] }, changes],
    pkFlat: [
      { type: 'write', rows: [...extremes, ...plainRows(10, 30, 'any', 'first')] },
      changes,
      { type: 'write', rows: plainRows(10, 5, 'any', 'third') },
    ],
    pkSequence: sequenceFieldOperations(withKinds),
    notNull: [{ type: 'write', rows: fullRows(1).slice(0, 2) }, { type: 'write', rows: fullRows(10) }],
  };
}

interface Written {
  readonly ref: TableRef;
  readonly expected: ExpectedTable;
  /** The snapshot id each operation's commit made. */
  readonly snapshotIds: number[];
}

/** Creates and writes every table with one oracle call (one JVM start for Java). */
async function writeAll(oracle: Oracle, changes: Operation, withKinds: boolean): Promise<Written[]> {
  const dir = await warehouse();
  const ops: OracleOp[] = [];
  const written: Written[] = [];
  for (const [name, operations] of Object.entries(plans(changes, withKinds)) as [TableName, readonly Operation[]][]) {
    const ref = { warehouse: dir, database, table: name };
    const expected = new ExpectedTable(tables[name]);
    ops.push({ op: 'create', ...ref, ...tables[name] });
    for (const full of operations) {
      const operation = projectOperation(full, tables[name]);
      assert.equal(operation.type, 'write', 'the oracles do not overwrite');
      if (operation.type !== 'write') continue;
      ops.push({ op: 'write', ...ref, rows: operation.rows, ...(operation.kinds ? { kinds: operation.kinds } : {}) });
      expected.apply(operation);
    }
    written.push({ ref, expected, snapshotIds: [] });
  }
  const results = await oracle.batch(ops);
  let next = 0;
  for (const { snapshotIds, expected } of written) {
    next++; // create
    for (let i = 0; i < expected.snapshots.length; i++) {
      const result = results[next++];
      assert.ok(result !== undefined && 'snapshotId' in result && typeof result.snapshotId === 'number');
      snapshotIds.push(result.snapshotId);
    }
  }
  return written;
}

async function readWithTributary(written: readonly Written[], writer: string): Promise<void> {
  for (const { ref, expected, snapshotIds } of written) {
    const table = await openTable(new LocalObjectStore(ref.warehouse), ref.database, ref.table);
    const what = `Tributary reads ${ref.table} written by ${writer}`;
    assertRows((await table.newRead().toArray()) as OracleRow[], expected.rows, `${what}: latest snapshot`);
    for (const [i, rows] of expected.snapshots.entries()) {
      const snapshotId = snapshotIds[i]!;
      assertRows((await table.newRead({ snapshotId }).toArray()) as OracleRow[], rows, `${what}: snapshot ${snapshotId}`);
    }
    // Partition pruning on the writer's partition rows and manifest partition stats.
    if ((tables[ref.table as TableName] as TableDefinition).partitionKeys?.[0] === 'region') {
      const eu = expected.rows.filter((r) => r[1] === 'eu');
      assertRows((await table.newRead({ partitionFilter: { region: 'eu' } }).toArray()) as OracleRow[], eu, `${what}: partition region=eu`);
    }
  }
}

describe('tables written by the oracles, read by Tributary', { concurrency: true }, () => {
  test('Paimon Java: append and primary-key tables with -U/+U/-D row kinds', async () => {
    await readWithTributary(await writeAll(paimonJava, javaChanges, true), 'Paimon Java');
  });

  test('pypaimon: append and primary-key tables with upserts', async () => {
    await readWithTributary(await writeAll(pypaimon, pythonChanges, false), 'pypaimon');
  });
});

// Tables Java writes in ways Tributary does not read: Tributary must refuse them with a typed error,
// not return wrong rows. (Deletion vectors and first-row are left out: Java writes them only with
// a lookup directory, and the oracle's catalog has no temp disk for one.)
describe('Java tables Tributary does not read are refused with a typed error', () => {
  const small: TableDefinition = { fields: [{ name: 'id', type: 'INT' }, { name: 's', type: 'STRING' }], primaryKeys: ['id'] };
  const refused: readonly { readonly name: string; readonly options: Record<string, string> }[] = [
    { name: 'orc', options: { bucket: '1', 'file.format': 'orc' } },
    { name: 'avro', options: { bucket: '1', 'file.format': 'avro' } },
    { name: 'partial_update', options: { bucket: '1', 'merge-engine': 'partial-update' } },
  ];

  test('ORC and Avro data files, the partial-update merge engine', async () => {
    const dir = await warehouse();
    await paimonJava.batch(
      refused.flatMap(({ name, options }) => {
        const ref = { warehouse: dir, database, table: name };
        return [
          { op: 'create' as const, ...ref, ...small, options },
          { op: 'write' as const, ...ref, rows: [[1, 'a'], [2, 'b']] },
          { op: 'write' as const, ...ref, rows: [[1, 'c']] },
        ];
      }),
    );
    const store = new LocalObjectStore(dir);
    for (const { name } of refused) {
      await assert.rejects(
        async () => (await openTable(store, database, name)).newRead().toArray(),
        (error: unknown) => isTributaryError(error) && error.code === 'TABLE_UNSUPPORTED',
        `${name}: refused with TABLE_UNSUPPORTED`,
      );
    }
  });
});
