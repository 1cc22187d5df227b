import { test } from 'node:test';
import assert from 'node:assert/strict';
import { batchFromRows } from '../../../src/format/column-batch.ts';
import { decodeBinaryRow, encodeBinaryRow, serializeBinaryRow } from '../../../src/spec/binary-row.ts';
import { bucketOf } from '../../../src/spec/bucket.ts';
import { MAX_LENGTH, type DataType, type InternalRow } from '../../../src/spec/types.ts';
import { assignBuckets, hasFastBucketPath } from '../../../src/write/bucket-assigner.ts';
import { RowRouter } from '../../../src/write/row-routing.ts';
import { partitionStats } from '../../../src/write/manifest-writer.ts';
import { keyStatsOf, valueStatsOf, valueStatsOptions } from '../../../src/write/data-file-metas.ts';
import { DATA_FILE_LEVEL_0 } from '../../../src/spec/file-options.ts';
import { newTableSchema } from '../../../src/table.ts';
import { fileNameSafe } from '../../../src/write/table-write.ts';

const INT: DataType = { root: 'INT', nullable: true };
const BIGINT: DataType = { root: 'BIGINT', nullable: true };
const STRING: DataType = { root: 'VARCHAR', nullable: true, length: 2147483647 };
const field = (name: string, type: DataType, id: number) => ({ id, name, type });

function buckets(types: DataType[], rows: InternalRow[], n: number): number[] {
  const rowType = { fields: types.map((t, i) => field(`f${i}`, t, i)) };
  return [...assignBuckets(batchFromRows(rowType, rows), types.map((_, i) => i), types, n)];
}

test("assignBuckets matches the reference vectors (Paimon Java's bucket assignment)", () => {
  // value, N=2, N=4, N=10, N=16
  const cases: { type: DataType; value: InternalRow[number]; want: number[] }[] = [
    { type: INT, value: 5, want: [0, 0, 6, 4] },
    { type: INT, value: -1, want: [1, 3, 7, 3] },
    { type: INT, value: null, want: [0, 0, 4, 0] },
    { type: BIGINT, value: 42n, want: [1, 1, 7, 5] },
    { type: BIGINT, value: 1234567890123n, want: [0, 0, 6, 12] },
    { type: STRING, value: 'abc', want: [1, 3, 9, 3] },
    { type: STRING, value: 'abcdefgh', want: [0, 2, 8, 2] },
    { type: { root: 'DATE', nullable: true }, value: 19723, want: [1, 1, 5, 5] },
  ];
  for (const c of cases) {
    assert.deepEqual([2, 4, 10, 16].map((n) => buckets([c.type], [[c.value]], n)[0]), c.want, `${c.type.root} ${String(c.value)}`);
  }
  // a composite key (INT 1, STRING '2024-01-01', BIGINT 42): N=16 → 12
  assert.deepEqual(buckets([INT, STRING, BIGINT], [[1, '2024-01-01', 42n]], 16), [12]);
});

test('the typed-array bucket path agrees with encodeBinaryRow on random keys with nulls', () => {
  const types = [BIGINT, INT, { root: 'DATE', nullable: true } as DataType];
  assert.equal(hasFastBucketPath(types), true);
  assert.equal(hasFastBucketPath([STRING]), false);
  let seed = 7;
  const next = () => (seed = (Math.imul(seed, 1103515245) + 12345) | 0);
  const rows: InternalRow[] = Array.from({ length: 500 }, () => [
    next() % 5 === 0 ? null : BigInt(next()) * 4096n,
    next() % 7 === 0 ? null : next(),
    next() % 3 === 0 ? null : next() % 40000,
  ]);
  const fast = buckets(types, rows, 16);
  const slow = rows.map((r) => bucketOf(encodeBinaryRow(r, types), 16));
  assert.deepEqual(fast, slow);
  assert.ok(new Set(fast).size > 8, 'keys spread over the buckets');
});

test('RowRouter: partition rows, directories and buckets per row', () => {
  const schema = newTableSchema({
    fields: [{ name: 'id', type: 'BIGINT' }, { name: 'dt', type: 'DATE' }, { name: 's', type: 'STRING' }],
    partitionKeys: ['dt', 's'],
    primaryKeys: ['id', 'dt', 's'],
    options: { bucket: '4' },
  }, 0);
  const router = new RowRouter(schema);
  const rows: InternalRow[] = [[42n, 19723, 'a/b'], [1n, 19723, 'a/b'], [42n, 19724, ''], [43n, 19723, 'a/b']];
  const routed = router.route(batchFromRows({ fields: schema.fields }, rows));
  const shape = routed.map((g) => `${g.target.partitionPath}bucket-${g.target.bucket}:${g.rows.join(',')}`);
  assert.ok(shape.includes('dt=19723/s=a%2Fb/bucket-1:0'), shape.join(' '));
  assert.ok(shape.includes('dt=19724/s=__DEFAULT_PARTITION__/bucket-1:2'), shape.join(' '));
  const types = schema.fields.slice(1).map((f) => f.type);
  for (const g of routed) {
    assert.deepEqual(decodeBinaryRow(g.target.partition, types), g.target.partitionValues);
    assert.equal(g.target.totalBuckets, 4);
  }
  assert.equal(routed.reduce((n, g) => n + g.rows.length, 0), rows.length);
});

test('partitionStats: exact min, max and null counts over the entries', () => {
  const types = [INT, STRING];
  const entry = (values: InternalRow) => ({ partition: newRow(values, types) });
  const stats = partitionStats([entry([3, 'b']), entry([1, null]), entry([2, 'a'])], types);
  assert.deepEqual(decodeBinaryRow(stats.minValues, types), [1, 'a']);
  assert.deepEqual(decodeBinaryRow(stats.maxValues, types), [3, 'b']);
  assert.deepEqual(stats.nullCounts, [0n, 1n]);
  const empty = partitionStats([], []);
  assert.equal(empty.minValues.length, 12);
});

test('value stats follow truncate(16) as Java does: min cut, max cut and bumped, NOT NULL columns allowed', () => {
  const long = 'x'.repeat(20);
  const fields = [
    { id: 0, name: 's', type: { root: 'VARCHAR', length: MAX_LENGTH, nullable: false } },
    { id: 1, name: 'i', type: INT },
  ] as const;
  const { stats, statsColumns } = valueStatsOf(
    [{ min: long, max: long, nullCount: 0 }, { min: 1, max: 9, nullCount: 0 }],
    valueStatsOptions(fields, {}, DATA_FILE_LEVEL_0),
  );
  const nullable = [STRING, INT];
  assert.deepEqual(decodeBinaryRow(stats.minValues, nullable), ['x'.repeat(16), 1]);
  assert.deepEqual(decodeBinaryRow(stats.maxValues, nullable), [`${'x'.repeat(15)}y`, 9]);
  assert.deepEqual(stats.nullCounts, [0n, 0n]);
  assert.equal(statsColumns, null, 'every column has stats: the dense form names none');
});

test('a column with stats-mode none is left out and the kept ones are named (dense store)', () => {
  const fields = [
    { id: 0, name: 's', type: STRING },
    { id: 1, name: 'i', type: INT },
  ] as const;
  const { stats, statsColumns } = valueStatsOf(
    [{ min: 'a', max: 'b', nullCount: 1 }, { min: 1, max: 9, nullCount: 0 }],
    valueStatsOptions(fields, { 'fields.s.stats-mode': 'none' }, DATA_FILE_LEVEL_0),
  );
  assert.deepEqual(statsColumns, ['i']);
  assert.deepEqual(decodeBinaryRow(stats.minValues, [INT]), [1]);
  assert.deepEqual(decodeBinaryRow(stats.maxValues, [INT]), [9]);
});

test('key stats are exact, however long the key', () => {
  const long = 'k'.repeat(40);
  const keyType = { root: 'VARCHAR', length: MAX_LENGTH, nullable: false } as const;
  const stats = keyStatsOf([{ min: long, max: `${long}z`, nullCount: 0 }], [keyType]);
  assert.deepEqual(decodeBinaryRow(stats.minValues, [STRING]), [long]);
  assert.deepEqual(decodeBinaryRow(stats.maxValues, [STRING]), [`${long}z`]);
});

function newRow(values: InternalRow, types: DataType[]): Uint8Array {
  return serializeBinaryRow(values, types);
}

test('RowRouter: partitions that print alike stay apart (separators in strings, null vs "N", -0.0 vs 0.0)', () => {
  const schema = newTableSchema({
    fields: [{ name: 'v', type: 'INT' }, { name: 'a', type: 'STRING' }, { name: 'b', type: 'STRING' }, { name: 'd', type: 'DOUBLE' }],
    partitionKeys: ['a', 'b', 'd'],
  }, 0);
  const rows: InternalRow[] = [
    [1, 'x|y', 'z', 0], [2, 'x', 'y|z', 0], [3, null, 'N', 0], [4, 'N', null, 0], [5, 'x|y', 'z', -0], [6, 'x|y', 'z', 0],
  ];
  const routed = new RowRouter(schema).route(batchFromRows({ fields: schema.fields }, rows));
  assert.deepEqual(routed.map((g) => g.rows), [[0, 5], [1], [2], [3], [4]]);
  const types = schema.fields.slice(1).map((f) => f.type);
  for (const g of routed) assert.deepEqual(decodeBinaryRow(g.target.partition, types), rows[g.rows[0] as number]?.slice(1));
});

test('fileNameSafe keeps safe ids and makes any other id safe and still distinct', () => {
  assert.equal(fileNameSafe('sync1-db_00.orders_00-a1'), 'sync1-db_00.orders_00-a1');
  const a = fileNameSafe('sync1-s3://bucket/a b.csv-a1');
  const b = fileNameSafe('sync1-s3://bucket/a_b.csv-a1');
  assert.match(a, /^[A-Za-z0-9._-]+$/);
  assert.notEqual(a, b);
  assert.ok(fileNameSafe('x'.repeat(500)).length <= 97);
  assert.match(fileNameSafe(''), /^w-[0-9a-f]{16}$/);
});
