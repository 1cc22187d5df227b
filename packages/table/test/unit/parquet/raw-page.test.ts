/**
 * decodeV1Page (parquet-raw-chunk.ts), the before-image probe's decode of a v1 data page, against
 * hyparquet's readDataPage on the same bytes: pages built here with every shape of the RLE /
 * bit-packed hybrid (runs of one value, bit-packed groups with padding past the last value, runs of
 * zero length, multi-byte run headers), nulls or none, PLAIN values of each physical type and
 * dictionary ids of every width it takes; and malformed pages refused with an error, not read.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import type { DataPageHeader, ParquetType } from 'hyparquet';
import { readDataPage } from 'hyparquet/src/datapage.js';
import { ByteValues, decodeRawChunk, decodeV1Page } from '../../../src/parquet/parquet-raw-chunk.ts';

/** A decoded page's values as an array (byte arrays are kept as positions, read here value by value). */
const valuesOf = (values: unknown): unknown[] => (values instanceof ByteValues ? Array.from({ length: values.length }, (_, i) => values.at(i)) : Array.from(values as ArrayLike<unknown>));

function varint(n: number): number[] {
  const out: number[] = [];
  while (n >= 0x80) {
    out.push((n & 0x7f) | 0x80);
    n = Math.floor(n / 128);
  }
  out.push(n);
  return out;
}

/** A run of the hybrid: `rle` repeats one value, `packed` writes its values bit-packed (padded to a multiple of 8). */
type Run = { readonly rle: boolean; readonly values: readonly number[] };

function encodeHybrid(runs: readonly Run[], width: number): number[] {
  const out: number[] = [];
  for (const run of runs) {
    if (run.rle) {
      out.push(...varint(run.values.length * 2));
      const value = run.values[0] ?? 0;
      for (let b = 0; b < (width + 7) >> 3; b++) out.push((value >>> (8 * b)) & 0xff);
      continue;
    }
    const groups = Math.ceil(run.values.length / 8);
    out.push(...varint(groups * 2 + 1));
    const bits: number[] = [];
    for (let i = 0; i < groups * 8; i++) {
      const v = run.values[i] ?? (i * 7) % 2 ** Math.min(width, 3); // padding: arbitrary bits, never read
      for (let b = 0; b < width; b++) bits.push((v >>> b) & 1);
    }
    for (let i = 0; i < bits.length; i += 8) out.push(bits.slice(i, i + 8).reduce((byte, bit, k) => byte | (bit << k), 0));
  }
  return out;
}

/**
 * Runs that hold `values` in order: cut at random points, each piece RLE when all equal (and asked),
 * else bit-packed; a bit-packed run before the last holds a multiple of 8 values (only the last
 * run's group may be padded), so its piece is extended to one.
 */
const runsOf = (values: readonly number[], cuts: readonly number[], rle: readonly boolean[]): Run[] => {
  const points = [...new Set(cuts.map((c) => c % (values.length + 1)))].sort((a, b) => a - b);
  const runs: Run[] = [];
  let from = 0;
  for (const [i, cut] of [...points, values.length].entries()) {
    if (cut <= from) continue;
    let piece = values.slice(from, cut);
    const packed = !(piece.every((v) => v === piece[0]) && (rle[i % rle.length] ?? true));
    if (packed) piece = values.slice(from, Math.min(values.length, from + Math.ceil(piece.length / 8) * 8));
    from += piece.length;
    runs.push({ rle: !packed, values: piece });
  }
  return runs;
};

function plainBytes(type: ParquetType, values: readonly number[]): number[] {
  const out: number[] = [];
  const view = new DataView(new ArrayBuffer(8));
  for (const v of values) {
    if (type === 'INT32') view.setInt32(0, v, true), out.push(...new Uint8Array(view.buffer, 0, 4));
    else if (type === 'INT64') view.setBigInt64(0, BigInt(v) * 1_000_003n, true), out.push(...new Uint8Array(view.buffer, 0, 8));
    else if (type === 'DOUBLE') view.setFloat64(0, v / 7, true), out.push(...new Uint8Array(view.buffer, 0, 8));
    else if (type === 'FLOAT') view.setFloat32(0, v / 3, true), out.push(...new Uint8Array(view.buffer, 0, 4));
    else if (type === 'FIXED_LEN_BYTE_ARRAY') out.push(v & 0xff, (v >>> 8) & 0xff, 7);
    else {
      const text = new TextEncoder().encode(`v${v}ü`);
      view.setUint32(0, text.length, true);
      out.push(...new Uint8Array(view.buffer, 0, 4), ...text);
    }
  }
  return out;
}

interface PageCase {
  readonly type: ParquetType;
  readonly optional: boolean;
  readonly levels: readonly number[];
  readonly levelRuns: readonly Run[];
  readonly dictionary: number;
  readonly width: number;
  readonly ids: readonly number[];
  readonly idRuns: readonly Run[];
}

function pageOf(c: PageCase): { page: Uint8Array; header: DataPageHeader } {
  const bytes: number[] = [];
  if (c.optional) {
    const levels = encodeHybrid(c.levelRuns, 1);
    bytes.push(levels.length & 0xff, (levels.length >>> 8) & 0xff, (levels.length >>> 16) & 0xff, levels.length >>> 24, ...levels);
  }
  const dictionary = c.dictionary > 0;
  if (dictionary) bytes.push(c.width, ...(c.width === 0 ? [] : encodeHybrid(c.idRuns, c.width)));
  else bytes.push(...plainBytes(c.type, c.ids));
  const header: DataPageHeader = { num_values: c.levels.length, encoding: dictionary ? 'RLE_DICTIONARY' : 'PLAIN', definition_level_encoding: 'RLE', repetition_level_encoding: 'RLE' };
  return { page: new Uint8Array(bytes), header };
}

const TYPES: ParquetType[] = ['INT32', 'INT64', 'DOUBLE', 'FLOAT', 'BYTE_ARRAY', 'FIXED_LEN_BYTE_ARRAY'];

const pageCase: fc.Arbitrary<PageCase> = fc
  .record({
    type: fc.constantFrom(...TYPES),
    optional: fc.boolean(),
    rows: fc.integer({ min: 0, max: 300 }),
    nullEvery: fc.constantFrom(0, 1, 2, 3, 10, 1000),
    nullRun: fc.integer({ min: 1, max: 40 }),
    dictionary: fc.constantFrom(0, 1, 2, 3, 100, 5000, 70_000),
    cuts: fc.array(fc.nat({ max: 400 }), { maxLength: 12 }),
    rle: fc.array(fc.boolean(), { minLength: 1, maxLength: 6 }),
    seed: fc.nat(),
  })
  .map(({ type, optional, rows, nullEvery, nullRun, dictionary, cuts, rle, seed }): PageCase => {
    // Nulls in runs (so that RLE runs of 0 and 1 both occur), or none.
    const levels = Array.from({ length: rows }, (_, i) => (!optional || nullEvery === 0 || Math.floor(i / nullRun) % nullEvery !== 0 ? 1 : 0));
    const present = levels.filter((l) => l === 1).length;
    const width = dictionary === 0 ? 0 : Math.ceil(Math.log2(dictionary));
    // Ids in runs of repeats (RLE) and stretches of distinct ones (bit-packed), always below the dictionary's size.
    const ids = Array.from({ length: present }, (_, i) => (dictionary === 0 ? i * 31 + seed % 97 : (Math.floor(i / 5) * 2_654_435_761 + seed) % dictionary));
    return { type, optional, levels, levelRuns: runsOf(levels, cuts, rle), dictionary, width, ids, idRuns: runsOf(ids, cuts.map((c) => c * 3), rle) };
  });

function decodeBoth(c: PageCase) {
  const { page, header } = pageOf(c);
  const typeLength = c.type === 'FIXED_LEN_BYTE_ARRAY' ? 3 : undefined;
  const ours = decodeV1Page(page, header, c.type, typeLength, c.optional, c.dictionary);
  const element = { name: 'c', type: c.type, type_length: typeLength, repetition_type: c.optional ? 'OPTIONAL' : 'REQUIRED' } as never;
  const root = { element: { name: 'root' }, children: [], count: 1, path: [] } as never;
  const leaf = { element, children: [], count: 1, path: ['c'] } as never;
  const theirs = readDataPage(page, header, { type: c.type, element, schemaPath: [root, leaf], pathInSchema: ['c'], codec: 'UNCOMPRESSED', parsers: undefined as never, compressors: {}, utf8: false } as never);
  return { ours, theirs };
}

test('decodeV1Page reads every page as hyparquet does: the same nulls, the same values or dictionary ids', () => {
  let withNulls = 0;
  let dictionaries = 0;
  fc.assert(
    fc.property(pageCase, (c) => {
      const { ours, theirs } = decodeBoth(c);
      assert.ok(ours !== undefined, 'decoded here, not handed back');
      const theirLevels = Array.from(theirs.definitionLevels as ArrayLike<number>);
      assert.deepEqual(ours.definitionLevels === undefined ? [] : Array.from(ours.definitionLevels), theirLevels);
      if (c.optional && c.levels.includes(0)) {
        withNulls++;
        assert.deepEqual(Array.from(ours.definitionLevels ?? []), c.levels);
      }
      if (c.dictionary > 0) dictionaries++;
      assert.deepEqual(valuesOf(ours.dataPage), Array.from(theirs.dataPage as ArrayLike<unknown>));
      if (c.dictionary > 0 && c.width > 0) assert.deepEqual(Array.from(ours.dataPage as ArrayLike<number>), c.ids);
    }),
    { numRuns: 400 },
  );
  assert.ok(withNulls > 20 && dictionaries > 100, `cases with nulls ${withNulls}, with dictionary ids ${dictionaries}`);
});

test('decodeV1Page: a bit-packed run padded past the page\u2019s last value, a zero-length run and a two-byte run header', () => {
  const levels = [...Array<number>(200).fill(1), 0, 1, 0];
  const ids = [...Array<number>(198).fill(3), 1, 2, 0];
  const c: PageCase = {
    type: 'INT32',
    optional: true,
    levels,
    levelRuns: [{ rle: true, values: [] }, { rle: true, values: levels.slice(0, 200) }, { rle: false, values: levels.slice(200) }],
    dictionary: 4,
    width: 2,
    ids,
    idRuns: [{ rle: true, values: ids.slice(0, 198) }, { rle: false, values: ids.slice(198) }],
  };
  const { page, header } = pageOf(c);
  // After the levels' length: the empty run (header 0, value 0), then 200 ones: a two-byte header (400 = 0x90 0x03).
  assert.deepEqual(Array.from(page.subarray(4, 9)), [0, 0, 0x90, 0x03, 1]);
  const ours = decodeV1Page(page, header, 'INT32', undefined, true, 4);
  assert.deepEqual(Array.from(ours?.definitionLevels ?? []), levels);
  assert.deepEqual(Array.from(ours?.dataPage as ArrayLike<number>), ids);
  const { theirs } = decodeBoth(c);
  assert.deepEqual(Array.from(theirs.dataPage as ArrayLike<number>), ids);
});

test('decodeV1Page refuses a malformed page (a run past the end, a level beyond 1 bit, an id beyond the dictionary, levels cut short)', () => {
  const header: DataPageHeader = { num_values: 10, encoding: 'RLE_DICTIONARY', definition_level_encoding: 'RLE', repetition_level_encoding: 'RLE' };
  const levels = (bytes: number[]) => [bytes.length, 0, 0, 0, ...bytes];
  // Levels: 10 × 1, then ids of width 3: 10 × 5 (RLE).
  const good = [...levels([20, 1]), 3, 20, 5];
  assert.deepEqual(Array.from(decodeV1Page(new Uint8Array(good), header, 'INT32', undefined, true, 8)?.dataPage as ArrayLike<number>), Array(10).fill(5));
  const refused = (bytes: number[], size: number, message: RegExp) => assert.throws(() => decodeV1Page(new Uint8Array(bytes), header, 'INT32', undefined, true, size), message);
  refused([...levels([20, 2]), 3, 20, 5], 8, /beyond 1 bits/);
  refused(good, 5, /beyond the dictionary/);
  refused([...levels([20, 1]), 3, 20], 8, /past the end/);
  refused([...levels([21, 0xff])], 8, /past the end/); // 10 bit-packed groups of 1 byte, 1 there
  refused([200, 0, 0, 0, 20, 1], 8, /ends inside its definition levels/);
  refused([...levels([8, 1]), 3, 20, 5], 8, /past the end|ends inside/); // 4 levels only, then nothing
  refused([...levels([0x80]), 3], 8, /inside a run header/);
  // PLAIN byte arrays whose values run past the page: a length cut short, a length past the end,
  // fixed-length values that do not all fit.
  const plain: DataPageHeader = { num_values: 2, encoding: 'PLAIN', definition_level_encoding: 'RLE', repetition_level_encoding: 'RLE' };
  const bytesPage = (bytes: number[], type: 'BYTE_ARRAY' | 'FIXED_LEN_BYTE_ARRAY') => decodeV1Page(new Uint8Array(bytes), plain, type, type === 'BYTE_ARRAY' ? undefined : 3, false, 0);
  assert.deepEqual(valuesOf(bytesPage([1, 0, 0, 0, 97, 2, 0, 0, 0, 98, 99], 'BYTE_ARRAY')?.dataPage), [new Uint8Array([97]), new Uint8Array([98, 99])]);
  assert.throws(() => bytesPage([1, 0, 0, 0, 97, 2, 0], 'BYTE_ARRAY'), /ends inside its values/);
  assert.throws(() => bytesPage([1, 0, 0, 0, 97, 9, 0, 0, 0, 98], 'BYTE_ARRAY'), /ends inside its values/);
  assert.deepEqual(valuesOf(bytesPage([1, 2, 3, 4, 5, 6], 'FIXED_LEN_BYTE_ARRAY')?.dataPage), [new Uint8Array([1, 2, 3]), new Uint8Array([4, 5, 6])]);
  assert.throws(() => bytesPage([1, 2, 3, 4, 5], 'FIXED_LEN_BYTE_ARRAY'), /ends inside its values/);
  // A count the page's bytes cannot hold is refused before anything is allocated for it.
  for (const type of ['BYTE_ARRAY', 'FIXED_LEN_BYTE_ARRAY'] as const) {
    assert.throws(() => decodeV1Page(new Uint8Array([1, 0, 0, 0, 97]), { ...plain, num_values: 2_000_000_000 }, type, type === 'BYTE_ARRAY' ? undefined : 3, false, 0), /ends inside its values/);
  }
  // Not decoded here (hyparquet's path): booleans, DELTA encodings, ids wider than 24 bits.
  assert.equal(decodeV1Page(new Uint8Array(good), { ...header, encoding: 'PLAIN' }, 'BOOLEAN', undefined, true, 0), undefined);
  assert.equal(decodeV1Page(new Uint8Array(good), { ...header, encoding: 'DELTA_BINARY_PACKED' }, 'INT32', undefined, true, 0), undefined);
  assert.equal(decodeV1Page(new Uint8Array([...levels([20, 1]), 25]), header, 'INT32', undefined, true, 8), undefined);
});

test('decodeV1Page: a page without a null as one run of ones (a two-byte header; a run longer than the page) has no levels; a shorter run of ones is read run by run', () => {
  const values = Array.from({ length: 300 }, (_, i) => i * 31);
  const oneRun: PageCase = { type: 'INT32', optional: true, levels: Array<number>(300).fill(1), levelRuns: [{ rle: true, values: Array<number>(300).fill(1) }], dictionary: 0, width: 0, ids: values, idRuns: [] };
  const { page, header } = pageOf(oneRun);
  assert.deepEqual(Array.from(page.subarray(4, 7)), [0xd8, 0x04, 1], 'a run of 300 ones: header 600 in two bytes');
  const { ours, theirs } = decodeBoth(oneRun);
  assert.equal(ours?.definitionLevels, undefined);
  assert.deepEqual(Array.from(ours?.dataPage as ArrayLike<number>), values);
  assert.deepEqual(Array.from(theirs.dataPage as ArrayLike<number>), values);
  // A run past the page's rows reads as the page's rows (as the run-by-run read always did; hyparquet reads past the values).
  const longer = pageOf({ ...oneRun, levelRuns: [{ rle: true, values: Array<number>(400).fill(1) }] });
  const read = decodeV1Page(longer.page, longer.header, 'INT32', undefined, true, 0);
  assert.equal(read?.definitionLevels, undefined);
  assert.deepEqual(Array.from(read?.dataPage as ArrayLike<number>), values);
  // 200 ones, then 100 zeros: not one run of ones; the levels say which rows are null.
  const levels = [...Array<number>(200).fill(1), ...Array<number>(100).fill(0)];
  const split = decodeBoth({ ...oneRun, levels, levelRuns: [{ rle: true, values: levels.slice(0, 200) }, { rle: true, values: levels.slice(200) }], ids: values.slice(0, 200) });
  assert.deepEqual(Array.from(split.ours?.definitionLevels ?? []), levels);
  assert.deepEqual(Array.from(split.ours?.dataPage as ArrayLike<number>), Array.from(split.theirs.dataPage as ArrayLike<number>));
});

test('decodeRawChunk refuses a page whose size points back into the chunk or past it, instead of walking the pages in a loop', { timeout: 10_000 }, () => {
  // Page headers in Thrift's compact protocol: type (1), uncompressed size (2), compressed size (3).
  const zigzag = (n: number) => (n << 1) ^ (n >> 31);
  const pageHeader = (type: number, compressed: number) => [0x15, zigzag(type), 0x15, 0x00, 0x15, zigzag(compressed), 0x00];
  const element = { name: 'x', type: 'INT32', repetition_type: 'REQUIRED' };
  const path = [{ element: { name: 'root' }, children: [], count: 1, path: [] }, { element, children: [], count: 1, path: ['x'] }] as never;
  const decode = (bytes: number[], range?: [number, number]) => {
    const meta = { type: 'INT32', encodings: [], path_in_schema: ['x'], codec: 'UNCOMPRESSED', num_values: 2n, total_uncompressed_size: 0n, total_compressed_size: BigInt(bytes.length), data_page_offset: 0n } as never;
    return decodeRawChunk(new Uint8Array(bytes), meta, path, 2, {}, 0, range);
  };
  // An index page (no values) whose size leads back to its own header: decoded, it never ended.
  assert.throws(() => decode([...pageHeader(2, -7), 1, 0, 0, 0]), /runs past its column chunk/);
  // A size past the chunk's end.
  assert.throws(() => decode([...pageHeader(2, 100), 1, 0, 0, 0]), /runs past its column chunk/);
  // A skipped data page (before the rows asked for) is not decompressed, but its size is checked all the same.
  assert.throws(() => decode([...pageHeader(0, -7), 1, 0, 0, 0], [1, 2]), /runs past its column chunk/);
});
