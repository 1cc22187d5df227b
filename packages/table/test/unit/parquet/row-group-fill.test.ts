// DataFileWriter's fillRowGroups: small writes are held until they fill a row group (the bucket
// merge's 4,096-row batches), and the file holds exactly the rows written, in order; without it
// each write still starts its own row group.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isTributaryError } from '@tributary/errors';
import { batchFromRows, rowsFromBatch } from '../../../src/format/column-batch.ts';
import { DataFileWriter, memorySink, shareRowGroup } from '../../../src/parquet/parquet-writer.ts';
import { ParquetDataFileReader, byteSourceFromBytes } from '../../../src/parquet/parquet-reader.ts';
import { parseDataType } from '../../../src/spec/data-type-json.ts';
import type { InternalValue, RowType } from '../../../src/spec/types.ts';

const rowType: RowType = {
  fields: [
    { id: 0, name: 'k', type: parseDataType('BIGINT NOT NULL') },
    { id: 1, name: 's', type: parseDataType('STRING') },
    { id: 2, name: 'd', type: parseDataType('DOUBLE') },
    { id: 3, name: 'm', type: parseDataType('DECIMAL(38, 10)') },
  ],
};

const row = (i: number): InternalValue[] => [
  BigInt(i) - 2n ** 62n,
  i % 7 === 0 ? null : i % 5 === 0 ? '' : `é😀${i}\uffff`,
  i % 11 === 0 ? null : i / 3 + 0.1,
  i % 13 === 0 ? null : (i % 2 === 0 ? 1n : -1n) * (10n ** 38n - 1n - BigInt(i)),
];

async function write(fillRowGroups: boolean): Promise<{ groups: number[]; bytes: Uint8Array; results: Awaited<ReturnType<DataFileWriter['close']>> }> {
  const groups: number[] = [];
  const sinks: ReturnType<typeof memorySink>[] = [];
  const writer = new DataFileWriter({
    rowType,
    uuid: 'fill',
    targetFileSize: 1 << 30,
    rowGroupRows: 2000,
    fillRowGroups,
    openSink: () => {
      const sink = memorySink();
      sinks.push(sink);
      return sink;
    },
    onRowGroup: (rows) => groups.push(rows.length),
  });
  for (let b = 0; b < 50; b++) await writer.write(batchFromRows(rowType, Array.from({ length: 100 }, (_, i) => row(b * 100 + i))));
  const results = await writer.close();
  assert.equal(sinks.length, 1, 'one file');
  return { groups, bytes: sinks[0]!.bytes(), results };
}

test('fillRowGroups: 50 writes of 100 rows make row groups of 1,024 (the first, before a size estimate), 2,000 and the rest; the rows read back exactly', async () => {
  const { groups, bytes, results } = await write(true);
  assert.deepStrictEqual(groups, [1024, 2000, 1976]);
  const reader = await ParquetDataFileReader.open(byteSourceFromBytes(bytes));
  assert.equal(reader.rowGroupCount, 3);
  const rows: InternalValue[][] = [];
  for await (const batch of reader.batches(rowType)) rows.push(...rowsFromBatch(batch));
  assert.deepStrictEqual(rows, Array.from({ length: 5000 }, (_, i) => row(i)));
  assert.equal(results[0]?.rowCount, 5000);
  assert.deepStrictEqual(results[0]?.firstRow, row(0));
  assert.deepStrictEqual(results[0]?.lastRow, row(4999));
});

test('without fillRowGroups each write is its own row group', async () => {
  const { groups, results } = await write(false);
  assert.deepStrictEqual(groups, new Array<number>(50).fill(100));
  assert.equal(results[0]?.rowCount, 5000);
});

test('a row group of no rows (or not a whole number of rows) is refused when the writer is made, not looped on', () => {
  for (const rowGroupRows of [0, -1, 1.5, Number.NaN]) {
    assert.throws(
      () => new DataFileWriter({ rowType, uuid: 'bad', targetFileSize: 1 << 20, rowGroupRows, fillRowGroups: true, openSink: () => memorySink() }),
      (e: unknown) => isTributaryError(e) && e.code === 'DATA_FILE_OPTION_INVALID',
      String(rowGroupRows),
    );
  }
});


// A row group encoded once (shareRowGroup) and written into two files (a changelog's new keys are
// its data file's records too): in each file it is a group of its own after the rows held before
// it, at that file's own offsets, and its column chunks are the same bytes in both.
test('a shared row group: each file ends its held rows\' group first, the shared group is the same bytes at each file\'s offsets, the rows read back exactly', async () => {
  const open = (uuid: string, groups: number[], compression?: 'zstd' | 'gzip') => {
    const sinks: ReturnType<typeof memorySink>[] = [];
    const writer = new DataFileWriter({
      rowType,
      uuid,
      targetFileSize: 1 << 30,
      rowGroupRows: 500,
      fillRowGroups: true,
      ...(compression === undefined ? {} : { compression }),
      openSink: () => {
        const sink = memorySink();
        sinks.push(sink);
        return sink;
      },
      onRowGroup: (rows) => groups.push(rows.length),
    });
    return { writer, sinks };
  };
  const groupsA: number[] = [];
  const groupsB: number[] = [];
  const a = open('a', groupsA);
  const b = open('b', groupsB);
  await a.writer.write(batchFromRows(rowType, Array.from({ length: 30 }, (_, i) => row(i))));
  await b.writer.write(batchFromRows(rowType, Array.from({ length: 7 }, (_, i) => row(1000 + i))));
  const shared = shareRowGroup(rowType, batchFromRows(rowType, Array.from({ length: 700 }, (_, i) => row(2000 + i))), {});
  await a.writer.writeShared(shared);
  await b.writer.writeShared(shared);
  await a.writer.write(batchFromRows(rowType, Array.from({ length: 20 }, (_, i) => row(3000 + i))));
  const [resultA] = await a.writer.close();
  const [resultB] = await b.writer.close();
  assert.deepStrictEqual(groupsA, [30, 700, 20], 'A: its 30 held rows end a group before the shared one');
  assert.deepStrictEqual(groupsB, [7, 700]);

  const expectedA = [...Array.from({ length: 30 }, (_, i) => row(i)), ...Array.from({ length: 700 }, (_, i) => row(2000 + i)), ...Array.from({ length: 20 }, (_, i) => row(3000 + i))];
  const expectedB = [...Array.from({ length: 7 }, (_, i) => row(1000 + i)), ...Array.from({ length: 700 }, (_, i) => row(2000 + i))];
  const chunks: Uint8Array[][] = [];
  for (const [bytes, expected, result] of [
    [a.sinks[0]!.bytes(), expectedA, resultA],
    [b.sinks[0]!.bytes(), expectedB, resultB],
  ] as const) {
    const reader = await ParquetDataFileReader.open(byteSourceFromBytes(bytes));
    const rows: InternalValue[][] = [];
    for await (const batch of reader.batches(rowType)) rows.push(...rowsFromBatch(batch));
    assert.deepStrictEqual(rows, expected, 'every row, in order');
    assert.equal(result?.rowCount, expected.length);
    assert.deepStrictEqual(result?.firstRow, expected[0]);
    assert.deepStrictEqual(result?.lastRow, expected[expected.length - 1]);
    // The shared group is the file's second: its column chunks' bytes, cut by the footer's own offsets.
    const group = reader.footer.row_groups[1]!;
    chunks.push(group.columns.map((c) => {
      const m = c.meta_data!;
      const from = Number(m.dictionary_page_offset ?? m.data_page_offset);
      return bytes.subarray(from, from + Number(m.total_compressed_size));
    }));
  }
  assert.notEqual(Number(resultA?.fileSize), Number(resultB?.fileSize), 'the files differ before the shared group');
  for (const [i, chunk] of chunks[0]!.entries()) assert.equal(Buffer.compare(Buffer.from(chunk), Buffer.from(chunks[1]![i]!)), 0, `column ${i}: the same bytes in both files`);
  // Statistics cover the shared rows in each file (the key column's range, the nulls).
  assert.equal(resultA?.stats[0]?.max, expectedA.map((r) => r[0] as bigint).reduce((x, y) => (x > y ? x : y)));
  assert.equal(resultB?.stats[1]?.nullCount, expectedB.filter((r) => r[1] === null).length);

  // A writer of other file options refuses the group (its pages are not that file's codec).
  const gzip = open('g', [], 'gzip');
  await assert.rejects(gzip.writer.writeShared(shared), /other file options/);
});
