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
  SealedBucketEntry,
  bucketVoteToken,
  checkPlanSeal,
  decodeVoteToken,
  errorFrom,
  planBucketField,
  protocolError,
  syncRedisKeys,
  tokensEqual,
  verifiedSyncPlanHead,
  type PlannedBucketEntry,
  type SyncBucketJob,
  type SyncPlanHead,
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

/**
 * BUCKET_NOT_PLANNED when the sync or bucket is not in a persisted plan, SYNC_PLAN_ALTERED when
 * the head does not hash to its fingerprint or the bucket's entry does not carry the coordinator's
 * seal (plan-binding.ts), BUCKET_TOKEN_INVALID for another token than the bucket's under the
 * fingerprint recomputed from the head read here.
 */
export async function plannedBucket(redis: Redis, prefix: string, secret: Uint8Array, job: SyncBucketJob): Promise<PlannedBucketTask> {
  const { syncId, bucketId } = job;
  const field = planBucketField(bucketId);
  const [headJson, entryJson] = await redis.hmget(syncRedisKeys(prefix, syncId).plan, PLAN_HEAD_FIELD, field);
  if (headJson === null || headJson === undefined) {
    throw errorFrom(workerErrors, 'BUCKET_NOT_PLANNED', `sync ${syncId} has no persisted plan`, { syncId, bucket: bucketId });
  }
  if (entryJson === null || entryJson === undefined) {
    throw errorFrom(workerErrors, 'BUCKET_NOT_PLANNED', `${bucketId} is not in the bucket plan of sync ${syncId}`, { syncId, bucket: bucketId });
  }
  const context = { bucket: bucketId };
  const { head, fingerprint } = verifiedSyncPlanHead(syncId, headJson, context);
  const expected = bucketVoteToken(secret, syncId, bucketId, fingerprint);
  if (!tokensEqual(decodeVoteToken(job.token), expected)) {
    throw errorFrom(workerErrors, 'BUCKET_TOKEN_INVALID', `the job for ${bucketId} of sync ${syncId} does not carry the bucket's vote token`, { syncId, bucket: bucketId });
  }
  let sealed: SealedBucketEntry;
  try {
    sealed = SealedBucketEntry.parse(JSON.parse(entryJson));
  } catch {
    throw protocolError('SYNC_PLAN_ALTERED', `the plan's ${field} of sync ${syncId} does not parse (changed in Redis, or planned by an older coordinator)`, { syncId, field, ...context });
  }
  const { seal, ...entry } = sealed;
  checkPlanSeal(secret, syncId, field, fingerprint, entry, seal, context);
  return { syncId, shardId: bucketId, head, entry, voteToken: expected };
}
