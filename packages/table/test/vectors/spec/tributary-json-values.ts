/** The schema and snapshot Tributary writes for the Java re-read vectors (write-tributary-json.ts). */
import { parseDataType } from '../../../src/spec/data-type-json.ts';
import type { Snapshot } from '../../../src/spec/snapshot.ts';
import type { TableSchema } from '../../../src/spec/table-schema.ts';

const types = [
  'BIGINT NOT NULL', 'DATE NOT NULL', 'BOOLEAN', 'TINYINT', 'SMALLINT', 'INT', 'FLOAT', 'DOUBLE', 'DECIMAL(38, 10)',
  'DECIMAL(18, 2)', 'CHAR(3)', 'VARCHAR(10)', 'STRING', 'BINARY(4)', 'VARBINARY(16)', 'BYTES', 'TIME(3)', 'TIMESTAMP(9)',
  'TIMESTAMP(3)', 'TIMESTAMP(6) WITH LOCAL TIME ZONE',
];

export const TRIBUTARY_SCHEMA: TableSchema = {
  version: 3,
  id: 0,
  fields: types.map((t, id) => ({
    id,
    name: `c${id}_ü`,
    type: parseDataType(t),
    ...(id === 12 ? { description: 'tab\there, "quoted", back\\slash, \u0001 control, 😀' } : {}),
  })),
  highestFieldId: 21,
  partitionKeys: ['c1_ü'],
  primaryKeys: ['c0_ü', 'c1_ü'],
  // In java.util.HashMap order, so that Java's re-print (HashMap order) is byte-identical.
  options: { bucket: '16', 'partition.legacy-name': 'true', 'sequence.field': 'c17_ü', 'file.format': 'parquet' },
  comment: 'written by Tributary',
  timeMillis: 1724300000000,
};

export const TRIBUTARY_SNAPSHOT: Snapshot = {
  version: 3,
  uuid: null, // 2.0+ field: Paimon 1.4.2, which re-reads this file, would drop it
  id: 7n,
  schemaId: 0n,
  baseManifestList: 'manifest-list-4f0e0000-0000-4000-8000-000000000000-0',
  baseManifestListSize: 1207n,
  deltaManifestList: 'manifest-list-4f0e0000-0000-4000-8000-000000000000-1',
  deltaManifestListSize: 1099n,
  changelogManifestList: 'manifest-list-4f0e0000-0000-4000-8000-000000000000-2',
  changelogManifestListSize: 999n,
  indexManifest: null,
  commitUser: 'tributary-sync-01',
  writerVersion: null,
  commitIdentifier: 9223372036854775807n,
  commitKind: 'OVERWRITE',
  timeMillis: 1724300000000n,
  totalRecordCount: 9007199254740993n,
  deltaRecordCount: -42n,
  changelogRecordCount: 12n,
  watermark: -9223372036854775808n,
  statistics: null,
  properties: new Map([['tributary.sync-id', 'sync-01']]),
  nextRowId: 0n,
  operation: null,
};
