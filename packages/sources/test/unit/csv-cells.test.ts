/**
 * CSV cells (files/csv-cells.ts) against the row path, on adversarial fields: CSV text parsed by the
 * one CSV parser (text-records.ts) into cells, for every table type each cell written by the cells
 * into the table's column is exactly the value the row path gives (the record's field as a source
 * value, `''` as null, then the exact value converter of values/convert.ts), and a cell that path
 * refuses is refused with the same error; the rows the cells give are the row path's source values.
 * Then the files source end to end: its CSV batches' columns are those of their rows.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, describe, test } from 'node:test';
import { isTributaryError } from '@tributary/protocol';
import { allocateColumn, batchFromRows, parseDataTypeString, valueAt, type Column, type InternalValue, type RowType } from '@tributary/table';
import { CsvCells, CsvCellsBuilder, csvValue } from '../../src/files/csv-cells.ts';
import { FilesSource } from '../../src/files/source.ts';
import { csvRecords } from '../../src/files/text-records.ts';
import type { SourceBatch, SourceRow } from '../../src/source.ts';
import { columnConverter } from '../../src/values/columns.ts';
import { rowConverter } from '../../src/values/convert.ts';
import { PLAN, localContext } from '../support/contexts.ts';

const URI = 'file:///in/f.csv';
const OPTIONS = { allowUnterminatedLastLine: false };

/** Field texts as the parser gives them (written quoted below where CSV needs it, and some where it does not). */
const FIELDS = [
  // integers: signs, leading zeros, each type's bounds, past 15 digits, past 2^53 and 2^63
  ...['0', '-0', '+5', '007', '-007', '127', '-128', '128', '-129', '32767', '-32768', '32768', '2147483647', '-2147483648', '2147483648', '-2147483649'],
  ...['123456789012345', '-999999999999999', '1234567890123456', '9007199254740993', '9223372036854775807', '-9223372036854775808', '9223372036854775808', '1e3', '-', ' 5', '5 ', '１２', '0x10', '12345'],
  // decimals: places, precision, full precision beyond a double, exponents, bare dots
  ...['123.45', '-0.50', '.5', '5.', '-.0', '+1.5', '1.005', '1.2300', '99999999999999.9999', '9999999999.99', '10000000000.00', '0.000000000000000001', '12345678901234567890.123456789'],
  ...['123456789012345678.9', '0.1234567890123456789', '1e-3', '1.2.3', '.', '+', '--1', '1,5', '3.4028235677973366e38', '-123.456'],
  // dates and timestamps: valid, impossible, other forms (ISO, zones), fractions of each length
  ...['2024-01-02', '2024-02-29', '2023-02-29', '2024-13-01', '2024-1-2', '0000-01-01', '9999-12-31', '-0001-01-01', '2024-01-02T00:00:00Z', '2024-01-02 '],
  ...['2024-01-02 03:04:05', '2024-01-02 03:04:05.1', '2024-01-02 03:04:05.123', '2024-01-02 03:04:05.123456', '2024-01-02 03:04:05.123456789', '2024-01-02 03:04:05.1234567891'],
  ...['2024-01-02 03:04:05.', '2024-01-02 24:00:00', '2024-01-02 23:59:60', '2024-01-02T03:04:05Z', '2024-01-02T03:04:05.5+02:00', '1969-12-31 23:59:59.999999', '1970-01-01 00:00:00.000001'],
  // strings: NULL-looking text, separators, quotes, line breaks, CJK, emoji, lengths
  ...['NULL', 'null', '\\N', 'true', 'false', 'a,b', 'line\nbreak', 'cr\r\nlf', 'say "hi"', '"', '""', ' ', '東京', '東京 12', 'é€😀', '😀😀😀', '😀😀😀😀', 'x'.repeat(70)],
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
  'DECIMAL(12, 2)',
  'DECIMAL(18, 0)',
  'DECIMAL(18, 4)',
  'DECIMAL(18, 18)',
  'DECIMAL(38, 10)',
  'CHAR(3)',
  'VARCHAR(3)',
  'VARCHAR(16)',
  'STRING',
  'BYTES',
  'DATE',
  'TIME',
  'TIMESTAMP(0)',
  'TIMESTAMP(3)',
  'TIMESTAMP(6)',
  'TIMESTAMP(9)',
  'TIMESTAMP_LTZ(6)',
];

/** A field as CSV writes it: quoted when it must be, and every third plain one quoted anyway. */
function csvField(text: string, i: number): string {
  return /[",\r\n]/.test(text) || i % 3 === 0 ? `"${text.replaceAll('"', '""')}"` : text;
}

/** The table's columns (the source's, by name): `c` is in the header, `absent` is not. */
const SOURCE = ['other', 'c', 'absent'].map((name) => ({ name, sourceType: 'csv field' }));

/**
 * A CSV file of the fields in column `c`, with an empty field (null), a quoted empty field and a
 * blank line among them; its header puts `c` after `other`, with a column the table lacks.
 */
function csvText(fields: readonly string[]): string {
  const lines = ['x,other,c'];
  fields.forEach((f, i) => lines.push(`${i},o${i},${csvField(f, i)}`));
  lines.splice(2, 0, '1,,');
  lines.splice(4, 0, '2,"",""', '');
  return `${lines.join('\r\n')}\r\n`;
}

/** The text in pieces of `size` characters (a record, even a field, spans pieces). */
async function* pieces(text: string, size: number): AsyncIterable<string> {
  for (let at = 0; at < text.length; at += size) yield text.slice(at, at + size);
}

/** What the files source did before the cells: each record through `csvRecords`, projected by header name, `''` as null. */
async function rowsOf(text: string): Promise<SourceRow[]> {
  const rows: SourceRow[] = [];
  let indexes: number[] | undefined;
  for await (const fields of csvRecords(pieces(text, 1 << 20), URI, OPTIONS)) {
    if (indexes === undefined) indexes = SOURCE.map(({ name }) => fields.indexOf(name));
    else rows.push(indexes.map((i) => csvValue(fields[i])));
  }
  return rows;
}

/** The cells the files source builds from the same text (read in pieces of `size`). */
async function cellsOf(text: string, size: number): Promise<CsvCells> {
  const builder = new CsvCellsBuilder(SOURCE.length);
  let indexes: number[] | undefined;
  for await (const fields of csvRecords(pieces(text, size), URI, OPTIONS)) {
    if (indexes === undefined) indexes = SOURCE.map(({ name }) => fields.indexOf(name));
    else builder.append(fields, indexes);
  }
  return builder.take();
}

function batchOf(cells: CsvCells, firstRowPosition: number): SourceBatch {
  return {
    get rows() {
      return cells.rows();
    },
    firstRowPosition,
    end: firstRowPosition + cells.length,
    columnar: cells,
  };
}

type Outcome = { values: InternalValue[] } | { error: unknown };

const tableOf = (name: string, type: string): RowType => ({ fields: [{ id: 0, name, type: parseDataTypeString(type) }] });

/** The row path: each row's source values through the exact row converter, stored as the writer stores rows. */
function rowPath(rows: readonly SourceRow[], table: RowType, firstPosition: number): Outcome {
  const convert = rowConverter('s', SOURCE, table);
  try {
    const batch = batchFromRows(table, rows.map((row, r) => convert(row, firstPosition + r)));
    const column = batch.columns[0] as Column;
    return { values: Array.from({ length: batch.length }, (_, r) => valueAt(column, r)) };
  } catch (error) {
    return { error };
  }
}

/** The column path from the cells, as the worker converts a batch. */
function cellPath(cells: CsvCells, table: RowType, firstPosition: number): Outcome {
  try {
    const batch = columnConverter('s', SOURCE, table).batch(batchOf(cells, firstPosition));
    const column = batch.columns[0] as Column;
    return { values: Array.from({ length: batch.length }, (_, r) => valueAt(column, r)) };
  } catch (error) {
    return { error };
  }
}

function sameOutcome(got: Outcome, want: Outcome, what: string): void {
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

describe('CSV cells against the row path', () => {
  test('the cells hold the records the parser gives, as the row path projects them, whatever the pieces', async () => {
    const text = csvText(FIELDS);
    const rows = await rowsOf(text);
    assert.equal(rows.length, FIELDS.length + 2);
    assert.deepEqual(rows[1], [null, null, null]);
    assert.deepEqual(rows[3], [null, null, null]); // a quoted empty field is null too
    for (const size of [1, 7, 64, 1 << 20]) assert.deepStrictEqual((await cellsOf(text, size)).rows(), rows, `pieces of ${size}`);
  });

  for (const target of TARGETS) {
    for (const type of [target, `${target} NOT NULL`]) {
      test(`every field into ${type}, one cell at a time and as a batch`, async () => {
        const table = tableOf('c', type);
        for (const [i, field] of FIELDS.entries()) {
          const text = `other,c\r\no,${csvField(field, i)}\r\n`;
          const rows = await rowsOf(text);
          const cells = await cellsOf(text, 5);
          sameOutcome(cellPath(cells, table, 50 + i), rowPath(rows, table, 50 + i), `field ${i} into ${type}`);
        }
        // Every field (with the NULLs) as one batch: the first refusal in row order.
        const text = csvText(FIELDS);
        sameOutcome(cellPath(await cellsOf(text, 4096), table, 7), rowPath(await rowsOf(text), table, 7), `every field into ${type}`);
      });
    }
  }

  test('a column the header lacks is null in every row (refused in a NOT NULL column, naming the first row)', async () => {
    const text = csvText(FIELDS.slice(0, 3));
    const cells = await cellsOf(text, 64);
    for (const type of ['INT', 'VARCHAR(3)', 'INT NOT NULL', 'DATE NOT NULL']) {
      sameOutcome(cellPath(cells, tableOf('absent', type), 3), rowPath(await rowsOf(text), tableOf('absent', type), 3), `absent into ${type}`);
    }
  });

  test('the common fields are written by the cells themselves: only NULLs and the rest reach the converter', async () => {
    const cases: [string, string][] = [
      ['INT', '-2147483648'],
      ['SMALLINT', '007'],
      ['BIGINT', '-999999999999999'],
      ['DECIMAL(12, 2)', '-0.50'],
      ['DECIMAL(18, 4)', '9999999999.9999'],
      ['DATE', '2024-02-29'],
      ['TIMESTAMP(3)', '2024-01-02 03:04:05.123'],
      ['TIMESTAMP(6)', '1969-12-31 23:59:59.999999'],
      ['VARCHAR(3)', '😀😀😀'],
      ['STRING', 'say "hi"'],
    ];
    for (const [type, field] of cases) {
      const cells = await cellsOf(csvText([field]), 64);
      const handed: unknown[] = [];
      const t = parseDataTypeString(type);
      const column = allocateColumn(t, cells.length);
      cells.fill(1, t, column, (_r, v) => handed.push(v));
      assert.deepEqual(handed, [null, null], `${field} into ${type}`);
    }
  });
});

describe('the files source reads CSV by column', () => {
  const dir = mkdtempSync(join(tmpdir(), 'tributary-csv-cells-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const root = pathToFileURL(dir).href;

  test('two files (headers in different orders) in batches: the columns are those of the rows, from the start and resumed', async () => {
    const rows = 25_000; // past one batch (10,000 rows) and one chunk (1 MiB)
    const line = (i: number): string => `${i},${i % 7 === 0 ? '' : `${(i * 37) % 100_000}.${String(i % 100).padStart(2, '0')}`},2024-0${(i % 9) + 1}-1${i % 10} 0${i % 10}:1${i % 6}:2${i % 10}.${i % 1000},"n ${i}, 東京 ""${i % 3}"""`;
    writeFileSync(join(dir, 'a.csv'), `id,amount,at,note\n${Array.from({ length: rows }, (_, i) => line(i)).join('\n')}\n`);
    writeFileSync(join(dir, 'b.csv'), `note,id\r\n"x\r\ny",-1\r\nz,99999999999\r\n`);
    const names = ['id', 'amount', 'at', 'note'];
    const tableOfTypes = (types: readonly string[]): RowType => ({ fields: types.map((type, id) => ({ id, name: names[id] as string, type: parseDataTypeString(type) })) });
    const table = tableOfTypes(['BIGINT', 'DECIMAL(12, 2)', 'TIMESTAMP(6)', 'VARCHAR(32)']);
    const source = new FilesSource({ kind: 'files', format: 'csv', uris: [`${root}/a.csv`, `${root}/b.csv`], filesPerShard: 2 }, localContext(root, names));
    const toColumns = columnConverter('s', await source.columns(), table);
    const [shard] = await source.plan(PLAN);
    assert.ok(shard !== undefined);
    for (const from of [undefined, 12_345]) {
      let n = from ?? 0;
      for await (const batch of source.open(shard, from)) {
        assert.ok(batch.columnar instanceof CsvCells);
        assert.equal(batch.firstRowPosition, n);
        n += batch.rows.length;
        assert.equal(batch.end, n);
        // A batch holds one file's records, and says which (the header not counted in its rows).
        assert.ok(batch.file !== undefined);
        const fileRows = batch.file.uri.endsWith('/a.csv') ? rows : 2;
        assert.ok(batch.file.firstRow >= 0 && batch.file.firstRow + batch.rows.length <= fileRows, JSON.stringify(batch.file));
        assert.equal(batch.file.uri.endsWith('/a.csv') ? batch.file.firstRow : batch.file.firstRow + rows, batch.firstRowPosition);
        const rowsBatch = toColumns(batch.rows, batch.firstRowPosition, batch.file);
        const cellsBatch = toColumns.batch(batch);
        assert.deepStrictEqual(cellsBatch.columns.map((c) => Array.from({ length: cellsBatch.length }, (_, r) => valueAt(c, r))), rowsBatch.columns.map((c) => Array.from({ length: rowsBatch.length }, (_, r) => valueAt(c, r))));
      }
      assert.equal(n, rows + 2);
    }
    // The second file's 99999999999 (its row 1) does not fit INT: the same refusal by both paths, naming the file and its row.
    const strict = columnConverter('s', await source.columns(), tableOfTypes(['INT', 'DECIMAL(12, 2)', 'TIMESTAMP(6)', 'VARCHAR(32)']));
    let refused = 0;
    for await (const batch of source.open(shard, rows)) {
      const error = captured(() => strict(batch.rows, batch.firstRowPosition, batch.file));
      assert.ok(isTributaryError(error) && error.code === 'SOURCE_ROW_INVALID' && error.context.position === rows + 1 && error.context.column === 'id', String(error));
      assert.deepEqual({ file: error.context.file, fileRow: error.context.fileRow }, { file: `${root}/b.csv`, fileRow: 1 });
      assert.match(error.message, /, file file:\/\/\S+\/b\.csv row 1\b/);
      sameOutcome(cellPathOf(strict, batch), { error }, 'the second file');
      refused++;
    }
    assert.equal(refused, 1);
  });
});

function cellPathOf(toColumns: ReturnType<typeof columnConverter>, batch: SourceBatch): Outcome {
  try {
    const b = toColumns.batch(batch);
    return { values: b.columns.map((c) => valueAt(c, 0)) };
  } catch (error) {
    return { error };
  }
}

function captured(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  throw new Error('expected a refusal');
}

test('a carriage return alone is no line end: a CR-only file is refused, never read as its header', async () => {
  const records = async (text: string, size: number, allowUnterminatedLastLine: boolean): Promise<string[][]> => {
    const out: string[][] = [];
    for await (const fields of csvRecords(pieces(text, size), URI, { allowUnterminatedLastLine })) out.push(fields);
    return out;
  };
  const crOnly = /line 1, column #2: a carriage return inside an unquoted field/;
  for (const size of [1, 2, 3, 1 << 20]) {
    for (const allow of [false, true]) {
      // Read as one record, this was the header `id | v\r1 | a\r2 | b\r`: with the option, 0 rows and no error.
      for (const text of ['id,v\r1,a\r2,b\r', 'id,v\r1,a\r2,b']) {
        await assert.rejects(records(text, size, allow), (e: unknown) => isTributaryError(e) && e.code === 'SOURCE_FILE_MALFORMED' && crOnly.test(e.message), `${JSON.stringify(text)} in pieces of ${size}`);
      }
      await assert.rejects(records('id,v\n1,a\rb\n', size, allow), /line 2, column v: a carriage return/, 'a CR inside a data field');
      await assert.rejects(records('id,v\n1\r,a\n', size, allow), /line 2, column id: a carriage return/, 'a CR before a separator');
      // CRLF and a CR inside a quoted field still read.
      assert.deepEqual(await records('id,v\r\n1,"a\rb"\r\n2,\r\n', size, allow), [['id', 'v'], ['1', 'a\rb'], ['2', '']]);
    }
    assert.deepEqual(await records('id,v\r\n1,a\r', size, true), [['id', 'v'], ['1', 'a']], 'a last line ended by the CR of a CRLF cut off');
  }
});
