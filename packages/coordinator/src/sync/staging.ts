/**
 * The staged side of a sync: loading and verifying the accepted blobs, and removing everything a
 * sync staged when it aborts before its commit started.
 *
 * Verification is strict (architecture invariant 5): each blob must decode (magic, versions,
 * framing, CRC32C) and carry exactly the planned sync, shard, table path, schema id and the
 * accepted attempt number. A blob copied from another sync or shard, or from a losing attempt,
 * is refused with a typed BLOB_* error naming the field.
 */
import { crc32c } from '@node-rs/crc32';
import { dataFileMarker, decodeBlob, redactSource, stagedBlobKey, syncStagingPrefix, type CommitMessage } from '@tributary/protocol';
import { mapInOrder, type ObjectStore } from '@tributary/table';
import type { AcceptedAttempt, SyncRecord } from './state.ts';

export interface LoadedShards {
  readonly accepted: Record<string, AcceptedAttempt>;
  readonly messages: CommitMessage[];
  /** The same messages per shard, in plan order. */
  readonly shards: CommitMessage[][];
}

/** Loads one blob per planned shard, the attempt `attempts[shardId]`, verified against the plan. */
export async function loadAcceptedBlobs(
  store: ObjectStore,
  record: SyncRecord,
  tablePath: string,
  attempts: Readonly<Record<string, string>>,
  verified?: ReadonlyMap<string, VerifiedShard>,
): Promise<LoadedShards> {
  const accepted: Record<string, AcceptedAttempt> = {};
  const loaded = await mapInOrder(record.plan.shards, BLOB_READS_IN_FLIGHT, async (shard) => {
    const attemptId = attempts[shard.id];
    if (attemptId === undefined) throw new Error(`shard ${shard.id} has no accepted attempt`);
    const known = verified?.get(shard.id);
    const one = known?.attempt.attemptId === attemptId ? known : await loadShardBlob(store, record, tablePath, shard.id, attemptId);
    accepted[shard.id] = one.attempt;
    return one.messages;
  });
  return { accepted, messages: loaded.flat(), shards: loaded };
}

/** One shard attempt's blob, verified against the plan. */
export interface VerifiedShard {
  readonly attempt: AcceptedAttempt;
  readonly messages: CommitMessage[];
}

export async function loadShardBlob(
  store: ObjectStore,
  record: SyncRecord,
  tablePath: string,
  shardId: string,
  attemptId: string,
): Promise<VerifiedShard> {
  const blobKey = stagedBlobKey(record.id, shardId, attemptId);
  const bytes = await store.get(blobKey);
  const blob = decodeBlob(bytes, {
    syncId: record.id,
    shardId,
    tablePath,
    schemaId: BigInt(record.plan.schemaId),
    attempt: Number(attemptId),
  });
  const attempt = { attemptId, blobKey, checksum: crc32c(bytes), rows: Number(blob.header.rowCount), bytes: Number(blob.header.byteCount) };
  return { attempt, messages: blob.messages };
}

/** Blobs are small; reading them one by one would make the commit of 1,000 shards wait on 1,000 round trips. */
const BLOB_READS_IN_FLIGHT = 16;

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
  const marker = dataFileMarker(syncId);
  for await (const object of store.list(`${tablePath}/`)) {
    if (object.key.includes(marker)) keys.push(object.key);
  }
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
