import assert from 'node:assert/strict';
import { test } from 'node:test';
import { bucketKey } from '../../../src/spec/binary-row.ts';
import { changelogBuckets, staleChangelogEntry, type PlanEntry, type PlanMessage } from '../../../src/write/commit-plan.ts';

const P = new Uint8Array(12);
const file = (name: string) => ({ fileName: name, rowCount: 1n, maxSequenceNumber: 1n });
const message = (bucket: number, changelog: boolean): PlanMessage => ({
  partition: P,
  bucket,
  totalBuckets: 4,
  dataIncrement: { newFiles: [file(`data-${bucket}`)], deletedFiles: [], changelogFiles: changelog ? [file(`changelog-${bucket}`)] : [] },
});
const entry = (bucket: number): PlanEntry => ({ kind: 'ADD', partition: P, bucket, totalBuckets: 4, file: file(`x-${bucket}`) });

test('changelogBuckets: every bucket of a commit that carries a changelog, none without one', () => {
  assert.deepEqual([...changelogBuckets([message(0, true), message(1, false)])].sort(), [bucketKey(P, 0), bucketKey(P, 1)].sort());
  assert.equal(changelogBuckets([message(0, false), message(1, false)]).size, 0);
});

test('staleChangelogEntry: the first entry of a later snapshot in one of those buckets', () => {
  const buckets = changelogBuckets([message(0, true), message(1, false)]);
  assert.equal(staleChangelogEntry(buckets, [entry(2), entry(3)]), undefined);
  assert.equal(staleChangelogEntry(buckets, [entry(2), entry(1), entry(0)])?.bucket, 1);
  assert.equal(staleChangelogEntry(buckets, [{ ...entry(0), kind: 'DELETE' }])?.bucket, 0, 'a deleted file changes the bucket too');
});
