/**
 * One attempt of a ledgered job (a shard job or a bucket job), from its start to its end in the
 * ledger: the attempt is numbered, the job's earlier attempts still shown `running` are marked
 * `abandoned` (BullMQ runs a job again only when its previous execution lost it: a dead or frozen
 * worker), the attempt is reported `running`, then `succeeded` with its result's fields or `failed`
 * with its typed reason. A worker shutting down puts the job back in the queue without counting a
 * try; a non-retryable error ends the job's retries.
 */
import type { Job } from 'bullmq';
import { UnrecoverableError, WaitingError } from 'bullmq';
import { isTributaryError, toErrorData, type BucketVote, type ShardAttempt, type ShardVote } from '@tributary/protocol';
import type { Logger } from 'pino';
import type { AttemptLedger } from './attempt-ledger.ts';

export interface LedgeredAttempt<R> {
  readonly ledger: AttemptLedger;
  /** The job's id in its stage: the shard id, or the bucket job's id. */
  readonly id: string;
  readonly job: Job;
  /** BullMQ's lock token (absent: the job cannot be put back in the queue). */
  readonly token: string | undefined;
  /** The job's logger, already carrying the sync and the job's ids; `what` names it in the messages. */
  readonly log: Logger | undefined;
  readonly what: 'shard' | 'bucket' | 'compaction';
  /** The attempt's work; `report` is its `running` entry, for progress. */
  readonly run: (attempt: number, report: ShardAttempt) => Promise<R>;
  /** The result's fields recorded with `succeeded`, and the ones logged. */
  readonly recorded: (result: R) => Partial<ShardAttempt>;
  readonly logged: (result: R) => Record<string, unknown>;
  /**
   * The job's result when an attempt of it was accepted already: a re-run of a job whose lock lapsed
   * after (or while) an earlier execution won. Nothing is run again and no attempt is numbered; the
   * job ends at once with the accepted attempt's outcome. Without it a starved worker could re-run
   * a long job for ever (each execution's lock lapsing before it ends, the job never completing)
   * while its sync already had its vote.
   */
  readonly settled: (vote: ShardVote & Partial<BucketVote>) => R;
}

export async function runLedgeredAttempt<R>(a: LedgeredAttempt<R>): Promise<R> {
  const won = await a.ledger.acceptedVote(a.id);
  if (won !== undefined) {
    a.log?.info({ acceptedAttempt: won.attemptId }, `${a.what} job already has an accepted attempt; not run again`);
    return a.settled(won);
  }
  const attempt = await a.ledger.nextAttempt(a.id);
  const started = Date.now();
  const startedAt = new Date(started).toISOString();
  const report: ShardAttempt = { shardId: a.id, attemptId: String(attempt), status: 'running', startedAt, updatedAt: startedAt, rows: 0, bytes: 0 };
  const log = a.log?.child({ attempt });
  await a.ledger.abandonEarlier(a.id, attempt);
  await a.ledger.report(report);
  log?.info(`${a.what} attempt started`);
  try {
    const result = await a.run(attempt, report);
    const finishedAt = new Date().toISOString();
    await a.ledger.report({ ...report, ...a.recorded(result), status: 'succeeded', finishedAt, updatedAt: finishedAt });
    log?.info({ durationMs: Date.now() - started, ...a.logged(result) }, `${a.what} attempt succeeded`);
    return result;
  } catch (error) {
    const finishedAt = new Date().toISOString();
    const reason = toErrorData(error);
    await a.ledger.report({ ...report, status: 'failed', finishedAt, updatedAt: finishedAt, error: reason });
    // The typed code and message only: a message names columns and positions, never a cell value.
    log?.warn({ durationMs: Date.now() - started, code: reason.code, retryable: reason.retryable, error: reason.message }, `${a.what} attempt failed`);
    if (reason.code === 'WORKER_SHUTTING_DOWN' && a.token !== undefined) {
      await a.job.moveToWait(a.token);
      throw new WaitingError();
    }
    throw finalUnlessRetryable(error);
  }
}

/** Runs a job's set-up (reading its plan): a non-retryable typed error ends the job's retries. */
export async function jobSetUp<T>(setUp: () => Promise<T>): Promise<T> {
  try {
    return await setUp();
  } catch (error) {
    throw finalUnlessRetryable(error);
  }
}

/** A non-retryable typed error as BullMQ's UnrecoverableError (no further tries); any other error as it is. */
function finalUnlessRetryable(error: unknown): unknown {
  return isTributaryError(error) && !error.retryable ? new UnrecoverableError(`${error.code}: ${error.message}`) : error;
}
