/**
 * Values read from text without loss: FLOAT rounded once (Java's Float.parseFloat) where
 * Math.fround(Number(text)) rounds twice, decimals scaled exactly with exponents, doubles reaching
 * DECIMAL as their shortest form, NDJSON numbers a double cannot hold kept as text, timestamps with
 * every fraction digit and impossible dates refused; and no cell value in a conversion message.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { isTributaryError } from '@tributary/protocol';
import { parseDataTypeString } from '@tributary/table';
import { rowConverter } from '../../src/values/convert.ts';
import { float32FromText, sameDecimal, unscaledDecimal } from '../../src/values/exact-numbers.ts';
import { parseJsonLine, rawJsonText, utf8Text, validUtf8Prefix } from '../../src/files/text-records.ts';
import type { SourceValue } from '../../src/source.ts';
import { isoDate, isoTimestamp } from '../../src/values/temporal-text.ts';

/** The exact decimal expansion of a double. */
function exactText(d: number): string {
  const bits = new BigUint64Array(new Float64Array([d]).buffer)[0] ?? 0n;
  const biased = Number((bits >> 52n) & 0x7ffn);
  const mantissa = biased === 0 ? bits & ((1n << 52n) - 1n) : (bits & ((1n << 52n) - 1n)) | (1n << 52n);
  const exponent = (biased === 0 ? 1 : biased) - 1075;
  if (exponent >= 0) return (mantissa << BigInt(exponent)).toString();
  const digits = (mantissa * 5n ** BigInt(-exponent)).toString().padStart(-exponent + 1, '0');
  return `${digits.slice(0, exponent)}.${digits.slice(exponent)}`.replace(/\.?0+$/, '');
}

function convert(type: string, value: SourceValue): unknown {
  return rowConverter('s', [{ name: 'c', sourceType: 'test' }], { fields: [{ id: 0, name: 'c', type: parseDataTypeString(type) }] })([value], 0)[0];
}

describe('FLOAT from text', () => {
  test('text just beside the midpoint of two floats rounds to the nearer one (fround of the double does not)', () => {
    const f32 = new Float32Array(1);
    const u32 = new Uint32Array(f32.buffer);
    let twiceRoundedWrong = 0;
    for (let bits = 0x00000001; bits < 0x7f7fffff; bits += 0x000f_4243) {
      u32[0] = bits;
      const low = f32[0] ?? NaN;
      u32[0] = bits + 1;
      const high = f32[0] ?? NaN;
      const mid = exactText((low + high) / 2);
      const above = mid.includes('.') ? `${mid}1` : `${mid}.1`;
      const below = mid.includes('.') ? mid.replace(/5$/, '49') : `${BigInt(mid) - 1n}.9`;
      assert.equal(float32FromText(above), high, above);
      assert.equal(float32FromText(below), low, below);
      assert.equal(float32FromText(mid), Math.fround((low + high) / 2), mid); // a tie: to even
      if (Math.fround(Number(above)) !== high || Math.fround(Number(below)) !== low) twiceRoundedWrong++;
    }
    assert.ok(twiceRoundedWrong > 0); // the case exists
  });

  test('the largest float, overflow to infinity, subnormals, zeros, NaN and infinities', () => {
    assert.equal(float32FromText('3.4028235677973366e38'), 3.4028234663852886e38); // below the midpoint to 2^128
    assert.equal(float32FromText('3.4028235677973367e38'), Infinity);
    assert.equal(float32FromText('7.006492321624086e-46'), 1.401298464324817e-45);
    assert.equal(float32FromText('7.0064923216240853e-46'), 0);
    assert.ok(Object.is(float32FromText('-0'), -0));
    assert.equal(float32FromText('-Infinity'), -Infinity);
    assert.ok(Number.isNaN(float32FromText('NaN')));
  });
});

describe('FLOAT and DOUBLE range', () => {
  const outOfRange = (type: string, value: SourceValue): void =>
    assert.throws(
      () => convert(type, value),
      (e) => isTributaryError(e) && e.code === 'SOURCE_ROW_INVALID' && e.context.column === 'c' && /out of the range of (FLOAT|DOUBLE)/.test(e.message) && !e.message.includes(String(value)),
      `${type} ${String(value)}`,
    );

  test('a finite number beyond the largest FLOAT or DOUBLE is out of range, never ±Infinity', () => {
    for (const text of ['1e309', '-1e309', '1e400', '+2e308']) outOfRange('DOUBLE', text); // CSV text, or an NDJSON number kept as text
    for (const text of ['3.5e38', '-3.5e38', '1e39', '3.4028235677973367e38']) outOfRange('FLOAT', text);
    for (const n of [1e39, -3.5e38, Number.MAX_VALUE]) outOfRange('FLOAT', n); // a double (Parquet, NDJSON) into FLOAT
    // The largest values and those that round to them still load.
    assert.equal(convert('DOUBLE', '1.7976931348623157e308'), Number.MAX_VALUE);
    assert.equal(convert('FLOAT', '3.4028235677973366e38'), 3.4028234663852886e38);
    assert.equal(convert('FLOAT', 3.4028235e38), 3.4028234663852886e38);
  });

  test('the infinity words and a source\'s own infinities stay infinities; NaN stays NaN', () => {
    for (const [text, value] of [['Infinity', Infinity], ['-Infinity', -Infinity], ['inf', Infinity], ['-INF', -Infinity]] as const) {
      assert.equal(convert('DOUBLE', text), value, text);
      assert.equal(convert('FLOAT', text), value, text);
    }
    assert.equal(convert('DOUBLE', -Infinity), -Infinity);
    assert.equal(convert('FLOAT', Infinity), Infinity);
    assert.ok(Number.isNaN(convert('FLOAT', 'NaN')));
  });
});

describe('TIME from text', () => {
  test('HH:MM:SS with up to nine fraction digits, cut to the millisecond; milliseconds of the day as before', () => {
    assert.equal(convert('TIME', '12:34:56'), 45_296_000);
    assert.equal(convert('TIME', '00:00:00'), 0);
    assert.equal(convert('TIME', '23:59:59.999999999'), 86_399_999);
    assert.equal(convert('TIME(3)', '12:34:56.7'), 45_296_700);
    assert.equal(convert('TIME', '12:34:56.789999'), 45_296_789);
    assert.equal(convert('TIME', '45296000'), 45_296_000);
  });

  test('impossible or other forms are refused', () => {
    for (const text of ['24:00:00', '12:60:00', '12:34:60', '1:02:03', '12:34', '12:34:56.', '12:34:56.1234567890', '12:34:56Z', 'T12:34:56', ' 12:34:56']) {
      assert.throws(() => convert('TIME', text), (e) => isTributaryError(e) && e.code === 'SOURCE_ROW_INVALID', text);
    }
  });
});

describe('decimals', () => {
  test('unscaled exactly, with exponents; more places or digits are refused, never rounded', () => {
    assert.equal(unscaledDecimal('1.5e3', 10, 2), 150_000n);
    assert.equal(unscaledDecimal('-0.10', 5, 2), -10n);
    assert.equal(unscaledDecimal('12.3400', 4, 2), 1234n);
    assert.equal(unscaledDecimal('0.10000000000000000555', 20, 18), 'too many places');
    assert.equal(unscaledDecimal('12345678.9', 9, 2), 'too large');
    assert.equal(unscaledDecimal('1e', 9, 2), 'not a number');
    assert.ok(sameDecimal('1.50', '15e-1') && !sameDecimal('-0', '0') && sameDecimal('0.0', '0'));
  });

  test('a double reaches DECIMAL as its shortest decimal form, not its binary expansion', () => {
    assert.equal(convert('DECIMAL(20, 18)', 0.1), 100_000_000_000_000_000n);
    assert.equal(convert('DECIMAL(38, 0)', 1e21), 10n ** 21n);
  });
});

describe('NDJSON numbers', () => {
  test('a number a double holds exactly is a number; any other keeps its text, nested ones too', () => {
    const object = parseJsonLine({ text: '{"a": 0.1, "b": 9007199254740993, "c": 0.12345678901234567891, "d": 1e400, "e": -0, "f": 1e3, "g": {"x": 12345678901234567890}}', line: 1 }, 'f');
    assert.equal(object.a, 0.1);
    assert.equal(rawJsonText(object.b), '9007199254740993');
    assert.equal(rawJsonText(object.c), '0.12345678901234567891');
    assert.equal(rawJsonText(object.d), '1e400');
    assert.equal(rawJsonText(object.e), '-0');
    assert.equal(object.f, 1000);
    assert.equal(JSON.stringify(object.g), '{"x":12345678901234567890}');
    assert.equal(convert('BIGINT', '9007199254740993'), 9_007_199_254_740_993n);
    assert.equal(parseJsonLine({ text: '{"n": 9007199254740992}', line: 1 }, 'f').n, 2 ** 53); // exact: a number
    assert.equal(convert('BIGINT', 2 ** 53), 9_007_199_254_740_992n);
    assert.throws(() => convert('BIGINT', 2 ** 63), (e) => isTributaryError(e) && e.code === 'SOURCE_ROW_INVALID');
    assert.equal(convert('DECIMAL(38, 20)', '0.12345678901234567891'), 12_345_678_901_234_567_891n);
    assert.ok(Object.is(convert('DOUBLE', '-0'), -0));
  });

  test('a number that parses to a double halfway between two floats keeps its text: FLOAT rounds the digits', () => {
    const written = '1.0000000596046448'; // just above 1 + 2^-24, which is the double it parses to
    assert.equal(Number(written), 1 + 2 ** -24);
    const { m } = parseJsonLine({ text: `{"m": ${written}}`, line: 1 }, 'f');
    assert.equal(rawJsonText(m), written);
    assert.equal(convert('FLOAT', written), 1 + 2 ** -23);
    assert.equal(convert('FLOAT', 1 + 2 ** -24), 1); // a double's own value: the tie goes to even, as Java's (float) cast
    // The tie beside the largest float is with infinity: the written number is below it, so it is the largest float
    // (as in CSV); rounded from its double it overflowed and was refused as out of range.
    const edge = '3.4028235677973366e38';
    assert.equal(Number(edge), 2 ** 128 - 2 ** 103);
    const { x } = parseJsonLine({ text: `{"x": ${edge}, "y": -${edge}}`, line: 1 }, 'f');
    assert.equal(rawJsonText(x), edge);
    assert.equal(convert('FLOAT', rawJsonText(x) as string), 3.4028234663852886e38);
    assert.equal(convert('DOUBLE', rawJsonText(x) as string), 2 ** 128 - 2 ** 103);
  });

  test('an integer kept as text because it is a float midpoint still reaches every integer-valued type', () => {
    // 48497882 lies halfway between the floats 48497880 and 48497884 (found by the differential test, seed 28).
    const { t } = parseJsonLine({ text: '{"t": 48497882}', line: 1 }, 'f');
    const text = rawJsonText(t);
    assert.equal(text, '48497882');
    for (const type of ['TIME(3)', 'INT', 'BIGINT']) assert.equal(BigInt(convert(type, text as string) as number | bigint), 48497882n, type);
    assert.throws(() => convert('TIME(3)', '86400000'));
  });
});

describe('timestamps and dates from text', () => {
  test('every fraction digit is kept; zones are applied; impossible dates are refused, not rolled over', () => {
    assert.deepEqual(isoTimestamp('2024-01-01T10:00:00.123456Z'), { epochMillis: Date.UTC(2024, 0, 1, 10) + 123, nanoOfMillis: 456_000 });
    assert.deepEqual(isoTimestamp('2024-01-01 10:00:00.123456789'), { epochMillis: Date.UTC(2024, 0, 1, 10) + 123, nanoOfMillis: 456_789 });
    assert.deepEqual(isoTimestamp('2024-01-01T12:30:00+02:30'), { epochMillis: Date.UTC(2024, 0, 1, 10), nanoOfMillis: 0 });
    assert.deepEqual(isoTimestamp('2024-01-01'), { epochMillis: Date.UTC(2024, 0, 1), nanoOfMillis: 0 });
    assert.equal(isoTimestamp('2023-02-29 00:00:00'), undefined);
    assert.equal(isoDate('2024-02-30'), undefined);
    assert.equal(isoDate('1969-12-31'), -1);
    assert.deepEqual(convert('TIMESTAMP(6)', '1999-12-31 23:59:59.999999'), { epochMillis: Date.UTC(1999, 11, 31, 23, 59, 59, 999), nanoOfMillis: 999_000 });
    assert.throws(() => convert('DATE', '2024-02-30'), (e) => isTributaryError(e) && e.code === 'SOURCE_ROW_INVALID');
  });
});

describe('UTF-8 across chunk boundaries', () => {
  test('text split anywhere decodes whole; an invalid or cut-off sequence is found at its byte', async () => {
    const bytes = new TextEncoder().encode('a,é\n😀,中文\n\uFEFFz');
    for (let size = 1; size <= 5; size++) {
      const chunks = async function* () {
        for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
      };
      let text = '';
      for await (const piece of utf8Text(chunks())) text += piece;
      assert.equal(text, 'a,é\n😀,中文\n\uFEFFz', `chunks of ${size}`);
    }
    for (const bad of [[0xc0, 0x80], [0xed, 0xa0, 0x80], [0xf4, 0x90, 0x80, 0x80], [0xe4, 0xb8], [0x80]]) {
      const input = Uint8Array.from([0x61, ...bad, 0x62]);
      assert.equal(validUtf8Prefix(input), 1, JSON.stringify(bad));
    }
  });
});

describe('conversion messages', () => {
  test('name the kind of value and the type, never the value', () => {
    for (const [type, value] of [
      ['INT', 'hunter2'],
      ['VARCHAR(3)', 'hunter2'],
      ['DECIMAL(5, 2)', '12345.678'],
      ['DECIMAL(5, 2)', '123456'],
      ['DATE', 'hunter2'],
      ['TIMESTAMP(3)', 'hunter2'],
      ['DOUBLE', 'hunter2'],
      ['BOOLEAN', 'hunter2'],
    ] as const) {
      assert.throws(
        () => convert(type, value),
        (e) => isTributaryError(e) && e.code === 'SOURCE_ROW_INVALID' && e.context.column === 'c' && !`${e.message}${JSON.stringify(e.context)}`.includes(value),
        `${type} ${value}`,
      );
    }
  });
});

describe('white space around a number', () => {
  test('is refused by every number type alike, DECIMAL as INT and DOUBLE (the text must be the number)', () => {
    const refused = (e: unknown) => isTributaryError(e) && e.code === 'SOURCE_ROW_INVALID' && !e.message.includes('1.5');
    for (const type of ['DECIMAL(20, 2)', 'DECIMAL(10, 2)', 'DECIMAL(38, 10)', 'INT', 'BIGINT', 'DOUBLE', 'FLOAT']) {
      const whole = type.startsWith('DECIMAL') || type === 'DOUBLE' || type === 'FLOAT' ? '1.5' : '7';
      for (const text of [` ${whole}`, `${whole} `, `\t${whole}`, `${whole}\n`]) assert.throws(() => convert(type, text), refused, `${JSON.stringify(text)} into ${type}`);
      assert.notEqual(convert(type, whole), undefined, `${whole} into ${type}`);
    }
    assert.equal(convert('DECIMAL(20, 2)', '1.5'), 150n);
  });
});
