import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isTributaryError } from '@tributary/protocol';
import { parseDataTypeString } from '@tributary/table';
import { incompatibility, keyKind, type MysqlColumn } from '../../src/mysql/types.ts';
import { checkColumns, splitRanges } from '../../src/mysql/plan.ts';
import { KeyWalk } from '../../src/key-walk.ts';

/** A COLUMNS row from a column definition, as MariaDB's information_schema reports it. */
function column(columnType: string, extra: Partial<MysqlColumn> = {}): MysqlColumn {
  const dataType = /^[a-z]+/.exec(columnType)?.[0] ?? columnType;
  const args = /\((\d+)(?:,(\d+))?\)/.exec(columnType);
  const first = args?.[1] === undefined ? null : Number(args[1]);
  const temporal = ['datetime', 'timestamp', 'time'].includes(dataType);
  const text = /char|binary/.test(dataType);
  return {
    name: 'c',
    dataType,
    columnType,
    numericPrecision: dataType === 'decimal' || dataType === 'bit' ? first : null,
    numericScale: dataType === 'decimal' ? Number(args?.[2] ?? 0) : null,
    characterMaximumLength: text ? first : null,
    datetimePrecision: temporal ? (first ?? 0) : null,
    ...extra,
  };
}

const TEXT_LENGTHS: Record<string, number> = { tinytext: 255, text: 65_535, mediumtext: 16_777_215, longtext: 4_294_967_295, blob: 65_535, longblob: 4_294_967_295 };

test('MySQL column → Paimon type: what loads without loss, what is refused', () => {
  const cases: [mysql: string, paimon: string, fits: boolean][] = [
    ['tinyint(4)', 'TINYINT', true],
    ['tinyint(3) unsigned', 'TINYINT', false],
    ['tinyint(3) unsigned', 'SMALLINT', true],
    ['tinyint(1)', 'BOOLEAN', true],
    ['smallint(6)', 'SMALLINT', true],
    ['smallint(5) unsigned', 'SMALLINT', false],
    ['smallint(5) unsigned', 'INT', true],
    ['mediumint(8) unsigned', 'INT', true],
    ['int(11)', 'INT', true],
    ['int(11)', 'SMALLINT', false],
    ['int(10) unsigned', 'INT', false],
    ['int(10) unsigned', 'BIGINT', true],
    ['bigint(20)', 'BIGINT', true],
    ['bigint(20)', 'DECIMAL(19, 0)', true],
    ['bigint(20) unsigned', 'BIGINT', false],
    ['bigint(20) unsigned', 'DECIMAL(20, 0)', true],
    ['bigint(20) unsigned', 'DECIMAL(20, 1)', false],
    ['int(11)', 'BOOLEAN', false],
    ['decimal(12,2)', 'DECIMAL(12, 2)', true],
    ['decimal(12,2)', 'DECIMAL(14, 4)', true],
    ['decimal(12,2)', 'DECIMAL(12, 3)', false],
    ['decimal(14,2)', 'DECIMAL(12, 2)', false],
    ['decimal(65,30)', 'DECIMAL(38, 10)', false],
    ['float', 'FLOAT', true],
    ['float', 'DOUBLE', true],
    ['double', 'FLOAT', false],
    ['double', 'DOUBLE', true],
    ['double', 'DECIMAL(38, 10)', false],
    ['varchar(64)', 'VARCHAR(64)', true],
    ['varchar(64)', 'VARCHAR(32)', false],
    ['varchar(64)', 'STRING', true],
    ['char(8)', 'CHAR(8)', true],
    ['varchar(8)', 'CHAR(8)', false],
    ['text', 'STRING', true],
    ['text', 'VARCHAR(1000)', false],
    ['longtext', 'STRING', true],
    ['json', 'STRING', true],
    ["enum('a','bb')", 'STRING', true],
    ['varchar(64)', 'BYTES', false],
    ['binary(16)', 'BINARY(16)', true],
    ['binary(16)', 'BINARY(20)', false],
    ['varbinary(16)', 'VARBINARY(16)', true],
    ['varbinary(16)', 'BINARY(16)', false],
    ['longblob', 'BYTES', true],
    ['blob', 'STRING', false],
    ['date', 'DATE', true],
    ['date', 'TIMESTAMP(3)', false],
    ['datetime', 'TIMESTAMP(0)', true],
    ['datetime(6)', 'TIMESTAMP(6)', true],
    ['datetime(6)', 'TIMESTAMP(3)', false],
    ['datetime(3)', 'TIMESTAMP_LTZ(3)', false], // a DATETIME has no time zone
    ['timestamp(3)', 'TIMESTAMP_LTZ(3)', true],
    ['timestamp(3)', 'TIMESTAMP(6)', true],
    ['time', 'TIME', true],
    ['time(3)', 'TIME(0)', false],
    ['bit(1)', 'BOOLEAN', true],
    ['bit(8)', 'BOOLEAN', false],
    ['bit(8)', 'BINARY(1)', false],
    ['year(4)', 'INT', true],
    ['geometry', 'BYTES', false],
  ];
  for (const [mysql, paimon, fits] of cases) {
    const c = column(mysql, TEXT_LENGTHS[mysql] === undefined ? (mysql === 'json' || mysql.startsWith('enum') ? { characterMaximumLength: mysql === 'json' ? 4_294_967_295 : 2 } : {}) : { characterMaximumLength: TEXT_LENGTHS[mysql] });
    const why = incompatibility(c, parseDataTypeString(paimon));
    assert.equal(why === undefined, fits, `${mysql} → ${paimon}: ${why ?? 'fits'}`);
    if (!fits) assert.match(why ?? '', new RegExp(`MySQL ${mysql.replace(/[()]/g, '\\$&')} cannot be loaded into`));
  }
});

test('primary-key columns: how their values travel', () => {
  assert.equal(keyKind(column('bigint(20) unsigned')), 'number');
  assert.equal(keyKind(column('decimal(10,2)')), 'number');
  assert.equal(keyKind(column('varchar(32)')), 'string');
  assert.equal(keyKind(column('datetime(6)')), 'string');
  assert.equal(keyKind(column('varbinary(16)')), 'bytes');
  assert.equal(keyKind(column('double')), undefined);
  assert.equal(keyKind(column('blob')), undefined);
});

test('checkColumns: the first misfit names the table and column; explicit columns may skip extra ones', () => {
  const t = { database: 'shop_1', table: 'orders_3' };
  const target = [
    { name: 'id', type: parseDataTypeString('BIGINT NOT NULL') },
    { name: 'amount', type: parseDataTypeString('DECIMAL(12, 2)') },
  ];
  const mysql = (...cols: [string, string][]) => new Map(cols.map(([name, type]) => [name, { ...column(type), name }]));
  assert.deepEqual(checkColumns(t, mysql(['id', 'bigint(20)'], ['amount', 'decimal(10,2)']), target), ['id', 'amount']);

  const refusals: [Map<string, MysqlColumn>, string[] | undefined, string, string][] = [
    [mysql(['id', 'bigint(20)'], ['amount', 'decimal(14,2)']), undefined, 'amount', 'MySQL decimal(14,2) cannot be loaded into DECIMAL(12, 2)'],
    [mysql(['id', 'bigint(20)']), undefined, 'amount', 'the MySQL table has no such column'],
    [mysql(['id', 'bigint(20)'], ['amount', 'decimal(10,2)'], ['note', 'text']), undefined, 'note', 'the target table has no such column'],
    [mysql(['id', 'bigint(20)'], ['amount', 'decimal(10,2)']), ['amount'], 'id', 'the target column is NOT NULL but is not read'],
    [mysql(['id', 'bigint(20)'], ['amount', 'decimal(10,2)']), ['id', 'nope'], 'nope', 'the target table has no such column'],
  ];
  for (const [columns, explicit, name, why] of refusals) {
    assert.throws(
      () => checkColumns(t, columns, target, explicit),
      (error: unknown) => {
        assert.ok(isTributaryError(error));
        assert.equal(error.code, 'MYSQL_SCHEMA_MISMATCH');
        assert.deepEqual(error.context, { database: 'shop_1', table: 'orders_3', column: name });
        assert.ok(error.message.startsWith(`shop_1.orders_3, column ${name}: ${why}`), error.message);
        return true;
      },
    );
  }
  assert.deepEqual(checkColumns(t, mysql(['id', 'bigint(20)'], ['amount', 'decimal(10,2)'], ['note', 'text']), target, ['id']), ['id']);
});

test('splitRanges: n cut points make n + 1 adjacent ranges, open at both ends', () => {
  assert.deepEqual(splitRanges([]), [{}]);
  assert.deepEqual(splitRanges([['100']]), [{ to: ['100'] }, { from: ['100'] }]);
  assert.deepEqual(splitRanges([['1', 'a'], ['5', 'b']]), [{ to: ['1', 'a'] }, { from: ['1', 'a'], to: ['5', 'b'] }, { from: ['5', 'b'] }]);
});

test('KeyWalk: a keyset walk that finds a cut point again fails, naming the table and never the key', () => {
  const walk = new KeyWalk('shop.orders');
  walk.push(['1', 'secret-a']);
  walk.push(['2', 'secret-b']);
  assert.deepEqual(walk.cuts, [['1', 'secret-a'], ['2', 'secret-b']]);
  assert.throws(
    () => walk.push(['1', 'secret-a']),
    (e: unknown) => e instanceof RangeError && /keyset walk over shop\.orders found a cut point it had passed/.test(e.message) && !e.message.includes('secret'),
  );
  assert.equal(walk.cuts.length, 2);
});
