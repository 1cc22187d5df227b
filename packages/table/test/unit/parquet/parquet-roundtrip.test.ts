import assert from 'node:assert/strict';
import { test } from 'node:test';
import { inspect, isDeepStrictEqual } from 'node:util';
import type { DataField, DataType, InternalValue, RowType } from '../../../src/spec/types.ts';
import { batchFromRows, rowsFromBatch, type Column, type ColumnBatch } from '../../../src/format/column-batch.ts';
import { pageRanges } from '../../../src/parquet/parquet-pages.ts';
import { ParquetFileEncoder, DataFileWriter, memorySink, type FileSink, type ParquetEncodeOptions } from '../../../src/parquet/parquet-writer.ts';
import { ParquetDataFileReader, byteSourceFromBytes, readDataFile } from '../../../src/parquet/parquet-reader.ts';
import { timestampToInt96, timestampFromInt96 } from '../../../src/parquet/parquet-values.ts';

const STRING = 2147483647;
const t = (root: string, extra: Record<string, number> = {}, nullable = true) => ({ root, nullable, ...extra }) as DataType;
const field = (id: number, name: string, type: DataType): DataField => ({ id, name, type });

const fields: DataField[] = [
  field(0, 'bool', t('BOOLEAN')),
  field(1, 'tiny', t('TINYINT')),
  field(2, 'small', t('SMALLINT')),
  field(3, 'int', t('INT')),
  field(4, 'big', t('BIGINT')),
  field(5, 'f', t('FLOAT')),
  field(6, 'd', t('DOUBLE')),
  field(7, 'dec9', t('DECIMAL', { precision: 9, scale: 2 })),
  field(8, 'dec18', t('DECIMAL', { precision: 18, scale: 2 })),
  field(9, 'dec38', t('DECIMAL', { precision: 38, scale: 10 })),
  field(10, 'dec20', t('DECIMAL', { precision: 20, scale: 0 })),
  field(11, 'ch', t('CHAR', { length: 3 })),
  field(12, 's', t('VARCHAR', { length: STRING })),
  field(13, 'bin', t('BINARY', { length: 2 })),
  field(14, 'bytes', t('VARBINARY', { length: STRING })),
  field(15, 'date', t('DATE')),
  field(16, 'time', t('TIME', { precision: 3 })),
  ...[0, 1, 2, 3, 4, 5, 6, 7, 8, 9].map((p) => field(20 + p, `ts${p}`, t('TIMESTAMP', { precision: p }))),
  ...[0, 3, 6, 9].map((p) => field(40 + p, `ltz${p}`, t('TIMESTAMP_LTZ', { precision: p }))),
  field(50, 'req', t('INT', {}, false)),
];
const rowType: RowType = { fields };

/** A timestamp value truncated to precision p (Paimon keeps values at their precision). */
function ts(epochMillis: number, nanoOfMillis: number, p: number): InternalValue {
  if (p <= 3) {
    const unit = 10 ** (3 - p);
    return { epochMillis: Math.floor(epochMillis / unit) * unit, nanoOfMillis: 0 };
  }
  const unit = 10 ** (9 - p);
  return { epochMillis, nanoOfMillis: Math.floor(nanoOfMillis / unit) * unit };
}

function row(seed: 'min' | 'max' | 'mid' | 'null'): InternalValue[] {
  const tsValues = (m: number, n: number) => [0, 1, 2, 3, 4, 5, 6, 7, 8, 9].map((p) => ts(m, n, p));
  const ltz = (m: number, n: number) => [0, 3, 6, 9].map((p) => ts(m, n, p));
  switch (seed) {
    case 'min':
      return [false, -128, -32768, -2147483648, -(2n ** 63n), -3.4028234663852886e38, -Number.MAX_VALUE,
        -999999999n, -(10n ** 18n - 1n), -(10n ** 38n - 1n), -(10n ** 20n - 1n), '', '', new Uint8Array([0, 0]), new Uint8Array(0),
        -719162, 0, ...tsValues(-62135596800000, 1), ...ltz(-1, 999_999), -2147483648];
    case 'max':
      return [true, 127, 32767, 2147483647, 2n ** 63n - 1n, 3.4028234663852886e38, Number.MAX_VALUE,
        999999999n, 10n ** 18n - 1n, 10n ** 38n - 1n, 10n ** 20n - 1n, 'zzz', '😀\u{10FFFF}\uFFFF', new Uint8Array([255, 255]), new Uint8Array([1, 2, 3, 255]),
        2932896, 86399999, ...tsValues(253402300799999, 999_999), ...ltz(253402300799999, 999_999), 2147483647];
    case 'mid':
      return [true, 0, -1, 42, -1n, -0.5, Math.PI, -1n, 12345n, -12345678901234567890123456789n, 0n, 'héł', 'ünï 中文 😀', new Uint8Array([1, 0]), new Uint8Array([0]),
        -1, 1, ...tsValues(-1001, 123_456), ...ltz(-1, 1), 0];
    case 'null':
      return [...fields.slice(0, -1).map(() => null), 7];
  }
}

const rows = [row('min'), row('null'), row('max'), row('mid')];

async function roundTrip(batch: ColumnBatch, options: ParquetEncodeOptions = {}): Promise<{ bytes: Uint8Array; back: InternalValue[][] }> {
  const sink = memorySink();
  const encoder = new ParquetFileEncoder(batch.rowType, sink, options);
  await encoder.writeRowGroup(batch);
  await encoder.finish();
  const bytes = sink.bytes();
  const back = (await readDataFile(byteSourceFromBytes(bytes), batch.rowType)).flatMap(rowsFromBatch);
  return { bytes, back };
}

test('every type round-trips exactly, with nulls and extremes', async () => {
  const { back } = await roundTrip(batchFromRows(rowType, rows));
  // FLOAT is stored as float32: the extremes above are exactly representable.
  assert.deepEqual(back, rows);
});

test('INT96 matches Java timestampToInt96 bytes, including pre-1970 with nanos', () => {
  // 1969-12-31T23:59:59.999000500: Java truncates the day, so nanos-of-day is negative.
  const bytes = timestampToInt96(-1, 500);
  const view = new DataView(bytes.buffer);
  assert.equal(view.getBigInt64(0, true), -1_000_000n + 500n);
  assert.equal(view.getInt32(8, true), 2_440_588);
  assert.deepEqual(timestampFromInt96(bytes), { epochMillis: -1, nanoOfMillis: 500 });
  // The normalised form other writers use reads back the same instant.
  const normal = new Uint8Array(12);
  const nv = new DataView(normal.buffer);
  nv.setBigInt64(0, 86_400_000_000_000n - 1_000_000n + 500n, true);
  nv.setInt32(8, 2_440_587, true);
  assert.deepEqual(timestampFromInt96(normal), { epochMillis: -1, nanoOfMillis: 500 });
});

test('the written schema is Paimon\'s ParquetSchemaConverter mapping, element by element', async () => {
  const { bytes } = await roundTrip(batchFromRows(rowType, rows));
  const reader = await ParquetDataFileReader.open(byteSourceFromBytes(bytes));
  const schema = reader.schema;
  assert.equal(schema[0]?.name, 'paimon_schema');
  assert.equal(schema[0]?.num_children, fields.length);
  assert.equal(schema[0]?.type, undefined);
  const byName = new Map(schema.slice(1).map((e) => [e.name, e]));
  const expect = (name: string, shape: Record<string, unknown>) => {
    const element = byName.get(name);
    assert.ok(element, name);
    for (const [k, v] of Object.entries(shape)) assert.deepEqual((element as unknown as Record<string, unknown>)[k], v, `${name}.${k}`);
  };
  const opt = { repetition_type: 'OPTIONAL' };
  expect('bool', { ...opt, type: 'BOOLEAN', field_id: 0, logical_type: undefined });
  expect('tiny', { ...opt, type: 'INT32', converted_type: 'INT_8', logical_type: { type: 'INTEGER', bitWidth: 8, isSigned: true } });
  expect('small', { type: 'INT32', converted_type: 'INT_16', logical_type: { type: 'INTEGER', bitWidth: 16, isSigned: true } });
  expect('int', { type: 'INT32', converted_type: undefined, logical_type: undefined, field_id: 3 });
  expect('big', { type: 'INT64', converted_type: undefined });
  expect('f', { type: 'FLOAT' });
  expect('d', { type: 'DOUBLE' });
  expect('dec9', { type: 'INT32', converted_type: 'DECIMAL', precision: 9, scale: 2, logical_type: { type: 'DECIMAL', precision: 9, scale: 2 } });
  expect('dec18', { type: 'INT64', converted_type: 'DECIMAL', precision: 18, scale: 2 });
  expect('dec38', { type: 'FIXED_LEN_BYTE_ARRAY', type_length: 16, converted_type: 'DECIMAL', precision: 38, scale: 10 });
  expect('dec20', { type: 'FIXED_LEN_BYTE_ARRAY', type_length: 9 });
  expect('ch', { type: 'BYTE_ARRAY', converted_type: 'UTF8', logical_type: { type: 'STRING' } });
  expect('s', { type: 'BYTE_ARRAY', converted_type: 'UTF8' });
  expect('bin', { type: 'BYTE_ARRAY', converted_type: undefined, logical_type: undefined });
  expect('bytes', { type: 'BYTE_ARRAY', converted_type: undefined });
  expect('date', { type: 'INT32', converted_type: 'DATE', logical_type: { type: 'DATE' } });
  expect('time', { type: 'INT32', converted_type: 'TIME_MILLIS', logical_type: { type: 'TIME', isAdjustedToUTC: true, unit: 'MILLIS' } });
  for (const p of [0, 1, 2, 3]) {
    expect(`ts${p}`, { type: 'INT64', logical_type: { type: 'TIMESTAMP', isAdjustedToUTC: false, unit: 'MILLIS' }, field_id: 20 + p });
  }
  for (const p of [4, 5, 6]) expect(`ts${p}`, { type: 'INT64', logical_type: { type: 'TIMESTAMP', isAdjustedToUTC: false, unit: 'MICROS' } });
  for (const p of [7, 8, 9]) expect(`ts${p}`, { type: 'INT96', converted_type: undefined, logical_type: undefined });
  expect('ltz0', { type: 'INT64', logical_type: { type: 'TIMESTAMP', isAdjustedToUTC: true, unit: 'MILLIS' } });
  expect('ltz6', { type: 'INT64', logical_type: { type: 'TIMESTAMP', isAdjustedToUTC: true, unit: 'MICROS' } });
  expect('ltz9', { type: 'INT96' });
  expect('req', { type: 'INT32', repetition_type: 'REQUIRED', field_id: 50 });
  // The chunk types agree with the schema (INT96 included) and carry no Parquet statistics.
  for (const chunk of reader.footer.row_groups[0]?.columns ?? []) {
    const name = chunk.meta_data?.path_in_schema[0] ?? '';
    assert.equal(chunk.meta_data?.type, byName.get(name)?.type, name);
    assert.equal(chunk.meta_data?.codec, 'ZSTD');
    assert.equal(chunk.meta_data?.statistics, undefined);
  }
});

test('reading matches by name, projects, and fills a column the file lacks with nulls', async () => {
  const small: RowType = { fields: [field(0, 'a', t('INT')), field(1, 'b', t('VARCHAR', { length: STRING }))] };
  const { bytes } = await roundTrip(batchFromRows(small, [[1, 'x'], [2, null]]));
  const projected: RowType = { fields: [field(1, 'b', t('VARCHAR', { length: STRING })), field(7, 'added', t('BIGINT'))] };
  const [batch] = await readDataFile(byteSourceFromBytes(bytes), projected);
  assert.deepEqual(rowsFromBatch(batch as ColumnBatch), [['x', null], [null, null]]);
  const required: RowType = { fields: [field(7, 'added', t('BIGINT', {}, false))] };
  await assert.rejects(readDataFile(byteSourceFromBytes(bytes), required), { code: 'PARQUET_COLUMN_MISSING' });
  const wrong: RowType = { fields: [field(0, 'a', t('VARCHAR', { length: STRING }))] };
  await assert.rejects(readDataFile(byteSourceFromBytes(bytes), wrong), { code: 'PARQUET_TYPE_MISMATCH' });
});

test('a null in a NOT NULL column is refused, not written', async () => {
  const strict: RowType = { fields: [field(0, 'a', t('INT', {}, false))] };
  const encoder = new ParquetFileEncoder(strict, memorySink());
  await assert.rejects(encoder.writeRowGroup(batchFromRows(strict, [[1], [null]])), { code: 'DATA_FILE_NULL_IN_REQUIRED' });
});

test('garbage is a typed PARQUET_FILE_INVALID', async () => {
  await assert.rejects(ParquetDataFileReader.open(byteSourceFromBytes(new Uint8Array(64))), { code: 'PARQUET_FILE_INVALID' });
});

function collectingSinks(): { open: (name: string) => FileSink; files: Map<string, Uint8Array> } {
  const files = new Map<string, Uint8Array>();
  return {
    files,
    open: (name) => {
      const sink = memorySink();
      return { write: (c) => sink.write(c), close: async () => { await sink.close(); files.set(name, sink.bytes()); } };
    },
  };
}

test('DataFileWriter rolls to several files past the target size, with exact counts and stats', async () => {
  const orders: RowType = {
    fields: [field(0, 'id', t('BIGINT', {}, false)), field(1, 'note', t('VARCHAR', { length: STRING })), field(2, 'amount', t('DECIMAL', { precision: 18, scale: 2 }))],
  };
  const n = 20_000;
  const data = Array.from({ length: n }, (_, i) => [BigInt(i * 7919 % n), i % 5 === 0 ? null : `note-${(i * 31) % 977}`, BigInt(i) - 5000n]);
  const sinks = collectingSinks();
  const writer = new DataFileWriter({ rowType: orders, uuid: 'u-1', openSink: sinks.open, targetFileSize: 16 * 1024, rowGroupRows: 4096 });
  await writer.write(batchFromRows(orders, data.slice(0, 12_345)));
  await writer.write(batchFromRows(orders, data.slice(12_345)));
  const files = await writer.close();
  assert.ok(files.length >= 3, `expected several files, got ${files.length}`);
  assert.deepEqual(files.map((f) => f.fileName), files.map((_, i) => `data-u-1-${i}.parquet`));
  assert.equal(files.reduce((s, f) => s + f.rowCount, 0), n);
  let offset = 0;
  for (const file of files) {
    const bytes = sinks.files.get(file.fileName) as Uint8Array;
    assert.equal(file.fileSize, bytes.length);
    const back = (await readDataFile(byteSourceFromBytes(bytes), orders)).flatMap(rowsFromBatch);
    const expected = data.slice(offset, offset + file.rowCount);
    assert.deepEqual(back, expected);
    offset += file.rowCount;
    const ids = expected.map((r) => r[0] as bigint);
    const notes = expected.map((r) => r[1] as string | null).filter((s): s is string => s !== null).sort();
    assert.deepEqual(file.stats[0], { min: ids.reduce((a, b) => (a < b ? a : b)), max: ids.reduce((a, b) => (a > b ? a : b)), nullCount: 0 });
    assert.deepEqual(file.stats[1], { min: notes[0], max: notes.at(-1), nullCount: expected.filter((r) => r[1] === null).length });
    assert.deepEqual(file.firstRow, expected[0]);
    assert.deepEqual(file.lastRow, expected.at(-1));
  }
});

test('stats order strings by UTF-8 bytes and floats like Java', async () => {
  const st: RowType = { fields: [field(0, 's', t('VARCHAR', { length: STRING })), field(1, 'd', t('DOUBLE')), field(2, 'ts', t('TIMESTAMP', { precision: 9 }))] };
  const sinks = collectingSinks();
  const writer = new DataFileWriter({ rowType: st, uuid: 'u', openSink: sinks.open, targetFileSize: 1 << 20 });
  await writer.write(batchFromRows(st, [
    ['\uFFFF', 0, { epochMillis: -1, nanoOfMillis: 5 }],
    ['😀', -0, { epochMillis: -1, nanoOfMillis: 4 }],
    ['a', Number.NaN, null],
  ]));
  const [file] = await writer.close();
  // U+1F600 (4 UTF-8 bytes, F0…) sorts after U+FFFF (EF BF BF), though its UTF-16 form sorts before.
  assert.deepEqual(file?.stats[0], { min: 'a', max: '😀', nullCount: 0 });
  assert.ok(Object.is(file?.stats[1]?.min, -0));
  assert.ok(Number.isNaN(file?.stats[1]?.max));
  assert.deepEqual(file?.stats[2], { min: { epochMillis: -1, nanoOfMillis: 4 }, max: { epochMillis: -1, nanoOfMillis: 5 }, nullCount: 1 });
});

test('big row groups split into several pages; dictionary and plain strings; all-null and sparse-null columns', async () => {
  const wide: RowType = {
    fields: [
      field(0, 'n', t('INT')),
      field(1, 'low', t('VARCHAR', { length: STRING })),
      field(2, 'unique', t('VARCHAR', { length: STRING })),
      field(3, 'none', t('BIGINT')),
      field(4, 'flag', t('BOOLEAN')),
      field(5, 'ts', t('TIMESTAMP', { precision: 6 })),
    ],
  };
  const n = 140_000;
  const rows: InternalValue[][] = Array.from({ length: n }, (_, i): InternalValue[] => [
    i % 1000 === 7 ? null : i,
    i % 3 === 0 ? null : (['NEW', 'PAID', 'ü'][i % 3] as string),
    `unique-${i}-${'x'.repeat(i % 13)}`,
    null,
    i % 5 === 0 ? null : i % 2 === 0,
    { epochMillis: 1_700_000_000_000 + i, nanoOfMillis: (i % 1000) * 1000 },
  ]);
  // Every codec: a page's levels and values are joined in a buffer the next page reuses, so a
  // codec that keeps its input (none) must not keep that buffer.
  for (const compression of ['none', 'gzip'] as const) {
    assert.deepEqual((await roundTrip(batchFromRows(wide, rows), { compression })).back, rows, compression);
  }
  const { bytes, back } = await roundTrip(batchFromRows(wide, rows));
  assert.deepEqual(back, rows);
  const reader = await ParquetDataFileReader.open(byteSourceFromBytes(bytes));
  const chunks = reader.footer.row_groups[0]?.columns ?? [];
  const encodings = (name: string) => chunks.find((c) => c.meta_data?.path_in_schema[0] === name)?.meta_data?.encodings;
  assert.deepEqual(encodings('low'), ['PLAIN_DICTIONARY', 'RLE']);
  assert.deepEqual(encodings('unique'), ['PLAIN', 'RLE']);
  // Pages of about 1 MiB: the 140k rows of column n (and of the plain strings) span several pages.
  const batch = batchFromRows(wide, rows);
  for (const index of [0, 2]) {
    const ranges = pageRanges(batch.columns[index] as Column, n, false);
    assert.ok(ranges.length >= 2, `pages of column ${index}: ${ranges.length}`);
    assert.deepEqual(ranges.flat().filter((_, i) => i % 2 === 0 && i > 0), ranges.slice(0, -1).map((r) => r[1]), 'contiguous');
    assert.deepEqual([ranges[0]?.[0], ranges.at(-1)?.[1]], [0, n]);
  }
});

test('NOT NULL columns over several pages (no definition levels: the values are the page) round-trip with every codec', async () => {
  const required: RowType = {
    fields: [
      field(0, 'dec', t('DECIMAL', { precision: 9, scale: 2 }, false)),
      field(1, 'ts', t('TIMESTAMP', { precision: 6 }, false)),
      field(2, 'ts9', t('TIMESTAMP', { precision: 9 }, false)),
      field(3, 'low', t('VARCHAR', { length: STRING }, false)),
      field(4, 'unique', t('VARCHAR', { length: STRING }, false)),
    ],
  };
  const n = 140_000;
  const rows: InternalValue[][] = Array.from({ length: n }, (_, i): InternalValue[] => [
    BigInt(i * 7 - 1_000_000),
    { epochMillis: 1_700_000_000_000 + i, nanoOfMillis: (i % 1000) * 1000 },
    { epochMillis: -1_000_000 + i, nanoOfMillis: i % 999_999 },
    ['NEW', 'PAID', 'ü'][i % 3] as string,
    `unique-${i}-${'ü'.repeat(i % 5)}`,
  ]);
  const batch = batchFromRows(required, rows);
  for (const index of [0, 1, 2, 4]) assert.ok(pageRanges(batch.columns[index] as Column, n, false).length >= 2, `pages of column ${index}`);
  for (const compression of ['none', 'zstd', 'gzip'] as const) {
    const { back } = await roundTrip(batch, { compression });
    assert.equal(back.length, n, compression);
    // The first row read back wrong, if any (a whole-table diff would not fit in memory).
    const wrong = back.findIndex((r, i) => !isDeepStrictEqual(r, rows[i]));
    assert.equal(wrong, -1, `${compression}: row ${wrong} is ${inspect(back[wrong])}, not ${inspect(rows[wrong])}`);
  }
});

test('readRowsSparse converts the rows asked for to exactly what readRows gives, in every row group; a column the file lacks reads as null', async () => {
  const sink = memorySink();
  const encoder = new ParquetFileEncoder(rowType, sink);
  const groups = [rows, [row('mid'), row('max'), row('null')]];
  for (const group of groups) await encoder.writeRowGroup(batchFromRows(rowType, group));
  await encoder.finish();
  const reader = await ParquetDataFileReader.open(byteSourceFromBytes(sink.bytes()));
  // A projection with a column added later (absent from the file), read out of order.
  const projected: RowType = { fields: [...fields].reverse().filter((f) => f.type.nullable).concat(field(99, 'added', t('INT'))) };
  for (let g = 0; g < groups.length; g++) {
    const [start, end] = reader.rowGroupRange(g);
    assert.equal(end - start, groups[g]?.length);
    const full = rowsFromBatch(await reader.readRows(projected, start, end));
    const sparse = await reader.readRowsSparse(projected, start, end);
    assert.equal(sparse.length, end - start);
    // Rows asked for out of order and twice: each conversion stands alone.
    for (const r of [2, 0, 1, 2].filter((i) => i < end - start)) {
      assert.deepEqual(projected.fields.map((_, f) => sparse.value(f, r)), full[r], `row group ${g}, row ${r}`);
    }
    assert.equal(sparse.value(projected.fields.length - 1, 0), null);
  }
});

test('a string that starts with U+FEFF keeps it, in dictionary and plain pages (a default UTF-8 decoder drops a leading one)', async () => {
  const strings: RowType = { fields: [field(0, 'dict', t('VARCHAR', { length: STRING })), field(1, 'plain', t('VARCHAR', { length: STRING })), field(2, 'ch', t('CHAR', { length: 3 }))] };
  const values = ['\uFEFFabc', '\uFEFF\uFEFFx', '\uFEFF', 'abc', 'x\uFEFF'];
  const rows: InternalValue[][] = Array.from({ length: 2000 }, (_, i) => [values[i % values.length] ?? null, `${values[i % values.length] ?? ''}${i}`, '\uFEFFab']);
  const { back } = await roundTrip(batchFromRows(strings, rows));
  assert.deepEqual(back, rows);
});
