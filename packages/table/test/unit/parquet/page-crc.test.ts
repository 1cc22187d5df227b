/**
 * Page checksums (parquet-page-crc.ts): a file whose page headers carry a crc reads as it is, and
 * with one byte of a dictionary page or of a data page flipped it is refused with
 * PARQUET_FILE_INVALID, by readRows (hyparquet's decode) and by readRowsSparse over a whole row
 * group (parquet-raw-chunk.ts). Vectors: test/vectors/parquet-crc (pyarrow, write_page_checksum=True).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { isTributaryError } from '@tributary/errors';
import type { RowType } from '../../../src/spec/types.ts';
import { parseDataTypeString } from '../../../src/spec/data-type-json.ts';
import { rowsFromBatch } from '../../../src/format/column-batch.ts';
import { ParquetDataFileReader, byteSourceFromBytes } from '../../../src/parquet/parquet-reader.ts';
import { checkPageCrc } from '../../../src/parquet/parquet-page-crc.ts';

const vectors = ['pyarrow-19.0.1-page-crc-v1-none.parquet', 'pyarrow-19.0.1-page-crc-v2-snappy.parquet'];
const vector = (name: string) => new Uint8Array(readFileSync(new URL(`../../vectors/parquet-crc/${name}`, import.meta.url)));
const rowType: RowType = {
  fields: [
    { id: 0, name: 'id', type: parseDataTypeString('INT NOT NULL') },
    { id: 1, name: 's', type: parseDataTypeString('STRING') },
  ],
};
const expected = Array.from({ length: 300 }, (_, i) => [i, `s${i % 7}`]);

/** Where to flip a byte in column `id`: the last byte of its dictionary page, the middle and the last byte of its data pages. */
async function flips(bytes: Uint8Array): Promise<Record<string, number>> {
  const meta = (await ParquetDataFileReader.open(byteSourceFromBytes(bytes))).footer.row_groups[0]?.columns[0]?.meta_data;
  assert.ok(meta?.dictionary_page_offset !== undefined);
  const data = Number(meta.data_page_offset);
  const end = Number(meta.dictionary_page_offset) + Number(meta.total_compressed_size);
  return { 'dictionary page': data - 1, 'a middle data page': Math.floor((data + end) / 2), 'the last data page': end - 1 };
}

const refused = (e: unknown) => isTributaryError(e) && e.code === 'PARQUET_FILE_INVALID' && /page checksum/.test(e.message);

for (const name of vectors) {
  test(`${name}: reads with its page checksums checked; one flipped byte in a page is refused`, async () => {
    const bytes = vector(name);
    const reader = await ParquetDataFileReader.open(byteSourceFromBytes(bytes));
    assert.deepEqual(rowsFromBatch(await reader.readRows(rowType, 0, 300)), expected);
    const sparse = await reader.readRowsSparse(rowType, 0, 300);
    assert.deepEqual([sparse.value(0, 299), sparse.value(1, 299)], [299, 's5']);

    for (const [page, at] of Object.entries(await flips(bytes))) {
      const bad = bytes.slice();
      bad[at] = (bad[at] as number) ^ 0x5a;
      const open = () => ParquetDataFileReader.open(byteSourceFromBytes(bad));
      await assert.rejects(async () => (await open()).readRows(rowType, 0, 300), refused, `${page}: readRows`);
      await assert.rejects(async () => (await open()).readRows(rowType, 200, 300), refused, `${page}: readRows of the last rows checks the whole chunk`);
      await assert.rejects(async () => (await open()).readRowsSparse(rowType, 0, 300), refused, `${page}: readRowsSparse`);
    }
  });
}

test('checkPageCrc: a header without a crc is not checked; a signed thrift i32 matches the unsigned CRC-32', () => {
  const body = new TextEncoder().encode('123456789'); // CRC-32 check value 0xCBF43926, negative as an i32
  checkPageCrc({ type: 'DATA_PAGE' }, body, 'c', 0);
  checkPageCrc({ type: 'DATA_PAGE', crc: 0xcbf43926 | 0 }, body, 'c', 0);
  assert.throws(() => checkPageCrc({ type: 'DATA_PAGE', crc: 0xcbf43927 | 0 }, body, 'c', 4), /column 'c': the DATA_PAGE at byte 4 does not match its page checksum/);
});
