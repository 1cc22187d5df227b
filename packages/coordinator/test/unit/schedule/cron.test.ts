import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { CronExpressionParser } from 'cron-parser';
import { isTributaryError } from '@tributary/protocol';
import { checkCron, cronProblem, isTimeZone, minFireGapSeconds } from '../../../src/schedule/cron.ts';

describe('cron pattern check', () => {
  const valid = [
    '*/2 * * * * *',
    '0 30 2 * * *',
    '30 2 * * *',
    '0 0 * * MON-FRI',
    '0 0 1,15 JAN-jun ?',
    '0-30/5 8-18 * * 1-5',
    '0 0 0 * * 7',
    '59 59 23 31 12 6',
    '  0   5 * * *  ',
  ];
  for (const pattern of valid) {
    test(`accepts "${pattern}"`, () => assert.equal(cronProblem(pattern), undefined));
  }

  const invalid: [string, RegExp][] = [
    ['', /5 or 6 fields/],
    ['* * * *', /this one has 4/],
    ['* * * * * * *', /this one has 7/],
    ['61 * * * *', /minute field "61"/],
    ['60 * * * * *', /second field "60"/],
    ['0 24 * * *', /hour field "24"/],
    ['0 0 32 * *', /day of month field "32"/],
    ['0 0 * 13 *', /month field "13"/],
    ['0 0 * * 8', /day of week field "8"/],
    ['0 0 * * FOO', /"FOO" is not a day of week/],
    ['*/0 * * * *', /step "0"/],
    ['*/61 * * * * *', /step "61"/],
    ['5-1 * * * *', /runs backwards/],
    ['1-2-3 * * * *', /not a range/],
    ['*/2/3 * * * *', /more than one step/],
    ['? * * * *', /only allowed in the day fields/],
    ['0 0 L * *', /day of month field "L"/],
    ['0 0 * * 5#3', /day of week field "5#3"/],
    ['0 0 1,,2 * *', /day of month field "1,,2"/],
    ['a b c d e', /minute field "a"/],
  ];
  for (const [pattern, message] of invalid) {
    test(`refuses "${pattern}"`, () => assert.match(cronProblem(pattern) ?? '', message));
  }

  // Forms cron-parser (and so BullMQ) reads but this subset refuses, and one only the whole pattern shows.
  const refusedTooByUs: [string, RegExp][] = [
    ['H * * * *', /minute field "H"/],
    ['@daily', /this one has 1/],
    ['0 0 * * 5L', /day of week field "5L"/],
    ['0 0 30 2 *', /cron-parser refuses it/],
    ['0 0 * * FEB', /"FEB" is not a day of week/],
    ['0 0 * MON *', /"MON" is not a month/],
    ['0,*/30 * * * *', /cron-parser refuses it: .*duplicate/],
  ];
  for (const [pattern, message] of refusedTooByUs) {
    test(`refuses "${pattern}"`, () => assert.match(cronProblem(pattern) ?? '', message));
  }

  // cron-parser takes these (a list of months, or a day that cannot occur in one of them) but finds no next time.
  const neverFiring = ['0 0 31 4,6,9,11 *', '* * * 31 4,6,9,11 *', '0 0 31 2,4 *', '0 0 31 2,4,6 ?', '0 0 31 APR-JUN/2 *'];
  for (const pattern of neverFiring) {
    test(`refuses "${pattern}": it never fires`, () => {
      assert.match(cronProblem(pattern) ?? '', /never fires: day of month .* occurs in none of the months/);
      assert.throws(() => checkCron(pattern, 'UTC'), (e) => isTributaryError(e) && e.code === 'SCHEDULE_CRON_INVALID');
      const fields = pattern.split(' ').length === 6 ? pattern : `0 ${pattern}`;
      assert.throws(() => CronExpressionParser.parse(fields, { currentDate: new Date('2030-01-01T00:00:00Z') }).next(), /loop limit/, 'cron-parser finds no next time either');
    });
  }
  // A day that occurs in one of the months, February 29, or a restricted day of week (either matches): these fire.
  for (const pattern of ['0 0 31 4,5 *', '0 0 29 2 *', '0 0 30,31 2,4 *', '0 0 31 2 MON', '0 0 31 4,6 0-6']) {
    test(`accepts "${pattern}": it fires`, () => {
      assert.equal(cronProblem(pattern), undefined);
      assert.doesNotThrow(() => CronExpressionParser.parse(`0 ${pattern}`, { currentDate: new Date('2030-01-01T00:00:00Z') }).next());
    });
  }

  test('what it accepts, cron-parser accepts', () => {
    for (const pattern of valid) assert.doesNotThrow(() => CronExpressionParser.parse(pattern), pattern);
  });

  test('six zeros means midnight every day', () => assert.equal(cronProblem('0 0 0 * * *'), undefined));
});

describe('time zone check', () => {
  test('IANA zones and UTC are known', () => {
    for (const tz of ['UTC', 'Europe/Berlin', 'America/New_York', 'Asia/Kolkata']) assert.ok(isTimeZone(tz), tz);
  });
  test('made-up zones are not', () => {
    for (const tz of ['Mars/Olympus', 'Europe/Berlinn', '+25:00', '']) assert.equal(isTimeZone(tz), false, tz);
  });
});

describe('checkCron', () => {
  test('normalises spaces', () => assert.equal(checkCron(' */2  * * * * * ', 'UTC'), '*/2 * * * * *'));
  test('a bad pattern is SCHEDULE_CRON_INVALID with the pattern in its context', () => {
    assert.throws(
      () => checkCron('61 * * * *', undefined),
      (e: unknown) => isTributaryError(e) && e.code === 'SCHEDULE_CRON_INVALID' && e.context['cron'] === '61 * * * *' && !e.retryable,
    );
  });
  test('a bad zone is SCHEDULE_TIMEZONE_INVALID', () => {
    assert.throws(() => checkCron('* * * * *', 'Nowhere/Land'), (e: unknown) => isTributaryError(e) && e.code === 'SCHEDULE_TIMEZONE_INVALID');
  });
});

describe('the shortest gap between two fires', () => {
  const cases: [string, number][] = [
    ['* * * * * *', 1],
    ['*/2 * * * * *', 2],
    ['0,30 * * * * *', 30],
    ['* * * * *', 60],
    ['0 58,59 * * * *', 60],
    ['*/5 * * * *', 300],
    ['0 0 0,23 * * *', 3600],
    // 00:00, 00:59, 23:00, 23:59: the shortest is across midnight, 23:59 to 00:00.
    ['0 0,59 0,23 * * *', 60],
    // The same with seconds 0 and 50: 23:59:50 to 00:00:00 is 10 s, shorter than any gap within a day (50 s).
    ['0,50 0,59 0,23 * * *', 10],
    // Mondays and Wednesdays at 00:00 and 23:00: Monday 23:00 to Wednesday 00:00 is 25 h, so 23 h.
    ['0 0,23 * * 1,3', 82_800],
    ['0 30 2 * * *', 86_400],
    ['0 0 1 1 *', 86_400],
    // Every second of one day of the year: the once-a-year burst counts.
    ['* * * 1 1 *', 1],
  ];
  for (const [pattern, seconds] of cases) {
    test(`"${pattern}": ${seconds} s`, () => assert.equal(minFireGapSeconds(pattern), seconds));
  }

  test('checkCron refuses a pattern firing more often than the minimum, naming it; 0 allows any', () => {
    for (const pattern of ['* * * * * *', '*/30 * * * * *', '0 0,59 0,23 * * *']) {
      assert.throws(
        () => checkCron(pattern, 'UTC', 61_000),
        (e: unknown) => isTributaryError(e) && e.code === 'SCHEDULE_CRON_TOO_FREQUENT' && e.context['cron'] === pattern && e.message.includes(`"${pattern}"`) && !e.retryable,
        pattern,
      );
    }
    assert.equal(checkCron('* * * * *', 'UTC', 60_000), '* * * * *', 'every minute is allowed at 60 s');
    assert.equal(checkCron('* * * * * *', 'UTC', 0), '* * * * * *');
    assert.equal(checkCron('* * * * * *', 'UTC'), '* * * * * *', 'no minimum by default here (the service passes its setting)');
  });
});
