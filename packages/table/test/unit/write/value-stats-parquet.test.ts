// Value stats of columns whose Parquet statistics Java does not map (ParquetSimpleStatsExtractor):
// BINARY/VARBINARY and TIMESTAMP(7..9) keep their null count only, in value and key stats alike.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeBinaryRow } from '../../../src/spec/binary-row.ts';
import { MAX_LENGTH, type DataType } from '../../../src/spec/types.ts';
import { keyStatsOf, valueStatsOf, valueStatsOptions } from '../../../src/write/data-file-metas.ts';
import { DATA_FILE_LEVEL_0 } from '../../../src/spec/file-options.ts';

const types: DataType[] = [
  { root: 'VARBINARY', length: MAX_LENGTH, nullable: true },
  { root: 'BINARY', length: 3, nullable: true },
  { root: 'TIMESTAMP', precision: 9, nullable: true },
  { root: 'TIMESTAMP_LTZ', precision: 7, nullable: true },
  { root: 'TIMESTAMP', precision: 6, nullable: true },
  { root: 'VARCHAR', length: MAX_LENGTH, nullable: true },
];
const fields = types.map((type, id) => ({ id, name: `f${id}`, type }));
const ts = (epochMillis: number, nanoOfMillis: number) => ({ epochMillis, nanoOfMillis });
const columns = [
  { min: new Uint8Array([0]), max: new Uint8Array([255]), nullCount: 1 },
  { min: new Uint8Array([0, 0, 0]), max: new Uint8Array([9, 9, 9]), nullCount: 0 },
  { min: ts(-1, 999_999), max: ts(5, 1), nullCount: 2 },
  { min: ts(0, 100), max: ts(1, 100), nullCount: 0 },
  { min: ts(-1, 999_000), max: ts(7, 0), nullCount: 3 },
  { min: 'a', max: 'b', nullCount: 4 },
];

for (const mode of ['truncate(16)', 'full']) {
  test(`${mode}: BINARY/VARBINARY and TIMESTAMP(7..9) have no min/max, only a null count, as Java writes them`, () => {
    const { stats, statsColumns } = valueStatsOf(columns, valueStatsOptions(fields, { 'metadata.stats-mode': mode }, DATA_FILE_LEVEL_0));
    assert.equal(statsColumns, null);
    assert.deepEqual(decodeBinaryRow(stats.minValues, types), [null, null, null, null, ts(-1, 999_000), 'a']);
    assert.deepEqual(decodeBinaryRow(stats.maxValues, types), [null, null, null, null, ts(7, 0), 'b']);
    assert.deepEqual(stats.nullCounts, [1n, 0n, 2n, 0n, 3n, 4n]);
  });
}

test('key stats of BINARY and TIMESTAMP(9) keys have no min/max either; other keys stay untruncated', () => {
  const keyTypes: DataType[] = [
    { root: 'VARBINARY', length: MAX_LENGTH, nullable: false },
    { root: 'TIMESTAMP', precision: 9, nullable: false },
    { root: 'VARCHAR', length: MAX_LENGTH, nullable: false },
  ];
  const long = 'k'.repeat(40);
  const stats = keyStatsOf([columns[0]!, columns[2]!, { min: long, max: `${long}z`, nullCount: 0 }], keyTypes);
  const nullable = keyTypes.map((t) => ({ ...t, nullable: true }));
  assert.deepEqual(decodeBinaryRow(stats.minValues, nullable), [null, null, long]);
  assert.deepEqual(decodeBinaryRow(stats.maxValues, nullable), [null, null, `${long}z`]);
  assert.deepEqual(stats.nullCounts, [1n, 2n, 0n]);
});
