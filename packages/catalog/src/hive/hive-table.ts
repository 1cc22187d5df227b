/**
 * What a Paimon table looks like in the Hive Metastore, as Paimon's HiveCatalog registers it: pure
 * functions from a table's schema to the metastore's Table, Partition and statistics values.
 *
 * - The Hive table: `table_type = PAIMON`, `storage_handler = org.apache.paimon.hive.PaimonStorageHandler`,
 *   Paimon's input/output formats and SerDe (so Hive, Spark and Trino read it through Paimon's
 *   connector), a MANAGED_TABLE whose storage location is the table's directory, the columns with
 *   their Hive types, and the table options prefixed `hive.` copied (prefix removed) into its
 *   parameters, with `partition.expiration-time` and `data-file.path-directory`.
 * - With `metastore.partitioned-table = true` the partition keys become the Hive table's partition
 *   columns (and leave its columns), and each partition Tributary writes is registered with the
 *   storage descriptor of the table and its own directory `<table>/<k>=<v>/…`.
 * - Statistics (numFiles, totalSize, numRows, lastUpdateTime, transient_lastDdlTime) go into the
 *   parameters of each partition, or of the table when the metastore does not partition it.
 */
import { escapePathName, type DataType, type TableDescription } from '@tributary/table';
import types from './generated/hive_metastore_subset_types.js';
import { struct } from './struct.ts';

export const PAIMON_INPUT_FORMAT = 'org.apache.paimon.hive.mapred.PaimonInputFormat';
export const PAIMON_OUTPUT_FORMAT = 'org.apache.paimon.hive.mapred.PaimonOutputFormat';
export const PAIMON_SERDE = 'org.apache.paimon.hive.PaimonSerDe';
export const PAIMON_STORAGE_HANDLER = 'org.apache.paimon.hive.PaimonStorageHandler';
/** Hive's column comment column (COLUMNS_V2.COMMENT) holds at most 256 characters. */
const MAX_COMMENT = 256;
const HIVE_MAX_CHAR = 255;
const HIVE_MAX_VARCHAR = 65535;

/** The schema facts the Hive table is built from (a table's `describe()` has them). */
export type PaimonSchema = Pick<TableDescription, 'columns' | 'partitionKeys' | 'options'> & { readonly comment?: string };

/** The Hive type name of a Paimon type (Paimon's HiveTypeUtils). */
export function hiveTypeName(type: DataType): string {
  switch (type.root) {
    case 'BOOLEAN':
      return 'boolean';
    case 'TINYINT':
      return 'tinyint';
    case 'SMALLINT':
      return 'smallint';
    case 'INT':
      return 'int';
    case 'BIGINT':
      return 'bigint';
    case 'FLOAT':
      return 'float';
    case 'DOUBLE':
      return 'double';
    case 'DECIMAL':
      return `decimal(${type.precision},${type.scale})`;
    case 'CHAR':
      return type.length > HIVE_MAX_CHAR ? 'string' : `char(${type.length})`;
    case 'VARCHAR':
      return type.length > HIVE_MAX_VARCHAR ? 'string' : `varchar(${type.length})`;
    case 'BINARY':
    case 'VARBINARY':
      return 'binary';
    case 'DATE':
      return 'date';
    case 'TIME':
      return 'string';
    case 'TIMESTAMP':
      return 'timestamp';
    case 'TIMESTAMP_LTZ':
      return 'timestamp with local time zone';
  }
}

/** Is the table partitioned in the metastore (`metastore.partitioned-table = true` and partition keys)? */
export function metastorePartitioned(schema: Pick<PaimonSchema, 'partitionKeys' | 'options'>): boolean {
  return schema.partitionKeys.length > 0 && schema.options['metastore.partitioned-table'] === 'true';
}

function fieldSchema(column: PaimonSchema['columns'][number]): InstanceType<typeof types.FieldSchema> {
  return struct(types.FieldSchema, { name: column.name, type: hiveTypeName(column.type), ...(column.description === undefined ? {} : { comment: column.description.slice(0, MAX_COMMENT) }) });
}

/** The table parameters Paimon copies from the options (syncAllProperties off, its default). */
function tableParameters(schema: PaimonSchema): Record<string, string> {
  const parameters: Record<string, string> = {};
  for (const [key, value] of Object.entries(schema.options)) {
    if (key.startsWith('hive.') && key.length > 'hive.'.length) parameters[key.slice('hive.'.length)] = value;
  }
  for (const key of ['partition.expiration-time', 'data-file.path-directory']) {
    const value = schema.options[key];
    if (value !== undefined) parameters[key] = value;
  }
  parameters.table_type = 'PAIMON';
  parameters.storage_handler = PAIMON_STORAGE_HANDLER;
  if (schema.comment !== undefined) parameters.comment = schema.comment;
  return parameters;
}

export interface HmsTableInput {
  readonly database: string;
  readonly table: string;
  readonly schema: PaimonSchema;
  readonly location: string;
  readonly owner: string;
  readonly nowMillis: number;
}

/** The metastore Table for a Paimon table (HiveCatalog.createHiveTable). */
export function hmsTable(input: HmsTableInput): InstanceType<typeof types.Table> {
  const { schema } = input;
  const partitioned = metastorePartitioned(schema);
  const partitionKeys = new Set(partitioned ? schema.partitionKeys : []);
  const byName = new Map(schema.columns.map((c) => [c.name, c]));
  const seconds = Math.floor(input.nowMillis / 1000);
  return struct(types.Table, {
    tableName: input.table,
    dbName: input.database,
    owner: input.owner,
    createTime: seconds,
    lastAccessTime: seconds,
    retention: 2147483647,
    sd: struct(types.StorageDescriptor, {
      cols: schema.columns.filter((c) => !partitionKeys.has(c.name)).map(fieldSchema),
      location: input.location,
      inputFormat: PAIMON_INPUT_FORMAT,
      outputFormat: PAIMON_OUTPUT_FORMAT,
      compressed: false,
      numBuckets: -1,
      serdeInfo: struct(types.SerDeInfo, { serializationLib: PAIMON_SERDE, parameters: {} }),
      bucketCols: [],
      sortCols: [],
      parameters: {},
    }),
    partitionKeys: [...partitionKeys].map((k) => fieldSchema(byName.get(k)!)),
    parameters: tableParameters(schema),
    tableType: 'MANAGED_TABLE',
  });
}

/** A Paimon table in the metastore: Paimon's input and output formats (HiveCatalog.isPaimonTable). */
export function isPaimonTable(table: InstanceType<typeof types.Table>): boolean {
  return table.sd?.inputFormat === PAIMON_INPUT_FORMAT && table.sd.outputFormat === PAIMON_OUTPUT_FORMAT;
}

/** A partition spec's values in the order of the partition keys. */
export function partitionValues(keys: readonly string[], spec: Readonly<Record<string, string>>): string[] {
  return keys.map((k) => {
    const v = spec[k];
    if (v === undefined) throw new Error(`the partition spec has no value for the partition key '${k}'`);
    return v;
  });
}

/** Hive's partition name, which is also its directory below the table: `k1=v1/k2=v2`, escaped. */
export function partitionName(keys: readonly string[], values: readonly string[]): string {
  return keys.map((k, i) => `${escapePathName(k)}=${escapePathName(values[i]!)}`).join('/');
}

/** The metastore Partitions of specs, each with the table's storage descriptor at its own directory (HiveCatalog.createPartitions). */
export function hmsPartitions(
  table: InstanceType<typeof types.Table>,
  specs: readonly Readonly<Record<string, string>>[],
  nowMillis: number,
): InstanceType<typeof types.Partition>[] {
  const keys = table.partitionKeys.map((k) => k.name);
  const seconds = Math.floor(nowMillis / 1000);
  const base = table.sd.location.replace(/\/+$/, '');
  const dataDir = table.parameters['data-file.path-directory'];
  const root = dataDir === undefined ? base : `${base}/${dataDir}`;
  return specs.map((spec) => {
    const values = partitionValues(keys, spec);
    return struct(types.Partition, {
      values,
      dbName: table.dbName,
      tableName: table.tableName,
      createTime: seconds,
      lastAccessTime: seconds,
      sd: struct(types.StorageDescriptor, { ...table.sd, location: `${root}/${partitionName(keys, values)}` }),
      parameters: {},
    });
  });
}

export interface FileStats {
  readonly files: number;
  readonly bytes: number;
  readonly rows: number;
}

/** The statistics parameters of a partition or table (HiveCatalog.alterPartitions). */
export function statisticsParameters(stats: FileStats, updateMillis: number): Record<string, string> {
  const seconds = String(Math.floor(updateMillis / 1000));
  return {
    numFiles: String(stats.files),
    totalSize: String(stats.bytes),
    numRows: String(stats.rows),
    lastUpdateTime: seconds,
    transient_lastDdlTime: seconds,
  };
}

/** Sums the live data files per partition directory (`k=v/…/`, `''` unpartitioned) into stats keyed by partition name. */
export function statsByPartition(files: readonly { readonly partition: string; readonly rows: number; readonly size: number }[]): Map<string, FileStats> {
  const out = new Map<string, FileStats>();
  for (const f of files) {
    const name = f.partition.replace(/\/+$/, '');
    const s = out.get(name) ?? { files: 0, bytes: 0, rows: 0 };
    out.set(name, { files: s.files + 1, bytes: s.bytes + f.size, rows: s.rows + f.rows });
  }
  return out;
}
