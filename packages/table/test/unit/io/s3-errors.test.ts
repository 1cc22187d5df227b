/**
 * How S3 answers become typed errors (src/io/s3-errors.ts), from a case table. The errors are real
 * SDK exception objects of the shapes @aws-sdk/client-s3 throws; the live MinIO cases (access
 * denied, missing bucket, refused connection, the 412 race) are in test/integration/io.
 */
import assert from 'node:assert/strict';
import { NoSuchBucket, NoSuchKey, NotFound, S3ServiceException } from '@aws-sdk/client-s3';
import { test } from 'node:test';
import { isPreconditionFailure, s3Error } from '../../../src/io/s3-errors.ts';

function serviceError(name: string, status: number): S3ServiceException {
  return new S3ServiceException({ name, $fault: status >= 500 ? 'server' : 'client', $metadata: { httpStatusCode: status } });
}

function networkError(code: string): Error {
  return Object.assign(new Error(`connect ${code} 127.0.0.1:9100`), { code });
}

const meta = { $metadata: { httpStatusCode: 404 }, message: 'gone' };

const cases: ReadonlyArray<readonly [string, unknown, string, boolean]> = [
  ['GetObject 404 NoSuchKey', new NoSuchKey(meta), 'OBJECT_NOT_FOUND', false],
  ['HeadObject 404 NotFound', new NotFound(meta), 'OBJECT_NOT_FOUND', false],
  ['404 NoSuchBucket', new NoSuchBucket(meta), 'STORAGE_BUCKET_NOT_FOUND', false],
  ['403 AccessDenied', serviceError('AccessDenied', 403), 'STORAGE_ACCESS_DENIED', false],
  ['403 SignatureDoesNotMatch', serviceError('SignatureDoesNotMatch', 403), 'STORAGE_ACCESS_DENIED', false],
  ['403 InvalidAccessKeyId', serviceError('InvalidAccessKeyId', 403), 'STORAGE_ACCESS_DENIED', false],
  ['503 SlowDown', serviceError('SlowDown', 503), 'STORAGE_UNAVAILABLE', true],
  ['500 InternalError', serviceError('InternalError', 500), 'STORAGE_UNAVAILABLE', true],
  ['429 TooManyRequests', serviceError('TooManyRequests', 429), 'STORAGE_UNAVAILABLE', true],
  ['400 RequestTimeout', serviceError('RequestTimeout', 400), 'STORAGE_UNAVAILABLE', true],
  ['ECONNREFUSED', networkError('ECONNREFUSED'), 'STORAGE_UNAVAILABLE', true],
  ['ECONNRESET', networkError('ECONNRESET'), 'STORAGE_UNAVAILABLE', true],
  ['TimeoutError', Object.assign(new Error('timed out'), { name: 'TimeoutError' }), 'STORAGE_UNAVAILABLE', true],
  ['400 InvalidArgument', serviceError('InvalidArgument', 400), 'STORAGE_REQUEST_FAILED', false],
  ['400 EntityTooSmall', serviceError('EntityTooSmall', 400), 'STORAGE_REQUEST_FAILED', false],
  ['a plain Error', new Error('body stream broke'), 'STORAGE_REQUEST_FAILED', false],
  ['a thrown string', 'weird', 'STORAGE_REQUEST_FAILED', false],
];

for (const [label, error, code, retryable] of cases) {
  test(`${label} → ${code} (retryable: ${retryable})`, () => {
    const typed = s3Error(error, 'get', 'bucket', 'warehouse/k');
    assert.equal(typed.code, code);
    assert.equal(typed.retryable, retryable);
    assert.equal(typed.context.bucket, 'bucket');
    assert.equal(typed.cause, error);
  });
}

test('a lost put-if-absent race is 412 PreconditionFailed or 409 ConditionalRequestConflict, nothing else', () => {
  assert.equal(isPreconditionFailure(serviceError('PreconditionFailed', 412)), true);
  assert.equal(isPreconditionFailure(serviceError('ConditionalRequestConflict', 409)), true);
  assert.equal(isPreconditionFailure(serviceError('BucketNotEmpty', 409)), false);
  assert.equal(isPreconditionFailure(serviceError('AccessDenied', 403)), false);
  assert.equal(isPreconditionFailure(networkError('ECONNRESET')), false);
});

test('a typed error passes through unchanged', () => {
  const typed = s3Error(new NoSuchKey(meta), 'get', 'b', 'k');
  assert.equal(s3Error(typed, 'put', 'other', 'other'), typed);
});

test('a partition directory’s value (a cell of the table) is in no message or context, whatever the error', () => {
  const key = 'w/shop.db/orders/region=secret-cell/dt=2024-01-01/bucket-0/data-1.parquet';
  const echoing = Object.assign(new Error(`Object name too long: w/shop.db/orders/region=secret-cell/dt=2024-01-01/bucket-0`), { name: 'KeyTooLongError' });
  for (const error of [echoing, new NoSuchKey(meta), serviceError('InvalidArgument', 400), networkError('ECONNRESET')]) {
    const typed = s3Error(error, 'put', 'bucket', key);
    const shown = `${typed.message} ${JSON.stringify(typed.context)}`;
    assert.doesNotMatch(shown, /secret-cell|2024-01-01/, typed.code);
    assert.match(shown, /region=<11 bytes>\/dt=<10 bytes>\/bucket-0\/data-1\.parquet/, 'the rest of the key stays');
  }
});
