/**
 * Partition directory names: `k1=v1/k2=v2/`. Mirrors
 * org.apache.paimon.utils.InternalRowPartitionComputer.generatePartValues (value → text) and
 * org.apache.paimon.utils.PartitionPathUtils.generatePartitionPath / escapePathName (text → path).
 *
 * Readers compute a data file's directory from its partition row; they never store it. So the
 * string must be exactly what Java computes, or Java cannot find our files.
 *
 * With `partition.legacy-name = true` (Paimon's default) a value is the Java `toString()` of the
 * internal value: DATE is the epoch-day int (`19723`), TIMESTAMP is LocalDateTime.toString()
 * (`2024-01-01T00:00`), DECIMAL is BigDecimal.toPlainString(). With `false` it is CAST(v AS STRING)
 * (DateTimeUtils.formatDate / formatTimestamp). Null, empty and whitespace-only values become
 * `partition.default-name`.
 */
import { errorFrom } from '@tributary/errors';
import { tableErrors } from '../errors.ts';
import { decodeBinaryRow } from './binary-row.ts';
import type { DataField, DataType, InternalRow, InternalValue, Timestamp } from './types.ts';
import {
  formatDecimalPlain,
  formatJavaDate,
  formatJavaFloat,
  formatJavaDouble,
  formatLocalDateTime,
  formatSqlTime,
  formatSqlTimestamp,
  parseDecimalPlain,
  parseLocalDateTime,
  parseSqlDate,
} from './java-text.ts';

export const DEFAULT_PARTITION_NAME = '__DEFAULT_PARTITION__';

export interface PartitionPathOptions {
  /** `partition.default-name`, default `__DEFAULT_PARTITION__`. */
  readonly defaultName?: string;
  /** `partition.legacy-name`, default true. */
  readonly legacyName?: boolean;
}

/** `partition.default-name` and `partition.legacy-name` from the table options. */
export function partitionPathOptions(options: Readonly<Record<string, string>>): PartitionPathOptions {
  const defaultName = options['partition.default-name'];
  const legacy = options['partition.legacy-name'];
  return {
    ...(defaultName !== undefined ? { defaultName } : {}),
    ...(legacy !== undefined ? { legacyName: legacy.trim().toLowerCase() !== 'false' } : {}),
  };
}

function unsupported(message: string, field: string): Error {
  return errorFrom(tableErrors, 'PARTITION_VALUE_UNSUPPORTED', message, { field });
}

function pathInvalid(message: string, path: string): Error {
  return errorFrom(tableErrors, 'PARTITION_PATH_INVALID', message, { path });
}

/** PartitionPathUtils.CHAR_TO_ESCAPE: control characters, DEL and the 16 characters below. */
function needsEscaping(c: number): boolean {
  return c < 0x20 || c === 0x7f || '"#%\'*/:=?\\{}[]^'.includes(String.fromCharCode(c));
}

/** PartitionPathUtils.escapePathName: `%XX` (uppercase hex) per escaped UTF-16 unit. */
export function escapePathName(s: string): string {
  let out = '';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    out += needsEscaping(c) ? '%' + c.toString(16).toUpperCase().padStart(2, '0') : s[i];
  }
  return out;
}

/** PartitionPathUtils.unescapePathName, the inverse of escapePathName. */
export function unescapePathName(s: string): string {
  return s.replace(/%([0-9A-Fa-f]{2})/g, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}

/** Java's Character.isWhitespace for one UTF-16 unit (no-break spaces are not whitespace). */
function isJavaWhitespace(ch: string): boolean {
  if (ch === '\u00a0' || ch === '\u2007' || ch === '\u202f') return false;
  return /[\t\n\u000b\f\r\u001c-\u001f]/.test(ch) || /[\p{Zs}\p{Zl}\p{Zp}]/u.test(ch);
}

/** StringUtils.isNullOrWhitespaceOnly */
function isBlank(s: string): boolean {
  for (const ch of s) if (!isJavaWhitespace(ch)) return false;
  return true;
}

/** The text of one non-null partition value, as InternalRowPartitionComputer produces it. */
export function partitionValueText(v: InternalValue, type: DataType, legacyName: boolean, field = '?'): string {
  switch (type.root) {
    case 'BOOLEAN':
    case 'TINYINT':
    case 'SMALLINT':
    case 'INT':
    case 'BIGINT':
      return String(v);
    case 'FLOAT':
      return formatJavaFloat(v as number);
    case 'DOUBLE':
      return formatJavaDouble(v as number);
    case 'DECIMAL':
      return formatDecimalPlain(v as bigint, type.scale);
    case 'CHAR':
    case 'VARCHAR':
      return v as string;
    case 'DATE':
      return legacyName ? String(v) : formatJavaDate(v as number);
    case 'TIME':
      return legacyName ? String(v) : formatSqlTime(v as number, type.precision);
    case 'TIMESTAMP':
      return legacyName ? formatLocalDateTime(v as Timestamp) : formatSqlTimestamp(v as Timestamp, type.precision);
    case 'TIMESTAMP_LTZ':
      // The CAST depends on the JVM's default time zone; only the legacy toString() is deterministic.
      if (legacyName) return formatLocalDateTime(v as Timestamp);
      throw unsupported(`partition field '${field}': TIMESTAMP_LTZ with partition.legacy-name = false depends on the JVM time zone`, field);
    case 'BINARY':
    case 'VARBINARY':
      throw unsupported(`partition field '${field}': ${type.root} partition values have no stable directory name`, field);
  }
}

/**
 * The partition directory of a row of partition values, with a trailing `/`; `''` for an
 * unpartitioned table. `values[i]` belongs to `fields[i]` (partition-key order).
 */
export function partitionPath(values: InternalRow, fields: readonly DataField[], options: PartitionPathOptions = {}): string {
  if (values.length !== fields.length) {
    throw errorFrom(tableErrors, 'ROW_VALUE_INVALID', `${values.length} partition values for ${fields.length} partition fields`);
  }
  const defaultName = options.defaultName ?? DEFAULT_PARTITION_NAME;
  const legacyName = options.legacyName ?? true;
  if (defaultName === '') throw unsupported('partition.default-name is empty', '');
  let path = '';
  fields.forEach((f, i) => {
    if (f.name === '') throw unsupported('a partition key has an empty name', f.name);
    const v = values[i] ?? null;
    const text = v === null ? defaultName : partitionValueText(v, f.type, legacyName, f.name);
    path += `${escapePathName(f.name)}=${escapePathName(isBlank(text) ? defaultName : text)}/`;
  });
  return path;
}

/** Where a table's data files live, computed from their partition rows (never stored). */
export interface DataFilePaths {
  /** The partition directory of an arity-prefixed partition row (`k=v/`, or `''` unpartitioned). */
  directory(partition: Uint8Array): string;
  /**
   * `<partition directory>bucket-<N>/<file name>` inside the table (FileStorePathFactory with
   * DataFilePathFactory). Distinct partition rows can share it: NULL, '' and blank strings are all
   * the default name, so only this path, not the partition bytes, tells whether two files collide.
   */
  file(partition: Uint8Array, bucket: number, fileName: string): string;
  /** The values a directory stands for, the default name as null (parsePartitionPath). */
  parse(directory: string): InternalValue[];
}

/** DataFilePaths of a table's partition fields; remembers each row's directory (rows repeat). */
export function dataFilePaths(fields: readonly DataField[], options: PartitionPathOptions = {}): DataFilePaths {
  const types = fields.map((f) => f.type);
  const directories = new Map<string, string>();
  const directory = (partition: Uint8Array): string => {
    if (fields.length === 0) return '';
    const key = Buffer.from(partition.buffer, partition.byteOffset, partition.byteLength).toString('latin1');
    let dir = directories.get(key);
    if (dir === undefined) directories.set(key, (dir = partitionPath(decodeBinaryRow(partition, types), fields, options)));
    return dir;
  };
  return {
    directory,
    file: (partition, bucket, fileName) => `${directory(partition)}bucket-${bucket}/${fileName}`,
    parse: (dir) => parsePartitionPath(dir, fields, options),
  };
}

// ---------------------------------------------------------------------------------------------
// The inverse: directory → values (TypeUtils.castFromString for the legacy texts)
// ---------------------------------------------------------------------------------------------

function parseInteger(text: string, min: number, max: number): number | undefined {
  if (!/^-?\d+$/.test(text)) return undefined;
  const n = Number(text);
  return n >= min && n <= max ? n : undefined;
}

function parseValue(text: string, type: DataType, legacyName: boolean): InternalValue | undefined {
  switch (type.root) {
    case 'BOOLEAN':
      return text === 'true' ? true : text === 'false' ? false : undefined;
    case 'TINYINT':
      return parseInteger(text, -128, 127);
    case 'SMALLINT':
      return parseInteger(text, -32768, 32767);
    case 'INT':
      return parseInteger(text, -2147483648, 2147483647);
    case 'BIGINT':
      return /^-?\d+$/.test(text) && BigInt.asIntN(64, BigInt(text)) === BigInt(text) ? BigInt(text) : undefined;
    case 'FLOAT':
    case 'DOUBLE': {
      const n = Number(text);
      return text.trim() === '' || Number.isNaN(n) !== (text === 'NaN') ? undefined : type.root === 'FLOAT' ? Math.fround(n) : n;
    }
    case 'DECIMAL':
      return parseDecimalPlain(text, type.precision, type.scale);
    case 'CHAR':
    case 'VARCHAR':
      return text;
    case 'DATE':
      return legacyName ? parseInteger(text, -2147483648, 2147483647) : parseSqlDate(text);
    case 'TIME':
      return legacyName ? parseInteger(text, -2147483648, 2147483647) : undefined;
    case 'TIMESTAMP':
    case 'TIMESTAMP_LTZ':
      return parseLocalDateTime(text);
    case 'BINARY':
    case 'VARBINARY':
      return undefined;
  }
}

/**
 * Parses `k1=v1/k2=v2/` back into partition values. The default name reads as null (an empty
 * string partition shares that directory, so the path alone cannot tell them apart).
 */
export function parsePartitionPath(path: string, fields: readonly DataField[], options: PartitionPathOptions = {}): InternalValue[] {
  const defaultName = options.defaultName ?? DEFAULT_PARTITION_NAME;
  const legacyName = options.legacyName ?? true;
  const segments = path.split('/').filter((s) => s !== '');
  if (segments.length !== fields.length) throw pathInvalid(`'${path}' has ${segments.length} segments for ${fields.length} partition keys`, path);
  return fields.map((f, i) => {
    const segment = segments[i] as string;
    const eq = segment.indexOf('=');
    if (eq < 0 || unescapePathName(segment.slice(0, eq)) !== f.name) {
      throw pathInvalid(`segment '${segment}' of '${path}' is not '${f.name}=…'`, path);
    }
    const text = unescapePathName(segment.slice(eq + 1));
    if (text === defaultName) return null;
    const value = parseValue(text, f.type, legacyName);
    if (value === undefined) throw pathInvalid(`'${text}' is not a ${f.type.root} value for '${f.name}'`, path);
    return value;
  });
}
