/**
 * Which Paimon column a PostgreSQL column may load into (pure: the planner feeds it rows of
 * pg_attribute and pg_type). The rule is MySQL's: every value the PostgreSQL type can hold fits the
 * Paimon type exactly, or the plan refuses it naming the table and the column. Where PostgreSQL
 * admits values that no Paimon type holds (numeric NaN and infinities, date and timestamp
 * infinities, a time of 24:00, microseconds of a time), the type still maps and such a value fails
 * its shard when read (SOURCE_ROW_INVALID), never rounded or replaced.
 */
import { formatDataType, MAX_LENGTH, type DataType } from '@tributary/table';
import type { PostgresKeyKind } from './spec.ts';

/** A column as the planner reads it from pg_attribute and pg_type. */
export interface PostgresColumn {
  readonly name: string;
  /** pg_type.typname of the column's type: `int4`, `numeric`, `varchar`, `_int4` (an array), an enum's name, … */
  readonly typeName: string;
  /** pg_type.typtype: `b` base, `e` enum, `d` domain, `c` composite, `r`/`m` range, `p` pseudo. */
  readonly typeKind: string;
  /** pg_type.typcategory: `A` for arrays. */
  readonly category: string;
  /** pg_attribute.atttypmod: precision, scale or length, -1 when unconstrained. */
  readonly typmod: number;
  /** format_type(): the type as PostgreSQL writes it, for messages. */
  readonly typeText: string;
  /** For an enum, its longest label in characters. */
  readonly enumLength?: number;
}

const VARHDRSZ = 4;

/** `numeric(p, s)`'s precision and scale (the scale may be negative, or above p, since PostgreSQL 15); undefined when unconstrained. */
export function numericTypmod(typmod: number): { precision: number; scale: number } | undefined {
  if (typmod < VARHDRSZ) return undefined;
  const packed = typmod - VARHDRSZ;
  return { precision: (packed >> 16) & 0xffff, scale: ((packed & 0x7ff) ^ 1024) - 1024 };
}

/** The declared length of varchar(n) or char(n); undefined when unbounded. */
function lengthTypmod(typmod: number): number | undefined {
  return typmod < VARHDRSZ ? undefined : typmod - VARHDRSZ;
}

/** The fractional digits of time(p), timestamp(p), timestamptz(p): 6 when not given. */
function fractionTypmod(typmod: number): number {
  return typmod < 0 ? 6 : typmod;
}

/** Integer digits of int2, int4, int8. */
const INTEGERS: Readonly<Record<string, { readonly roots: readonly string[]; readonly digits: number }>> = {
  int2: { roots: ['SMALLINT', 'INT', 'BIGINT'], digits: 5 },
  int4: { roots: ['INT', 'BIGINT'], digits: 10 },
  int8: { roots: ['BIGINT'], digits: 19 },
};

const isString = (type: DataType): boolean => type.root === 'VARCHAR' && type.length === MAX_LENGTH;

/** Why `column` cannot load into `type`, or undefined when every value fits. */
export function incompatibility(column: PostgresColumn, type: DataType): string | undefined {
  if (column.category === 'A') return `PostgreSQL ${column.typeText} is an array, and the table format has no ARRAY type to load it into`;
  if (column.typeKind === 'd') return `PostgreSQL ${column.typeText} is a domain type, which is not supported (declare the column with its base type)`;
  return fitsType(column, type) ? undefined : `PostgreSQL ${column.typeText} cannot be loaded into ${formatDataType({ ...type, nullable: true })} without loss`;
}

function fitsType(c: PostgresColumn, type: DataType): boolean {
  if (c.typeKind === 'e') return type.root === 'VARCHAR' && type.length >= (c.enumLength ?? MAX_LENGTH);
  if (c.typeKind !== 'b') return false;
  const integer = INTEGERS[c.typeName];
  if (integer !== undefined) {
    if (type.root === 'DECIMAL') return type.precision - type.scale >= integer.digits;
    return integer.roots.includes(type.root);
  }
  switch (c.typeName) {
    case 'bool':
      return type.root === 'BOOLEAN';
    case 'numeric': {
      // Its exact text into STRING; into DECIMAL when every declared value fits, or, unconstrained,
      // with each value checked when read (more places or digits than the column holds fail the shard).
      if (isString(type)) return true;
      if (type.root !== 'DECIMAL') return false;
      const declared = numericTypmod(c.typmod);
      return declared === undefined || (type.scale >= Math.max(declared.scale, 0) && type.precision - type.scale >= declared.precision - declared.scale);
    }
    case 'float4':
      return type.root === 'FLOAT' || type.root === 'DOUBLE';
    case 'float8':
      return type.root === 'DOUBLE';
    case 'text':
    case 'json':
    case 'jsonb':
      return isString(type);
    case 'varchar':
    case 'bpchar': {
      // No length: unbounded (`char` in a column definition is char(1), whose typmod says so; a bare `bpchar` has none).
      const length = lengthTypmod(c.typmod) ?? MAX_LENGTH;
      if (type.root === 'VARCHAR') return type.length >= length;
      return type.root === 'CHAR' && c.typeName === 'bpchar' && type.length >= length;
    }
    case 'uuid':
      return (type.root === 'VARCHAR' || type.root === 'CHAR') && type.length >= 36;
    case 'bytea':
      return type.root === 'VARBINARY' && type.length === MAX_LENGTH;
    case 'date':
      return type.root === 'DATE';
    case 'time':
      // Paimon keeps TIME as milliseconds of the day: 24:00 and digits below the millisecond are refused when read.
      return type.root === 'TIME' && type.precision >= Math.min(fractionTypmod(c.typmod), 3);
    case 'timestamp':
      return type.root === 'TIMESTAMP' && type.precision >= fractionTypmod(c.typmod);
    case 'timestamptz':
      // The instant; into TIMESTAMP (without time zone), its UTC wall clock.
      return (type.root === 'TIMESTAMP_LTZ' || type.root === 'TIMESTAMP') && type.precision >= fractionTypmod(c.typmod);
  }
  return false;
}

/** The base types a worker decodes (by pg_type.typname); an enum is decoded as text. */
export const DECODED_TYPES: ReadonlySet<string> = new Set([
  'bool',
  'int2',
  'int4',
  'int8',
  'numeric',
  'float4',
  'float8',
  'text',
  'varchar',
  'bpchar',
  'json',
  'jsonb',
  'uuid',
  'bytea',
  'date',
  'time',
  'timestamp',
  'timestamptz',
]);

/** How a primary-key column's values are carried in ranges and resume points, or undefined if not supported. */
export function keyKind(c: PostgresColumn): PostgresKeyKind | undefined {
  if (c.typeKind !== 'b') return undefined;
  if (INTEGERS[c.typeName] !== undefined) return 'integer';
  if (c.typeName === 'numeric') return 'numeric';
  if (c.typeName === 'text' || c.typeName === 'varchar' || c.typeName === 'bpchar') return 'text';
  if (c.typeName === 'uuid') return 'uuid';
  return undefined;
}
