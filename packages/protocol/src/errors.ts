/**
 * Tributary's typed errors.
 *
 * Every error that crosses a package or a process boundary is a `TributaryError` with a stable
 * `code` (SCREAMING_SNAKE_CASE), a `retryable` flag and a plain-data `context`. Code branches on
 * `code`, never on the message or on `instanceof` (an error that travelled through BullMQ or
 * HTTP is plain data again, see `toErrorData` / `isTributaryErrorData`).
 *
 * Each package declares its codes in one catalogue (`defineErrorCatalogue`); docs/errors.md lists
 * them all, and a test keeps the two in step.
 */

export interface ErrorSpec {
  /** May the same operation succeed if tried again unchanged (a lost connection, a lock)? */
  readonly retryable: boolean;
  /** One line for docs/errors.md: what went wrong and what the user can do. */
  readonly summary: string;
}

export type ErrorCatalogue<Code extends string> = Readonly<Record<Code, ErrorSpec>>;

/** Declares a package's error codes; the identity function, kept for the type it infers. */
export function defineErrorCatalogue<Code extends string>(
  catalogue: ErrorCatalogue<Code>,
): ErrorCatalogue<Code> {
  return catalogue;
}

export type ErrorContext = Readonly<Record<string, string | number | boolean | bigint | null | undefined>>;

export class TributaryError<Code extends string = string> extends Error {
  override readonly name = 'TributaryError';
  readonly code: Code;
  readonly retryable: boolean;
  readonly context: ErrorContext;

  constructor(
    code: Code,
    spec: ErrorSpec,
    message: string,
    context: ErrorContext = {},
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.code = code;
    this.retryable = spec.retryable;
    this.context = context;
  }
}

/** Builds a typed error from a catalogue entry. */
export function errorFrom<Code extends string>(
  catalogue: ErrorCatalogue<Code>,
  code: Code,
  message: string,
  context?: ErrorContext,
  options?: { cause?: unknown },
): TributaryError<Code> {
  return new TributaryError(code, catalogue[code], message, context, options);
}

/** The plain-data form of an error, as it travels in job results, blobs and HTTP bodies. */
export interface ErrorData {
  readonly code: string;
  readonly message: string;
  readonly retryable: boolean;
  readonly context: Readonly<Record<string, string | number | boolean | null>>;
}

export function toErrorData(error: unknown): ErrorData {
  if (error instanceof TributaryError) {
    const context: Record<string, string | number | boolean | null> = {};
    for (const [k, v] of Object.entries(error.context)) {
      if (v === undefined) continue;
      context[k] = typeof v === 'bigint' ? v.toString() : v;
    }
    return { code: error.code, message: error.message, retryable: error.retryable, context };
  }
  const message = error instanceof Error ? error.message : String(error);
  return { code: 'INTERNAL', message, retryable: false, context: {} };
}

export function isTributaryError(error: unknown): error is TributaryError {
  return error instanceof TributaryError;
}

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
