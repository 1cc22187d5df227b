/**
 * Bodies of the coordinator's schedule API (`/v1/schedules`): a cron pattern that starts a sync or
 * a compaction. The `sync` member is exactly the body of `POST /v1/syncs` (the coordinator passes
 * the schema it builds with ./rest.ts `startSyncRequest`), and `compaction` names a table and
 * carries the body of `POST /v1/tables/{db}/{table}/compactions`, so a schedule fires the same
 * request a client could send by hand. The cron pattern and the time zone
 * are checked by the coordinator (typed SCHEDULE_* codes), not here, so that a bad pattern gets
 * its own code rather than the generic REQUEST_INVALID.
 */
import { z } from 'zod';
import { SyncTableRef } from '../sync-schemas.ts';

/** A schedule id: also the BullMQ job-scheduler id, so no `:` (BullMQ joins ids with it). */
export const ScheduleId = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/, 'letters, digits, ".", "_" or "-", at most 100, starting with a letter or digit');
export type ScheduleId = z.infer<typeof ScheduleId>;

/** A scheduled compaction: its table, and what `POST /v1/tables/{db}/{table}/compactions` takes. */
export const ScheduledCompaction = z.strictObject({
  table: SyncTableRef,
  /** Full compaction; default false: the table's own rules (Paimon's universal or append compaction). */
  full: z.boolean().default(false),
  /** Only these partitions, as their directories in the table; default all. */
  partitions: z.array(z.string().min(1).max(256)).min(1).max(100).optional(),
});
export type ScheduledCompaction = z.infer<typeof ScheduledCompaction>;

/**
 * `PUT /v1/schedules/{id}`: create or replace; exactly one of `sync` (the `POST /v1/syncs` body
 * schema) and `compaction`.
 */
export function putScheduleRequest<Sync extends z.ZodType>(sync: Sync) {
  return z
    .strictObject({
      /** 5 fields (minute first) or 6 fields (second first), e.g. `0 30 2 * * *`. */
      cron: z.string().min(1).max(200),
      /** IANA time zone the pattern is read in; UTC when absent. */
      tz: z.string().min(1).max(100).optional(),
      sync: sync.optional(),
      compaction: ScheduledCompaction.optional(),
      enabled: z.boolean().default(true),
    })
    .refine((body) => (body.sync === undefined) !== (body.compaction === undefined), {
      message: 'a schedule starts a sync or a compaction: give exactly one of sync and compaction',
    });
}

/**
 * What happened at one fire time: a sync (or a compaction) started; the fire was skipped because
 * the schedule's previous one still ran; or it could not be started (for example its table was dropped).
 */
export const ScheduleRun = z.object({
  /** The scheduled fire time (not the moment it was processed). */
  firedAt: z.iso.datetime(),
  outcome: z.enum(['started', 'skipped', 'failed']),
  /** The sync the fire started; for a skipped fire, the sync that was still running. */
  syncId: z.string().optional(),
  /** Likewise for a compaction schedule: the compaction started, or the one still running. */
  compactionId: z.string().optional(),
  reason: z.string().optional(),
  /** The error code of a failed start. */
  code: z.string().optional(),
});
export type ScheduleRun = z.infer<typeof ScheduleRun>;
