// Cross-reads beyond a handful of rows, and the parts of Paimon Java a small table never reaches:
// tens of thousands of rows (several pages and row groups, dictionary pages, rolled files), every
// Parquet codec Java writes, many commits (manifest merging on both sides), and Java's compaction
// (level > 0 files, DELETE entries, COMPACT snapshots) followed by a Tributary commit on top.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { isTributaryError } from '@tributary/protocol';
import { LocalObjectStore, createTable, openTable } from '@tributary/table';
import { decodeManifestList } from '@tributary/table/spec';
import { paimonJava, pypaimon, readResults, type OracleOp, type OracleRow, type TableDefinition } from '@tributary/testkit';
import {
  ExpectedTable,
  assertRows,
  bulkRows,
  fields,
  plainRows,
  projectOperation,
  tables,
  tributaryCommit,
  warehouses,
  withValues,
  type Operation,
} from './cases.ts';

const warehouse = warehouses('scale');
const database = 'compat';
const regions = ['eu', 'us', 'apac'];
const region = (i: number) => regions[i % regions.length]!;

interface Case {
  readonly name: string;
  readonly definition: TableDefinition;
  readonly operations: readonly Operation[];
}

/** A case whose operations are cut down to its table's columns. */
function projected(c: Case): Case {
  return { ...c, operations: c.operations.map((o) => projectOperation(o, c.definition)) };
}

function run(c: Case): ExpectedTable {
  const expected = new ExpectedTable(c.definition);
  c.operations.forEach((o) => expected.apply(o));
  return expected;
}

/** Updates of every third key of `rows`, then deletes of every fifth. */
function churn(rows: readonly OracleRow[], tag: string): Operation {
  const updates = rows.filter((_, i) => i % 3 === 0).map((r) => withValues(r, { s: `${tag} update`, i64: 7n }));
  const deletes = rows.filter((_, i) => i % 5 === 1);
  return { type: 'write', rows: [...updates, ...deletes], kinds: [...updates.map(() => '+U' as const), ...deletes.map(() => '-D' as const)] };
}

const bulk = bulkRows(1, 20_000, region, 7);
const pkBulk = bulkRows(1, 12_000, region, 11);

/** Written by Tributary, read by Java and pypaimon. */
const tributaryCases: readonly Case[] = ([
  {
    name: 'bulk_append',
    // A small target file size rolls files; pypaimon reads it, so it stays an append table.
    definition: { fields, partitionKeys: ['region'], options: { 'target-file-size': '256 kb' } },
    operations: [{ type: 'write', rows: bulk }],
  },
  {
    name: 'bulk_pk',
    definition: { ...tables.pkFlatPy, options: { bucket: '3', 'target-file-size': '512 kb' } },
    operations: [{ type: 'write', rows: pkBulk }, churn(pkBulk, 'second')],
  },
  {
    name: 'many_commits',
    // Merge manifests early: every commit past the third rewrites the small ones (ManifestFileMerger).
    definition: { ...tables.pkPartitionedPy, options: { bucket: '2', 'manifest.merge-min-count': '3' } },
    operations: Array.from({ length: 12 }, (_, n): Operation =>
      n === 0 ? { type: 'write', rows: plainRows(1, 40, 'eu', 'c0') } : churn(plainRows(1 + n, 30, n % 2 ? 'eu' : 'us', `c${n}`), `c${n}`),
    ),
  },
] as Case[]).map(projected);

/** Written by Java, read by Tributary. */
const javaCases: readonly Case[] = ([
  { name: 'bulk_append', definition: { fields, partitionKeys: ['region'] }, operations: [{ type: 'write', rows: bulk }] },
  {
    name: 'compacted',
    // Compact as soon as there are two sorted runs: level > 0 files and COMPACT snapshots.
    definition: { ...tables.pkPartitioned, options: { bucket: '2', 'num-sorted-run.compaction-trigger': '2' } },
    operations: [{ type: 'write', rows: pkBulk.slice(0, 3000) }, churn(pkBulk.slice(0, 3000), 'second'), churn(pkBulk.slice(1000, 2000), 'third')],
  },
  ...['none', 'snappy', 'zstd', 'gzip', 'lz4'].map((codec) => ({
    name: `codec_${codec}`,
    definition: { fields, options: { 'file.compression': codec } },
    operations: [{ type: 'write', rows: bulk.slice(0, 2000) } as Operation],
  })),
  {
    // Java writes changelog files and a changelog manifest list; a batch read ignores them.
    name: 'changelog_input',
    definition: { ...tables.pkFlat, options: { bucket: '2', 'changelog-producer': 'input' } },
    operations: [{ type: 'write', rows: pkBulk.slice(0, 500) }, churn(pkBulk.slice(0, 500), 'second')],
  },
  {
    name: 'java_many_commits',
    definition: { ...tables.pkFlat, options: { bucket: '2', 'manifest.merge-min-count': '2', 'manifest.target-file-size': '4 kb' } },
    operations: Array.from({ length: 8 }, (_, n): Operation => (n === 0 ? { type: 'write', rows: plainRows(1, 40, 'x', 'c0') } : churn(plainRows(1 + n, 30, 'x', `c${n}`), `c${n}`))),
  },
] as Case[]).map(projected);

function writes(dir: string, c: Case): OracleOp[] {
  const ref = { warehouse: dir, database, table: c.name };
  return [
    { op: 'create', ...ref, ...c.definition },
    ...c.operations.map((o) => ({ op: 'write' as const, ...ref, rows: o.rows, ...(o.type === 'write' && o.kinds ? { kinds: o.kinds } : {}) })),
  ];
}

describe('at scale and with Java-only machinery', { concurrency: true }, async () => {
  const ours = await warehouse();
  const store = new LocalObjectStore(ours);
  for (const c of tributaryCases) {
    const table = await createTable(store, { database, name: c.name, schema: c.definition });
    for (const operation of c.operations) await tributaryCommit(table, operation);
  }
  // The cases reach what they are meant to: rolled files, merged manifests.
  const bulkFiles = await (await openTable(store, database, 'bulk_append')).newRead().plan();
  assert.ok(bulkFiles.length > regions.length, `bulk_append rolled into ${bulkFiles.length} files`);
  const many = await openTable(store, database, 'many_commits');
  const latest = (await many.latestSnapshot())!;
  const base = decodeManifestList(await store.get(`${database}.db/many_commits/manifest/${latest.baseManifestList}`));
  assert.ok(base.length < 11, `many_commits: ${base.length} base manifests after 12 commits`);
  const readsOfOurs = tributaryCases.map((c): OracleOp => ({ op: 'read', warehouse: ours, database, table: c.name }));

  test('Paimon Java reads 20,000-row, rolled and many-commit tables Tributary wrote', async () => {
    const results = readResults(await paimonJava.batch(readsOfOurs));
    tributaryCases.forEach((c, i) => assertRows(results[i]!.rows, run(c).rows, `Paimon Java reads ${c.name}`));
  });

  test('pypaimon reads them too', async () => {
    const results = readResults(await pypaimon.batch(readsOfOurs));
    tributaryCases.forEach((c, i) => assertRows(results[i]!.rows, run(c).rows, `pypaimon reads ${c.name}`));
  });

  test('Tributary reads Java\'s bulk, compacted, every-codec, changelog and manifest-merged tables; Java reads a Tributary commit on top of its compaction', async () => {
    const theirs = await warehouse();
    await paimonJava.batch(javaCases.flatMap((c) => writes(theirs, c)));
    const theirStore = new LocalObjectStore(theirs);
    for (const c of javaCases) {
      const table = await openTable(theirStore, database, c.name);
      assertRows((await table.newRead().toArray()) as OracleRow[], run(c).rows, `Tributary reads ${c.name} written by Java`);
    }
    const changelogTable = await openTable(theirStore, database, 'changelog_input');
    assert.ok((await changelogTable.latestSnapshot())?.changelogManifestList, 'Java wrote a changelog manifest list');
    // Tributary writes no changelog files, so it refuses to write such a table rather than hide
    // its commits from streaming readers.
    await assert.rejects(changelogTable.newWrite(), (error: unknown) => isTributaryError(error) && error.code === 'TABLE_UNSUPPORTED');
    // The compaction happened: some live file is above level 0.
    const compacted = await openTable(theirStore, database, 'compacted');
    const levels = (await compacted.newRead().plan()).map((entry) => entry.file.level);
    assert.ok(levels.some((level) => level > 0), `Java compacted (levels ${[...new Set(levels)].join(', ')})`);

    // Tributary updates keys Java compacted; Java and Tributary then read the same rows.
    const c = javaCases.find((x) => x.name === 'compacted')!;
    const after = { ...c, operations: [...c.operations, churn(pkBulk.slice(0, 1500), 'tributary')] };
    await tributaryCommit(compacted, after.operations.at(-1)!);
    const expected = run(after).rows;
    assertRows((await compacted.newRead().toArray()) as OracleRow[], expected, 'Tributary reads its commit on Java\'s compaction');
    const [java] = readResults(await paimonJava.batch([{ op: 'read', warehouse: theirs, database, table: 'compacted' }]));
    assertRows(java!.rows, expected, 'Java reads Tributary\'s commit on its compaction');
  });
});
