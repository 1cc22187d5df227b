import { test } from 'node:test';
import assert from 'node:assert/strict';
import { crc32c } from '@node-rs/crc32';
import { EMPTY_COMPACT_INCREMENT, FileSource, dataFilesMessage } from '@tributary/table';
import {
  decodeBlob,
  decodeCommitMessage,
  encodeBlob,
  encodeCommitMessage,
  fileEntryCount,
  isTributaryError,
  splitCommitMessage,
} from '@tributary/protocol';
import { expectationOf, sampleFile, sampleHeader, sampleMessage } from '../support/samples.ts';

const code = (expected: string, path?: string) => (e: unknown) =>
  isTributaryError(e) && e.code === expected && (path === undefined || e.context['path'] === path);

/** A protobuf field appended to valid bytes: a one-byte tag (field < 16), then the varint 1. */
function withExtraVarint(bytes: Uint8Array, field: number, wireType = 0): Uint8Array {
  return Uint8Array.from([...bytes, (field << 3) | wireType, 1]);
}

test('a message with a field this version does not know is refused, not silently trimmed', () => {
  const bytes = encodeCommitMessage(sampleMessage([sampleFile(0)]));
  assert.throws(() => decodeCommitMessage(withExtraVarint(bytes, 15)), code('BLOB_MESSAGE_INVALID', 'message'));
  // A known field number with the wrong wire type is unknown too (protobufjs would skip it).
  assert.throws(() => decodeCommitMessage(withExtraVarint(bytes, 1)), code('BLOB_MESSAGE_INVALID', 'message'));
});

test('a header with an unknown field is refused', () => {
  const header = sampleHeader();
  const blob = encodeBlob(header, []);
  const headerLength = new DataView(blob.buffer, blob.byteOffset).getUint32(6, false);
  const extended = withExtraVarint(blob.subarray(10, 10 + headerLength), 15);
  const forged = new Uint8Array(blob.length + 2);
  forged.set(blob.subarray(0, 6));
  new DataView(forged.buffer).setUint32(6, extended.length, false);
  forged.set(extended, 10);
  forged.set(blob.subarray(10 + headerLength, blob.length - 4), 10 + extended.length);
  new DataView(forged.buffer).setUint32(forged.length - 4, crc32c(forged.subarray(0, forged.length - 4)), false);
  assert.throws(() => decodeBlob(forged, expectationOf(header)), code('BLOB_HEADER_INVALID'));
});

test('a file with a negative size in the bytes names its path', () => {
  const bytes = encodeCommitMessage(sampleMessage([sampleFile(0), sampleFile(1)]));
  const decoded = decodeCommitMessage(bytes);
  assert.equal(decoded.dataIncrement.newFiles.length, 2);
  assert.throws(
    () => encodeCommitMessage(sampleMessage([sampleFile(0), sampleFile(1, { fileSize: -5n })])),
    code('BLOB_VALUE_OUT_OF_RANGE', 'dataIncrement.newFiles[1].fileSize'),
  );
});

test('splitCommitMessage cuts an append-only message into frames of at most n files, same partition and bucket', () => {
  const files = Array.from({ length: 25 }, (_, i) => sampleFile(i));
  const message = sampleMessage(files, 3);
  const parts = splitCommitMessage(message, 10);
  assert.deepEqual(
    parts.map((p) => p.dataIncrement.newFiles.length),
    [10, 10, 5],
  );
  assert.ok(parts.every((p) => p.bucket === 3 && p.partition === message.partition && p.totalBuckets === 4));
  assert.deepEqual(parts.flatMap((p) => p.dataIncrement.newFiles), files);
  assert.equal(parts.reduce((n, p) => n + fileEntryCount(p), 0), 25);
});

test('splitCommitMessage leaves a message with compaction or deletions whole', () => {
  const compacting = {
    ...sampleMessage([sampleFile(0), sampleFile(1), sampleFile(2)]),
    compactIncrement: { ...EMPTY_COMPACT_INCREMENT, compactBefore: [sampleFile(9)] },
  };
  assert.deepEqual(splitCommitMessage(compacting, 1), [compacting]);
  assert.equal(fileEntryCount(compacting), 4);
});

test('a message as the table writer builds it survives a blob, every DataFileMeta field included', () => {
  const full = sampleFile(1, {
    embeddedIndex: Uint8Array.of(1, 2, 3), fileSource: FileSource.COMPACT, valueStatsCols: ['id'], externalPath: 's3://b/x.parquet',
    firstRowId: 42n, writeCols: ['id'], writeColsSequences: [7n], extraFiles: ['x.index'], level: 5,
  });
  const sparse = sampleFile(2, {
    creationTimeMillis: null, deleteRowCount: null, embeddedIndex: null, fileSource: null, valueStatsCols: null,
    externalPath: null, firstRowId: null, writeCols: null, writeColsSequences: null,
  });
  const message = dataFilesMessage(sampleMessage([]).partition, 3, 16, { newFiles: [full, sparse], changelogFiles: [sparse] });
  const blob = encodeBlob(sampleHeader(), [message]);
  assert.deepEqual(decodeBlob(blob, expectationOf(sampleHeader())).messages, [message]);
});
