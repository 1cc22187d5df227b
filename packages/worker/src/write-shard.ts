/**
 * The `write-shard` processor: one execution of one shard of a sync (the PREPARE of two-phase
 * commit; the YES vote is the accepted blob).
 *
 *   the shard from the persisted plan, the job's vote token checked (shard-plan.ts)
 *   → number the attempt → stream source batches → convert → data files named for the attempt
 *   → prepareCommit → ONE blob at .tributary/syncs/<sync>/<shard>/<attempt>.blob, carrying the token
 *     and the read's source position (the last one the source's batches gave: a server's log
 *     position, or the files read with their sizes and ETags), so the vote covers it
 *   → accept, recording the vote (the blob's checksums and totals) in the same step
 *
 * A job that is not the coordinator's (no plan, a shard outside it, another token) fails at once,
 * before it numbers an attempt or touches the sync's records.
 *
 * Deterministic failures (a row that does not fit, a bad spec) throw BullMQ's UnrecoverableError:
 * retrying would fail the same way. Anything else (storage, network) is rethrown and retried with
 * the job's backoff. Every attempt, failed or not, is reported to the ledger with its typed error,
 * which is where the coordinator finds the reason for an abort.
 *
 * Liveness: while an attempt runs, a timer re-reads the sync's phase (independent of batches: a
 * shard blocked inside a source query still sees it). Once the sync left PREPARING the attempt is
 * cancelled: the source read (MySQL kills its query), the table write, and the wait for either;
 * it fails with SYNC_NOT_ACCEPTING. A fenced attempt of a sync that aborted before its commit
 * started then deletes its own blob and data files: the coordinator may have cleaned the sync up
 * already (it does not wait for ever for a worker that does not answer), and what this attempt
 * wrote since would otherwise stay.
 */
import type { Job } from 'bullmq';
import { UnrecoverableError } from 'bullmq';
import {
  SyncShardJob,
  attemptWriterId,
  dataFileMarker,
  errorFrom,
  isTributaryError,
  stagedBlobKey,
  stagedRejectsKey,
  syncRunsPath,
  type ShardAttempt,
  type ShardReadPosition,
  type SyncShardResult,
} from '@tributary/protocol';
import { batchConverter, columnConverter, noSourceAccess, openSource, rowConverter, type BatchConverter, type ColumnConverter, type S3Credentials, type SourceAccess, type SourceBatch } from '@tributary/sources';
import type { ColumnBatch, CommitMessage } from '@tributary/table';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { raceAbort, untilAborted } from './abortable.ts';
import { deleteMarkerKinds, type RowKinds } from './delete-marker.ts';
import { AttemptLedger } from './attempt-ledger.ts';
import { stagedBlob } from './staged-blob.ts';
import { jobSetUp, runLedgeredAttempt } from './attempt-run.ts';
import { workerErrors } from './errors.ts';
import { progressReporter } from './progress.ts';
import { plannedShard, type PlannedShardTask } from './shard-plan.ts';
import { openShardWrite, type ShardWrite, type WorkerTables } from './shard-write.ts';

export interface WriteShardDeps {
  readonly redis: Redis;
  /** The deployment's key prefix: where the sync records and plans are (never taken from a job). */
  readonly prefix: string;
  /** The cluster secret shared with the coordinator (vote tokens). */
  readonly clusterSecret: Uint8Array;
  readonly tables: WorkerTables;
  /** This worker's named connections and source roots (default: none, so only the generator reads). */
  readonly sources?: SourceAccess;
  /** How often a running attempt re-reads the sync's phase to stop after an abort. */
  readonly phaseCheckMs?: number;
  /** How often a running attempt reports its rows and bytes so far, when they changed (default 250 ms). */
  readonly progressMs?: number;
  /** One line per attempt start and end, with the sync id, shard id, attempt and duration. */
  readonly logger?: Logger;
  /** Bucketed layout: rows and estimated bytes a shard buffers before it spills its runs (its memory budget; defaults in shard-write.ts). */
  readonly runBufferRows?: number;
  readonly runBufferBytes?: number;
}

const PHASE_CHECK_MS = 500;
const PROGRESS_MS = 250;

/**
 * `signal`: BullMQ's cancellation of the job (a worker shutting down whose grace ran out). The
 * attempt then stops as on an abort, fails as WORKER_SHUTTING_DOWN, and its job goes back to the
 * queue (`token`) without counting as a failed try.
 */
export function writeShardProcessor(deps: WriteShardDeps): (job: Job, token?: string, signal?: AbortSignal) => Promise<SyncShardResult> {
  return async (job, token, signal) => {
    const parsed = SyncShardJob.safeParse(job.data);
    if (!parsed.success) throw new UnrecoverableError(`SHARD_JOB_INVALID: ${parsed.error.message}`);
    const data = await jobSetUp(() => plannedShard(deps.redis, deps.prefix, deps.clusterSecret, parsed.data));
    const ledger = new AttemptLedger(deps.redis, deps.prefix, data.syncId);
    return runLedgeredAttempt({
      ledger,
      id: data.shardId,
      job,
      token,
      log: deps.logger?.child({ syncId: data.syncId, shardId: data.shardId, jobId: job.id }),
      what: 'shard',
      run: (attempt, report) => runAttempt(deps, ledger, data, attempt, job, report, signal),
      recorded: resultFields,
      logged: (r) => ({ rows: r.rows, bytes: r.bytes, accepted: r.accepted }),
      settled: (v) => ({
        syncId: data.syncId,
        shardId: data.shardId,
        attemptId: v.attemptId,
        blobKey: stagedBlobKey(data.syncId, data.shardId, v.attemptId),
        checksum: v.checksum,
        rows: v.rows,
        bytes: v.bytes,
        accepted: true,
        ...(v.rejected === undefined ? {} : { rejected: v.rejected, rejectsKey: stagedRejectsKey(data.syncId, data.shardId, v.attemptId) }),
        settled: true,
      }),
    });
  };
}

function resultFields(r: SyncShardResult): Partial<ShardAttempt> {
  return { rows: r.rows, bytes: r.bytes, blobKey: r.blobKey, checksum: r.checksum, accepted: r.accepted, ...(r.rejectsKey === undefined ? {} : { rejected: r.rejected, rejectsKey: r.rejectsKey }) };
}

async function runAttempt(
  deps: WriteShardDeps,
  ledger: AttemptLedger,
  data: PlannedShardTask,
  attempt: number,
  job: Job,
  report: ShardAttempt,
  cancelled: AbortSignal | undefined,
): Promise<SyncShardResult> {
  await assertAccepting(ledger, data);
  const watch = watchPhase(ledger, data, deps.phaseCheckMs ?? PHASE_CHECK_MS, cancelled);
  let write: ShardWrite | undefined;
  try {
    write = await raceAbort(
      openShardWrite(deps.tables, {
        warehouse: data.head.warehouse,
        database: data.head.table.database,
        table: data.head.table.table,
        schemaId: data.head.schemaId,
        baseSnapshotId: data.head.baseSnapshotId,
        writerId: attemptWriterId(data.syncId, data.shardId, attempt),
        sequenceSlot: data.slot,
        // Bucketed: sorted runs in the sync's staging, merged later by one job per bucket.
        ...(data.head.layout === 'bucketed' ? { runs: { path: syncRunsPath(data.syncId), bufferRows: deps.runBufferRows, bufferBytes: deps.runBufferBytes } } : {}),
      }),
      watch.signal,
    );
    const { messages, rows, rejects, readPosition } = await readShard(deps, ledger, data, write, job, report, watch.signal);
    return await stageBlob(deps, ledger, data, attempt, write, messages, rows, rejects, readPosition);
  } catch (error) {
    if (write !== undefined) await abortQuietly(write);
    // Once cancelled, the cancellation is the reason, whatever the cancelled step threw.
    const reason: unknown = watch.signal.aborted ? watch.signal.reason : error;
    if (write !== undefined && isTributaryError(reason) && reason.code === 'SYNC_NOT_ACCEPTING') {
      await discardAttempt(deps, ledger, data, attempt, write.tablePath);
    }
    throw reason;
  } finally {
    watch.stop();
  }
}

/** Streams the shard into the write; the signal cancels the read and the write and ends the wait. */
async function readShard(
  deps: WriteShardDeps,
  ledger: AttemptLedger,
  data: PlannedShardTask,
  write: ShardWrite,
  job: Job,
  report: ShardAttempt,
  signal: AbortSignal,
): Promise<{ messages: CommitMessage[]; rows: number; rejects: BatchConverter; readPosition: ShardReadPosition | undefined }> {
  const cancelWrite = () => void abortQuietly(write); // an upload in flight fails, nothing of it becomes visible
  signal.addEventListener('abort', cancelWrite, { once: true });
  let rows = 0;
  let position: unknown = null;
  let converter: BatchConverter | undefined;
  // Where the read stands in the source (the last one a batch gave): it goes into the blob.
  let readPosition: ShardReadPosition | undefined;
  // Progress so far, as the job's BullMQ progress and on the attempt the API shows.
  const progress = progressReporter(
    () => ({ rows, bytes: write.bytesWritten(), ...(converter?.rejected ? { rejected: converter.rejected } : {}) }),
    async (p) => {
      await job.updateProgress({ ...p, position });
      await ledger.progress({ ...report, ...p, updatedAt: new Date().toISOString() });
    },
    deps.progressMs ?? PROGRESS_MS,
  );
  try {
    const { sourceStore } = deps.tables;
    const source = openSource(data.head.source, {
      openStore: (root) => deps.tables.warehouseStore(root),
      ...(sourceStore === undefined ? {} : { openCredentialedStore: (root: string, s3: S3Credentials) => sourceStore(root, s3) }),
      columns: write.rowType.fields.map((f) => f.name),
      access: deps.sources ?? noSourceAccess(),
    });
    const columns = await raceAbort(source.columns(), signal);
    // The bad-row policy of the sync: fail on the first row that does not fit, or reject it (values/bad-rows.ts).
    converter = batchConverter(rowConverter(data.shardId, columns, write.rowType), columns, data.head.badRows);
    // Each source batch becomes the table's columns in one pass per column (values/columns.ts).
    const toColumns = columnConverter(data.shardId, columns, write.rowType);
    const marker = data.head.deletes?.marker;
    const kinds = marker === undefined ? undefined : deleteMarkerKinds(marker, write.rowType);
    for await (const batch of untilAborted(source.open({ id: data.shardId, spec: data.spec }, undefined, signal), signal)) {
      if (batch.readPosition !== undefined) readPosition = batch.readPosition;
      await writeSourceBatch(write, batch, toColumns, converter, kinds);
      rows += batch.columnar?.length ?? batch.rows.length;
      position = batch.end;
      signal.throwIfAborted();
    }
    signal.throwIfAborted();
    const messages = await write.prepareCommit();
    await progress.stop();
    return { messages, rows, rejects: converter, readPosition };
  } finally {
    await progress.stop();
    signal.removeEventListener('abort', cancelWrite);
  }
}

/** What the phase checks name: the sync and the job's shard (or bucket) id. */
export type PhaseWatched = Pick<PlannedShardTask, 'syncId' | 'shardId'>;

/**
 * Writes a source batch as the table's columns; a batch with a row that does not fit goes through
 * the bad-row policy row by row instead (`reject` keeps its good rows; `fail` throws the same first
 * bad cell the column path found).
 */
async function writeSourceBatch(write: ShardWrite, batch: SourceBatch, toColumns: ColumnConverter, policy: BatchConverter, kinds: RowKinds | undefined): Promise<void> {
  let columns: ColumnBatch;
  try {
    columns = toColumns.batch(batch);
  } catch (error) {
    if (!isTributaryError(error) || error.code !== 'SOURCE_ROW_INVALID') throw error;
    const rows = policy.convert(batch);
    await write.write(rows, kinds?.ofRows(rows));
    return;
  }
  await write.writeBatch(columns, kinds?.ofBatch(columns));
}

/**
 * Re-reads the sync's phase every `intervalMs` on a timer of its own, so an attempt blocked in a
 * source query or an upload still learns of an abort; the signal aborts with SYNC_NOT_ACCEPTING.
 * A failed read (Redis away) is tried again at the next tick. `cancelled` (the worker shutting
 * down) aborts it with WORKER_SHUTTING_DOWN.
 */
export function watchPhase(ledger: AttemptLedger, data: PhaseWatched, intervalMs: number, cancelled?: AbortSignal): { signal: AbortSignal; stop: () => void } {
  const controller = new AbortController();
  const shutDown = () =>
    controller.abort(errorFrom(workerErrors, 'WORKER_SHUTTING_DOWN', `the worker stopped; shard ${data.shardId} goes back to the queue`, { syncId: data.syncId, shard: data.shardId }));
  if (cancelled?.aborted === true) shutDown();
  cancelled?.addEventListener('abort', shutDown, { once: true });
  let checking = false;
  const timer = setInterval(() => {
    if (checking || controller.signal.aborted) return;
    checking = true;
    assertAccepting(ledger, data)
      .catch((error: unknown) => {
        if (isTributaryError(error) && error.code === 'SYNC_NOT_ACCEPTING') controller.abort(error);
      })
      .finally(() => (checking = false));
  }, intervalMs);
  return {
    signal: controller.signal,
    stop: () => {
      clearInterval(timer);
      cancelled?.removeEventListener('abort', shutDown);
    },
  };
}

/**
 * The late cleanup of a fenced attempt: deletes its blob and every data file named for it, but only
 * if the sync aborted before its commit started (then nothing of the sync can ever be referenced).
 * Best effort: the coordinator deletes the sync's staged files again when the shard's job ends.
 */
async function discardAttempt(deps: WriteShardDeps, ledger: AttemptLedger, data: PlannedShardTask, attempt: number, tablePath: string): Promise<void> {
  try {
    if (!(await ledger.discardable())) return;
    const store = deps.tables.warehouseStore(data.head.warehouse);
    const marker = dataFileMarker(attemptWriterId(data.syncId, data.shardId, attempt));
    const keys = [stagedBlobKey(data.syncId, data.shardId, String(attempt))];
    for await (const object of store.list(`${tablePath}/`)) if (object.key.includes(marker)) keys.push(object.key);
    await store.deleteMany(keys);
  } catch {
    // Left for the coordinator's sweep.
  }
}

async function stageBlob(
  deps: WriteShardDeps,
  ledger: AttemptLedger,
  data: PlannedShardTask,
  attempt: number,
  write: ShardWrite,
  messages: CommitMessage[],
  rows: number,
  rejects: BatchConverter,
  readPosition: ShardReadPosition | undefined,
): Promise<SyncShardResult> {
  const staged = stagedBlob(data, attempt, write.tablePath, messages, messages.flatMap((m) => m.dataIncrement.newFiles), readPosition);
  const blobKey = stagedBlobKey(data.syncId, data.shardId, String(attempt));
  const store = deps.tables.warehouseStore(data.head.warehouse);
  // The rejects file first: an attempt that votes has its whole file written (its key names the attempt).
  const rejected = rejects.rejected;
  const rejectsKey = rejected > 0 ? stagedRejectsKey(data.syncId, data.shardId, String(attempt)) : undefined;
  if (rejectsKey !== undefined) await store.put(rejectsKey, rejects.rejectsFile());
  await store.put(blobKey, staged.blob);
  const { checksum, bytes } = staged;
  const outcome = await ledger.accept(data.shardId, attempt, {
    attemptId: String(attempt),
    checksum,
    sha256: staged.sha256,
    rows: staged.rows,
    bytes,
    ...(rejected > 0 ? { rejected } : {}),
  });
  if (outcome === 'sync-closed') {
    // Not accepted: the abort (or the commit, which froze its inputs) has decided without us.
    throw errorFrom(workerErrors, 'SYNC_NOT_ACCEPTING', `sync ${data.syncId} no longer accepts shard results`, {
      syncId: data.syncId,
      shard: data.shardId,
      attempt,
    });
  }
  return {
    syncId: data.syncId,
    shardId: data.shardId,
    attemptId: String(attempt),
    blobKey,
    checksum,
    rows,
    bytes,
    accepted: outcome === 'accepted',
    ...(rejectsKey === undefined ? {} : { rejected, rejectsKey }),
  };
}

export async function assertAccepting(ledger: AttemptLedger, data: PhaseWatched): Promise<void> {
  const phase = await ledger.phase();
  if (ledger.accepts(phase)) return;
  throw errorFrom(workerErrors, 'SYNC_NOT_ACCEPTING', `sync ${data.syncId} is ${phase ?? 'unknown'}; shard ${data.shardId} stops`, {
    syncId: data.syncId,
    shard: data.shardId,
  });
}

async function abortQuietly(write: ShardWrite): Promise<void> {
  try {
    await write.abort();
  } catch {
    // Best effort: the coordinator's abort also deletes every file with this sync's prefix.
  }
}
