/**
 * The pure decisions of a schedule fire: which idempotency key the fire's sync (or compaction) is
 * started with, when the fire happened, and whether it starts one at all (the overlap policy).
 *
 * Why an idempotency key per (schedule, fire time): BullMQ delivers a fire at least once (a
 * coordinator that dies mid-fire has its job re-run by the stall check, and every coordinator runs
 * a worker on the `schedules` queue), so the same fire may be processed twice. Both runs derive the
 * same key, and the POST routes' idempotency (../idempotency.ts) binds one sync or compaction to it.
 */
import { SCHEDULE_KEY_PREFIX } from '../idempotency.ts';
import { z } from 'zod';
import { ScheduleId, type CompactionPhase } from '@tributary/protocol';
import { isTerminal, type SyncPhase } from '../sync/state.ts';

/** The BullMQ queue the job schedulers put their fires on. */
export const SCHEDULE_QUEUE = 'schedules';
export const SCHEDULE_FIRE_JOB = 'schedule-fire';

/** A fire job carries a pointer only: the definition is read from Redis when it fires. */
export const ScheduleFireJob = z.object({ scheduleId: ScheduleId });
export type ScheduleFireJob = z.infer<typeof ScheduleFireJob>;

export function fireIdempotencyKey(scheduleId: string, fireMs: number): string {
  return `${SCHEDULE_KEY_PREFIX}${scheduleId}:${new Date(fireMs).toISOString()}`;
}

/**
 * The scheduled fire time of a job: BullMQ sets `opts.prevMillis` to it and names the job
 * `repeat:<schedulerId>:<fireMs>` (JobScheduler.getSchedulerNextJobId), deterministic per fire.
 */
export function fireTimeOf(jobId: string | undefined, prevMillis: number | undefined): number | undefined {
  if (prevMillis !== undefined && Number.isSafeInteger(prevMillis) && prevMillis > 0) return prevMillis;
  const match = /:(\d+)$/.exec(jobId ?? '');
  return match?.[1] === undefined ? undefined : Number(match[1]);
}

export interface PreviousSync {
  readonly syncId: string;
  /** undefined when the record is gone (expired or never persisted): treated as finished. */
  readonly phase: SyncPhase | undefined;
}

export type FireDecision = { readonly action: 'start' } | { readonly action: 'skip'; readonly syncId: string; readonly reason: string };

/**
 * Overlap policy: a fire while the schedule's previous sync has not reached COMMITTED or ABORTED
 * starts nothing and is recorded as skipped. Queuing the fire instead would pile up loads behind a
 * slow one, and running both would make two syncs race for the same snapshot base.
 */
export function decideFire(previous: PreviousSync | undefined): FireDecision {
  if (previous === undefined || previous.phase === undefined || isTerminal(previous.phase)) return { action: 'start' };
  return { action: 'skip', syncId: previous.syncId, reason: `previous sync ${previous.syncId} is still ${previous.phase}` };
}

export interface PreviousCompaction {
  readonly compactionId: string;
  /** undefined when the record is gone: treated as finished. */
  readonly phase: CompactionPhase | undefined;
}

/**
 * The same overlap policy for a compaction schedule: a fire while the previous compaction is
 * RUNNING or COMMITTING starts nothing (a second one would plan the same files and give way).
 */
export function decideCompactionFire(previous: PreviousCompaction | undefined): { readonly action: 'start' } | { readonly action: 'skip'; readonly compactionId: string; readonly reason: string } {
  if (previous === undefined || previous.phase === undefined || previous.phase === 'COMMITTED' || previous.phase === 'FAILED' || previous.phase === 'CONFLICT') return { action: 'start' };
  return { action: 'skip', compactionId: previous.compactionId, reason: `previous compaction ${previous.compactionId} is still ${previous.phase}` };
}
