/**
 * The `write-shard` processor: one execution of one shard of a sync (the PREPARE of two-phase
 * commit; the YES vote is the accepted blob).
 *
 *   number the attempt → stream source batches → convert → data files named for the attempt
 *   → prepareCommit → ONE blob at .tributary/syncs/<sync>/<shard>/<attempt>.blob → accept
 *
 * Deterministic failures (a row that does not fit, a bad spec) throw BullMQ's UnrecoverableError:
 * retrying would fail the same way. Anything else (storage, network) is rethrown and retried with
 * the job's backoff. Every attempt, failed or not, is reported to the ledger with its typed error,
 * which is where the coordinator finds the reason for an abort.
 */
import type { Job } from 'bullmq';
import { UnrecoverableError } from 'bullmq';
import {
  PAIMON_COMMIT_MESSAGE_VERSION,
  SyncShardJob,
  encodeBlob,
  errorFrom,
  isTributaryError,
  stagedBlobKey,
  toErrorData,
  type CommitMessage,
  type ShardAttempt,
  type SyncShardResult,
} from '@tributary/protocol';
import type { Redis } from 'ioredis';
import { crc32c } from '@node-rs/crc32';
import { AttemptLedger } from './attempt-ledger.ts';
import { rowConverter } from './convert.ts';
import { workerErrors } from './errors.ts';
import { openSource } from './sources/open-source.ts';
import type { ShardWrite, TablePort } from './table-port.ts';

const TRIBUTARY_VERSION = '0.1.0';

export interface WriteShardDeps {
  readonly redis: Redis;
  readonly tables: TablePort;
  /** How often a running attempt re-reads the sync's phase to stop after an abort. */
  readonly phaseCheckMs?: number;
}

export function writeShardProcessor(deps: WriteShardDeps): (job: Job) => Promise<SyncShardResult> {
  return async (job) => {
    const parsed = SyncShardJob.safeParse(job.data);
    if (!parsed.success) throw new UnrecoverableError(`SHARD_JOB_INVALID: ${parsed.error.message}`);
    const data = parsed.data;
    const ledger = new AttemptLedger(deps.redis, data.keyPrefix, data.syncId);
    const attempt = await ledger.nextAttempt(data.shardId);
    const report: ShardAttempt = { shardId: data.shardId, attemptId: String(attempt), status: 'running', startedAt: new Date().toISOString() };
    await ledger.report(report);
    try {
      const result = await runAttempt(deps, ledger, data, attempt, job);
      await ledger.report({ ...report, ...resultFields(result), status: 'succeeded', finishedAt: new Date().toISOString() });
      return result;
    } catch (error) {
      await ledger.report({ ...report, status: 'failed', finishedAt: new Date().toISOString(), error: toErrorData(error) });
      if (isTributaryError(error) && !error.retryable) throw new UnrecoverableError(`${error.code}: ${error.message}`);
      throw error;
    }
  };
}

function resultFields(r: SyncShardResult): Partial<ShardAttempt> {
  return { rows: r.rows, bytes: r.bytes, blobKey: r.blobKey, checksum: r.checksum, accepted: r.accepted };
}

async function runAttempt(deps: WriteShardDeps, ledger: AttemptLedger, data: SyncShardJob, attempt: number, job: Job): Promise<SyncShardResult> {
  await assertAccepting(ledger, data);
  const write = await deps.tables.openShardWrite({
    warehouse: data.warehouse,
    database: data.table.database,
    table: data.table.table,
    schemaId: data.schemaId,
    baseSnapshotId: data.baseSnapshotId,
    writerId: `${data.syncId}-${data.shardId}-a${attempt}`,
    ...(data.sequenceSlot === undefined ? {} : { sequenceSlot: data.sequenceSlot }),
  });
  let messages: CommitMessage[];
  let rows = 0;
  try {
    const source = openSource(data.source, { openStore: (root) => deps.tables.warehouseStore(root), columns: write.rowType.fields.map((f) => f.name) });
    const convert = rowConverter(data.shardId, await source.columns(), write.rowType);
    let lastCheck = Date.now();
    for await (const batch of source.open({ id: data.shardId, spec: data.shard })) {
      const file = batch.file;
      await write.write(batch.rows.map((row, i) => convert(row, batch.firstRowPosition + i, file && { uri: file.uri, row: file.firstRow + i })));
      rows += batch.rows.length;
      if (Date.now() - lastCheck >= (deps.phaseCheckMs ?? 500)) {
        await assertAccepting(ledger, data);
        await job.updateProgress({ rows, position: batch.end });
        lastCheck = Date.now();
      }
    }
    messages = await write.prepareCommit();
  } catch (error) {
    await abortQuietly(write);
    throw error;
  }
  return stageBlob(deps, ledger, data, attempt, write, messages, rows);
}

async function stageBlob(
  deps: WriteShardDeps,
  ledger: AttemptLedger,
  data: SyncShardJob,
  attempt: number,
  write: ShardWrite,
  messages: CommitMessage[],
  rows: number,
): Promise<SyncShardResult> {
  const files = messages.flatMap((m) => m.dataIncrement.newFiles);
  const bytes = files.reduce((n, f) => n + f.fileSize, 0n);
  const blob = encodeBlob(
    {
      syncId: data.syncId,
      shardId: data.shardId,
      attempt,
      tablePath: write.tablePath,
      schemaId: BigInt(data.schemaId),
      paimonFormatVersion: PAIMON_COMMIT_MESSAGE_VERSION,
      tributaryVersion: TRIBUTARY_VERSION,
      creationTimeMillis: BigInt(Date.now()),
      rowCount: files.reduce((n, f) => n + f.rowCount, 0n),
      byteCount: bytes,
      fileCount: BigInt(files.length),
    },
    messages,
  );
  const blobKey = stagedBlobKey(data.syncId, data.shardId, String(attempt));
  await deps.tables.warehouseStore(data.warehouse).put(blobKey, blob);
  const outcome = await ledger.accept(data.shardId, attempt);
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
    checksum: crc32c(blob),
    rows,
    bytes: Number(bytes),
    accepted: outcome === 'accepted',
  };
}

async function assertAccepting(ledger: AttemptLedger, data: SyncShardJob): Promise<void> {
  const phase = await ledger.phase();
  if (phase === 'PLANNED' || phase === 'PREPARING') return;
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
