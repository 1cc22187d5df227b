/**
 * The fast text readers (values/fast-text.ts) against the exact ones they stand in for: whenever a
 * fast reader answers, its answer is the exact reader's; and on the texts databases print (plain
 * decimals that fit, valid dates and timestamps) it does answer, so the fast path is really taken.
 * Adversarial values by hand (DECIMAL extremes, leap days, year 0 and 9999, every fraction length,
 * astral characters, lone surrogates) and random ones by fast-check.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { unscaledDecimal } from '../../src/values/exact-numbers.ts';
import { fastEpochDay, fastTimestampInto, fastUnscaledDecimal, fitsCodePoints } from '../../src/values/fast-text.ts';
import { civilInstant, isoDate, isoTimestamp } from '../../src/values/temporal-text.ts';
import { mysqlTimestamp } from '../../src/mysql/source.ts';
import type { Timestamp } from '@tributary/table';

/** MySQL's DATETIME text read as the MySQL source read it before the fast path: one regex, then civilInstant. */
function regexMysqlTimestamp(text: string): Timestamp | undefined {
  const m = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?$/.exec(text);
  if (m === null) return undefined;
  const [, y, mo, d, h, mi, s, fraction] = m;
  return civilInstant(Number(y), Number(mo), Number(d), Number(h), Number(mi), Number(s), fraction);
}

const RUNS = { numRuns: 20_000 };

/** The fast reader's answer agrees with the exact one's (when it gives one). */
function assertDecimalAgrees(text: string, precision: number, scale: number): number | undefined {
  const fast = fastUnscaledDecimal(text, precision, scale);
  if (fast === undefined) return undefined;
  const exact = unscaledDecimal(text, precision, scale);
  assert.equal(typeof exact, 'bigint', `${text} as DECIMAL(${precision}, ${scale}): fast ${fast}, exact ${String(exact)}`);
  assert.ok(Number.isSafeInteger(fast), `${text}: ${fast} is a safe integer`);
  assert.equal(BigInt(fast), exact, `${text} as DECIMAL(${precision}, ${scale})`);
  assert.ok(!Object.is(fast, -0), `${text}: no negative zero`);
  return fast;
}

describe('fastUnscaledDecimal', () => {
  test('adversarial numerals: the exact value, or no answer', () => {
    const texts = [
      '0', '-0', '+0', '0.00', '-0.000000', '.5', '-.5', '5.', '.', '-', '+', '', ' 1', '1 ', '1e3', '1E-2', '--1', '1.2.3', '0x10', '١٢',
      '99999999.99', '-99999999.99', '100000000.00', '999999999999.999', '0.001', '0.010', '1.500', '1.5000000000000000000', '123456789012345',
      '1234567890123456', '12345678901234.5', '0.000000000000001', '00000000000000000000012.30', '9007199254740991', '9007199254740993',
      '999999999999999999', '-999999999999999999', '99999999999999.9999', '0.99999999999999999',
    ];
    for (const text of texts) for (const [p, s] of [[12, 2], [18, 4], [18, 0], [10, 10], [1, 0], [15, 15], [38, 10]] as const) assertDecimalAgrees(text, p, s);
    assert.equal(fastUnscaledDecimal('99999999.99', 10, 2), 9_999_999_999);
    assert.equal(fastUnscaledDecimal('-0.5', 12, 2), -50);
    assert.equal(fastUnscaledDecimal('1.500', 12, 2), 150);
    assert.equal(fastUnscaledDecimal('100000000.00', 10, 2), undefined, 'too large: left to the exact reader, which refuses it');
    assert.equal(fastUnscaledDecimal('0.001', 12, 2), undefined, 'too many places: likewise');
  });

  test('random numerals of up to 20 digits agree with the exact reader, and plain ones that fit are answered', () => {
    const numeral = fc
      .tuple(fc.constantFrom('', '-', '+'), fc.stringMatching(/^\d{0,12}$/), fc.option(fc.stringMatching(/^\d{0,8}$/), { nil: undefined }))
      .filter(([, whole, fraction]) => whole.length + (fraction?.length ?? 0) > 0)
      .map(([sign, whole, fraction]) => `${sign}${whole}${fraction === undefined ? '' : `.${fraction}`}`);
    fc.assert(
      fc.property(numeral, fc.integer({ min: 1, max: 18 }), fc.integer({ min: 0, max: 18 }), (text, precision, rawScale) => {
        const scale = Math.min(rawScale, precision);
        const fast = assertDecimalAgrees(text, precision, scale);
        const exact = unscaledDecimal(text, precision, scale);
        const magnitude = typeof exact === 'bigint' ? (exact < 0n ? -exact : exact) : undefined;
        if (magnitude !== undefined && magnitude < 10n ** 15n && !/^[-+]?0*\d{16,}/.test(text.replace('.', ''))) assert.notEqual(fast, undefined, `${text} fits and is answered`);
      }),
      RUNS,
    );
  });

  test('the unscaled values of DECIMAL(12, 2) and DECIMAL(18, 4) as MySQL prints them round-trip', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: -(10n ** 15n) + 1n, max: 10n ** 15n - 1n }), fc.constantFrom(2, 4), (unscaled, scale) => {
        const digits = (unscaled < 0n ? -unscaled : unscaled).toString().padStart(scale + 1, '0');
        const text = `${unscaled < 0n ? '-' : ''}${digits.slice(0, -scale)}.${digits.slice(-scale)}`;
        assert.equal(fastUnscaledDecimal(text, 18, scale), Number(unscaled));
      }),
      RUNS,
    );
  });
});

describe('fastEpochDay', () => {
  test('leap days, year 0 and 9999, impossible dates and other forms: the exact reader\'s answer', () => {
    const texts = ['2024-02-29', '2023-02-29', '1900-02-29', '2000-02-29', '0000-01-01', '0000-00-00', '9999-12-31', '1970-01-01', '1969-12-31',
      '2023-04-31', '2023-13-01', '2023-00-10', '2023-1-01', '2023-01-1', '20230101', '2023/01/01', '2023-01-01 ', '+2023-01-01', '２０２３-01-01'];
    for (const text of texts) assert.equal(fastEpochDay(text), isoDate(text), text);
  });

  test('random texts of the shape, valid or not, agree with isoDate', () => {
    fc.assert(fc.property(fc.stringMatching(/^\d{4}-\d{2}-\d{2}$/), (text) => assert.equal(fastEpochDay(text), isoDate(text))), RUNS);
    fc.assert(fc.property(fc.date({ min: new Date('0000-01-01T00:00:00Z'), max: new Date('9999-12-31T00:00:00Z'), noInvalidDate: true }), (d) => {
      const text = d.toISOString().slice(0, 10);
      if (!/^\d{4}-/.test(text)) return;
      assert.equal(fastEpochDay(text), Math.floor(d.getTime() / 86_400_000));
    }), RUNS);
  });
});

describe('fastTimestampInto', () => {
  const millis = new Float64Array(1);
  const nanos = new Int32Array(1);
  function fast(text: string) {
    millis[0] = 7;
    nanos[0] = 7;
    return fastTimestampInto(text, millis, nanos, 0) ? { epochMillis: millis[0], nanoOfMillis: nanos[0] } : undefined;
  }

  test('every fraction length, leap seconds and days, zero dates, the ends of the range: the exact readers\' answer', () => {
    const texts = ['2024-02-29 23:59:59', '2023-02-29 00:00:00', '0000-00-00 00:00:00', '0000-01-01 00:00:00', '9999-12-31 23:59:59.999999',
      '1970-01-01 00:00:00', '1969-12-31 23:59:59.999999', '1969-12-31 23:59:59.000001', '2024-01-01 24:00:00', '2024-01-01 23:60:00',
      '2024-01-01 23:59:60', '2024-01-01T00:00:00', '2024-01-01 00:00', '2024-01-01 00:00:00.', '2024-01-01 00:00:00.1234567890',
      '2024-01-01 00:00:00Z', '2024-01-01 00:00:00+01:00', ...Array.from({ length: 9 }, (_, i) => `2024-06-15 12:34:56.${'123456789'.slice(0, i + 1)}`)];
    for (const text of texts) {
      assert.deepEqual(fast(text), regexMysqlTimestamp(text), `${text} (the regex reader)`);
      assert.deepEqual(mysqlTimestamp(text), regexMysqlTimestamp(text), `${text} (mysqlTimestamp)`);
      if (fast(text) !== undefined) assert.deepEqual(fast(text), isoTimestamp(text), `${text} (isoTimestamp)`);
    }
    assert.equal(fast('2024-01-01T00:00:00'), undefined);
    assert.equal(millis[0], 7, 'a refused text leaves the slot as it was');
  });

  test('random texts of the shape agree with the regex reader, mysqlTimestamp and isoTimestamp', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^\d{4}-[01]\d-[0-3]\d [0-2]\d:[0-6]\d:[0-6]\d(\.\d{0,10})?$/), (text) => {
        assert.deepEqual(fast(text), regexMysqlTimestamp(text));
        assert.deepEqual(mysqlTimestamp(text), regexMysqlTimestamp(text));
        if (fast(text) !== undefined) assert.deepEqual(fast(text), isoTimestamp(text));
      }),
      RUNS,
    );
  });
});

describe('fitsCodePoints', () => {
  test('astral characters count once, lone surrogates once each, as [...s].length does', () => {
    const texts = ['', 'a', 'é', '😀', '😀😀', 'a😀b', '\ud83d', '\ude00', '\ude00\ud83d', '\ud83d\ud83d\ude00', '東京', '𝔘𝔫𝔦𝔠𝔬𝔡𝔢', 'e\u0301'];
    for (const text of texts) for (let limit = 0; limit <= 8; limit++) assert.equal(fitsCodePoints(text, limit), [...text].length <= limit, `${JSON.stringify(text)} ≤ ${limit}`);
  });

  test('random strings over the whole UTF-16 range agree with [...s].length', () => {
    const units = fc.oneof(fc.integer({ min: 0, max: 0x7f }), fc.integer({ min: 0xd800, max: 0xdfff }), fc.integer({ min: 0, max: 0xffff }));
    fc.assert(
      fc.property(fc.array(units, { maxLength: 40 }).map((codes) => String.fromCharCode(...codes)), fc.integer({ min: 0, max: 45 }), (text, limit) => {
        assert.equal(fitsCodePoints(text, limit), [...text].length <= limit);
      }),
      RUNS,
    );
  });
});
