import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { formatDataType, parseDataType } from '../../../src/spec/data-type-json.ts';
import { MAX_LENGTH, type DataType } from '../../../src/spec/types.ts';
import { codeOf } from '../../support/code-of.ts';

describe('parseDataType / formatDataType (DataTypeJsonParser, asSQLString)', () => {
  // [input, expected type, Java's asSQLString]
  const cases: [string, DataType, string][] = [
    ['BOOLEAN', { root: 'BOOLEAN', nullable: true }, 'BOOLEAN'],
    ['TINYINT NOT NULL', { root: 'TINYINT', nullable: false }, 'TINYINT NOT NULL'],
    ['SMALLINT', { root: 'SMALLINT', nullable: true }, 'SMALLINT'],
    ['INT', { root: 'INT', nullable: true }, 'INT'],
    ['INTEGER NOT NULL', { root: 'INT', nullable: false }, 'INT NOT NULL'],
    ['BIGINT NOT NULL', { root: 'BIGINT', nullable: false }, 'BIGINT NOT NULL'],
    ['FLOAT', { root: 'FLOAT', nullable: true }, 'FLOAT'],
    ['DOUBLE', { root: 'DOUBLE', nullable: true }, 'DOUBLE'],
    ['DOUBLE PRECISION', { root: 'DOUBLE', nullable: true }, 'DOUBLE'],
    ['DECIMAL(18, 2) NOT NULL', { root: 'DECIMAL', precision: 18, scale: 2, nullable: false }, 'DECIMAL(18, 2) NOT NULL'],
    ['DECIMAL(38,10)', { root: 'DECIMAL', precision: 38, scale: 10, nullable: true }, 'DECIMAL(38, 10)'],
    ['DECIMAL', { root: 'DECIMAL', precision: 10, scale: 0, nullable: true }, 'DECIMAL(10, 0)'],
    ['NUMERIC(5)', { root: 'DECIMAL', precision: 5, scale: 0, nullable: true }, 'DECIMAL(5, 0)'],
    ['DEC(7, 3)', { root: 'DECIMAL', precision: 7, scale: 3, nullable: true }, 'DECIMAL(7, 3)'],
    ['STRING', { root: 'VARCHAR', length: MAX_LENGTH, nullable: true }, 'STRING'],
    ['VARCHAR(2147483647)', { root: 'VARCHAR', length: MAX_LENGTH, nullable: true }, 'STRING'],
    ['VARCHAR(10)', { root: 'VARCHAR', length: 10, nullable: true }, 'VARCHAR(10)'],
    ['VARCHAR', { root: 'VARCHAR', length: 1, nullable: true }, 'VARCHAR(1)'],
    ['CHAR(3) NOT NULL', { root: 'CHAR', length: 3, nullable: false }, 'CHAR(3) NOT NULL'],
    ['BYTES', { root: 'VARBINARY', length: MAX_LENGTH, nullable: true }, 'BYTES'],
    ['VARBINARY(16)', { root: 'VARBINARY', length: 16, nullable: true }, 'VARBINARY(16)'],
    ['BINARY(4)', { root: 'BINARY', length: 4, nullable: true }, 'BINARY(4)'],
    ['DATE', { root: 'DATE', nullable: true }, 'DATE'],
    ['TIME', { root: 'TIME', precision: 0, nullable: true }, 'TIME(0)'],
    ['TIME(0)', { root: 'TIME', precision: 0, nullable: true }, 'TIME(0)'],
    ['TIME(3) WITHOUT TIME ZONE', { root: 'TIME', precision: 3, nullable: true }, 'TIME(3)'],
    ['TIMESTAMP', { root: 'TIMESTAMP', precision: 6, nullable: true }, 'TIMESTAMP(6)'],
    ['TIMESTAMP(3)', { root: 'TIMESTAMP', precision: 3, nullable: true }, 'TIMESTAMP(3)'],
    ['TIMESTAMP(9) WITHOUT TIME ZONE NOT NULL', { root: 'TIMESTAMP', precision: 9, nullable: false }, 'TIMESTAMP(9) NOT NULL'],
    ['TIMESTAMP(6) WITH LOCAL TIME ZONE', { root: 'TIMESTAMP_LTZ', precision: 6, nullable: true }, 'TIMESTAMP(6) WITH LOCAL TIME ZONE'],
    ['TIMESTAMP_LTZ(6)', { root: 'TIMESTAMP_LTZ', precision: 6, nullable: true }, 'TIMESTAMP(6) WITH LOCAL TIME ZONE'],
    ['TIMESTAMP_LTZ(3) NOT NULL', { root: 'TIMESTAMP_LTZ', precision: 3, nullable: false }, 'TIMESTAMP(3) WITH LOCAL TIME ZONE NOT NULL'],
    ['timestamp_ltz', { root: 'TIMESTAMP_LTZ', precision: 6, nullable: true }, 'TIMESTAMP(6) WITH LOCAL TIME ZONE'],
    ['int null', { root: 'INT', nullable: true }, 'INT'],
  ];
  for (const [input, type, printed] of cases) {
    test(input, () => {
      assert.deepEqual(parseDataType(input), type);
      assert.equal(formatDataType(type), printed);
      assert.deepEqual(parseDataType(printed), type);
    });
  }

  test('nested and exotic types are UNSUPPORTED_TYPE', () => {
    for (const t of [
      { type: 'ARRAY', element: 'STRING' },
      { type: 'MAP NOT NULL', key: 'STRING', value: 'INT' },
      { type: 'ROW', fields: [] },
      'VARIANT', 'BLOB', 'INT ARRAY', 'ARRAY<INT>', 'MAP<STRING, INT>',
    ]) {
      assert.equal(codeOf(() => parseDataType(t)), 'UNSUPPORTED_TYPE', JSON.stringify(t));
    }
  });

  test('malformed types are DATA_TYPE_INVALID', () => {
    for (const t of [
      '', 'INTEGRAL', 'DECIMAL(39, 2)', 'DECIMAL(5, 6)', 'DECIMAL(0)', 'VARCHAR(0)', 'TIMESTAMP(10)', 'TIME(12)',
      'DECIMAL(10, 2', 'INT NOT', 'INT INT', 'VARCHAR(99999999999)', 'TIMESTAMP WITH TIME ZONE', 42, null, ['INT'],
    ]) {
      assert.equal(codeOf(() => parseDataType(t)), 'DATA_TYPE_INVALID', JSON.stringify(t));
    }
  });
});
