/**
 * The generator's values: adversarial, and exact at their column's precision, drawn only from what
 * the case's carriage lets through (carriage.ts). Pure; all randomness comes from the Random given.
 */
import type { OracleTimestamp, OracleValue } from '@tributary/testkit';
import { INT64_NANOS, type Carriage } from './carriage.ts';
import type { ColumnType } from './generator.ts';
import type { Random } from './random.ts';

/** Texts that break naive CSV, JSON, SQL, path and partition handling. */
const NASTY_TEXT: readonly string[] = [
  ' ', '  ', '\t', 'a,b', 'say "hi"', '"', '""', '","', "it's", 'line\nbreak', 'crlf\r\nline', '\n', ',', ';', '|',
  'a/b', '/', '=', 'k=v', '%', '%2F', '%25', '..', '.', '../x', '\\', 'NULL', 'null', '\\N', 'ünï', '😀', '𝄞x', '中文',
  'é', 'e\u0301', '#?&', '*', '  lead', 'trail  ',
];

function text(r: Random, maxChars: number, c: Carriage): string {
  let s: string;
  if (r.chance(0.4)) s = r.pick(NASTY_TEXT);
  else {
    const alphabet = ['a', 'Z', '0', ' ', ',', '"', '\n', 'é', '😀', '中', '/', '=', '%', '\t', '\\', "'"];
    s = Array.from({ length: r.int(0, 12) }, () => r.pick(alphabet)).join('');
  }
  if (c.trailingCarriageReturn && r.chance(0.03)) s = `${s}\r`;
  s = [...s].slice(0, maxChars).join('');
  return s === '' && !c.emptyString ? 'x' : s;
}

/** A value of `type` (never null) that every path of the carriage holds exactly. */
export function value(r: Random, type: ColumnType, c: Carriage): OracleValue {
  switch (type.root) {
    case 'BOOLEAN':
      return r.chance(0.5);
    case 'TINYINT':
      return integer(r, 8);
    case 'SMALLINT':
      return integer(r, 16);
    case 'INT':
      return integer(r, 32);
    case 'BIGINT':
      return r.chance(0.3) ? r.pick([-(2n ** 63n), 2n ** 63n - 1n, 2n ** 53n + 1n, -(2n ** 53n) - 1n, 0n, -1n]) : BigInt.asIntN(64, r.bits64());
    case 'FLOAT':
      return float32(r, c);
    case 'DOUBLE':
      return float64(r, c);
    case 'DECIMAL': {
      const limit = 10n ** BigInt(type.precision ?? 10) - 1n;
      if (r.chance(0.3)) return r.pick([limit, -limit, 0n, 1n, -1n]);
      const digits = r.int(1, type.precision ?? 10);
      return (r.chance(0.5) ? -1n : 1n) * r.bigint(0n, 10n ** BigInt(digits) - 1n);
    }
    case 'CHAR': {
      // Exactly `length` characters, the last not a space: MySQL CHAR strips trailing spaces and
      // pads shorter values; Paimon keeps what was written.
      const n = type.length ?? 1;
      const chars = [...text(r, n, c).replace(/\s+$/u, '')];
      while (chars.length < n) chars.push(r.pick(['a', 'é', '😀', '中', ',', '"']));
      return chars.join('');
    }
    case 'VARCHAR':
      return text(r, type.length ?? 1, c);
    case 'STRING':
      return r.chance(0.05) ? 'long '.repeat(r.int(20, 200)) : text(r, 1000, c);
    case 'BINARY':
      return bytes(r, type.length ?? 1);
    case 'VARBINARY':
      return bytes(r, r.int(0, type.length ?? 1));
    case 'BYTES':
      return bytes(r, r.pick([0, 1, r.int(0, 64)]));
    case 'DATE': {
      const [min, max] = c.date;
      return r.chance(0.3) ? r.pick([min, max - 1, 0, -1]) : r.int(min, max - 1);
    }
    case 'TIME': {
      const ms = r.chance(0.3) ? r.pick([0, 86_399_999, 1]) : r.int(0, 86_399_999);
      const unit = 10 ** (3 - (type.precision ?? 0));
      return ms - (ms % unit);
    }
    case 'TIMESTAMP':
    case 'TIMESTAMP_LTZ': {
      const precision = type.precision ?? 6;
      let [min, max] = type.root === 'TIMESTAMP' ? c.timestamp : c.ltz;
      // Readers decode TIMESTAMP(7..9) through INT64 nanoseconds (pypaimon, pyarrow).
      if (precision > 6) [min, max] = [min > INT64_NANOS[0] ? min : INT64_NANOS[0], max < INT64_NANOS[1] ? max : INT64_NANOS[1]];
      const nanos = r.chance(0.3) ? r.pick([min, max - 1n, 0n, -1n, 1n]) : r.bigint(min, max - 1n);
      const digits = Math.min(precision, c.timestampDigits);
      const clamped = nanos < min ? min : nanos >= max ? max - 1n : nanos;
      return truncate(clamped, digits);
    }
  }
}

function integer(r: Random, bits: number): number {
  const max = 2 ** (bits - 1) - 1;
  return r.chance(0.3) ? r.pick([-max - 1, max, 0, -1, 1]) : r.int(-max - 1, max);
}

function bytes(r: Random, n: number): Uint8Array {
  return Uint8Array.from({ length: n }, () => r.pick([0, 255, 0x22, 0x2c, 0x0a, r.int(0, 255)]));
}

/** A full-precision double: random bits, a long decimal fraction, or a special value. */
function float64(r: Random, c: Carriage): number {
  const special = [0, 5e-324, -5e-324, 2.2250738585072014e-308, 2.225073858507201e-308, Number.MAX_VALUE, -Number.MAX_VALUE, 0.1, 1 / 3];
  if (c.infinity) special.push(Infinity, -Infinity);
  if (c.nan) special.push(NaN);
  if (c.negativeZero) special.push(-0);
  const kind = r.int(0, 9);
  if (kind < 2) return r.pick(special);
  if (kind < 4) return Number(r.bigint(-(2n ** 53n), 2n ** 53n)) / 10 ** r.int(0, 16);
  // 53 random bits scaled to a moderate magnitude (902127236.7868943): 16–17 significant digits,
  // the values a digit-by-digit text parser gets wrong in the last place (a few in a hundred).
  if (kind < 8) return (r.chance(0.5) ? -1 : 1) * (Number(r.bits64() >> 11n) / 2 ** 53) * 10 ** r.int(3, 12);
  for (;;) {
    const d = new Float64Array(new BigUint64Array([r.bits64()]).buffer)[0]!;
    if (Number.isFinite(d)) return d;
  }
}

function float32(r: Random, c: Carriage): number {
  const special = [0, 1.401298464324817e-45, -1.401298464324817e-45, 1.1754942106924411e-38, 3.4028234663852886e38, -3.4028234663852886e38, Math.fround(0.1), 1.0000001192092896];
  if (c.infinity) special.push(Infinity, -Infinity);
  if (c.nan) special.push(NaN);
  if (c.negativeZero) special.push(-0);
  const kind = r.int(0, 9);
  if (kind < 3) return r.pick(special);
  if (kind < 6) return Math.fround(Number(r.bigint(-(2n ** 24n), 2n ** 24n)) / 10 ** r.int(0, 8));
  for (;;) {
    const f = new Float32Array(new Uint32Array([r.uint32()]).buffer)[0]!;
    if (Number.isFinite(f)) return f;
  }
}

/** Epoch nanoseconds truncated towards the past to `digits` fractional digits of a second. */
export function truncate(epochNanos: bigint, digits: number): OracleTimestamp {
  const unit = 10n ** BigInt(9 - digits);
  const nanos = epochNanos - (((epochNanos % unit) + unit) % unit);
  const millis = nanos >= 0n ? nanos / 1_000_000n : -((-nanos + 999_999n) / 1_000_000n);
  return { epochMillis: Number(millis), nanoOfMillis: Number(nanos - millis * 1_000_000n) };
}

/** Epoch nanoseconds of a timestamp value. */
export function epochNanos(t: OracleTimestamp): bigint {
  return BigInt(t.epochMillis) * 1_000_000n + BigInt(t.nanoOfMillis);
}

/**
 * 2–5 values for a partition column, so partitions hold several rows: strings that Paimon maps to
 * one directory (NULL, '', ' ') or must escape ('a/b', '=', '%', '..').
 */
export function partitionPool(r: Random, type: ColumnType, c: Carriage): OracleValue[] {
  const pool: OracleValue[] = [];
  if (type.root === 'STRING' || type.root === 'VARCHAR') {
    const blanks: OracleValue[] = [...(type.nullable ? [null] : []), ...(c.emptyString ? [''] : []), ' ', '\t'];
    if (r.chance(0.6)) pool.push(...blanks);
    const max = type.length ?? 100;
    pool.push(...r.sample(['a/b', '=', 'k=v', '%', '%2F', '..', '.', 'ünï😀', 'x y', '#?&', 'ABC', 'abc', 'a\\b', ':'], r.int(1, 4)).map((s) => [...s].slice(0, max).join('')));
  } else {
    if (type.nullable) pool.push(null);
    for (let i = 0, n = r.int(1, 3); i < n; i++) pool.push(value(r, type, c));
  }
  return [...new Map(pool.map((v) => [typeof v === 'bigint' ? `n${v}` : JSON.stringify(v), v])).values()];
}

