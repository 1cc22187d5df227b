/**
 * The staged side of a sync: loading and verifying the accepted blobs, and removing everything a
 * sync staged when it aborts before its commit started.
 *
 * Verification is strict (architecture invariant 5): each blob must decode (magic, versions,
 * framing, CRC32C) and carry exactly the planned sync, shard, table path, schema id, the
 * accepted attempt number and the shard's vote token. A blob copied from another sync or shard,
 * or from a losing attempt, is refused with a typed BLOB_* error naming the field; a blob not
 * written for a job the coordinator planned, with BLOB_VOTE_TOKEN_INVALID. And the blob must be
 * exactly what its worker voted (CRC32C, SHA-256, row and byte totals recorded with the accept):
 * a blob rewritten after the vote, however well resealed, is refused with SYNC_VOTE_MISMATCH.
 */
import { createHash } from 'node:crypto';
import { crc32c } from '@node-rs/crc32';
import { bucketJobId, changelogFileMarker, dataFileMarker, decodeBlob, errorFrom, stagedBlobKey, syncRunsPath, syncStagingPrefix, type ShardReadPosition, type ShardVote } from '@tributary/protocol';
import { redactSource } from '@tributary/sources';
import { mapInOrder, type CommitMessage, type ObjectStore, type WriterKeyRanges } from '@tributary/table';
import { coordinatorErrors } from '../errors.ts';
import type { AcceptedAttempt, SyncRecord } from './state.ts';

/** What a blob must agree with besides the plan: the shard's vote token and its accepted vote. */
export interface ShardTrust {
  /** The token the coordinator gave the shard's job (derived, never stored). */
  voteToken(shardId: string): Uint8Array;
  /** The accepted attempt's vote, as its worker recorded it. */
  vote(shardId: string): Promise<ShardVote | undefined>;
  /** Where the job's blob is (default: a shard's, stagedBlobKey); a bucket job's is stagedBucketBlobKey. */
  blobKey?(id: string, attemptId: string): string;
}

export interface LoadedShards {
  readonly accepted: Record<string, AcceptedAttempt>;
  readonly messages: CommitMessage[];
  /** The same messages per shard, in plan order. */
  readonly shards: CommitMessage[][];
  /** Each shard's source position as its blob carries it, in plan order (undefined: none). */
  readonly positions: { readonly id: string; readonly readPosition: ShardReadPosition | undefined }[];
  /** Each shard's key ranges where they were decoded with its blob (VerifiedShard.keyRanges), in plan order. */
  readonly keyRanges: (WriterKeyRanges | undefined)[];
}

/** Loads one blob per planned shard, the attempt `attempts[shardId]`, verified against the plan. */
export async function loadAcceptedBlobs(
  store: ObjectStore,
  record: SyncRecord,
  tablePath: string,
  attempts: Readonly<Record<string, string>>,
  trust: ShardTrust,
  verified?: ReadonlyMap<string, VerifiedShard>,
): Promise<LoadedShards> {
  const { accepted, shards: loaded } = await loadAccepted(store, record, tablePath, attempts, trust, (one) => one, verified);
  const shards = loaded.map((one) => one.messages);
  return {
    accepted,
    messages: shards.flat(),
    shards,
    positions: record.plan.shards.map((s, i) => ({ id: s.id, readPosition: loaded[i]?.readPosition })),
    keyRanges: loaded.map((one) => one.keyRanges),
  };
}

/**
 * What the bucket stage needs of a verified shard blob (bucketed layout): its accepted attempt, its
 * source position and, per (partition, bucket), the runs it wrote. Nothing else of its messages
 * (the runs' statistics, keys, schema): the bucket plan and the folded positions are made from
 * these, so a sync of 10,000 shards never holds 10,000 shards' decoded messages at once.
 */
export interface ShardRunsSummary {
  readonly attempt: AcceptedAttempt;
  readonly readPosition: ShardReadPosition | undefined;
  /** The blob header's fileCount. */
  readonly files: number;
  readonly buckets: readonly ShardBucketRuns[];
}

/** The runs one shard wrote into one (partition, bucket), in the order its messages list them. */
export interface ShardBucketRuns {
  /** The partition's BinaryRow bytes. */
  readonly partition: Uint8Array;
  readonly bucket: number;
  readonly totalBuckets: number | null;
  readonly runs: readonly { readonly fileName: string; readonly size: number; readonly rows: number; readonly minSequence: string }[];
}

/** A verified shard reduced to its runs (pure): each message's new files, nothing more. */
export function summariseRuns(shard: VerifiedShard): ShardRunsSummary {
  const buckets = shard.messages.map(
    (m): ShardBucketRuns => ({
      // A copy: a view would keep the whole decoded blob's buffer alive.
      partition: Uint8Array.from(m.partition),
      bucket: m.bucket,
      totalBuckets: m.totalBuckets,
      runs: m.dataIncrement.newFiles.map((f) => ({ fileName: f.fileName, size: Number(f.fileSize), rows: Number(f.rowCount), minSequence: String(f.minSequenceNumber) })),
    }),
  );
  return { attempt: shard.attempt, readPosition: shard.readPosition, files: shard.files, buckets };
}

/**
 * Like loadAcceptedBlobs, but keeps only each shard's runs summary: every blob is read and verified
 * in full (checksum, versions, plan fields, vote token, vote), then its decoded messages dropped.
 * `verified` are summaries made the same way earlier (the prefetch), used when of the same attempt.
 */
export async function loadAcceptedRuns(
  store: ObjectStore,
  record: SyncRecord,
  tablePath: string,
  attempts: Readonly<Record<string, string>>,
  trust: ShardTrust,
  verified?: ReadonlyMap<string, ShardRunsSummary>,
): Promise<{ accepted: Record<string, AcceptedAttempt>; shards: ShardRunsSummary[]; positions: LoadedShards['positions'] }> {
  const { accepted, shards } = await loadAccepted(store, record, tablePath, attempts, trust, summariseRuns, verified);
  return { accepted, shards, positions: record.plan.shards.map((s, i) => ({ id: s.id, readPosition: shards[i]?.readPosition })) };
}

/** One verified blob per planned shard, in plan order, each kept as `keep` makes it. */
async function loadAccepted<T extends { readonly attempt: AcceptedAttempt; readonly files: number }>(
  store: ObjectStore,
  record: SyncRecord,
  tablePath: string,
  attempts: Readonly<Record<string, string>>,
  trust: ShardTrust,
  keep: (shard: VerifiedShard) => T,
  verified: ReadonlyMap<string, T> | undefined,
): Promise<{ accepted: Record<string, AcceptedAttempt>; shards: T[] }> {
  const accepted: Record<string, AcceptedAttempt> = {};
  const shards = await mapInOrder(record.plan.shards, BLOB_READS_IN_FLIGHT, async (shard) => {
    const attemptId = attempts[shard.id];
    if (attemptId === undefined) throw new Error(`shard ${shard.id} has no accepted attempt`);
    const known = verified?.get(shard.id);
    const one = known?.attempt.attemptId === attemptId ? known : keep(await loadShardBlob(store, record, tablePath, shard.id, attemptId, trust));
    accepted[shard.id] = { ...one.attempt, files: one.files };
    return one;
  });
  return { accepted, shards };
}

/** One shard attempt's blob, verified against the plan. */
export interface VerifiedShard {
  readonly attempt: AcceptedAttempt;
  readonly messages: CommitMessage[];
  /** Where the shard's read stood in its source (covered by the vote: it is in the blob). */
  readonly readPosition: ShardReadPosition | undefined;
  /** The blob header's fileCount. */
  readonly files: number;
  /**
   * The key ranges of `messages`, decoded as the blob was prefetched (Table.writerKeyRanges), so
   * the commit's colliding-key count only sorts and merges. They travel in this object with the
   * messages they were decoded from; the count checks that they are.
   */
  readonly keyRanges?: WriterKeyRanges | undefined;
}

export async function loadShardBlob(
  store: ObjectStore,
  // What of a sync record the check reads (a compaction passes its id and schema the same way).
  record: Pick<SyncRecord, 'id'> & { readonly plan: Pick<SyncRecord['plan'], 'schemaId'> },
  tablePath: string,
  shardId: string,
  attemptId: string,
  trust: ShardTrust,
): Promise<VerifiedShard> {
  const blobKey = trust.blobKey?.(shardId, attemptId) ?? stagedBlobKey(record.id, shardId, attemptId);
  const bytes = await store.get(blobKey);
  const blob = decodeBlob(bytes, {
    syncId: record.id,
    shardId,
    tablePath,
    schemaId: BigInt(record.plan.schemaId),
    attempt: Number(attemptId),
    voteToken: trust.voteToken(shardId),
  });
  const attempt = { attemptId, blobKey, checksum: crc32c(bytes), rows: Number(blob.header.rowCount), bytes: Number(blob.header.byteCount) };
  const vote = await trust.vote(shardId);
  checkVote(vote, shardId, attempt, bytes);
  return { attempt: vote?.rejected ? { ...attempt, rejected: vote.rejected } : attempt, messages: blob.messages, readPosition: blob.header.readPosition, files: Number(blob.header.fileCount) };
}

/**
 * Loads the accepted blob of every planned bucket job (`bucket-0` … `bucket-<n-1>`), verified like
 * a shard's: the sync, the bucket id, the table's path, the schema, the attempt, the bucket's vote
 * token and its recorded vote.
 */
export async function loadBucketBlobs(
  store: ObjectStore,
  record: SyncRecord,
  tablePath: string,
  buckets: number,
  attempts: Readonly<Record<string, string>>,
  trust: ShardTrust,
): Promise<{ accepted: Record<string, AcceptedAttempt>; messages: CommitMessage[] }> {
  const accepted: Record<string, AcceptedAttempt> = {};
  const ids = Array.from({ length: buckets }, (_, i) => bucketJobId(i));
  const loaded = await mapInOrder(ids, BLOB_READS_IN_FLIGHT, async (id) => {
    const attemptId = attempts[id];
    if (attemptId === undefined) throw new Error(`${id} has no accepted attempt`);
    const one = await loadShardBlob(store, record, tablePath, id, attemptId, trust);
    accepted[id] = { ...one.attempt, files: one.files };
    return one.messages;
  });
  return { accepted, messages: loaded.flat() };
}


/** SYNC_VOTE_MISMATCH unless the blob read is the one its accepted attempt voted for. */
function checkVote(vote: ShardVote | undefined, shard: string, read: AcceptedAttempt, bytes: Uint8Array): void {
  const context = { shard, attempt: read.attemptId };
  if (vote === undefined || vote.attemptId !== read.attemptId) {
    throw errorFrom(coordinatorErrors, 'SYNC_VOTE_MISMATCH', `shard ${shard}: no vote recorded for its accepted attempt ${read.attemptId}`, { ...context, field: 'vote' });
  }
  const pairs: [string, number | string, number | string][] = [
    ['checksum', vote.checksum, read.checksum],
    ['rows', vote.rows, read.rows],
    ['bytes', vote.bytes, read.bytes],
    ['sha256', vote.sha256, createHash('sha256').update(bytes).digest('hex')],
  ];
  for (const [field, voted, actual] of pairs) {
    if (voted !== actual) {
      throw errorFrom(coordinatorErrors, 'SYNC_VOTE_MISMATCH', `shard ${shard}: the blob's ${field} is ${actual}, its worker voted ${voted}; it changed after the vote`, {
        ...context,
        field,
        voted,
        actual,
      });
    }
  }
}

/** Blobs are small; reading them one by one would make the commit of 1,000 shards wait on 1,000 round trips. */
const BLOB_READS_IN_FLIGHT = 32;

/**
 * Deletes every object the sync staged: its blobs (under .tributary/syncs/<id>/) and every data
 * file inside the table whose name carries the sync id (workers name them
 * `data-<syncId>-<shard>-a<attempt>-…`, so a half-written attempt that never produced a blob is
 * found too). Only for a sync whose commit never started: nothing of it can be referenced. The
 * sync's outcome.json stays: this runs again after the sync ended, for files of late attempts.
 */
export async function deleteStaged(store: ObjectStore, syncId: string, tablePath: string): Promise<number> {
  const keys: string[] = [];
  const outcome = outcomeKey(syncId);
  for await (const object of store.list(syncStagingPrefix(syncId))) if (object.key !== outcome) keys.push(object.key);
  const markers = [dataFileMarker(syncId), changelogFileMarker(syncId)];
  for await (const object of store.list(`${tablePath}/`)) {
    if (markers.some((m) => object.key.includes(m))) keys.push(object.key);
  }
  await store.deleteMany(keys);
  return keys.length;
}

/**
 * Deletes a committed bucketed sync's sorted runs: the table never references them (the bucket
 * jobs' files replaced them), so they go whatever the commit's outcome was.
 */
export async function deleteRuns(store: ObjectStore, syncId: string): Promise<number> {
  const keys: string[] = [];
  for await (const object of store.list(`${syncRunsPath(syncId)}/`)) keys.push(object.key);
  await store.deleteMany(keys);
  return keys.length;
}

/** Where a finished sync's summary lives: `.tributary/syncs/<syncId>/outcome.json`. */
function outcomeKey(syncId: string): string {
  return `${syncStagingPrefix(syncId)}outcome.json`;
}

/** The final record (plan, state with snapshot id or reason, timings) as JSON, for operators and audits; no inline password. */
export async function writeOutcome(store: ObjectStore, record: SyncRecord): Promise<void> {
  const shown = { ...record, plan: { ...record.plan, source: redactSource(record.plan.source) } };
  await store.put(outcomeKey(record.id), new TextEncoder().encode(`${JSON.stringify(shown, null, 2)}\n`));
}
