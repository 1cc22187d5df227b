import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseDataTypeString } from '../../../src/spec/data-type-json.ts';
import { jsonCell } from '../../../src/spec/json-value.ts';
import type { InternalValue } from '../../../src/spec/types.ts';

const cell = (value: InternalValue, type: string) => jsonCell(value, parseDataTypeString(type));

test('jsonCell: numbers JSON cannot hold exactly become text; NaN and infinities too', () => {
  assert.equal(cell(9007199254740993n, 'BIGINT'), '9007199254740993');
  assert.equal(cell(-9223372036854775808n, 'BIGINT'), '-9223372036854775808');
  assert.equal(cell(-5n, 'DECIMAL(12, 2)'), '-0.05');
  assert.equal(cell(123456789012345678901234567890n, 'DECIMAL(38, 4)'), '12345678901234567890123456.7890');
  assert.equal(cell(7n, 'DECIMAL(5, 0)'), '7');
  assert.equal(cell(2147483647, 'INT'), 2147483647);
  assert.equal(cell(1.5, 'DOUBLE'), 1.5);
  assert.equal(cell(Number.NaN, 'DOUBLE'), 'NaN');
  assert.equal(cell(Number.NEGATIVE_INFINITY, 'FLOAT'), '-Infinity');
  assert.equal(cell(true, 'BOOLEAN'), true);
  assert.equal(cell(null, 'BIGINT'), null);
});

test('jsonCell: bytes as base64, text as is, dates and times as ISO text', () => {
  assert.equal(cell(new Uint8Array([0, 255, 60, 62]), 'BYTES'), 'AP88Pg==');
  assert.equal(cell(new Uint8Array([1, 2, 3]).subarray(1), 'VARBINARY(8)'), 'AgM=');
  assert.equal(cell('<b>x</b>', 'STRING'), '<b>x</b>');
  assert.equal(cell(0, 'DATE'), '1970-01-01');
  assert.equal(cell(-1, 'DATE'), '1969-12-31');
  assert.equal(cell(19753, 'DATE'), '2024-01-31');
  assert.equal(cell(49_507_123, 'TIME(3)'), '13:45:07.123');
  assert.equal(cell({ epochMillis: Date.UTC(2024, 0, 31, 13, 45, 7, 123), nanoOfMillis: 456_000 }, 'TIMESTAMP(6)'), '2024-01-31T13:45:07.123456');
  assert.equal(cell({ epochMillis: Date.UTC(2024, 0, 31), nanoOfMillis: 0 }, 'TIMESTAMP_LTZ(3)'), '2024-01-31T00:00');
});
