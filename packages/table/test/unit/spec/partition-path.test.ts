import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { escapePathName, parsePartitionPath, partitionPath, unescapePathName } from '../../../src/spec/partition-path.ts';
import {
  formatDecimalPlain,
  formatJavaDouble,
  formatJavaFloat,
  formatLocalDateTime,
  formatSqlTime,
  formatSqlTimestamp,
  parseLocalDateTime,
} from '../../../src/spec/java-text.ts';
import { parseDataType } from '../../../src/spec/data-type-json.ts';
import type { DataField, InternalValue } from '../../../src/spec/types.ts';
import { codeOf } from '../../support/code-of.ts';

const fields = (spec: [string, string][]): DataField[] => spec.map(([name, type], id) => ({ id, name, type: parseDataType(type) }));

// Partition type of the reference's verified vectors (InternalRowPartitionComputer + PartitionPathUtils, Java).
const PARTITION = fields([['dt', 'DATE'], ['ts', 'TIMESTAMP(3)'], ['s', 'STRING'], ['d', 'DECIMAL(10, 2)'], ['b', 'BOOLEAN'], ['n', 'INT']]);
const JAN_1_2024 = 1704067200000;
const ROW1: InternalValue[] = [19723, { epochMillis: JAN_1_2024, nanoOfMillis: 0 }, 'a/b=c d%', 150n, true, null];
const ROW2: InternalValue[] = [19723, { epochMillis: JAN_1_2024 + 1500, nanoOfMillis: 0 }, '', 150n, false, 7];

describe('partitionPath (Paimon Java vectors)', () => {
  test('row 1, legacy names (the default)', () => {
    assert.equal(partitionPath(ROW1, PARTITION), 'dt=19723/ts=2024-01-01T00%3A00/s=a%2Fb%3Dc d%25/d=1.50/b=true/n=__DEFAULT_PARTITION__/');
  });
  test('row 1, legacy = false', () => {
    assert.equal(
      partitionPath(ROW1, PARTITION, { legacyName: false }),
      'dt=2024-01-01/ts=2024-01-01 00%3A00%3A00.000/s=a%2Fb%3Dc d%25/d=1.50/b=true/n=__DEFAULT_PARTITION__/',
    );
  });
  test('row 2, legacy names', () => {
    assert.equal(partitionPath(ROW2, PARTITION), 'dt=19723/ts=2024-01-01T00%3A00%3A01.500/s=__DEFAULT_PARTITION__/d=1.50/b=false/n=7/');
  });
  test('row 2, legacy = false', () => {
    assert.equal(
      partitionPath(ROW2, PARTITION, { legacyName: false }),
      'dt=2024-01-01/ts=2024-01-01 00%3A00%3A01.500/s=__DEFAULT_PARTITION__/d=1.50/b=false/n=7/',
    );
  });
  test('unpartitioned is the empty string', () => assert.equal(partitionPath([], []), ''));
  test('custom default name; whitespace-only values (Java isWhitespace) take it', () => {
    const f = fields([['s', 'STRING']]);
    assert.equal(partitionPath([' \t\n'], f, { defaultName: 'none' }), 's=none/');
    assert.equal(partitionPath(['\u2003'], f), 's=__DEFAULT_PARTITION__/');
    // A no-break space is not whitespace for Java.
    assert.equal(partitionPath(['\u00a0'], f), 's=\u00a0/');
  });
  test('keys are escaped too', () => {
    assert.equal(partitionPath([1], fields([['a=b', 'INT']])), 'a%3Db=1/');
  });
  test('BINARY partitions are refused', () => {
    assert.equal(codeOf(() => partitionPath([new Uint8Array([1])], fields([['x', 'BYTES']]))), 'PARTITION_VALUE_UNSUPPORTED');
  });
  test('TIMESTAMP_LTZ without legacy names is refused (JVM time zone)', () => {
    const f = fields([['t', 'TIMESTAMP_LTZ(3)']]);
    const v = { epochMillis: 0, nanoOfMillis: 0 };
    assert.equal(partitionPath([v], f), 't=1970-01-01T00%3A00/');
    assert.equal(codeOf(() => partitionPath([v], f, { legacyName: false })), 'PARTITION_VALUE_UNSUPPORTED');
  });
});

describe('escapePathName (PartitionPathUtils)', () => {
  test('escapes control chars and "#%\'*/:=?\\{}[]^ and DEL; keeps space and non-ASCII', () => {
    assert.equal(escapePathName('\u0001"#%\'*/:=?\\\u007f{}[]^ é😀'), '%01%22%23%25%27%2A%2F%3A%3D%3F%5C%7F%7B%7D%5B%5D%5E é😀');
  });
  test('unescape inverts escape', () => {
    fc.assert(fc.property(fc.string({ unit: 'binary' }), (s) => unescapePathName(escapePathName(s)) === s));
  });
});

describe("Java's text forms", () => {
  test('LocalDateTime.toString', () => {
    const cases: [number, number, string][] = [
      [JAN_1_2024, 0, '2024-01-01T00:00'],
      [JAN_1_2024 + 1000, 0, '2024-01-01T00:00:01'],
      [JAN_1_2024 + 1500, 0, '2024-01-01T00:00:01.500'],
      [JAN_1_2024, 1000, '2024-01-01T00:00:00.000001'],
      [JAN_1_2024, 1, '2024-01-01T00:00:00.000000001'],
      [-1, 999_999, '1969-12-31T23:59:59.999999999'],
      [-62135596800000, 0, '0001-01-01T00:00'],
      [-62198755200000, 0, '-0001-01-01T00:00'],
      [253402300800000, 0, '+10000-01-01T00:00'],
    ];
    for (const [ms, nanos, text] of cases) {
      assert.equal(formatLocalDateTime({ epochMillis: ms, nanoOfMillis: nanos }), text);
      assert.deepEqual(parseLocalDateTime(text), { epochMillis: ms, nanoOfMillis: nanos });
    }
  });
  test('DateTimeUtils.formatTimestamp keeps at least `precision` fraction digits', () => {
    const ts = { epochMillis: JAN_1_2024 + 1500, nanoOfMillis: 0 };
    assert.equal(formatSqlTimestamp(ts, 0), '2024-01-01 00:00:01.5');
    assert.equal(formatSqlTimestamp({ epochMillis: JAN_1_2024, nanoOfMillis: 0 }, 0), '2024-01-01 00:00:00');
    assert.equal(formatSqlTimestamp(ts, 6), '2024-01-01 00:00:01.500000');
    assert.equal(formatSqlTimestamp({ epochMillis: -1, nanoOfMillis: 5000 }, 3), '1969-12-31 23:59:59.999005');
  });
  test('DateTimeUtils.formatTimestampMillis for TIME', () => {
    assert.equal(formatSqlTime(43_200_000, 0), '12:00:00');
    assert.equal(formatSqlTime(43_200_120, 3), '12:00:00.12');
    assert.equal(formatSqlTime(43_200_000, 3), '12:00:00.0');
    assert.equal(formatSqlTime(86_399_999, 3), '23:59:59.999');
  });
  test('BigDecimal.toPlainString', () => {
    assert.equal(formatDecimalPlain(150n, 2), '1.50');
    assert.equal(formatDecimalPlain(-5n, 2), '-0.05');
    assert.equal(formatDecimalPlain(0n, 3), '0.000');
    assert.equal(formatDecimalPlain(-123n, 0), '-123');
    assert.equal(formatDecimalPlain(-(10n ** 38n - 1n), 38), '-0.' + '9'.repeat(38));
  });
  test('Double.toString and Float.toString', () => {
    const doubles: [number, string][] = [
      [1, '1.0'], [-0, '-0.0'], [0, '0.0'], [100, '100.0'], [0.001, '0.001'], [0.0001, '1.0E-4'], [1e7, '1.0E7'],
      [1234567, '1234567.0'], [12345678, '1.2345678E7'], [0.1 + 0.2, '0.30000000000000004'], [1e21, '1.0E21'],
      [Number.MIN_VALUE, '4.9E-324'], [Number.MAX_VALUE, '1.7976931348623157E308'], [NaN, 'NaN'], [-Infinity, '-Infinity'], [-1.5, '-1.5'],
    ];
    for (const [v, s] of doubles) assert.equal(formatJavaDouble(v), s, String(v));
    const floats: [number, string][] = [
      [0.1, '0.1'], [1.1, '1.1'], [1.5, '1.5'], [3.4028234663852886e38, '3.4028235E38'], [1.401298464324817e-45, '1.4E-45'], [16777216, '1.6777216E7'],
    ];
    for (const [v, s] of floats) assert.equal(formatJavaFloat(v), s, String(v));
  });
});

describe('parsePartitionPath', () => {
  test('inverts partitionPath for legacy names', () => {
    const back = parsePartitionPath(partitionPath(ROW1, PARTITION), PARTITION);
    assert.deepEqual(back, ROW1);
    // '' and null share the default directory: it reads back as null.
    assert.deepEqual(parsePartitionPath(partitionPath(ROW2, PARTITION), PARTITION), [...ROW2.slice(0, 2), null, ...ROW2.slice(3)]);
  });
  test('round trip over every supported type (fast-check)', () => {
    const f = fields([['i', 'INT'], ['l', 'BIGINT'], ['d', 'DECIMAL(38, 4)'], ['s', 'STRING'], ['t', 'TIMESTAMP(9)'], ['day', 'DATE']]);
    const arb = fc.tuple(
      fc.integer({ min: -2147483648, max: 2147483647 }),
      fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }),
      fc.bigInt({ min: -(10n ** 38n) + 1n, max: 10n ** 38n - 1n }),
      fc.string({ unit: 'binary', minLength: 1 }).filter((s) => s.trim() !== '' && s !== '__DEFAULT_PARTITION__'),
      fc.tuple(fc.integer({ min: -1e13, max: 1e13 }), fc.integer({ min: 0, max: 999_999 })).map(([epochMillis, nanoOfMillis]) => ({ epochMillis, nanoOfMillis })),
      fc.integer({ min: -700000, max: 2900000 }),
    );
    fc.assert(
      fc.property(arb, (row) => {
        assert.deepEqual(parsePartitionPath(partitionPath(row, f), f), row);
      }),
      { numRuns: 300 },
    );
  });
  test('refuses paths that do not match the keys', () => {
    for (const p of ['dt=1/', 'x=1/ts=2024-01-01T00%3A00/s=a/d=1.50/b=true/n=1/', 'dt=abc/ts=2024-01-01T00%3A00/s=a/d=1.50/b=true/n=1/', 'dt=1/ts=x/s=a/d=1.505/b=true/n=1/']) {
      assert.equal(codeOf(() => parsePartitionPath(p, PARTITION)), 'PARTITION_PATH_INVALID', p);
    }
  });
});
