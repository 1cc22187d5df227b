import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mysqlTime, mysqlTimestamp } from '../../src/mysql/source.ts';

test('DATETIME/TIMESTAMP text → exact instants, microseconds and years before 1970 or 100 included', () => {
  const year50 = new Date(0);
  year50.setUTCFullYear(50, 5, 1); // Date.UTC would read year 50 as 1950
  year50.setUTCHours(12, 0, 0, 0);
  const cases: [text: string, expected: { epochMillis: number; nanoOfMillis: number } | undefined][] = [
    ['1970-01-01 00:00:00', { epochMillis: 0, nanoOfMillis: 0 }],
    ['2024-02-29 23:59:59.999999', { epochMillis: Date.UTC(2024, 1, 29, 23, 59, 59, 999), nanoOfMillis: 999_000 }],
    ['1969-12-31 23:59:59.000001', { epochMillis: -1000, nanoOfMillis: 1000 }],
    ['1900-01-01 00:00:00.5', { epochMillis: Date.UTC(1900, 0, 1) + 500, nanoOfMillis: 0 }],
    ['0050-06-01 12:00:00', { epochMillis: year50.getTime(), nanoOfMillis: 0 }],
    ['0000-00-00 00:00:00', undefined], // MySQL's zero date: refused by the converter as a string
    ['2023-02-30 00:00:00', undefined],
    ['2023-02-03T00:00:00', undefined],
  ];
  for (const [text, expected] of cases) assert.deepEqual(mysqlTimestamp(text), expected, text);
});

test('TIME text → milliseconds of the day; outside a day is left to be refused, finer than a millisecond is a fraction TIME refuses', () => {
  const cases: [string, number | undefined][] = [
    ['00:00:00', 0],
    ['23:59:59.999', 86_399_999],
    ['12:34:56.789000', 45_296_789],
    ['12:34:56.789001', 45_296_789.001],
    ['12:00:00.000001', 43_200_000.001],
    ['23:59:59.999999', 86_399_999.999],
    ['24:00:00', undefined],
    ['-01:00:00', undefined],
    ['838:59:59', undefined],
  ];
  for (const [text, expected] of cases) assert.equal(mysqlTime(text), expected, text);
  // The fraction is what makes TIME refuse it: never an integer.
  for (const text of ['12:00:00.000001', '00:00:00.0009', '23:59:59.999999']) assert.equal(Number.isInteger(mysqlTime(text)), false, text);
});
