// The sorted runs' encoding (format/run-codec.ts) and its segments (write/run-spill.ts): every
// column kind round-trips exactly on adversarial values, whether a segment is read whole or block
// by block; a truncated, altered, swapped or mislabelled segment is refused with RUN_TRUNCATED or
// RUN_CORRUPT before the read ends, and a block that fails its own checksum is never decoded.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { crc32c } from '@node-rs/crc32';
import { isTributaryError } from '@tributary/errors';
import { matchCrc32c } from '@tributary/testkit';
import { LocalObjectStore } from '../../../src/io/local-store.ts';
import { batchFromRows, rowsFromBatch, type Column, type ColumnBatch } from '../../../src/format/column-batch.ts';
import { parseDataType } from '../../../src/spec/data-type-json.ts';
import type { InternalValue, RowType } from '../../../src/spec/types.ts';
import { decodeRunBlock, encodeRunBlock, parseRunRecord } from '../../../src/format/run-codec.ts';
import { RunSpill, parseRunSegment, readRunSegment, runSegmentName, type WrittenSegment } from '../../../src/write/run-spill.ts';

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** Values on the edges of each kind's representation, mixed with random ones. */
const ARBITRARIES: Record<string, fc.Arbitrary<InternalValue>> = {
  BOOLEAN: fc.boolean(),
  INT: fc.oneof(fc.constantFrom(-2147483648, 2147483647, 0, -1), fc.integer()),
  SMALLINT: fc.integer({ min: -32768, max: 32767 }),
  DATE: fc.integer({ min: -800_000, max: 2_900_000 }),
  BIGINT: fc.oneof(fc.constantFrom(INT64_MIN, INT64_MAX, 0n, -1n, 2n ** 53n + 1n, -(2n ** 32n)), fc.bigInt({ min: INT64_MIN, max: INT64_MAX })),
  'DECIMAL(18, 4)': fc.oneof(fc.constantFrom(10n ** 18n - 1n, -(10n ** 18n - 1n), 0n, -1n), fc.bigInt({ min: -(10n ** 18n - 1n), max: 10n ** 18n - 1n })),
  'DECIMAL(38, 10)': fc.oneof(
    fc.constantFrom(10n ** 38n - 1n, -(10n ** 38n - 1n), 0n, -1n, 2n ** 64n, -(2n ** 64n), 2n ** 64n - 1n, -(2n ** 64n) + 1n, 2n ** 63n, -(2n ** 63n) - 1n),
    fc.bigInt({ min: -(10n ** 38n - 1n), max: 10n ** 38n - 1n }),
  ),
  DOUBLE: fc.oneof(fc.constantFrom(-0, 0, NaN, Infinity, -Infinity, Number.MIN_VALUE, Number.MAX_VALUE, 0.1 + 0.2), fc.double()),
  FLOAT: fc.float().map((f) => Math.fround(f)),
  STRING: fc.oneof(
    // A leading U+FEFF is a character of the value (a default UTF-8 decoder drops it).
    fc.constantFrom('', '\uffff', '\ue000', '\ud7ff', '😀', '😀a', 'é', 'Ω', '中文', 'a\u0000', '\u{10ffff}', '\ufeff', '\ufeffa', '\ufeff\ufeff'),
    fc.string({ unit: 'grapheme', maxLength: 8 }),
    fc.string({ unit: fc.constantFrom('a', '\uffff', '😀', 'é', '\ue000', '', '\ufeff'), maxLength: 5 }),
  ),
  BYTES: fc.oneof(fc.constant(new Uint8Array(0)), fc.uint8Array({ maxLength: 7 }), fc.constantFrom(new Uint8Array([0x80]), new Uint8Array([0xff, 0]))),
  'TIMESTAMP(9)': fc.record({
    epochMillis: fc.oneof(fc.constantFrom(-1, 0, 1), fc.integer({ min: -62_135_596_800_000, max: 253_402_300_799_999 })),
    nanoOfMillis: fc.oneof(fc.constantFrom(0, 1, 999_999), fc.integer({ min: 0, max: 999_999 })),
  }),
  'TIMESTAMP(3)': fc.record({ epochMillis: fc.integer({ min: -1e12, max: 1e12 }), nanoOfMillis: fc.constant(0) }),
};
const NAMES = Object.keys(ARBITRARIES);
const nullable = (arb: fc.Arbitrary<InternalValue>): fc.Arbitrary<InternalValue> => fc.oneof({ arbitrary: fc.constant(null), weight: 1 }, { arbitrary: arb, weight: 5 });

const ROW_TYPE: RowType = { fields: NAMES.map((name, i) => ({ id: i, name: `c${i}`, type: parseDataType(name) })) };
/** The table's columns followed by a repeat of the BIGINT column (as a key-value batch repeats its keys). */
const ALIASED: RowType = { fields: [...ROW_TYPE.fields, { id: NAMES.length, name: 'again', type: parseDataType('BIGINT') }] };
const BIGINT_COLUMN = NAMES.indexOf('BIGINT');

function aliased(batch: ColumnBatch): ColumnBatch {
  return { rowType: ALIASED, length: batch.length, columns: [...batch.columns, batch.columns[BIGINT_COLUMN] as Column] };
}

async function withStore(body: (store: LocalObjectStore) => Promise<void>): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'tributary-run-spill-'));
  try {
    await body(new LocalObjectStore(dir));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Writes `batches` as the segments of one spill object `runs/<object>`. */
async function spill(store: LocalObjectStore, object: string, batches: readonly ColumnBatch[], blockRows: number): Promise<WrittenSegment[]> {
  const run = new RunSpill(store, `runs/${object}`, object, blockRows);
  const out: WrittenSegment[] = [];
  for (const batch of batches) out.push(await run.writeSegment(batch));
  await run.close();
  return out;
}

async function readAll(store: LocalObjectStore, written: WrittenSegment, rowType: RowType, whole: boolean, rows: number | undefined = written.rows): Promise<ColumnBatch[]> {
  const segment = parseRunSegment(written.name);
  assert.ok(segment?.checksum !== undefined, 'a run segment names its checksum');
  const out: ColumnBatch[] = [];
  for await (const batch of readRunSegment({ store, key: `runs/${segment.object}`, segment: { ...segment, checksum: segment.checksum }, size: written.size, rows, whole }, rowType)) out.push(batch);
  return out;
}

async function refused(read: Promise<unknown>, code: 'RUN_TRUNCATED' | 'RUN_CORRUPT', what: string): Promise<void> {
  await assert.rejects(read, (error: unknown) => isTributaryError(error) && error.code === code, what);
}

describe('the run encoding', () => {
  test('every kind, NULLs and edge values round-trip exactly, whole or block by block, segments side by side', async () => {
    const row = fc.tuple(...NAMES.map((n) => nullable(ARBITRARIES[n]!)));
    await withStore(async (store) => {
      let n = 0;
      await fc.assert(
        fc.asyncProperty(fc.array(fc.array(row, { minLength: 1, maxLength: 40 }), { minLength: 1, maxLength: 3 }), fc.integer({ min: 1, max: 16 }), async (segments, blockRows) => {
          const batches = segments.map((rows) => aliased(batchFromRows(ROW_TYPE, rows)));
          const written = await spill(store, `o${n++}.run`, batches, blockRows);
          for (const [i, w] of written.entries()) {
            for (const whole of [true, false]) {
              const read = await readAll(store, w, ALIASED, whole);
              assert.equal(read.length, Math.ceil((segments[i] as unknown[]).length / blockRows), 'one batch per block');
              const rows = read.flatMap((b) => rowsFromBatch(b));
              assert.deepEqual(rows, rowsFromBatch(batches[i] as ColumnBatch), `segment ${i} (${whole ? 'whole' : 'by blocks'})`);
              // The repeated column is the same column, decoded once.
              for (const b of read) assert.equal(b.columns[NAMES.length], b.columns[BIGINT_COLUMN]);
            }
          }
        }),
        { numRuns: 60 },
      );
    });
  });

  test('a column that is a view at an offset of a longer array, and rows past the batch length, are encoded as the batch says', async () => {
    await withStore(async (store) => {
      const rowType: RowType = { fields: [{ id: 0, name: 'k', type: parseDataType('BIGINT') }, { id: 1, name: 's', type: parseDataType('STRING') }] };
      const values = new BigInt64Array([9n, 8n, INT64_MIN, INT64_MAX, 7n]);
      const batch: ColumnBatch = {
        rowType,
        length: 2,
        columns: [
          { kind: 'int64', values: values.subarray(2), validity: undefined },
          { kind: 'string', values: ['😀', '', 'not in the batch'], validity: new Uint8Array([1, 0, 1]) },
        ],
      };
      const [w] = await spill(store, 'view.run', [batch], 4096);
      assert.deepEqual((await readAll(store, w!, rowType, true)).flatMap((b) => rowsFromBatch(b)), [[INT64_MIN, '😀'], [INT64_MAX, null]]);
    });
  });

  test('a block whose bytes do not start at a multiple of 8 in their buffer decodes the same (a copy)', () => {
    const batch = aliased(batchFromRows(ROW_TYPE, [NAMES.map((n) => (n === 'BIGINT' ? INT64_MIN : n === 'STRING' ? '中文😀' : null)), NAMES.map(() => null)]));
    const [head, body] = encodeRunBlock(batch);
    const record = parseRunRecord(head!, { name: 'x', size: 0 });
    assert.equal(record.kind, 'block');
    const shifted = new Uint8Array(body!.length + 3).subarray(3);
    shifted.set(body!);
    for (const bytes of [body!, shifted]) {
      const decoded = decodeRunBlock(ALIASED, record as typeof record & { kind: 'block' }, bytes, { name: 'x', size: 0 });
      assert.deepEqual(rowsFromBatch(decoded), rowsFromBatch(batch));
    }
  });
});

describe('a run that is not what its reference says is refused', () => {
  const rows = Array.from({ length: 50 }, (_, i) => NAMES.map((n) => (n === 'BIGINT' ? BigInt(i) : n === 'STRING' ? `v${i}😀` : null)));
  const batch = batchFromRows(ROW_TYPE, rows);

  for (const whole of [true, false]) {
    const how = whole ? 'read whole' : 'read block by block';

    test(`truncated, cut short or with bytes appended (${how})`, async () => {
      await withStore(async (store) => {
        const [w] = await spill(store, 'a.run', [batch], 8);
        const bytes = await store.get('runs/a.run');
        // The object cut: the reference's size runs past its end.
        await store.put('runs/a.run', bytes.subarray(0, bytes.length - 5));
        await refused(readAll(store, w!, ROW_TYPE, whole), 'RUN_TRUNCATED', 'the object was cut');
        // The reference's size shorter than the run (a cut the size agrees with).
        await store.put('runs/a.run', bytes);
        await refused(readAll(store, { ...w!, size: w!.size - 16 }, ROW_TYPE, whole), whole ? 'RUN_CORRUPT' : 'RUN_TRUNCATED', 'the size says less than the run');
        await refused(readAll(store, { ...w!, size: 20 }, ROW_TYPE, whole), 'RUN_TRUNCATED', 'a size that cannot hold a run');
      });
    });

    test(`one byte altered anywhere (${how})`, async () => {
      await withStore(async (store) => {
        const [w] = await spill(store, 'a.run', [batch], 8);
        const bytes = await store.get('runs/a.run');
        // Every byte position of the segment, one at a time: none may read back as a run.
        for (let at = 0; at < bytes.length; at += 7) {
          const altered = Uint8Array.from(bytes);
          altered[at] = (altered[at] as number) ^ 0x10;
          await store.put('runs/a.run', altered);
          await assert.rejects(readAll(store, w!, ROW_TYPE, whole), (e: unknown) => isTributaryError(e) && (e.code === 'RUN_CORRUPT' || e.code === 'RUN_TRUNCATED'), `byte ${at} altered`);
        }
      });
    });

    test(`rewritten to other values of the same length and the same CRC32Cs (${how}): the SHA-256 refuses it`, async () => {
      await withStore(async (store) => {
        const rowType: RowType = { fields: [{ id: 0, name: 'k', type: parseDataType('BIGINT NOT NULL') }, { id: 1, name: 'v', type: parseDataType('BIGINT NOT NULL') }] };
        const [w] = await spill(store, 'f.run', [batchFromRows(rowType, [[1n, 0x0102030405060708n], [2n, 0x1112131415161718n]])], 8);
        const bytes = await store.get('runs/f.run');
        // One block: header (8), its record (16: tag, rows, body length, body CRC32C), its body.
        const bodyStart = 24;
        const bodyEnd = bodyStart + new DataView(bytes.buffer, bytes.byteOffset).getUint32(16, true);
        const offsetOf = (v: bigint): number => Buffer.from(bytes).indexOf(new Uint8Array(new BigInt64Array([v]).buffer)) - bodyStart;
        const body = bytes.subarray(bodyStart, bodyEnd);
        const forged = Uint8Array.from(body);
        const changed = offsetOf(0x0102030405060708n) + 7;
        forged[changed] = (forged[changed] as number) ^ 0x40; // the first row's v: another value
        matchCrc32c(body, forged, offsetOf(0x1112131415161718n)); // four bytes of the second row's v chosen to keep the CRC
        const altered = Uint8Array.from(bytes);
        altered.set(forged, bodyStart);
        assert.notDeepEqual(altered, bytes);
        assert.equal(crc32c(forged), crc32c(body), "the block's CRC32C still matches its record");
        assert.equal(crc32c(altered), crc32c(bytes), "and the segment's CRC32C is the one it had");
        const record = parseRunRecord(altered.subarray(8, 24), { name: 'f', size: altered.length });
        assert.equal(record.kind, 'block');
        const decoded = rowsFromBatch(decodeRunBlock(rowType, record as typeof record & { kind: 'block' }, forged, { name: 'f', size: altered.length }));
        assert.notEqual(decoded[0]?.[1], 0x0102030405060708n, 'the forged block decodes, to another value');
        await store.put('runs/f.run', altered);
        await refused(readAll(store, w!, rowType, whole), 'RUN_CORRUPT', 'a rewrite that keeps every CRC32C');
      });
    });

    test(`swapped for another valid run of the same size, or of other rows (${how})`, async () => {
      await withStore(async (store) => {
        const other = batchFromRows(ROW_TYPE, rows.map((r) => r.map((v) => (typeof v === 'string' ? v.replace('v', 'w') : v))));
        const [a, b] = await spill(store, 'ab.run', [batch, other], 8);
        assert.equal(a!.size, b!.size, 'two runs of the same size');
        // b's bytes where a's reference points: only the checksum in a's name tells them apart.
        const swapped = { ...a!, name: runSegmentName({ ...parseRunSegment(b!.name)!, checksum: parseRunSegment(a!.name)!.checksum }) };
        await refused(readAll(store, swapped, ROW_TYPE, whole), 'RUN_CORRUPT', "another run's bytes");
        // The right bytes, but the reference counts other rows.
        await refused(readAll(store, a!, ROW_TYPE, whole, 49), 'RUN_CORRUPT', 'rows not the reference’s');
      });
    });
  }

  test('a reference pinning its segment by CRC32C only (an older writer’s) is RUN_CORRUPT, never read', async () => {
    await withStore(async (store) => {
      const [w] = await spill(store, 'a.run', [batch], 8);
      const bytes = await store.get('runs/a.run');
      const byCrc = { ...w!, name: runSegmentName({ ...parseRunSegment(w!.name)!, checksum: crc32c(bytes).toString(16).padStart(8, '0') }) };
      assert.equal(parseRunSegment(byCrc.name)?.checksum?.length, 8);
      for (const whole of [true, false]) await refused(readAll(store, byCrc, ROW_TYPE, whole), 'RUN_CORRUPT', 'a CRC32C-named segment');
    });
  });

  test('a run of other columns, or an unknown version, is RUN_CORRUPT', async () => {
    await withStore(async (store) => {
      const [w] = await spill(store, 'a.run', [batch], 8);
      const fewer: RowType = { fields: ROW_TYPE.fields.slice(1) };
      await refused(readAll(store, w!, fewer, true), 'RUN_CORRUPT', 'the columns shifted by one');
      const bytes = await store.get('runs/a.run');
      const later = Uint8Array.from(bytes);
      later[4] = 2;
      await store.put('runs/a.run', later);
      const named = { ...w!, name: runSegmentName({ ...parseRunSegment(w!.name)!, checksum: createHash('sha256').update(later).digest('hex') }) };
      await refused(readAll(store, named, ROW_TYPE, true), 'RUN_CORRUPT', 'version 2');
    });
  });

  test('a block failing its own checksum is not decoded, even when read block by block', async () => {
    await withStore(async (store) => {
      const [w] = await spill(store, 'a.run', [batch], 8);
      const bytes = await store.get('runs/a.run');
      // The first block's first string offset made huge (header 8 + record 16 + sections before it).
      const altered = Uint8Array.from(bytes);
      altered[8 + 16 + 200] = 0xff;
      await store.put('runs/a.run', altered);
      const seen: ColumnBatch[] = [];
      const segment = parseRunSegment(w!.name)!;
      await refused(
        (async () => {
          for await (const b of readRunSegment({ store, key: 'runs/a.run', segment: { ...segment, checksum: segment.checksum! }, size: w!.size, rows: w!.rows, whole: false }, ROW_TYPE)) seen.push(b);
        })(),
        'RUN_CORRUPT',
        'the first block',
      );
      assert.equal(seen.length, 0, 'no batch of an altered block reaches the merge');
    });
  });
});

