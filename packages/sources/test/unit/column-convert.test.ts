/**
 * The batch converter (values/columns.ts) against the row converter it replaces on the worker's
 * path: for random batches of every kind of source value (MySQL texts, numbers, bigints, exact
 * timestamps, strings with astral characters, NULLs, and values that do not fit), the columns hold
 * exactly the row converter's values, and a batch with a bad cell fails with the row converter's
 * error for the first bad cell in row order (same code, message and context).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { isTributaryError } from '@tributary/protocol';
import { parseDataTypeString, type Column, type InternalValue, type RowType } from '@tributary/table';
import { columnConverter } from '../../src/values/columns.ts';
import { rowConverter } from '../../src/values/convert.ts';
import type { SourceColumn, SourceRow, SourceValue } from '../../src/source.ts';

const TYPES = [
  'INT NOT NULL', 'SMALLINT', 'TINYINT', 'BIGINT', 'DECIMAL(12, 2)', 'DECIMAL(18, 4) NOT NULL', 'DECIMAL(30, 5)', 'DECIMAL(18, 0)',
  'VARCHAR(5)', 'CHAR(2)', 'STRING', 'DATE', 'TIMESTAMP(3)', 'TIMESTAMP(6) NOT NULL', 'TIMESTAMP(0)', 'TIMESTAMP_LTZ(9)', 'DOUBLE', 'FLOAT', 'BOOLEAN', 'BYTES', 'TIME',
];

/** Source values of every kind a source yields, plainly valid ones and misfits alike. */
const sourceValue: fc.Arbitrary<SourceValue> = fc.oneof(
  fc.constant(null),
  fc.integer({ min: -(2 ** 31) - 2, max: 2 ** 31 + 1 }),
  fc.constantFrom(0, -0, 127, 128, -128, -129, 32767, 32768, 2 ** 53, 2 ** 53 + 2, -(2 ** 63), 0.5, 1e300, NaN, Infinity, 86_399_999, 86_400_000),
  fc.double(),
  fc.bigInt({ min: -(2n ** 64n), max: 2n ** 64n }),
  fc.stringMatching(/^-?\d{1,20}$/),
  fc.stringMatching(/^[-+]?\d{0,16}\.\d{0,6}$/),
  fc.constantFrom('1e3', '-1.5E-2', ' 12', '0.000', '-0', '99999999.99', '100000000.00', '9223372036854775807', '9223372036854775808', 'NaN', 'true', 'false'),
  fc.stringMatching(/^\d{4}-[01]\d-[0-3]\d$/),
  fc.stringMatching(/^\d{4}-[01]\d-[0-3]\d [0-2]\d:[0-5]\d:[0-6]\d(\.\d{1,9})?$/),
  fc.constantFrom('2024-02-29', '2023-02-29', '0000-00-00', '0000-00-00 00:00:00', '9999-12-31 23:59:59.999999', '1969-12-31 23:59:59.9999995', '2024-01-01T10:00:00+02:00'),
  fc.string({ unit: 'binary', maxLength: 8 }),
  fc.constantFrom('😀😀😀😀😀', '😀😀😀😀😀😀', 'abcde', 'abcdef', '\ud83d\ud83d\ud83d\ud83d\ud83d', 'é'),
  fc.record({ epochMillis: fc.integer({ min: -(2 ** 50), max: 2 ** 50 }), nanoOfMillis: fc.integer({ min: 0, max: 999_999 }) }),
  fc.constantFrom({ epochMillis: 8.64e15 + 1, nanoOfMillis: 0 }, { epochMillis: 0.5, nanoOfMillis: 0 }),
  fc.boolean(),
  fc.uint8Array({ maxLength: 4 }),
  fc.date({ noInvalidDate: false }),
);

function cell(column: Column, r: number): InternalValue {
  if (column.validity !== undefined && column.validity[r] === 0) return null;
  switch (column.kind) {
    case 'bool':
      return column.values[r] === 1;
    case 'timestamp':
      return { epochMillis: column.millis[r] ?? NaN, nanoOfMillis: column.nanos[r] ?? NaN };
    default:
      return column.values[r] ?? null;
  }
}

/** A FLOAT column stores float32: the row converter's double is compared as the column keeps it. */
function asStored(type: string, value: InternalValue): InternalValue {
  if (value === null) return null;
  if (type === 'FLOAT') return Math.fround(value as number);
  if (['INT NOT NULL', 'SMALLINT', 'TINYINT', 'DATE', 'TIME'].includes(type)) return (value as number) | 0;
  return value;
}

function converters(types: readonly string[]) {
  const table: RowType = { fields: types.map((t, id) => ({ id, name: `c${id}`, type: parseDataTypeString(t) })) };
  const source: SourceColumn[] = types.map((_, i) => ({ name: `c${i}`, sourceType: 'test' }));
  return { table, rows: rowConverter('shard-1', source, table), batch: columnConverter('shard-1', source, table) };
}

describe('columnConverter', () => {
  test('random batches: the row converter\'s values, or its error for the first bad cell', () => {
    let converted = 0;
    let refused = 0;
    fc.assert(
      fc.property(
        fc.subarray(TYPES, { minLength: 1 }),
        fc.integer({ min: 0, max: 12 }),
        fc.infiniteStream(sourceValue),
        fc.integer({ min: 0, max: 1000 }),
        fc.boolean(),
        (types, length, values, firstPosition, fromFile) => {
          const { table, rows: convertRow, batch: convertBatch } = converters(types);
          const source: SourceRow[] = Array.from({ length }, () => types.map(() => values.next().value as SourceValue));
          const file = fromFile ? { uri: 's3://b/f.csv', firstRow: 40 } : undefined;
          let expected: (readonly InternalValue[])[] | undefined;
          let expectedError: unknown;
          try {
            expected = source.map((row, i) => convertRow(row, firstPosition + i, file && { uri: file.uri, row: file.firstRow + i }));
          } catch (error) {
            expectedError = error;
          }
          if (expected === undefined) {
            refused++;
            assert.ok(isTributaryError(expectedError));
            assert.throws(
              () => convertBatch(source, firstPosition, file),
              (error: unknown) => isTributaryError(error) && error.code === expectedError.code && error.message === expectedError.message && JSON.stringify(error.context) === JSON.stringify(expectedError.context),
            );
            return;
          }
          converted++;
          const batch = convertBatch(source, firstPosition, file);
          assert.equal(batch.length, length);
          assert.equal(batch.rowType, table);
          types.forEach((type, c) => {
            const column = batch.columns[c];
            assert.ok(column !== undefined);
            for (let r = 0; r < length; r++) assert.deepEqual(cell(column, r), asStored(type, expected[r]?.[c] ?? null), `${type} row ${r}`);
            if (column.validity !== undefined) assert.ok(column.validity.includes(0), 'a validity only when there is a null');
          });
        },
      ),
      { numRuns: 3000 },
    );
    assert.ok(converted > 100 && refused > 100, `both outcomes are exercised (${converted} converted, ${refused} refused)`);
  });

  test('MySQL text of an 11-column row: every value on its fast path matches the row converter', () => {
    const types = ['BIGINT NOT NULL', 'INT NOT NULL', 'INT', 'DECIMAL(12, 2)', 'DECIMAL(18, 4)', 'VARCHAR(16)', 'VARCHAR(64)', 'DATE', 'TIMESTAMP(3) NOT NULL', 'TIMESTAMP(6)', 'INT'];
    const { rows: convertRow, batch: convertBatch } = converters(types);
    const source: SourceRow[] = [
      ['9007199254740993', 7, null, '-99999999.99', '99999999999999.9999', 'DELIVERED', '😀 emoji 123', '2024-02-29', { epochMillis: 1_700_000_000_123, nanoOfMillis: 0 }, { epochMillis: -1, nanoOfMillis: 999_999 }, -500],
      ['1', -2147483648, 2147483647, '0.00', '-0.0001', '', 'Ωμέγα', '0001-01-01', { epochMillis: 0, nanoOfMillis: 0 }, null, null],
      ['-9223372036854775808', 0, 64, null, null, null, null, null, { epochMillis: -62_135_596_800_000, nanoOfMillis: 0 }, '2021-06-01 00:00:00.000001', 0],
    ];
    const batch = convertBatch(source, 0);
    const expected = source.map((row, i) => convertRow(row, i));
    types.forEach((type, c) => {
      for (let r = 0; r < source.length; r++) assert.deepEqual(cell(batch.columns[c] as Column, r), asStored(type, expected[r]?.[c] ?? null), `${type} row ${r}`);
    });
  });

  test('a table column the source lacks is all NULL; a NOT NULL one is refused when the converter is made', () => {
    const table: RowType = { fields: [{ id: 0, name: 'a', type: parseDataTypeString('INT') }, { id: 1, name: 'b', type: parseDataTypeString('STRING') }] };
    const batch = columnConverter('s', [{ name: 'a', sourceType: 't' }], table)([[1], [2]], 0);
    assert.deepEqual([cell(batch.columns[1] as Column, 0), cell(batch.columns[1] as Column, 1)], [null, null]);
    const strict: RowType = { fields: [{ id: 0, name: 'b', type: parseDataTypeString('STRING NOT NULL') }] };
    assert.throws(() => columnConverter('s', [{ name: 'a', sourceType: 't' }], strict), (error: unknown) => isTributaryError(error) && error.code === 'SOURCE_SCHEMA_MISMATCH');
  });
});
