/**
 * Pieces shared by the manifest Avro records: schema builders that mirror Java's
 * `AvroSchemaConverter` (nullable → `["null", T]` with `"default": null`, nested records named
 * `<parent>_<field>`), the nested `SimpleStats` record, and typed field readers that map a
 * decoded record by field name the way Java's `AvroRowDatumReader` does (a field missing from
 * the writer's schema reads as null; extra fields are ignored).
 */

import { errorFrom } from '@tributary/errors';
import { tableErrors } from '../errors.ts';
import { isRecord, type AvroField, type AvroRecord, type AvroSchema, type AvroValue } from '../avro/avro.ts';
import type { SimpleStats } from './simple-stats.ts';

/** Java's top-level Avro record name (`AvroSchemaConverter.convertToSchema`). */
export const AVRO_ROOT_NAMESPACE = 'org.apache.paimon.avro.generated';
export const AVRO_ROOT_NAME = 'record';

/** A NOT NULL field: the bare type, no default. */
export function requiredField(name: string, type: AvroSchema): AvroField {
  return { name, type };
}

/** A nullable field: `["null", T]` with null first (Java's readers take branch 0 as null). */
export function nullableField(name: string, type: AvroSchema): AvroField {
  return { name, type: ['null', type], default: null };
}

/** `SimpleStats.SCHEMA` as Avro, named as Java names a nested record. */
export function simpleStatsSchema(recordName: string): AvroSchema {
  return {
    type: 'record',
    name: recordName,
    fields: [
      requiredField('_MIN_VALUES', 'bytes'),
      requiredField('_MAX_VALUES', 'bytes'),
      nullableField('_NULL_COUNTS', { type: 'array', items: ['null', 'long'] }),
    ],
  };
}

/** Null counts a message did not carry are written as none known: `[]`, as a manifest read gives them back. */
export function simpleStatsToAvro(stats: SimpleStats): AvroRecord {
  return { _MIN_VALUES: stats.minValues, _MAX_VALUES: stats.maxValues, _NULL_COUNTS: stats.nullCounts ?? [] };
}

/** A null `_NULL_COUNTS` (allowed by the schema) reads as "no counts known": `[]`. */
export function simpleStatsFromAvro(value: AvroValue | undefined, path: string): SimpleStats {
  const record = asRecord(value, path);
  const counts = optionalArray(record, '_NULL_COUNTS', path) ?? [];
  return {
    minValues: requiredBytes(record, '_MIN_VALUES', path),
    maxValues: requiredBytes(record, '_MAX_VALUES', path),
    nullCounts: counts.map((c, i) => (c === null ? null : toLong(c, `${path}._NULL_COUNTS[${i}]`))),
  };
}

function invalid(path: string, message: string): Error {
  return errorFrom(tableErrors, 'MANIFEST_RECORD_INVALID', `${path}: ${message}`, { path });
}

export function asRecord(value: AvroValue | undefined, path: string): AvroRecord {
  if (!isRecord(value)) throw invalid(path, 'expected a record');
  return value;
}

/** Avro promotes int to long, so an int-typed writer field is accepted where we want a long. */
function toLong(value: AvroValue, path: string): bigint {
  if (typeof value === 'bigint') return value;
  if (typeof value === 'number' && Number.isInteger(value)) return BigInt(value);
  throw invalid(path, 'expected a long');
}

function present(record: AvroRecord, name: string, path: string): AvroValue {
  const value = record[name];
  if (value === undefined || value === null) throw invalid(`${path}.${name}`, 'required field is missing or null');
  return value;
}

export function requiredLong(record: AvroRecord, name: string, path: string): bigint {
  return toLong(present(record, name, path), `${path}.${name}`);
}

export function optionalLong(record: AvroRecord, name: string, path: string): bigint | null {
  const value = record[name];
  return value === undefined || value === null ? null : toLong(value, `${path}.${name}`);
}

export function requiredInt(record: AvroRecord, name: string, path: string): number {
  const value = present(record, name, path);
  if (typeof value !== 'number' || !Number.isInteger(value)) throw invalid(`${path}.${name}`, 'expected an int');
  return value;
}

export function optionalInt(record: AvroRecord, name: string, path: string): number | null {
  const value = record[name];
  return value === undefined || value === null ? null : requiredInt(record, name, path);
}

export function requiredString(record: AvroRecord, name: string, path: string): string {
  const value = present(record, name, path);
  if (typeof value !== 'string') throw invalid(`${path}.${name}`, 'expected a string');
  return value;
}

export function optionalString(record: AvroRecord, name: string, path: string): string | null {
  const value = record[name];
  return value === undefined || value === null ? null : requiredString(record, name, path);
}

export function requiredBytes(record: AvroRecord, name: string, path: string): Uint8Array {
  const value = present(record, name, path);
  if (!(value instanceof Uint8Array)) throw invalid(`${path}.${name}`, 'expected bytes');
  return value;
}

export function optionalBytes(record: AvroRecord, name: string, path: string): Uint8Array | null {
  const value = record[name];
  return value === undefined || value === null ? null : requiredBytes(record, name, path);
}

function optionalArray(record: AvroRecord, name: string, path: string): readonly AvroValue[] | null {
  const value = record[name];
  if (value === undefined || value === null) return null;
  if (!Array.isArray(value)) throw invalid(`${path}.${name}`, 'expected an array');
  return value as readonly AvroValue[];
}

export function optionalStrings(record: AvroRecord, name: string, path: string): string[] | null {
  const items = optionalArray(record, name, path);
  if (items === null) return null;
  return items.map((item, i) => {
    if (typeof item !== 'string') throw invalid(`${path}.${name}[${i}]`, 'expected a string');
    return item;
  });
}

export function optionalLongs(record: AvroRecord, name: string, path: string): bigint[] | null {
  const items = optionalArray(record, name, path);
  return items === null ? null : items.map((item, i) => toLong(item, `${path}.${name}[${i}]`));
}

/** Checks the `_VERSION` field Java's `VersionedObjectSerializer` puts first in every record. */
export function checkVersion(record: AvroRecord, expected: number, path: string): void {
  const version = requiredInt(record, '_VERSION', path);
  if (version === expected) return;
  const hint = version < expected ? ' (Paimon asks to recreate the table)' : '';
  throw errorFrom(tableErrors, 'MANIFEST_VERSION_UNSUPPORTED',
    `${path}: _VERSION ${version} is not supported, expected ${expected}${hint}`, { path, version, expected });
}
