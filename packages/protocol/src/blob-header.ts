/**
 * The blob header: who wrote the blob and for what. The coordinator compares it with the sync's
 * plan before it trusts a single file entry (as the Hadoop S3A committer's `PendingSet.validate()` does:
 * check every identifying field, strictly).
 *
 * No Paimon counterpart: Paimon's CommitMessageSerializer keeps its version outside the bytes,
 * which is exactly what this header and the envelope around it fix.
 */
import { tributary } from './generated/commit-message.js';
import { protocolError } from './errors.ts';
import { fromLong, toLong } from './int64.ts';
import { type Fail, checkString, failWith, isInt32 } from './checks.ts';
import { strictReader } from './commit-message-codec.ts';
import { VOTE_TOKEN_BYTES, tokensEqual } from './vote-token.ts';
import { ENVELOPE_VERSION } from './envelope.ts';
import { decodeReadPosition, encodeReadPosition, type ShardReadPosition } from './read-position.ts';

/** The Paimon CommitMessageSerializer version whose DataFileMeta field set the messages carry. */
export const PAIMON_COMMIT_MESSAGE_VERSION = 13;

export interface BlobHeader {
  readonly syncId: string;
  readonly shardId: string;
  /** The BullMQ attempt that wrote the blob (1 for the first). */
  readonly attempt: number;
  /** The table's path inside the warehouse, e.g. "db.db/orders". */
  readonly tablePath: string;
  readonly schemaId: bigint;
  /** `PAIMON_COMMIT_MESSAGE_VERSION` of the writer. */
  readonly paimonFormatVersion: number;
  /** The Tributary release that wrote the blob. */
  readonly tributaryVersion: string;
  /** When the blob was written, epoch millis (UTC). */
  readonly creationTimeMillis: bigint;
  /** Totals over the blob's new data files. */
  readonly rowCount: bigint;
  readonly byteCount: bigint;
  readonly fileCount: bigint;
  /**
   * The shard job's vote token (vote-token.ts), `VOTE_TOKEN_BYTES` long: required from envelope
   * version 2 on, absent from version 1 blobs.
   */
  readonly voteToken?: Uint8Array;
  /**
   * Where the shard's read stood in its source (read-position.ts), from envelope version 3 on;
   * absent when the source has none (the generator), and always in version 1 and 2 blobs.
   */
  readonly readPosition?: ShardReadPosition;
}

/** What the coordinator knows from its plan; `decodeBlob` refuses a blob that disagrees. */
export interface BlobExpectation {
  readonly syncId: string;
  readonly shardId: string;
  readonly tablePath: string;
  readonly schemaId: bigint;
  /** The accepted attempt, when the caller has already chosen one. */
  readonly attempt?: number;
  /**
   * The token the coordinator gave the shard's job: a blob without it (a version 1 blob) or with
   * another one is refused with BLOB_VOTE_TOKEN_INVALID.
   */
  readonly voteToken?: Uint8Array;
}

/** The first envelope version whose header carries a vote token. */
const VOTE_TOKEN_SINCE = 2;
/** The first envelope version whose header may carry a source position. */
const READ_POSITION_SINCE = 3;

/** Encodes the header of the current envelope version, which requires a vote token. */
export function encodeBlobHeader(header: BlobHeader): Uint8Array {
  checkHeader(header, failWith('BLOB_VALUE_OUT_OF_RANGE', { part: 'header' }), ENVELOPE_VERSION);
  let readPosition = '';
  if (header.readPosition !== undefined) {
    try {
      readPosition = encodeReadPosition(header.readPosition);
    } catch (cause) {
      throw protocolError('BLOB_VALUE_OUT_OF_RANGE', 'the blob header field readPosition is not a source position', { part: 'header', path: 'readPosition' }, { cause });
    }
  }
  return tributary.protocol.BlobHeader.encode({
    syncId: header.syncId,
    shardId: header.shardId,
    attempt: header.attempt,
    tablePath: header.tablePath,
    schemaId: toLong(header.schemaId, 'schemaId'),
    paimonFormatVersion: header.paimonFormatVersion,
    tributaryVersion: header.tributaryVersion,
    creationTimeMillis: toLong(header.creationTimeMillis, 'creationTimeMillis'),
    rowCount: toLong(header.rowCount, 'rowCount'),
    byteCount: toLong(header.byteCount, 'byteCount'),
    fileCount: toLong(header.fileCount, 'fileCount'),
    voteToken: header.voteToken,
    readPosition,
  }).finish();
}

/** Decodes a header of the given (already checked) envelope version. */
export function decodeBlobHeader(bytes: Uint8Array, envelopeVersion: number): BlobHeader {
  let w: tributary.protocol.BlobHeader;
  try {
    w = tributary.protocol.BlobHeader.decode(strictReader(bytes));
  } catch (cause) {
    throw protocolError('BLOB_HEADER_INVALID', 'the blob header is not a valid protobuf BlobHeader', {
      reason: cause instanceof Error ? cause.message : String(cause),
    }, { cause });
  }
  if (w.$unknowns !== undefined && w.$unknowns.length > 0) {
    // Same rule as for messages (commit-message-codec.ts `known`): no field we do not understand.
    throw protocolError('BLOB_HEADER_INVALID', 'the blob header has unknown protobuf fields', {
      unknownFields: w.$unknowns.length,
    });
  }
  const token = envelopeVersion >= VOTE_TOKEN_SINCE || w.voteToken.length > 0 ? { voteToken: new Uint8Array(w.voteToken) } : {};
  let position: { readPosition?: ShardReadPosition } = {};
  if (w.readPosition !== '') {
    // Field 13 is unknown before version 3: a v1 or v2 blob that carries it was not written by their encoders.
    if (envelopeVersion < READ_POSITION_SINCE) {
      throw protocolError('BLOB_HEADER_INVALID', `blob header field readPosition is not part of envelope version ${envelopeVersion}`, { path: 'readPosition' });
    }
    const decoded = decodeReadPosition(w.readPosition);
    if ('reason' in decoded) {
      throw protocolError('BLOB_HEADER_INVALID', `blob header field readPosition: ${decoded.reason}`, { path: 'readPosition' });
    }
    position = { readPosition: decoded.position };
  }
  const header: BlobHeader = {
    syncId: w.syncId,
    shardId: w.shardId,
    attempt: w.attempt,
    tablePath: w.tablePath,
    schemaId: fromLong(w.schemaId),
    paimonFormatVersion: w.paimonFormatVersion,
    tributaryVersion: w.tributaryVersion,
    creationTimeMillis: fromLong(w.creationTimeMillis),
    rowCount: fromLong(w.rowCount),
    byteCount: fromLong(w.byteCount),
    fileCount: fromLong(w.fileCount),
    ...token,
    ...position,
  };
  checkHeader(header, failWith('BLOB_HEADER_INVALID'), envelopeVersion);
  return header;
}

function checkHeader(h: BlobHeader, fail: Fail, envelopeVersion: number): void {
  checkString(h.syncId, 'syncId', fail, true);
  checkString(h.shardId, 'shardId', fail, true);
  checkString(h.tablePath, 'tablePath', fail, true);
  checkString(h.tributaryVersion, 'tributaryVersion', fail, false);
  if (!isInt32(h.attempt, 1)) fail('attempt', 'not a positive int32');
  if (!isInt32(h.paimonFormatVersion, 1)) fail('paimonFormatVersion', 'not a positive int32');
  for (const field of ['schemaId', 'rowCount', 'byteCount', 'fileCount', 'creationTimeMillis'] as const) {
    const value = h[field];
    if (typeof value !== 'bigint' || value < 0n || BigInt.asIntN(64, value) !== value) {
      fail(field, 'not a non-negative int64 bigint');
    }
  }
  if (envelopeVersion < VOTE_TOKEN_SINCE) {
    // Field 12 is unknown to version 1: a v1 blob that carries it was not written by a v1 encoder.
    if (h.voteToken !== undefined) fail('voteToken', `not part of envelope version ${envelopeVersion}`);
  } else if (!(h.voteToken instanceof Uint8Array) || h.voteToken.length !== VOTE_TOKEN_BYTES) {
    fail('voteToken', `not ${VOTE_TOKEN_BYTES} bytes`);
  }
}

/** Throws BLOB_HEADER_MISMATCH naming the first field that differs from the plan. */
export function checkExpectation(header: BlobHeader, expect: BlobExpectation): void {
  const pairs: [string, unknown, unknown][] = [
    ['syncId', expect.syncId, header.syncId],
    ['shardId', expect.shardId, header.shardId],
    ['tablePath', expect.tablePath, header.tablePath],
    ['schemaId', expect.schemaId, header.schemaId],
  ];
  if (expect.attempt !== undefined) pairs.push(['attempt', expect.attempt, header.attempt]);
  for (const [field, expected, actual] of pairs) {
    if (expected !== actual) {
      throw protocolError('BLOB_HEADER_MISMATCH', `blob ${field} is ${String(actual)}, expected ${String(expected)}`, {
        field,
        expected: String(expected),
        actual: String(actual),
      });
    }
  }
  if (expect.voteToken !== undefined) checkVoteToken(header, expect.voteToken);
}

/** Never prints a token: a token seen in an error message could be replayed by whoever reads it. */
function checkVoteToken(header: BlobHeader, expected: Uint8Array): void {
  if (header.voteToken === undefined) {
    throw protocolError('BLOB_VOTE_TOKEN_INVALID', 'the blob carries no vote token (envelope version 1)', {
      shardId: header.shardId,
      attempt: header.attempt,
    });
  }
  if (!tokensEqual(header.voteToken, expected)) {
    throw protocolError('BLOB_VOTE_TOKEN_INVALID', 'the blob does not carry the vote token of its planned shard', {
      shardId: header.shardId,
      attempt: header.attempt,
    });
  }
}
