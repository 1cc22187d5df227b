import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { compileSchema, type AvroSchema, type AvroValue } from '../../../src/avro/avro.ts';
import { AvroReader, readDatum } from '../../../src/avro/avro-decoder.ts';
import { AvroWriter, writeDatum } from '../../../src/avro/avro-encoder.ts';
import { readAvroFile, writeAvroFile } from '../../../src/avro/avro-container.ts';
import { snappyDecompress } from '../../../src/avro/snappy.ts';

const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');

function encode(schema: AvroSchema, value: AvroValue): Uint8Array {
  const w = new AvroWriter();
  writeDatum(w, compileSchema(schema), value);
  return w.bytes().slice();
}

function decode(schema: AvroSchema, bytes: Uint8Array): AvroValue {
  const r = new AvroReader(bytes);
  const value = readDatum(r, compileSchema(schema));
  assert.equal(r.remaining, 0);
  return value;
}

test('long zig-zag varints match the Avro specification examples', () => {
  // Avro spec, "Binary encoding": 0 → 00, -1 → 01, 1 → 02, -2 → 03, 2 → 04, -64 → 7f, 64 → 80 01.
  const cases: [bigint, string][] = [[0n, '00'], [-1n, '01'], [1n, '02'], [-2n, '03'], [2n, '04'], [-64n, '7f'], [64n, '8001']];
  for (const [value, bytes] of cases) {
    assert.equal(hex(encode('long', value)), bytes);
    assert.equal(decode('long', Buffer.from(bytes, 'hex')), value);
    assert.equal(hex(encode('int', Number(value))), bytes);
  }
  assert.equal(hex(encode('long', 9223372036854775807n)), 'feffffffffffffffff01');
  assert.equal(hex(encode('long', -9223372036854775808n)), 'ffffffffffffffffff01');
  assert.equal(hex(encode('int', 2147483647)), 'feffffff0f');
  assert.equal(hex(encode('int', -2147483648)), 'ffffffff0f');
});

test('64-bit longs and 32-bit ints round-trip without precision loss', () => {
  fc.assert(fc.property(fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }), (v) => decode('long', encode('long', v)) === v));
  fc.assert(fc.property(fc.integer(), (v) => decode('int', encode('int', v)) === v));
});

test('nullable unions put null on branch 0', () => {
  const schema: AvroSchema = ['null', 'string'];
  assert.equal(hex(encode(schema, null)), '00');
  assert.equal(hex(encode(schema, 'a')), '020261');
});

test('a string that starts with U+FEFF decodes with it (a default UTF-8 decoder drops a leading one)', () => {
  for (const text of ['\uFEFF', '\uFEFFa', '\uFEFF\uFEFF']) assert.equal(decode('string', encode('string', text)), text);
});

test('values of the wrong JS type are refused with AVRO_VALUE_INVALID', () => {
  assert.throws(() => encode('long', 1), { code: 'AVRO_VALUE_INVALID' });
  assert.throws(() => encode('long', 2n ** 63n), { code: 'AVRO_VALUE_INVALID' });
  assert.throws(() => encode('int', 2 ** 31), { code: 'AVRO_VALUE_INVALID' });
  assert.throws(() => encode({ type: 'record', name: 'r', fields: [{ name: 'a', type: 'string' }] }, {}), { code: 'AVRO_VALUE_INVALID' });
});

test('truncated or malformed datums are refused with AVRO_CORRUPT', () => {
  assert.throws(() => decode('long', Uint8Array.of(0x80)), { code: 'AVRO_CORRUPT' });
  assert.throws(() => decode('string', Uint8Array.of(0x06, 0x61)), { code: 'AVRO_CORRUPT' });
  assert.throws(() => decode('string', Uint8Array.of(0x02, 0xff)), { code: 'AVRO_CORRUPT' });
  assert.throws(() => decode(['null', 'int'], Uint8Array.of(0x04)), { code: 'AVRO_CORRUPT' });
});

const recordSchema: AvroSchema = {
  type: 'record', name: 'r', namespace: 'ns', fields: [
    { name: 'i', type: 'int' }, { name: 'l', type: 'long' }, { name: 's', type: 'string' },
    { name: 'b', type: 'bytes' }, { name: 'd', type: 'double' }, { name: 'f', type: 'boolean' },
    { name: 'a', type: { type: 'array', items: ['null', 'long'] } },
    { name: 'm', type: { type: 'map', values: 'int' } },
    { name: 'e', type: { type: 'enum', name: 'E', symbols: ['X', 'Y'] } },
    { name: 'x', type: { type: 'fixed', name: 'F', size: 2 } },
    { name: 'n', type: ['null', 'r'], default: null },
  ],
};

const arbRecord = fc.letrec<{ rec: AvroValue }>((tie) => ({
  rec: fc.record({
    i: fc.integer(), l: fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }), s: fc.string({ unit: 'binary' }),
    b: fc.uint8Array(), d: fc.double({ noNaN: true }), f: fc.boolean(),
    a: fc.array(fc.option(fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }), { nil: null })),
    m: fc.array(fc.tuple(fc.string(), fc.integer())).map((kv) => new Map(kv)),
    e: fc.constantFrom('X', 'Y'), x: fc.uint8Array({ minLength: 2, maxLength: 2 }),
    n: fc.option(tie('rec'), { nil: null, depthSize: 'small' }),
  }),
}));

test('records with every Avro type round-trip through the binary encoding (property)', () => {
  fc.assert(fc.property(arbRecord.rec, (value) => {
    // structuredClone: fast-check builds nested records with a null prototype.
    assert.deepStrictEqual(decode(recordSchema, encode(recordSchema, value)), structuredClone(value));
  }), { numRuns: 200 });
});

test('object container files round-trip with every codec we write, across many blocks', () => {
  const records = Array.from({ length: 500 }, (_, i) => ({ id: BigInt(i) * 1_000_000_007n, name: `row-${i}`.repeat(i % 7) }));
  const schema: AvroSchema = { type: 'record', name: 'r', fields: [{ name: 'id', type: 'long' }, { name: 'name', type: 'string' }] };
  for (const codec of ['null', 'deflate', 'zstandard'] as const) {
    const bytes = writeAvroFile(schema, records, { codec, blockSize: 1024 });
    const file = readAvroFile(bytes);
    assert.equal(file.codec, codec);
    assert.deepStrictEqual(file.schema, schema);
    assert.deepStrictEqual(file.records, records);
    // Deterministic: the sync marker is derived from the content, not random.
    assert.deepStrictEqual(writeAvroFile(schema, records, { codec, blockSize: 1024 }), bytes);
  }
});

test('the header keeps the schema verbatim, logical types included', () => {
  const schema: AvroSchema = { type: 'record', name: 'r', fields: [{ name: 't', type: ['null', { type: 'long', logicalType: 'timestamp-millis' }], default: null }] };
  const file = readAvroFile(writeAvroFile(schema, [{ t: 1700000000000n }]));
  assert.deepStrictEqual(file.schema, schema);
  assert.equal(new TextDecoder().decode(file.metadata.get('avro.schema')), JSON.stringify(schema));
});

test('damaged container files are refused with typed errors', () => {
  const schema: AvroSchema = { type: 'record', name: 'r', fields: [{ name: 'id', type: 'long' }] };
  const good = writeAvroFile(schema, [{ id: 1n }, { id: 2n }], { codec: 'null' });
  assert.throws(() => readAvroFile(Uint8Array.of(1, 2, 3)), { code: 'AVRO_CORRUPT' });
  const badSync = good.slice();
  badSync[badSync.length - 1] = (badSync[badSync.length - 1] as number) ^ 0xff;
  assert.throws(() => readAvroFile(badSync), { code: 'AVRO_CORRUPT' });
  assert.throws(() => readAvroFile(good.subarray(0, good.length - 5)), { code: 'AVRO_CORRUPT' });
  const bzip = Buffer.from(good).toString('latin1').replace('\x08null', '\x0abzip2');
  assert.throws(() => readAvroFile(Buffer.from(bzip, 'latin1')), { code: 'AVRO_CODEC_UNSUPPORTED' });
});

test('snappy: literals, short and long copies, overlapping copies', () => {
  // "abcabcabcabc": length 12, literal "abc" (tag 0x08), copy-1 of 9 bytes at distance 3 (tag 0x15, 0x03).
  assert.equal(Buffer.from(snappyDecompress(Uint8Array.of(12, 0x08, 0x61, 0x62, 0x63, 0x15, 0x03))).toString(), 'abcabcabcabc');
  // Copy-2: "xy" then 20 bytes at distance 2 (tag (20-1)<<2|2 = 0x4e, distance 0x0002 little-endian).
  assert.equal(Buffer.from(snappyDecompress(Uint8Array.of(22, 0x04, 0x78, 0x79, 0x4e, 0x02, 0x00))).toString(), 'xy'.repeat(11));
  assert.throws(() => snappyDecompress(Uint8Array.of(5, 0x08, 0x61)), { code: 'AVRO_CORRUPT' });
  assert.throws(() => snappyDecompress(Uint8Array.of(8, 0x00, 0x61, 0x15, 0x05)), { code: 'AVRO_CORRUPT' });
});

test('strings of every length class (1-byte, 2-byte and 3-byte length varints; multi-byte UTF-8)', () => {
  // ASCII first, then a multi-byte character: short strings are copied char by char until one is not ASCII.
  const mixed = ['aé', `${'a'.repeat(62)}é`, `${'a'.repeat(20)}😀b`, '\u007f\u0080', 'a\u0000b'];
  for (const s of ['', 'a'.repeat(63), 'a'.repeat(64), 'é'.repeat(32), '😀'.repeat(16), 'x'.repeat(8191), '数'.repeat(3000), 'y'.repeat(70000), ...mixed]) {
    const bytes = encode('string', s);
    assert.equal(decode('string', bytes), s);
    const expected = new AvroWriter();
    expected.writeBytes(new TextEncoder().encode(s));
    assert.deepStrictEqual(bytes, expected.bytes().slice());
  }
  fc.assert(fc.property(fc.string({ unit: 'binary', maxLength: 300 }), (s) => decode('string', encode('string', s)) === s));
});

test('longs at the edges of the double fast path encode like the BigInt path', () => {
  const edge = 1n << 51n;
  for (const v of [edge - 1n, edge, edge + 1n, -edge + 1n, -edge, -edge - 1n, (1n << 49n) - 1n, 1n << 49n, -(1n << 49n)]) {
    const bytes = encode('long', v);
    assert.equal(decode('long', bytes), v);
    // Reference zig-zag varint computed with BigInt only.
    let z = BigInt.asUintN(64, (v << 1n) ^ (v >> 63n));
    const ref: number[] = [];
    while (z >= 0x80n) { ref.push(Number(z & 0x7fn) | 0x80); z >>= 7n; }
    ref.push(Number(z));
    assert.deepStrictEqual([...bytes], ref);
  }
});

test('bytes and blocks of every length class encode as a zig-zag length then the content', () => {
  const zigzag = (n: number): number[] => {
    const out: number[] = [];
    let z = BigInt(n) * 2n;
    while (z >= 0x80n) { out.push(Number(z & 0x7fn) | 0x80); z >>= 7n; }
    out.push(Number(z));
    return out;
  };
  for (const n of [0, 1, 2, 31, 32, 33, 63, 64, 65, 1000, 8192, 70000]) {
    const b = Uint8Array.from({ length: n }, (_, i) => (i * 31 + n) & 0xff);
    const bytes = encode('bytes', b);
    assert.deepStrictEqual([...bytes], [...zigzag(n), ...b], `bytes of ${n}`);
    assert.deepStrictEqual(decode('bytes', bytes), b);
    const fixed: AvroSchema = { type: 'fixed', name: 'F', size: n };
    assert.deepStrictEqual([...encode(fixed, b)], [...b], `fixed of ${n}`);
    const items = Array.from({ length: n % 300 }, (_, i) => BigInt(i) - 100n);
    const array = encode({ type: 'array', items: 'long' }, items);
    assert.deepStrictEqual([...array.subarray(0, zigzag(items.length).length)], items.length === 0 ? [0] : zigzag(items.length), `array of ${items.length}`);
    assert.deepStrictEqual(decode({ type: 'array', items: 'long' }, array), items);
  }
});

test('a refused value is named by its path: record fields, array items, map keys, union branches', () => {
  const schema: AvroSchema = {
    type: 'record', name: 'outer', fields: [
      { name: 'id', type: 'long' },
      { name: 'files', type: { type: 'array', items: { type: 'record', name: 'file', fields: [{ name: 'size', type: 'long' }, { name: 'tag', type: ['null', 'string'] }] } } },
      { name: 'props', type: { type: 'map', values: 'int' } },
    ],
  };
  const file = (size: AvroValue, tag: AvroValue = null): AvroValue => ({ size, tag });
  const good = { id: 1n, files: [file(1n), file(2n, 'a')], props: new Map([['k', 1]]) };
  assert.deepStrictEqual(decode(schema, encode(schema, good)), good);
  const refused = (value: AvroValue, message: string): void => {
    assert.throws(() => encode(schema, value), (e: Error & { code?: string }) => e.code === 'AVRO_VALUE_INVALID' && e.message.includes(message), message);
  };
  refused({ ...good, id: 1 }, '$.id: expected a 64-bit bigint, got number');
  refused({ ...good, files: [file(1n), file(2n), file(3)] }, '$.files[2].size: expected a 64-bit bigint, got number');
  refused({ ...good, files: [file(1n, 7)] }, '$.files[0].tag: expected a value of one of the union branches, got number');
  refused({ ...good, props: new Map([['k', 1], ['q', 1.5]]) }, '$.props.q: expected a 32-bit integer, got number');
  refused({ ...good, files: 'x' }, '$.files: expected array, got string');
  refused(null, '$: expected record, got null');
  // The encoder is reused across calls: a refusal leaves nothing behind for the next value.
  assert.deepStrictEqual(decode(schema, encode(schema, good)), good);
});
