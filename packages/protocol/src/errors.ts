/**
 * The codes of @tributary/protocol. The error type itself (`TributaryError`, `errorFrom`, …) lives
 * in @tributary/errors; it is re-exported from this package's index for the worker and the
 * coordinator.
 */
import { defineErrorCatalogue, errorFrom, type ErrorContext, type TributaryError } from '@tributary/errors';

/**
 * The codes of @tributary/protocol: blob framing and decoding (see README.md, "Strict decoding"),
 * payload validation and the cluster secret. None is retryable: the same input fails the same way
 * every time.
 */
export const protocolErrors = defineErrorCatalogue({
  BLOB_TRUNCATED: {
    retryable: false,
    summary: 'A CommitMessage blob ends before its last frame or its checksum; the shard must be prepared again.',
  },
  BLOB_TRAILING_BYTES: {
    retryable: false,
    summary: 'A CommitMessage blob has bytes after its checksum trailer; it was not written by one encoder run.',
  },
  BLOB_BAD_MAGIC: {
    retryable: false,
    summary: 'The object does not start with the CommitMessage blob magic bytes; it is not a Tributary blob.',
  },
  BLOB_UNSUPPORTED_VERSION: {
    retryable: false,
    summary: 'The blob has an envelope version this release cannot read; upgrade the coordinator.',
  },
  BLOB_CHECKSUM_MISMATCH: {
    retryable: false,
    summary: 'The CRC32C trailer of a blob does not match its bytes; the blob is corrupt.',
  },
  BLOB_LENGTH_OUT_OF_RANGE: {
    retryable: false,
    summary: 'A length or count prefix in a blob exceeds the remaining bytes or a configured limit.',
  },
  BLOB_HEADER_INVALID: {
    retryable: false,
    summary: 'The blob header does not decode as a valid BlobHeader.',
  },
  BLOB_MESSAGE_INVALID: {
    retryable: false,
    summary: 'A CommitMessage in a blob does not decode, or holds a value outside its domain.',
  },
  BLOB_HEADER_MISMATCH: {
    retryable: false,
    summary: 'The blob header names another sync, shard, attempt, table or schema than the coordinator expects.',
  },
  BLOB_VOTE_TOKEN_INVALID: {
    retryable: false,
    summary: 'The blob carries no vote token, or not the token of its planned shard: it was not written for a job the coordinator planned.',
  },
  BLOB_MESSAGE_COUNT_MISMATCH: {
    retryable: false,
    summary: 'The encoder was given a different number of messages than the blob declares.',
  },
  BLOB_VALUE_OUT_OF_RANGE: {
    retryable: false,
    summary: 'A value given to the blob encoder cannot be represented (e.g. an int64 outside its range).',
  },
  BLOB_STREAM_MISUSE: {
    retryable: false,
    summary: 'A blob stream was used wrongly: its messages iterated twice, or its source yielded non-byte chunks.',
  },
  CLUSTER_SECRET_INVALID: {
    retryable: false,
    summary: 'The cluster secret is missing, set twice (value and file), unreadable or shorter than 32 bytes; the process does not start.',
  },
  PAYLOAD_INVALID: {
    retryable: false,
    summary: 'A REST body or job payload does not match its schema; the context names the first problem.',
  },
  SYNC_PLAN_ALTERED: {
    retryable: false,
    summary:
      "A sync's persisted plan in Redis (the head, a shard's or bucket's entry, or the folded source positions) does not match the plan its vote tokens bind: changed after planning, or planned by an older coordinator. The job is refused before it reads or writes anything, and the sync aborts with nothing committed.",
  },
});

export type ProtocolErrorCode = keyof typeof protocolErrors;

/** Throws-side helper: a typed protocol error. */
export function protocolError(
  code: ProtocolErrorCode,
  message: string,
  context?: ErrorContext,
  options?: { cause?: unknown },
): TributaryError<ProtocolErrorCode> {
  return errorFrom(protocolErrors, code, message, context, options);
}
