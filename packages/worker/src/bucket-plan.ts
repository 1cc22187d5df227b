/**
 * What a `merge-bucket` job reads of its sync's persisted plan: the plan's head and the one
 * bucket's entry (its partition, bucket and the runs of the accepted shard attempts), one HMGET of
 * constant size per job. The coordinator writes the bucket entries once every shard is accepted and
 * before it enqueues any bucket job; the job's payload only points at the bucket and must carry the
 * bucket's vote token (bucketVoteToken in @tributary/protocol).
 */
import type { Redis } from 'ioredis';
import {
  PLAN_HEAD_FIELD,
  PlannedBucketEntry,
  SyncPlanHead,
  bucketVoteToken,
  decodeVoteToken,
  errorFrom,
  planBucketField,
  syncRedisKeys,
  tokensEqual,
  type SyncBucketJob,
} from '@tributary/protocol';
import { workerErrors } from './errors.ts';

export interface PlannedBucketTask {
  readonly syncId: string;
  /** The bucket job's id (`bucket-<n>`); named `shardId` so the phase checks and the ledger take it as they take a shard's. */
  readonly shardId: string;
  readonly head: SyncPlanHead;
  readonly entry: PlannedBucketEntry;
  readonly voteToken: Uint8Array;
}

/** BUCKET_NOT_PLANNED when the sync or bucket is not in a persisted plan, BUCKET_TOKEN_INVALID for another token. */
export async function plannedBucket(redis: Redis, prefix: string, secret: Uint8Array, job: SyncBucketJob): Promise<PlannedBucketTask> {
  const { syncId, bucketId } = job;
  const [headJson, entryJson] = await redis.hmget(syncRedisKeys(prefix, syncId).plan, PLAN_HEAD_FIELD, planBucketField(bucketId));
  if (headJson === null || headJson === undefined) {
    throw errorFrom(workerErrors, 'BUCKET_NOT_PLANNED', `sync ${syncId} has no persisted plan`, { syncId, bucket: bucketId });
  }
  if (entryJson === null || entryJson === undefined) {
    throw errorFrom(workerErrors, 'BUCKET_NOT_PLANNED', `${bucketId} is not in the bucket plan of sync ${syncId}`, { syncId, bucket: bucketId });
  }
  const head = SyncPlanHead.parse(JSON.parse(headJson));
  const expected = bucketVoteToken(secret, syncId, bucketId, head.fingerprint);
  if (!tokensEqual(decodeVoteToken(job.token), expected)) {
    throw errorFrom(workerErrors, 'BUCKET_TOKEN_INVALID', `the job for ${bucketId} of sync ${syncId} does not carry the bucket's vote token`, { syncId, bucket: bucketId });
  }
  return { syncId, shardId: bucketId, head, entry: PlannedBucketEntry.parse(JSON.parse(entryJson)), voteToken: expected };
}
