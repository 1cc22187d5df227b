/**
 * Fast paths for the texts databases print most, read with character codes and integer arithmetic
 * (no regex, no BigInt, no Date, no object per value). Each answers only the common, plainly valid
 * form and returns `undefined` for anything else, which the caller then hands to the exact readers
 * (exact-numbers.ts, temporal-text.ts). On what they accept they give the same value as those,
 * which test/unit/fast-text.test.ts checks on adversarial and random inputs.
 */
import { epochDay } from './temporal-text.ts';

const ZERO = 48;
const MINUS = 45;
const PLUS = 43;
const DOT = 46;

/**
 * The unscaled value of a plain decimal numeral (`-123.45`, `7`, `+0.50`, `.5`; no exponent, no
 * blanks) at `scale` places, when it fits DECIMAL(precision, scale) and has at most 15 digits from
 * its first non-zero one (so every step is an exact double); undefined otherwise, also for what the
 * exact reader refuses (it words the refusal).
 */
export function fastUnscaledDecimal(text: string, precision: number, scale: number): number | undefined {
  const n = text.length;
  let i = 0;
  const first = text.charCodeAt(0);
  const negative = first === MINUS;
  if (negative || first === PLUS) i = 1;
  let mantissa = 0; // every digit, the fraction's trailing zeros included
  let significant = 0; // digits from the first non-zero one
  let fraction = -1; // digits after the dot; -1: no dot
  let trailingZeros = 0; // zeros at the end of the fraction
  let anyDigit = false;
  for (; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === DOT && fraction < 0) {
      fraction = 0;
      continue;
    }
    const d = c - ZERO;
    if (d < 0 || d > 9) return undefined;
    anyDigit = true;
    if (fraction >= 0) {
      fraction++;
      trailingZeros = d === 0 ? trailingZeros + 1 : 0;
    }
    mantissa = mantissa * 10 + d;
    if (mantissa !== 0 && ++significant > 15) return undefined;
  }
  return anyDigit ? scaled(mantissa, significant, fraction, trailingZeros, negative, precision, scale) : undefined;
}

/**
 * The end of both decimal readers: the digits read (`mantissa`, `significant` of them from the
 * first non-zero one, `fraction` after the dot or -1, the last `trailingZeros` of them zeros) as
 * the unscaled value at `scale` places, or undefined when it does not fit or is not exact.
 */
function scaled(mantissa: number, significant: number, fraction: number, trailingZeros: number, negative: boolean, precision: number, scale: number): number | undefined {
  if (mantissa === 0) return 0;
  const places = Math.max(fraction, 0);
  if (places - trailingZeros > scale) return undefined;
  if (places > scale) {
    // Only zeros are dropped: the quotient is an exact integer.
    const unscaled = mantissa / 10 ** (places - scale);
    return unscaled >= 10 ** precision ? undefined : negative ? -unscaled : unscaled;
  }
  if (significant + scale - places > 15) return undefined;
  const unscaled = mantissa * 10 ** (scale - places);
  if (unscaled >= 10 ** precision) return undefined;
  return negative ? -unscaled : unscaled;
}

function twoDigits(text: string, at: number): number {
  const a = text.charCodeAt(at) - ZERO;
  const b = text.charCodeAt(at + 1) - ZERO;
  return a >= 0 && a <= 9 && b >= 0 && b <= 9 ? a * 10 + b : -1;
}

function fourDigits(text: string, at: number): number {
  const hi = twoDigits(text, at);
  const lo = twoDigits(text, at + 2);
  return hi < 0 || lo < 0 ? -1 : hi * 100 + lo;
}

/** `YYYY-MM-DD` as days since 1970-01-01 (undefined for any other text or an impossible date). */
export function fastEpochDay(text: string): number | undefined {
  return text.length === 10 ? epochDayAt(text) : undefined;
}

/** The `YYYY-MM-DD` that starts `text`, as days since 1970-01-01. */
function epochDayAt(text: string): number | undefined {
  if (text.charCodeAt(4) !== MINUS || text.charCodeAt(7) !== MINUS) return undefined;
  const year = fourDigits(text, 0);
  const month = twoDigits(text, 5);
  const day = twoDigits(text, 8);
  if (year < 0 || month < 0 || day < 0) return undefined;
  return epochDay(year, month, day);
}

/**
 * `YYYY-MM-DD HH:MM:SS[.f…]` (1 to 9 fraction digits; MySQL's DATETIME and TIMESTAMP text) read as
 * UTC into `millis[at]` and `nanos[at]` (nanoseconds within the millisecond); false, leaving both as
 * they were, for any other text or an impossible date or time.
 */
export function fastTimestampInto(text: string, millis: Float64Array, nanos: Int32Array, at: number): boolean {
  const n = text.length;
  if (n < 19 || n === 20 || n > 29 || text.charCodeAt(10) !== 32 || text.charCodeAt(13) !== 58 || text.charCodeAt(16) !== 58) return false;
  const days = epochDayAt(text);
  const hour = twoDigits(text, 11);
  const minute = twoDigits(text, 14);
  const second = twoDigits(text, 17);
  if (days === undefined || hour < 0 || hour > 23 || minute < 0 || minute > 59 || second < 0 || second > 59) return false;
  let fraction = 0;
  if (n > 19) {
    if (text.charCodeAt(19) !== DOT) return false;
    for (let i = 20; i < 29; i++) {
      const d = i < n ? text.charCodeAt(i) - ZERO : 0;
      if (d < 0 || d > 9) return false;
      fraction = fraction * 10 + d;
    }
  }
  millis[at] = ((days * 24 + hour) * 60 + minute) * 60_000 + second * 1000 + Math.floor(fraction / 1_000_000);
  nanos[at] = fraction % 1_000_000;
  return true;
}

type WellFormed = string & { isWellFormed(): boolean };

/**
 * Whether `text` is valid Unicode: no lone UTF-16 surrogate (a JSON escape such as "\ud800" makes
 * one). Such a string has no UTF-8 form; written to Parquet it would silently become U+FFFD.
 */
export function isWellFormedText(text: string): boolean {
  return (text as WellFormed).isWellFormed();
}

/**
 * Whether `text` has at most `limit` characters counted as code points (a surrogate pair is one),
 * as Paimon counts a CHAR or VARCHAR length; no array per string.
 */
export function fitsCodePoints(text: string, limit: number): boolean {
  const units = text.length;
  if (units <= limit) return true;
  if (units > 2 * limit) return false;
  let count = 0;
  for (let i = 0; i < units; i++) {
    const c = text.charCodeAt(i);
    // A high surrogate followed by a low one is one character; a lone surrogate counts alone, as [...s] does.
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < units) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) i++;
    }
    if (++count > limit) return false;
  }
  return true;
}

/*
 * The same readers over bytes (`bytes[start..end)`, ASCII text as a database sends it), for a
 * source that writes its raw text cells into the table's columns itself (MySQL's text protocol,
 * mysql/text-cells.ts): each
 * accepts exactly what its string twin accepts for the same characters and gives the same value
 * (test/unit/text-cells.test.ts).
 */

/** `fastSafeInteger` of columns.ts over bytes: `-?\d+` of at most 15 digits as a number; else undefined. */
export function fastSafeIntegerBytes(bytes: Uint8Array, start: number, end: number): number | undefined {
  const negative = bytes[start] === MINUS;
  const from = negative ? start + 1 : start;
  if (end === from || end - from > 15) return undefined;
  let value = 0;
  for (let i = from; i < end; i++) {
    const d = (bytes[i] ?? 0) - ZERO;
    if (d < 0 || d > 9) return undefined;
    value = value * 10 + d;
  }
  return negative ? (value === 0 ? 0 : -value) : value;
}

/** `fastUnscaledDecimal` over bytes. */
export function fastUnscaledDecimalBytes(bytes: Uint8Array, start: number, end: number, precision: number, scale: number): number | undefined {
  let i = start;
  const first = bytes[start];
  const negative = first === MINUS;
  if (negative || first === PLUS) i++;
  let mantissa = 0;
  let significant = 0;
  let fraction = -1;
  let trailingZeros = 0;
  let anyDigit = false;
  for (; i < end; i++) {
    const c = bytes[i] ?? 0;
    if (c === DOT && fraction < 0) {
      fraction = 0;
      continue;
    }
    const d = c - ZERO;
    if (d < 0 || d > 9) return undefined;
    anyDigit = true;
    if (fraction >= 0) {
      fraction++;
      trailingZeros = d === 0 ? trailingZeros + 1 : 0;
    }
    mantissa = mantissa * 10 + d;
    if (mantissa !== 0 && ++significant > 15) return undefined;
  }
  return anyDigit ? scaled(mantissa, significant, fraction, trailingZeros, negative, precision, scale) : undefined;
}

function twoDigitBytes(bytes: Uint8Array, at: number): number {
  const a = (bytes[at] ?? 0) - ZERO;
  const b = (bytes[at + 1] ?? 0) - ZERO;
  return a >= 0 && a <= 9 && b >= 0 && b <= 9 ? a * 10 + b : -1;
}

/** The `YYYY-MM-DD` at `at`, as days since 1970-01-01. */
function epochDayBytesAt(bytes: Uint8Array, at: number): number | undefined {
  if (bytes[at + 4] !== MINUS || bytes[at + 7] !== MINUS) return undefined;
  const hi = twoDigitBytes(bytes, at);
  const lo = twoDigitBytes(bytes, at + 2);
  const month = twoDigitBytes(bytes, at + 5);
  const day = twoDigitBytes(bytes, at + 8);
  if (hi < 0 || lo < 0 || month < 0 || day < 0) return undefined;
  return epochDay(hi * 100 + lo, month, day);
}

/** `fastEpochDay` over bytes. */
export function fastEpochDayBytes(bytes: Uint8Array, start: number, end: number): number | undefined {
  return end - start === 10 ? epochDayBytesAt(bytes, start) : undefined;
}

/** `fastTimestampInto` over bytes. */
export function fastTimestampBytesInto(bytes: Uint8Array, start: number, end: number, millis: Float64Array, nanos: Int32Array, at: number): boolean {
  const n = end - start;
  if (n < 19 || n === 20 || n > 29 || bytes[start + 10] !== 32 || bytes[start + 13] !== 58 || bytes[start + 16] !== 58) return false;
  const days = epochDayBytesAt(bytes, start);
  const hour = twoDigitBytes(bytes, start + 11);
  const minute = twoDigitBytes(bytes, start + 14);
  const second = twoDigitBytes(bytes, start + 17);
  if (days === undefined || hour < 0 || hour > 23 || minute < 0 || minute > 59 || second < 0 || second > 59) return false;
  let fraction = 0;
  if (n > 19) {
    if (bytes[start + 19] !== DOT) return false;
    for (let i = 20; i < 29; i++) {
      const d = i < n ? (bytes[start + i] ?? 0) - ZERO : 0;
      if (d < 0 || d > 9) return false;
      fraction = fraction * 10 + d;
    }
  }
  millis[at] = ((days * 24 + hour) * 60 + minute) * 60_000 + second * 1000 + Math.floor(fraction / 1_000_000);
  nanos[at] = fraction % 1_000_000;
  return true;
}
