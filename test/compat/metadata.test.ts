// The metadata of the same commits written by Paimon Java and by Tributary. Readers use it beyond
// the rows: Java, Flink and Spark skip files by their value and key statistics when a query has a
// filter, and skip manifests by partition statistics, so wrong statistics lose rows silently even
// though a full read (the other compat tests) returns them all. The data files' metadata (row
// counts, keys, statistics, sequence numbers, levels, delete counts) must therefore match Java's,
// file for file, and so must the snapshots' counts and the delta manifests' partition statistics
// and bucket/level ranges; only names, sizes, users and times may differ.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { LocalObjectStore, createTable, parseDataTypeString, type DataType, type SimpleStats } from '@tributary/table';
import { decodeBinaryRow, decodeManifestFile, decodeManifestList, decodeSnapshot, type ManifestEntry } from '@tributary/table/spec';
import { canonicalRows, normaliseValue, paimonJava, type OracleOp, type TableDefinition } from '@tributary/testkit';
import { bulkRows, extremeRows, fields, plainRows, timestamp, tributaryCommit, warehouses, withValues, type Operation } from './cases.ts';

const warehouse = warehouses('metadata');
const database = 'compat';

const extremes = extremeRows(1);
const cases: readonly { readonly name: string; readonly definition: TableDefinition; readonly operations: readonly Operation[] }[] = [
  {
    name: 'append',
    definition: { fields },
    operations: [{ type: 'write', rows: [...extremes, ...plainRows(100, 20, 'x', 'plain')] }],
  },
  {
    name: 'append_partitioned',
    definition: { fields, partitionKeys: ['region'], options: { 'metadata.stats-mode': 'full' } },
    operations: [{ type: 'write', rows: extremes }, { type: 'write', rows: plainRows(100, 3, 'eu', 'second') }],
  },
  {
    name: 'pk',
    definition: { fields, primaryKeys: ['id', 'region'], options: { bucket: '1' } },
    operations: [
      { type: 'write', rows: [...extremes, ...plainRows(100, 5, 'x', 'plain')] },
      {
        type: 'write',
        rows: [withValues(extremes[0]!, { s: 'updated' }), extremes[1]!, extremes[2]!, ...plainRows(200, 2, 'y', 'new')],
        kinds: ['+U', '-D', '-U', '+I', '+I'],
      },
    ],
  },
  {
    // Bucket assignment: the same rows must land in the same buckets as Java puts them, or Java's
    // bucket pruning (a filter on the bucket key) and later Java writers would miss them.
    name: 'append_bucket_key',
    definition: { fields, options: { bucket: '3', 'bucket-key': 'd38,s,ts6,dt' } },
    operations: [{ type: 'write', rows: [...extremes, ...bulkRows(100, 300, () => 'x', 3)] }],
  },
  {
    name: 'pk_bucket_key',
    definition: { fields, partitionKeys: ['region'], primaryKeys: ['id', 'region', 'i64'], options: { bucket: '4', 'bucket-key': 'id,i64' } },
    operations: [
      { type: 'write', rows: bulkRows(1, 400, (i) => (i % 2 ? 'eu' : 'us'), 5).map((r) => (r[6] === null ? withValues(r, { i64: 0n }) : r)) },
    ],
  },
  {
    // Keys of the types whose Parquet statistics Java does not map, and a long string key.
    name: 'pk_unmapped_keys',
    definition: {
      fields: [{ name: 'id', type: 'INT' }, { name: 'k_bytes', type: 'BYTES' }, { name: 'k_ts9', type: 'TIMESTAMP(9)' }, { name: 'k_s', type: 'STRING' }, { name: 'v', type: 'BYTES' }],
      primaryKeys: ['id', 'k_bytes', 'k_ts9', 'k_s'],
      options: { bucket: '1' },
    },
    operations: [
      {
        type: 'write',
        rows: [
          [1, new Uint8Array([0, 255]), timestamp(-1n, 9), 'x'.repeat(40), null],
          [2, new Uint8Array([128]), timestamp(1_700_000_000_123_456_789n, 9), '😀'.repeat(20), new Uint8Array([1])],
        ],
      },
      { type: 'write', rows: [[1, new Uint8Array([0, 255]), timestamp(-1n, 9), 'x'.repeat(40), new Uint8Array([2])]], kinds: ['-D'] },
    ],
  },
];

interface FileSummary {
  readonly snapshot: number;
  readonly partition: unknown;
  readonly bucket: number;
  readonly totalBuckets: number;
  readonly file: Record<string, unknown>;
}

function stats(s: SimpleStats, types: readonly DataType[]): unknown {
  const decode = (bytes: Uint8Array) => canonicalRows([decodeBinaryRow(bytes, types)])[0]!.map(normaliseValue);
  return { min: decode(s.minValues), max: decode(s.maxValues), nullCounts: s.nullCounts };
}

/** The comparable part of every file added by each snapshot of a table. */
async function summarise(dir: string, name: string, definition: TableDefinition, snapshots: number): Promise<FileSummary[]> {
  const tableDir = join(dir, `${database}.db`, name);
  const types = definition.fields.map((f) => parseDataTypeString(f.type));
  const nullable = (t: DataType): DataType => ({ ...t, nullable: true });
  // Key rows hold the trimmed primary key: the partition keys left out (TableSchema.trimmedPrimaryKeys).
  const trimmed = (definition.primaryKeys ?? []).filter((k) => !(definition.partitionKeys ?? []).includes(k));
  const keys = trimmed.map((k) => types[definition.fields.findIndex((f) => f.name === k)]!);
  const partitions = (definition.partitionKeys ?? []).map((k) => types[definition.fields.findIndex((f) => f.name === k)]!);
  const summaries: FileSummary[] = [];
  for (let id = 1; id <= snapshots; id++) {
    const snapshot = decodeSnapshot(await readFile(join(tableDir, 'snapshot', `snapshot-${id}`)));
    const manifests = decodeManifestList(await readFile(join(tableDir, 'manifest', snapshot.deltaManifestList)));
    const entries: ManifestEntry[] = [];
    for (const manifest of manifests) entries.push(...decodeManifestFile(await readFile(join(tableDir, 'manifest', manifest.fileName))));
    for (const { kind, partition, bucket, totalBuckets, file } of entries) {
      assert.equal(kind, 'ADD');
      const valueTypes = file.valueStatsCols === null ? types : file.valueStatsCols.map((c) => types[definition.fields.findIndex((f) => f.name === c)]!);
      summaries.push({
        snapshot: id,
        partition: decodeBinaryRow(partition, partitions.map(nullable)),
        bucket,
        totalBuckets,
        file: {
          rowCount: file.rowCount,
          minKey: keys.length > 0 ? decodeBinaryRow(file.minKey, keys) : [],
          maxKey: keys.length > 0 ? decodeBinaryRow(file.maxKey, keys) : [],
          keyStats: stats(file.keyStats, keys),
          valueStats: stats(file.valueStats, valueTypes.map(nullable)),
          valueStatsCols: file.valueStatsCols,
          minSequenceNumber: file.minSequenceNumber,
          maxSequenceNumber: file.maxSequenceNumber,
          schemaId: file.schemaId,
          level: file.level,
          extraFiles: file.extraFiles,
          deleteRowCount: file.deleteRowCount,
          embeddedIndex: file.embeddedIndex,
          fileSource: file.fileSource,
        },
      });
    }
  }
  return summaries.sort((a, b) => JSON.stringify([a.snapshot, a.partition, a.bucket]).localeCompare(JSON.stringify([b.snapshot, b.partition, b.bucket])));
}

/** The comparable part of each snapshot and of its delta manifest list. */
async function snapshotSummaries(dir: string, name: string, definition: TableDefinition, snapshots: number): Promise<unknown[]> {
  const tableDir = join(dir, `${database}.db`, name);
  const types = (definition.partitionKeys ?? []).map((k) => ({ ...parseDataTypeString(definition.fields.find((f) => f.name === k)!.type), nullable: true }));
  const summaries: unknown[] = [];
  for (let id = 1; id <= snapshots; id++) {
    const snapshot = decodeSnapshot(await readFile(join(tableDir, 'snapshot', `snapshot-${id}`)));
    const manifests = decodeManifestList(await readFile(join(tableDir, 'manifest', snapshot.deltaManifestList)));
    summaries.push({
      version: snapshot.version,
      id: snapshot.id,
      schemaId: snapshot.schemaId,
      commitIdentifier: snapshot.commitIdentifier,
      commitKind: snapshot.commitKind,
      totalRecordCount: snapshot.totalRecordCount,
      deltaRecordCount: snapshot.deltaRecordCount,
      changelogRecordCount: snapshot.changelogRecordCount,
      changelogManifestList: snapshot.changelogManifestList,
      indexManifest: snapshot.indexManifest,
      watermark: snapshot.watermark,
      nextRowId: snapshot.nextRowId,
      deltaManifests: manifests.map((m) => ({
        numAddedFiles: m.numAddedFiles,
        numDeletedFiles: m.numDeletedFiles,
        partitionStats: stats(m.partitionStats, types),
        schemaId: m.schemaId,
        minBucket: m.minBucket,
        maxBucket: m.maxBucket,
        minLevel: m.minLevel,
        maxLevel: m.maxLevel,
        minRowId: m.minRowId,
        maxRowId: m.maxRowId,
      })),
    });
  }
  return summaries;
}

describe('data file metadata: Tributary writes what Paimon Java writes', async () => {
  const [ours, theirs] = [await warehouse(), await warehouse()];
  const store = new LocalObjectStore(ours);
  const ops: OracleOp[] = [];
  for (const c of cases) {
    const table = await createTable(store, { database, name: c.name, schema: c.definition });
    for (const operation of c.operations) await tributaryCommit(table, operation);
    const ref = { warehouse: theirs, database, table: c.name };
    ops.push({ op: 'create', ...ref, ...c.definition });
    for (const o of c.operations) ops.push({ op: 'write', ...ref, rows: o.rows, ...(o.type === 'write' && o.kinds ? { kinds: o.kinds } : {}) });
    // Paimon Java's own commit of the messages of our first snapshot (its files, one message each), into a new table.
    ops.push({ op: 'commitCopy', warehouse: ours, database, table: c.name, target: `${c.name}_java_commit`, snapshotId: 1 });
  }
  await paimonJava.batch(ops);

  for (const c of cases) {
    test(`${c.name}: row counts, keys, statistics, sequence numbers, levels and delete counts match Java's file for file`, async () => {
      const java = await summarise(theirs, c.name, c.definition, c.operations.length);
      const tributary = await summarise(ours, c.name, c.definition, c.operations.length);
      assert.deepStrictEqual(tributary, java, `${c.name}: files as Java writes them`);
    });

    test(`${c.name}: snapshots and their delta manifest lists match Java's`, async () => {
      const java = await snapshotSummaries(theirs, c.name, c.definition, c.operations.length);
      const tributary = await snapshotSummaries(ours, c.name, c.definition, c.operations.length);
      assert.deepStrictEqual(tributary, java, `${c.name}: snapshots as Java writes them`);
    });

    test(`${c.name}: Paimon Java's commit of our first snapshot's files keeps their metadata and makes the snapshot ours made`, async () => {
      const target = `${c.name}_java_commit`;
      assert.deepStrictEqual(await summarise(ours, target, c.definition, 1), await summarise(ours, c.name, c.definition, 1), `${c.name}: files as Java commits them`);
      assert.deepStrictEqual(await snapshotSummaries(ours, target, c.definition, 1), await snapshotSummaries(ours, c.name, c.definition, 1), `${c.name}: snapshot as Java commits it`);
    });
  }
});
