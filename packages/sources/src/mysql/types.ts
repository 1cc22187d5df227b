/**
 * Which Paimon column a MySQL column may load into (pure: the planner feeds it rows of
 * information_schema.COLUMNS). The rule is "every value the MySQL type can hold fits the Paimon
 * type exactly": integers widen, DECIMAL keeps its scale and integer digits, strings and bytes keep
 * their length, DATETIME/TIMESTAMP keep their fractional digits. Anything else is refused at plan
 * time, naming the physical table and the column. The Paimon side mirrors
 * org.apache.paimon.types.DataTypeRoot.
 */
import { formatDataType, MAX_LENGTH, type DataType } from '@tributary/table';
import type { MysqlKeyKind } from './spec.ts';

/** One row of information_schema.COLUMNS, as the planner reads it. */
export interface MysqlColumn {
  readonly name: string;
  /** DATA_TYPE, lower case: `int`, `decimal`, `varchar`, … */
  readonly dataType: string;
  /** COLUMN_TYPE: `int(10) unsigned`, `tinyint(1)`, … */
  readonly columnType: string;
  readonly numericPrecision: number | null;
  readonly numericScale: number | null;
  readonly characterMaximumLength: number | null;
  readonly datetimePrecision: number | null;
}


/** Signed and unsigned value ranges in decimal digits, and the narrowest Paimon integer type that holds them. */
const INTEGERS: Readonly<Record<string, { signed: readonly string[]; unsigned: readonly string[]; digits: readonly [number, number] }>> = {
  tinyint: { signed: ['TINYINT', 'SMALLINT', 'INT', 'BIGINT'], unsigned: ['SMALLINT', 'INT', 'BIGINT'], digits: [3, 3] },
  smallint: { signed: ['SMALLINT', 'INT', 'BIGINT'], unsigned: ['INT', 'BIGINT'], digits: [5, 5] },
  mediumint: { signed: ['INT', 'BIGINT'], unsigned: ['INT', 'BIGINT'], digits: [7, 8] },
  int: { signed: ['INT', 'BIGINT'], unsigned: ['BIGINT'], digits: [10, 10] },
  bigint: { signed: ['BIGINT'], unsigned: [], digits: [19, 20] },
};
const TEXTS = new Set(['char', 'varchar', 'tinytext', 'text', 'mediumtext', 'longtext', 'enum', 'set', 'json']);
const BYTES = new Set(['binary', 'varbinary', 'tinyblob', 'blob', 'mediumblob', 'longblob']);

/** Why `column` cannot load into `type`, or undefined when every value fits. */
export function incompatibility(column: MysqlColumn, type: DataType): string | undefined {
  const fits = fitsType(column, type);
  return fits ? undefined : `MySQL ${column.columnType} cannot be loaded into ${formatDataType({ ...type, nullable: true })} without loss`;
}

function fitsType(c: MysqlColumn, type: DataType): boolean {
  const unsigned = /\bunsigned\b/i.test(c.columnType);
  const integer = INTEGERS[c.dataType];
  if (integer !== undefined) {
    if (type.root === 'BOOLEAN') return c.dataType === 'tinyint'; // 0 and 1 only; any other value is refused when read
    if (type.root === 'DECIMAL') return type.precision - type.scale >= integer.digits[unsigned ? 1 : 0];
    return (unsigned ? integer.unsigned : integer.signed).includes(type.root);
  }
  switch (c.dataType) {
    case 'year':
      return ['SMALLINT', 'INT', 'BIGINT'].includes(type.root);
    case 'bit':
      return type.root === 'BOOLEAN' && c.numericPrecision === 1;
    case 'decimal':
      return type.root === 'DECIMAL' && type.scale >= (c.numericScale ?? 0) && type.precision - type.scale >= (c.numericPrecision ?? 65) - (c.numericScale ?? 0);
    case 'float':
      return type.root === 'FLOAT' || type.root === 'DOUBLE';
    case 'double':
      return type.root === 'DOUBLE';
    case 'date':
      return type.root === 'DATE';
    case 'datetime':
      return type.root === 'TIMESTAMP' && type.precision >= (c.datetimePrecision ?? 0);
    case 'timestamp':
      return (type.root === 'TIMESTAMP' || type.root === 'TIMESTAMP_LTZ') && type.precision >= (c.datetimePrecision ?? 0);
    case 'time':
      // Paimon keeps TIME as milliseconds of the day: values outside 00:00–24:00 or below a millisecond are refused when read.
      return type.root === 'TIME' && type.precision >= Math.min(c.datetimePrecision ?? 0, 3);
  }
  if (TEXTS.has(c.dataType)) {
    const length = c.dataType === 'json' ? MAX_LENGTH : cap(c.characterMaximumLength);
    if (type.root === 'VARCHAR') return type.length >= length;
    return type.root === 'CHAR' && c.dataType === 'char' && type.length >= length;
  }
  if (BYTES.has(c.dataType)) {
    const length = cap(c.characterMaximumLength);
    if (type.root === 'VARBINARY') return type.length >= length;
    return type.root === 'BINARY' && c.dataType === 'binary' && type.length === length;
  }
  return false;
}

/** LONGTEXT and LONGBLOB hold up to 4 GiB: no Java String or byte[] is longer than STRING and BYTES anyway. */
function cap(length: number | null): number {
  return Math.min(length ?? MAX_LENGTH, MAX_LENGTH);
}

/** How a primary-key column's values are carried in ranges and resume points, or undefined if not supported. */
export function keyKind(c: MysqlColumn): MysqlKeyKind | undefined {
  if (INTEGERS[c.dataType] !== undefined || c.dataType === 'decimal' || c.dataType === 'year') return 'number';
  if (['char', 'varchar', 'date', 'datetime', 'timestamp', 'time'].includes(c.dataType)) return 'string';
  if (c.dataType === 'binary' || c.dataType === 'varbinary') return 'bytes';
  return undefined;
}
