/**
 * The rows of the MySQL type-mapping table (packages/sources/README.md) as test cases: a MySQL
 * column type, the Paimon type it loads into, two SQL literals (extremes, utf8mb4, time zones) and
 * the table's internal values they become. Shared by the source-level test and the sync test.
 * TIMESTAMP literals are written in the session time zone +05:30.
 */
import type { InternalValue } from '@tributary/table';

const ts = (iso: string, nanoOfMillis = 0) => ({ epochMillis: Date.parse(iso), nanoOfMillis });
/** Bytes as hex (mysql2 gives Buffers), so they compare by content. */
export const plain = (v: unknown) => (v instanceof Uint8Array ? `hex:${Buffer.from(v).toString('hex')}` : v);
const day = (iso: string) => Date.parse(`${iso}T00:00:00Z`) / 86_400_000;

export type TypeCase = readonly [string, string, string, readonly [string, string], readonly [InternalValue, InternalValue]];

/** [README row, MySQL type, Paimon type, SQL literals of two rows, their internal values]. */
export const CASES: readonly TypeCase[] = [
  ['TINYINT', 'TINYINT', 'TINYINT', ['-128', '127'], [-128, 127]],
  ['TINYINT UNSIGNED', 'TINYINT UNSIGNED', 'SMALLINT', ['0', '255'], [0, 255]],
  ['SMALLINT', 'SMALLINT', 'SMALLINT', ['-32768', '32767'], [-32768, 32767]],
  ['SMALLINT UNSIGNED', 'SMALLINT UNSIGNED', 'INT', ['0', '65535'], [0, 65535]],
  ['MEDIUMINT', 'MEDIUMINT', 'INT', ['-8388608', '8388607'], [-8_388_608, 8_388_607]],
  ['MEDIUMINT UNSIGNED', 'MEDIUMINT UNSIGNED', 'INT', ['0', '16777215'], [0, 16_777_215]],
  ['INT', 'INT', 'INT', ['-2147483648', '2147483647'], [-2_147_483_648, 2_147_483_647]],
  ['INT UNSIGNED', 'INT UNSIGNED', 'BIGINT', ['0', '4294967295'], [0n, 4_294_967_295n]],
  ['BIGINT', 'BIGINT', 'BIGINT', ['-9223372036854775808', '9223372036854775807'], [-(2n ** 63n), 2n ** 63n - 1n]],
  ['BIGINT UNSIGNED', 'BIGINT UNSIGNED', 'DECIMAL(20, 0)', ['0', '18446744073709551615'], [0n, 2n ** 64n - 1n]],
  ['DECIMAL(p, s)', 'DECIMAL(10,3)', 'DECIMAL(12, 4)', ['-9999999.999', '0.001'], [-99_999_999_990n, 10n]],
  ['TINYINT(1) → BOOLEAN', 'TINYINT(1)', 'BOOLEAN', ['0', '1'], [false, true]],
  ['BIT(1)', 'BIT(1)', 'BOOLEAN', ["b'0'", "b'1'"], [false, true]],
  ['YEAR', 'YEAR', 'SMALLINT', ['1901', '2155'], [1901, 2155]],
  ['CHAR(n)', 'CHAR(4)', 'CHAR(4)', ["'ab'", "'中文😀x'"], ['ab', '中文😀x']],
  ['VARCHAR(n)', 'VARCHAR(6)', 'VARCHAR(6)', ["''", "'😀😀中文ab'"], ['', '😀😀中文ab']],
  ['TEXT types', 'MEDIUMTEXT', 'STRING', ["'ü'", "'日本語 😀\\n\\ttab'"], ['ü', '日本語 😀\n\ttab']],
  ['ENUM', "ENUM('a','bé','😀')", 'VARCHAR(2)', ["'bé'", "'😀'"], ['bé', '😀']],
  ['SET', "SET('x','y','z')", 'STRING', ["''", "'x,z'"], ['', 'x,z']],
  ['JSON', 'JSON', 'STRING', [`'{"k": "😀", "n": 12345678901234567890}'`, "'[]'"], ['{"k": "😀", "n": 12345678901234567890}', '[]']],
  ['BINARY(n)', 'BINARY(3)', 'BINARY(3)', ["X'00FF10'", "X'01'"], [Uint8Array.of(0, 255, 16), Uint8Array.of(1, 0, 0)]],
  ['VARBINARY(n)', 'VARBINARY(4)', 'VARBINARY(4)', ["X''", "X'DEADBEEF'"], [new Uint8Array(0), Uint8Array.of(0xde, 0xad, 0xbe, 0xef)]],
  ['BLOB types', 'LONGBLOB', 'BYTES', ["X'00'", "X'F09F9880'"], [Uint8Array.of(0), Uint8Array.of(0xf0, 0x9f, 0x98, 0x80)]],
  ['DATE', 'DATE', 'DATE', ["'1000-01-01'", "'9999-12-31'"], [day('1000-01-01'), day('9999-12-31')]],
  ['DATETIME(p)', 'DATETIME(6)', 'TIMESTAMP(6)', ["'1000-01-01 00:00:00.000001'", "'9999-12-31 23:59:59.999999'"], [ts('1000-01-01T00:00:00Z', 1000), ts('9999-12-31T23:59:59.999Z', 999_000)]],
  ['DATETIME(p) → finer', 'DATETIME(0)', 'TIMESTAMP(3)', ["'1969-12-31 23:59:59'", "'2024-02-29 12:00:00'"], [ts('1969-12-31T23:59:59Z'), ts('2024-02-29T12:00:00Z')]],
  // Written in the session time zone +05:30; read as the UTC instant.
  ['TIMESTAMP(p)', 'TIMESTAMP(3) NULL', 'TIMESTAMP(3)', ["'1970-01-01 05:30:01.000'", "'2038-01-19 08:44:07.999'"], [ts('1970-01-01T00:00:01Z'), ts('2038-01-19T03:14:07.999Z')]],
  ['TIMESTAMP(p) → LTZ', 'TIMESTAMP(6) NULL', 'TIMESTAMP_LTZ(6)', ["'2000-01-01 05:30:00.123456'", "'2000-06-01 00:00:00'"], [ts('2000-01-01T00:00:00.123Z', 456_000), ts('2000-05-31T18:30:00Z')]],
  ['TIME(p)', 'TIME(3)', 'TIME(3)', ["'00:00:00'", "'23:59:59.999'"], [0, 86_399_999]],
];

export const FLOATS: readonly TypeCase[] = [
  ['FLOAT', 'FLOAT', 'FLOAT', ['-3.4028234663852886e38', '1.401298464324817e-45'], [-3.4028234663852886e38, 1.401298464324817e-45]],
  ['FLOAT → DOUBLE', 'FLOAT', 'DOUBLE', ['0.1', '16777217'], [Math.fround(0.1), 16_777_216]],
  ['DOUBLE', 'DOUBLE', 'DOUBLE', ['-1.7976931348623157e308', '5e-324'], [-1.7976931348623157e308, 5e-324]],
];

