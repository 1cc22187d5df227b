/**
 * A dictionary id past the dictionary (a corrupt page no checksum covers) is refused with
 * PARQUET_FILE_INVALID by readRows (hyparquet's decode, which dereferenced it as `undefined` and
 * stored a NULL) and by readRowsSparse (parquet-raw-chunk.ts); the failure is the read's rejection,
 * not an exception thrown out of hyparquet's callback. Vector: test/vectors/parquet-dictionary.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { isTributaryError } from '@tributary/errors';
import type { RowType } from '../../../src/spec/types.ts';
import { parseDataTypeString } from '../../../src/spec/data-type-json.ts';
import { rowsFromBatch } from '../../../src/format/column-batch.ts';
import { ParquetDataFileReader, byteSourceFromBytes } from '../../../src/parquet/parquet-reader.ts';

const bytes = new Uint8Array(readFileSync(new URL('../../vectors/parquet-dictionary/pyarrow-19.0.1-dictionary-v1-none.parquet', import.meta.url)));
const rowType: RowType = {
  fields: [
    { id: 0, name: 'id', type: parseDataTypeString('INT NOT NULL') },
    { id: 1, name: 's', type: parseDataTypeString('STRING') },
  ],
};

const open = (file: Uint8Array) => ParquetDataFileReader.open(byteSourceFromBytes(file));
const refused = (e: unknown) => isTributaryError(e) && e.code === 'PARQUET_FILE_INVALID' && /dictionary/.test(e.message);

test('a dictionary id past the dictionary is refused, not read as NULL', async () => {
  assert.deepEqual(
    rowsFromBatch(await (await open(bytes)).readRows(rowType, 0, 300)),
    Array.from({ length: 300 }, (_, i) => [i, `s${i % 7}`]),
  );
  const meta = (await open(bytes)).footer.row_groups[0]?.columns[1]?.meta_data;
  const pageEnd = Number(meta?.dictionary_page_offset) + Number(meta?.total_compressed_size);
  assert.ok(Number(meta?.data_page_offset) < 1350 && 1350 < pageEnd, 'byte 1350 is inside the data page of s');
  const bad = bytes.slice();
  bad[1350] = 0xff; // rows 117–119 get id 7 of a 7-value dictionary
  await assert.rejects(async () => (await open(bad)).readRows(rowType, 0, 300), refused, 'readRows');
  await assert.rejects(async () => (await open(bad)).readRows(rowType, 100, 150), refused, 'readRows of a slice holding the rows');
  await assert.rejects(async () => (await open(bad)).readRowsSparse(rowType, 0, 300), /dictionary/, 'readRowsSparse');
  // A slice of the damaged page is refused even where its own rows' ids are in range: a page is
  // decoded whole and every id checked (ids past the dictionary are corruption, never data).
  await assert.rejects(async () => (await open(bad)).readRows(rowType, 0, 100), refused, 'readRows of the damaged page before the bad ids');
  // Column k alone (no damaged page) still reads.
  assert.equal((await (await open(bad)).readRows({ fields: [rowType.fields[0]!] }, 0, 300)).length, 300);
});
