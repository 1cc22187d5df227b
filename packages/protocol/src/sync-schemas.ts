/**
 * What the coordinator and the workers of a sync agree on without importing each other: the
 * payload of a `write-shard` job, what an attempt reports, the names of the Redis keys both touch,
 * and where a shard attempt stages its blob. Pure: names and schemas, no I/O.
 *
 * A sync's Redis keys, under a deployment prefix (tests use their own prefix):
 *   <prefix>:sync:<id>            hash  version, phase, json (the sync record; CAS on version),
 *                                       discard ('1' once the sync aborts before its commit started:
 *                                       everything it staged may be deleted, by anyone)
 *   <prefix>:sync:<id>:accepted   hash  shardId → attemptId (HSETNX: the first finished attempt wins)
 *   <prefix>:sync:<id>:attempts   hash  shardId/attemptId → ShardAttempt JSON (progress, for the API)
 *   <prefix>:sync:<id>:attempt-seq hash shardId → the last attempt number taken (HINCRBY; attempts are 1…n)
 *   <prefix>:sync:<id>:votes      hash  shardId → ShardVote JSON of the accepted attempt (written with the HSETNX)
 *   <prefix>:sync:<id>:plan       hash  `head` → SyncPlanHead JSON, `shard:<shardId>` → PlannedShardEntry JSON
 *                                       (what a worker reads of the plan: constant size per job),
 *                                       `bucket:<bucketId>` → PlannedBucketEntry JSON (bucketed layout: written
 *                                       when every shard is accepted, before any bucket job exists),
 *                                       `positions` → the shards' folded source positions (bucketed layout, the
 *                                       snapshot properties the commit adds; written with the bucket plan)
 *   <prefix>:sync:<id>:bucket-accepted, :bucket-attempts, :bucket-attempt-seq, :bucket-votes
 *                                 the same four hashes for the bucket jobs, keyed by bucket id
 *   <prefix>:sync:<id>:activity   a counter every worker write of the hashes above bumps in the same
 *                                 step (with the record's `version`, what GET /v1/syncs/:id shows
 *                                 depends on: the coordinator answers from a kept view while both hold)
 *
 * Layouts (`SyncLayout`): `direct` shard jobs write the table's data files themselves; `bucketed`
 * shard jobs write sorted runs per (partition, bucket) under `.tributary/syncs/<id>/runs/`, and one
 * `merge-bucket` job per (partition, bucket) merges its runs into the bucket's data files.
 */
import { z } from 'zod';
import { VOTE_TOKEN_TEXT } from './vote-token.ts';
import { BadRowPolicy } from './schemas/common.ts';

export const SYNC_QUEUES = { writeShard: 'write-shard', mergeBucket: 'merge-bucket', commit: 'commit' } as const;

/** How a sync writes: shards straight into the table, or sorted runs merged by one job per bucket. */
export const SyncLayout = z.enum(['bucketed', 'direct']);
export type SyncLayout = z.infer<typeof SyncLayout>;

export function syncRedisKeys(prefix: string, syncId: string) {
  const record = `${prefix}:sync:${syncId}`;
  return {
    record,
    accepted: `${record}:accepted`,
    attempts: `${record}:attempts`,
    attemptSeq: `${record}:attempt-seq`,
    votes: `${record}:votes`,
    plan: `${record}:plan`,
    bucketAccepted: `${record}:bucket-accepted`,
    bucketAttempts: `${record}:bucket-attempts`,
    bucketAttemptSeq: `${record}:bucket-attempt-seq`,
    bucketVotes: `${record}:bucket-votes`,
    activity: `${record}:activity`,
  } as const;
}

/** Fields of the `:plan` hash. */
export const PLAN_HEAD_FIELD = 'head';
export function planShardField(shardId: string): string {
  return `shard:${shardId}`;
}

/** A field of the `:plan` hash (bucketed layout, coordinator only): the snapshot properties of the shards' source positions. */
export const PLAN_POSITIONS_FIELD = 'positions';

/** A field of the `:plan` hash: one bucket job's inputs (bucketed layout). */
export function planBucketField(bucketId: string): string {
  return `bucket:${bucketId}`;
}

/** `<syncId>/<shardId>/<attemptId>.blob` under `<warehouse>/.tributary/syncs/`. */
export function stagedBlobKey(syncId: string, shardId: string, attemptId: string): string {
  return `${syncStagingPrefix(syncId)}${shardId}/${attemptId}.blob`;
}

/**
 * A shard attempt's rejected rows (the `reject` bad-row policy), one JSON object per line, beside
 * its blob: written before the blob, so an accepted attempt's rejects file is complete.
 */
export function stagedRejectsKey(syncId: string, shardId: string, attemptId: string): string {
  return `${syncStagingPrefix(syncId)}${shardId}/${attemptId}.rejects.ndjson`;
}

/** `<syncId>/buckets/<bucketId>/<attemptId>.blob` under `<warehouse>/.tributary/syncs/`: a bucket job's blob. */
export function stagedBucketBlobKey(syncId: string, bucketId: string, attemptId: string): string {
  return `${syncStagingPrefix(syncId)}buckets/${bucketId}/${attemptId}.blob`;
}

/**
 * Where the shard jobs of a bucketed sync write their sorted runs, laid out like a table
 * (`<partition path>bucket-N/data-<writerId>-….parquet`), never inside the table.
 */
export function syncRunsPath(syncId: string): string {
  return `${syncStagingPrefix(syncId)}runs`;
}

/** The id of the bucket job at `index` of the bucket plan (plan order: partition bytes, then bucket). */
export function bucketJobId(index: number): string {
  return `bucket-${index}`;
}

/**
 * The writer id of one bucket job attempt: `<syncId>-<bucketId>-a<attempt>`, in every data file it
 * writes, so a sync's abort finds its files by the sync id as for shards.
 */
export function bucketWriterId(syncId: string, bucketId: string, attempt: number): string {
  return `${syncId}-${bucketId}-a${attempt}`;
}

/** Every object a sync stages outside its table lives under this prefix of the warehouse. */
export function syncStagingPrefix(syncId: string): string {
  return `.tributary/syncs/${syncId}/`;
}

/**
 * The writer id of one shard attempt. It goes into every data file name the attempt writes
 * (`data-<writerId>-<n>.parquet`), so two attempts never collide and their files can be found.
 */
export function attemptWriterId(syncId: string, shardId: string, attempt: number): string {
  return `${syncId}-${shardId}-a${attempt}`;
}

/**
 * A substring of the key of every data file written under a writer id that starts with
 * `writerPrefix`: a sync id finds every data file of the sync, an attempt's writer id its own.
 */
export function dataFileMarker(writerPrefix: string): string {
  return `/data-${writerPrefix}-`;
}

/** The changelog files a bucket job writes into a `changelog-producer = input` table: `changelog-<writer>-…`. */
export function changelogFileMarker(writerPrefix: string): string {
  return `/changelog-${writerPrefix}-`;
}

/** Ids go into object keys and Redis keys: keep them to a safe alphabet. */
export const SyncId = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_-]{0,79}$/);
export const ShardId = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/);

export const SyncTableRef = z.object({
  database: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]{0,127}$/),
  table: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]{0,127}$/),
});

/**
 * The data of one `write-shard` job: a pointer to work, never the work itself. The worker reads
 * the shard's source and spec, the table and the pinned snapshot from the persisted plan (`:plan`),
 * never from the job, and runs the job only if `token` is the shard's vote token (vote-token.ts).
 * Other fields (an older payload's `source`, or one added by hand) are dropped unread.
 */
export const SyncShardJob = z.object({
  syncId: SyncId,
  shardId: ShardId,
  /** The shard's vote token, unpadded base64url. */
  token: z.string().regex(VOTE_TOKEN_TEXT),
});
export type SyncShardJob = z.infer<typeof SyncShardJob>;

/**
 * Rows of a primary-key load whose `column` holds one of `values` are deletes of their key (a
 * `-D`; with `changelog-producer = input` its changelog row carries the full stored row). Values
 * are compared as text ('1' matches the INT 1, 'true' the BOOLEAN true).
 */
export const DeleteMarker = z.strictObject({
  column: z.string().min(1).max(128),
  values: z.array(z.union([z.string().max(256), z.number(), z.boolean()])).min(1).max(64),
});
export type DeleteMarker = z.infer<typeof DeleteMarker>;

/**
 * The load is the whole content of one partition (per partition key its text as in the partition's
 * directory name, e.g. `dt=19723` for a DATE under the default `partition.legacy-name = true`; null
 * the default partition; `{}` for an unpartitioned table): every key stored there and absent from
 * the load is deleted (a `-D` record, committed as APPEND).
 */
export const FullExtract = z.strictObject({
  partition: z.record(z.string().min(1).max(128), z.string().max(1024).nullable()),
});
export type FullExtract = z.infer<typeof FullExtract>;

/** What the workers of a load with deletes need of it (SyncPlanHead.deletes). */
export const SyncDeletes = z.strictObject({
  marker: DeleteMarker.optional(),
  fullExtract: FullExtract.optional(),
});
export type SyncDeletes = z.infer<typeof SyncDeletes>;

/**
 * Everything of a sync's plan its fingerprint covers (plan-binding.ts): what a worker reads in the
 * head of `:plan`, and what only the commit uses (mode, snapshot properties, commit identifier, the
 * schema file's hash), so a worker can recompute the fingerprint from the head it reads. The shards
 * are covered by their count and the digest of every shard's entry, in plan order.
 */
export const SyncPlanBasics = z.object({
  warehouse: z.string().min(1),
  table: SyncTableRef,
  schemaId: z.number().int().nonnegative(),
  /** The snapshot the sync pinned when it planned (null: the table was empty). */
  baseSnapshotId: z.number().int().nonnegative().nullable(),
  commitUser: z.string().min(1),
  commitIdentifier: z.string().min(1),
  /** The `schema-<schemaId>` file's SHA-256 when planned (absent in plans of earlier versions). */
  schemaSha256: z.string().regex(/^[0-9a-f]{64}$/).optional(),
  /** How the commit writes (an `overwrite` replaces the partitions it touches). */
  mode: z.enum(['append', 'upsert', 'overwrite']),
  snapshotProperties: z.record(z.string(), z.string()),
  /** The source as planned (kind and options); each shard's part of it is in `shard:<id>`. */
  source: z.record(z.string(), z.unknown()),
  /** What a worker does with a row that does not fit (SyncOptions.badRows). */
  badRows: BadRowPolicy,
  /** How shard jobs write (absent: `direct`). */
  layout: SyncLayout.optional(),
  /** The load's deletes (absent: none): a marker column the shards read, a full extract the bucket jobs apply. */
  deletes: SyncDeletes.optional(),
  /** How many shards the plan has, and shardsDigest over their entries (a worker cannot recompute it: it reads one entry). */
  shards: z.object({ count: z.number().int().nonnegative(), digest: z.string().regex(/^[0-9a-f]{64}$/) }),
});
export type SyncPlanBasics = z.infer<typeof SyncPlanBasics>;

/** What the coordinator persists of its plan for the workers (the `head` field of `:plan`): the basics and their fingerprint. */
export const SyncPlanHead = SyncPlanBasics.extend({
  /** syncPlanFingerprint of the basics: the vote tokens bind it, and a worker recomputes it from the head it reads. */
  fingerprint: z.string().regex(/^[0-9a-f]{64}$/),
});
export type SyncPlanHead = z.infer<typeof SyncPlanHead>;

/** A plan seal (plan-binding.ts planSeal): unpadded base64url of an HMAC-SHA256. */
const Seal = z.string().regex(VOTE_TOKEN_TEXT);

/** One shard in the workers' copy of the plan (the `shard:<id>` fields of `:plan`). */
export const PlannedShardEntry = z.object({
  /**
   * The shard's index in the plan's shard list, its sequence slot: its primary-key rows are
   * numbered in their own sequence range (TableWriteOptions.sequenceSlot), so a key in several
   * shards goes to the later shard in plan order.
   */
  slot: z.number().int().nonnegative(),
  /** The source's description of this shard. */
  spec: z.record(z.string(), z.unknown()),
  /** planSeal of the entry (its slot and spec) under the plan's fingerprint: a worker refuses an entry changed after planning. */
  seal: Seal,
});
export type PlannedShardEntry = z.infer<typeof PlannedShardEntry>;

/** A bucket job's input: one run file of one accepted shard attempt. */
export const BucketRun = z.object({
  /** The run file's name; it lies in the bucket's directory under the sync's runs path (syncRunsPath). */
  fileName: z.string().min(1),
  /** The run file's size in bytes (saves a HEAD) and rows. */
  size: z.number().int().nonnegative(),
  rows: z.number().int().nonnegative(),
  /** The shard's index in the plan: runs are merged in slot order (ties: the later shard wins). */
  slot: z.number().int().nonnegative(),
  /** The first sequence number of the run (append tables number the merged files from the smallest). */
  minSequence: z.string().regex(/^-?[0-9]+$/),
});
export type BucketRun = z.infer<typeof BucketRun>;

/** One (partition, bucket) of a bucketed sync (the `bucket:<id>` fields of `:plan`). */
export const PlannedBucketEntry = z.object({
  /** The partition's BinaryRow bytes, base64. */
  partition: z.string(),
  bucket: z.number().int().min(-1),
  /** The messages' totalBuckets (null where the writer left it unset). */
  totalBuckets: z.number().int().nullable(),
  /** The runs of the accepted shard attempts only, in slot order, then file order. */
  runs: z.array(BucketRun),
});
export type PlannedBucketEntry = z.infer<typeof PlannedBucketEntry>;

/** A `bucket:<id>` field as stored: the entry and its planSeal under the plan's fingerprint (the coordinator derives the entries from verified blobs and seals them). */
export const SealedBucketEntry = PlannedBucketEntry.extend({ seal: Seal });
export type SealedBucketEntry = z.infer<typeof SealedBucketEntry>;

/** The `positions` field as stored: the folded snapshot properties and their planSeal. */
export const SealedPositions = z.object({ properties: z.record(z.string(), z.string()), seal: Seal });
export type SealedPositions = z.infer<typeof SealedPositions>;

/** The data of one `merge-bucket` job: a pointer (sync, bucket) and the bucket's vote token. */
export const SyncBucketJob = z.object({
  syncId: SyncId,
  bucketId: z.string().regex(/^bucket-[0-9]{1,9}$/),
  token: z.string().regex(VOTE_TOKEN_TEXT),
});
export type SyncBucketJob = z.infer<typeof SyncBucketJob>;

/**
 * The accepted attempt's vote, written by the worker in the same step that accepts it: what its
 * blob was when it voted. The coordinator commits the blob only if it still is exactly that.
 */
export const ShardVote = z.object({
  attemptId: z.string().min(1),
  /** CRC32C and SHA-256 (hex) of the whole blob. */
  checksum: z.number().int().nonnegative(),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  /** The blob header's rowCount and byteCount. */
  rows: z.number().int().nonnegative(),
  bytes: z.number().int().nonnegative(),
  /** Rows the attempt rejected (the `reject` bad-row policy), in its rejects file. */
  rejected: z.number().int().nonnegative().optional(),
});
export type ShardVote = z.infer<typeof ShardVote>;

/** What a bucket job's accepted attempt voted (its blob's facts) and what it counted while merging. */
export const BucketVote = z.object({
  attemptId: z.string().min(1),
  checksum: z.number().int().nonnegative(),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  rows: z.number().int().nonnegative(),
  bytes: z.number().int().nonnegative(),
  /** Data files the bucket wrote. */
  files: z.number().int().nonnegative(),
  /** Keys present in runs of more than one shard (primary-key tables; the later shard won them). */
  collidingKeys: z.number().int().nonnegative(),
});
export type BucketVote = z.infer<typeof BucketVote>;

/** What a finished attempt returns (and records in `:attempts`). */
export const SyncShardResult = z.object({
  syncId: SyncId,
  shardId: ShardId,
  attemptId: z.string().min(1),
  blobKey: z.string().min(1),
  /** CRC32C of the whole blob. */
  checksum: z.number().int().nonnegative(),
  rows: z.number().int().nonnegative(),
  bytes: z.number().int().nonnegative(),
  /** Whether this attempt is the one the sync accepted for its shard. */
  accepted: z.boolean(),
  /** Rows rejected (the `reject` bad-row policy) and their file, when there were any. */
  rejected: z.number().int().nonnegative().optional(),
  rejectsKey: z.string().optional(),
  /**
   * true: this execution ran nothing, its job already had an accepted attempt (an earlier execution
   * whose lock lapsed won); the fields are that attempt's.
   */
  settled: z.boolean().optional(),
});
export type SyncShardResult = z.infer<typeof SyncShardResult>;

export const ErrorDataSchema = z.object({
  code: z.string(),
  message: z.string(),
  retryable: z.boolean(),
  context: z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()])),
});

/**
 * Where an attempt stands. `abandoned`: it was still `running` when a later attempt of its shard
 * started (its worker died or lost the job) or when its sync ended, so its result can no longer
 * count; an attempt that was only frozen and wakes up later overwrites it with its real outcome.
 */
export const ShardAttemptStatus = z
  .enum(['running', 'succeeded', 'failed', 'abandoned'])
  .describe('abandoned: still running when a later attempt of the shard started or the sync ended; its result cannot count');
export type ShardAttemptStatus = z.infer<typeof ShardAttemptStatus>;

/** One execution of a shard job, as the worker reports it. */
export const ShardAttempt = z.object({
  shardId: ShardId,
  attemptId: z.string(),
  status: ShardAttemptStatus,
  /** Whether this attempt's result was accepted (only for succeeded attempts). */
  accepted: z.boolean().optional(),
  startedAt: z.string(),
  finishedAt: z.string().optional(),
  /** When the worker last reported on this attempt (its progress while it runs, then its end). */
  updatedAt: z.string().optional(),
  /** Rows read and data-file bytes written: so far while running (reported a few times a second), the totals once it succeeded. */
  rows: z.number().int().nonnegative().optional(),
  bytes: z.number().int().nonnegative().optional(),
  blobKey: z.string().optional(),
  checksum: z.number().int().nonnegative().optional(),
  /** Rows rejected so far (the `reject` bad-row policy), and the rejects file once it is written. */
  rejected: z.number().int().nonnegative().optional(),
  rejectsKey: z.string().optional(),
  error: ErrorDataSchema.optional(),
});
export type ShardAttempt = z.infer<typeof ShardAttempt>;

/**
 * Lua: `abandon_running(key, fields)` marks the attempts still `running` in the attempts hash `key`
 * as `abandoned`, inside the calling script, so that a worker's own final report written at the same
 * moment is never overwritten; `fields` (`shardId/attemptId`) empty: every attempt of the sync.
 * Returns how many it marked. The JSON is the worker's `JSON.stringify` of a ShardAttempt, whose
 * first `"status":` is the attempt's own (the ids before it cannot hold that text). The sync store
 * embeds it in its compare-and-set, so a sync never ends with an attempt still shown running.
 */
export const ABANDON_RUNNING_LUA = `
local function abandon_running(key, fields)
  if #fields == 0 then fields = redis.call('HKEYS', key) end
  local marked = 0
  for _, field in ipairs(fields) do
    local json = redis.call('HGET', key, field)
    if json and string.find(json, '"status":"running"', 1, true) then
      redis.call('HSET', key, field, (string.gsub(json, '"status":"running"', '"status":"abandoned"', 1)))
      marked = marked + 1
    end
  end
  return marked
end
`;

/** The parent job of a sync's flow: it commits or aborts once every shard job has finished. */
export const SyncCommitJob = z.object({ syncId: SyncId, keyPrefix: z.string().min(1) });
export type SyncCommitJob = z.infer<typeof SyncCommitJob>;
