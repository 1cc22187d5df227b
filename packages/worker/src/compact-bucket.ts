/**
 * The `compact-bucket` processor: one execution of one job of a compaction (one partition and
 * bucket), under the same protocol as a sync's bucket job.
 *
 *   the job's entry from the compaction's persisted plan, its vote token checked
 *   → number the attempt → the input files' metadata read from the plan's base snapshot
 *   → compactBucket (@tributary/table): the bucket merge, files of the output level
 *   → ONE blob at .tributary/compactions/<id>/<job>/<attempt>.blob (compactBefore, compactAfter), carrying the token
 *   → accept (first finished attempt per job, only while the compaction is RUNNING), recording the vote
 *
 * The attempt re-reads the compaction's phase on a timer and stops once it left RUNNING. A killed
 * attempt's files are never referenced: its re-run writes files under its own attempt number and
 * only the accepted blob is committed; the orphan cleanup removes the rest.
 */
import type { Job } from 'bullmq';
import { UnrecoverableError } from 'bullmq';
import { setTimeout as sleep } from 'node:timers/promises';
import { createHash } from 'node:crypto';
import { crc32c } from '@node-rs/crc32';
import {
  CompactionJob,
  CompactionPlanHead,
  PAIMON_COMMIT_MESSAGE_VERSION,
  PLAN_HEAD_FIELD,
  PlannedCompactionEntry,
  compactionRedisKeys,
  compactionVoteToken,
  compactionWriterId,
  decodeVoteToken,
  encodeBlob,
  errorFrom,
  planJobField,
  stagedCompactionBlobKey,
  tokensEqual,
  type ShardAttempt,
} from '@tributary/protocol';
import { TRIBUTARY_VERSION, compactBucket, liveBucketFiles, type CommitMessage, type DataFileMeta } from '@tributary/table';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { AttemptLedger } from './attempt-ledger.ts';
import { jobSetUp, runLedgeredAttempt } from './attempt-run.ts';
import { workerErrors } from './errors.ts';
import type { WorkerTables } from './shard-write.ts';
import { assertAccepting, watchPhase } from './write-shard.ts';

export interface CompactBucketDeps {
  readonly redis: Redis;
  readonly prefix: string;
  readonly clusterSecret: Uint8Array;
  readonly tables: WorkerTables;
  readonly phaseCheckMs?: number;
  readonly progressMs?: number;
  readonly logger?: Logger;
  /** Test hook: a pause after each rewritten batch, so a test can kill a worker in the middle of a job. */
  readonly mergeDelayMsPerBatch?: number;
}

export interface CompactBucketResult {
  readonly compactionId: string;
  readonly jobId: string;
  readonly attemptId: string;
  readonly blobKey: string;
  readonly checksum: number;
  readonly rows: number;
  readonly bytes: number;
  readonly files: number;
  readonly accepted: boolean;
}

interface PlannedJob {
  /** The compaction's id and the job's, named as the ledger's phase checks take them. */
  readonly syncId: string;
  readonly shardId: string;
  readonly head: CompactionPlanHead;
  readonly entry: PlannedCompactionEntry;
  readonly voteToken: Uint8Array;
}

const PHASE_CHECK_MS = 500;
const PROGRESS_MS = 250;

export function compactBucketProcessor(deps: CompactBucketDeps): (job: Job, token?: string, signal?: AbortSignal) => Promise<CompactBucketResult> {
  return async (job, token, signal) => {
    const parsed = CompactionJob.safeParse(job.data);
    if (!parsed.success) throw new UnrecoverableError(`COMPACTION_JOB_INVALID: ${parsed.error.message}`);
    const data = await jobSetUp(() => plannedJob(deps, parsed.data));
    const ledger = new AttemptLedger(deps.redis, deps.prefix, data.syncId, 'compactions');
    return runLedgeredAttempt({
      ledger,
      id: data.shardId,
      job,
      token,
      log: deps.logger?.child({ compactionId: data.syncId, compactionJobId: data.shardId, jobId: job.id }),
      what: 'compaction',
      run: (attempt, report) => runAttempt(deps, ledger, data, attempt, report, signal),
      recorded: (r) => ({ rows: r.rows, bytes: r.bytes, blobKey: r.blobKey, checksum: r.checksum, accepted: r.accepted }),
      logged: (r) => ({ rows: r.rows, bytes: r.bytes, files: r.files, accepted: r.accepted }),
      settled: (v) => ({
        compactionId: data.syncId,
        jobId: data.shardId,
        attemptId: v.attemptId,
        blobKey: stagedCompactionBlobKey(data.syncId, data.shardId, v.attemptId),
        checksum: v.checksum,
        rows: v.rows,
        bytes: v.bytes,
        files: v.files ?? 0,
        accepted: true,
      }),
    });
  };
}

async function plannedJob(deps: CompactBucketDeps, job: CompactionJob): Promise<PlannedJob> {
  const { compactionId, jobId } = job;
  const [headJson, entryJson] = await deps.redis.hmget(compactionRedisKeys(deps.prefix, compactionId).plan, PLAN_HEAD_FIELD, planJobField(jobId));
  if (headJson === null || headJson === undefined || entryJson === null || entryJson === undefined) {
    throw errorFrom(workerErrors, 'COMPACTION_NOT_PLANNED', `${jobId} is not in a persisted plan of compaction ${compactionId}`, { compactionId, job: jobId });
  }
  const head = CompactionPlanHead.parse(JSON.parse(headJson));
  const expected = compactionVoteToken(deps.clusterSecret, compactionId, jobId, head.fingerprint);
  if (!tokensEqual(decodeVoteToken(job.token), expected)) {
    throw errorFrom(workerErrors, 'COMPACTION_TOKEN_INVALID', `the job for ${jobId} of compaction ${compactionId} does not carry its vote token`, { compactionId, job: jobId });
  }
  return { syncId: compactionId, shardId: jobId, head, entry: PlannedCompactionEntry.parse(JSON.parse(entryJson)), voteToken: expected };
}

async function runAttempt(
  deps: CompactBucketDeps,
  ledger: AttemptLedger,
  data: PlannedJob,
  attempt: number,
  report: ShardAttempt,
  cancelled: AbortSignal | undefined,
): Promise<CompactBucketResult> {
  await assertAccepting(ledger, data);
  const watch = watchPhase(ledger, data, deps.phaseCheckMs ?? PHASE_CHECK_MS, cancelled);
  const { head, entry } = data;
  const delay = deps.mergeDelayMsPerBatch ?? 0;
  let lastReport = 0;
  try {
    const table = await deps.tables.openTable(head.warehouse, head.table, head.schemaId);
    const partition = new Uint8Array(Buffer.from(entry.partition, 'base64'));
    const live = await liveBucketFiles(table, head.baseSnapshotId, partition, entry.bucket);
    const files = entry.files.map((name): DataFileMeta => {
      const found = live.get(name);
      if (found === undefined) {
        throw errorFrom(workerErrors, 'COMPACTION_INPUT_GONE', `file ${name} of bucket ${entry.bucket} is not live in snapshot ${head.baseSnapshotId}`, {
          compactionId: data.syncId,
          job: data.shardId,
        });
      }
      return found.file;
    });
    const done = await compactBucket({
      store: table.store,
      tablePath: table.path,
      schema: table.schema,
      partition,
      bucket: entry.bucket,
      totalBuckets: entry.totalBuckets,
      unit: { files, outputLevel: entry.outputLevel, dropDelete: entry.dropDelete },
      writerId: compactionWriterId(data.syncId, data.shardId, attempt),
      onRows: async (rows) => {
        watch.signal.throwIfAborted();
        const now = Date.now();
        if (now - lastReport >= (deps.progressMs ?? PROGRESS_MS)) {
          lastReport = now;
          await ledger.progress({ ...report, rows, updatedAt: new Date(now).toISOString() });
        }
        if (delay > 0) await sleep(delay, undefined, { signal: watch.signal });
      },
      ...(delay > 0 ? { batchRows: 100 } : {}),
    });
    watch.signal.throwIfAborted();
    return await stageBlob(deps, ledger, data, attempt, table.path, done.message);
  } catch (error) {
    throw watch.signal.aborted ? watch.signal.reason : error;
  } finally {
    watch.stop();
  }
}

async function stageBlob(deps: CompactBucketDeps, ledger: AttemptLedger, data: PlannedJob, attempt: number, tablePath: string, message: CommitMessage): Promise<CompactBucketResult> {
  const files = message.compactIncrement.compactAfter;
  const bytes = files.reduce((n, f) => n + f.fileSize, 0n);
  const header = {
    syncId: data.syncId,
    shardId: data.shardId,
    attempt,
    tablePath,
    schemaId: BigInt(data.head.schemaId),
    paimonFormatVersion: PAIMON_COMMIT_MESSAGE_VERSION,
    tributaryVersion: TRIBUTARY_VERSION,
    creationTimeMillis: BigInt(Date.now()),
    rowCount: files.reduce((n, f) => n + f.rowCount, 0n),
    byteCount: bytes,
    fileCount: BigInt(files.length),
    voteToken: data.voteToken,
  };
  const blob = encodeBlob(header, [message]);
  const blobKey = stagedCompactionBlobKey(data.syncId, data.shardId, String(attempt));
  await deps.tables.warehouseStore(data.head.warehouse).put(blobKey, blob);
  const checksum = crc32c(blob);
  const rows = Number(header.rowCount);
  const outcome = await ledger.accept(data.shardId, attempt, {
    attemptId: String(attempt),
    checksum,
    sha256: createHash('sha256').update(blob).digest('hex'),
    rows,
    bytes: Number(bytes),
    files: files.length,
  });
  if (outcome === 'sync-closed') {
    throw errorFrom(workerErrors, 'SYNC_NOT_ACCEPTING', `compaction ${data.syncId} no longer accepts results`, { syncId: data.syncId, shard: data.shardId, attempt });
  }
  return { compactionId: data.syncId, jobId: data.shardId, attemptId: String(attempt), blobKey, checksum, rows, bytes: Number(bytes), files: files.length, accepted: outcome === 'accepted' };
}
