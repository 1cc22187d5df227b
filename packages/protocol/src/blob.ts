/**
 * Whole-buffer encoding and decoding of a CommitMessage blob (layout: envelope.ts and README.md).
 *
 * `decodeBlob` checks in this order, so each defect gets its own code: magic → envelope version →
 * framing (every length and count against the limits and the bytes left) → exact end (no
 * trailing bytes) → CRC32C → header → expectation → messages. Nothing is decoded before the
 * checksum has matched. For blobs too large to hold with their decoded messages, use
 * blob-stream.ts.
 */
import { crc32c } from '@node-rs/crc32';
import { protocolError } from './errors.ts';
import { type BlobExpectation, type BlobHeader, checkExpectation, decodeBlobHeader, encodeBlobHeader } from './blob-header.ts';
import { decodeCommitMessage, encodeCommitMessage } from './commit-message-codec.ts';
import type { CommitMessage } from '@tributary/table';
import {
  type BlobLimits,
  CRC_BYTES,
  PREFIX_BYTES,
  U32_BYTES,
  checkEnvelopeVersion,
  checkLimit,
  checkMagic,
  encodePrefix,
  readU32,
  resolveLimits,
  truncated,
  writeU32,
} from './envelope.ts';

export interface DecodedBlob {
  readonly envelopeVersion: number;
  readonly header: BlobHeader;
  readonly messages: CommitMessage[];
}

/** Encodes a whole blob. Throws BLOB_VALUE_OUT_OF_RANGE for a header or message it cannot represent. */
export function encodeBlob(header: BlobHeader, messages: readonly CommitMessage[]): Uint8Array {
  const headerBytes = encodeBlobHeader(header);
  const bodies = messages.map(encodeCommitMessage);
  const total =
    PREFIX_BYTES + headerBytes.length + U32_BYTES + bodies.reduce((n, b) => n + U32_BYTES + b.length, 0) + CRC_BYTES;
  const out = new Uint8Array(total);
  out.set(encodePrefix(headerBytes.length), 0);
  let at = PREFIX_BYTES;
  out.set(headerBytes, at);
  at += headerBytes.length;
  writeU32(out, at, bodies.length);
  at += U32_BYTES;
  for (const body of bodies) {
    writeU32(out, at, body.length);
    out.set(body, at + U32_BYTES);
    at += U32_BYTES + body.length;
  }
  writeU32(out, at, crc32c(out.subarray(0, at)));
  return out;
}

/** One frame found by the framing walk: where a header or message body sits in the blob. */
interface Span {
  readonly start: number;
  readonly end: number;
}

/**
 * Decodes and verifies a whole blob. Every failure is a TributaryError with a BLOB_* code
 * (see README.md, "Strict decoding").
 */
export function decodeBlob(
  bytes: Uint8Array,
  expect: BlobExpectation,
  limits: Partial<BlobLimits> = {},
): DecodedBlob {
  const { envelopeVersion, header: headerSpan, messages: spans } = walkFrames(bytes, resolveLimits(limits));
  const crcAt = bytes.length - CRC_BYTES;
  const stored = readU32(bytes, crcAt);
  const actual = crc32c(bytes.subarray(0, crcAt));
  if (stored !== actual) {
    throw protocolError('BLOB_CHECKSUM_MISMATCH', 'the blob CRC32C trailer does not match its bytes', {
      stored,
      actual,
    });
  }
  const header = decodeBlobHeader(bytes.subarray(headerSpan.start, headerSpan.end), envelopeVersion);
  checkExpectation(header, expect);
  const messages = spans.map((s, i) => decodeCommitMessage(bytes.subarray(s.start, s.end), i));
  return { envelopeVersion, header, messages };
}

/** Checks the framing of a whole blob without decoding any protobuf. */
function walkFrames(
  bytes: Uint8Array,
  limits: BlobLimits,
): { envelopeVersion: number; header: Span; messages: Span[] } {
  checkMagic(bytes.subarray(0, 4));
  if (bytes.length < 6) throw truncated('envelope version', bytes.length);
  const envelopeVersion = (bytes[4]! << 8) | bytes[5]!;
  checkEnvelopeVersion(envelopeVersion);
  const cursor = new FrameCursor(bytes, 6);
  const header = cursor.frame('header', limits.maxHeaderBytes);
  const count = cursor.u32('message count');
  checkLimit('message count', count, limits.maxMessages, cursor.at - U32_BYTES);
  // Every message needs at least its 4-byte length prefix: a larger count cannot fit.
  cursor.fits('message count', count * U32_BYTES);
  const messages: Span[] = [];
  for (let i = 0; i < count; i++) messages.push(cursor.frame(`message ${i}`, limits.maxMessageBytes));
  const left = bytes.length - cursor.at;
  if (left < CRC_BYTES) throw truncated('checksum trailer', bytes.length);
  if (left > CRC_BYTES) {
    throw protocolError('BLOB_TRAILING_BYTES', `${left - CRC_BYTES} bytes follow the checksum trailer`, {
      extra: left - CRC_BYTES,
      offset: cursor.at + CRC_BYTES,
    });
  }
  return { envelopeVersion, header, messages };
}

/** Reads length-prefixed frames from a whole blob. */
class FrameCursor {
  readonly bytes: Uint8Array;
  at: number;

  constructor(bytes: Uint8Array, at: number) {
    this.bytes = bytes;
    this.at = at;
  }

  u32(what: string): number {
    if (this.at + U32_BYTES > this.bytes.length) throw truncated(what, this.bytes.length);
    const value = readU32(this.bytes, this.at);
    this.at += U32_BYTES;
    return value;
  }

  /** BLOB_LENGTH_OUT_OF_RANGE when a length prefix points past the end of the input. */
  fits(what: string, length: number): void {
    const left = this.bytes.length - this.at;
    if (length > left) {
      throw protocolError('BLOB_LENGTH_OUT_OF_RANGE', `${what} needs ${length} bytes, ${left} are left`, {
        what,
        value: length,
        remaining: left,
        offset: this.at,
      });
    }
  }

  frame(what: string, limit: number): Span {
    const length = this.u32(`${what} length`);
    checkLimit(`${what} length`, length, limit, this.at - U32_BYTES);
    this.fits(what, length);
    const span = { start: this.at, end: this.at + length };
    this.at += length;
    return span;
  }
}
