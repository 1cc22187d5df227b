/**
 * Dates and timestamps read from text exactly: every digit of the fraction is kept (to the
 * nanosecond), impossible dates (`2023-02-30`) are refused rather than rolled over as Date.parse
 * does, and no local time zone is ever used. No Date object per value.
 */
import type { Timestamp } from '@tributary/table';

/** Days since 1970-01-01 of a valid proleptic Gregorian date, else undefined. */
export function epochDay(year: number, month: number, day: number): number | undefined {
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return undefined;
  return daysFromCivil(year, month, day);
}

/** H. Hinnant's days_from_civil. */
function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yearOfEra = y - era * 400;
  const dayOfYear = Math.floor((153 * (month > 2 ? month - 3 : month + 9) + 2) / 5) + day - 1;
  return era * 146_097 + yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear - 719_468;
}

function daysInMonth(year: number, month: number): number {
  if (month !== 2) return [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1] ?? 0;
  return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
}

/**
 * The instant of a wall clock (UTC, or `offsetMinutes` east of it), with up to nine fraction
 * digits; undefined for an impossible date or time.
 */
export function civilInstant(year: number, month: number, day: number, hour: number, minute: number, second: number, fraction = '', offsetMinutes = 0): Timestamp | undefined {
  const days = epochDay(year, month, day);
  if (days === undefined || hour > 23 || minute > 59 || second > 59 || fraction.length > 9) return undefined;
  const seconds = ((days * 24 + hour) * 60 + minute - offsetMinutes) * 60 + second;
  const nanos = Number(fraction.padEnd(9, '0'));
  return { epochMillis: seconds * 1000 + Math.floor(nanos / 1_000_000), nanoOfMillis: nanos % 1_000_000 };
}

const ISO_TIMESTAMP = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?)?(Z|[+-]\d{2}(?::?\d{2})?)?$/;

/**
 * `YYYY-MM-DD`, optionally `[T ]HH:MM[:SS[.fffffffff]]`, optionally `Z` or `±HH[:MM]` (without a
 * zone the wall clock is read as UTC). Undefined for anything else.
 */
export function isoTimestamp(text: string): Timestamp | undefined {
  const m = ISO_TIMESTAMP.exec(text);
  if (m === null) return undefined;
  const [, y, mo, d, h = '0', mi = '0', s = '0', fraction = '', zone = 'Z'] = m;
  let offset = 0;
  if (zone !== 'Z') {
    const digits = zone.slice(1).replace(':', '');
    const hours = Number(digits.slice(0, 2));
    const minutes = Number(digits.slice(2) || '0');
    if (hours > 23 || minutes > 59) return undefined;
    offset = (zone.startsWith('-') ? -1 : 1) * (hours * 60 + minutes);
  }
  return civilInstant(Number(y), Number(mo), Number(d), Number(h), Number(mi), Number(s), fraction, offset);
}

/** `YYYY-MM-DD` as days since 1970-01-01; undefined for an impossible date. */
export function isoDate(text: string): number | undefined {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  return m === null ? undefined : epochDay(Number(m[1]), Number(m[2]), Number(m[3]));
}

/**
 * `HH:MM:SS[.f…]` (ISO 8601's extended time of day, 1 to 9 fraction digits, no zone) as
 * milliseconds of the day, the fraction cut toward the past to the millisecond, as Paimon's TIME
 * keeps it; undefined for anything else or an impossible time (`24:00:00`, `12:60:00`, `:60`).
 */
export function isoTimeOfDay(text: string): number | undefined {
  const m = /^(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?$/.exec(text);
  if (m === null) return undefined;
  const [, h = '', mi = '', sec = '', fraction = ''] = m;
  const hour = Number(h);
  const minute = Number(mi);
  const second = Number(sec);
  if (hour > 23 || minute > 59 || second > 59) return undefined;
  return ((hour * 60 + minute) * 60 + second) * 1000 + Number(fraction.padEnd(3, '0').slice(0, 3));
}
