import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isTributaryError } from '@tributary/protocol';
import { parseDataTypeString, type RowType } from '@tributary/table';
import { isZeroDate, zeroDateValue } from '../../src/mysql/zero-dates.ts';
import type { SourceBatch, SourceColumn } from '../../src/source.ts';
import { batchConverter, jsonValue } from '../../src/values/bad-rows.ts';
import { rowConverter } from '../../src/values/convert.ts';

const columns: SourceColumn[] = ['id', 'qty', 'at', 'raw'].map((name) => ({ name, sourceType: 'test' }));
const table: RowType = { fields: ['id BIGINT NOT NULL', 'qty SMALLINT NOT NULL', 'at TIMESTAMP(3)', 'raw BYTES'].map((t, id) => ({ id, name: t.split(' ')[0] ?? '', type: parseDataTypeString(t.split(' ').slice(1).join(' ')) })) };
const batch: SourceBatch = {
  firstRowPosition: 10,
  end: 13,
  rows: [
    ['1', 5, null, null],
    [2n, 40_000, { epochMillis: 1, nanoOfMillis: 500 }, Uint8Array.of(1, 2)], // qty out of SMALLINT
    ['3', null, null, null], // NULL in NOT NULL
    ['4', 7, '2024-01-01T00:00:00Z', null],
  ],
};

test('fail: the first bad row throws SOURCE_ROW_INVALID with the shard, position and column, no value', () => {
  const converter = batchConverter(rowConverter('s1', columns, table), columns, 'fail');
  assert.throws(
    () => converter.convert(batch),
    (e: unknown) => isTributaryError(e) && e.code === 'SOURCE_ROW_INVALID' && e.context.position === 11 && e.context.column === 'qty' && !e.message.includes('40000'),
  );
  assert.equal(converter.rejected, 0);
});

test('reject: bad rows leave the batch and become JSON lines with their exact values', () => {
  const converter = batchConverter(rowConverter('s1', columns, table), columns, 'reject');
  const rows = converter.convert(batch);
  assert.deepEqual(rows.map((r) => r[0]), [1n, 4n]);
  assert.equal(converter.rejected, 2);
  const lines = new TextDecoder().decode(converter.rejectsFile()).trimEnd().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
  assert.deepEqual(lines[0], {
    shard: 's1',
    row: 11,
    column: 'qty',
    reason: lines[0]?.reason,
    values: { id: '2', qty: 40_000, at: { epochMillis: 1, nanoOfMillis: 500 }, raw: { base64: 'AQI=' } },
  });
  assert.match(String(lines[0]?.reason), /shard s1, row 11, column qty/);
  assert.deepEqual([lines[1]?.row, lines[1]?.column], [12, 'qty']);
});

test('reject rethrows anything that is not a bad row', () => {
  const failing = () => {
    throw new Error('storage away');
  };
  const converter = batchConverter(failing, columns, 'reject');
  assert.throws(() => converter.convert(batch), /storage away/);
});

test('reject keeps at most so many rows or bytes of rejects: past them the shard fails', () => {
  const converter = batchConverter(rowConverter('s1', columns, table), columns, 'reject', { rows: 1, bytes: 1_000_000 });
  assert.throws(() => converter.convert(batch), (e: unknown) => isTributaryError(e) && e.code === 'SOURCE_REJECTS_EXCEEDED' && e.context.shard === 's1' && e.context.rejected === 1 && !e.retryable);
  const small = batchConverter(rowConverter('s1', columns, table), columns, 'reject', { rows: 10, bytes: 50 });
  assert.throws(() => small.convert(batch), (e: unknown) => isTributaryError(e) && e.code === 'SOURCE_REJECTS_EXCEEDED');
});

test('JSON values: exact, never rounded', () => {
  assert.equal(jsonValue(2n ** 64n), '18446744073709551616');
  assert.equal(jsonValue(Number.NaN), 'NaN');
  assert.equal(jsonValue(new Date(0)), '1970-01-01T00:00:00.000Z');
});

test('zero dates: a zero month or day; the policy says what one becomes', () => {
  for (const zero of ['0000-00-00', '0000-00-00 00:00:00', '2024-00-10', '2024-02-00 10:00:00.5']) assert.ok(isZeroDate(zero), zero);
  for (const date of ['2024-02-29', '0000-01-01', '2024-10-10 00:00:00']) assert.ok(!isZeroDate(date), date);
  assert.equal(zeroDateValue('fail', 'date'), undefined);
  assert.equal(zeroDateValue('null', 'timestamp'), null);
  assert.equal(zeroDateValue('epoch', 'date'), '1970-01-01');
  assert.deepEqual(zeroDateValue('epoch', 'timestamp'), { epochMillis: 0, nanoOfMillis: 0 });
});

test('a string that is not valid Unicode (a lone surrogate, as a JSON escape makes one) is a bad row, never rewritten', async () => {
  const { columnConverter } = await import('../../src/values/columns.ts');
  const textColumns: SourceColumn[] = ['id', 'name'].map((name) => ({ name, sourceType: 'json' }));
  const textTable: RowType = { fields: ['id BIGINT NOT NULL', 'name STRING'].map((t, id) => ({ id, name: t.split(' ')[0] ?? '', type: parseDataTypeString(t.split(' ').slice(1).join(' ')) })) };
  // Parsed as an NDJSON source parses its lines: the escapes become lone surrogates.
  const parsed = ['{"id":1,"name":"ok 😀"}', '{"id":2,"name":"x\\ud800y"}', '{"id":3,"name":"\\ude00"}', '{"id":4,"name":"\\ud83d\\ude00"}'].map(
    (line) => JSON.parse(line) as { id: number; name: string },
  );
  const textBatch: SourceBatch = { firstRowPosition: 0, end: 4, rows: parsed.map((r) => [r.id, r.name]) };
  const refused = (e: unknown) => isTributaryError(e) && e.code === 'SOURCE_ROW_INVALID' && e.context.position === 1 && e.context.column === 'name' && !e.message.includes('\ud800');
  assert.throws(() => batchConverter(rowConverter('s1', textColumns, textTable), textColumns, 'fail').convert(textBatch), refused);
  assert.throws(() => columnConverter('s1', textColumns, textTable).batch(textBatch), refused);

  const converter = batchConverter(rowConverter('s1', textColumns, textTable), textColumns, 'reject');
  assert.deepEqual(converter.convert(textBatch), [[1n, 'ok 😀'], [4n, '😀']]);
  const lines = new TextDecoder('utf-8', { fatal: true }).decode(converter.rejectsFile()).trimEnd().split('\n').map((l) => JSON.parse(l) as { row: number; values: { name: string } });
  assert.deepEqual(lines.map((l) => [l.row, l.values.name]), [[1, 'x\ud800y'], [2, '\ude00']]);
});
