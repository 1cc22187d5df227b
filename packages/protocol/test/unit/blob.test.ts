import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  BLOB_MAGIC,
  ENVELOPE_VERSION,
  decodeBlob,
  encodeBlob,
  isTributaryError,
  type BlobExpectation,
} from '@tributary/protocol';
import { expectationOf, sampleFile, sampleHeader, sampleMessage, sampleMessages } from '../support/samples.ts';

const code = (expected: string) => (e: unknown) => isTributaryError(e) && e.code === expected;

test('a blob starts with the magic and the envelope version, and round-trips', () => {
  const header = sampleHeader();
  const messages = sampleMessages(3, 5);
  const blob = encodeBlob(header, messages);
  assert.deepEqual([...blob.subarray(0, 4)], [...BLOB_MAGIC]);
  assert.equal((blob[4]! << 8) | blob[5]!, ENVELOPE_VERSION);
  const decoded = decodeBlob(blob, expectationOf(header));
  assert.deepEqual(decoded.header, header);
  assert.deepEqual(decoded.messages, messages);
});

test('decoded bytes do not alias the blob buffer', () => {
  const header = sampleHeader();
  const blob = encodeBlob(header, [sampleMessage([sampleFile(0)])]);
  const decoded = decodeBlob(blob, expectationOf(header));
  const partition = decoded.messages[0]!.partition;
  assert.notEqual(partition.buffer, blob.buffer);
});

test('every identifying header field is checked against the expectation', () => {
  const header = sampleHeader({ attempt: 2, schemaId: 3n });
  const blob = encodeBlob(header, []);
  const expect = expectationOf(header);
  const wrong: [keyof BlobExpectation, BlobExpectation][] = [
    ['syncId', { ...expect, syncId: 'sync-other' }],
    ['shardId', { ...expect, shardId: 'shard-other' }],
    ['tablePath', { ...expect, tablePath: 'shop.db/other' }],
    ['schemaId', { ...expect, schemaId: 4n }],
    ['attempt', { ...expect, attempt: 1 }],
  ];
  for (const [field, expectation] of wrong) {
    assert.throws(
      () => decodeBlob(blob, expectation),
      (e: unknown) => isTributaryError(e) && e.code === 'BLOB_HEADER_MISMATCH' && e.context['field'] === field,
      field,
    );
  }
  const { attempt: _ignored, ...anyAttempt } = expect;
  assert.equal(decodeBlob(blob, anyAttempt).header.attempt, 2);
});

test('limits are applied before anything is read or allocated', () => {
  const header = sampleHeader();
  const blob = encodeBlob(header, sampleMessages(3, 4));
  const expect = expectationOf(header);
  assert.throws(() => decodeBlob(blob, expect, { maxHeaderBytes: 10 }), code('BLOB_LENGTH_OUT_OF_RANGE'));
  assert.throws(() => decodeBlob(blob, expect, { maxMessages: 2 }), code('BLOB_LENGTH_OUT_OF_RANGE'));
  assert.throws(() => decodeBlob(blob, expect, { maxMessageBytes: 100 }), code('BLOB_LENGTH_OUT_OF_RANGE'));
  assert.equal(decodeBlob(blob, expect, { maxMessages: 3 }).messages.length, 3);
});

test('a message count larger than the bytes could hold is refused without looping over it', () => {
  const header = sampleHeader();
  const blob = encodeBlob(header, []);
  const countAt = blob.length - 8;
  const forged = Uint8Array.from(blob);
  new DataView(forged.buffer).setUint32(countAt, 900_000, false);
  assert.throws(() => decodeBlob(forged, expectationOf(header)), code('BLOB_LENGTH_OUT_OF_RANGE'));
});

test('short inputs give BLOB_BAD_MAGIC or BLOB_TRUNCATED, never a RangeError', () => {
  const header = sampleHeader();
  const blob = encodeBlob(header, []);
  const expect = expectationOf(header);
  assert.throws(() => decodeBlob(new Uint8Array(0), expect), code('BLOB_TRUNCATED'));
  assert.throws(() => decodeBlob(blob.subarray(0, 3), expect), code('BLOB_TRUNCATED'));
  assert.throws(() => decodeBlob(Uint8Array.of(0x7b), expect), code('BLOB_BAD_MAGIC'));
  assert.throws(() => decodeBlob(new TextEncoder().encode('{"not":"a blob"}'), expect), code('BLOB_BAD_MAGIC'));
  assert.throws(() => decodeBlob(blob.subarray(0, 8), expect), code('BLOB_TRUNCATED'));
});

test('the encoder refuses values it cannot represent, naming the field', () => {
  const header = sampleHeader();
  const bad: [string, () => unknown][] = [
    ['rowCount beyond int64', () => encodeBlob(header, [sampleMessage([sampleFile(0, { rowCount: 1n << 63n })])])],
    ['negative fileSize', () => encodeBlob(header, [sampleMessage([sampleFile(0, { fileSize: -1n })])])],
    ['deleteRowCount above rowCount', () => encodeBlob(header, [sampleMessage([sampleFile(0, { rowCount: 1n, deleteRowCount: 2n })])])],
    ['empty file name', () => encodeBlob(header, [sampleMessage([sampleFile(0, { fileName: '' })])])],
    ['lone surrogate', () => encodeBlob(header, [sampleMessage([sampleFile(0, { fileName: 'a\uD800b' })])])],
    ['truncated key row', () => encodeBlob(header, [sampleMessage([sampleFile(0, { minKey: new Uint8Array(8) })])])],
    ['fractional bucket', () => encodeBlob(header, [{ ...sampleMessage([]), bucket: 1.5 }])],
    ['attempt 0', () => encodeBlob(sampleHeader({ attempt: 0 }), [])],
    ['empty sync id', () => encodeBlob(sampleHeader({ syncId: '' }), [])],
    ['negative row count in header', () => encodeBlob(sampleHeader({ rowCount: -1n }), [])],
  ];
  for (const [what, encode] of bad) {
    assert.throws(encode, code('BLOB_VALUE_OUT_OF_RANGE'), what);
  }
});

test('null and empty stay different for nullable lists and fields', () => {
  const header = sampleHeader();
  const files = [
    sampleFile(0, { valueStatsCols: null, writeCols: [], extraFiles: [], deleteRowCount: 0n, embeddedIndex: new Uint8Array(0) }),
    sampleFile(1, { valueStatsCols: [], writeCols: null, keyStats: { ...sampleFile(1).keyStats, nullCounts: null }, deleteRowCount: null }),
  ];
  const decoded = decodeBlob(encodeBlob(header, [sampleMessage(files)]), expectationOf(header));
  assert.deepEqual(decoded.messages[0]!.dataIncrement.newFiles, files);
});
