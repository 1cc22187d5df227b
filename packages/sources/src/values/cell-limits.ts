/**
 * The bounds every path that writes cells straight into the table's columns checks against (the
 * column converter, and the MySQL-text, PostgreSQL, Parquet and CSV cells), in one place.
 */
import type { DataType } from '@tributary/table';

/** TINYINT, SMALLINT and INT hold -limit ≤ v < limit. */
export const INT_LIMITS: Partial<Record<DataType['root'], number>> = { TINYINT: 2 ** 7, SMALLINT: 2 ** 15, INT: 2 ** 31 };
/** 2^32: a safe integer's high and low 32-bit words of an int64. */
export const TWO_32 = 4294967296;
/** The range of a JS Date (years -271821 to 275760), as the value converter takes it. */
export const MAX_EPOCH_MILLIS = 8.64e15;
/** Whether an int64 column's values can be written as two Int32 words, low word first. */
export const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;
