/**
 * The before-image probe's read path: ParquetDataFileReader.readRowsSparse over whole row groups
 * (column chunks decoded page by page into row references, parquet-raw-chunk.ts) must give exactly
 * what readRows gives for every row, whatever the pages hold; readRows must give the rows written
 * for any range, within a row group (the same page decoding) or across groups (hyparquet); and
 * readAheadSource must return exactly the bytes asked for while fetching fewer, larger ranges.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { DataField, DataType, InternalValue, RowType } from '../../../src/spec/types.ts';
import { batchFromRows, rowsFromBatch } from '../../../src/format/column-batch.ts';
import { ParquetFileEncoder, memorySink } from '../../../src/parquet/parquet-writer.ts';
import { ParquetDataFileReader, byteSourceFromBytes, readAheadSource, type ByteSource } from '../../../src/parquet/parquet-reader.ts';

const STRING = 2147483647;
const t = (root: string, extra: Record<string, number> = {}, nullable = true) => ({ root, nullable, ...extra }) as DataType;
const field = (id: number, name: string, type: DataType): DataField => ({ id, name, type });

const rowType: RowType = {
  fields: [
    field(0, 'id', t('BIGINT', {}, false)),
    field(1, 'n', t('INT')),
    field(2, 'amount', t('BIGINT')),
    // Few distinct values: a dictionary column; nulls in runs that cross page boundaries.
    field(3, 'status', t('VARCHAR', { length: STRING })),
    // Distinct, long values: PLAIN byte arrays cut into several ~1 MiB pages.
    field(4, 'note', t('VARCHAR', { length: STRING })),
    field(5, 'flag', t('BOOLEAN')),
    field(6, 'price', t('DECIMAL', { precision: 20, scale: 2 })),
    field(7, 'at', t('TIMESTAMP', { precision: 6 })),
    // Null in every row.
    field(8, 'op', t('VARCHAR', { length: STRING })),
    field(9, 'req', t('INT', {}, false)),
  ],
};

const STATUSES = ['NEW', 'PAID', 'SHIPPED'];

function row(i: number): InternalValue[] {
  const h = Math.imul(i + 1, 0x9e3779b1) >>> 0;
  return [
    BigInt(i) * 3n,
    i % 7 === 0 ? null : h % 1000,
    i % 11 === 3 ? null : BigInt(h) * -17n,
    // Null for long stretches (4,000 rows at a time): whole pages of nulls and pages with some.
    Math.floor(i / 4000) % 3 === 1 ? null : (STATUSES[h % 3] as string),
    i % 13 === 5 ? null : `note ${i} ${'x'.repeat(200 + (h % 50))}`,
    i % 5 === 0 ? null : (h & 1) === 1,
    i % 9 === 4 ? null : BigInt(h) * 1000n + 7n,
    i % 17 === 2 ? null : { epochMillis: 1_700_000_000_000 + i, nanoOfMillis: (h % 1000) * 1000 },
    null,
    i,
  ];
}

test('readRowsSparse over whole row groups gives readRows\' value for every row and column, read in any order (dictionary, plain multi-page, nulls across pages, all-null)', async () => {
  const sink = memorySink();
  const encoder = new ParquetFileEncoder(rowType, sink);
  // Row groups of different sizes; the first large enough for several pages of `note`.
  const groups = [12_000, 1, 4_500];
  let next = 0;
  for (const size of groups) {
    await encoder.writeRowGroup(batchFromRows(rowType, Array.from({ length: size }, () => row(next++))));
  }
  await encoder.finish();
  const bytes = sink.bytes();
  const reader = await ParquetDataFileReader.open(byteSourceFromBytes(bytes));
  const noteChunk = reader.footer.row_groups[0]?.columns[4]?.meta_data;
  assert.ok(noteChunk !== undefined && noteChunk.total_uncompressed_size > 2 * 1024 * 1024, 'the first group\'s note column spans several pages');
  // The probe's projection: every column but the key, in another order than the file's.
  const projected: RowType = { fields: [...rowType.fields.slice(1)].reverse() };
  for (let g = 0; g < groups.length; g++) {
    const [start, end] = reader.rowGroupRange(g);
    const full = rowsFromBatch(await reader.readRows(projected, start, end));
    const sparse = await reader.readRowsSparse(projected, start, end);
    assert.equal(sparse.length, end - start);
    for (let r = end - start - 1; r >= 0; r--) {
      const got = projected.fields.map((_, f) => sparse.value(f, r));
      assert.deepEqual(got, full[r], `row group ${g}, row ${r}`);
    }
    // Forward, and jumping about (a row is found by its page: each page's first and last row, and
    // rows far from the one asked before), on a fresh read.
    const again = await reader.readRowsSparse(projected, start, end);
    const length = end - start;
    const order = [...Array.from({ length }, (_, r) => r), ...Array.from({ length: Math.min(length, 3000) }, (_, i) => (Math.imul(i + 1, 0x9e3779b1) >>> 0) % length)];
    for (const r of order) {
      const got = projected.fields.map((_, f) => again.value(f, r));
      assert.deepEqual(got, full[r], `row group ${g}, row ${r}, forward or jumping`);
    }
    // And against the rows written (readRows is itself checked elsewhere; this pins both).
    assert.deepEqual(full[0], [...row(start)].slice(1).reverse(), `row group ${g}, first row`);
  }
});

test('readRows gives the rows written for any range: within a row group (its pages decoded by parquet-raw-chunk, only those holding the range) or across row groups (hyparquet)', async () => {
  const sink = memorySink();
  const encoder = new ParquetFileEncoder(rowType, sink);
  const groups = [12_000, 1, 4_500];
  let next = 0;
  for (const size of groups) await encoder.writeRowGroup(batchFromRows(rowType, Array.from({ length: size }, () => row(next++))));
  await encoder.finish();
  const reader = await ParquetDataFileReader.open(byteSourceFromBytes(sink.bytes()));
  const written = Array.from({ length: next }, (_, i) => row(i));
  const ranges: [number, number][] = [
    [0, 12_000], // a whole group
    [0, 1],
    [11_999, 12_000],
    [5_000, 9_000], // inside, past the first pages of `note`
    [12_000, 12_001], // the one-row group
    [12_001, 16_501],
    [16_500, 16_501],
    [3_999, 4_001], // across a run of nulls' edge in `status`
    [11_000, 13_000], // across groups: the parquetRead path
    [0, next],
    [7, 7], // empty
  ];
  // And ranges at random inside each group.
  for (let i = 0; i < 20; i++) {
    const h = Math.imul(i + 11, 0x9e3779b1) >>> 0;
    const g = h % 3;
    const [start, end] = reader.rowGroupRange(g);
    const a = start + (h % (end - start));
    ranges.push([a, a + 1 + ((h >>> 8) % (end - a))]);
  }
  for (const [a, b] of ranges) assert.deepEqual(rowsFromBatch(await reader.readRows(rowType, a, b)), written.slice(a, b), `rows [${a}, ${b})`);
  // A projection in another order, within a group.
  const projected: RowType = { fields: [...rowType.fields].reverse() };
  assert.deepEqual(
    rowsFromBatch(await reader.readRows(projected, 6_000, 6_100)),
    written.slice(6_000, 6_100).map((r) => [...r].reverse()),
  );
});

test('readRowsSparse of a part of a row group still reads (the parquetRead path), rows counted from the range start', async () => {
  const sink = memorySink();
  const encoder = new ParquetFileEncoder(rowType, sink);
  await encoder.writeRowGroup(batchFromRows(rowType, Array.from({ length: 300 }, (_, i) => row(i))));
  await encoder.finish();
  const reader = await ParquetDataFileReader.open(byteSourceFromBytes(sink.bytes()));
  const sparse = await reader.readRowsSparse(rowType, 100, 200);
  assert.equal(sparse.length, 100);
  for (const r of [0, 57, 99]) assert.deepEqual(rowType.fields.map((_, f) => sparse.value(f, r)), row(100 + r));
});

test('readAheadSource returns exactly the bytes asked for, and serves reads inside its window without another fetch', async () => {
  const bytes = new Uint8Array(10_000).map((_, i) => (i * 31 + 7) & 0xff);
  const fetched: [number, number][] = [];
  const source: ByteSource = {
    size: bytes.length,
    read: (offset, length) => {
      fetched.push([offset, length]);
      return Promise.resolve(bytes.slice(offset, offset + length));
    },
  };
  const ahead = readAheadSource(source, 1000);
  const reads: [number, number][] = [[0, 10], [10, 500], [600, 400], [999, 2], [1000, 0], [3000, 1500], [9_990, 10], [9_000, 999], [5, 5]];
  for (const [offset, length] of reads) {
    assert.deepEqual(await ahead.read(offset, length), bytes.subarray(offset, offset + length), `read ${offset}+${length}`);
  }
  assert.deepEqual(fetched, [
    [0, 1000], // serves 0+10, 10+500, 600+400
    [999, 1000], // 999+2 crosses the window's end; 1000+0 is inside the new one
    [3000, 1500], // at least a window: read through
    [9_990, 10], // clipped at the end of the source
    [9_000, 1000], // a read before the window fetches again
    [5, 1000],
  ]);
  // A file read through it is the same file.
  const sink = memorySink();
  const encoder = new ParquetFileEncoder(rowType, sink);
  await encoder.writeRowGroup(batchFromRows(rowType, Array.from({ length: 2000 }, (_, i) => row(i))));
  await encoder.finish();
  const file = sink.bytes();
  const direct = await ParquetDataFileReader.open(byteSourceFromBytes(file));
  const windowed = await ParquetDataFileReader.open(readAheadSource(byteSourceFromBytes(file), 4096));
  assert.deepEqual(rowsFromBatch(await windowed.readRows(rowType, 0, 2000)), rowsFromBatch(await direct.readRows(rowType, 0, 2000)));
});
