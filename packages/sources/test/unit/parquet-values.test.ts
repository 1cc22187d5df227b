/**
 * Parquet input values, case by case: a footer schema element and a decoded physical value →
 * the reading plan → the exact source value → the table value (convert.ts), or the typed refusal.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { isTributaryError } from '@tributary/protocol';
import { parseDataTypeString, type InternalValue, type Timestamp } from '@tributary/table';
import { rowConverter } from '../../src/values/convert.ts';
import { matchColumns } from '../../src/files/column-names.ts';
import { topLevelColumns } from '../../src/files/parquet.ts';
import { decimalText, parquetValue, planParquetColumn, type ParquetElement } from '../../src/files/parquet-values.ts';

type Raw = number | bigint | boolean | string | Uint8Array | Timestamp;

const el = (type: string, extra: Partial<ParquetElement> = {}): ParquetElement => ({ name: 'c', type, ...extra });
const logical = (l: ParquetElement['logical_type']): Partial<ParquetElement> => ({ logical_type: l });

/** Converts one decoded value of column `element` into a table column of type `target`. */
function convert(element: ParquetElement, raw: Raw, target: string): InternalValue {
  const plan = planParquetColumn(element, 'file:///f.parquet');
  const row = rowConverter('s', [{ name: 'c', sourceType: plan.describe }], { fields: [{ id: 0, name: 'c', type: parseDataTypeString(target) }] });
  return row([parquetValue(plan.reading, raw)], 0, { uri: 'file:///f.parquet', row: 7 })[0] ?? null;
}

const utf8 = (text: string): Uint8Array => new TextEncoder().encode(text);
const ts = (epochMillis: number, nanoOfMillis = 0): Timestamp => ({ epochMillis, nanoOfMillis });

// [what, element, decoded value, table type, expected table value]
const CASES: [string, ParquetElement, Raw, string, InternalValue][] = [
  ['INT32 into INT', el('INT32'), -5, 'INT', -5],
  ['INT32 INT(8) into TINYINT', el('INT32', logical({ type: 'INTEGER', bitWidth: 8, isSigned: true })), -128, 'TINYINT', -128],
  ['INT32 UINT_32 (read signed) into BIGINT', el('INT32', { converted_type: 'UINT_32' }), -1n, 'BIGINT', 4294967295n],
  ['INT64 UINT_64 into DECIMAL(20, 0)', el('INT64', logical({ type: 'INTEGER', bitWidth: 64, isSigned: false })), -1n, 'DECIMAL(20, 0)', 18446744073709551615n],
  ['INT64 into BIGINT', el('INT64'), -(2n ** 63n), 'BIGINT', -(2n ** 63n)],
  ['INT64 into INT when it fits', el('INT64'), 2147483647n, 'INT', 2147483647],
  ['INT32 DECIMAL(9, 2) into DECIMAL(9, 2)', el('INT32', { converted_type: 'DECIMAL', precision: 9, scale: 2 }), -12345n, 'DECIMAL(9, 2)', -12345n],
  ['INT64 DECIMAL(18, 2) into DECIMAL(20, 4): rescaled', el('INT64', logical({ type: 'DECIMAL', precision: 18, scale: 2 })), 999999999999999999n, 'DECIMAL(20, 4)', 99999999999999999900n],
  ['FIXED DECIMAL(38, 10) into DECIMAL(38, 10)', el('FIXED_LEN_BYTE_ARRAY', logical({ type: 'DECIMAL', precision: 38, scale: 10 })), 10n ** 37n + 1n, 'DECIMAL(38, 10)', 10n ** 37n + 1n],
  ['BYTE_ARRAY DECIMAL(5, 3) into DECIMAL(4, 1): trailing zeros drop', el('BYTE_ARRAY', logical({ type: 'DECIMAL', precision: 5, scale: 3 })), -12300n, 'DECIMAL(4, 1)', -123n],
  ['DECIMAL(10, 2) into DOUBLE', el('INT64', logical({ type: 'DECIMAL', precision: 10, scale: 2 })), 125n, 'DOUBLE', 1.25],
  ['TIMESTAMP(MILLIS) into TIMESTAMP(3)', el('INT64', logical({ type: 'TIMESTAMP', unit: 'MILLIS' })), ts(-1), 'TIMESTAMP(3)', ts(-1)],
  ['TIMESTAMP(MICROS) into TIMESTAMP(6)', el('INT64', logical({ type: 'TIMESTAMP', unit: 'MICROS' })), ts(-2, 999_000), 'TIMESTAMP(6)', ts(-2, 999_000)],
  ['TIMESTAMP(NANOS) into TIMESTAMP(6): cut toward the past', el('INT64', logical({ type: 'TIMESTAMP', unit: 'NANOS' })), ts(-2, 999_999), 'TIMESTAMP(6)', ts(-2, 999_000)],
  ['TIMESTAMP(NANOS) into TIMESTAMP(9)', el('INT64', logical({ type: 'TIMESTAMP', unit: 'NANOS' })), ts(5, 123_456), 'TIMESTAMP(9)', ts(5, 123_456)],
  ['TIMESTAMP_MICROS into TIMESTAMP(3): millis kept', el('INT64', { converted_type: 'TIMESTAMP_MICROS' }), ts(1_700_000_000_123, 456_000), 'TIMESTAMP(3)', ts(1_700_000_000_123)],
  ['INT96 into TIMESTAMP_LTZ(6)', el('INT96'), ts(86_400_000, 1_000), 'TIMESTAMP_LTZ(6)', ts(86_400_000, 1_000)],
  ['DATE into DATE (before 1970)', el('INT32', logical({ type: 'DATE' })), -719_162, 'DATE', -719_162],
  ['TIME(MILLIS) into TIME', el('INT32', logical({ type: 'TIME', unit: 'MILLIS' })), 45_296_789n, 'TIME', 45_296_789],
  ['TIME(MICROS) into TIME: millis', el('INT64', logical({ type: 'TIME', unit: 'MICROS' })), 45_296_789_999n, 'TIME', 45_296_789],
  ['TIME(NANOS) into TIME: millis', el('INT64', logical({ type: 'TIME', unit: 'NANOS' })), 1_999_999n, 'TIME', 1],
  ['STRING into VARCHAR(3) (code points)', el('BYTE_ARRAY', logical({ type: 'STRING' })), utf8('é€😀'), 'VARCHAR(3)', 'é€😀'],
  ['ENUM into STRING', el('BYTE_ARRAY', { converted_type: 'ENUM' }), utf8('RED'), 'STRING', 'RED'],
  ['STRING starting with U+FEFF keeps it (a default decoder drops it)', el('BYTE_ARRAY', logical({ type: 'STRING' })), utf8('\uFEFFabc'), 'STRING', '\uFEFFabc'],
  ['STRING of U+FEFF only', el('BYTE_ARRAY', logical({ type: 'STRING' })), utf8('\uFEFF'), 'VARCHAR(1)', '\uFEFF'],
  ['plain BYTE_ARRAY into BYTES', el('BYTE_ARRAY'), new Uint8Array([0, 255]), 'BYTES', new Uint8Array([0, 255])],
  ['FIXED(16) UUID into BINARY(16)', el('FIXED_LEN_BYTE_ARRAY', { type_length: 16, ...logical({ type: 'UUID' }) }), new Uint8Array(16).fill(1), 'BINARY(16)', new Uint8Array(16).fill(1)],
  ['BOOLEAN into BOOLEAN', el('BOOLEAN'), false, 'BOOLEAN', false],
  ['FLOAT into DOUBLE: the float32 value exactly', el('FLOAT'), Math.fround(0.1), 'DOUBLE', Math.fround(0.1)],
  ['DOUBLE into DOUBLE', el('DOUBLE'), -0, 'DOUBLE', -0],
];

// [what, element, decoded value, table type, message pattern]
const REFUSALS: [string, ParquetElement, Raw, string, RegExp][] = [
  ['INT64 past INT', el('INT64'), 2147483648n, 'INT', /cannot be converted to INT/],
  ['UINT_64 past BIGINT', el('INT64', { converted_type: 'UINT_64' }), -1n, 'BIGINT', /cannot be converted to BIGINT/],
  ['a decimal past the precision', el('INT64', logical({ type: 'DECIMAL', precision: 18, scale: 2 })), 10n ** 12n, 'DECIMAL(12, 2)', /^(?!.*10000000000).*a number too large for DECIMAL\(12, 2\)/],
  ['a decimal with more places than the column (never rounded)', el('INT64', logical({ type: 'DECIMAL', precision: 10, scale: 3 })), 1005n, 'DECIMAL(10, 2)', /^(?!.*1\.005).*more than 2 decimal places/],
  ['a string longer than the column', el('BYTE_ARRAY', logical({ type: 'STRING' })), utf8('abcd'), 'VARCHAR(3)', /^(?!.*abcd).*a string longer than VARCHAR\(3\)/],
  ['a string longer than the column by its leading U+FEFF', el('BYTE_ARRAY', logical({ type: 'STRING' })), utf8('\uFEFFab'), 'VARCHAR(2)', /a string longer than VARCHAR\(2\)/],
  ['bytes longer than the column', el('BYTE_ARRAY'), new Uint8Array(3), 'BINARY(2)', /bytes longer than BINARY\(2\)/],
  ['a date past the range of a date', el('INT32', logical({ type: 'DATE' })), 2 ** 31 - 1, 'DATE', /a date that cannot be converted to DATE/],
  ['a timestamp past the supported range', el('INT96'), ts(9e15), 'TIMESTAMP(6)', /out of the range of TIMESTAMP/],
  ['bytes into a number', el('BYTE_ARRAY'), new Uint8Array(1), 'INT', /bytes that cannot be converted to INT/],
  ['a timestamp into a date', el('INT64', logical({ type: 'TIMESTAMP', unit: 'MICROS' })), ts(0), 'DATE', /cannot be converted to DATE/],
];

describe('Parquet input values', () => {
  for (const [what, element, raw, target, expected] of CASES) {
    test(what, () => assert.deepEqual(convert(element, raw, target), expected));
  }
  for (const [what, element, raw, target, message] of REFUSALS) {
    test(`refused: ${what}`, () =>
      assert.throws(
        () => convert(element, raw, target),
        (e) =>
          isTributaryError(e) &&
          e.code === 'SOURCE_ROW_INVALID' &&
          e.context.file === 'file:///f.parquet' &&
          e.context.fileRow === 7 &&
          e.context.column === 'c' &&
          message.test(e.message),
      ));
  }

  test('unreadable column types are SOURCE_SCHEMA_MISMATCH naming the file and column', () => {
    for (const element of [el('FIXED_LEN_BYTE_ARRAY', logical({ type: 'FLOAT16' })), { name: 'c', num_children: 1 }]) {
      assert.throws(() => planParquetColumn(element, 'file:///f.parquet'), (e) => isTributaryError(e) && e.code === 'SOURCE_SCHEMA_MISMATCH' && e.context.column === 'c');
    }
  });

  test('a string column holding invalid UTF-8 is refused, never replaced', () => {
    const plan = planParquetColumn(el('BYTE_ARRAY', logical({ type: 'STRING' })), 'f');
    assert.throws(() => parquetValue(plan.reading, new Uint8Array([0x61, 0xff])), TypeError);
  });

  test('decimal text is exact at every scale and sign', () => {
    assert.deepEqual(
      [decimalText(0n, 0), decimalText(-5n, 3), decimalText(123456n, 2), decimalText(-(10n ** 38n) + 1n, 38)],
      ['0', '-0.005', '1234.56', `-0.${'9'.repeat(38)}`],
    );
  });

  test('columns match by exact name first, then by a unique case-insensitive name', () => {
    const ignore = { unknownColumns: 'ignore' } as const;
    assert.deepEqual(matchColumns(['id', 'Name', 'x'], ['ID', 'id', 'name'], 'f', 'parquet', ignore), ['id', 'name', undefined]);
    assert.throws(() => matchColumns(['Id'], ['ID', 'id'], 'f', 'parquet', ignore), (e) => isTributaryError(e) && e.code === 'SOURCE_SCHEMA_MISMATCH' && e.context.column === 'Id');
  });

  test('a file with none of the table\'s columns: the CSV separator hint only for a CSV', () => {
    const hint = /comma-separated/;
    for (const unknownColumns of ['fail', 'ignore'] as const) {
      assert.throws(() => matchColumns(['id'], ['a;b'], 'f.csv', 'csv', { unknownColumns }), (e) => isTributaryError(e) && e.code === 'SOURCE_SCHEMA_MISMATCH' && hint.test(e.message));
      for (const format of ['parquet', 'ndjson'] as const) {
        assert.throws(() => matchColumns(['id'], ['other'], 'f', format, { unknownColumns }), (e) => isTributaryError(e) && e.code === 'SOURCE_SCHEMA_MISMATCH' && !hint.test(e.message), format);
      }
    }
  });

  test('a file column no table column takes is refused, naming it and the columns it may misspell, unless unknownColumns is ignore', () => {
    const fail = { unknownColumns: 'fail' } as const;
    // A misspelt header: `amout` would be left out and `amount` load as null.
    assert.throws(
      () => matchColumns(['id', 'amount', 'note'], ['id', 'amout', 'note'], 'f.csv', 'csv', fail),
      (e) => isTributaryError(e) && e.code === 'SOURCE_SCHEMA_MISMATCH' && e.context.column === 'amout' && /"amout"/.test(e.message) && /column amount is not in the file/.test(e.message) && /unknownColumns/.test(e.message),
    );
    // An extra column, every table column present: still refused (its values would be lost), without a guess.
    assert.throws(
      () => matchColumns(['id'], ['id', 'extra'], 'f', 'parquet', fail),
      (e) => isTributaryError(e) && e.code === 'SOURCE_SCHEMA_MISMATCH' && e.context.column === 'extra' && !/misspelt/.test(e.message),
    );
    // A name that matches a column only ignoring case, when the exact name is there too, is not loaded either.
    assert.throws(() => matchColumns(['id'], ['ID', 'id'], 'f', 'parquet', fail), (e) => isTributaryError(e) && e.context.column === 'ID');
    // An empty header name (a trailing comma) is a column too.
    assert.throws(() => matchColumns(['id', 'a'], ['id', 'a', ''], 'f.csv', 'csv', fail), (e) => isTributaryError(e) && e.context.column === '');
    // A long name is cut in the message and the context.
    const long = 'x'.repeat(500);
    assert.throws(() => matchColumns(['id'], ['id', long], 'f', 'parquet', fail), (e) => isTributaryError(e) && e.message.length < 600 && e.context.column === 'x'.repeat(64));
    // Every file column taken (by exact or case-insensitive name), or ignore: loads.
    assert.deepEqual(matchColumns(['id', 'Name', 'x'], ['ID', 'name'], 'f', 'parquet', fail), ['ID', 'name', undefined]);
    assert.deepEqual(matchColumns(['id', 'amount'], ['id', 'amout'], 'f.csv', 'csv', { unknownColumns: 'ignore' }), ['id', undefined]);
  });

  test('top-level columns skip the children of nested groups', () => {
    const schema: ParquetElement[] = [
      { name: 'schema', num_children: 3 },
      { name: 'a', type: 'INT32' },
      { name: 'l', num_children: 1 },
      { name: 'list', num_children: 1 },
      { name: 'element', type: 'INT32' },
      { name: 'b', type: 'INT64' },
    ];
    assert.deepEqual(topLevelColumns(schema).map((e) => e.name), ['a', 'l', 'b']);
  });
});
