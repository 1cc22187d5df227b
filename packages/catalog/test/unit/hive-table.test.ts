// The Hive table, partitions and statistics built from a Paimon schema (as Paimon's HiveCatalog
// builds them), and the metastore address.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { DataType } from '@tributary/table';
import {
  PAIMON_INPUT_FORMAT,
  PAIMON_OUTPUT_FORMAT,
  PAIMON_SERDE,
  PAIMON_STORAGE_HANDLER,
  hiveTypeName,
  hmsPartitions,
  hmsTable,
  isPaimonTable,
  metastorePartitioned,
  partitionName,
  statisticsParameters,
  statsByPartition,
  type PaimonSchema,
} from '../../src/hive/hive-table.ts';
import { parseMetastoreUri } from '../../src/hive/metastore-client.ts';

const t = (root: string, extra: Record<string, number> = {}): DataType => ({ root, nullable: true, ...extra }) as DataType;

test('Paimon types map to the Hive type names of Paimon’s HiveTypeUtils', () => {
  const cases: [DataType, string][] = [
    [t('BOOLEAN'), 'boolean'],
    [t('TINYINT'), 'tinyint'],
    [t('SMALLINT'), 'smallint'],
    [t('INT'), 'int'],
    [t('BIGINT'), 'bigint'],
    [t('FLOAT'), 'float'],
    [t('DOUBLE'), 'double'],
    [t('DECIMAL', { precision: 18, scale: 2 }), 'decimal(18,2)'],
    [t('CHAR', { length: 10 }), 'char(10)'],
    [t('CHAR', { length: 300 }), 'string'],
    [t('VARCHAR', { length: 100 }), 'varchar(100)'],
    [t('VARCHAR', { length: 2147483647 }), 'string'],
    [t('BINARY', { length: 4 }), 'binary'],
    [t('VARBINARY', { length: 2147483647 }), 'binary'],
    [t('DATE'), 'date'],
    [t('TIME', { precision: 3 }), 'string'],
    [t('TIMESTAMP', { precision: 6 }), 'timestamp'],
    [t('TIMESTAMP_LTZ', { precision: 3 }), 'timestamp with local time zone'],
  ];
  for (const [type, name] of cases) assert.equal(hiveTypeName(type), name, type.root);
});

const schema: PaimonSchema = {
  columns: [
    { name: 'id', type: t('BIGINT') },
    { name: 'dt', type: t('VARCHAR', { length: 2147483647 }) },
    { name: 'note', type: t('VARCHAR', { length: 2147483647 }), description: 'x'.repeat(300) },
  ],
  partitionKeys: ['dt'],
  options: { bucket: '4', 'metastore.partitioned-table': 'true', 'hive.owner.team': 'data', 'partition.expiration-time': '7 d', 'file.format': 'parquet' },
  comment: 'orders',
};

test('the Hive table: Paimon formats, storage handler, columns, partition columns, copied options', () => {
  const table = hmsTable({ database: 'db', table: 't', schema, location: '/wh/db.db/t', owner: 'me', nowMillis: 1_700_000_000_500 });
  assert.equal(table.tableType, 'MANAGED_TABLE');
  assert.equal(table.createTime, 1_700_000_000);
  assert.equal(table.sd.inputFormat, PAIMON_INPUT_FORMAT);
  assert.equal(table.sd.outputFormat, PAIMON_OUTPUT_FORMAT);
  assert.equal(table.sd.serdeInfo.serializationLib, PAIMON_SERDE);
  assert.equal(table.sd.location, '/wh/db.db/t');
  assert.deepEqual(table.parameters, {
    table_type: 'PAIMON',
    storage_handler: PAIMON_STORAGE_HANDLER,
    'owner.team': 'data',
    'partition.expiration-time': '7 d',
    comment: 'orders',
  });
  assert.deepEqual(table.sd.cols.map((c) => c.name), ['id', 'note']);
  assert.equal(table.sd.cols[1]!.comment.length, 256);
  assert.deepEqual(table.partitionKeys.map((c) => [c.name, c.type]), [['dt', 'string']]);
  assert.ok(isPaimonTable(table));

  // Without metastore.partitioned-table the partition key stays a column and the table is unpartitioned.
  const flat = hmsTable({ database: 'db', table: 't', schema: { ...schema, options: { bucket: '4' } }, location: '/wh/db.db/t', owner: 'me', nowMillis: 0 });
  assert.deepEqual(flat.partitionKeys, []);
  assert.deepEqual(flat.sd.cols.map((c) => c.name), ['id', 'dt', 'note']);
  assert.equal(metastorePartitioned({ partitionKeys: [], options: { 'metastore.partitioned-table': 'true' } }), false);
});

test('partitions: in key order, the table’s storage descriptor at the escaped partition directory', () => {
  const table = hmsTable({
    database: 'db',
    table: 't',
    schema: { ...schema, columns: [...schema.columns, { name: 'h', type: t('INT') }], partitionKeys: ['dt', 'h'] },
    location: 'file:/wh/db.db/t/',
    owner: 'me',
    nowMillis: 0,
  });
  const [p] = hmsPartitions(table, [{ h: '7', dt: '2024/01:01' }], 2_000);
  assert.deepEqual(p!.values, ['2024/01:01', '7']);
  assert.equal(p!.sd.location, 'file:/wh/db.db/t/dt=2024%2F01%3A01/h=7');
  assert.equal(p!.sd.inputFormat, PAIMON_INPUT_FORMAT);
  assert.equal(p!.createTime, 2);
  assert.equal(partitionName(['dt', 'h'], ['2024/01:01', '7']), 'dt=2024%2F01%3A01/h=7');
  assert.throws(() => hmsPartitions(table, [{ dt: 'x' }], 0), /no value for the partition key 'h'/);
  // data-file.path-directory moves the partitions below it.
  const nested = hmsTable({ database: 'db', table: 't', schema: { ...schema, options: { ...schema.options, 'data-file.path-directory': 'data' } }, location: '/wh/t', owner: 'me', nowMillis: 0 });
  assert.equal(hmsPartitions(nested, [{ dt: 'a' }], 0)[0]!.sd.location, '/wh/t/data/dt=a');
});

test('statistics: summed per partition directory, as Hive’s parameters', () => {
  const stats = statsByPartition([
    { partition: 'dt=a/', rows: 2, size: 100 },
    { partition: 'dt=a/', rows: 3, size: 50 },
    { partition: 'dt=b/', rows: 1, size: 10 },
  ]);
  assert.deepEqual([...stats.entries()], [['dt=a', { files: 2, bytes: 150, rows: 5 }], ['dt=b', { files: 1, bytes: 10, rows: 1 }]]);
  assert.deepEqual(statisticsParameters({ files: 2, bytes: 150, rows: 5 }, 1_700_000_000_999), {
    numFiles: '2',
    totalSize: '150',
    numRows: '5',
    lastUpdateTime: '1700000000',
    transient_lastDdlTime: '1700000000',
  });
});

test('the metastore uri is thrift://host:port', () => {
  assert.deepEqual(parseMetastoreUri('thrift://hms.example:9083'), { host: 'hms.example', port: 9083 });
  assert.deepEqual(parseMetastoreUri('thrift://[::1]:9083'), { host: '::1', port: 9083 });
  for (const bad of ['http://h:9083', 'thrift://h', 'thrift://h:0', 'thrift://h:70000', 'thrift://a:1,thrift://b:2']) {
    assert.throws(() => parseMetastoreUri(bad), { code: 'CATALOG_CONFIG_INVALID' }, bad);
  }
});
