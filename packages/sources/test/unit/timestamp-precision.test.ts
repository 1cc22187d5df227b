/**
 * TIMESTAMP(p) and TIMESTAMP_LTZ(p) hold an instant cut toward the past to p fraction digits, for
 * every p from 0 to 9 and every path a source value takes into the table's columns: the row
 * converter (values/convert.ts: text, exact instants, Dates), the column converter from rows
 * (values/columns.ts: text as CSV/NDJSON and MySQL's binary protocol give it, exact instants as
 * MySQL's and PostgreSQL's row paths and Parquet's rows give them), the CSV and NDJSON files source
 * end to end, the Parquet cells (MILLIS, MICROS, NANOS, INT96), MySQL's text-protocol cells and
 * PostgreSQL's binary COPY cells. The expected values are computed here with BigInt nanoseconds
 * (floor division), independently of the code under test, and a few are written out.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, describe, test } from 'node:test';
import { allocateColumn, parseDataTypeString, valueAt, type Column, type ColumnBatch, type InternalValue, type RowType, type Timestamp } from '@tributary/table';
import { ParquetCells } from '../../src/files/parquet-cells.ts';
import { planParquetColumn, type ParquetElement } from '../../src/files/parquet-values.ts';
import { FilesSource } from '../../src/files/source.ts';
import { mysqlTimestamp } from '../../src/mysql/source.ts';
import { TextCellsBuilder } from '../../src/mysql/text-cells.ts';
import { CopyFrames, binaryDecoder } from '../../src/postgres/binary.ts';
import { CopyCells } from '../../src/postgres/cells.ts';
import type { SourceBatch, SourceRow, SourceValue } from '../../src/source.ts';
import { columnConverter } from '../../src/values/columns.ts';
import { rowConverter } from '../../src/values/convert.ts';
import { PLAN, localContext } from '../support/contexts.ts';

/** The instants, as text (UTC wall clock) and as epoch nanoseconds. */
const INSTANTS: readonly { readonly text: string; readonly nanos: bigint }[] = [
  { text: '2020-06-01 12:34:56.987654321', nanos: 1_591_014_896_987_654_321n },
  { text: '1969-12-31 23:59:59.987654321', nanos: -12_345_679n },
  { text: '1969-12-31 23:59:59.001', nanos: -999_000_000n },
  { text: '1969-12-31 23:59:59.999999999', nanos: -1n },
  { text: '1970-01-01 00:00:00', nanos: 0n },
  { text: '1970-01-01 00:00:00.000000001', nanos: 1n },
  { text: '1900-03-04 05:06:07.891', nanos: -2_203_613_632_109_000_000n },
  { text: '2024-02-29 23:59:59.999999', nanos: 1_709_251_199_999_999_000n },
];

const PRECISIONS = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9];

const floorDiv = (a: bigint, b: bigint): bigint => a / b - (a % b !== 0n && a < 0n !== b < 0n ? 1n : 0n);

/** The instant at `nanos` cut toward the past to `precision` digits, as a Timestamp. */
function cut(nanos: bigint, precision: number): Timestamp {
  const unit = 10n ** BigInt(9 - precision);
  const kept = floorDiv(nanos, unit) * unit;
  const millis = floorDiv(kept, 1_000_000n);
  return { epochMillis: Number(millis), nanoOfMillis: Number(kept - millis * 1_000_000n) };
}

/** The instant at `nanos` as an exact source value (floor-split, as every source makes it). */
function exact(nanos: bigint): Timestamp {
  return cut(nanos, 9);
}

const TYPES = PRECISIONS.flatMap((p) => [`TIMESTAMP(${p})`, `TIMESTAMP_LTZ(${p})`]);
const precisionOf = (type: string): number => Number(/\((\d)\)/.exec(type)?.[1]);

const tableOf = (type: string): RowType => ({ fields: [{ id: 0, name: 'c', type: parseDataTypeString(type) }] });
const SOURCE = [{ name: 'c', sourceType: 'test' }];

function valuesOf(batch: ColumnBatch): InternalValue[] {
  const column = batch.columns[0] as Column;
  return Array.from({ length: batch.length }, (_, r) => valueAt(column, r));
}

describe('the cut itself', () => {
  test('written out: the probe\'s values at p = 0, 1, 2 and 3 (toward the past, also before 1970)', () => {
    const [late, early] = INSTANTS;
    assert.ok(late !== undefined && early !== undefined);
    assert.deepEqual(cut(late.nanos, 0), { epochMillis: 1_591_014_896_000, nanoOfMillis: 0 });
    assert.deepEqual(cut(late.nanos, 1), { epochMillis: 1_591_014_896_900, nanoOfMillis: 0 });
    assert.deepEqual(cut(late.nanos, 2), { epochMillis: 1_591_014_896_980, nanoOfMillis: 0 });
    assert.deepEqual(cut(late.nanos, 3), { epochMillis: 1_591_014_896_987, nanoOfMillis: 0 });
    assert.deepEqual(cut(late.nanos, 4), { epochMillis: 1_591_014_896_987, nanoOfMillis: 600_000 });
    assert.deepEqual(cut(early.nanos, 0), { epochMillis: -1000, nanoOfMillis: 0 });
    assert.deepEqual(cut(early.nanos, 1), { epochMillis: -100, nanoOfMillis: 0 });
    assert.deepEqual(cut(early.nanos, 2), { epochMillis: -20, nanoOfMillis: 0 });
    assert.deepEqual(cut(early.nanos, 3), { epochMillis: -13, nanoOfMillis: 0 });
    assert.deepEqual(exact(early.nanos), { epochMillis: -13, nanoOfMillis: 654_321 });
  });
});

describe('the row converter (values/convert.ts)', () => {
  for (const type of TYPES) {
    test(`${type}: text, exact instants and Dates`, () => {
      const p = precisionOf(type);
      const convert = rowConverter('s', SOURCE, tableOf(type));
      for (const { text, nanos } of INSTANTS) {
        assert.deepStrictEqual(convert([text], 0)[0], cut(nanos, p), `text ${text}`);
        assert.deepStrictEqual(convert([exact(nanos)], 0)[0], cut(nanos, p), `instant ${text}`);
        const millis = floorDiv(nanos, 1_000_000n);
        assert.deepStrictEqual(convert([new Date(Number(millis))], 0)[0], cut(millis * 1_000_000n, p), `Date ${text}`);
      }
    });
  }
});

describe('the column converter from rows (values/columns.ts)', () => {
  for (const type of TYPES) {
    test(`${type}: text (CSV, NDJSON), exact instants (PostgreSQL, Parquet rows) and MySQL's DATETIME text`, () => {
      const p = precisionOf(type);
      const convert = columnConverter('s', SOURCE, tableOf(type));
      const want = INSTANTS.map(({ nanos }) => cut(nanos, p));
      assert.deepStrictEqual(valuesOf(convert(INSTANTS.map(({ text }) => [text]), 0)), want, 'text');
      assert.deepStrictEqual(valuesOf(convert(INSTANTS.map(({ nanos }) => [exact(nanos)]), 0)), want, 'instants');
      // MySQL's rows (binary protocol and row path): DATETIME(6) text decoded by the source, micros at most.
      const micros = INSTANTS.map(({ nanos }) => floorDiv(nanos, 1000n) * 1000n);
      const rows: SourceRow[] = micros.map((n) => [mysqlTimestamp(isoOf(n).replace('T', ' ')) ?? null]);
      assert.deepStrictEqual(valuesOf(convert(rows, 0)), micros.map((n) => cut(n, p)), 'MySQL DATETIME(6) rows');
    });
  }
});

/** `YYYY-MM-DDTHH:MM:SS.ffffff` of epoch nanoseconds (micros kept). */
function isoOf(nanos: bigint): string {
  const millis = floorDiv(nanos, 1_000_000n);
  const micros = floorDiv(nanos - millis * 1_000_000n, 1000n);
  return `${new Date(Number(millis)).toISOString().slice(0, 23)}${String(micros).padStart(3, '0')}`;
}

describe('the files source: CSV and NDJSON end to end', () => {
  const dir = mkdtempSync(join(tmpdir(), 'tributary-ts-precision-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const root = pathToFileURL(dir).href;
  writeFileSync(join(dir, 'a.csv'), `c\n${INSTANTS.map(({ text }) => text).join('\n')}\n`);
  writeFileSync(join(dir, 'a.ndjson'), `${INSTANTS.map(({ text }) => JSON.stringify({ c: text.replace(' ', 'T') })).join('\n')}\n`);

  for (const format of ['csv', 'ndjson'] as const) {
    for (const type of TYPES) {
      test(`${format} into ${type}: by its cells and by its rows`, async () => {
        const p = precisionOf(type);
        const source = new FilesSource({ kind: 'files', format, uris: [`${root}/a.${format}`] }, localContext(root, ['c']));
        const convert = columnConverter('s', await source.columns(), tableOf(type));
        const [shard] = await source.plan(PLAN);
        assert.ok(shard !== undefined);
        const got: InternalValue[] = [];
        for await (const batch of source.open(shard)) {
          const values = valuesOf(convert.batch(batch));
          assert.deepStrictEqual(valuesOf(convert(batch.rows, batch.firstRowPosition, batch.file)), values, 'rows and cells agree');
          got.push(...values);
        }
        assert.deepStrictEqual(got, INSTANTS.map(({ nanos }) => cut(nanos, p)));
      });
    }
  }
});

describe('Parquet cells (files/parquet-cells.ts)', () => {
  const units: [string, ParquetElement, bigint][] = [
    ['INT64 TIMESTAMP(MILLIS)', { name: 'c', type: 'INT64', logical_type: { type: 'TIMESTAMP', unit: 'MILLIS' } }, 1_000_000n],
    ['INT64 TIMESTAMP(MICROS)', { name: 'c', type: 'INT64', logical_type: { type: 'TIMESTAMP', unit: 'MICROS' } }, 1000n],
    ['INT64 TIMESTAMP(NANOS)', { name: 'c', type: 'INT64', logical_type: { type: 'TIMESTAMP', unit: 'NANOS' } }, 1n],
    ['INT96', { name: 'c', type: 'INT96' }, 1n],
  ];
  for (const [what, element, unit] of units) {
    test(`${what} into every TIMESTAMP(p) and TIMESTAMP_LTZ(p)`, () => {
      const plan = planParquetColumn(element, 'file:///in/f.parquet');
      // The file's values: the instants at the file's unit (as a writer of that unit stores them).
      const stored = INSTANTS.map(({ nanos }) => floorDiv(nanos, unit) * unit);
      const data = allocateColumn(plan.readAs, stored.length);
      if (data.kind !== 'timestamp') assert.fail(`${what} is read as ${data.kind}`);
      stored.forEach((n, i) => {
        const ts = exact(n);
        data.millis[i] = ts.epochMillis;
        data.nanos[i] = ts.nanoOfMillis;
      });
      for (const type of TYPES) {
        const cells: ParquetCells = new ParquetCells([data], [{ index: 0, name: 'c', plan }], 1, 0, stored.length, { uri: 'file:///in/f.parquet', firstRow: 0 });
        const batch: SourceBatch = { rows: cells.rows(), firstRowPosition: 0, end: stored.length, file: { uri: 'file:///in/f.parquet', firstRow: 0 }, columnar: cells };
        const convert = columnConverter('s', [{ name: 'c', sourceType: what }], tableOf(type));
        const want = stored.map((n) => cut(n, precisionOf(type)));
        assert.deepStrictEqual(valuesOf(convert.batch(batch)), want, `${what} cells into ${type}`);
        assert.deepStrictEqual(valuesOf(convert(cells.rows(), 0, batch.file)), want, `${what} rows into ${type}`);
      }
    });
  }
});

describe('MySQL text-protocol cells (mysql/text-cells.ts)', () => {
  /** One row packet's payload: the cell length-coded (1 byte of length). */
  const packet = (text: string): Buffer => Buffer.concat([Buffer.of(Buffer.byteLength(text)), Buffer.from(text)]);
  // DATETIME(6) / TIMESTAMP(6) text as the server sends it: micros at most.
  const micros = INSTANTS.map(({ nanos }) => floorDiv(nanos, 1000n) * 1000n);
  for (const type of TYPES) {
    test(`DATETIME(6) text into ${type}`, () => {
      const builder = new TextCellsBuilder(
        1,
        ['timestamp'],
        (bytes, start, end) => [bytes.subarray(start + 1, end).toString()],
        (raw) => raw.map((v) => (typeof v === 'string' ? (mysqlTimestamp(v) ?? v) : null)) as SourceValue[],
        micros.length,
      );
      for (const n of micros) {
        const body = packet(isoOf(n).replace('T', ' '));
        builder.append({ buffer: body, offset: 0, end: body.length });
      }
      const cells = builder.take();
      const convert = columnConverter('s', SOURCE, tableOf(type));
      const batch: SourceBatch = { get rows() { return cells.rows(); }, firstRowPosition: 0, end: 0, columnar: cells };
      assert.deepStrictEqual(valuesOf(convert.batch(batch)), micros.map((n) => cut(n, precisionOf(type))));
    });
  }
});

describe('PostgreSQL binary COPY cells (postgres/cells.ts)', () => {
  const PG_EPOCH_MICROS = 946_684_800_000_000n;
  const micros = INSTANTS.map(({ nanos }) => floorDiv(nanos, 1000n));
  for (const pgType of ['timestamp', 'timestamptz']) {
    for (const type of TYPES) {
      test(`${pgType} into ${type}`, () => {
        const field = (v: bigint): Buffer => {
          const b = Buffer.alloc(12);
          b.writeInt32BE(8, 0);
          b.writeBigInt64BE(v - PG_EPOCH_MICROS, 4);
          return b;
        };
        const header = Buffer.concat([Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1'), Buffer.alloc(8)]);
        const rows = micros.map((m) => Buffer.concat([Buffer.of(0, 1), field(m)]));
        const frames = new CopyFrames(1, micros.length + 1);
        frames.push(Buffer.concat([header, ...rows, Buffer.of(0xff, 0xff)]));
        frames.end();
        const decoder = binaryDecoder(pgType) ?? assert.fail(pgType);
        const cells = new CopyCells(frames.take(), [pgType], [decoder], 1);
        const convert = columnConverter('s', [{ name: 'c', sourceType: pgType }], tableOf(type));
        const batch: SourceBatch = { get rows() { return cells.rows(); }, firstRowPosition: 0, end: 0, columnar: cells };
        const want = micros.map((m) => cut(m * 1000n, precisionOf(type)));
        assert.deepStrictEqual(valuesOf(convert.batch(batch)), want, 'cells');
        assert.deepStrictEqual(valuesOf(convert(cells.rows(), 0)), want, 'rows');
      });
    }
  }
});
