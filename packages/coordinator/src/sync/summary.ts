/**
 * A sync's summary: what GET /v1/syncs lists of it (id, phase, table, shard count, snapshot id or
 * abort reason, phase timings), a few hundred bytes whatever the shard count. The store keeps it
 * in the record's hash beside the full record (field `summary`), written in the same step as every
 * transition, so a list reads summaries and never parses a plan that lists every shard.
 *
 * The stored text is the schema's own output (`summaryText`): exactly what the list's response
 * serialiser would make of it, so a list splices the texts of a page into its response without
 * parsing or validating them again.
 */
import { z } from 'zod';
import { ErrorDataSchema, SyncTableRef } from '@tributary/protocol';
import { SyncPhaseSchema } from './record-schema.ts';
import type { SyncRecord } from './state.ts';

export const SyncSummarySchema = z.object({
  id: z.string(),
  phase: SyncPhaseSchema,
  table: SyncTableRef,
  shards: z.number().int(),
  snapshotId: z.number().int().nullable(),
  /** Why the sync is aborting or was aborted (code and message); null otherwise. */
  reason: ErrorDataSchema.nullable(),
  timings: z.partialRecord(SyncPhaseSchema, z.string()),
});
export type SyncSummary = z.infer<typeof SyncSummarySchema>;

export function syncSummary(record: SyncRecord): SyncSummary {
  const state = record.state;
  return {
    id: record.id,
    phase: state.phase,
    table: record.plan.table,
    shards: record.plan.shards.length,
    snapshotId: state.phase === 'COMMITTED' ? state.snapshotId : null,
    reason: state.phase === 'ABORTING' || state.phase === 'ABORTED' ? state.reason : null,
    timings: record.timings,
  };
}

/**
 * The summary's stored text: the schema's output as JSON (its key order, unknown keys dropped), so
 * the text is what GET /v1/syncs would serialise for it. `canonical` false: the summary does not
 * pass its schema (then the text is the summary as is, and a list parses it as before).
 */
export function summaryText(summary: SyncSummary): { text: string; canonical: boolean } {
  const parsed = SyncSummarySchema.safeParse(summary);
  return parsed.success ? { text: JSON.stringify(parsed.data), canonical: true } : { text: JSON.stringify(summary), canonical: false };
}
