/**
 * The one place where S3 errors become Tributary error codes (no Paimon counterpart: Java's
 * `S3FileIO` lets Hadoop's exceptions through). Nothing outside io/ looks at an S3 status code.
 *
 * The SDK has already retried throttling, 5xx and network errors (3 attempts, standard mode) when
 * an error reaches us; the `retryable` flag tells the caller (a BullMQ job) whether a later retry
 * of the whole operation makes sense.
 */
import { errorFrom, isTributaryError, type TributaryError } from '@tributary/errors';
import { tableErrors } from '../errors.ts';
import { loggableKey, withoutPartitionValues } from './object-key.ts';

/** What we read from an SDK error, a plain Node network error or anything else thrown. */
interface Clues {
  readonly name: string;
  readonly status: number | undefined;
  readonly errno: string | undefined;
}

function cluesOf(error: unknown): Clues {
  if (typeof error !== 'object' || error === null) return { name: String(error), status: undefined, errno: undefined };
  const record = error as { name?: unknown; code?: unknown; $metadata?: { httpStatusCode?: unknown } };
  const status = record.$metadata?.httpStatusCode;
  return {
    name: typeof record.name === 'string' ? record.name : 'Error',
    status: typeof status === 'number' ? status : undefined,
    errno: typeof record.code === 'string' ? record.code : undefined,
  };
}

/** Did a conditional write (`If-None-Match: *`) lose because the key is, or is being, written? */
export function isPreconditionFailure(error: unknown): boolean {
  const { name, status } = cluesOf(error);
  // 412 PreconditionFailed: the key exists. 409 ConditionalRequestConflict: another conditional
  // write of the key was in flight; AWS says retry, but for a put-if-absent the key is as good as
  // taken, and a caller that re-reads (the commit loop) also covers the other writer failing.
  return status === 412 || name === 'PreconditionFailed' || name === 'ConditionalRequestConflict';
}

/** Is this the S3 answer for a missing object (GetObject 404 NoSuchKey, HeadObject 404 NotFound)? */
export function isMissingObject(error: unknown): boolean {
  const { name, status } = cluesOf(error);
  return name === 'NoSuchKey' || name === 'NotFound' || (status === 404 && name !== 'NoSuchBucket');
}

/** Is this a 416 for a range that starts at or past the end of the object? */
export function isInvalidRange(error: unknown): boolean {
  const { name, status } = cluesOf(error);
  return status === 416 || name === 'InvalidRange';
}

const THROTTLING = new Set(['SlowDown', 'Throttling', 'ThrottlingException', 'RequestTimeout', 'TooManyRequests']);
const ACCESS = new Set(['AccessDenied', 'InvalidAccessKeyId', 'SignatureDoesNotMatch', 'ExpiredToken', 'InvalidToken']);
const NETWORK = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ECONNABORTED',
]);

/**
 * Translates any error from an S3 call on `key` into a typed error. Typed errors pass through.
 * Callers handle the answers that mean something for their operation (a missing object on `get`,
 * a lost race on `putIfAbsent`) before falling back to this.
 */
export function s3Error(error: unknown, op: string, bucket: string, key: string): TributaryError {
  if (isTributaryError(error)) return error;
  const { name, status, errno } = cluesOf(error);
  // A partition directory's value is a cell of the table: never in an error (loggableKey).
  const shown = loggableKey(key);
  const detail = withoutPartitionValues(error instanceof Error ? error.message : String(error), key);
  const context = { op, bucket, key: shown, s3Code: name, status: status ?? null, errno: errno ?? null };
  const message = `S3 ${op} s3://${bucket}/${shown} failed: ${name}${status === undefined ? '' : ` (${status})`}: ${detail}`;
  const options = { cause: error };
  if (name === 'NoSuchBucket') {
    return errorFrom(tableErrors, 'STORAGE_BUCKET_NOT_FOUND', `bucket ${bucket} does not exist`, context, options);
  }
  if (isMissingObject(error)) {
    return errorFrom(tableErrors, 'OBJECT_NOT_FOUND', `object not found: s3://${bucket}/${shown}`, context, options);
  }
  if (ACCESS.has(name) || status === 401 || status === 403) {
    return errorFrom(tableErrors, 'STORAGE_ACCESS_DENIED', message, context, options);
  }
  const unavailable =
    THROTTLING.has(name) ||
    status === 429 ||
    (status !== undefined && status >= 500) ||
    (errno !== undefined && NETWORK.has(errno)) ||
    name === 'TimeoutError';
  return errorFrom(tableErrors, unavailable ? 'STORAGE_UNAVAILABLE' : 'STORAGE_REQUEST_FAILED', message, context, options);
}
