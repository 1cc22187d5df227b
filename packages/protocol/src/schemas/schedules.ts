/**
 * Bodies of the coordinator's schedule API (`/v1/schedules`): a cron pattern that starts a sync.
 * The `sync` member is exactly the body of `POST /v1/syncs` (the coordinator passes the schema it
 * builds with ./rest.ts `startSyncRequest`), so a schedule fires the same request a client could
 * send by hand. The cron pattern and the time zone
 * are checked by the coordinator (typed SCHEDULE_* codes), not here, so that a bad pattern gets
 * its own code rather than the generic REQUEST_INVALID.
 */
import { z } from 'zod';

/** A schedule id: also the BullMQ job-scheduler id, so no `:` (BullMQ joins ids with it). */
export const ScheduleId = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/, 'letters, digits, ".", "_" or "-", at most 100, starting with a letter or digit');
export type ScheduleId = z.infer<typeof ScheduleId>;

/** `PUT /v1/schedules/{id}`: create or replace; `sync` is the `POST /v1/syncs` body schema. */
export function putScheduleRequest<Sync extends z.ZodType>(sync: Sync) {
  return z.strictObject({
    /** 5 fields (minute first) or 6 fields (second first), e.g. `0 30 2 * * *`. */
    cron: z.string().min(1).max(200),
    /** IANA time zone the pattern is read in; UTC when absent. */
    tz: z.string().min(1).max(100).optional(),
    sync,
    enabled: z.boolean().default(true),
  });
}

/**
 * What happened at one fire time: a sync started; the fire was skipped because the schedule's
 * previous sync still ran; or the sync could not be started (for example its table was dropped).
 */
export const ScheduleRun = z.object({
  /** The scheduled fire time (not the moment it was processed). */
  firedAt: z.iso.datetime(),
  outcome: z.enum(['started', 'skipped', 'failed']),
  /** The sync the fire started; for a skipped fire, the sync that was still running. */
  syncId: z.string().optional(),
  reason: z.string().optional(),
  /** The error code of a failed start. */
  code: z.string().optional(),
});
export type ScheduleRun = z.infer<typeof ScheduleRun>;
