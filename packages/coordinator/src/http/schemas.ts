/**
 * REST request and response bodies (zod; OpenAPI is generated from these).
 */
import { z } from 'zod';
import { ShardAttempt, SyncTableRef } from '@tributary/protocol';
import { SyncPhaseSchema, SyncPlanSchema, SyncStateSchema } from '../sync/record-schema.ts';

export const TableParams = SyncTableRef;

export const TableResponse = z.object({
  database: z.string(),
  table: z.string(),
  schemaId: z.number().int(),
  columns: z.array(z.object({ name: z.string(), type: z.string(), description: z.string().optional() })),
  partitionKeys: z.array(z.string()),
  primaryKeys: z.array(z.string()),
  options: z.record(z.string(), z.string()),
  latestSnapshotId: z.number().int().nullable(),
  fileCount: z.number().int(),
  rowCount: z.number().int(),
});

export const StartSyncHeaders = z.object({
  'idempotency-key': z.string().min(1).max(200).optional(),
});

export const SyncParams = z.object({ id: z.string().min(1).max(100) });

export const AbortBody = z.object({ reason: z.string().max(1000).optional() }).nullish();

export const ShardView = z.object({
  id: z.string(),
  acceptedAttempt: z.string().nullable(),
  attempts: z.array(ShardAttempt.extend({ durationMs: z.number().nullable() })),
  rows: z.number().int().nullable(),
  bytes: z.number().int().nullable(),
  durationMs: z.number().nullable(),
  error: ShardAttempt.shape.error,
});

export const SyncResponse = z.object({
  id: z.string(),
  version: z.number().int(),
  phase: SyncPhaseSchema,
  state: SyncStateSchema,
  plan: SyncPlanSchema,
  snapshotId: z.number().int().nullable(),
  /**
   * Primary keys present in more than one shard (each kept the row of the later shard in plan
   * order, or of the greater `sequence.field`); null before the commit began and for append tables.
   */
  collidingKeys: z.number().int().nullable(),
  timings: z.partialRecord(SyncPhaseSchema, z.string()),
  /** Milliseconds spent in each finished phase. */
  phaseDurationsMs: z.partialRecord(SyncPhaseSchema, z.number()),
  shards: z.array(ShardView),
});
export type SyncResponse = z.infer<typeof SyncResponse>;

export const SyncSummary = z.object({
  id: z.string(),
  phase: SyncPhaseSchema,
  table: SyncTableRef,
  shards: z.number().int(),
  snapshotId: z.number().int().nullable(),
  timings: z.partialRecord(SyncPhaseSchema, z.string()),
});

export const ListSyncsQuery = z.object({
  state: SyncPhaseSchema.optional(),
  database: z.string().optional(),
  table: z.string().optional(),
  limit: z.coerce.number().int().min(1).max(500).default(50),
});

export const StartSyncResponse = z.object({ id: z.string(), phase: SyncPhaseSchema, created: z.boolean() });
