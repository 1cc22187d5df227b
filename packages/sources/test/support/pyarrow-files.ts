/**
 * Parquet input files written by pyarrow (pyarrow_files.py) and the table rows they must become.
 * `pyarrowRow(i)` is the twin of `row(i)` in the Python script, as the internal values of
 * PYARROW_TABLE_COLUMNS (whatever physical encoding the file used).
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { oraclePaths } from '@tributary/testkit';
import type { InternalValue, Timestamp } from '@tributary/table';

const script = fileURLToPath(new URL('./pyarrow_files.py', import.meta.url));

export interface PyarrowFileSpec {
  readonly path: string;
  readonly start: number;
  readonly count: number;
  readonly ts_unit: 'ms' | 'us' | 'ns' | 'int96';
  readonly decimal_int?: boolean;
  readonly compression?: string;
  readonly row_group?: number;
  readonly rename?: Readonly<Record<string, string>>;
  readonly drop?: readonly string[];
  readonly extra?: boolean;
  readonly overflow_row?: number;
  readonly bad_utf8_row?: number;
  readonly data_page_version?: '1.0' | '2.0';
  readonly dictionary?: boolean;
  /** The columns of EXTREMES_TABLE (pyarrow_files.py `extremes`) instead of `row`. */
  readonly extremes?: boolean;
}

export function writePyarrowFiles(specs: readonly PyarrowFileSpec[]): void {
  execFileSync(oraclePaths.python, [script, JSON.stringify(specs)], { stdio: ['ignore', 'ignore', 'pipe'] });
}

/** The table the files sync into: every column of the file, plus one the files never have. */
export const PYARROW_TABLE_COLUMNS = [
  { name: 'id', type: 'BIGINT NOT NULL' },
  { name: 'small', type: 'INT' },
  { name: 'u32', type: 'BIGINT' },
  { name: 'amount', type: 'DECIMAL(12, 2)' },
  { name: 'big', type: 'DECIMAL(38, 10)' },
  { name: 'name', type: 'STRING' },
  { name: 'blob', type: 'BYTES' },
  { name: 'flag', type: 'BOOLEAN' },
  { name: 'f32', type: 'FLOAT' },
  { name: 'f64', type: 'DOUBLE' },
  { name: 'day', type: 'DATE' },
  { name: 'ts3', type: 'TIMESTAMP(3)' },
  { name: 'ts6', type: 'TIMESTAMP(6)' },
  { name: 'note', type: 'STRING' },
  { name: 'absent', type: 'INT' },
] as const;

/**
 * The columns of a file written with `extremes` (every type at its limits, full-precision doubles,
 * empty strings, all-NULL columns), each with the table type it loads into as itself and a second,
 * other table type every value also fits (rescaled, widened or narrowed).
 */
export const EXTREMES_COLUMNS = [
  { name: 'i64', type: 'BIGINT', other: 'DECIMAL(20, 0)' },
  { name: 'i32', type: 'INT', other: 'BIGINT' },
  { name: 'i16', type: 'SMALLINT', other: 'DOUBLE' },
  { name: 'i8', type: 'TINYINT', other: 'DECIMAL(5, 2)' },
  { name: 'u64', type: 'DECIMAL(20, 0)', other: 'DECIMAL(38, 4)' },
  { name: 'u32', type: 'BIGINT', other: 'DECIMAL(10, 0)' },
  // Not FLOAT: a random double beyond the largest float is refused there (out of range); parquet-cells.test.ts covers DOUBLE into FLOAT.
  { name: 'f64', type: 'DOUBLE', other: 'DOUBLE' },
  { name: 'f32', type: 'FLOAT', other: 'DOUBLE' },
  { name: 'd38', type: 'DECIMAL(38, 10)', other: 'STRING' },
  { name: 'd18', type: 'DECIMAL(18, 4)', other: 'DECIMAL(38, 6)' },
  { name: 'd9', type: 'DECIMAL(9, 2)', other: 'DECIMAL(12, 4)' },
  { name: 's', type: 'STRING', other: 'VARCHAR(300)' },
  { name: 'b', type: 'BYTES', other: 'BINARY(256)' },
  { name: 'nulls', type: 'STRING', other: 'CHAR(1)' },
  { name: 'nulls_i64', type: 'BIGINT', other: 'INT' },
  { name: 'day', type: 'DATE', other: 'TIMESTAMP(3)' },
  { name: 't_ms', type: 'TIME', other: 'INT' },
  { name: 't_us', type: 'TIME', other: 'TIME' },
  { name: 't_ns', type: 'TIME', other: 'TIME' },
  { name: 'ts_ms', type: 'TIMESTAMP(3)', other: 'TIMESTAMP_LTZ(9)' },
  { name: 'ts_us', type: 'TIMESTAMP(6)', other: 'TIMESTAMP(3)' },
  { name: 'ts_ns', type: 'TIMESTAMP(9)', other: 'TIMESTAMP(0)' },
  { name: 'flag', type: 'BOOLEAN', other: 'BOOLEAN' },
] as const;

export const PYARROW_COLUMN_NAMES: readonly string[] = PYARROW_TABLE_COLUMNS.map((c) => c.name);

function fromMicros(micros: bigint): Timestamp {
  const millis = micros / 1000n - (micros % 1000n < 0n ? 1n : 0n);
  return { epochMillis: Number(millis), nanoOfMillis: Number(micros - millis * 1000n) * 1000 };
}

/** Row i as the table's internal values; `dropped` columns (absent from the file) are null. */
export function pyarrowRow(i: number, dropped: readonly string[] = []): InternalValue[] {
  const row: InternalValue[] = [
    BigInt(i),
    (i % 256) - 128,
    BigInt(4_000_000_000 + i),
    BigInt(i) * 1_234_567n - 500_000_000n,
    10n ** 30n + BigInt(i),
    i % 7 === 3 ? null : `n${i}-é`,
    new Uint8Array([i % 256, 7]),
    i % 5 === 0 ? null : i % 3 === 0,
    i + 0.5,
    i / 3,
    i * 37 - 20_000,
    { epochMillis: i * 86_400_123 - 40_000_000_000, nanoOfMillis: 0 },
    fromMicros(BigInt(i) * 7_777_777_777n - 1_000_000_123_457n),
    `note ${i}`,
    null,
  ];
  return row.map((v, c) => (dropped.includes(PYARROW_COLUMN_NAMES[c] ?? '') ? null : v));
}
