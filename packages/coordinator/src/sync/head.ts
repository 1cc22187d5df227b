/**
 * A sync's head: what GET /v1/syncs/:id shows of the record, without a read proportional to its
 * shards. The record with its plan cut to the first page of shards (and, once the commit began, its
 * frozen accepted attempts cut to those shards), the plan's shard count, and the accepted attempts'
 * count and totals. The store keeps it in the record's hash (field `head`), written in the same
 * step as every transition; a record without one (written by an earlier version) is read whole.
 */
import { z } from 'zod';
import { SyncRecordSchema } from './record-schema.ts';
import { loadFiles, type SyncRecord } from './state.ts';

/** Shards of the sync view's first page (and of the head). */
export const FIRST_SHARD_PAGE = 100;

export const SyncHeadSchema = z.object({
  record: SyncRecordSchema,
  /** How many shards the plan lists. */
  shards: z.number().int().nonnegative(),
  /**
   * Once the shards were frozen (MERGING, or the commit began): how many shards were accepted, their
   * rows, bytes and rejected rows (absent in heads of earlier versions: 0), and the data files the
   * load adds (absent while unknown).
   */
  frozen: z.object({ accepted: z.number().int(), rows: z.number().int(), bytes: z.number().int(), rejected: z.number().int().optional(), files: z.number().int().nullable().optional() }).nullable(),
});
export type SyncHead = z.infer<typeof SyncHeadSchema>;

export function syncHead(record: SyncRecord): SyncHead {
  const shards = record.plan.shards.slice(0, FIRST_SHARD_PAGE);
  const state = record.state;
  const cut = { ...record, plan: { ...record.plan, shards } };
  if (state.phase !== 'MERGING' && state.phase !== 'COMMITTING' && state.phase !== 'COMMITTED') return { record: cut, shards: record.plan.shards.length, frozen: null };
  let rows = 0;
  let bytes = 0;
  let rejected = 0;
  const all = Object.values(state.accepted);
  for (const a of all) {
    rows += a.rows;
    bytes += a.bytes;
    rejected += a.rejected ?? 0;
  }
  const accepted = Object.fromEntries(shards.flatMap((s) => (state.accepted[s.id] === undefined ? [] : [[s.id, state.accepted[s.id]!]])));
  return { record: { ...cut, state: { ...state, accepted } }, shards: record.plan.shards.length, frozen: { accepted: all.length, rows, bytes, ...(rejected > 0 ? { rejected } : {}), ...filesOf(record) } };
}

/** The files the load adds, when known (absent otherwise: heads written before they were kept look the same). */
function filesOf(record: SyncRecord): { files?: number } {
  const files = loadFiles(record);
  return files === null ? {} : { files };
}
