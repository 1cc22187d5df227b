// The same cross-reads on the local MinIO: a primary-key table Tributary writes under
// s3://tributary/<unique> is read by Paimon Java (paimon-s3) and by pypaimon (pyarrow's S3), and a
// table Paimon Java writes there is read by Tributary through openObjectStore.
import { after, describe, test } from 'node:test';
import { createTable, openObjectStore, openTable, type ObjectStore } from '@tributary/table';
import { paimonJava, pypaimon, readResults, services, uniqueName, type OracleRow } from '@tributary/testkit';
import { ExpectedTable, assertRows, extremeRows, plainRows, projectOperation, tables, tributaryCommit, withValues, type Operation } from './cases.ts';

const database = 'compat';
const definition = tables.pkPartitionedPy;
const prefix = `compat-${uniqueName()}`;
const warehouse = `s3://${services.s3.bucket}/${prefix}`;
const { endpoint, region, accessKeyId, secretAccessKey } = services.s3;

function store(): ObjectStore {
  return openObjectStore(warehouse, { endpoint, region, accessKeyId, secretAccessKey });
}

after(async () => {
  const s = store();
  const keys: string[] = [];
  for await (const meta of s.list('')) keys.push(meta.key);
  await Promise.all(keys.map((key) => s.delete(key)));
});

const extremes = extremeRows(1);
const operations: readonly Operation[] = [
  { type: 'write', rows: [...extremes, ...plainRows(10, 5, 'us', 'first')] },
  {
    type: 'write',
    rows: [withValues(extremes[0]!, { s: 'updated' }), extremes[1]!, ...plainRows(100, 2, 'eu', 'second')],
    kinds: ['+U', '-D', '+I', '+I'],
  },
].map((o) => projectOperation(o as Operation, definition));

describe('tables on MinIO (s3://)', { concurrency: true }, () => {
  test('Tributary writes a primary-key table; Paimon Java and pypaimon read it, also at snapshot 1', async () => {
    const table = await createTable(store(), { database, name: 'by_tributary', schema: definition });
    const expected = new ExpectedTable(definition);
    for (const operation of operations) {
      await tributaryCommit(table, operation);
      expected.apply(operation);
    }
    const ref = { warehouse, database, table: 'by_tributary' };
    const ops = [{ op: 'read' as const, ...ref }, { op: 'read' as const, ...ref, snapshotId: 1 }];
    const [java, python] = await Promise.all([paimonJava.batch(ops), pypaimon.batch(ops)]);
    for (const [reader, results] of [['Paimon Java', java], ['pypaimon', python]] as const) {
      const [latest, first] = readResults(results);
      assertRows(latest!.rows, expected.rows, `${reader}: latest`);
      assertRows(first!.rows, expected.snapshots[0]!, `${reader}: snapshot 1`);
    }
  });

  test('Paimon Java writes a primary-key table with row kinds; Tributary reads it', async () => {
    const ref = { warehouse, database, table: 'by_java' };
    const expected = new ExpectedTable(definition);
    await paimonJava.batch([
      { op: 'create', ...ref, ...definition },
      ...operations.map((o) => {
        expected.apply(o);
        return { op: 'write' as const, ...ref, rows: o.rows, ...(o.type === 'write' && o.kinds ? { kinds: o.kinds } : {}) };
      }),
    ]);
    const table = await openTable(store(), database, 'by_java');
    assertRows((await table.newRead().toArray()) as OracleRow[], expected.rows, 'Tributary: latest');
    assertRows((await table.newRead({ snapshotId: 1 }).toArray()) as OracleRow[], expected.snapshots[0]!, 'Tributary: snapshot 1');
  });
});
