import assert from 'node:assert/strict';
import { test } from 'node:test';
import { dataFilesMessage, type CommitMessage, type DataFileMeta } from '@tributary/table';
import { bucketPlan } from '../../../src/sync/committer.ts';
import { summariseRuns } from '../../../src/sync/staging.ts';

const file = (name: string, rows: number, minSequence: bigint): DataFileMeta => ({ fileName: name, fileSize: 100n, rowCount: BigInt(rows), minSequenceNumber: minSequence }) as unknown as DataFileMeta;
const p = (day: number): Uint8Array => Uint8Array.of(0, 0, 0, day);
/** A shard's runs summary, as the committer keeps it of a verified blob. */
const runsOf = (messages: CommitMessage[]) => summariseRuns({ attempt: { attemptId: '1', blobKey: 'k', checksum: 0, rows: 0, bytes: 0 }, messages, readPosition: undefined, files: 0 }).buckets;

test('one entry per (partition, bucket), in partition then bucket order; runs in plan order of the shards', () => {
  const shard0 = [dataFilesMessage(p(2), 1, 2, { newFiles: [file('a0', 3, 10n)] }), dataFilesMessage(p(1), 0, 2, { newFiles: [file('b0', 1, 20n), file('b1', 2, 22n)] })];
  const shard1 = [dataFilesMessage(p(1), 0, 2, { newFiles: [file('c0', 4, 2n ** 32n)] })];
  const plan = bucketPlan([runsOf(shard0), runsOf(shard1)]);
  assert.deepEqual(
    plan.map((e) => [Buffer.from(e.partition, 'base64')[3], e.bucket, e.totalBuckets, e.runs.map((r) => `${r.fileName}@${r.slot}`)]),
    [
      [1, 0, 2, ['b0@0', 'b1@0', 'c0@1']],
      [2, 1, 2, ['a0@0']],
    ],
  );
  assert.equal(plan[0]?.runs[2]?.minSequence, String(2n ** 32n));
  assert.equal(plan[0]?.runs[1]?.rows, 2);
});
