/**
 * Checks a schedule's cron pattern and time zone before BullMQ sees them, so a bad pattern is
 * refused with its own code and a message naming the field, instead of surfacing as whatever the
 * cron library throws. Pure: no clock, no I/O.
 *
 * Accepted: 5 fields (minute hour day-of-month month day-of-week; seconds are 0) or 6 fields
 * (second first), the form BullMQ's job schedulers read (cron-parser). Each field is a list of
 * `*`, `?` (day fields only), a value, or a range `a-b`, each optionally with a step `/n`; months
 * and weekdays also by name (JAN, MON). cron-parser's `L`, `W` and `#` are refused: a schedule
 * that needs them can be written as several schedules.
 */
import { errorFrom } from '@tributary/protocol';
import { coordinatorErrors } from '../errors.ts';

interface FieldSpec {
  readonly name: string;
  readonly min: number;
  readonly max: number;
  readonly names?: readonly string[];
  readonly question?: boolean;
}

const MONTHS = ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'];
const WEEKDAYS = ['SUN', 'MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT'];

const FIELDS: readonly FieldSpec[] = [
  { name: 'second', min: 0, max: 59 },
  { name: 'minute', min: 0, max: 59 },
  { name: 'hour', min: 0, max: 23 },
  { name: 'day of month', min: 1, max: 31, question: true },
  // Month names map to 1..12, weekday names to 0..6; 7 is Sunday too (cron-parser).
  { name: 'month', min: 1, max: 12, names: ['', ...MONTHS] },
  { name: 'day of week', min: 0, max: 7, names: WEEKDAYS, question: true },
];

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
    const problem = fieldProblem(part, spec);
    if (problem !== undefined) return `${spec.name} field "${part}": ${problem}`;
  }
  return undefined;
}

function fieldProblem(field: string, spec: FieldSpec): string | undefined {
  for (const item of field.split(',')) {
    const problem = itemProblem(item, spec);
    if (problem !== undefined) return problem;
  }
  return undefined;
}

function itemProblem(item: string, spec: FieldSpec): string | undefined {
  const [base = '', step, extra] = item.split('/');
  if (extra !== undefined) return `"${item}" has more than one step`;
  if (step !== undefined) {
    const n = integer(step);
    if (n === undefined || n < 1 || n > spec.max - spec.min + 1) return `step "${step}" is not between 1 and ${spec.max - spec.min + 1}`;
  }
  if (base === '*') return undefined;
  if (base === '?') return spec.question === true ? undefined : `"?" is only allowed in the day fields`;
  const [from = '', to, more] = base.split('-');
  if (more !== undefined) return `"${base}" is not a range a-b`;
  const low = value(from, spec);
  if (low === undefined) return `"${from}" is not a ${spec.name} (${spec.min}-${spec.max}${spec.names === undefined ? '' : ' or a name'})`;
  if (to === undefined) return undefined;
  const high = value(to, spec);
  if (high === undefined) return `"${to}" is not a ${spec.name} (${spec.min}-${spec.max}${spec.names === undefined ? '' : ' or a name'})`;
  return low <= high ? undefined : `range "${base}" runs backwards`;
}

function value(text: string, spec: FieldSpec): number | undefined {
  const byName = text === '' ? -1 : (spec.names?.indexOf(text.toUpperCase()) ?? -1);
  if (byName >= 0) return byName;
  const n = integer(text);
  return n !== undefined && n >= spec.min && n <= spec.max ? n : undefined;
}

function integer(text: string): number | undefined {
  return /^\d{1,2}$/.test(text) ? Number(text) : undefined;
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

/** Throws SCHEDULE_CRON_INVALID or SCHEDULE_TIMEZONE_INVALID; returns the pattern with single spaces. */
export function checkCron(pattern: string, tz: string | undefined): string {
  const problem = cronProblem(pattern);
  if (problem !== undefined) throw errorFrom(coordinatorErrors, 'SCHEDULE_CRON_INVALID', `invalid cron pattern "${pattern}": ${problem}`, { cron: pattern });
  if (tz !== undefined && !isTimeZone(tz)) {
    throw errorFrom(coordinatorErrors, 'SCHEDULE_TIMEZONE_INVALID', `unknown time zone "${tz}" (use an IANA name such as Europe/Berlin)`, { tz });
  }
  return pattern.trim().split(/\s+/).join(' ');
}
