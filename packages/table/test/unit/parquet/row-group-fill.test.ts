// DataFileWriter's fillRowGroups: small writes are held until they fill a row group (the bucket
// merge's 4,096-row batches), and the file holds exactly the rows written, in order; without it
// each write still starts its own row group.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isTributaryError } from '@tributary/errors';
import { batchFromRows, rowsFromBatch } from '../../../src/format/column-batch.ts';
import { DataFileWriter, memorySink } from '../../../src/parquet/parquet-writer.ts';
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

