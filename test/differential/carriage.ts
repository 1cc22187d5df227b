/**
 * What each write path can carry exactly. The generator draws a case's schema and values from the
 * intersection of the carriages of the paths the case runs, so every path gets the same rows and a
 * path never meets a value it has no way to represent. Each restriction is listed (and explained) in
 * README.md; nothing is dropped silently.
 */

export type FileFormat = 'csv' | 'ndjson' | 'parquet';
export type PathName = 'files' | 'mysql' | 'java';

const NANOS_PER_DAY = 86_400_000_000_000n;
/** 0001-01-01T00:00:00 and 10000-01-01T00:00:00 (exclusive), in days since 1970. */
export const DAY_YEAR_1 = -719_162;
export const DAY_YEAR_10000 = 2_932_897;
const day = (d: number): bigint => BigInt(d) * NANOS_PER_DAY;
/** 1000-01-01, MySQL's documented lower bound of DATE and DATETIME. */
const DAY_YEAR_1000 = -354_285;
/** An INT64 of nanoseconds (pyarrow and pypaimon's TIMESTAMP(7..9)) spans 1677-09-21 .. 2262-04-11. */
export const INT64_NANOS: readonly [bigint, bigint] = [-9_223_372_036_000_000_000n, 9_223_372_036_000_000_000n];

export interface Carriage {
  /** NaN in FLOAT and DOUBLE. */
  readonly nan: boolean;
  /** ±Infinity in FLOAT and DOUBLE. */
  readonly infinity: boolean;
  /** -0.0 in FLOAT and DOUBLE. */
  readonly negativeZero: boolean;
  /** BINARY, VARBINARY, BYTES columns. */
  readonly binary: boolean;
  /** TIME columns. */
  readonly time: boolean;
  /** '' distinct from NULL in string columns. */
  readonly emptyString: boolean;
  /** A string may end with a carriage return. */
  readonly trailingCarriageReturn: boolean;
  /** The finest fraction of a second carried in timestamps: 3 (ms), 6 (µs) or 9 (ns) digits. */
  readonly timestampDigits: 3 | 6 | 9;
  /** TIMESTAMP values, epoch nanoseconds [min, max). */
  readonly timestamp: readonly [bigint, bigint];
  /** TIMESTAMP WITH LOCAL TIME ZONE values, epoch nanoseconds [min, max). */
  readonly ltz: readonly [bigint, bigint];
  /** DATE values, epoch days [min, max). */
  readonly date: readonly [number, number];
  /** The largest DECIMAL scale. */
  readonly decimalScale: number;
}

const FULL: Carriage = {
  nan: true,
  infinity: true,
  negativeZero: true,
  binary: true,
  time: true,
  emptyString: true,
  trailingCarriageReturn: true,
  timestampDigits: 9,
  timestamp: [day(DAY_YEAR_1), day(DAY_YEAR_10000)],
  ltz: [day(DAY_YEAR_1), day(DAY_YEAR_10000)],
  date: [DAY_YEAR_1, DAY_YEAR_10000],
  decimalScale: 38,
};

/** Text files: a value is text the converter parses; JSON and CSV have no NaN for the converter, and Date.parse stops at milliseconds. */
const TEXT: Carriage = { ...FULL, nan: false, binary: false, timestampDigits: 3 };

export const CARRIAGE: Readonly<Record<FileFormat | 'mysql' | 'java', Carriage>> = {
  java: FULL,
  parquet: FULL,
  ndjson: TEXT,
  // An empty CSV field is NULL (so '' cannot be told from NULL), TIME takes numbers only, and a
  // CSV file has no binary type.
  csv: { ...TEXT, time: false, emptyString: false },
  // MariaDB: no NaN or infinities in DOUBLE/FLOAT, and -0.0 is stored as 0; DATETIME(6) at most, DATE and DATETIME from the
  // year 1000, DECIMAL scale up to 30, TIMESTAMP (loaded as TIMESTAMP_LTZ) from 1970-01-01 00:00:01 to 2038-01-19 03:14:07 UTC.
  mysql: {
    ...FULL,
    nan: false,
    infinity: false,
    negativeZero: false,
    timestampDigits: 6,
    timestamp: [day(DAY_YEAR_1000), day(DAY_YEAR_10000)],
    ltz: [1_000_000_000n, 2_147_483_648_000_000_000n],
    date: [DAY_YEAR_1000, DAY_YEAR_10000],
    decimalScale: 30,
  },
};

/** What every one of `carriages` carries. */
export function intersect(carriages: readonly Carriage[]): Carriage {
  const both = <K extends keyof Carriage>(key: K): boolean => carriages.every((c) => c[key] === true);
  const range = (key: 'timestamp' | 'ltz'): readonly [bigint, bigint] => [
    carriages.map((c) => c[key][0]).reduce((a, b) => (a > b ? a : b)),
    carriages.map((c) => c[key][1]).reduce((a, b) => (a < b ? a : b)),
  ];
  return {
    nan: both('nan'),
    infinity: both('infinity'),
    negativeZero: both('negativeZero'),
    binary: both('binary'),
    time: both('time'),
    emptyString: both('emptyString'),
    trailingCarriageReturn: both('trailingCarriageReturn'),
    timestampDigits: Math.min(...carriages.map((c) => c.timestampDigits)) as 3 | 6 | 9,
    timestamp: range('timestamp'),
    ltz: range('ltz'),
    date: [Math.max(...carriages.map((c) => c.date[0])), Math.min(...carriages.map((c) => c.date[1]))],
    decimalScale: Math.min(...carriages.map((c) => c.decimalScale)),
  };
}
