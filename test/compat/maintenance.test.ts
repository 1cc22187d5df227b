// Maintenance across implementations. One primary-key table written in turn by Tributary and Paimon
// Java (updates of each other's keys, an overwrite, an aborted Tributary write that leaves orphan
// files): Tributary expires snapshots, then Paimon Java and pypaimon read exactly the model's rows
// at every snapshot left; Tributary's orphan scan finds exactly what Paimon Java's
// LocalOrphanFilesClean would delete; Paimon Java's own orphan clean and expiration on the table
// delete nothing still referenced; Paimon Java writes on top and all three read the same rows. A
// spot check of the property test (random histories) reads what is left with Paimon Java.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LocalObjectStore, createTable, type InternalRow, type Table } from '@tributary/table';
import { canonicalRows, mulberry32, paimonJava, pypaimon, readResults, type MaintenanceResult, type OracleOp, type OracleRow, type TableRef } from '@tributary/testkit';
import { warehouses } from './cases.ts';

const warehouse = warehouses('maintenance');
const fields = [
  { name: 'id', type: 'BIGINT NOT NULL' },
  { name: 'v', type: 'STRING' },
];

type Model = Map<bigint, OracleRow>;
const rowsOf = (model: Model) => canonicalRows([...model.values()]);
const upsert = (model: Model, rows: readonly OracleRow[]): Model => {
  const next = new Map(model);
  for (const r of rows) next.set(r[0] as bigint, r);
  return next;
};
const rows = (from: number, n: number, tag: string): OracleRow[] => Array.from({ length: n }, (_, i) => [BigInt(from + i), `${tag}-${from + i}`]);

async function tributaryWrite(table: Table, written: readonly OracleRow[], kind: 'APPEND' | 'OVERWRITE' = 'APPEND'): Promise<number> {
  const write = await table.newWrite({ writerId: `t-${Date.now()}` });
  await write.writeRows(written as InternalRow[]);
  return (await table.newCommit(`tributary-compat-${Math.random()}`).commit(await write.prepareCommit(), { kind })).snapshotId;
}

async function tributaryRows(table: Table, snapshotId: number): Promise<OracleRow[]> {
  return canonicalRows((await table.newRead({ snapshotId }).toArray()) as OracleRow[]);
}

test('Tributary expires and cleans a table Paimon Java writes too; Java and pypaimon agree, and Java maintenance deletes nothing referenced', async () => {
  const dir = await warehouse();
  const store = new LocalObjectStore(dir);
  const ref: TableRef = { warehouse: dir, database: 'compat', table: 'maintained' };
  const table = await createTable(store, {
    database: 'compat',
    name: 'maintained',
    schema: { fields, primaryKeys: ['id'], options: { bucket: '2' } },
  });
  const models = new Map<number, Model>();
  let model: Model = new Map();
  const javaWrite = async (written: OracleRow[]) => {
    const { snapshotId } = await paimonJava.write(ref, written);
    model = upsert(model, written);
    models.set(snapshotId!, model);
  };
  const ours = async (written: OracleRow[], kind: 'APPEND' | 'OVERWRITE' = 'APPEND') => {
    const id = await tributaryWrite(table, written, kind);
    model = upsert(kind === 'OVERWRITE' ? new Map() : model, written);
    models.set(id, model);
  };
  await ours(rows(0, 20, 't1'));
  await javaWrite(rows(10, 20, 'j2'));
  await ours(rows(25, 10, 't3'));
  await ours(rows(0, 8, 't4'), 'OVERWRITE'); // deletes every file written so far
  await javaWrite(rows(4, 8, 'j5'));
  // An aborted write: files on storage that no snapshot will ever reference.
  const aborted = await table.newWrite({ writerId: 'aborted' });
  await aborted.writeRows(rows(100, 5, 'lost') as InternalRow[]);
  const abortedKeys = table.dataFileKeys(await aborted.prepareCommit()).map((key) => key.slice(`${table.path}/`.length)).sort();
  await ours(rows(6, 4, 't6'));
  assert.deepEqual([...models.keys()], [1, 2, 3, 4, 5, 6]);

  const expired = await table.expireSnapshots({ retention: { retainMin: 3, timeRetainedMs: 0 } });
  assert.deepEqual(expired.expired, [1, 2, 3]);
  assert.ok(expired.deletedDataFiles > 0, 'the overwritten files went with the snapshots that held them');
  const kept = [4, 5, 6];

  // Every snapshot left reads the model's rows in Tributary, Paimon Java and pypaimon.
  const javaReads = readResults(await paimonJava.batch(kept.map((snapshotId): OracleOp => ({ op: 'read', ...ref, snapshotId }))));
  for (const [i, id] of kept.entries()) {
    const expected = rowsOf(models.get(id)!);
    assert.deepEqual(await tributaryRows(table, id), expected, `Tributary, snapshot ${id}`);
    assert.deepEqual(canonicalRows(javaReads[i]!.rows), expected, `Paimon Java, snapshot ${id}`);
    assert.deepEqual(canonicalRows((await pypaimon.read(ref, { snapshotId: id })).rows), expected, `pypaimon, snapshot ${id}`);
  }

  // The orphans: Tributary's scan and Java's dry run name the same files, the aborted write's.
  const scan = await table.findOrphanFiles({ olderThanMs: 0, now: Date.now() + 1000 });
  const ourOrphans = scan.files.map((f) => f.key.slice(`${table.path}/`.length)).sort();
  const [javaDry] = (await paimonJava.batch([{ op: 'orphanClean', ...ref, olderThanMs: -5000, dryRun: true }])) as MaintenanceResult[];
  assert.deepEqual(ourOrphans, abortedKeys);
  assert.deepEqual([...(javaDry?.deleted ?? [])].sort(), abortedKeys, 'Paimon Java finds the same orphans');
  await store.deleteMany(scan.files.map((f) => f.key));

  // Paimon Java's own orphan clean now finds nothing, and the table still reads the same.
  const [javaClean] = (await paimonJava.batch([{ op: 'orphanClean', ...ref, olderThanMs: -5000 }])) as MaintenanceResult[];
  assert.deepEqual(javaClean?.deleted, []);
  for (const id of kept) assert.deepEqual(await tributaryRows(table, id), rowsOf(models.get(id)!), `snapshot ${id} after Java's clean`);

  // Paimon Java writes on top, then expires with its own code; Tributary, Java and pypaimon agree.
  await javaWrite(rows(50, 5, 'j7'));
  await ours(rows(1, 3, 't8'));
  const results = await paimonJava.batch([
    { op: 'expire', ...ref, retainMin: 2 },
    { op: 'read', ...ref },
    { op: 'read', ...ref, snapshotId: 7 },
  ]);
  assert.equal((results[0] as MaintenanceResult).expired, 3, "snapshots 4, 5 and 6");
  const [latestJava, seventh] = readResults(results);
  assert.deepEqual(canonicalRows(latestJava!.rows), rowsOf(model));
  assert.deepEqual(canonicalRows(seventh!.rows), rowsOf(models.get(7)!));
  assert.deepEqual(await table.snapshots.listIds(), [7, 8]);
  assert.deepEqual(await tributaryRows(table, 7), rowsOf(models.get(7)!));
  assert.deepEqual(await tributaryRows(table, 8), rowsOf(model));
  assert.deepEqual(canonicalRows((await pypaimon.read(ref)).rows), rowsOf(model));
  // What Java's expiration left is exactly what the snapshots reach: Tributary finds no orphan.
  assert.deepEqual((await table.findOrphanFiles({ olderThanMs: 0, now: Date.now() + 1000 })).files, []);
});

// The property test's spot check with Paimon Java: seeded random histories of Tributary commits
// (racing ones rebase), overwrites, aborted writes, expirations with random retention and orphan
// cleanups; then Paimon Java reads every snapshot left (one JVM per history) and must see the model.
test('spot check: Paimon Java reads every snapshot left after random histories of commits, expirations and cleanups', async () => {
  for (const seed of [11, 12, 13]) {
    const next = mulberry32(seed);
    const pick = (n: number) => next() % n;
    const dir = await warehouse();
    const store = new LocalObjectStore(dir);
    const ref: TableRef = { warehouse: dir, database: 'compat', table: `spot${seed}` };
    const table = await createTable(store, { database: 'compat', name: `spot${seed}`, schema: { fields, primaryKeys: ['id'], options: { bucket: '2', 'manifest.merge-min-count': '2' } } });
    const models = new Map<number, Model>();
    let model: Model = new Map();
    let expiredTotal = 0;
    for (let step = 0; step < 14; step++) {
      const kind = pick(6);
      const written = rows(pick(20), 1 + pick(6), `s${seed}-${step}`);
      if (kind <= 1) {
        const base = await table.snapshots.latestSnapshotId();
        const first = await table.newWrite({ writerId: `a${step}`, baseSnapshotId: base });
        await first.writeRows(written as InternalRow[]);
        const firstMessages = await first.prepareCommit();
        if (kind === 1) {
          // Another writer on the same base commits first; ours rebases.
          const other = rows(pick(20), 2, `o${seed}-${step}`);
          const id = await tributaryWrite(table, other);
          model = upsert(model, other);
          models.set(id, model);
        }
        const { snapshotId } = await table.newCommit(`c${seed}-${step}`).commit(firstMessages, base === null ? {} : { baseSnapshotId: base });
        model = upsert(model, written);
        models.set(snapshotId, model);
      } else if (kind === 2) {
        const id = await tributaryWrite(table, written, 'OVERWRITE');
        model = upsert(new Map(), written);
        models.set(id, model);
      } else if (kind === 3) {
        const aborted = await table.newWrite({ writerId: `x${step}` });
        await aborted.writeRows(written as InternalRow[]);
        await aborted.prepareCommit();
      } else if (kind === 4) {
        expiredTotal += (await table.expireSnapshots({ retention: { retainMin: 1 + pick(3), timeRetainedMs: 0, maxDeletes: 1 + pick(4) } })).expired.length;
      } else {
        const scan = await table.findOrphanFiles({ olderThanMs: 0, now: Date.now() + 1000 });
        await store.deleteMany(scan.files.map((f) => f.key));
      }
    }
    expiredTotal += (await table.expireSnapshots({ retention: { retainMin: 2, timeRetainedMs: 0 } })).expired.length;
    await store.deleteMany((await table.findOrphanFiles({ olderThanMs: 0, now: Date.now() + 1000 })).files.map((f) => f.key));
    const ids = await table.snapshots.listIds();
    assert.ok(expiredTotal > 0 && ids.length >= 1, `seed ${seed}: expired ${expiredTotal}, left ${ids.join(',')}`);
    const reads = readResults(await paimonJava.batch(ids.map((snapshotId): OracleOp => ({ op: 'read', ...ref, snapshotId }))));
    for (const [i, id] of ids.entries()) {
      assert.deepEqual(canonicalRows(reads[i]!.rows), rowsOf(models.get(id)!), `seed ${seed}: Paimon Java, snapshot ${id}`);
      assert.deepEqual(await tributaryRows(table, id), rowsOf(models.get(id)!), `seed ${seed}: Tributary, snapshot ${id}`);
    }
  }
});
