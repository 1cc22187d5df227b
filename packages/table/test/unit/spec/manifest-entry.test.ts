import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { AvroField, AvroRecord, AvroSchema } from '../../../src/avro/avro.ts';
import { isTributaryError } from '@tributary/errors';
import { compiledSchema, writeAvroFile } from '../../../src/avro/avro-container.ts';
import { encodeDatums } from '../../../src/avro/avro-encoder.ts';
import { FileSource, localCreationTime, type DataFileMeta } from '../../../src/spec/data-file-meta.ts';
import { decodeManifestFile, encodeEntriesAhead, encodeManifestFile, MANIFEST_ENTRY_SCHEMA, type ManifestEntry } from '../../../src/spec/manifest-entry.ts';
import { decodeManifestList, encodeManifestList, type ManifestFileMeta } from '../../../src/spec/manifest-file-meta.ts';
import type { SimpleStats } from '../../../src/spec/simple-stats.ts';
import { FULL_FILE, SAMPLE_ENTRIES, SPARSE_FILE } from './manifest-fixtures.ts';

const long = fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n });
const int = fc.integer();
const nullable = <T>(arb: fc.Arbitrary<T>): fc.Arbitrary<T | null> => fc.option(arb, { nil: null });
const bytes = fc.uint8Array({ maxLength: 40 }).map((b) => new Uint8Array(b));
const stats: fc.Arbitrary<SimpleStats> = fc.record({ minValues: bytes, maxValues: bytes, nullCounts: fc.array(nullable(long), { maxLength: 4 }) });
const strings = fc.array(fc.string({ unit: 'grapheme' }), { maxLength: 3 });

const dataFileMeta: fc.Arbitrary<DataFileMeta> = fc.record({
  fileName: fc.string({ unit: 'grapheme', minLength: 1 }), fileSize: long, rowCount: long, minKey: bytes, maxKey: bytes,
  keyStats: stats, valueStats: stats, minSequenceNumber: long, maxSequenceNumber: long, schemaId: long, level: int,
  extraFiles: strings, creationTimeMillis: nullable(long), deleteRowCount: nullable(long),
  embeddedIndex: nullable(bytes), fileSource: nullable(fc.constantFrom(FileSource.APPEND, FileSource.COMPACT)),
  valueStatsCols: nullable(strings), externalPath: nullable(fc.string()), firstRowId: nullable(long),
  writeCols: nullable(strings), writeColsSequences: nullable(fc.array(long, { maxLength: 3 })),
});

const manifestEntry: fc.Arbitrary<ManifestEntry> = fc.record({
  kind: fc.constantFrom('ADD' as const, 'DELETE' as const), partition: bytes, bucket: int, totalBuckets: int, file: dataFileMeta,
});

const manifestFileMeta: fc.Arbitrary<ManifestFileMeta> = fc.record({
  fileName: fc.string({ minLength: 1 }), fileSize: long, numAddedFiles: long, numDeletedFiles: long, partitionStats: stats,
  schemaId: long, minBucket: nullable(int), maxBucket: nullable(int), minLevel: nullable(int), maxLevel: nullable(int),
  minRowId: nullable(long), maxRowId: nullable(long),
});

test('manifest files round-trip any entries (property)', () => {
  fc.assert(fc.property(fc.array(manifestEntry, { maxLength: 5 }), (entries) => {
    // structuredClone: fast-check builds nested records with a null prototype.
    assert.deepStrictEqual(decodeManifestFile(encodeManifestFile(entries)), structuredClone(entries));
  }), { numRuns: 150 });
});

test('manifest lists round-trip any records (property)', () => {
  fc.assert(fc.property(fc.array(manifestFileMeta, { maxLength: 5 }), (metas) => {
    assert.deepStrictEqual(decodeManifestList(encodeManifestList(metas)), structuredClone(metas));
  }), { numRuns: 150 });
});

test('every write codec decodes back', () => {
  for (const codec of ['null', 'deflate', 'zstandard'] as const) {
    assert.deepStrictEqual(decodeManifestFile(encodeManifestFile(SAMPLE_ENTRIES, { codec })), SAMPLE_ENTRIES);
  }
});

/** MANIFEST_ENTRY_SCHEMA with `_FILE` cut to the fields before `firstDropped`, as an older writer wrote it. */
type RecordSchema = Extract<AvroSchema, { type: 'record' }>;
const ENTRY_ROOT = MANIFEST_ENTRY_SCHEMA as RecordSchema;

function olderEntrySchema(firstDropped: string): AvroSchema {
  const fileType = (ENTRY_ROOT.fields[5] as AvroField).type as RecordSchema;
  const cut = fileType.fields.findIndex((f) => f.name === firstDropped);
  const file: AvroField = { name: '_FILE', type: { ...fileType, fields: fileType.fields.slice(0, cut) } };
  return { ...ENTRY_ROOT, fields: [...ENTRY_ROOT.fields.slice(0, 5), file] };
}

function rawEntry(file: Record<string, unknown>, extra: Record<string, unknown> = {}): AvroRecord {
  return { _VERSION: 2, _KIND: 0, _PARTITION: new Uint8Array(12), _BUCKET: 0, _TOTAL_BUCKETS: 1, _FILE: file, ...extra } as AvroRecord;
}

const rawFile = {
  _FILE_NAME: 'f', _FILE_SIZE: 1n, _ROW_COUNT: 1n, _MIN_KEY: new Uint8Array(12), _MAX_KEY: new Uint8Array(12),
  _KEY_STATS: { _MIN_VALUES: new Uint8Array(12), _MAX_VALUES: new Uint8Array(12), _NULL_COUNTS: [] },
  _VALUE_STATS: { _MIN_VALUES: new Uint8Array(12), _MAX_VALUES: new Uint8Array(12), _NULL_COUNTS: null },
  _MIN_SEQUENCE_NUMBER: 0n, _MAX_SEQUENCE_NUMBER: 0n, _SCHEMA_ID: 0n, _LEVEL: 0, _EXTRA_FILES: [],
  _CREATION_TIME: 1700000000000n, _DELETE_ROW_COUNT: 0n, _EMBEDDED_FILE_INDEX: null, _FILE_SOURCE: 0,
  _VALUE_STATS_COLS: null,
};

test('files from older writers (no _EXTERNAL_PATH, _FIRST_ROW_ID, _WRITE_COLS...) read the missing fields as null', () => {
  const bytes = writeAvroFile(olderEntrySchema('_EXTERNAL_PATH'), [rawEntry(rawFile)]);
  const [entry] = decodeManifestFile(bytes);
  assert.ok(entry);
  assert.equal(entry.file.creationTimeMillis, 1700000000000n);
  assert.equal(entry.file.fileSource, FileSource.APPEND);
  assert.equal(entry.file.externalPath, null);
  assert.equal(entry.file.firstRowId, null);
  assert.equal(entry.file.writeCols, null);
  assert.equal(entry.file.writeColsSequences, null);
  // A null _NULL_COUNTS (allowed by the schema) reads as "no counts known".
  assert.deepStrictEqual(entry.file.valueStats.nullCounts, []);
  const pre09 = decodeManifestFile(writeAvroFile(olderEntrySchema('_DELETE_ROW_COUNT'), [rawEntry(rawFile)]));
  assert.equal(pre09[0]?.file.deleteRowCount, null);
});

test('a top-level field a newer writer added is ignored (nested ones: see the pypaimon vectors)', () => {
  const newer: AvroSchema = { ...ENTRY_ROOT, fields: [...ENTRY_ROOT.fields, { name: '_FUTURE', type: ['null', 'string'], default: null }] };
  const records = SAMPLE_ENTRIES.map((e) => ({ ...encodedRecord(e), _FUTURE: 'x' }));
  assert.deepStrictEqual(decodeManifestFile(writeAvroFile(newer, records)), SAMPLE_ENTRIES);
});

/** The Avro record of one entry, built independently of the module under test. */
function encodedRecord(entry: ManifestEntry): AvroRecord {
  return {
    _VERSION: 2, _KIND: entry.kind === 'ADD' ? 0 : 1, _PARTITION: entry.partition, _BUCKET: entry.bucket,
    _TOTAL_BUCKETS: entry.totalBuckets, _FILE: fileRecord(entry.file),
  };
}

function fileRecord(f: DataFileMeta): AvroRecord {
  const s = (x: SimpleStats): AvroRecord => ({ _MIN_VALUES: x.minValues, _MAX_VALUES: x.maxValues, _NULL_COUNTS: x.nullCounts });
  return {
    _FILE_NAME: f.fileName, _FILE_SIZE: f.fileSize, _ROW_COUNT: f.rowCount, _MIN_KEY: f.minKey, _MAX_KEY: f.maxKey,
    _KEY_STATS: s(f.keyStats), _VALUE_STATS: s(f.valueStats), _MIN_SEQUENCE_NUMBER: f.minSequenceNumber,
    _MAX_SEQUENCE_NUMBER: f.maxSequenceNumber, _SCHEMA_ID: f.schemaId, _LEVEL: f.level, _EXTRA_FILES: f.extraFiles,
    _CREATION_TIME: f.creationTimeMillis, _DELETE_ROW_COUNT: f.deleteRowCount,
    _EMBEDDED_FILE_INDEX: f.embeddedIndex, _FILE_SOURCE: f.fileSource,
    _VALUE_STATS_COLS: f.valueStatsCols, _EXTERNAL_PATH: f.externalPath, _FIRST_ROW_ID: f.firstRowId,
    _WRITE_COLS: f.writeCols, _WRITE_COLS_SEQUENCES: f.writeColsSequences,
  };
}

test('a _VERSION other than 2 is refused (1 asks to recreate the table, as Java says)', () => {
  for (const version of [1, 3]) {
    const bytes = writeAvroFile(MANIFEST_ENTRY_SCHEMA, [{ ...encodedRecord(SAMPLE_ENTRIES[0] as ManifestEntry), _VERSION: version }]);
    assert.throws(() => decodeManifestFile(bytes), { code: 'MANIFEST_VERSION_UNSUPPORTED' });
  }
});

test('unknown _KIND or _FILE_SOURCE and missing required fields are refused', () => {
  const base = encodedRecord({ kind: 'ADD', partition: new Uint8Array(12), bucket: 0, totalBuckets: 1, file: SPARSE_FILE });
  const bad = [
    { ...base, _KIND: 2 },
    { ...base, _FILE: { ...fileRecord(SPARSE_FILE), _FILE_SOURCE: 7 } },
  ];
  for (const record of bad) {
    assert.throws(() => decodeManifestFile(writeAvroFile(MANIFEST_ENTRY_SCHEMA, [record])), { code: 'MANIFEST_RECORD_INVALID' });
  }
  const noLevel = olderEntrySchema('_LEVEL');
  assert.throws(() => decodeManifestFile(writeAvroFile(noLevel, [rawEntry(rawFile)])), { code: 'MANIFEST_RECORD_INVALID' });
});

test('pypaimon-style manifest lists without bucket/level ranges read them as null', () => {
  const schema: AvroSchema = {
    type: 'record', name: 'ManifestFileMeta', fields: [
      { name: '_VERSION', type: 'int' }, { name: '_FILE_NAME', type: 'string' }, { name: '_FILE_SIZE', type: 'long' },
      { name: '_NUM_ADDED_FILES', type: 'long' }, { name: '_NUM_DELETED_FILES', type: 'long' },
      { name: '_PARTITION_STATS', type: { type: 'record', name: 'record_PARTITION_STATS', fields: [
        { name: '_MIN_VALUES', type: 'bytes' }, { name: '_MAX_VALUES', type: 'bytes' },
        { name: '_NULL_COUNTS', type: ['null', { type: 'array', items: ['null', 'long'] }], default: null }] } },
      { name: '_SCHEMA_ID', type: 'long' },
    ],
  };
  const empty = new Uint8Array(12);
  const [meta] = decodeManifestList(writeAvroFile(schema, [{
    _VERSION: 2, _FILE_NAME: 'manifest-x-0', _FILE_SIZE: 10n, _NUM_ADDED_FILES: 1n, _NUM_DELETED_FILES: 0n,
    _PARTITION_STATS: { _MIN_VALUES: empty, _MAX_VALUES: empty, _NULL_COUNTS: [] }, _SCHEMA_ID: 0n,
  }]));
  assert.deepStrictEqual(meta, {
    fileName: 'manifest-x-0', fileSize: 10n, numAddedFiles: 1n, numDeletedFiles: 0n,
    partitionStats: { minValues: empty, maxValues: empty, nullCounts: [] }, schemaId: 0n,
    minBucket: null, maxBucket: null, minLevel: null, maxLevel: null, minRowId: null, maxRowId: null,
  });
});

test('64-bit longs survive intact (no JS number on the way)', () => {
  const [entry] = decodeManifestFile(encodeManifestFile([{ kind: 'ADD', partition: new Uint8Array(12), bucket: 0, totalBuckets: 1, file: FULL_FILE }]));
  assert.equal(entry?.file.fileSize, 9223372036854775807n);
  assert.equal(entry?.file.maxSequenceNumber, 9007199254740993n);
});

test('localCreationTime: the wall clock of the writer read as UTC, as Java\'s LocalDateTime.now()', () => {
  const instant = new Date('2024-03-10T12:00:00.123Z');
  assert.equal(localCreationTime(instant, 0), instant.getTime());
  // UTC+8 (Asia/Shanghai): the wall clock shows 20:00:00.123.
  assert.equal(localCreationTime(instant, 480), Date.UTC(2024, 2, 10, 20, 0, 0, 123));
  assert.equal(localCreationTime(instant, -300), Date.UTC(2024, 2, 10, 7, 0, 0, 123));
});

test('invalid domain values are refused on encode, never written wrongly', () => {
  const add = SAMPLE_ENTRIES[0] as ManifestEntry;
  const bad: unknown[] = [
    { ...add, kind: 'UPSERT' },
    { ...add, file: { ...add.file, fileSource: 2 } },
    { ...add, file: { ...add.file, creationTimeMillis: 1.5 } },
    { ...add, file: { ...add.file, fileSize: 5 } },
    { ...add, bucket: 2 ** 31 },
  ];
  for (const entry of bad) assert.throws(() => encodeManifestFile([entry as ManifestEntry]), { code: 'AVRO_VALUE_INVALID' });
});

test('entries encoded ahead: the manifest is byte for byte the one encoded at once, whatever is ahead (property)', () => {
  fc.assert(
    fc.property(fc.array(manifestEntry, { maxLength: 6 }), fc.array(fc.boolean(), { minLength: 6, maxLength: 6 }), fc.integer({ min: 1, max: 400 }), (drawn, ahead, blockSize) => {
      const entries = structuredClone(drawn);
      // zstd at one level is deterministic; small blocks: entries encoded ahead fall on block edges too.
      const atOnce = encodeManifestFile(entries, { blockSize });
      encodeEntriesAhead(entries.filter((_, i) => ahead[i] === true));
      assert.deepEqual(encodeManifestFile(entries, { blockSize }), atOnce);
      // Another object with the same content is encoded itself (nothing is found by content).
      assert.deepEqual(encodeManifestFile(structuredClone(entries), { blockSize }), atOnce);
    }),
  );
});

test('an entry encoded ahead is not copied for another entry of the same file: another kind, partition, bucket or bucket count', () => {
  fc.assert(
    fc.property(manifestEntry, bytes, fc.integer(), (drawn, partition, bucket) => {
      const entry = structuredClone(drawn);
      encodeEntriesAhead([entry]);
      const others: ManifestEntry[] = [
        { ...entry, kind: entry.kind === 'ADD' ? 'DELETE' : 'ADD' },
        { ...entry, partition },
        { ...entry, bucket },
        { ...entry, totalBuckets: entry.totalBuckets ^ 1 },
      ];
      for (const other of others) assert.deepEqual(encodeManifestFile([other]), encodeManifestFile(structuredClone([other])));
    }),
  );
});

test('a datum encoded ahead is refused where another schema node is expected', () => {
  const other = compiledSchema({ type: 'record', name: 'other', fields: [{ name: 'x', type: 'int' }] });
  const [datum] = encodeDatums(other, [{ x: 1 }]);
  assert.ok(datum !== undefined);
  const entry = { ...structuredClone(SAMPLE_ENTRIES[0]!) };
  const schema = MANIFEST_ENTRY_SCHEMA;
  const record = { _VERSION: 2, _KIND: 0, _PARTITION: entry.partition, _BUCKET: entry.bucket, _TOTAL_BUCKETS: entry.totalBuckets, _FILE: datum };
  assert.throws(() => writeAvroFile(schema, [record]), (e: unknown) => isTributaryError(e) && e.code === 'AVRO_VALUE_INVALID' && e.message.includes('$._FILE'));
});
