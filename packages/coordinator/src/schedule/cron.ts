/**
 * Checks a schedule's cron pattern and time zone before BullMQ sees them, so a bad pattern is
 * refused with its own code and a message naming the field, instead of surfacing later as whatever
 * the cron library throws. Pure: no clock, no I/O.
 *
 * cron-parser, at the version BullMQ's job schedulers use, is the judge: a pattern it refuses is
 * refused here, so what we accept is what BullMQ accepts. On top of it we accept a subset only:
 * 5 fields (minute hour day-of-month month day-of-week; seconds are 0) or 6 fields (second first);
 * each field a list of `*`, `?` (day fields only), a value or a range `a-b`, each optionally with a
 * step `/n` no wider than the field; months and weekdays also by name (JAN, MON; each field only
 * its own names, where cron-parser would read FEB as Tuesday). No value may repeat within a field
 * (cron-parser refuses `0,30,0`). cron-parser's shorter forms (fewer fields, `@daily`), `L`, `W`,
 * `#` and `H` are refused: a schedule that needs them can be written as one or several schedules
 * in the plain form, which reads the same everywhere.
 */
import { CronExpressionParser, type CronExpression } from 'cron-parser';
import { errorFrom } from '@tributary/protocol';
import { coordinatorErrors } from '../errors.ts';

interface FieldSpec {
  readonly name: string;
  /** How many values the field holds (seconds 60, weekdays 8 with both 0 and 7 for Sunday). */
  readonly size: number;
  readonly question?: boolean;
  /** The names the field takes (cron-parser takes either field's names in both). */
  readonly names?: readonly string[];
}

const FIELDS: readonly FieldSpec[] = [
  { name: 'second', size: 60 },
  { name: 'minute', size: 60 },
  { name: 'hour', size: 24 },
  { name: 'day of month', size: 31, question: true },
  { name: 'month', size: 12, names: ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'] },
  { name: 'day of week', size: 8, question: true, names: ['SUN', 'MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT'] },
];

/** One list item of the subset we accept: base (`*`, `?`, value or name), optional `-end`, optional `/step`. */
const ITEM = /^(?:\*|\?|\d{1,2}|[a-z]{3})(?:-(?:\d{1,2}|[a-z]{3}))?(?:\/\d{1,2})?$/i;

/** Why the pattern is invalid, or undefined when it is valid. */
export function cronProblem(pattern: string): string | undefined {
  const parts = pattern.trim().split(/\s+/);
  if (parts.length !== 5 && parts.length !== 6) {
    return `a cron pattern has 5 or 6 fields separated by spaces, this one has ${parts.length}`;
  }
  const specs = parts.length === 6 ? FIELDS : FIELDS.slice(1);
  for (const [i, part] of parts.entries()) {
    const spec = specs[i];
    if (spec === undefined) continue;
    const at = FIELDS.indexOf(spec);
    for (const item of part.split(',')) {
      const problem = itemProblem(item, spec, at);
      if (problem !== undefined) return `${spec.name} field "${part}": ${problem}`;
    }
  }
  // Each item passed alone; the whole pattern must pass as BullMQ will read it.
  const fields = parts.length === 6 ? parts : ['0', ...parts];
  const refused = parserRefusal(fields);
  if (refused !== undefined) return `cron-parser refuses it: ${refused}`;
  return neverFires(CronExpressionParser.parse(fields.join(' ')));
}

/** Days each month can have (February 29 in leap years: `0 0 29 2 *` fires every four years or so). */
const DAYS_IN_MONTH: readonly number[] = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/**
 * Why a pattern cron-parser takes can never fire, or undefined. cron-parser refuses only a single
 * month whose day cannot occur (`0 0 31 4 *`); with a list of months (`0 0 31 4,6,9,11 *`) it takes
 * the pattern, and its search for the next time gives up, so BullMQ would store a schedule that
 * never runs. Times of day always occur, so only the days can fail: a day of month restricts the
 * days alone when the day of week is `*` or `?` (both restricted match either, as cron-parser's
 * `matchDayOfMonth` does, and every month has every weekday).
 */
function neverFires(expression: CronExpression): string | undefined {
  const { dayOfMonth, month, dayOfWeek } = expression.fields;
  if (!dayOfWeek.isWildcard) return undefined;
  const days = dayOfMonth.values.flatMap((d) => (typeof d === 'number' ? [d] : []));
  const fires = month.values.some((m) => days.some((d) => d <= (DAYS_IN_MONTH[m - 1] ?? 0)));
  return fires ? undefined : `it never fires: day of month ${days.join(',')} occurs in none of the months ${month.values.join(',')}`;
}

function itemProblem(item: string, spec: FieldSpec, at: number): string | undefined {
  const [base = '', step, extra] = item.split('/');
  if (extra !== undefined) return `"${item}" has more than one step`;
  if (base.split('-').length > 2) return `"${base}" is not a range a-b`;
  if (!ITEM.test(item)) return `"${item}" is not a ${spec.name}, a range a-b, * or ?, each with an optional step /n`;
  if (base === '?' && spec.question !== true) return `"?" is only allowed in the day fields`;
  if (step !== undefined && (Number(step) < 1 || Number(step) > spec.size)) return `step "${step}" is not between 1 and ${spec.size}`;
  if (base === '*' || base === '?') return undefined;
  // Ask cron-parser about each end alone, then about the range.
  const [from = '', to] = base.split('-');
  for (const end of to === undefined ? [from] : [from, to]) {
    if (/^[a-z]+$/i.test(end) && spec.names?.includes(end.toUpperCase()) !== true) {
      return `"${end}" is not a ${spec.name}${spec.names === undefined ? '' : ` (names: ${spec.names.join(' ')})`}`;
    }
    const refused = fieldRefusal(at, end);
    if (refused !== undefined) return `"${end}" is not a ${spec.name} (${refused})`;
  }
  const refused = fieldRefusal(at, item);
  if (refused === undefined) return undefined;
  // Both ends are values of the field, the step is in range: the range itself is what is refused.
  return `range "${base}" runs backwards (${refused})`;
}

/** cron-parser's message for a 6-field pattern holding `text` in field `at` and `*` elsewhere. */
function fieldRefusal(at: number, text: string): string | undefined {
  return parserRefusal(FIELDS.map((_, i) => (i === at ? text : '*')));
}

function parserRefusal(fields: readonly string[]): string | undefined {
  try {
    CronExpressionParser.parse(fields.join(' '));
    return undefined;
  } catch (e) {
    return e instanceof Error ? e.message : String(e);
  }
}

/** Whether the runtime knows this IANA time zone (the same table BullMQ's cron library uses). */
export function isTimeZone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

const DAY_S = 86_400;

/**
 * The shortest time, in seconds, between two successive fires of a valid pattern (`cronProblem`
 * found nothing), on the wall clock of its time zone (a daylight-saving change can bring two fires
 * closer once). Exact: a day's fire times are every second × minute × hour of the pattern, the
 * same on each day it fires; across midnight the gap from a day's last fire to the next day's
 * first counts only if two successive calendar days both fire (looked up with cron-parser over
 * the next 28 years, a whole cycle of weekdays and leap years; only when that gap is below `atLeast`
 * and the rest: a caller asking whether the gap reaches `atLeast` needs no more). A pattern firing once
 * a day at most gives one day.
 */
export function minFireGapSeconds(pattern: string, atLeast = Number.POSITIVE_INFINITY): number {
  const parts = pattern.trim().split(/\s+/);
  const fields = parts.length === 6 ? parts : ['0', ...parts];
  const { second, minute, hour } = CronExpressionParser.parse(fields.join(' ')).fields;
  const numbers = (values: readonly (number | string)[]) => [...new Set(values.filter((v): v is number => typeof v === 'number'))].sort((a, b) => a - b);
  const seconds = numbers(second.values);
  const minutes = numbers(minute.values);
  const hours = numbers(hour.values);
  let gap = Number.POSITIVE_INFINITY;
  let previous: number | undefined;
  for (const h of hours) {
    for (const m of minutes) {
      for (const s of seconds) {
        const at = h * 3600 + m * 60 + s;
        if (previous !== undefined) gap = Math.min(gap, at - previous);
        previous = at;
      }
    }
  }
  const first = (hours[0] ?? 0) * 3600 + (minutes[0] ?? 0) * 60 + (seconds[0] ?? 0);
  const last = previous ?? first;
  const overnight = DAY_S - last + first;
  // Only a gap shorter than what the days' own fires give (and than what the caller asks) needs the days looked at.
  if (overnight < gap && overnight < atLeast && firesOnSuccessiveDays(fields)) gap = overnight;
  return Number.isFinite(gap) ? gap : DAY_S;
}

/** Whether two successive calendar days both match the pattern's day fields (within the next 28 years). */
function firesOnSuccessiveDays(fields: readonly string[]): boolean {
  const days = CronExpressionParser.parse(['0', '0', '0', ...fields.slice(3)].join(' '), { currentDate: new Date(Date.UTC(2000, 0, 1)), tz: 'UTC' });
  const end = Date.UTC(2028, 0, 1);
  let previous: number | undefined;
  for (;;) {
    const next = days.next().getTime();
    if (next > end) return false;
    if (previous !== undefined && next - previous === DAY_S * 1000) return true;
    previous = next;
  }
}

/**
 * Throws SCHEDULE_CRON_INVALID, SCHEDULE_CRON_TOO_FREQUENT (two fires closer than `minIntervalMs`,
 * the coordinator's `scheduleMinIntervalMs`; 0 or absent: any) or SCHEDULE_TIMEZONE_INVALID; returns
 * the pattern with single spaces.
 */
export function checkCron(pattern: string, tz: string | undefined, minIntervalMs = 0): string {
  const problem = cronProblem(pattern);
  if (problem !== undefined) throw errorFrom(coordinatorErrors, 'SCHEDULE_CRON_INVALID', `invalid cron pattern "${pattern}": ${problem}`, { cron: pattern });
  if (minIntervalMs > 0) {
    const gapS = minFireGapSeconds(pattern, minIntervalMs / 1000);
    if (gapS * 1000 < minIntervalMs) {
      throw errorFrom(
        coordinatorErrors,
        'SCHEDULE_CRON_TOO_FREQUENT',
        `cron pattern "${pattern}" fires as often as every ${gapS} s; this coordinator allows at least ${minIntervalMs / 1000} s between the fires of a schedule (TRIBUTARY_SCHEDULE_MIN_INTERVAL_MS)`,
        { cron: pattern, intervalSeconds: gapS, minIntervalMs },
      );
    }
  }
  if (tz !== undefined && !isTimeZone(tz)) {
    throw errorFrom(coordinatorErrors, 'SCHEDULE_TIMEZONE_INVALID', `unknown time zone "${tz}" (use an IANA name such as Europe/Berlin)`, { tz });
  }
  return pattern.trim().split(/\s+/).join(' ');
}
