/**
 * The `merge-bucket` processor (bucketed layout): one execution of one bucket job of a sync in
 * MERGING. The bucket's runs were written by the shards' accepted attempts; the bucket plan lists
 * exactly those runs (the coordinator wrote it once every shard was accepted, and no shard is
 * accepted after that), so a late or retried shard attempt is never read here.
 *
 *   the bucket from the persisted bucket plan, the job's vote token checked (bucket-plan.ts)
 *   → number the attempt → mergeBucketRuns (@tributary/table): k-way merge of the runs
 *   → a full extract (SyncDeletes.fullExtract): -D for the stored keys the extract lacks
 *   → the bucket's data files (writeMergedBucket), or with changelog-producer = input its data and
 *     changelog files against the pinned snapshot (writeBucketChangelog)
 *   → ONE blob at .tributary/syncs/<sync>/buckets/<bucket>/<attempt>.blob, carrying the token
 *   → accept (first finished attempt per bucket, only while MERGING), recording the vote
 *
 * As for shards: the attempt re-reads the sync's phase on a timer and stops once the sync left
 * MERGING (an abort); a fenced attempt of a sync aborted before its commit deletes what it wrote;
 * a worker shutting down puts the job back. A killed attempt's files are never referenced: its
 * re-run writes files under its own attempt number and only the accepted blob is committed.
 */
import type { Job } from 'bullmq';
import { UnrecoverableError } from 'bullmq';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  SyncBucketJob,
  bucketWriterId,
  changelogFileMarker,
  dataFileMarker,
  errorFrom,
  isTributaryError,
  stagedBucketBlobKey,
  syncRunsPath,
  type ShardAttempt,
  type SyncShardResult,
} from '@tributary/protocol';
import { fullExtractDeletes, mergeBucketRuns, writeBucketChangelog, writeMergedBucket, type BucketMergeInput, type CommitMessage, type ManifestCache } from '@tributary/table';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { AttemptLedger } from './attempt-ledger.ts';
import { stagedBlob } from './staged-blob.ts';
import { jobSetUp, runLedgeredAttempt } from './attempt-run.ts';
import { plannedBucket, type PlannedBucketTask } from './bucket-plan.ts';
import { workerErrors } from './errors.ts';
import type { WorkerTables } from './shard-write.ts';
import { assertAccepting, watchPhase } from './write-shard.ts';

export interface MergeBucketDeps {
  readonly redis: Redis;
  readonly prefix: string;
  readonly clusterSecret: Uint8Array;
  readonly tables: WorkerTables;
  /** The worker's decoded manifests, shared by its bucket jobs (a changelog job scans the pinned snapshot's); none: each job reads its own. */
  readonly manifestCache?: ManifestCache;
  readonly phaseCheckMs?: number;
  readonly progressMs?: number;
  readonly logger?: Logger;
  /** Test hook: a pause after each merged batch, so a test can kill a worker in the middle of a merge. */
  readonly mergeDelayMsPerBatch?: number;
  /** Test hook: at most this many runs merged at once (BucketMergeInput.fanIn). */
  readonly mergeFanIn?: number;
}

/** What a bucket attempt returns: a shard result's fields, with the bucket's id in `shardId`, and its counts. */
export type MergeBucketResult = SyncShardResult & { readonly files: number; readonly collidingKeys: number };

const PHASE_CHECK_MS = 500;
const PROGRESS_MS = 250;

export function mergeBucketProcessor(deps: MergeBucketDeps): (job: Job, token?: string, signal?: AbortSignal) => Promise<MergeBucketResult> {
  return async (job, token, signal) => {
    const parsed = SyncBucketJob.safeParse(job.data);
    if (!parsed.success) throw new UnrecoverableError(`BUCKET_JOB_INVALID: ${parsed.error.message}`);
    const data = await jobSetUp(() => plannedBucket(deps.redis, deps.prefix, deps.clusterSecret, parsed.data));
    const ledger = new AttemptLedger(deps.redis, deps.prefix, data.syncId, 'buckets');
    return runLedgeredAttempt({
      ledger,
      id: data.shardId,
      job,
      token,
      log: deps.logger?.child({ syncId: data.syncId, bucketId: data.shardId, jobId: job.id }),
      what: 'bucket',
      run: (attempt, report) => runAttempt(deps, ledger, data, attempt, report, signal),
      recorded: (r) => ({ rows: r.rows, bytes: r.bytes, blobKey: r.blobKey, checksum: r.checksum, accepted: r.accepted }),
      logged: (r) => ({ rows: r.rows, bytes: r.bytes, files: r.files, accepted: r.accepted }),
      settled: (v) => ({
        syncId: data.syncId,
        shardId: data.shardId,
        attemptId: v.attemptId,
        blobKey: stagedBucketBlobKey(data.syncId, data.shardId, v.attemptId),
        checksum: v.checksum,
        rows: v.rows,
        bytes: v.bytes,
        accepted: true,
        files: v.files ?? 0,
        collidingKeys: v.collidingKeys ?? 0,
      }),
    });
  };
}

async function runAttempt(
  deps: MergeBucketDeps,
  ledger: AttemptLedger,
  data: PlannedBucketTask,
  attempt: number,
  report: ShardAttempt,
  cancelled: AbortSignal | undefined,
): Promise<MergeBucketResult> {
  await assertAccepting(ledger, data);
  const watch = watchPhase(ledger, data, deps.phaseCheckMs ?? PHASE_CHECK_MS, cancelled);
  const { head, entry } = data;
  const writerId = bucketWriterId(data.syncId, data.shardId, attempt);
  let tablePath: string | undefined;
  let rows = 0;
  let lastReport = 0;
  const delay = deps.mergeDelayMsPerBatch ?? 0;
  try {
    const table = await deps.tables.openTable(head.warehouse, head.table, head.schemaId);
    tablePath = table.path;
    const input: BucketMergeInput = {
      store: table.store,
      tablePath: table.path,
      schema: table.schema,
      partition: new Uint8Array(Buffer.from(entry.partition, 'base64')),
      bucket: entry.bucket,
      totalBuckets: entry.totalBuckets,
      runsPath: syncRunsPath(data.syncId),
      runs: entry.runs.map((r) => ({ fileName: r.fileName, size: r.size, rows: r.rows, slot: r.slot, minSequence: BigInt(r.minSequence) })),
      writerId,
      onRows: async (n) => {
        rows = n;
        watch.signal.throwIfAborted(); // an abort stops the merge between two batches
        const now = Date.now();
        if (now - lastReport >= (deps.progressMs ?? PROGRESS_MS)) {
          lastReport = now;
          await ledger.progress({ ...report, rows, updatedAt: new Date(now).toISOString() });
        }
        if (delay > 0) await sleep(delay, undefined, { signal: watch.signal });
      },
      ...(delay > 0 ? { batchRows: 100 } : {}),
      ...(deps.mergeFanIn === undefined ? {} : { fanIn: deps.mergeFanIn }),
    };
    // The merged records of the bucket, with a full extract's deletes of the keys it lacks.
    const records = head.deletes?.fullExtract === undefined ? mergeBucketRuns(input) : fullExtractDeletes(input, mergeBucketRuns(input), head.baseSnapshotId);
    const producer = (table.schema.options['changelog-producer'] ?? 'none').trim().toLowerCase();
    // changelog-producer = input: the records are the bucket's final changes; its data and changelog
    // files are computed against the sync's pinned snapshot (the commit refuses them if stale).
    const merged =
      producer === 'input'
        ? await writeBucketChangelog(input, records, await table.newChangelogWrite({ baseSnapshotId: head.baseSnapshotId, writerId, ...(deps.manifestCache === undefined ? {} : { manifestCache: deps.manifestCache }) }))
        : await writeMergedBucket(input, records);
    watch.signal.throwIfAborted();
    return await stageBlob(deps, ledger, data, attempt, table.path, merged.message === undefined ? [] : [merged.message], merged.collidingKeys);
  } catch (error) {
    const reason: unknown = watch.signal.aborted ? watch.signal.reason : error;
    if (tablePath !== undefined && isTributaryError(reason) && reason.code === 'SYNC_NOT_ACCEPTING') await discardAttempt(deps, ledger, data, attempt, tablePath);
    throw reason;
  } finally {
    watch.stop();
  }
}

async function stageBlob(
  deps: MergeBucketDeps,
  ledger: AttemptLedger,
  data: PlannedBucketTask,
  attempt: number,
  tablePath: string,
  messages: CommitMessage[],
  collidingKeys: number,
): Promise<MergeBucketResult> {
  const staged = stagedBlob(data, attempt, tablePath, messages, messages.flatMap((m) => m.dataIncrement.newFiles));
  const blobKey = stagedBucketBlobKey(data.syncId, data.shardId, String(attempt));
  await deps.tables.warehouseStore(data.head.warehouse).put(blobKey, staged.blob);
  const { checksum, rows, bytes, files } = staged;
  const outcome = await ledger.accept(data.shardId, attempt, { attemptId: String(attempt), checksum, sha256: staged.sha256, rows, bytes, files, collidingKeys });
  if (outcome === 'sync-closed') {
    throw errorFrom(workerErrors, 'SYNC_NOT_ACCEPTING', `sync ${data.syncId} no longer accepts bucket results`, { syncId: data.syncId, shard: data.shardId, attempt });
  }
  return { syncId: data.syncId, shardId: data.shardId, attemptId: String(attempt), blobKey, checksum, rows, bytes, accepted: outcome === 'accepted', files, collidingKeys };
}

/** A fenced attempt of a sync aborted before its commit: its blob and data files go (best effort). */
async function discardAttempt(deps: MergeBucketDeps, ledger: AttemptLedger, data: PlannedBucketTask, attempt: number, tablePath: string): Promise<void> {
  try {
    if (!(await ledger.discardable())) return;
    const store = deps.tables.warehouseStore(data.head.warehouse);
    const writer = bucketWriterId(data.syncId, data.shardId, attempt);
    const markers = [dataFileMarker(writer), changelogFileMarker(writer)];
    const keys = [stagedBucketBlobKey(data.syncId, data.shardId, String(attempt))];
    for await (const object of store.list(`${tablePath}/`)) if (markers.some((m) => object.key.includes(m))) keys.push(object.key);
    await store.deleteMany(keys);
  } catch {
    // Left for the coordinator's sweep.
  }
}
