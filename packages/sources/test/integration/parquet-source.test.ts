/**
 * The files source over Parquet files written by pyarrow on a local disk: the same logical rows in
 * different physical encodings (timestamps as millis, micros and INT96; decimals as INT64 and
 * fixed bytes; snappy, zstd, gzip, lz4, brotli; small and whole-file row groups; data page v2) convert to
 * exactly the same table values; resuming at a {file, row} position; typed refusals.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, mkdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { isTributaryError } from '@tributary/protocol';
import { batchFromRows, openObjectStore, parseDataTypeString, valueAt, type Column, type InternalRow, type ObjectStore, type RowType } from '@tributary/table';
import { batchConverter } from '../../src/values/bad-rows.ts';
import { columnConverter } from '../../src/values/columns.ts';
import { rowConverter } from '../../src/values/convert.ts';
import { FilesSource } from '../../src/files/source.ts';
import { openParquetFile } from '../../src/files/parquet.ts';
import { pinnedFile } from '../../src/files/pinned-file.ts';
import { ParquetCells } from '../../src/files/parquet-cells.ts';
import type { SourceBatch, SourcePosition } from '../../src/source.ts';
import { PLAN, localContext } from '../support/contexts.ts';
import { EXTREMES_COLUMNS, PYARROW_COLUMN_NAMES, PYARROW_TABLE_COLUMNS, pyarrowRow, writePyarrowFiles, type PyarrowFileSpec } from '../support/pyarrow-files.ts';

const dir = mkdtempSync(join(tmpdir(), 'tributary-parquet-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const root = pathToFileURL(dir).href;

const TABLE: RowType = { fields: PYARROW_TABLE_COLUMNS.map((c, id) => ({ id, name: c.name, type: parseDataTypeString(c.type) })) };

const FILES: readonly PyarrowFileSpec[] = [
  { path: join(dir, 'in', 'p-0.parquet'), start: 0, count: 1000, ts_unit: 'ms', decimal_int: true, compression: 'snappy', row_group: 300 },
  { path: join(dir, 'in', 'p-1.parquet'), start: 1000, count: 1500, ts_unit: 'us', compression: 'zstd', drop: ['note'] },
  {
    path: join(dir, 'in', 'p-2.parquet'),
    start: 2500,
    count: 500,
    ts_unit: 'int96',
    compression: 'gzip',
    row_group: 128,
    rename: { name: 'Name' },
    extra: true,
    data_page_version: '2.0',
    dictionary: false,
  },
  { path: join(dir, 'in', 'p-3.parquet'), start: 3000, count: 300, ts_unit: 'ns', compression: 'lz4' },
  { path: join(dir, 'in', 'p-4.parquet'), start: 3300, count: 300, ts_unit: 'us', decimal_int: true, compression: 'brotli' },
];

/** p-2.parquet has a column the table lacks (`extra`): read with `unknownColumns: 'ignore'` unless a test says otherwise. */
function source(uris: string[], filesPerShard = 5, unknownColumns: 'fail' | 'ignore' = 'ignore'): FilesSource {
  return new FilesSource({ kind: 'files', format: 'parquet', uris, filesPerShard, unknownColumns }, localContext(root, PYARROW_COLUMN_NAMES));
}

async function convertAll(s: FilesSource, from?: SourcePosition): Promise<{ rows: InternalRow[]; batches: SourceBatch[] }> {
  const convert = rowConverter('test', await s.columns(), TABLE);
  const rows: InternalRow[] = [];
  const batches: SourceBatch[] = [];
  for (const shard of await s.plan(PLAN)) {
    for await (const batch of s.open(shard, from)) {
      batches.push(batch);
      rows.push(...batch.rows.map((r, i) => convert(r, batch.firstRowPosition + i, batch.file && { uri: batch.file.uri, row: batch.file.firstRow + i })));
    }
  }
  return { rows, batches };
}

/**
 * As the worker reads: each batch's columnar cells written into the table's columns
 * (`columnConverter(…).batch`), read back as rows; every batch must carry cells.
 */
async function convertColumnar(s: FilesSource, from?: SourcePosition): Promise<InternalRow[]> {
  const convert = columnConverter('test', await s.columns(), TABLE);
  const rows: InternalRow[] = [];
  for (const shard of await s.plan(PLAN)) {
    for await (const batch of s.open(shard, from)) {
      assert.equal(batch.columnar?.length, batch.rows.length, 'a Parquet batch carries its cells');
      const columns = convert.batch(batch);
      for (let r = 0; r < columns.length; r++) rows.push(columns.columns.map((c) => valueAt(c, r)));
    }
  }
  return rows;
}

const expected = (from: number, to: number): InternalRow[] =>
  Array.from({ length: to - from }, (_, k) => pyarrowRow(from + k, from + k >= 1000 && from + k < 2500 ? ['note'] : []));

describe('files source: Parquet written by pyarrow', () => {
  before(() => {
    mkdirSync(join(dir, 'in'));
    mkdirSync(join(dir, 'bad'));
    writePyarrowFiles(FILES);
  });

  test('five encodings of the same logical rows read back as exactly the same table values', async () => {
    const { rows, batches } = await convertAll(source([`${root}/in/p-*`]));
    assert.deepEqual(rows, expected(0, 3600));
    // Batches follow row groups and never span files; positions are {file, row}.
    assert.deepEqual(batches.slice(0, 5).map((b) => b.end), [{ file: 0, row: 300 }, { file: 0, row: 600 }, { file: 0, row: 900 }, { file: 0, row: 1000 }, { file: 1, row: 1500 }]);
    assert.deepEqual(batches.map((b) => b.firstRowPosition).slice(0, 5), [0, 300, 600, 900, 1000]);
    assert.equal(batches[4]?.file?.uri, `${root}/in/p-1.parquet`);
  });

  test('the columnar path (each batch\'s cells into the table\'s columns) gives exactly the same table values', async () => {
    assert.deepEqual(await convertColumnar(source([`${root}/in/p-*`])), expected(0, 3600));
    assert.deepEqual(await convertColumnar(source([`${root}/in/p-*`]), { file: 1, row: 700 }), expected(1700, 3600));
  });

  test('the columnar path decodes no row of source values; a batch decodes its rows once, when they are read', async () => {
    const decode = ParquetCells.prototype.rows;
    let decoded = 0;
    ParquetCells.prototype.rows = function (this: ParquetCells) {
      decoded++;
      return decode.call(this);
    };
    try {
      const s = source([`${root}/in/p-0.parquet`]);
      const convert = columnConverter('test', await s.columns(), TABLE);
      let batches = 0;
      for (const shard of await s.plan(PLAN)) {
        for await (const batch of s.open(shard)) {
          convert.batch(batch);
          assert.equal(decoded, 0, 'no rows decoded by the source or the converter');
          assert.deepEqual(batch.readPosition?.files?.map((f) => f.uri), [`${root}/in/p-0.parquet`]);
          batches++;
        }
      }
      assert.equal(batches, 4);
      for (const shard of await s.plan(PLAN)) {
        for await (const batch of s.open(shard)) {
          const rows = batch.rows;
          assert.equal(batch.rows, rows);
        }
      }
      assert.equal(decoded, 4, 'each batch decodes its rows once');
    } finally {
      ParquetCells.prototype.rows = decode;
    }
  });

  test('resuming at {file, row} yields exactly the rest, with the same shard positions', async () => {
    const { rows, batches } = await convertAll(source([`${root}/in/p-*`]), { file: 1, row: 700 });
    assert.deepEqual(rows, expected(1700, 3600));
    assert.equal(batches[0]?.firstRowPosition, 1700);
    assert.equal(batches[0]?.file?.firstRow, 700);
  });

  test('one file per shard plans one shard per file', async () => {
    const shards = await source([`${root}/in/p-*`], 1).plan(PLAN);
    assert.deepEqual(shards.map((s) => s.spec.files), FILES.map((f) => [`${root}/in/${f.path.split('/').pop() ?? ''}`]));
  });

  test('a value that does not fit is SOURCE_ROW_INVALID naming the file, the row and the column', async () => {
    writePyarrowFiles([{ path: join(dir, 'bad', 'overflow.parquet'), start: 0, count: 50, ts_unit: 'us', overflow_row: 41 }]);
    await assert.rejects(convertAll(source([`${root}/bad/overflow.parquet`])), (e) => {
      assert.ok(isTributaryError(e));
      assert.equal(e.code, 'SOURCE_ROW_INVALID');
      assert.equal(e.retryable, false);
      assert.deepEqual({ file: e.context.file, fileRow: e.context.fileRow, column: e.context.column }, { file: `${root}/bad/overflow.parquet`, fileRow: 41, column: 'amount' });
      assert.match(e.message, /overflow\.parquet row 41, column amount: a number too large for DECIMAL\(12, 2\)/);
      assert.doesNotMatch(e.message, /10000000000/); // never the value
      return true;
    });
    // The columnar path refuses the same cell with the same error; the reject policy (rows decoded from the cells) keeps the rest.
    const rowError = await convertAll(source([`${root}/bad/overflow.parquet`])).catch((e: unknown) => e);
    const columnError = await convertColumnar(source([`${root}/bad/overflow.parquet`])).catch((e: unknown) => e);
    assert.ok(isTributaryError(columnError) && isTributaryError(rowError));
    assert.deepEqual({ code: columnError.code, message: columnError.message, context: columnError.context }, { code: rowError.code, message: rowError.message, context: rowError.context });
    const s = source([`${root}/bad/overflow.parquet`]);
    const columns = await s.columns();
    const reject = batchConverter(rowConverter('test', columns, TABLE), columns, 'reject');
    const kept: InternalRow[] = [];
    for (const shard of await s.plan(PLAN)) for await (const batch of s.open(shard)) kept.push(...reject.convert(batch));
    assert.equal(reject.rejected, 1);
    assert.deepEqual(kept.map((r) => r[0]), Array.from({ length: 50 }, (_, i) => BigInt(i)).filter((id) => id !== 41n));
  });

  test('a string that is not UTF-8 is SOURCE_ROW_INVALID naming the file, the row and the column', async () => {
    writePyarrowFiles([{ path: join(dir, 'bad', 'utf8.parquet'), start: 0, count: 300, ts_unit: 'us', bad_utf8_row: 250, row_group: 100 }]);
    await assert.rejects(convertAll(source([`${root}/bad/utf8.parquet`])), (e) => {
      assert.ok(isTributaryError(e));
      assert.equal(e.code, 'SOURCE_ROW_INVALID');
      assert.deepEqual({ file: e.context.file, fileRow: e.context.fileRow, column: e.context.column }, { file: `${root}/bad/utf8.parquet`, fileRow: 250, column: 'name' });
      return true;
    });
  });

  test('a file without a NOT NULL column fails on its first row naming the file and column', async () => {
    writePyarrowFiles([{ path: join(dir, 'bad', 'no-id.parquet'), start: 0, count: 5, ts_unit: 'us', drop: ['id'] }]);
    await assert.rejects(convertAll(source([`${root}/bad/no-id.parquet`])), (e) => {
      assert.ok(isTributaryError(e));
      assert.equal(e.code, 'SOURCE_ROW_INVALID');
      assert.deepEqual({ file: e.context.file, fileRow: e.context.fileRow, column: e.context.column }, { file: `${root}/bad/no-id.parquet`, fileRow: 0, column: 'id' });
      return true;
    });
    await assert.rejects(convertColumnar(source([`${root}/bad/no-id.parquet`])), (e) => {
      assert.ok(isTributaryError(e));
      assert.equal(e.code, 'SOURCE_ROW_INVALID');
      assert.deepEqual({ file: e.context.file, fileRow: e.context.fileRow, column: e.context.column }, { file: `${root}/bad/no-id.parquet`, fileRow: 0, column: 'id' });
      return true;
    });
  });

  test('a column the table lacks is refused by default, at plan time and when read, naming it', async () => {
    const extra = (e: unknown) => isTributaryError(e) && e.code === 'SOURCE_SCHEMA_MISMATCH' && e.context.file === `${root}/in/p-2.parquet` && e.context.column === 'extra';
    const strict = source([`${root}/in/p-2.parquet`], 1, 'fail');
    await assert.rejects(strict.plan({ ...PLAN, target: TABLE.fields.map((f) => ({ name: f.name, type: f.type })) }), extra);
    // A worker reads every file (the plan checks the first FILES_CHECKED): refused before any row.
    let rows = 0;
    const reading = (async () => {
      for await (const batch of strict.open({ id: 'files-00000', spec: { files: [`${root}/in/p-2.parquet`] } })) rows += batch.rows.length;
    })();
    await assert.rejects(reading, extra);
    assert.equal(rows, 0);
  });

  test('a nested column the table wants and a file that is not Parquet are typed refusals', async () => {
    writePyarrowFiles([{ path: join(dir, 'bad', 'nested.parquet'), start: 0, count: 5, ts_unit: 'us', extra: true }]);
    const nested = new FilesSource({ kind: 'files', format: 'parquet', uris: [`${root}/bad/nested.parquet`], unknownColumns: 'ignore' }, localContext(root, ['id', 'extra']));
    await assert.rejects(convertAll(nested), (e) => isTributaryError(e) && e.code === 'SOURCE_SCHEMA_MISMATCH' && e.context.column === 'extra');
    const store = openObjectStore(`${root}/bad`);
    await store.put('text.parquet', new TextEncoder().encode('{"id": 1}\n'));
    await assert.rejects(convertAll(source([`${root}/bad/text.parquet`])), (e) => isTributaryError(e) && e.code === 'SOURCE_FILE_MALFORMED' && e.context.file === `${root}/bad/text.parquet`);
  });
});

describe('Parquet input: a big row group in slices, through ranged reads', () => {
  test('slices of a row group read the same rows, and each column chunk is fetched once', async () => {
    mkdirSync(join(dir, 'slices'));
    const path = join(dir, 'slices', 'one-group.parquet');
    writePyarrowFiles([{ path, start: 0, count: 5000, ts_unit: 'ns', compression: 'zstd' }]);
    const local = openObjectStore(`${root}/slices`);
    const ranges: [number, number][] = [];
    const counting = new Proxy(local, {
      get: (target, prop) => {
        if (prop === 'getRange') {
          return (key: string, offset: number, length: number) => {
            ranges.push([offset, length]);
            return target.getRange(key, offset, length);
          };
        }
        const value: unknown = Reflect.get(target, prop, target);
        return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      },
    }) as ObjectStore;
    const listed = await local.stat('one-group.parquet');
    const version = { uri: `${root}/slices/one-group.parquet`, size: listed?.size ?? 0, etag: listed?.etag ?? '' };
    const file = await openParquetFile(pinnedFile(counting, 'one-group.parquet', version), PYARROW_COLUMN_NAMES, 'fail', 700);
    const convert = rowConverter('test', PYARROW_COLUMN_NAMES.map((name) => ({ name, sourceType: 'parquet' })), TABLE);
    const rows: InternalRow[] = [];
    const firstRows: number[] = [];
    for await (const batch of file.batches(1200, 500)) {
      firstRows.push(batch.firstRow);
      rows.push(...batch.cells.rows().map((r, i) => convert(r, batch.firstRow + i)));
    }
    assert.deepEqual(rows, Array.from({ length: 3800 }, (_, k) => pyarrowRow(1200 + k)));
    assert.deepEqual(firstRows.slice(0, 4), [1200, 1700, 1900, 2400]); // slices of 700 rows, batches of at most 500
    const fetched = ranges.reduce((n, [, length]) => n + length, 0);
    // hyparquet reads the footer with one guess of up to 512 KiB from the end; then each chunk once.
    const size = statSync(path).size;
    assert.ok(fetched <= size + Math.min(size, 512 * 1024), `${fetched} bytes fetched for a ${size}-byte file`);
    assert.equal(new Set(ranges.map(([o]) => o)).size, ranges.length, 'no range fetched twice');
  });
});

describe('Parquet input at the limits of every type: the columnar path against the row path', () => {
  const files: readonly PyarrowFileSpec[] = [
    { path: join(dir, 'extremes', 'fixed.parquet'), start: 0, count: 3000, ts_unit: 'us', extremes: true, row_group: 1100 },
    { path: join(dir, 'extremes', 'int.parquet'), start: 0, count: 2500, ts_unit: 'us', extremes: true, decimal_int: true, dictionary: false, data_page_version: '2.0', compression: 'zstd' },
    { path: join(dir, 'extremes', 'int96.parquet'), start: 0, count: 1200, ts_unit: 'int96', extremes: true, row_group: 500 },
  ];
  before(() => {
    mkdirSync(join(dir, 'extremes'));
    writePyarrowFiles(files);
  });

  for (const which of ['type', 'other'] as const) {
    test(`every cell into the table's ${which === 'type' ? 'own types' : 'other types'} is the row path's value`, async () => {
      const table: RowType = { fields: EXTREMES_COLUMNS.map((c, id) => ({ id, name: c.name, type: parseDataTypeString(c[which]) })) };
      const names = EXTREMES_COLUMNS.map((c) => c.name);
      const s = new FilesSource({ kind: 'files', format: 'parquet', uris: [`${root}/extremes/*`], filesPerShard: 5 }, localContext(root, names));
      const columns = await s.columns();
      const byColumns = columnConverter('test', columns, table);
      const byRows = rowConverter('test', columns, table);
      let rows = 0;
      for (const shard of await s.plan(PLAN)) {
        for await (const batch of s.open(shard)) {
          assert.ok(batch.columnar !== undefined);
          const got = byColumns.batch(batch);
          // The row path as before: each row's source values through the exact converter, stored as the writer stores rows.
          const want = batchFromRows(table, batch.rows.map((row, i) => byRows(row, batch.firstRowPosition + i)));
          for (let c = 0; c < table.fields.length; c++) {
            for (let r = 0; r < got.length; r++) {
              assert.deepStrictEqual(valueAt(got.columns[c] as Column, r), valueAt(want.columns[c] as Column, r), `${table.fields[c]?.name ?? ''} row ${batch.firstRowPosition + r}`);
            }
          }
          rows += got.length;
        }
      }
      assert.equal(rows, 3000 + 2500 + 1200);
    });
  }
});
