/**
 * The schema file `schema/schema-N`. Mirrors org.apache.paimon.schema.TableSchema and its JSON form
 * org.apache.paimon.schema.SchemaSerializer (key order, required fields, legacy defaults), with the
 * derived facts a writer needs (trimmed primary keys, bucket keys, bucket count).
 *
 * `validateTableSchema` is where Tributary refuses, with a typed error, every table it would not
 * write correctly (see the list on the function): a table Java can read but we would corrupt is
 * worse than a clear "not supported".
 */
import { errorFrom } from '@tributary/errors';
import { tableErrors } from '../errors.ts';
import { formatDataType, parseDataType } from './data-type-json.ts';
import { JsonObjectReader, parseJsonExact, toJacksonPrettyJson, type JsonNode, type JsonValue } from './json-serde.ts';
import type { DataField } from './types.ts';
import { checkFileOptions } from './file-options.ts';

/** TableSchema.CURRENT_VERSION; always written. */
export const SCHEMA_VERSION = 3;
/** TableSchema.PAIMON_07_VERSION / PAIMON_08_VERSION: legacy defaults apply up to these. */
const PAIMON_07_VERSION = 1;
const PAIMON_08_VERSION = 2;

export interface TableSchema {
  readonly version: number;
  /** N of `schema/schema-N`. */
  readonly id: number;
  readonly fields: readonly DataField[];
  /** The largest field id ever used; never decreases (dropped columns keep their ids). */
  readonly highestFieldId: number;
  readonly partitionKeys: readonly string[];
  readonly primaryKeys: readonly string[];
  /** Table options; every value is a string, as in Java (`"bucket": "4"`). */
  readonly options: Readonly<Record<string, string>>;
  readonly comment?: string;
  readonly timeMillis: number;
}

function schemaError(message: string, context: Record<string, string | number> = {}): Error {
  return errorFrom(tableErrors, 'SCHEMA_INVALID', message, context);
}

function unsupported(message: string, option: string, value: string): Error {
  return errorFrom(tableErrors, 'TABLE_UNSUPPORTED', message, { option, value });
}

// ---------------------------------------------------------------------------------------------
// JSON
// ---------------------------------------------------------------------------------------------

/** DataField.serializeJson: id, name, type, then description and defaultValue when present. */
function fieldNode(f: DataField): JsonNode {
  const node = new Map<string, JsonNode>([
    ['id', f.id],
    ['name', f.name],
    ['type', formatDataType(f.type)],
  ]);
  if (f.description !== undefined) node.set('description', f.description);
  if (f.defaultValue !== undefined) node.set('defaultValue', f.defaultValue);
  return node;
}

/**
 * SchemaSerializer.serialize, pretty-printed as JsonSerdeUtil.toJson does. Options keep the
 * caller's order, as Java's file written at table creation does; Java re-prints a schema it has
 * read in java.util.HashMap order, which readers do not care about (options are a map).
 */
export function encodeTableSchema(s: TableSchema): string {
  const node = new Map<string, JsonNode>([
    ['version', s.version],
    ['id', s.id],
    ['fields', s.fields.map(fieldNode)],
    ['highestFieldId', s.highestFieldId],
    ['partitionKeys', [...s.partitionKeys]],
    ['primaryKeys', [...s.primaryKeys]],
    ['options', new Map(Object.entries(s.options))],
  ]);
  if (s.comment !== undefined) node.set('comment', s.comment);
  node.set('timeMillis', s.timeMillis);
  return toJacksonPrettyJson(node);
}

function decodeField(value: JsonValue, index: number): DataField {
  const r = new JsonObjectReader(value, 'SCHEMA_INVALID', `schema field #${index}`);
  const type = r.raw('type');
  if (type === undefined) throw r.fail(`schema field #${index}: required field 'type' is missing`);
  const description = r.optionalString('description');
  const defaultValue = r.optionalString('defaultValue');
  return {
    id: r.int('id'),
    name: r.string('name'),
    type: parseDataType(type),
    ...(description !== undefined ? { description } : {}),
    ...(defaultValue !== undefined ? { defaultValue } : {}),
  };
}

/**
 * SchemaSerializer.deserialize. Strict where Java dereferences without a null check (id, fields,
 * highestFieldId, partitionKeys, primaryKeys, options); unknown keys are ignored; a missing
 * `version` means 1 and brings the legacy defaults (bucket 1, file.format orc).
 */
export function decodeTableSchema(text: string): TableSchema {
  const r = new JsonObjectReader(parseJsonExact(text, 'SCHEMA_INVALID', 'schema file'), 'SCHEMA_INVALID', 'schema file');
  const version = r.has('version') ? r.int('version') : PAIMON_07_VERSION;
  const options: Record<string, string> = Object.fromEntries(r.stringMap('options'));
  if (version <= PAIMON_07_VERSION && options['bucket'] === undefined) options['bucket'] = '1';
  if (version <= PAIMON_08_VERSION && options['file.format'] === undefined) options['file.format'] = 'orc';
  const comment = r.optionalString('comment');
  const timeMillis = r.has('timeMillis') ? r.long('timeMillis') : 0n;
  return {
    version,
    id: r.int('id'),
    fields: r.array('fields').map(decodeField),
    highestFieldId: r.int('highestFieldId'),
    partitionKeys: r.stringArray('partitionKeys'),
    primaryKeys: r.stringArray('primaryKeys'),
    options,
    ...(comment !== undefined ? { comment } : {}),
    timeMillis: Number(timeMillis),
  };
}

// ---------------------------------------------------------------------------------------------
// Derived facts (TableSchema)
// ---------------------------------------------------------------------------------------------

/** TableSchema.trimmedPrimaryKeys: primary keys minus partition keys; must not end up empty. */
export function trimmedPrimaryKeys(s: TableSchema): string[] {
  if (s.primaryKeys.length === 0) return [];
  const trimmed = s.primaryKeys.filter((k) => !s.partitionKeys.includes(k));
  if (trimmed.length === 0) {
    throw schemaError(`primary key [${s.primaryKeys.join(', ')}] equals the partition keys: one record per partition`);
  }
  return trimmed;
}

/** TableSchema.bucketKeys: option `bucket-key` (comma list), else the trimmed primary keys. */
export function bucketKeys(s: TableSchema): string[] {
  const option = s.options['bucket-key'];
  if (option === undefined || option.trim() === '') return trimmedPrimaryKeys(s);
  const keys = option.split(',');
  const names = new Set(s.fields.map((f) => f.name));
  for (const k of keys) {
    if (!names.has(k)) throw schemaError(`bucket key '${k}' is not a field`, { key: k });
    if (s.partitionKeys.includes(k)) throw schemaError(`bucket key '${k}' is a partition key`, { key: k });
    if (s.primaryKeys.length > 0 && !s.primaryKeys.includes(k)) {
      throw schemaError(`bucket key '${k}' is not part of the primary key`, { key: k });
    }
  }
  return keys;
}

/** CoreOptions.bucket(): option `bucket`, default -1 (unaware for append, dynamic for PK tables). */
export function bucketCount(s: TableSchema): number {
  const option = s.options['bucket'];
  if (option === undefined) return -1;
  const n = Number(option.trim());
  if (!/^\s*-?\d+\s*$/.test(option) || !Number.isSafeInteger(n) || n < -2147483648 || n > 2147483647) {
    throw schemaError(`option bucket = '${option}' is not an integer`, { option: 'bucket' });
  }
  return n;
}

/** The fields named by `names`, in that order (e.g. partition or key fields). */
export function fieldsByName(s: TableSchema, names: readonly string[]): DataField[] {
  return names.map((name) => {
    const field = s.fields.find((f) => f.name === name);
    if (field === undefined) throw schemaError(`'${name}' is not a field of the table`, { field: name });
    return field;
  });
}

/** TableSchema.logicalPartitionType: the partition fields in partition-key order. */
export function partitionFields(s: TableSchema): DataField[] {
  return fieldsByName(s, s.partitionKeys);
}

// ---------------------------------------------------------------------------------------------
// Validation
// ---------------------------------------------------------------------------------------------

function checkStructure(s: TableSchema): void {
  const names = new Set<string>();
  const ids = new Set<number>();
  for (const f of s.fields) {
    if (names.has(f.name)) throw schemaError(`field name '${f.name}' appears twice`, { field: f.name });
    if (ids.has(f.id)) throw schemaError(`field id ${f.id} appears twice`, { id: f.id });
    if (f.id < 0 || f.id > s.highestFieldId) throw schemaError(`field id ${f.id} is outside [0, highestFieldId ${s.highestFieldId}]`, { id: f.id });
    names.add(f.name);
    ids.add(f.id);
  }
  for (const [what, keys] of [['partition key', s.partitionKeys], ['primary key', s.primaryKeys]] as const) {
    if (new Set(keys).size !== keys.length) throw schemaError(`a ${what} is listed twice`);
    for (const k of keys) if (!names.has(k)) throw schemaError(`${what} '${k}' is not a field`, { key: k });
  }
  for (const k of s.primaryKeys) {
    const field = s.fields.find((f) => f.name === k);
    if (field?.type.nullable === true && !isTrue(s.options['primary-key.nullable'])) {
      throw schemaError(`primary key field '${k}' must be NOT NULL`, { key: k });
    }
  }
}

function isTrue(value: string | undefined): boolean {
  return value?.trim().toLowerCase() === 'true';
}

function refuseOption(s: TableSchema, key: string, allowed: readonly string[], fallback: string, why: string): void {
  const value = (s.options[key] ?? fallback).trim().toLowerCase();
  if (!allowed.includes(value)) throw unsupported(`${key} = '${value}' is not supported: ${why}`, key, value);
}

/** `file.format.per.level` (`0:avro,3:parquet`): every level's format must be Parquet, the only one written. */
function refuseFormatPerLevel(s: TableSchema): void {
  const text = s.options['file.format.per.level'];
  if (text === undefined || text.trim() === '') return;
  for (const entry of text.split(',')) {
    const format = entry.slice(entry.indexOf(':') + 1).trim().toLowerCase();
    if (format !== 'parquet') throw unsupported(`file.format.per.level = '${text.trim()}' is not supported: Tributary writes Parquet data files only`, 'file.format.per.level', text.trim());
  }
}

/** The bucket layout, with Java's SchemaValidation.validateBucket rules and our refusals. */
function checkBuckets(s: TableSchema): void {
  const n = bucketCount(s);
  const pk = s.primaryKeys.length > 0;
  if (n === -2) throw unsupported('postpone bucket (bucket = -2) is not supported: rows stay invisible until a Java compaction', 'bucket', '-2');
  if (n === -1 && pk) {
    throw unsupported('dynamic bucket (bucket = -1) on a primary-key table is not supported: set bucket = N > 0', 'bucket', '-1');
  }
  if (n === -1 && s.options['bucket-key'] !== undefined) throw schemaError("'bucket-key' needs a bucket count, not bucket = -1");
  if (n < -2 || n === 0) throw schemaError(`bucket = ${n}: the number of buckets must be greater than 0 (or -1)`);
  if (n > 0 && !pk && bucketKeys(s).length === 0) throw schemaError("a bucketed append table needs a 'bucket-key'");
  if (pk && !s.partitionKeys.every((k) => s.primaryKeys.includes(k))) {
    throw unsupported('a primary key without every partition key (cross-partition update) needs dynamic bucket', 'primary-key', s.primaryKeys.join(','));
  }
  if (n > 0) bucketKeys(s);
  if (pk) trimmedPrimaryKeys(s);
}

/** Why each changelog producer other than none and input is refused on a table Tributary writes. */
const REFUSED_PRODUCERS: Readonly<Record<string, string>> = {
  lookup:
    'its changelog is made by a Java compaction in a later snapshot, and Tributary commits level-0 files without one; use input, for which Tributary computes the changelog (a lookup compaction would also emit a second -U/+U for it)',
  'full-compaction':
    'its changelog is made by a later Java full compaction, and Tributary commits level-0 files without one; use input, for which Tributary computes the changelog (a full compaction would also emit a second -U/+U for it)',
};

/**
 * `changelog-producer`: none, or input on a primary-key table with the deduplicate merge engine
 * (the changelog Tributary computes is deduplicate's: the last record of a key wins). A changelog
 * of partial-update or aggregation needs their merge semantics, which are not implemented.
 */
function checkChangelogProducer(s: TableSchema): void {
  const producer = (s.options['changelog-producer'] ?? 'none').trim().toLowerCase();
  if (producer === 'none') return;
  const refused = REFUSED_PRODUCERS[producer];
  if (refused !== undefined) throw unsupported(`changelog-producer = '${producer}' is not supported: ${refused}`, 'changelog-producer', producer);
  if (producer !== 'input') throw unsupported(`changelog-producer = '${producer}' is not a changelog producer Tributary writes (none, input)`, 'changelog-producer', producer);
  if (s.primaryKeys.length === 0) {
    throw unsupported("changelog-producer = 'input' needs a primary key: an append table's changes are its rows", 'changelog-producer', producer);
  }
  const engine = (s.options['merge-engine'] ?? 'deduplicate').trim().toLowerCase();
  if (engine !== 'deduplicate') {
    throw unsupported(
      `merge-engine = '${engine}' with a changelog is not supported: the before and after images depend on ${engine} merge semantics, which Tributary does not implement`,
      'merge-engine',
      engine,
    );
  }
  const ignored = s.options['changelog-producer.row-deduplicate-ignore-fields'];
  if (ignored !== undefined && ignored.trim() !== '') {
    const names = ignored.split(',').map((n) => n.trim());
    fieldsByName(s, names);
    const keys = names.filter((n) => s.primaryKeys.includes(n));
    if (keys.length > 0) throw schemaError(`changelog-producer.row-deduplicate-ignore-fields names primary-key field '${keys[0]}'`, { field: keys[0] as string });
  }
}

/**
 * Checks a schema for consistency and refuses what Tributary does not write correctly:
 * dynamic bucket (-1) on a primary-key table, postpone bucket (-2), cross-partition updates,
 * deletion vectors, merge engines other than deduplicate, changelog producers other than
 * none/input (input only on a deduplicate primary-key table), file formats other than parquet, bucket functions other than default, row tracking,
 * data evolution and external data paths.
 */
export function validateTableSchema(s: TableSchema): void {
  checkStructure(s);
  checkBuckets(s);
  refuseOption(s, 'file.format', ['parquet'], 'parquet', 'Tributary writes Parquet data files only');
  refuseOption(s, 'changelog-file.format', ['parquet'], 'parquet', 'Tributary writes Parquet changelog files only');
  refuseFormatPerLevel(s);
  checkFileOptions(s.options);
  refuseOption(s, 'bucket-function.type', ['default'], 'default', 'only the default (murmur) bucket function is implemented');
  checkChangelogProducer(s);
  if (s.primaryKeys.length > 0) {
    refuseOption(s, 'merge-engine', ['deduplicate'], 'deduplicate', 'only the deduplicate merge engine is implemented');
  }
  for (const key of ['deletion-vectors.enabled', 'row-tracking.enabled', 'data-evolution.enabled']) {
    if (isTrue(s.options[key])) throw unsupported(`${key} = true is not supported`, key, 'true');
  }
  const external = s.options['data-file.external-paths'];
  if (external !== undefined && external.trim() !== '') {
    throw unsupported('data-file.external-paths is not supported: data files are written under the table root', 'data-file.external-paths', external);
  }
  const sequence = s.options['sequence.field'];
  if (sequence !== undefined && sequence.trim() !== '') fieldsByName(s, sequence.split(','));
}
