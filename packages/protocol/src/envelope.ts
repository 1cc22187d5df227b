/**
 * The blob envelope: the bytes around the protobuf header and messages. The drawing with every
 * offset is in the package README ("Byte layout"); this file holds the constants it names.
 *
 *   magic(4) | envelope version(u16) | header length H(u32) | header(H) | message count N(u32)
 *   | N × ( message length L(u32) | message(L) ) | crc32c(u32) over every byte before it
 *
 * All integers are big-endian (as Java's DataOutput, which Paimon's own serializers use).
 *
 * Versioning rule: any change to the bytes an encoder produces for the same input — the framing,
 * the .proto, protobufjs' output — bumps ENVELOPE_VERSION, adds golden vectors for the new
 * version, and keeps a reader for every earlier version in READABLE_ENVELOPE_VERSIONS.
 */
import { protocolError } from './errors.ts';

/** "\x89TCM" — Tributary Commit Messages; a high first byte so that no text file matches. */
export const BLOB_MAGIC: Uint8Array = Uint8Array.of(0x89, 0x54, 0x43, 0x4d);

/**
 * The version this release writes. 2 added the header's vote token (field 12), 3 the shard's
 * source position (field 13); the framing is the same as in 1.
 */
export const ENVELOPE_VERSION = 3;

/** Every version this release can read (rolling upgrades: always the current and the previous). */
export const READABLE_ENVELOPE_VERSIONS: readonly number[] = [1, 2, 3];

/** magic + version + header length. */
export const PREFIX_BYTES = 4 + 2 + 4;
export const U32_BYTES = 4;
export const CRC_BYTES = 4;

/** Bounds a decoder applies before it allocates or reads anything a length prefix announces. */
export interface BlobLimits {
  /** Largest header, in bytes. */
  readonly maxHeaderBytes: number;
  /** Most messages in one blob. */
  readonly maxMessages: number;
  /** Largest single message, in bytes (writers keep messages small with `splitCommitMessage`). */
  readonly maxMessageBytes: number;
}

export const DEFAULT_BLOB_LIMITS: BlobLimits = Object.freeze({
  // A header carries its shard's source position: up to MAX_POSITION_FILES files with their URIs.
  maxHeaderBytes: 16 * 1024 * 1024,
  maxMessages: 1_000_000,
  maxMessageBytes: 64 * 1024 * 1024,
});

export function resolveLimits(limits: Partial<BlobLimits> = {}): BlobLimits {
  return { ...DEFAULT_BLOB_LIMITS, ...limits };
}

/** BLOB_BAD_MAGIC unless `bytes` (possibly fewer than 4) agrees with the magic so far. */
export function checkMagic(bytes: Uint8Array): void {
  for (let i = 0; i < bytes.length && i < BLOB_MAGIC.length; i++) {
    if (bytes[i] !== BLOB_MAGIC[i]) {
      throw protocolError('BLOB_BAD_MAGIC', 'not a Tributary CommitMessage blob (bad magic bytes)', {
        offset: i,
      });
    }
  }
}

export function checkEnvelopeVersion(version: number): void {
  if (!READABLE_ENVELOPE_VERSIONS.includes(version)) {
    throw protocolError(
      'BLOB_UNSUPPORTED_VERSION',
      `blob envelope version ${version} is not readable by this release (reads ${READABLE_ENVELOPE_VERSIONS.join(', ')})`,
      { version, current: ENVELOPE_VERSION },
    );
  }
}

/** BLOB_LENGTH_OUT_OF_RANGE when a declared length or count exceeds its limit. */
export function checkLimit(what: string, value: number, limit: number, offset: number): void {
  if (value > limit) {
    throw protocolError('BLOB_LENGTH_OUT_OF_RANGE', `${what} ${value} exceeds the limit ${limit}`, {
      what,
      value,
      limit,
      offset,
    });
  }
}

export function truncated(what: string, offset: number): Error {
  return protocolError('BLOB_TRUNCATED', `the blob ends inside its ${what}`, { what, offset });
}

/** Big-endian, by hand: these run once per frame, and a DataView per call shows in profiles. */
export function writeU32(target: Uint8Array, offset: number, value: number): void {
  target[offset] = value >>> 24;
  target[offset + 1] = value >>> 16;
  target[offset + 2] = value >>> 8;
  target[offset + 3] = value;
}

export function readU32(source: Uint8Array, offset: number): number {
  return ((source[offset]! << 24) | (source[offset + 1]! << 16) | (source[offset + 2]! << 8) | source[offset + 3]!) >>> 0;
}

/** The fixed prefix: magic, envelope version, header length. */
export function encodePrefix(headerLength: number): Uint8Array {
  const prefix = new Uint8Array(PREFIX_BYTES);
  prefix.set(BLOB_MAGIC, 0);
  new DataView(prefix.buffer).setUint16(4, ENVELOPE_VERSION, false);
  writeU32(prefix, 6, headerLength);
  return prefix;
}
