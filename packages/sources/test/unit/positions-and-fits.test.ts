/** Plan-time type fits, incremental bounds and their SQL, source identities, binlog ordering. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseDataTypeString } from '@tributary/table';
import { familyIncompatibility, typeIncompatibility } from '../../src/values/fits.ts';
import { laterWatermark, watermarkKind } from '../../src/mysql/incremental.ts';
import { binlogOrder } from '../../src/mysql/position.ts';
import { shardSelect } from '../../src/mysql/sql.ts';
import { SyncSourceSpec, sourceIdentity } from '../../src/registry.ts';

test('a stated type fits a target that holds every value of it', () => {
  const cases: [string, string, boolean][] = [
    ['BIGINT NOT NULL', 'BIGINT', true],
    ['INT', 'BIGINT', true],
    ['BIGINT', 'INT', false],
    ['INT', 'DECIMAL(10, 0)', true],
    ['INT', 'DECIMAL(10, 1)', false],
    ['DECIMAL(12, 2)', 'DECIMAL(13, 2)', true],
    ['DECIMAL(12, 2)', 'DECIMAL(12, 3)', false],
    ['DECIMAL(12, 2)', 'DECIMAL(20, 3)', true],
    ['VARCHAR(16)', 'STRING', true],
    ['VARCHAR(16)', 'VARCHAR(8)', false],
    ['TIMESTAMP(3)', 'TIMESTAMP(6)', true],
    ['TIMESTAMP(3)', 'TIMESTAMP(0)', false],
    ['DATE', 'DATE', true],
    ['DATE', 'TIMESTAMP(3)', false],
    ['FLOAT', 'DOUBLE', true],
    ['DOUBLE', 'FLOAT', false],
  ];
  for (const [source, target, fits] of cases) {
    const why = typeIncompatibility(parseDataTypeString(source), parseDataTypeString(target));
    assert.equal(why === undefined, fits, `${source} → ${target}: ${why ?? 'fits'}`);
  }
});

test('a file column fits a target of its family; text fits all but bytes', () => {
  assert.equal(familyIncompatibility('text', 'csv field', parseDataTypeString('INT')), undefined);
  assert.equal(familyIncompatibility('number', 'json number', parseDataTypeString('DECIMAL(5, 2)')), undefined);
  // A TIME takes milliseconds of the day as a number (an NDJSON number), as the converter does; a DATE or TIMESTAMP does not.
  assert.equal(familyIncompatibility('number', 'json number', parseDataTypeString('TIME(3)')), undefined);
  assert.match(familyIncompatibility('number', 'json number', parseDataTypeString('DATE')) ?? '', /date/);
  assert.match(familyIncompatibility('number', 'json number', parseDataTypeString('TIMESTAMP(3)')) ?? '', /timestamp/);
  assert.match(familyIncompatibility('boolean', 'json boolean', parseDataTypeString('INT')) ?? '', /boolean.*INT.*number/);
  assert.match(familyIncompatibility('text', 'csv field', parseDataTypeString('BYTES')) ?? '', /bytes/);
  assert.match(familyIncompatibility('timestamp', 'INT64 TIMESTAMP', parseDataTypeString('DATE')) ?? '', /date/);
});

test('a DATE file column fits a TIMESTAMP or TIMESTAMP_LTZ (its midnight UTC), as the reader loads it', () => {
  assert.equal(familyIncompatibility('date', 'INT32 DATE', parseDataTypeString('TIMESTAMP(3)')), undefined);
  assert.equal(familyIncompatibility('date', 'INT32 DATE', parseDataTypeString('TIMESTAMP_LTZ(6)')), undefined);
  assert.match(familyIncompatibility('date', 'INT32 DATE', parseDataTypeString('TIME')) ?? '', /time/);
});

test('incremental bounds: integers compare as numbers, temporal text in order; the SQL reads after < column <= upTo', () => {
  assert.equal(laterWatermark('number', '9', '10'), '10');
  assert.equal(laterWatermark('number', '-5', null), '-5');
  assert.equal(laterWatermark('string', '2025-01-01 00:00:09.000', '2025-01-01 00:00:10.000'), '2025-01-01 00:00:10.000');
  assert.equal(watermarkKind({ name: 'c', dataType: 'varchar', columnType: 'varchar(8)', numericPrecision: null, numericScale: null, characterMaximumLength: 8, datetimePrecision: null }), undefined);
  const shard = { database: 'd', table: 't', key: [{ name: 'id', kind: 'number' as const }] };
  const read = shardSelect({ ...shard, watermark: { column: 'updated_at', kind: 'string', after: '2025-01-01', upTo: '2025-02-01' } }, ['id', 'updated_at']);
  assert.equal(read.sql, 'SELECT `id`, `updated_at` FROM `d`.`t` WHERE (`updated_at` > ?) AND (`updated_at` <= ?) ORDER BY `id`');
  assert.deepEqual(read.params, ['2025-01-01', '2025-02-01']);
  const first = shardSelect({ ...shard, watermark: { column: 'seq', kind: 'number', upTo: '42' } }, ['id']);
  assert.equal(first.sql, 'SELECT `id` FROM `d`.`t` WHERE (`seq` <= 42) ORDER BY `id`');
  const nothing = shardSelect({ ...shard, watermark: { column: 'seq', kind: 'number', after: '42' } }, ['id']);
  assert.equal(nothing.sql, 'SELECT `id` FROM `d`.`t` WHERE (`seq` > 42) AND (FALSE) ORDER BY `id`');
});

test('a source identity ignores how the source is read and any password, not what it reads', () => {
  const spec = (extra: Record<string, unknown>) => SyncSourceSpec.parse({ kind: 'mysql', connection: 'db', databases: 'shop_%', tables: ['orders'], ...extra });
  const base = sourceIdentity(spec({}));
  assert.match(base, /^[0-9a-f]{64}$/);
  assert.equal(sourceIdentity(spec({ batchRows: 5, splitRows: 100, incremental: { column: 'updated_at' } })), base);
  assert.notEqual(sourceIdentity(spec({ tables: ['orders', 'refunds'] })), base);
  assert.notEqual(sourceIdentity(spec({ connection: 'other' })), base);
  const inline = (password: string) => SyncSourceSpec.parse({ kind: 'mysql', host: 'h', user: 'u', password, databases: 'a', tables: 'b' });
  assert.equal(sourceIdentity(inline('one')), sourceIdentity(inline('two')));
  const files = (extra: Record<string, unknown>) => SyncSourceSpec.parse({ kind: 'files', format: 'csv', uris: ['s3://b/in/*'], ...extra });
  assert.equal(sourceIdentity(files({ newFilesOnly: true, filesPerShard: 8 })), sourceIdentity(files({})));
});

test('binlog positions sort by file, then offset', () => {
  const sorted = [binlogOrder('mysql-bin.000002', 4), binlogOrder('mysql-bin.000001', 999_999), binlogOrder('mysql-bin.000001', 1000)].sort();
  assert.deepEqual(sorted, [binlogOrder('mysql-bin.000001', 1000), binlogOrder('mysql-bin.000001', 999_999), binlogOrder('mysql-bin.000002', 4)]);
});
