/**
 * What a worker reads of a sync's persisted plan: the plan's head (table, pinned snapshot, schema,
 * source, fingerprint) and the one shard's spec and sequence slot, from the `:plan` hash the coordinator writes
 * before it enqueues anything (key layout: @tributary/protocol sync-schemas). One HMGET of constant
 * size per job, however many shards the sync has.
 *
 * The job's payload only points at the shard; its source comes from here, so a job added to the
 * queue by hand cannot make a worker read anything the coordinator did not plan. The job must carry
 * the shard's vote token, which only a holder of the cluster secret can compute.
 */
import type { Redis } from 'ioredis';
import {
  PLAN_HEAD_FIELD,
  PlannedShardEntry,
  checkPlanSeal,
  decodeVoteToken,
  errorFrom,
  planShardField,
  protocolError,
  shardVoteToken,
  syncRedisKeys,
  tokensEqual,
  verifiedSyncPlanHead,
  type SyncPlanHead,
  type SyncShardJob,
} from '@tributary/protocol';
import { workerErrors } from './errors.ts';

export interface PlannedShardTask {
  readonly syncId: string;
  readonly shardId: string;
  readonly head: SyncPlanHead;
  readonly spec: Readonly<Record<string, unknown>>;
  /** The shard's index in the plan: its sequence slot (a key in several shards goes to the later one). */
  readonly slot: number;
  /** The job's token, checked: it goes into the blob's header. */
  readonly voteToken: Uint8Array;
}

/**
 * The job's shard as the coordinator planned it. SHARD_NOT_PLANNED when the sync or the shard is
 * not in a persisted plan, SYNC_PLAN_ALTERED when the head does not hash to its fingerprint or the
 * shard's entry does not carry its seal (plan-binding.ts), SHARD_TOKEN_INVALID when the job's token
 * is not the shard's under the fingerprint recomputed from the head read here (never the stored one).
 */
export async function plannedShard(redis: Redis, prefix: string, secret: Uint8Array, job: SyncShardJob): Promise<PlannedShardTask> {
  const { syncId, shardId } = job;
  const field = planShardField(shardId);
  const [headJson, specJson] = await redis.hmget(syncRedisKeys(prefix, syncId).plan, PLAN_HEAD_FIELD, field);
  if (headJson === null || headJson === undefined) {
    throw errorFrom(workerErrors, 'SHARD_NOT_PLANNED', `sync ${syncId} has no persisted plan`, { syncId, shard: shardId });
  }
  if (specJson === null || specJson === undefined) {
    throw errorFrom(workerErrors, 'SHARD_NOT_PLANNED', `shard ${shardId} is not in the plan of sync ${syncId}`, { syncId, shard: shardId });
  }
  const context = { shard: shardId };
  const { head, fingerprint } = verifiedSyncPlanHead(syncId, headJson, context);
  const expected = shardVoteToken(secret, syncId, shardId, fingerprint);
  const given = decodeVoteToken(job.token);
  if (!tokensEqual(given, expected)) {
    throw errorFrom(workerErrors, 'SHARD_TOKEN_INVALID', `the job for shard ${shardId} of sync ${syncId} does not carry the shard's vote token`, {
      syncId,
      shard: shardId,
    });
  }
  const entry = parsedEntry(syncId, specJson, field, context);
  const { seal, ...body } = entry;
  checkPlanSeal(secret, syncId, field, fingerprint, body, seal, context);
  if (entry.slot >= head.shards.count) throw protocolError('SYNC_PLAN_ALTERED', `the plan's ${field} of sync ${syncId} has a slot past its shards`, { syncId, field, ...context });
  return { syncId, shardId, head, spec: entry.spec, slot: entry.slot, voteToken: expected };
}

function parsedEntry(syncId: string, json: string, field: string, context: Record<string, string>): PlannedShardEntry {
  try {
    return PlannedShardEntry.parse(JSON.parse(json));
  } catch {
    throw protocolError('SYNC_PLAN_ALTERED', `the plan's ${field} of sync ${syncId} does not parse (changed in Redis, or planned by an older coordinator)`, { syncId, field, ...context });
  }
}
