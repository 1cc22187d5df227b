/**
 * The byte twins of the fast text readers (values/fast-text.ts) and the text-cell batches of the
 * MySQL source (mysql/text-cells.ts), pure: a byte reader answers exactly what its string reader
 * answers for the same ASCII text, and never accepts a byte the string reader would see otherwise;
 * the batch builder indexes length-coded cells of every length form and NULLs, batch by batch.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { fastSafeInteger } from '../../src/values/columns.ts';
import { fastEpochDay, fastEpochDayBytes, fastSafeIntegerBytes, fastTimestampBytesInto, fastTimestampInto, fastUnscaledDecimal, fastUnscaledDecimalBytes } from '../../src/values/fast-text.ts';
import { cellKinds, TextCellsBuilder } from '../../src/mysql/text-cells.ts';

const RUNS = { numRuns: 20_000 };

/** The text inside a buffer with bytes around it, so offsets are exercised. */
function framed(text: string): { bytes: Buffer; start: number; end: number } {
  const body = Buffer.from(text, 'latin1');
  return { bytes: Buffer.concat([Buffer.from('9.-'), body, Buffer.from('7:0')]), start: 3, end: 3 + body.length };
}

const numeral = fc.oneof(
  fc.stringMatching(/^[-+]?\d{0,20}(\.\d{0,8})?$/),
  fc.constantFrom('', '-', '+', '.', '-.', '0', '-0', '-0.00', '999999999999999', '1000000000000000', '99999999999999.9999', '-99999999999999.9999', '1e3', ' 1', '1 ', '1..2', '--1'),
);
const timestamp = fc.oneof(
  fc.stringMatching(/^\d{4}-[01]\d-[0-3]\d [0-2]\d:[0-5]\d:[0-6]\d(\.\d{0,10})?$/),
  fc.constantFrom('0000-00-00 00:00:00', '1000-01-01 00:00:00.000001', '9999-12-31 23:59:59.999999', '2024-02-29 12:00:00', '2023-02-29 12:00:00', '2024-01-01T00:00:00', '2024-01-01 24:00:00'),
);
const day = fc.oneof(fc.stringMatching(/^\d{4}-[01]\d-[0-3]\d$/), fc.constantFrom('0000-00-00', '2024-02-29', '2023-02-29', '1000-01-01', '9999-12-31', '2024-1-01', '2024-01-01 '));

describe('byte readers = string readers', () => {
  test('integers', () => {
    fc.assert(
      fc.property(numeral, (text) => {
        const { bytes, start, end } = framed(text);
        assert.equal(fastSafeIntegerBytes(bytes, start, end), fastSafeInteger(text));
      }),
      RUNS,
    );
  });

  test('decimals at every precision and scale', () => {
    fc.assert(
      fc.property(numeral, fc.integer({ min: 1, max: 18 }), fc.integer({ min: 0, max: 18 }), (text, precision, s) => {
        const scale = Math.min(s, precision);
        const { bytes, start, end } = framed(text);
        assert.equal(fastUnscaledDecimalBytes(bytes, start, end, precision, scale), fastUnscaledDecimal(text, precision, scale));
      }),
      RUNS,
    );
  });

  test('dates and timestamps', () => {
    fc.assert(
      fc.property(day, (text) => {
        const { bytes, start, end } = framed(text);
        assert.equal(fastEpochDayBytes(bytes, start, end), fastEpochDay(text));
      }),
      RUNS,
    );
    fc.assert(
      fc.property(timestamp, (text) => {
        const { bytes, start, end } = framed(text);
        const [m1, n1, m2, n2] = [new Float64Array(1), new Int32Array(1), new Float64Array(1), new Int32Array(1)];
        assert.equal(fastTimestampBytesInto(bytes, start, end, m1, n1, 0), fastTimestampInto(text, m2, n2, 0));
        assert.deepEqual([m1[0], n1[0]], [m2[0], n2[0]]);
      }),
      RUNS,
    );
  });

  test('a byte at or above 0x80 is refused (the string reader would see another character)', () => {
    for (const at of [0, 2, 3]) {
      const bytes = Buffer.from('2024-01-02');
      bytes[at] = (bytes[at] ?? 0) | 0x80;
      assert.equal(fastEpochDayBytes(bytes, 0, 10), undefined);
      assert.equal(fastUnscaledDecimalBytes(bytes, 0, 4, 18, 0), undefined);
      assert.equal(fastSafeIntegerBytes(bytes, 0, 4), undefined);
    }
  });
});

/** A row packet's payload: each cell length-coded (1, 3, 4 or 9 bytes of length), or 0xfb for NULL. */
function payload(cells: readonly (string | null)[], form: number): Buffer {
  return Buffer.concat(
    cells.map((c) => {
      if (c === null) return Buffer.of(0xfb);
      const body = Buffer.from(c);
      const n = body.length;
      const head = form === 0 && n < 251 ? Buffer.of(n) : form <= 1 && n < 65536 ? Buffer.of(0xfc, n & 0xff, n >> 8) : form === 2 ? Buffer.of(0xfd, n & 0xff, (n >> 8) & 0xff, n >> 16) : Buffer.concat([Buffer.of(0xfe), Buffer.from(new BigUint64Array([BigInt(n)]).buffer)]);
      return Buffer.concat([head, body]);
    }),
  );
}

describe('TextCellsBuilder', () => {
  test('cells of every length form and NULLs, in batches; rows parsed only when asked', () => {
    const cell = fc.oneof(fc.constant(null), fc.string({ unit: 'grapheme', maxLength: 8 }), fc.constant('😀'.repeat(80)));
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.array(cell, { minLength: 3, maxLength: 3 }), fc.integer({ min: 0, max: 3 })), { minLength: 1, maxLength: 40 }), fc.integer({ min: 1, max: 7 }), (rows, batchRows) => {
        let parsed = 0;
        // The test's stand-in for mysql2's parser: the cells back as strings, from the same bytes.
        const parse = (bytes: Buffer, start: number, end: number) => {
          parsed++;
          return [bytes.subarray(start, end).toString('hex')];
        };
        const builder = new TextCellsBuilder(2, ['text', 'other'], parse, (raw) => raw as string[], 1);
        const batches = [];
        for (const [values, form] of rows) {
          const body = payload(values, form);
          // The payload inside a larger packet buffer, as mysql2 hands it (a 4-byte header before it).
          const buffer = Buffer.concat([Buffer.alloc(4), body, Buffer.alloc(3)]);
          builder.append({ buffer, offset: 4, end: 4 + body.length });
          if (builder.rows === batchRows) batches.push(builder.take());
        }
        if (builder.rows > 0) batches.push(builder.take());
        assert.deepEqual(
          batches.map((b) => b.length),
          rows.map((_, i) => i).filter((i) => i % batchRows === 0).map((i) => Math.min(batchRows, rows.length - i)),
        );
        let r0 = 0;
        for (const batch of batches) {
          assert.equal(batch.width, 2);
          for (let r = 0; r < batch.length; r++) {
            const [values, form] = rows[r0 + r] ?? [[], 0];
            for (let c = 0; c < 2; c++) {
              const start = batch.starts[r * 2 + c] ?? -2;
              const text = start < 0 ? null : batch.bytes.subarray(start, batch.ends[r * 2 + c]).toString();
              assert.equal(text, values[c], `row ${r0 + r} cell ${c}`);
            }
            assert.equal(batch.raw(r)[0], payload(values, form).toString('hex'));
          }
          r0 += batch.length;
        }
        assert.equal(parsed, r0, 'a row is parsed only when asked for');
        const first = batches[0];
        assert.ok(first !== undefined);
        assert.deepEqual(first.value(0, 0), payload(rows[0]?.[0] ?? [], rows[0]?.[1] ?? 0).toString('hex'));
        assert.equal(first.rows().length, first.length);
      }),
      { numRuns: 500 },
    );
  });

  test('cell kinds: plain only where the source value is exactly what the kind says', () => {
    const f = (columnType: number, characterSet = 224, encoding = 'utf8') => ({ columnType, characterSet, encoding });
    assert.deepEqual(
      cellKinds([f(3), f(1), f(8), f(246), f(10), f(12), f(7), f(253), f(253, 63, 'binary'), f(252), f(11), f(16), f(5), f(253, 8, 'latin1')], new Set([1])),
      ['integer', 'other', 'text', 'text', 'text', 'timestamp', 'timestamp', 'text', 'other', 'text', 'other', 'other', 'other', 'other'],
    );
  });
});
