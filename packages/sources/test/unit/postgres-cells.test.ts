/**
 * The PostgreSQL column path (postgres/cells.ts: binary COPY cells written straight into the
 * table's columns) against the row path it replaces (every value decoded by binary.ts, then the
 * column converter of values/columns.ts, which test/unit/column-convert.test.ts holds to the row
 * converter): for random streams of adversarial binary values of every type the path reads itself
 * (int2/int4/int8 at their extremes, numeric with any digits, weight, sign and dscale, NaN and
 * infinities, dates and timestamps at and beyond the range, infinities, strings with astral and
 * lone surrogates) into every table type they may load into and some they may not, the columns are
 * identical, and a batch with a value that does not fit fails with the same error (code, message,
 * context) either way.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { isTributaryError } from '@tributary/protocol';
import { parseDataTypeString, type ColumnBatch, type RowType } from '@tributary/table';
import { CopyBinaryReader, CopyFrames, binaryDecoder } from '../../src/postgres/binary.ts';
import { CopyCells, numericUnscaled } from '../../src/postgres/cells.ts';
import type { SourceBatch } from '../../src/source.ts';
import { columnConverter } from '../../src/values/columns.ts';

/** Per PostgreSQL type: the table types the cells are written into. */
const TARGETS: Readonly<Record<string, readonly string[]>> = {
  int2: ['SMALLINT', 'INT NOT NULL', 'TINYINT', 'BIGINT', 'DECIMAL(5, 0)'],
  int4: ['INT', 'BIGINT NOT NULL', 'SMALLINT', 'DECIMAL(12, 2)'],
  int8: ['BIGINT', 'INT', 'DECIMAL(19, 0)'],
  numeric: ['DECIMAL(12, 2)', 'DECIMAL(18, 4) NOT NULL', 'DECIMAL(18, 0)', 'DECIMAL(15, 15)', 'DECIMAL(16, 3)', 'DECIMAL(4, 4)', 'DECIMAL(30, 5)', 'STRING'],
  date: ['DATE', 'DATE NOT NULL'],
  timestamp: ['TIMESTAMP(0)', 'TIMESTAMP(3)', 'TIMESTAMP(6) NOT NULL', 'TIMESTAMP(9)', 'TIMESTAMP_LTZ(6)'],
  timestamptz: ['TIMESTAMP_LTZ(6)', 'TIMESTAMP(3)'],
  varchar: ['VARCHAR(3)', 'CHAR(2)', 'STRING NOT NULL'],
  text: ['STRING', 'VARCHAR(1)'],
  float8: ['DOUBLE', 'FLOAT'],
  bool: ['BOOLEAN'],
};

const be = (bytes: number, write: (b: Buffer) => void): Buffer => {
  const b = Buffer.alloc(bytes);
  write(b);
  return b;
};

function numericBytes(weight: number, sign: number, dscale: number, digits: readonly number[]): Buffer {
  const b = Buffer.alloc(8 + 2 * digits.length);
  b.writeUInt16BE(digits.length, 0);
  b.writeInt16BE(weight, 2);
  b.writeUInt16BE(sign, 4);
  b.writeUInt16BE(dscale, 6);
  digits.forEach((d, i) => b.writeUInt16BE(d, 8 + 2 * i));
  return b;
}

const I32 = { min: -(2 ** 31), max: 2 ** 31 - 1 };

/** A value's binary form, per type: plainly valid values and the edges around every fast path's bounds. */
const VALUES: Record<string, fc.Arbitrary<Buffer>> = {
  int2: fc.oneof(fc.integer({ min: -32768, max: 32767 }), fc.constantFrom(-32768, 32767, -129, -128, 127, 128, 0)).map((v) => be(2, (b) => b.writeInt16BE(v))),
  int4: fc.oneof(fc.integer(I32), fc.constantFrom(I32.min, I32.max, -32769, -32768, 32767, 32768, 0, -1)).map((v) => be(4, (b) => b.writeInt32BE(v))),
  int8: fc
    .oneof(fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }), fc.constantFrom(-(2n ** 63n), 2n ** 63n - 1n, 2n ** 31n, -(2n ** 31n) - 1n, 2n ** 53n, -1n, 0n), fc.integer(I32).map(BigInt))
    .map((v) => be(8, (b) => b.writeBigInt64BE(v))),
  numeric: fc.oneof(
    fc
      .record({
        weight: fc.integer({ min: -6, max: 6 }),
        sign: fc.constantFrom(0, 0, 0x4000, 0xc000, 0xd000, 0xf000),
        dscale: fc.integer({ min: 0, max: 20 }),
        digits: fc.array(fc.oneof(fc.integer({ min: 0, max: 9999 }), fc.constantFrom(0, 9999, 1000, 5000, 10)), { maxLength: 6 }),
      })
      .map(({ weight, sign, dscale, digits }) => numericBytes(weight, sign, dscale, digits)),
    // Values PostgreSQL writes for common numerics: a safe unscaled value at 0–6 places.
    fc.record({ n: fc.integer({ min: -(2 ** 53), max: 2 ** 53 }), dscale: fc.integer({ min: 0, max: 6 }) }).map(({ n, dscale }) => numericOf(n, dscale)),
    fc.constantFrom(numericOf(2 ** 53 - 1, 0), numericOf(2 ** 53, 0), numericOf(-(2 ** 53) + 1, 2), numericOf(9999999999, 2), numericOf(10000000000, 2), numericOf(-1, 15), numericOf(999999999999999, 15)),
  ),
  date: fc.oneof(fc.integer(I32), fc.integer({ min: -100_000_000 - 10_957 - 2, max: 100_000_000 - 10_957 + 2 }), fc.constantFrom(I32.min, I32.max, 0, -10_957)).map((v) => be(4, (b) => b.writeInt32BE(v))),
  timestamp: fc
    .oneof(
      fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }),
      fc.bigInt({ min: -8_700_000_000_000_000_000n, max: 8_700_000_000_000_000_000n }).map((v) => v / 1000n),
      fc.constantFrom(-(2n ** 63n), 2n ** 63n - 1n, 0n, -1n, 999n, -999n, (8_640_000_000_000_000n - 946_684_800_000n) * 1000n, (8_640_000_000_000_000n - 946_684_800_000n) * 1000n + 1000n),
    )
    .map((v) => be(8, (b) => b.writeBigInt64BE(v))),
  varchar: fc.oneof(fc.string({ unit: 'grapheme', maxLength: 5 }), fc.string({ maxLength: 4 }), fc.constantFrom('😀😀', '😀😀😀', 'abc', 'abcd', 'é', '\ufeffab')).map((s) => Buffer.from(s)),
  float8: fc.double().map((v) => be(8, (b) => b.writeDoubleBE(v))),
  bool: fc.boolean().map((v) => Buffer.from([v ? 1 : 0])),
};
VALUES.timestamptz = VALUES.timestamp as fc.Arbitrary<Buffer>;
VALUES.text = VALUES.varchar as fc.Arbitrary<Buffer>;

/** numeric's send format of n × 10^-dscale, as PostgreSQL writes it (no leading or trailing zero groups). */
function numericOf(n: number, dscale: number): Buffer {
  const text = Math.abs(n).toString().padStart(dscale + 1, '0');
  const integer = text.slice(0, text.length - dscale);
  const fraction = text.slice(text.length - dscale);
  const intGroups = integer.padStart(Math.ceil(integer.length / 4) * 4, '0').match(/.{4}/g) ?? [];
  const fracGroups = fraction.padEnd(Math.ceil(fraction.length / 4) * 4, '0').match(/.{4}/g) ?? [];
  let digits = [...intGroups, ...fracGroups].map(Number);
  let weight = intGroups.length - 1;
  while (digits.length > 0 && digits[0] === 0) {
    digits = digits.slice(1);
    weight--;
  }
  while (digits.length > 0 && digits[digits.length - 1] === 0) digits = digits.slice(0, -1);
  return numericBytes(digits.length === 0 ? 0 : weight, n < 0 ? 0x4000 : 0, dscale, digits);
}

function stream(rows: readonly (readonly (Buffer | null)[])[]): Buffer {
  const header = Buffer.concat([Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1'), Buffer.alloc(8)]);
  const field = (v: Buffer | null) => (v === null ? be(4, (b) => b.writeInt32BE(-1)) : Buffer.concat([be(4, (b) => b.writeInt32BE(v.length)), v]));
  return Buffer.concat([header, ...rows.map((row) => Buffer.concat([be(2, (b) => b.writeInt16BE(row.length)), ...row.map(field)])), Buffer.from([0xff, 0xff])]);
}

type Outcome = { columns: ColumnBatch['columns'] } | { error: { code: string; message: string; context: unknown } };

function outcome(run: () => ColumnBatch): Outcome {
  try {
    return { columns: run().columns };
  } catch (error) {
    assert.ok(isTributaryError(error), String(error));
    return { error: { code: error.code, message: error.message, context: error.context } };
  }
}

/** Both paths over one stream, framed in batches of `batchRows` and cut into chunks at `cuts`. */
function compare(pgTypes: readonly string[], targets: readonly string[], rows: readonly (readonly (Buffer | null)[])[], batchRows: number, cut: number): void {
  const decoders = pgTypes.map((t) => binaryDecoder(t) ?? assert.fail(t));
  const table: RowType = { fields: targets.map((t, id) => ({ id, name: `c${id}`, type: parseDataTypeString(t) })) };
  const columns = targets.map((_, i) => ({ name: `c${i}`, sourceType: pgTypes[i] ?? '' }));
  const converter = columnConverter('s1', columns, table);
  const bytes = stream(rows);
  const chunks = [bytes.subarray(0, cut), bytes.subarray(cut)];

  // The row path, as before: decoded rows, converted in batches of batchRows.
  const reader = new CopyBinaryReader(decoders);
  const decoded = chunks.flatMap((c) => reader.push(c));
  reader.end();
  // The column path: framed cells, written by the source into the columns.
  const frames = new CopyFrames(pgTypes.length, batchRows);
  const batches: SourceBatch[] = [];
  const batchOf = (position: number) => {
    const cells = new CopyCells(frames.take(), pgTypes, decoders, pgTypes.length);
    return { get rows() { return cells.rows(); }, firstRowPosition: position, end: 0, columnar: cells } satisfies SourceBatch;
  };
  let position = 0;
  for (const chunk of chunks) {
    frames.push(chunk);
    while (frames.full) {
      batches.push(batchOf(position));
      position += batchRows;
    }
  }
  frames.end();
  const last = batchOf(position);
  if (last.columnar.length > 0) batches.push(last);
  assert.equal(batches.reduce((n, b) => n + (b.columnar?.length ?? 0), 0), rows.length);

  batches.forEach((batch, i) => {
    const before = decoded.slice(i * batchRows, (i + 1) * batchRows);
    assert.deepStrictEqual(batch.rows, before, 'the lazily decoded rows are the row path\'s');
    assert.deepStrictEqual(outcome(() => converter.batch(batch)), outcome(() => converter(before, batch.firstRowPosition)), `batch ${i} of ${pgTypes.join(', ')} into ${targets.join(', ')}`);
  });
}

const typeName = fc.constantFrom(...Object.keys(TARGETS));
const layout = fc.array(typeName, { minLength: 1, maxLength: 4 }).chain((types) =>
  fc.record({
    types: fc.constant(types),
    targets: fc.tuple(...types.map((t) => fc.constantFrom(...(TARGETS[t] ?? [])))),
    rows: fc.array(fc.tuple(...types.map((t) => fc.option(VALUES[t] as fc.Arbitrary<Buffer>, { freq: 8 }))), { maxLength: 12 }),
    batchRows: fc.integer({ min: 1, max: 5 }),
    cut: fc.nat(),
  }),
);

test('cells into columns: the same columns, or the same first error, as the decoded rows through the column converter', () => {
  fc.assert(
    fc.property(layout, ({ types, targets, rows, batchRows, cut }) => {
      compare(types, targets, rows, batchRows, cut % (stream(rows).length + 1));
    }),
    { numRuns: 1500 },
  );
});

test('numeric to unscaled: exactly the digits numericText writes, cut at dscale, or left to the text path', () => {
  const at = (b: Buffer, p: number, s: number) => numericUnscaled(b, 0, b.length, p, s);
  assert.equal(at(numericOf(12345, 2), 12, 2), 12345); // 123.45
  assert.equal(at(numericOf(-12345, 2), 12, 4), -1234500);
  assert.equal(at(numericOf(5, 1), 12, 2), 50); // 0.5 at 2 places
  assert.equal(at(numericOf(0, 2), 12, 2), 0);
  assert.equal(at(numericOf(-1, 3), 12, 2), undefined, 'more places than the column: the text path refuses or trims');
  assert.equal(at(numericOf(10 ** 12, 2), 12, 2), undefined, '10^10 (unscaled 10^12) has 11 integer digits, too many for DECIMAL(12, 2)');
  assert.equal(at(numericOf(10 ** 12 - 1, 2), 12, 2), 10 ** 12 - 1);
  assert.equal(at(numericOf(2 ** 53, 0), 18, 0), undefined, 'beyond 2^53: the text path');
  assert.equal(at(numericBytes(0, 0xc000, 0, []), 18, 2), undefined, 'NaN');
  // A group with digits past dscale (dscale 2, one group .5678): numericText cuts it to .56.
  assert.equal(at(numericBytes(-1, 0, 2, [5678]), 12, 2), 56);
  assert.equal(at(numericBytes(0, 0, 0, [10000]), 12, 2), undefined, 'not a base-10000 digit');
  assert.equal(at(numericBytes(0, 0, 0, [1, 2]).subarray(0, 10), 12, 2), undefined, 'a cell shorter than its digits');
});
