/**
 * Writes the golden blobs of the current envelope version to test/vectors/protocol/v<N>/
 * (`node packages/protocol/scripts/make-golden-vectors.ts`). Run it once when a version is born:
 * it never changes an existing vector (a difference means the encoder changed its bytes, which
 * needs an envelope version bump, see test/vectors/protocol/README.md).
 *
 * Valid vectors: `<name>.json` (the input, see test/support/vector-json.ts) and `<name>.blob`.
 * Invalid vectors, named after their defect, go to `invalid/` with `invalid/index.json` saying
 * which code each decoder must give.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { crc32c } from '@node-rs/crc32';
import Long from 'long';
import { ENVELOPE_VERSION, encodeBlob } from '@tributary/protocol';
import { tributary } from '../src/generated/commit-message.js';
import { GOLDEN_INPUTS } from '../test/support/golden-inputs.ts';
import { expectationOf, sampleHeader } from '../test/support/samples.ts';
import { toVectorJson } from '../test/support/vector-json.ts';

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
export const VECTORS_DIR = join(repoRoot, 'test', 'vectors', 'protocol');

interface InvalidVector {
  readonly file: string;
  readonly defect: string;
  /** Codes expected from decodeBlob and from decodeBlobStream (they may differ, see blob-stream.ts). */
  readonly decodeBlob: string;
  readonly decodeBlobStream: string;
}

function writeOnce(path: string, bytes: Uint8Array | string): void {
  const data = typeof bytes === 'string' ? Buffer.from(bytes) : Buffer.from(bytes);
  if (existsSync(path)) {
    if (!readFileSync(path).equals(data)) {
      throw new Error(`${path} exists with other bytes: the encoder changed; bump ENVELOPE_VERSION instead`);
    }
    return;
  }
  writeFileSync(path, data);
}

/** Recomputes the CRC32C trailer, so that a defect behind it reaches the decoder. */
function reseal(blob: Uint8Array): Uint8Array {
  const out = Uint8Array.from(blob);
  new DataView(out.buffer).setUint32(out.length - 4, crc32c(out.subarray(0, out.length - 4)), false);
  return out;
}

function u32(value: number): Uint8Array {
  const out = new Uint8Array(4);
  new DataView(out.buffer).setUint32(0, value, false);
  return out;
}

/** A one-message blob around raw message bytes (header of the pk-partitioned vector). */
function blobWithRawMessage(body: Uint8Array): Uint8Array {
  const empty = encodeBlob(sampleHeader(), []);
  const withoutCountAndCrc = empty.subarray(0, empty.length - 8);
  return reseal(Buffer.concat([withoutCountAndCrc, u32(1), u32(body.length), body, new Uint8Array(4)]));
}

function invalidVectors(valid: Uint8Array): [InvalidVector, Uint8Array][] {
  const flip = (at: number, mask = 0x01) => {
    const out = Uint8Array.from(valid);
    out[at]! ^= mask;
    return out;
  };
  const headerLength = new DataView(valid.buffer, valid.byteOffset).getUint32(6, false);
  const firstMessage = 10 + headerLength + 4 + 4;
  const fileName = Buffer.from(valid).indexOf('data-0f3c9a1e', firstMessage);
  const badFileSource = tributary.protocol.CommitMessage.encode({
    partition: new Uint8Array(12),
    dataIncrement: {
      newFiles: [{ fileName: 'f.parquet', minKey: new Uint8Array(12), maxKey: new Uint8Array(12), fileSource: 7,
        keyStats: { minValues: new Uint8Array(12), maxValues: new Uint8Array(12) },
        valueStats: { minValues: new Uint8Array(12), maxValues: new Uint8Array(12) },
        fileSize: Long.fromInt(1) }],
    },
  }).finish();
  const v = (file: string, defect: string, sync: string, stream = sync): InvalidVector => ({
    file, defect, decodeBlob: sync, decodeBlobStream: stream,
  });
  return [
    [v('bad-magic.blob', 'second magic byte changed', 'BLOB_BAD_MAGIC'), flip(1)],
    [v('unsupported-version.blob', 'envelope version 0xffff', 'BLOB_UNSUPPORTED_VERSION'), Buffer.concat([valid.subarray(0, 4), Uint8Array.of(0xff, 0xff), valid.subarray(6)])],
    [v('truncated-in-trailer.blob', 'last 2 bytes cut off', 'BLOB_TRUNCATED'), valid.subarray(0, valid.length - 2)],
    [v('truncated-in-message.blob', 'cut in the middle of the first message', 'BLOB_LENGTH_OUT_OF_RANGE', 'BLOB_TRUNCATED'), valid.subarray(0, firstMessage + 10)],
    [v('trailing-bytes.blob', 'three bytes after the trailer', 'BLOB_TRAILING_BYTES'), Buffer.concat([valid, Uint8Array.of(0, 0, 0)])],
    [v('checksum-mismatch.blob', 'one bit flipped inside a file name', 'BLOB_CHECKSUM_MISMATCH', 'BLOB_CHECKSUM_MISMATCH'), flip(fileName + 3, 0x02)],
    [v('header-length-over-limit.blob', 'header length 0x7fffffff', 'BLOB_LENGTH_OUT_OF_RANGE'), Buffer.concat([valid.subarray(0, 6), u32(0x7fffffff), valid.subarray(10)])],
    [v('message-not-protobuf.blob', 'a message of 0xff bytes, checksum resealed', 'BLOB_MESSAGE_INVALID'), blobWithRawMessage(new Uint8Array(16).fill(0xff))],
    [v('message-bad-file-source.blob', 'a file with _FILE_SOURCE 7, checksum resealed', 'BLOB_MESSAGE_INVALID'), blobWithRawMessage(badFileSource)],
    [v('header-attempt-zero.blob', 'a header with attempt 0, checksum resealed', 'BLOB_HEADER_INVALID'), headerWithAttemptZero(valid)],
    [v('header-other-sync.blob', 'a valid blob of another sync', 'BLOB_HEADER_MISMATCH'), encodeBlob(sampleHeader({ syncId: 'sync-other' }), [])],
    // Since v2: the vote token.
    [v('header-other-vote-token.blob', 'a valid blob with another vote token', 'BLOB_VOTE_TOKEN_INVALID'), encodeBlob(sampleHeader({ voteToken: new Uint8Array(32).fill(0xee) }), [])],
    [v('header-no-vote-token.blob', 'a header without a vote token, checksum resealed', 'BLOB_HEADER_INVALID'), headerWithoutVoteToken(valid)],
    // Since v3: the source position.
    [v('header-position-not-json.blob', 'a source position that is not JSON, checksum resealed', 'BLOB_HEADER_INVALID'), headerWithPosition(valid, '{"files":[')],
    [v('header-position-not-canonical.blob', 'a source position with unsorted keys, checksum resealed', 'BLOB_HEADER_INVALID'), headerWithPosition(valid, '{"server":{"order":"1","log":{"lsn":"0/1"},"id":"h:5432"}}')],
    [v('header-position-unknown-key.blob', 'a source position with a member the format does not have, checksum resealed', 'BLOB_HEADER_INVALID'), headerWithPosition(valid, '{"rows":5}')],
    [v('header-position-in-v2.blob', 'a valid source position in a blob marked envelope version 2, checksum resealed', 'BLOB_HEADER_INVALID'), asVersion(headerWithPosition(valid, '{"server":{"id":"h:5432","log":{"lsn":"0/1"},"order":"1"}}'), 2)],
  ];
}

function headerWithoutVoteToken(valid: Uint8Array): Uint8Array {
  const headerLength = new DataView(valid.buffer, valid.byteOffset).getUint32(6, false);
  const decoded = tributary.protocol.BlobHeader.decode(valid.subarray(10, 10 + headerLength));
  const header = tributary.protocol.BlobHeader.encode({ ...decoded, voteToken: new Uint8Array(0) }).finish();
  return reseal(Buffer.concat([valid.subarray(0, 6), u32(header.length), header, valid.subarray(10 + headerLength)]));
}

/** The valid blob with its header's source position (field 13) set to `text`, resealed. */
function headerWithPosition(valid: Uint8Array, text: string): Uint8Array {
  const headerLength = new DataView(valid.buffer, valid.byteOffset).getUint32(6, false);
  const decoded = tributary.protocol.BlobHeader.decode(valid.subarray(10, 10 + headerLength));
  const header = tributary.protocol.BlobHeader.encode({ ...decoded, readPosition: text }).finish();
  return reseal(Buffer.concat([valid.subarray(0, 6), u32(header.length), header, valid.subarray(10 + headerLength)]));
}

function asVersion(blob: Uint8Array, version: number): Uint8Array {
  const out = Uint8Array.from(blob);
  new DataView(out.buffer).setUint16(4, version, false);
  return reseal(out);
}

function headerWithAttemptZero(valid: Uint8Array): Uint8Array {
  const header = tributary.protocol.BlobHeader.encode({ syncId: 's', shardId: 'x', tablePath: 't', attempt: 0 }).finish();
  const headerLength = new DataView(valid.buffer, valid.byteOffset).getUint32(6, false);
  return reseal(Buffer.concat([valid.subarray(0, 6), u32(header.length), header, valid.subarray(10 + headerLength)]));
}

function main(): void {
  const dir = join(VECTORS_DIR, `v${ENVELOPE_VERSION}`);
  mkdirSync(join(dir, 'invalid'), { recursive: true });
  for (const input of GOLDEN_INPUTS) {
    const { name, description, header, messages } = input;
    writeOnce(join(dir, `${name}.json`), toVectorJson({ description, envelopeVersion: ENVELOPE_VERSION, header, messages }));
    writeOnce(join(dir, `${name}.blob`), encodeBlob(header, messages));
  }
  const base = GOLDEN_INPUTS.find((g) => g.name === 'pk-partitioned');
  if (base === undefined) throw new Error('pk-partitioned input missing');
  const entries = invalidVectors(encodeBlob(base.header, base.messages));
  for (const [entry, bytes] of entries) writeOnce(join(dir, 'invalid', entry.file), bytes);
  const index = { expectation: expectationOf(base.header), vectors: entries.map(([entry]) => entry) };
  writeOnce(join(dir, 'invalid', 'index.json'), toVectorJson(index));
  console.log(`golden vectors for envelope v${ENVELOPE_VERSION} in ${dir}`);
}

main();
