// Tributary publishes snapshot-(N+1) with a put-if-absent. This checks that the S3 server
// started by infra/ really honours `If-None-Match: *` on PutObject, racing creates included.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { S3Client, PutObjectCommand, GetObjectCommand, S3ServiceException } from '@aws-sdk/client-s3';
import { services, uniqueName } from '@tributary/testkit';

const s3 = new S3Client({
  endpoint: services.s3.endpoint,
  region: services.s3.region,
  forcePathStyle: true,
  credentials: { accessKeyId: services.s3.accessKeyId, secretAccessKey: services.s3.secretAccessKey },
});

function createIfAbsent(key: string, body: string) {
  return s3.send(new PutObjectCommand({ Bucket: services.s3.bucket, Key: key, Body: body, IfNoneMatch: '*' }));
}

function httpStatus(reason: unknown): number | undefined {
  return reason instanceof S3ServiceException ? reason.$metadata.httpStatusCode : undefined;
}

test('a second create of an existing key gets 412 and leaves the first body', async () => {
  const key = `${uniqueName('conditional')}/snapshot-1`;
  await createIfAbsent(key, 'first');
  await assert.rejects(createIfAbsent(key, 'second'), (e: unknown) => httpStatus(e) === 412);
  const got = await s3.send(new GetObjectCommand({ Bucket: services.s3.bucket, Key: key }));
  assert.equal(await got.Body?.transformToString(), 'first');
});

test('two racing creates of one key: exactly one wins, the other gets 412', async () => {
  for (let round = 0; round < 10; round++) {
    const key = `${uniqueName('race')}/snapshot-2`;
    const results = await Promise.allSettled([createIfAbsent(key, 'a'), createIfAbsent(key, 'b')]);
    const winners = results.filter((r) => r.status === 'fulfilled');
    const losers = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    assert.equal(winners.length, 1, `round ${round}: one winner`);
    assert.equal(losers.length, 1, `round ${round}: one loser`);
    // AWS answers 409 ConditionalRequestConflict when both requests are in flight at once.
    assert.ok([409, 412].includes(httpStatus(losers[0]?.reason) ?? 0), `round ${round}: loser got ${String(losers[0]?.reason)}`);
    const got = await s3.send(new GetObjectCommand({ Bucket: services.s3.bucket, Key: key }));
    const body = await got.Body?.transformToString();
    const winnerIndex = results.findIndex((r) => r.status === 'fulfilled');
    assert.equal(body, winnerIndex === 0 ? 'a' : 'b', `round ${round}: the stored body is the winner's`);
  }
});
