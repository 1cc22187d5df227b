/**
 * Java's text forms of internal values, as partition directory names use them: Float/Double
 * toString (JDK 19+ shortest-digit form), BigDecimal.toPlainString, LocalDateTime.toString (legacy
 * partition names) and org.apache.paimon.utils.DateTimeUtils formatDate / formatTimestamp /
 * formatTimestampMillis (CAST to STRING, non-legacy names). Plus the few parsers the inverse needs.
 */
import { errorFrom } from '@tributary/errors';
import { tableErrors } from '../errors.ts';
import type { Timestamp } from './types.ts';

const MILLIS_PER_DAY = 86_400_000;

function unsupported(message: string): Error {
  return errorFrom(tableErrors, 'PARTITION_VALUE_UNSUPPORTED', message);
}

// ---------------------------------------------------------------------------------------------
// Floating point (Float.toString / Double.toString)
// ---------------------------------------------------------------------------------------------

/** Formats shortest digits `d1.d2…×10^e` the way Java's Double.toString lays them out. */
function javaLayout(negative: boolean, digits: string, exp: number, abs: number): string {
  const sign = negative ? '-' : '';
  if (abs >= 1e-3 && abs < 1e7) {
    if (exp >= 0) {
      const int = digits.slice(0, exp + 1).padEnd(exp + 1, '0');
      return `${sign}${int}.${digits.slice(exp + 1) || '0'}`;
    }
    return `${sign}0.${'0'.repeat(-exp - 1)}${digits}`;
  }
  return `${sign}${digits[0] ?? '0'}.${digits.slice(1) || '0'}E${exp}`;
}

function special(v: number): string | undefined {
  if (Number.isNaN(v)) return 'NaN';
  if (v === Infinity) return 'Infinity';
  if (v === -Infinity) return '-Infinity';
  if (v === 0) return Object.is(v, -0) ? '-0.0' : '0.0';
  return undefined;
}

function fromExponential(v: number, s: string): string {
  const m = /^(-?)(\d)(?:\.(\d+))?e([+-]\d+)$/.exec(s);
  if (m === null) throw new RangeError(`unexpected exponential form ${s}`);
  const digits = ((m[2] ?? '') + (m[3] ?? '')).replace(/0+$/, '') || '0';
  return javaLayout(m[1] === '-', digits, Number(m[4]), Math.abs(v));
}

/**
 * Double.toString (JDK 19+): the shortest decimal that reads back as the same double, but never
 * fewer than two significant digits (then the closest two-digit one: 4.9E-324, not 5.0E-324);
 * trailing zeros are dropped from the layout.
 */
export function formatJavaDouble(v: number): string {
  const s = special(v);
  if (s !== undefined) return s;
  const shortest = v.toExponential();
  return fromExponential(v, /^-?\de/.test(shortest) ? v.toExponential(1) : shortest);
}

/** Float.toString of a float32 value (JDK 19+ shortest form, at least two digits as for double). */
export function formatJavaFloat(value: number): string {
  const f = Math.fround(value);
  const s = special(f);
  if (s !== undefined) return s;
  for (let p = 1; p < 9; p++) {
    const candidate = f.toExponential(p);
    if (Math.fround(Number(candidate)) === f) return fromExponential(f, candidate);
  }
  return fromExponential(f, f.toExponential(8));
}

// ---------------------------------------------------------------------------------------------
// Decimal (BigDecimal.toPlainString)
// ---------------------------------------------------------------------------------------------

/** BigDecimal(unscaled, scale).toPlainString(): `1.50`, `-0.05`, `150`. */
export function formatDecimalPlain(unscaled: bigint, scale: number): string {
  const negative = unscaled < 0n;
  const digits = (negative ? -unscaled : unscaled).toString().padStart(scale + 1, '0');
  const plain = scale === 0 ? digits : `${digits.slice(0, digits.length - scale)}.${digits.slice(digits.length - scale)}`;
  return negative ? `-${plain}` : plain;
}

/** The unscaled value of a plain decimal string at this scale, or undefined if it does not fit. */
export function parseDecimalPlain(text: string, precision: number, scale: number): bigint | undefined {
  const m = /^(-?)(\d+)(?:\.(\d+))?$/.exec(text);
  if (m === null) return undefined;
  const fraction = m[3] ?? '';
  if (fraction.length > scale) return undefined;
  const magnitude = BigInt((m[2] ?? '') + fraction.padEnd(scale, '0'));
  if (magnitude >= 10n ** BigInt(precision)) return undefined;
  return m[1] === '-' ? -magnitude : magnitude;
}

// ---------------------------------------------------------------------------------------------
// Dates and times
// ---------------------------------------------------------------------------------------------

interface Civil {
  readonly year: number;
  readonly month: number;
  readonly day: number;
}

function civilOfDay(epochDay: number): Civil {
  const d = new Date(epochDay * MILLIS_PER_DAY);
  if (Number.isNaN(d.getTime())) throw unsupported(`epoch day ${epochDay} is outside the supported date range`);
  return { year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, day: d.getUTCDate() };
}

function epochDayOf(year: number, month: number, day: number): number | undefined {
  const d = new Date(0);
  d.setUTCFullYear(year, month - 1, day);
  if (d.getUTCFullYear() !== year || d.getUTCMonth() !== month - 1 || d.getUTCDate() !== day) return undefined;
  return Math.round(d.getTime() / MILLIS_PER_DAY);
}

const pad = (n: number, width: number): string => String(n).padStart(width, '0');

/** Timestamp.toLocalDateTime: floor division of the millis into a day and a nano-of-day. */
function splitTimestamp(ts: Timestamp): { civil: Civil; h: number; m: number; s: number; nano: number } {
  const day = Math.floor(ts.epochMillis / MILLIS_PER_DAY);
  const ms = ts.epochMillis - day * MILLIS_PER_DAY;
  return {
    civil: civilOfDay(day),
    h: Math.floor(ms / 3_600_000),
    m: Math.floor((ms % 3_600_000) / 60_000),
    s: Math.floor((ms % 60_000) / 1000),
    nano: (ms % 1000) * 1_000_000 + ts.nanoOfMillis,
  };
}

/** LocalDate.toString: 4-digit years padded, `+` above 9999, `-` before year 0. */
function isoYear(year: number): string {
  if (Math.abs(year) < 1000) return (year < 0 ? '-' : '') + pad(Math.abs(year), 4);
  return (year > 9999 ? '+' : '') + String(year);
}

/** LocalDateTime.toString: `2024-01-01T00:00`, seconds only when non-zero, fraction in 3/6/9 digits. */
export function formatLocalDateTime(ts: Timestamp): string {
  const { civil, h, m, s, nano } = splitTimestamp(ts);
  let out = `${isoYear(civil.year)}-${pad(civil.month, 2)}-${pad(civil.day, 2)}T${pad(h, 2)}:${pad(m, 2)}`;
  if (s > 0 || nano > 0) {
    out += `:${pad(s, 2)}`;
    if (nano % 1_000_000 === 0 && nano > 0) out += '.' + pad(nano / 1_000_000, 3);
    else if (nano % 1000 === 0 && nano > 0) out += '.' + pad(nano / 1000, 6);
    else if (nano > 0) out += '.' + pad(nano, 9);
  }
  return out;
}

function int4Year(year: number): string {
  // DateTimeUtils.int4 prints four digits; other years would come out garbled in Java.
  if (year < 0 || year > 9999) throw unsupported(`year ${year} has no 4-digit CAST form`);
  return pad(year, 4);
}

/** DateTimeUtils.formatDate: CAST(DATE AS STRING), `2024-01-01`. */
export function formatJavaDate(epochDay: number): string {
  const c = civilOfDay(epochDay);
  return `${int4Year(c.year)}-${pad(c.month, 2)}-${pad(c.day, 2)}`;
}

/** DateTimeUtils.formatTimestamp(ts, UTC, precision): trailing zeros trimmed down to `precision`. */
export function formatSqlTimestamp(ts: Timestamp, precision: number): string {
  const { civil, h, m, s, nano } = splitTimestamp(ts);
  let fraction = pad(nano, 9);
  while (fraction.length > precision && fraction.endsWith('0')) fraction = fraction.slice(0, -1);
  const base = `${int4Year(civil.year)}-${pad(civil.month, 2)}-${pad(civil.day, 2)} ${pad(h, 2)}:${pad(m, 2)}:${pad(s, 2)}`;
  return fraction.length > 0 ? `${base}.${fraction}` : base;
}

const int2 = (i: number): string => `${Math.floor(i / 10) % 10}${i % 10}`;

/** DateTimeUtils.formatTimestampMillis: CAST(TIME AS STRING), including its digit loop. */
export function formatSqlTime(millisOfDay: number, precision: number): string {
  let time = millisOfDay;
  while (time < 0) time += MILLIS_PER_DAY;
  let ms = time % 1000;
  let out = `${int2(Math.floor(time / 3_600_000))}:${int2(Math.floor((time % 3_600_000) / 60_000))}:${int2(Math.floor((time % 60_000) / 1000))}`;
  if (precision > 0) {
    out += '.';
    for (let p = precision; p > 0; p--) {
      out += String(Math.floor(ms / 100));
      ms = (ms % 100) * 10;
      if (ms === 0) break; // "keep consistent with Timestamp.toString()"
    }
  }
  return out;
}

/** `yyyy-MM-dd` → epoch day. */
export function parseSqlDate(text: string): number | undefined {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  return m === null ? undefined : epochDayOf(Number(m[1]), Number(m[2]), Number(m[3]));
}

/** LocalDateTime.toString (`T`) or CAST (` `) text → Timestamp. */
export function parseLocalDateTime(text: string): Timestamp | undefined {
  const m = /^([+-]?\d{4,})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?$/.exec(text);
  if (m === null) return undefined;
  const day = epochDayOf(Number(m[1]), Number(m[2]), Number(m[3]));
  const [h, min, s] = [Number(m[4]), Number(m[5]), Number(m[6] ?? '0')];
  if (day === undefined || h > 23 || min > 59 || s > 59) return undefined;
  const nano = Number((m[7] ?? '').padEnd(9, '0'));
  const epochMillis = day * MILLIS_PER_DAY + h * 3_600_000 + min * 60_000 + s * 1000 + Math.floor(nano / 1_000_000);
  return { epochMillis, nanoOfMillis: nano % 1_000_000 };
}
