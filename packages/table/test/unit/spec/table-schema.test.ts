import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  bucketCount,
  bucketKeys,
  decodeTableSchema,
  encodeTableSchema,
  partitionFields,
  trimmedPrimaryKeys,
  validateTableSchema,
  type TableSchema,
} from '../../../src/spec/table-schema.ts';
import { parseDataType } from '../../../src/spec/data-type-json.ts';
import { codeOf } from '../../support/code-of.ts';

// The example in Paimon's docs (docs/concepts/spec/schema.md), as Java's JsonSerdeUtil.toJson prints it.
const DOCS_EXAMPLE = `{
  "version" : 3,
  "id" : 0,
  "fields" : [ {
    "id" : 0,
    "name" : "order_id",
    "type" : "BIGINT NOT NULL"
  }, {
    "id" : 1,
    "name" : "order_name",
    "type" : "STRING"
  }, {
    "id" : 2,
    "name" : "order_user_id",
    "type" : "BIGINT"
  }, {
    "id" : 3,
    "name" : "order_shop_id",
    "type" : "BIGINT"
  } ],
  "highestFieldId" : 3,
  "partitionKeys" : [ ],
  "primaryKeys" : [ "order_id" ],
  "options" : {
    "bucket" : "5"
  },
  "comment" : "",
  "timeMillis" : 1720496663041
}`;

const orders: TableSchema = {
  version: 3,
  id: 0,
  fields: [
    { id: 0, name: 'id', type: parseDataType('BIGINT NOT NULL') },
    { id: 1, name: 'store_id', type: parseDataType('INT') },
    { id: 2, name: 'amount', type: parseDataType('DECIMAL(18, 2)'), description: 'in "EUR"\n' },
    { id: 3, name: 'status', type: parseDataType('STRING') },
    { id: 4, name: 'created_at', type: parseDataType('TIMESTAMP(3)') },
    { id: 5, name: 'dt', type: parseDataType('DATE NOT NULL') },
  ],
  highestFieldId: 5,
  partitionKeys: ['dt'],
  primaryKeys: ['id', 'dt'],
  options: { bucket: '16', 'file.format': 'parquet' },
  timeMillis: 1724300000000,
};

describe('schema JSON (SchemaSerializer)', () => {
  test('decodes the docs example and re-encodes it byte for byte', () => {
    const s = decodeTableSchema(DOCS_EXAMPLE);
    assert.equal(s.version, 3);
    assert.deepEqual(s.fields[0], { id: 0, name: 'order_id', type: { root: 'BIGINT', nullable: false } });
    assert.deepEqual(s.primaryKeys, ['order_id']);
    assert.deepEqual(s.options, { bucket: '5' });
    assert.equal(s.comment, '');
    assert.equal(s.timeMillis, 1720496663041);
    assert.equal(encodeTableSchema(s), DOCS_EXAMPLE);
  });

  test('round trip of a partitioned primary-key table with descriptions', () => {
    const text = encodeTableSchema(orders);
    assert.ok(text.includes('"description" : "in \\"EUR\\"\\n"'));
    assert.ok(text.includes('"partitionKeys" : [ "dt" ],\n  "primaryKeys" : [ "id", "dt" ],'));
    assert.deepEqual(decodeTableSchema(text), orders);
    assert.equal(JSON.parse(text).options.bucket, '16');
  });

  test('empty options print as { }', () => {
    assert.ok(encodeTableSchema({ ...orders, options: {} }).includes('"options" : { },'));
  });

  test('unknown keys are ignored; defaultValue is kept', () => {
    const text = DOCS_EXAMPLE.replace('"id" : 0,\n  "fields"', '"id" : 0,\n  "future" : {"x": [1]},\n  "fields"').replace(
      '"type" : "STRING"\n',
      '"type" : "STRING",\n    "defaultValue" : "\'n/a\'"\n',
    );
    const s = decodeTableSchema(text);
    assert.equal(s.fields[1]?.defaultValue, "'n/a'");
    assert.ok(encodeTableSchema(s).includes('"defaultValue" : "\'n/a\'"'));
  });

  test('a missing version means 1, with legacy bucket and file.format defaults', () => {
    const s = decodeTableSchema(DOCS_EXAMPLE.replace('"version" : 3,\n', '').replace('"bucket" : "5"', '"x" : "y"'));
    assert.equal(s.version, 1);
    assert.deepEqual(s.options, { x: 'y', bucket: '1', 'file.format': 'orc' });
    const v2 = decodeTableSchema(DOCS_EXAMPLE.replace('"version" : 3', '"version" : 2'));
    assert.deepEqual(v2.options, { bucket: '5', 'file.format': 'orc' });
  });

  test('a missing timeMillis reads as 0 (as Java)', () => {
    assert.equal(decodeTableSchema(DOCS_EXAMPLE.replace(',\n  "timeMillis" : 1720496663041', '')).timeMillis, 0);
  });

  for (const key of ['id', 'fields', 'highestFieldId', 'partitionKeys', 'primaryKeys', 'options']) {
    test(`missing '${key}' is SCHEMA_INVALID`, () => {
      const obj = JSON.parse(DOCS_EXAMPLE) as Record<string, unknown>;
      delete obj[key];
      assert.equal(codeOf(() => decodeTableSchema(JSON.stringify(obj))), 'SCHEMA_INVALID');
    });
  }

  test('malformed files are typed errors', () => {
    assert.equal(codeOf(() => decodeTableSchema('{"id": 0,')), 'SCHEMA_INVALID');
    assert.equal(codeOf(() => decodeTableSchema('[]')), 'SCHEMA_INVALID');
    assert.equal(codeOf(() => decodeTableSchema(DOCS_EXAMPLE.replace('"id" : 0,\n  "fields"', '"id" : "0",\n  "fields"'))), 'SCHEMA_INVALID');
    assert.equal(codeOf(() => decodeTableSchema(DOCS_EXAMPLE.replace('"name" : "order_name",', ''))), 'SCHEMA_INVALID');
    assert.equal(codeOf(() => decodeTableSchema(DOCS_EXAMPLE.replace('"STRING"', '{"type":"ARRAY","element":"INT"}'))), 'UNSUPPORTED_TYPE');
    assert.equal(codeOf(() => decodeTableSchema(DOCS_EXAMPLE.replace('"STRING"', '"STRANG"'))), 'DATA_TYPE_INVALID');
  });
});

describe('derived facts (TableSchema)', () => {
  test('trimmed primary keys, bucket keys, bucket count, partition fields', () => {
    assert.deepEqual(trimmedPrimaryKeys(orders), ['id']);
    assert.deepEqual(bucketKeys(orders), ['id']);
    assert.equal(bucketCount(orders), 16);
    assert.deepEqual(partitionFields(orders).map((f) => f.id), [5]);
    assert.equal(bucketCount({ ...orders, options: {} }), -1);
  });
  test('bucket-key option overrides the primary key', () => {
    const append = { ...orders, primaryKeys: [], options: { bucket: '4', 'bucket-key': 'store_id,status' } };
    assert.deepEqual(bucketKeys(append), ['store_id', 'status']);
  });
  test('bucket keys must be fields, outside the partition, inside the primary key', () => {
    assert.equal(codeOf(() => bucketKeys({ ...orders, options: { 'bucket-key': 'nope' } })), 'SCHEMA_INVALID');
    assert.equal(codeOf(() => bucketKeys({ ...orders, options: { 'bucket-key': 'dt' } })), 'SCHEMA_INVALID');
    assert.equal(codeOf(() => bucketKeys({ ...orders, options: { 'bucket-key': 'status' } })), 'SCHEMA_INVALID');
  });
  test('a primary key equal to the partition keys is refused', () => {
    assert.equal(codeOf(() => trimmedPrimaryKeys({ ...orders, primaryKeys: ['dt'] })), 'SCHEMA_INVALID');
  });
  test('a bucket option that is not an integer is refused', () => {
    assert.equal(codeOf(() => bucketCount({ ...orders, options: { bucket: 'four' } })), 'SCHEMA_INVALID');
  });
});

describe('validateTableSchema', () => {
  const append: TableSchema = { ...orders, primaryKeys: [], options: { bucket: '-1' } };
  test('accepts what Tributary writes', () => {
    validateTableSchema(orders);
    validateTableSchema(append);
    validateTableSchema({ ...append, options: { bucket: '8', 'bucket-key': 'id' } });
    validateTableSchema({ ...orders, options: { ...orders.options, 'changelog-producer': 'input', 'merge-engine': 'DEDUPLICATE', 'sequence.field': 'created_at' } });
    validateTableSchema({ ...orders, options: { ...orders.options, 'deletion-vectors.enabled': 'false' } });
  });
  const refused: [string, TableSchema][] = [
    ['dynamic bucket on a PK table', { ...orders, options: { bucket: '-1' } }],
    ['dynamic bucket on a PK table (bucket absent)', { ...orders, options: {} }],
    ['postpone bucket', { ...orders, options: { bucket: '-2' } }],
    ['postpone bucket, append', { ...append, options: { bucket: '-2' } }],
    ['deletion vectors', { ...orders, options: { bucket: '2', 'deletion-vectors.enabled': 'true' } }],
    ['first-row', { ...orders, options: { bucket: '2', 'merge-engine': 'first-row' } }],
    ['partial-update', { ...orders, options: { bucket: '2', 'merge-engine': 'partial-update' } }],
    ['lookup changelog', { ...orders, options: { bucket: '2', 'changelog-producer': 'lookup' } }],
    ['full-compaction changelog', { ...orders, options: { bucket: '2', 'changelog-producer': 'full-compaction' } }],
    ['orc', { ...orders, options: { bucket: '2', 'file.format': 'orc' } }],
    ['avro', { ...append, options: { 'file.format': 'avro' } }],
    ['mod bucket function', { ...orders, options: { bucket: '2', 'bucket-function.type': 'mod' } }],
    ['row tracking', { ...append, options: { 'row-tracking.enabled': 'true' } }],
    ['data evolution', { ...append, options: { 'data-evolution.enabled': 'TRUE' } }],
    ['external paths', { ...append, options: { 'data-file.external-paths': 's3://x/y' } }],
    ['cross-partition update', { ...orders, primaryKeys: ['id'] }],
  ];
  for (const [name, s] of refused) {
    test(`refuses ${name} with TABLE_UNSUPPORTED`, () => assert.equal(codeOf(() => validateTableSchema(s)), 'TABLE_UNSUPPORTED'));
  }
  const invalid: [string, TableSchema][] = [
    ['bucket = 0', { ...append, options: { bucket: '0' } }],
    ['bucketed append table without bucket-key', { ...append, options: { bucket: '4' } }],
    ['bucket-key with bucket = -1', { ...append, options: { bucket: '-1', 'bucket-key': 'id' } }],
    ['duplicate field name', { ...append, fields: [...append.fields, { id: 5, name: 'id', type: parseDataType('INT') }] }],
    ['field id above highestFieldId', { ...append, highestFieldId: 4 }],
    ['unknown partition key', { ...append, partitionKeys: ['nope'] }],
    ['nullable primary key', { ...orders, primaryKeys: ['id', 'dt', 'status'] }],
    ['unknown sequence field', { ...orders, options: { bucket: '2', 'sequence.field': 'nope' } }],
  ];
  for (const [name, s] of invalid) {
    test(`refuses ${name} with SCHEMA_INVALID`, () => assert.equal(codeOf(() => validateTableSchema(s)), 'SCHEMA_INVALID'));
  }
});
