/**
 * The `compact-bucket` processor: one execution of one job of a compaction (one partition and
 * bucket), under the same protocol as a sync's bucket job.
 *
 *   the job's entry from the compaction's persisted plan, its vote token checked, the plan's
 *   fingerprint recomputed over the head and the entry's digest
 *   → number the attempt → the input files' metadata from the inputs object the coordinator staged,
 *     checked against the entry's SHA-256 (no manifest is read: the planner already scanned them)
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
import {
  CompactionJob,
  CompactionJobId,
  CompactionPlanHead,
  PLAN_HEAD_FIELD,
  PlannedCompactionEntry,
  compactionEntryDigest,
  compactionPlanFingerprint,
  compactionRedisKeys,
  compactionVoteToken,
  compactionWriterId,
  decodeVoteToken,
  errorFrom,
  isTributaryError,
  planJobField,
  stagedCompactionBlobKey,
  stagedCompactionInputsKey,
  tokensEqual,
  type ShardAttempt,
} from '@tributary/protocol';
import { compactBucket, decodeCompactionInputs, type CommitMessage, type DataFileMeta } from '@tributary/table';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { AttemptLedger } from './attempt-ledger.ts';
import { stagedBlob } from './staged-blob.ts';
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
  // The token binds the fingerprint; the fingerprint binds the head's basics and every entry's digest.
  const altered = (what: string) => errorFrom(workerErrors, 'COMPACTION_PLAN_ALTERED', `${what} of compaction ${compactionId} does not match the plan its vote token binds (${jobId})`, { compactionId, job: jobId });
  const { entryDigests, fingerprint, ...basics } = head;
  if (compactionPlanFingerprint(basics, entryDigests) !== fingerprint || entryDigests.length !== head.jobs || basics.compactionId !== compactionId) throw altered('the plan head');
  const entry = PlannedCompactionEntry.parse(JSON.parse(entryJson));
  if (compactionEntryDigest(entry) !== entryDigests[jobIndex(jobId)]) throw altered('the plan entry');
  return { syncId: compactionId, shardId: jobId, head, entry, voteToken: expected };
}

function jobIndex(jobId: string): number {
  return Number(CompactionJobId.parse(jobId).slice('job-'.length));
}

/**
 * The metadata of the job's input files, as the base snapshot's manifests hold it, from the object
 * the coordinator staged when it planned: checked against the entry's SHA-256 (bound by the vote
 * token), and every file of the entry's partition and bucket.
 * @throws COMPACTION_PLAN_ALTERED, COMPACTION_INPUT_GONE (the object is missing)
 */
async function plannedInputs(deps: CompactBucketDeps, data: PlannedJob, partition: Uint8Array): Promise<DataFileMeta[]> {
  const { head, entry } = data;
  const context = { compactionId: data.syncId, job: data.shardId };
  const key = stagedCompactionInputsKey(data.syncId, data.shardId);
  const bytes = await deps.tables
    .warehouseStore(head.warehouse)
    .get(key)
    .catch((error: unknown) => {
      if (isTributaryError(error) && error.code === 'OBJECT_NOT_FOUND') {
        throw errorFrom(workerErrors, 'COMPACTION_INPUT_GONE', `the input files' metadata of ${data.shardId} of compaction ${data.syncId} is not staged (deleted after the compaction ended?)`, context);
      }
      throw error;
    });
  if (createHash('sha256').update(bytes).digest('hex') !== entry.inputsSha256) {
    throw errorFrom(workerErrors, 'COMPACTION_PLAN_ALTERED', `the staged inputs of ${data.shardId} of compaction ${data.syncId} do not match its plan entry`, context);
  }
  const entries = decodeCompactionInputs(bytes);
  const partitionHex = Buffer.from(partition).toString('hex');
  if (entries.length !== entry.files || entries.some((e) => e.kind !== 'ADD' || e.bucket !== entry.bucket || Buffer.from(e.partition).toString('hex') !== partitionHex)) {
    throw errorFrom(workerErrors, 'COMPACTION_PLAN_ALTERED', `the staged inputs of ${data.shardId} of compaction ${data.syncId} are not its bucket's`, context);
  }
  return entries.map((e) => e.file);
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
    const files = await plannedInputs(deps, data, partition);
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
  const staged = stagedBlob(data, attempt, tablePath, [message], message.compactIncrement.compactAfter);
  const blobKey = stagedCompactionBlobKey(data.syncId, data.shardId, String(attempt));
  await deps.tables.warehouseStore(data.head.warehouse).put(blobKey, staged.blob);
  const { checksum, rows, bytes, files } = staged;
  const outcome = await ledger.accept(data.shardId, attempt, { attemptId: String(attempt), checksum, sha256: staged.sha256, rows, bytes, files });
  if (outcome === 'sync-closed') {
    throw errorFrom(workerErrors, 'SYNC_NOT_ACCEPTING', `compaction ${data.syncId} no longer accepts results`, { syncId: data.syncId, shard: data.shardId, attempt });
  }
  return { compactionId: data.syncId, jobId: data.shardId, attemptId: String(attempt), blobKey, checksum, rows, bytes, files, accepted: outcome === 'accepted' };
}
