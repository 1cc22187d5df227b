/**
 * Converts source rows to the table's internal values (spec/types.ts of @tributary/table),
 * column by name. A value that does not fit its column is a deterministic failure: it is reported
 * with the shard, the row's position in the shard and the column, and the shard is not retried.
 * Never a silent truncation or a wrong value.
 */
import { errorFrom } from '@tributary/protocol';
import type { DataType, InternalRow, InternalValue, RowType, Timestamp } from '@tributary/table';
import { workerErrors } from './errors.ts';
import type { SourceColumn, SourceRow, SourceValue } from './sources/source.ts';

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
    const index = source.findIndex((c) => c.name === field.name);
    if (index < 0 && !field.type.nullable) {
      throw errorFrom(workerErrors, 'SOURCE_SCHEMA_MISMATCH', `the source has no column ${field.name}, which is NOT NULL`, {
        shard: shardId,
        column: field.name,
      });
    }
    return { index, name: field.name, convert: converterFor(field.type) };
  });
  return (row, position, origin) =>
    plan.map(({ index, name, convert }) => {
      const value = index < 0 ? null : (row[index] ?? null);
      try {
        return convert(value);
      } catch (error) {
        if (!(error instanceof Unfit)) throw error;
        const where = origin ? `, file ${origin.uri} row ${origin.row}` : '';
        throw errorFrom(workerErrors, 'SOURCE_ROW_INVALID', `shard ${shardId}, row ${position}${where}, column ${name}: ${error.message}`, {
          shard: shardId,
          position,
          column: name,
          ...(origin ? { file: origin.uri, fileRow: origin.row } : {}),
        });
      }
    });
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
        const n = typeof v === 'number' && Number.isSafeInteger(v) ? BigInt(v) : typeof v === 'string' && /^-?\d+$/.test(v) ? BigInt(v) : v;
        if (typeof n === 'bigint' && n >= -(2n ** 63n) && n < 2n ** 63n) return n;
        return unfit(v, 'BIGINT');
      };
    case 'FLOAT':
    case 'DOUBLE':
      return (v) => (typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' && !Number.isNaN(Number(v)) ? Number(v) : unfit(v, type.root));
    case 'DECIMAL':
      return decimal(type.precision, type.scale);
    case 'CHAR':
    case 'VARCHAR':
      return (v) => {
        if (typeof v !== 'string') return unfit(v, type.root);
        // Paimon lengths count characters (code points), as Java's String does for the BMP.
        if ([...v].length > type.length) throw new Unfit(`${JSON.stringify(v.slice(0, 40))} is longer than ${type.root}(${type.length})`);
        return v;
      };
    case 'BINARY':
    case 'VARBINARY':
      return (v) => {
        if (!(v instanceof Uint8Array)) return unfit(v, type.root);
        if (v.length > type.length) throw new Unfit(`${v.length} bytes do not fit ${type.root}(${type.length})`);
        return v;
      };
    case 'DATE':
      return (v) => {
        const ms = v instanceof Date ? v.getTime() : typeof v === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(v) ? Date.parse(`${v}T00:00:00Z`) : NaN;
        return Number.isNaN(ms) ? unfit(v, 'DATE') : Math.floor(ms / 86_400_000);
      };
    case 'TIME':
      return (v) => (typeof v === 'number' && Number.isInteger(v) && v >= 0 && v < 86_400_000 ? v : unfit(v, 'TIME'));
    case 'TIMESTAMP':
    case 'TIMESTAMP_LTZ':
      return timestamp(type.root, type.precision);
  }
}

const MAX_EPOCH_MILLIS = 8.64e15; // the range of a JS Date: years -271821 to 275760

/** Exact instants (`Timestamp`) are cut to the column's precision toward the past, as Paimon's writers store them. */
function timestamp(root: string, precision: number): (value: Exclude<SourceValue, null>) => Timestamp {
  const unit = 10 ** Math.max(0, 9 - Math.max(precision, 3));
  return (v) => {
    if (isTimestamp(v)) {
      if (!Number.isInteger(v.epochMillis) || Math.abs(v.epochMillis) > MAX_EPOCH_MILLIS) throw new Unfit(`${v.epochMillis} ms since 1970 is out of range for ${root}`);
      return { epochMillis: v.epochMillis, nanoOfMillis: precision <= 3 ? 0 : v.nanoOfMillis - (v.nanoOfMillis % unit) };
    }
    const ms = v instanceof Date ? v.getTime() : typeof v === 'string' ? Date.parse(v.endsWith('Z') || v.includes('+') ? v : `${v}Z`) : NaN;
    return Number.isNaN(ms) ? unfit(v, root) : { epochMillis: ms, nanoOfMillis: 0 };
  };
}

function isTimestamp(v: Exclude<SourceValue, null>): v is Timestamp {
  return typeof v === 'object' && !(v instanceof Date) && !(v instanceof Uint8Array);
}

function decimal(precision: number, scale: number): (value: Exclude<SourceValue, null>) => bigint {
  const limit = 10n ** BigInt(precision);
  return (v) => {
    const text = typeof v === 'number' && Number.isFinite(v) ? v.toFixed(scale) : typeof v === 'bigint' ? v.toString() : v;
    const match = typeof text === 'string' ? /^([+-]?)(\d+)(?:\.(\d*))?$/.exec(text.trim()) : null;
    if (match === null) return unfit(v, `DECIMAL(${precision}, ${scale})`);
    const [, sign = '', whole = '0', fraction = ''] = match;
    if (fraction.length > scale && /[1-9]/.test(fraction.slice(scale))) {
      throw new Unfit(`${text} has more than ${scale} decimal places`);
    }
    const unscaled = BigInt(whole + fraction.slice(0, scale).padEnd(scale, '0')) * (sign === '-' ? -1n : 1n);
    if (unscaled >= limit || unscaled <= -limit) throw new Unfit(`${text} does not fit DECIMAL(${precision}, ${scale})`);
    return unscaled;
  };
}

function unfit(value: Exclude<SourceValue, null>, type: string): never {
  const shown =
    value instanceof Uint8Array
      ? `${value.length} bytes`
      : value instanceof Date
        ? (Number.isNaN(value.getTime()) ? 'an invalid date' : value.toISOString())
        : JSON.stringify(typeof value === 'bigint' ? value.toString() : value);
  throw new Unfit(`${shown} (${typeof value}) cannot be converted to ${type}`);
}
