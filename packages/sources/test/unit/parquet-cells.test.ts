/**
 * Parquet input cells (files/parquet-cells.ts) against the row path, on adversarial values: for
 * every reading type (each physical/logical pair the files source reads, as the table's Parquet
 * reader decodes it into a column vector) and every table type, each cell written by the cells
 * into the table's column is exactly the value the row path gives (`parquetValue`, then the exact
 * value converter of values/convert.ts), and a cell that path refuses is refused with the same
 * error; the rows the cells decode are the row path's source values.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { isTributaryError } from '@tributary/protocol';
import { allocateColumn, batchFromRows, parseDataTypeString, valueAt, type Column, type InternalValue, type Timestamp } from '@tributary/table';
import { ParquetCells, type ReadColumn } from '../../src/files/parquet-cells.ts';
import { parquetValue, planParquetColumn, type ParquetElement } from '../../src/files/parquet-values.ts';
import type { SourceBatch, SourceValue } from '../../src/source.ts';
import { columnConverter } from '../../src/values/columns.ts';
import { rowConverter } from '../../src/values/convert.ts';

type Raw = number | bigint | boolean | Uint8Array | Timestamp | null;

const URI = 'file:///in/f.parquet';
const FIRST_ROW = 1000; // the file row of the slice's row 0
const el = (type: string, extra: Partial<ParquetElement> = {}): ParquetElement => ({ name: 'c', type, ...extra });
const logical = (l: ParquetElement['logical_type']): Partial<ParquetElement> => ({ logical_type: l });
const utf8 = (text: string): Uint8Array => new TextEncoder().encode(text);
const ts = (epochMillis: number, nanoOfMillis = 0): Timestamp => ({ epochMillis, nanoOfMillis });
const pow = (b: bigint, e: number): bigint => b ** BigInt(e);

const INT32S = [0, -1, 1, 127, -128, 128, -129, 32_767, -32_768, 32_768, -32_769, 2 ** 31 - 1, -(2 ** 31), 86_399_999, 86_400_000, 45_296_789, 12_345, -12_340];
const INT64S = [
  0n,
  -1n,
  1n,
  127n,
  -129n,
  2n ** 31n - 1n,
  -(2n ** 31n),
  2n ** 31n,
  -(2n ** 31n) - 1n,
  2n ** 32n,
  2n ** 32n - 1n,
  -(2n ** 32n),
  2n ** 53n - 1n,
  2n ** 53n,
  2n ** 53n + 1n,
  -(2n ** 53n) - 1n,
  2n ** 63n - 1n,
  -(2n ** 63n),
  pow(10n, 17),
  pow(10n, 18) - 1n,
  -(pow(10n, 18) - 1n),
  999_999_999_999n,
  1_000_000_000_000n,
  12_340_000n,
  -12_345n,
  100n,
  -5n,
  86_399_999_999n,
  86_400_000_000n,
  86_399_999_999_999n,
  86_400_000_000_000n,
  -999n,
  45_296_789_999n,
];
const BIGINTS = [0n, 1n, -1n, pow(10n, 38) - 1n, -(pow(10n, 38) - 1n), pow(10n, 28), pow(10n, 10), 123_450_000_000n, -12_300n, 2n ** 63n, -(2n ** 63n) - 1n, 2n ** 53n + 1n, 12_345n, 10n];
const DAYS = [0, -1, 1, -719_162, 2_932_896, 100_000_000, 100_000_001, -100_000_000, -100_000_001, 2 ** 31 - 1, -(2 ** 31), 19_000];
const INSTANTS = [
  ts(0),
  ts(-1, 999_999),
  ts(1_700_000_000_123, 456_789),
  ts(-62_135_596_800_000, 1),
  ts(8.64e15),
  ts(8.64e15 + 1),
  ts(-8.64e15, 999_999),
  ts(-8.64e15 - 1),
  ts(1.5, 0),
  ts(253_402_300_799_999, 999_999),
];
const DOUBLES = [0, -0, NaN, Infinity, -Infinity, 0.1, -123.456, 1e308, 5e-324, 2 ** 53 + 2, 123, -7, 1.7976931348623157e308, 3.4028235677973366e38, 16_777_217, 0.30000000000000004];
const FLOATS = [0, -0, NaN, Infinity, -Infinity, Math.fround(0.1), 3.4028234663852886e38, Math.fround(1.4e-45), 16_777_216, -7, 1.5];
const STRINGS = ['', 'a', 'abc', 'abcd', 'é€😀', '😀😀😀', '😀😀😀😀', 'NEW', 'x'.repeat(70), '東京 12', '123', '2024-01-02', 'true'].map(utf8);
const BYTES = [new Uint8Array(0), new Uint8Array([0, 255]), new Uint8Array([1, 2, 3]), new Uint8Array(16).fill(7)];

/** [what, element, decoded values (as the table reader's column of the reading type holds them)] */
const FILE_COLUMNS: [string, ParquetElement, Raw[]][] = [
  ['INT32', el('INT32'), INT32S],
  ['INT32 INT(16)', el('INT32', logical({ type: 'INTEGER', bitWidth: 16, isSigned: true })), INT32S.filter((v) => v >= -32_768 && v < 32_768)],
  ['INT64', el('INT64'), INT64S],
  ['INT32 UINT_32', el('INT32', { converted_type: 'UINT_32' }), [0n, -1n, 2n ** 31n - 1n, -(2n ** 31n), 5n]],
  ['INT64 UINT_64', el('INT64', logical({ type: 'INTEGER', bitWidth: 64, isSigned: false })), [0n, -1n, 2n ** 63n - 1n, -(2n ** 63n), 5n]],
  ['INT32 DECIMAL(9, 2)', el('INT32', { converted_type: 'DECIMAL', precision: 9, scale: 2 }), [0n, 1n, -1n, 999_999_999n, -999_999_999n, 12_345n, 100n, -100n, 10n, 120n]],
  ['INT32 DECIMAL(9, 0)', el('INT32', logical({ type: 'DECIMAL', precision: 9, scale: 0 })), [0n, 7n, -7n, 999_999_999n, 2_147_483_647n, -2_147_483_648n]],
  ['INT64 DECIMAL(18, 4)', el('INT64', logical({ type: 'DECIMAL', precision: 18, scale: 4 })), INT64S.filter((v) => v < pow(10n, 18) && v > -pow(10n, 18))],
  ['INT64 DECIMAL(18, 18)', el('INT64', logical({ type: 'DECIMAL', precision: 18, scale: 18 })), [0n, 1n, -1n, pow(10n, 18) - 1n, 5n * pow(10n, 17)]],
  ['FIXED DECIMAL(38, 10)', el('FIXED_LEN_BYTE_ARRAY', { type_length: 16, ...logical({ type: 'DECIMAL', precision: 38, scale: 10 }) }), BIGINTS],
  ['BYTE_ARRAY DECIMAL(5, 3)', el('BYTE_ARRAY', logical({ type: 'DECIMAL', precision: 5, scale: 3 })), [0n, -12_300n, 99_999n, -99_999n, 1n, 1_000n, 10n]],
  ['FIXED DECIMAL(20, 0)', el('FIXED_LEN_BYTE_ARRAY', { type_length: 9, converted_type: 'DECIMAL', precision: 20, scale: 0 }), BIGINTS],
  ['INT32 DATE', el('INT32', logical({ type: 'DATE' })), DAYS],
  ['INT32 TIME(MILLIS)', el('INT32', logical({ type: 'TIME', unit: 'MILLIS' })), [0n, 86_399_999n, 86_400_000n, -1n, 45_296_789n, 2n ** 31n - 1n]],
  ['INT64 TIME(MICROS)', el('INT64', logical({ type: 'TIME', unit: 'MICROS' })), INT64S],
  ['INT64 TIME(NANOS)', el('INT64', logical({ type: 'TIME', unit: 'NANOS' })), INT64S],
  ['INT64 TIME_MICROS', el('INT64', { converted_type: 'TIME_MICROS' }), [0n, 999n, 1000n, 86_399_999_999n, 86_400_000_000n, -1_000n]],
  ['INT64 TIMESTAMP(MILLIS)', el('INT64', logical({ type: 'TIMESTAMP', unit: 'MILLIS' })), INSTANTS.map((t) => ts(t.epochMillis))],
  ['INT64 TIMESTAMP(MICROS)', el('INT64', logical({ type: 'TIMESTAMP', unit: 'MICROS' })), INSTANTS.map((t) => ts(t.epochMillis, t.nanoOfMillis - (t.nanoOfMillis % 1000)))],
  ['INT64 TIMESTAMP(NANOS)', el('INT64', logical({ type: 'TIMESTAMP', unit: 'NANOS' })), INSTANTS],
  ['INT96', el('INT96'), INSTANTS],
  ['BYTE_ARRAY STRING', el('BYTE_ARRAY', logical({ type: 'STRING' })), STRINGS],
  ['BYTE_ARRAY UTF8', el('BYTE_ARRAY', { converted_type: 'UTF8' }), STRINGS],
  ['BYTE_ARRAY', el('BYTE_ARRAY'), [...BYTES, ...STRINGS.slice(0, 3)]],
  ['FIXED(16) UUID', el('FIXED_LEN_BYTE_ARRAY', { type_length: 16, ...logical({ type: 'UUID' }) }), [new Uint8Array(16).fill(1), new Uint8Array(16)]],
  ['BOOLEAN', el('BOOLEAN'), [true, false, true]],
  ['FLOAT', el('FLOAT'), FLOATS],
  ['DOUBLE', el('DOUBLE'), DOUBLES],
];

const TARGETS = [
  'BOOLEAN',
  'TINYINT',
  'SMALLINT',
  'INT',
  'BIGINT',
  'FLOAT',
  'DOUBLE',
  'DECIMAL(4, 1)',
  'DECIMAL(9, 2)',
  'DECIMAL(12, 2)',
  'DECIMAL(18, 0)',
  'DECIMAL(18, 4)',
  'DECIMAL(18, 18)',
  'DECIMAL(20, 0)',
  'DECIMAL(38, 10)',
  'DECIMAL(38, 0)',
  'CHAR(3)',
  'VARCHAR(3)',
  'VARCHAR(16)',
  'STRING',
  'BINARY(2)',
  'BINARY(16)',
  'BYTES',
  'DATE',
  'TIME',
  'TIMESTAMP(0)',
  'TIMESTAMP(3)',
  'TIMESTAMP(6)',
  'TIMESTAMP(9)',
  'TIMESTAMP_LTZ(6)',
];

/** The file's column as the table reader decodes it (its reading type), the values with a NULL at index 1. */
function fileColumn(element: ParquetElement, values: readonly Raw[]): { read: ReadColumn; data: Column; raws: Raw[] } {
  const plan = planParquetColumn(element, URI);
  const raws: Raw[] = [values[0] ?? null, null, ...values.slice(1)];
  const validity = new Uint8Array(raws.length).fill(1);
  const column = allocateColumn(plan.readAs, raws.length, validity);
  raws.forEach((v, i) => {
    if (v === null) {
      validity[i] = 0;
      return;
    }
    if (column.kind === 'timestamp') {
      column.millis[i] = (v as Timestamp).epochMillis;
      column.nanos[i] = (v as Timestamp).nanoOfMillis;
    } else if (column.kind === 'bool') column.values[i] = v === true ? 1 : 0;
    else (column.values as unknown as Raw[])[i] = v;
  });
  return { read: { index: 1, name: 'c', plan }, data: column, raws };
}

/** Cells of rows [start, end) of the column; the source has columns ['other', 'c']. */
function cellsOf(file: { read: ReadColumn; data: Column }, start: number, end: number): ParquetCells {
  return new ParquetCells([file.data], [file.read], 2, start, end, { uri: URI, firstRow: FIRST_ROW });
}

const SOURCE = [
  { name: 'other', sourceType: 'parquet' },
  { name: 'c', sourceType: 'parquet' },
];

function batchOf(cells: ParquetCells, firstRowPosition: number, firstRow: number): SourceBatch {
  return {
    get rows() {
      return cells.rows();
    },
    firstRowPosition,
    end: 0,
    file: { uri: URI, firstRow },
    columnar: cells,
  };
}

/** The row path: each row's source values through the exact row converter, stored as the writer stores rows; the value of `c`, or the error. */
function rowPath(rows: readonly (readonly SourceValue[])[], type: string, firstPosition: number, firstRow: number): { values: InternalValue[] } | { error: unknown } {
  const rowType = { fields: [{ id: 0, name: 'c', type: parseDataTypeString(type) }] };
  const convert = rowConverter('s', SOURCE, rowType);
  try {
    const batch = batchFromRows(rowType, rows.map((row, r) => convert(row, firstPosition + r, { uri: URI, row: firstRow + r })));
    const column = batch.columns[0] as Column;
    return { values: Array.from({ length: batch.length }, (_, r) => valueAt(column, r)) };
  } catch (error) {
    return { error };
  }
}

/** The column path from the cells: the table column's values, or the error. */
function cellPath(cells: ParquetCells, type: string, firstPosition: number, firstRow: number): { values: InternalValue[] } | { error: unknown } {
  const convert = columnConverter('s', SOURCE, { fields: [{ id: 0, name: 'c', type: parseDataTypeString(type) }] });
  try {
    const batch = convert.batch(batchOf(cells, firstPosition, firstRow));
    const column = batch.columns[0] as Column;
    return { values: Array.from({ length: batch.length }, (_, r) => valueAt(column, r)) };
  } catch (error) {
    return { error };
  }
}

function sameOutcome(got: { values: InternalValue[] } | { error: unknown }, want: { values: InternalValue[] } | { error: unknown }, what: string): void {
  if ('error' in want) {
    assert.ok('error' in got, `${what}: the row path refuses, the cells gave ${'values' in got ? String(got.values.map(String)) : ''}`);
    const [e, w] = [got.error, want.error];
    assert.ok(isTributaryError(e) && isTributaryError(w), `${what}: ${String(e)} / ${String(w)}`);
    assert.deepEqual({ code: e.code, message: e.message, context: e.context }, { code: w.code, message: w.message, context: w.context }, what);
    return;
  }
  assert.ok(!('error' in got), `${what}: the row path converts, the cells refused: ${'error' in got ? String(got.error) : ''}`);
  assert.deepStrictEqual(got.values, want.values, what);
}

describe('Parquet cells against the row path', () => {
  for (const [what, element, values] of FILE_COLUMNS) {
    test(`${what}: every value into every table type, one cell at a time and as a batch`, () => {
      const file = fileColumn(element, values);
      const { plan } = file.read;
      // The rows the cells decode are the row path's source values.
      const expectedSource = file.raws.map((raw) => (raw === null ? null : parquetValue(plan.reading, raw)));
      assert.deepStrictEqual(
        cellsOf(file, 0, file.raws.length)
          .rows()
          .map((row) => row[1]),
        expectedSource,
      );
      assert.deepStrictEqual(
        cellsOf(file, 0, file.raws.length)
          .rows()
          .map((row) => row[0]),
        file.raws.map(() => null),
      );
      for (const target of TARGETS) {
        for (const type of [target, `${target} NOT NULL`]) {
          // Each cell alone (a batch that starts inside the slice)…
          for (let i = 0; i < file.raws.length; i++) {
            const cells = cellsOf(file, i, i + 1);
            sameOutcome(cellPath(cells, type, 50 + i, FIRST_ROW + i), rowPath([[null, expectedSource[i] ?? null]], type, 50 + i, FIRST_ROW + i), `${what} row ${i} into ${type}`);
          }
          // …and every row but the first as one batch (the first refusal in row order).
          const cells = cellsOf(file, 1, file.raws.length);
          const rows = expectedSource.slice(1).map((v) => [null, v ?? null]);
          sameOutcome(cellPath(cells, type, 7, FIRST_ROW + 1), rowPath(rows, type, 7, FIRST_ROW + 1), `${what} rows 1… into ${type}`);
        }
      }
    });
  }

  test('a column the file lacks is null in every row (refused in a NOT NULL column, naming the first row)', () => {
    const file = fileColumn(el('INT64'), [5n, 6n]);
    const cells = cellsOf(file, 0, 3);
    const convert = columnConverter('s', SOURCE, { fields: [{ id: 0, name: 'other', type: parseDataTypeString('INT') }] });
    const batch = convert.batch(batchOf(cells, 0, FIRST_ROW));
    assert.deepEqual([0, 1, 2].map((r) => valueAt(batch.columns[0] as Column, r)), [null, null, null]);
    const strict = columnConverter('s', SOURCE, { fields: [{ id: 0, name: 'other', type: parseDataTypeString('INT NOT NULL') }] });
    assert.throws(
      () => strict.batch(batchOf(cells, 9, FIRST_ROW)),
      (e) => isTributaryError(e) && e.code === 'SOURCE_ROW_INVALID' && e.context.fileRow === FIRST_ROW && e.context.column === 'other',
    );
  });

  test('the common pairs are written by the cells themselves: only NULLs reach the converter', () => {
    const cases: [ParquetElement, Raw[], string][] = [
      [el('INT64'), [0n, -(2n ** 63n), 2n ** 63n - 1n, 123n], 'BIGINT'],
      [el('INT32'), [0, -(2 ** 31), 2 ** 31 - 1], 'INT'],
      [el('INT32'), [0, -(2 ** 31), 2 ** 31 - 1], 'BIGINT'],
      [el('INT32', logical({ type: 'INTEGER', bitWidth: 16, isSigned: true })), [-32_768, 32_767], 'INT'],
      [el('INT64', logical({ type: 'DECIMAL', precision: 12, scale: 2 })), [0n, 99_999_999_999n, -99_999_999_999n], 'DECIMAL(12, 2)'],
      [el('INT64', logical({ type: 'DECIMAL', precision: 18, scale: 4 })), [pow(10n, 18) - 1n, -(pow(10n, 18) - 1n), 2n ** 53n + 1n], 'DECIMAL(18, 4)'],
      [el('FIXED_LEN_BYTE_ARRAY', logical({ type: 'DECIMAL', precision: 18, scale: 4 })), [pow(10n, 18) - 1n, -5n], 'DECIMAL(18, 4)'],
      [el('FIXED_LEN_BYTE_ARRAY', logical({ type: 'DECIMAL', precision: 38, scale: 10 })), [pow(10n, 38) - 1n, -1n], 'DECIMAL(38, 10)'],
      [el('INT32', { converted_type: 'DECIMAL', precision: 9, scale: 2 }), [12_345n, -1n], 'DECIMAL(12, 4)'],
      [el('INT32', logical({ type: 'DATE' })), [0, -719_162, 2_932_896], 'DATE'],
      [el('INT64', logical({ type: 'TIMESTAMP', unit: 'MICROS' })), [ts(1_700_000_000_123, 456_000), ts(-1, 999_000)], 'TIMESTAMP(6)'],
      [el('INT64', logical({ type: 'TIMESTAMP', unit: 'MILLIS' })), [ts(1_700_000_000_123)], 'TIMESTAMP(3)'],
      [el('INT96'), [ts(1_700_000_000_123, 456_789)], 'TIMESTAMP_LTZ(9)'],
      [el('INT64', logical({ type: 'TIME', unit: 'MICROS' })), [0n, 86_399_999_999n], 'TIME'],
      [el('BYTE_ARRAY', logical({ type: 'STRING' })), [utf8(''), utf8('😀😀😀'), utf8('DELIVERED')], 'VARCHAR(16)'],
      [el('BYTE_ARRAY'), [new Uint8Array(0), new Uint8Array([1, 2])], 'BYTES'],
      [el('BOOLEAN'), [true, false], 'BOOLEAN'],
      [el('DOUBLE'), [NaN, -0, 0.1, Infinity], 'DOUBLE'],
      [el('DOUBLE'), [NaN, -0, 0.1, 3.4e38, -Infinity], 'FLOAT'],
      [el('FLOAT'), [NaN, -0, Math.fround(0.1)], 'DOUBLE'],
    ];
    for (const [element, values, type] of cases) {
      const file = fileColumn(element, values);
      const cells = cellsOf(file, 0, file.raws.length);
      const handed: SourceValue[] = [];
      cells.fill(1, parseDataTypeString(type), allocateColumn(parseDataTypeString(type), cells.length), (_, value) => handed.push(value));
      assert.deepEqual(handed, [null], `${file.read.plan.describe} into ${type}`);
    }
  });

  test('a finite double beyond the largest float is refused into FLOAT (naming file row and column), never Infinity; the reject policy can take it', () => {
    const file = fileColumn(el('DOUBLE'), [1.5, 1e39, -Infinity, -3.5e38]);
    const got = cellPath(cellsOf(file, 0, file.raws.length), 'FLOAT', 0, FIRST_ROW);
    assert.ok('error' in got);
    const e = got.error;
    assert.ok(isTributaryError(e) && e.code === 'SOURCE_ROW_INVALID' && e.context.column === 'c' && e.context.fileRow === FIRST_ROW + 2 && /out of the range of FLOAT/.test(e.message), String(e));
    // Row by row (the bad-row policy): the good rows convert, the explicit infinity stays one.
    const rows = file.raws.map((raw) => (raw === null ? null : parquetValue(file.read.plan.reading, raw)));
    assert.deepEqual(rowPath([[null, rows[3] ?? null]], 'FLOAT', 0, FIRST_ROW), { values: [-Infinity] });
    assert.ok('error' in rowPath([[null, rows[4] ?? null]], 'FLOAT', 0, FIRST_ROW));
  });

  test('strings shared by many rows (a dictionary\u2019s views) and hundreds of distinct ones read as the row path reads them, a bad one still named by its row', () => {
    // Three shared views in turn, then 600 distinct values (past the per-batch memo), then the shared ones again.
    const shared = [utf8('NEW'), utf8('😀 PAID'), utf8('')];
    const values = [...Array.from({ length: 90 }, (_, i) => shared[i % 3]!), ...Array.from({ length: 600 }, (_, i) => utf8(`note ${i} é`)), ...Array.from({ length: 30 }, (_, i) => shared[i % 3]!)];
    const file = fileColumn(el('BYTE_ARRAY', logical({ type: 'STRING' })), values);
    const expected = file.raws.map((v) => (v === null ? null : new TextDecoder().decode(v as Uint8Array)));
    const type = parseDataTypeString('STRING');
    const column = allocateColumn(type, file.raws.length) as Column & { kind: 'string' };
    const handed: unknown[] = [];
    cellsOf(file, 0, file.raws.length).fill(1, type, column, (r) => handed.push(r));
    assert.deepEqual(handed, [1], 'only the NULL goes to the converter');
    assert.deepEqual(column.values.map((v, r) => (r === 1 ? null : v)), expected);
    // A shared view that is not UTF-8, after the memo knows good ones: its first row is named.
    const bad = new Uint8Array([0x61, 0xff]);
    const withBad = fileColumn(el('BYTE_ARRAY', logical({ type: 'STRING' })), [shared[0]!, shared[0]!, bad, shared[0]!, bad]);
    assert.throws(() => cellsOf(withBad, 0, 6), (e) => isTributaryError(e) && e.code === 'SOURCE_ROW_INVALID' && e.context.fileRow === FIRST_ROW + 3);
  });

  test('a string that is not UTF-8 fails when the batch is made, naming the file row and column', () => {
    const file = fileColumn(el('BYTE_ARRAY', logical({ type: 'STRING' })), [utf8('ok'), new Uint8Array([0x61, 0xff]), new Uint8Array([0xed, 0xa0, 0x80])]);
    assert.throws(
      () => cellsOf(file, 1, 4),
      (e) => isTributaryError(e) && e.code === 'SOURCE_ROW_INVALID' && e.context.fileRow === FIRST_ROW + 2 && e.context.column === 'c' && !/\ufffd/.test(e.message),
    );
    // A batch that ends before the bad cell reads.
    assert.deepEqual(
      cellsOf(file, 0, 2)
        .rows()
        .map((row) => row[1]),
      ['ok', null],
    );
    // An encoded lone surrogate (CESU-8) is not UTF-8 either.
    assert.throws(() => cellsOf(file, 3, 4), (e) => isTributaryError(e) && e.code === 'SOURCE_ROW_INVALID' && e.context.fileRow === FIRST_ROW + 3);
  });
});
