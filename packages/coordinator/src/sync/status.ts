/**
 * A sync's light status: what GET /v1/syncs/:id/status answers (its summary, sync/summary.ts, and
 * its shard counts, with its rows and bytes once the shards are frozen), read in one Redis step of
 * constant size whatever the shard count. GET /v1/syncs/:id shows more (the plan, the first page
 * of shards with their attempts, rows and bytes while shards still run) and reads more.
 *
 * The store keeps the head's frozen totals (sync/head.ts, a few numbers) in their own field of the
 * record's hash, so the status never parses the head with its page of shards.
 */
import { z } from 'zod';
import { SyncHeadSchema, type SyncHead } from './head.ts';
import { SyncSummarySchema } from './summary.ts';

export const SyncStatusSchema = SyncSummarySchema.extend({
  /** As in GET /v1/syncs/:id: the plan's shards, those accepted (frozen once the commit began), those tried. */
  shardCounts: z.object({ total: z.number().int(), accepted: z.number().int(), attempted: z.number().int() }),
  /** Rows read and bytes written by the accepted shards once they are frozen (MERGING, COMMITTING, COMMITTED); null before (GET /v1/syncs/:id sums the running attempts). */
  rowsRead: z.number().int().nullable(),
  bytesWritten: z.number().int().nullable(),
});
export type SyncStatus = z.infer<typeof SyncStatusSchema>;

/** The head's frozen totals (null before the shards are frozen). */
export type Frozen = SyncHead['frozen'];

/** The record hash's `frozen` field: the frozen totals and the record version they were written with. */
export const FrozenField = z.object({ version: z.number().int(), frozen: SyncHeadSchema.shape.frozen });

/**
 * The status's JSON text from the summary's text (the summary schema's own output, so its keys are
 * in the schema's order) and the counts: the text SyncStatusSchema's serialiser gives for it.
 */
export function statusText(summaryText: string, frozen: Frozen, counts: { readonly accepted: number; readonly attempted: number }): string {
  const summary = JSON.parse(summaryText) as { shards: number };
  const status = {
    ...summary,
    shardCounts: { total: summary.shards, accepted: frozen?.accepted ?? counts.accepted, attempted: counts.attempted },
    rowsRead: frozen?.rows ?? null,
    bytesWritten: frozen?.bytes ?? null,
  };
  return JSON.stringify(status);
}
