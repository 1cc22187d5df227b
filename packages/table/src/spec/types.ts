/**
 * Paimon's logical data types (org.apache.paimon.types.*), the atomic ones Tributary reads and
 * writes, and how their values look in memory.
 *
 * In-memory value of each type (the "internal" value, as Java's InternalRow holds it):
 *
 *   BOOLEAN                    boolean
 *   TINYINT, SMALLINT, INT     number (integer in range)
 *   BIGINT                     bigint
 *   FLOAT, DOUBLE              number
 *   DECIMAL(p, s)              bigint, the unscaled value (123.45 in DECIMAL(10, 2) is 12345n)
 *   CHAR, VARCHAR, STRING      string
 *   BINARY, VARBINARY, BYTES   Uint8Array
 *   DATE                       number, days since 1970-01-01 (negative before)
 *   TIME(p)                    number, milliseconds of the day (Paimon keeps TIME as an int of ms)
 *   TIMESTAMP(p),
 *   TIMESTAMP_LTZ(p)           Timestamp: epoch milliseconds plus nanoseconds within that millisecond,
 *                              as org.apache.paimon.data.Timestamp
 *   any type, nullable         null
 */

export type AtomicTypeRoot =
  | 'BOOLEAN'
  | 'TINYINT'
  | 'SMALLINT'
  | 'INT'
  | 'BIGINT'
  | 'FLOAT'
  | 'DOUBLE'
  | 'DECIMAL'
  | 'CHAR'
  | 'VARCHAR'
  | 'BINARY'
  | 'VARBINARY'
  | 'DATE'
  | 'TIME'
  | 'TIMESTAMP'
  | 'TIMESTAMP_LTZ';

interface TypeBase {
  readonly nullable: boolean;
}

export type DataType =
  | (TypeBase & { readonly root: 'BOOLEAN' | 'TINYINT' | 'SMALLINT' | 'INT' | 'BIGINT' | 'FLOAT' | 'DOUBLE' | 'DATE' })
  | (TypeBase & { readonly root: 'DECIMAL'; readonly precision: number; readonly scale: number })
  /** length 2147483647 is STRING / BYTES. */
  | (TypeBase & { readonly root: 'CHAR' | 'VARCHAR' | 'BINARY' | 'VARBINARY'; readonly length: number })
  | (TypeBase & { readonly root: 'TIME' | 'TIMESTAMP' | 'TIMESTAMP_LTZ'; readonly precision: number });

/** org.apache.paimon.types.DataField */
export interface DataField {
  readonly id: number;
  readonly name: string;
  readonly type: DataType;
  readonly description?: string;
  /** Java's `defaultValue` (a SQL literal as text), kept so a schema read and re-written is unchanged. */
  readonly defaultValue?: string;
}

/** org.apache.paimon.types.RowType: the fields of a table or of a key. */
export interface RowType {
  readonly fields: readonly DataField[];
}

/** org.apache.paimon.data.Timestamp */
export interface Timestamp {
  /** Milliseconds since 1970-01-01T00:00:00 (negative before). */
  readonly epochMillis: number;
  /** 0..999_999: the nanoseconds within that millisecond. */
  readonly nanoOfMillis: number;
}

export type InternalValue = boolean | number | bigint | string | Uint8Array | Timestamp | null;

/** One row in field order. Rows are for tests, errors and small paths; bulk data moves in columns. */
export type InternalRow = readonly InternalValue[];

/** The largest length of a VARCHAR or VARBINARY (Java's Integer.MAX_VALUE): at it they are STRING and BYTES. */
export const MAX_LENGTH = 2147483647;
