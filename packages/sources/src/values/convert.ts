/**
 * Converts source rows to the table's internal values (spec/types.ts of @tributary/table),
 * column by name. A value that does not fit its column is a deterministic failure: it is reported
 * with the shard, the row's position in the shard and the column, and the shard is not retried.
 * Never a silent truncation or a wrong value, and never the value itself in the message (a cell
 * may be a password): the message says what kind of value did not fit which type.
 *
 * Numbers are exact: integers and decimals from text or bigint never pass through a double; a
 * double reaches DECIMAL as its shortest decimal form (`0.1`, not 0.1000000000000000055…) and
 * FLOAT as its own value rounded once; text reaches DOUBLE and FLOAT rounded once from its digits
 * (exact-numbers.ts); timestamps from text keep every digit of their fraction (temporal-text.ts).
 */
import { errorFrom } from '@tributary/protocol';
import type { DataType, InternalRow, InternalValue, RowType, Timestamp } from '@tributary/table';
import { sourceErrors } from '../errors.ts';
import { float32FromText, floatingText, isNumeral, unscaledDecimal } from './exact-numbers.ts';
import { isoDate, isoTimeOfDay, isoTimestamp } from './temporal-text.ts';
import { isWellFormedText } from './fast-text.ts';
import type { SourceColumn, SourceRow, SourceValue } from '../source.ts';
import { MAX_EPOCH_MILLIS } from './cell-limits.ts';
import { timestampCut } from './timestamp-cut.ts';

type Convert = (value: SourceValue) => InternalValue;

/** Thrown inside a converter; the row converter adds shard, position and column. */
class Unfit extends Error {}

/** Where a row comes from when the source knows its file: the file's URI and the row's index in it (from 0). */
export interface RowOrigin {
  readonly uri: string;
  readonly row: number;
}

export type RowConverter = (row: SourceRow, position: number, origin?: RowOrigin) => InternalRow;

export function rowConverter(shardId: string, source: readonly SourceColumn[], table: RowType): RowConverter {
  const plan = table.fields.map((field) => {
    const index = sourceIndex(shardId, source, field);
    return { index, convert: valueConverter(shardId, field) };
  });
  return (row, position, origin) => plan.map(({ index, convert }) => convert(index < 0 ? null : (row[index] ?? null), position, origin));
}

/** The source column a table column reads (-1: none, then the column must be nullable). */
export function sourceIndex(shardId: string, source: readonly SourceColumn[], field: RowType['fields'][number]): number {
  const index = source.findIndex((c) => c.name === field.name);
  if (index < 0 && !field.type.nullable) {
    throw errorFrom(sourceErrors, 'SOURCE_SCHEMA_MISMATCH', `the source has no column ${field.name}, which is NOT NULL`, {
      shard: shardId,
      column: field.name,
    });
  }
  return index;
}

/** One value of a table column, converted exactly, or refused with SOURCE_ROW_INVALID naming the shard, row and column. */
export type ValueConverter = (value: SourceValue, position: number, origin?: RowOrigin) => InternalValue;

export function valueConverter(shardId: string, field: RowType['fields'][number]): ValueConverter {
  const { name } = field;
  const convert = converterFor(field.type);
  return (value, position, origin) => {
    try {
      return convert(value);
    } catch (error) {
      if (!(error instanceof Unfit)) throw error;
      const where = origin ? `, file ${origin.uri} row ${origin.row}` : '';
      throw errorFrom(sourceErrors, 'SOURCE_ROW_INVALID', `shard ${shardId}, row ${position}${where}, column ${name}: ${error.message}`, {
        shard: shardId,
        position,
        column: name,
        ...(origin ? { file: origin.uri, fileRow: origin.row } : {}),
      });
    }
  };
}

function converterFor(type: DataType): Convert {
  const convert = nonNull(type);
  return (value) => {
    if (value === null) {
      if (type.nullable) return null;
      throw new Unfit('null in a NOT NULL column');
    }
    return convert(value);
  };
}

const INT_RANGES = { TINYINT: 2 ** 7, SMALLINT: 2 ** 15, INT: 2 ** 31 } as const;

function nonNull(type: DataType): (value: Exclude<SourceValue, null>) => InternalValue {
  switch (type.root) {
    case 'BOOLEAN':
      return (v) => (typeof v === 'boolean' ? v : v === 'true' ? true : v === 'false' ? false : unfit(v, 'BOOLEAN'));
    case 'TINYINT':
    case 'SMALLINT':
    case 'INT': {
      const limit = INT_RANGES[type.root];
      return (v) => {
        const n = typeof v === 'bigint' ? Number(v) : typeof v === 'string' && /^-?\d+$/.test(v) ? Number(v) : v;
        if (typeof n === 'number' && Number.isInteger(n) && n >= -limit && n < limit) return n;
        return unfit(v, type.root);
      };
    }
    case 'BIGINT':
      return (v) => {
        // A double that is an integer is that integer exactly (2^53 and beyond included).
        const n = typeof v === 'number' && Number.isInteger(v) ? BigInt(v) : typeof v === 'string' && /^-?\d+$/.test(v) ? BigInt(v) : v;
        if (typeof n === 'bigint' && n >= -(2n ** 63n) && n < 2n ** 63n) return n;
        return unfit(v, 'BIGINT');
      };
    case 'DOUBLE':
      return (v) => {
        const n = typeof v === 'number' ? v : typeof v === 'string' ? floatingText(v) : undefined;
        if (n === undefined) return unfit(v, 'DOUBLE');
        // A numeral beyond the largest double (`1e309`) is out of range, not an infinity: only the
        // words (`Infinity`, `inf`) or a source's own infinity (a Parquet or database double) are.
        if (!Number.isFinite(n) && typeof v === 'string' && isNumeral(v)) return outOfRange('DOUBLE');
        return n;
      };
    case 'FLOAT':
      return (v) => {
        // A double's own value rounded once (Java's (float) cast), text rounded once from its digits.
        const n = typeof v === 'number' ? Math.fround(v) : typeof v === 'string' && floatingText(v) !== undefined ? float32FromText(v) : undefined;
        if (n === undefined) return unfit(v, 'FLOAT');
        // A finite double or a numeral beyond the largest float (3.5e38) is out of range, not an infinity.
        if (!Number.isFinite(n) && (typeof v === 'number' ? Number.isFinite(v) : typeof v === 'string' && isNumeral(v))) return outOfRange('FLOAT');
        return n;
      };
    case 'DECIMAL':
      return decimal(type.precision, type.scale);
    case 'CHAR':
    case 'VARCHAR':
      return (v) => {
        if (typeof v !== 'string') return unfit(v, type.root);
        // Paimon lengths count characters (code points), as Java's String does for the BMP.
        if ([...v].length > type.length) throw new Unfit(`a string longer than ${type.root}(${type.length})`);
        if (!isWellFormedText(v)) throw new Unfit('a string that is not valid Unicode (a lone UTF-16 surrogate)');
        return v;
      };
    case 'BINARY':
    case 'VARBINARY':
      return (v) => {
        if (!(v instanceof Uint8Array)) return unfit(v, type.root);
        if (v.length > type.length) throw new Unfit(`bytes longer than ${type.root}(${type.length})`);
        return v;
      };
    case 'DATE':
      return (v) => {
        const day = v instanceof Date ? wholeDay(v.getTime()) : typeof v === 'string' ? isoDate(v) : undefined;
        return day === undefined ? unfit(v, 'DATE') : day;
      };
    case 'TIME':
      return (v) => {
        // Milliseconds of the day; as text too, as the integer types take it (an NDJSON number that is
        // a float32 midpoint arrives as its written text), or as a time of day `HH:MM:SS[.f…]` (CSV).
        const n = typeof v === 'string' ? (/^\d+$/.test(v) ? Number(v) : isoTimeOfDay(v)) : v;
        return typeof n === 'number' && Number.isInteger(n) && n >= 0 && n < 86_400_000 ? n : unfit(v, 'TIME');
      };
    case 'TIMESTAMP':
    case 'TIMESTAMP_LTZ':
      return timestamp(type.root, type.precision);
  }
}

/** A Date at midnight UTC as its day; anything else (a time of day, an invalid date) undefined. */
function wholeDay(ms: number): number | undefined {
  return Number.isNaN(ms) || ms % 86_400_000 !== 0 ? undefined : ms / 86_400_000;
}

/**
 * Exact instants (`Timestamp`) are cut to the column's precision toward the past (timestamp-cut.ts; p < 3 cuts the milliseconds too), as Paimon's
 * writers store them. Text is read by isoTimestamp (ISO 8601 or `YYYY-MM-DD HH:MM:SS.fffffffff`,
 * UTC without a zone).
 */
function timestamp(root: string, precision: number): (value: Exclude<SourceValue, null>) => Timestamp {
  const cut = timestampCut(precision);
  return (v) => {
    const exact = isTimestamp(v) ? v : typeof v === 'string' ? isoTimestamp(v) : v instanceof Date && !Number.isNaN(v.getTime()) ? { epochMillis: v.getTime(), nanoOfMillis: 0 } : undefined;
    if (exact === undefined) return unfit(v, root);
    if (!Number.isInteger(exact.epochMillis) || Math.abs(exact.epochMillis) > MAX_EPOCH_MILLIS) throw new Unfit(`an instant out of the range of ${root}`);
    return cut(exact);
  };
}

function isTimestamp(v: Exclude<SourceValue, null>): v is Timestamp {
  return typeof v === 'object' && !(v instanceof Date) && !(v instanceof Uint8Array);
}

/** Never rounded: more places than the scale, or more digits than the precision, are refused. */
function decimal(precision: number, scale: number): (value: Exclude<SourceValue, null>) => bigint {
  const type = `DECIMAL(${precision}, ${scale})`;
  return (v) => {
    const text = typeof v === 'number' && Number.isFinite(v) ? String(v) : typeof v === 'bigint' ? v.toString() : typeof v === 'string' ? v : undefined;
    const unscaled = text === undefined ? 'not a number' : unscaledDecimal(text, precision, scale);
    if (unscaled === 'not a number') return unfit(v, type);
    if (unscaled === 'too many places') throw new Unfit(`a number with more than ${scale} decimal places (${type})`);
    if (unscaled === 'too large') throw new Unfit(`a number too large for ${type}`);
    return unscaled;
  };
}

/** A finite number too large for a FLOAT or DOUBLE: refused like an INT or DECIMAL out of range (never ±Infinity). */
function outOfRange(type: string): never {
  throw new Unfit(`a number out of the range of ${type}`);
}

/** Names the kind of value only: the value itself never goes into a message. */
function unfit(value: Exclude<SourceValue, null>, type: string): never {
  const kind = value instanceof Uint8Array ? 'bytes' : value instanceof Date ? 'a date' : isTimestamp(value) ? 'a timestamp' : `a ${typeof value}`;
  throw new Unfit(`${kind} that cannot be converted to ${type}`);
}
