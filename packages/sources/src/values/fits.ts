/**
 * Whether a source column can fill a table column, decided at plan time from types alone (pure).
 * Two rules, one per kind of source schema:
 *
 * - `typeIncompatibility(source, target)`: a source that states Paimon types (the generator) fits
 *   when every value of its type fits the target exactly: integers widen (TINYINT → … → BIGINT,
 *   or DECIMAL with enough integer digits), DECIMAL keeps its scale and integer digits, CHAR and
 *   VARCHAR keep their length, TIMESTAMP and TIME keep their fractional digits, FLOAT widens to
 *   DOUBLE; anything else must be the same type.
 * - `familyIncompatibility(source, target)`: a file column (a Parquet column's type, or text) fits
 *   a target of the same family (boolean, number, text, bytes, date, time, timestamp); text fits
 *   any family but bytes (the converter parses it, and refuses a value that does not parse, per
 *   row); a number fits a TIME (milliseconds of the day, as the converter takes it); a DATE fits a
 *   TIMESTAMP or TIMESTAMP_LTZ (its midnight UTC, exactly). Exact ranges
 *   are checked per value by values/convert.ts.
 */
import type { DataType } from '@tributary/table';
import { formatDataType } from '@tributary/table';

const INTEGER_RANK: Readonly<Record<string, number>> = { TINYINT: 1, SMALLINT: 2, INT: 3, BIGINT: 4 };
const INTEGER_DIGITS: Readonly<Record<string, number>> = { TINYINT: 3, SMALLINT: 5, INT: 10, BIGINT: 19 };

/** Why a column of `source` type cannot load into `target`, or undefined when every value fits. */
export function typeIncompatibility(source: DataType, target: DataType): string | undefined {
  return typeFits(source, target) ? undefined : `the source's ${formatDataType({ ...source, nullable: true })} does not fit ${formatDataType(target)}`;
}

function typeFits(s: DataType, t: DataType): boolean {
  const rank = INTEGER_RANK[s.root];
  if (rank !== undefined) {
    const targetRank = INTEGER_RANK[t.root];
    if (targetRank !== undefined) return targetRank >= rank;
    return t.root === 'DECIMAL' && t.precision - t.scale >= (INTEGER_DIGITS[s.root] ?? 19);
  }
  switch (s.root) {
    case 'DECIMAL':
      return t.root === 'DECIMAL' && t.scale >= s.scale && t.precision - t.scale >= s.precision - s.scale;
    case 'CHAR':
    case 'VARCHAR':
      return (t.root === 'VARCHAR' || (t.root === 'CHAR' && s.root === 'CHAR')) && t.length >= s.length;
    case 'BINARY':
    case 'VARBINARY':
      return (t.root === 'VARBINARY' || (t.root === 'BINARY' && s.root === 'BINARY')) && t.length >= s.length;
    case 'TIME':
    case 'TIMESTAMP':
    case 'TIMESTAMP_LTZ':
      return t.root === s.root && t.precision >= s.precision;
    case 'FLOAT':
      return t.root === 'FLOAT' || t.root === 'DOUBLE';
    default:
      return t.root === s.root;
  }
}

export type TypeFamily = 'boolean' | 'number' | 'text' | 'bytes' | 'date' | 'time' | 'timestamp';

export function familyOf(type: DataType): TypeFamily {
  switch (type.root) {
    case 'BOOLEAN':
      return 'boolean';
    case 'CHAR':
    case 'VARCHAR':
      return 'text';
    case 'BINARY':
    case 'VARBINARY':
      return 'bytes';
    case 'DATE':
      return 'date';
    case 'TIME':
      return 'time';
    case 'TIMESTAMP':
    case 'TIMESTAMP_LTZ':
      return 'timestamp';
    default:
      return 'number';
  }
}

/** Why a source column of `source` family cannot load into `target`, or undefined when it may. */
export function familyIncompatibility(source: TypeFamily, described: string, target: DataType): string | undefined {
  const family = familyOf(target);
  if (source === family || (source === 'text' && family !== 'bytes')) return undefined;
  // A TIME takes whole milliseconds of the day as a number too (values/convert.ts checks each value).
  if (source === 'number' && family === 'time') return undefined;
  // A DATE is its midnight UTC exactly, as a TIMESTAMP or TIMESTAMP_LTZ (parquet-cells.ts and convert.ts read it so).
  if (source === 'date' && family === 'timestamp') return undefined;
  return `${described} (${source}) cannot be loaded into ${formatDataType(target)} (${family})`;
}
