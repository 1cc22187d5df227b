/**
 * The zod form of the sync record (sync/state.ts): checks what the store reads back from Redis and
 * describes the REST responses. The types in state.ts are the source of truth; the `satisfies`
 * checks below keep the two in step.
 */
import { z } from 'zod';
import { BadRowPolicy, ErrorDataSchema, SyncDeletes, SyncLayout, SyncTableRef } from '@tributary/protocol';
import type { SyncPlan, SyncRecord } from './state.ts';
import { SYNC_PHASES } from './state.ts';

export const SyncPhaseSchema = z.enum(SYNC_PHASES);

const AcceptedAttemptSchema = z.object({
  attemptId: z.string(),
  blobKey: z.string(),
  checksum: z.number().int(),
  rows: z.number().int(),
  bytes: z.number().int(),
  rejected: z.number().int().nonnegative().optional(),
  files: z.number().int().nonnegative().optional(),
});
const Accepted = z.record(z.string(), AcceptedAttemptSchema);
const BucketStageSchema = z.object({ accepted: Accepted, files: z.number().int().nonnegative() });

export const SyncPlanSchema = z.object({
  table: SyncTableRef,
  mode: z.enum(['append', 'upsert', 'overwrite']),
  source: z.record(z.string(), z.unknown()),
  shards: z.array(z.object({ id: z.string(), spec: z.record(z.string(), z.unknown()) })),
  baseSnapshotId: z.number().int().nullable(),
  schemaId: z.number().int(),
  schemaSha256: z.string().regex(/^[0-9a-f]{64}$/).optional(),
  commitUser: z.string(),
  commitIdentifier: z.string(),
  options: z.object({
    maxAttempts: z.number().int().min(1),
    snapshotProperties: z.record(z.string(), z.string()),
    prepareTimeoutMs: z.number().int().positive().optional(),
    badRows: BadRowPolicy.optional(),
    layout: SyncLayout.optional(),
    deletes: SyncDeletes.optional(),
    compactAfter: z.boolean().optional(),
  }),
});

export const SyncStateSchema = z.discriminatedUnion('phase', [
  z.object({ phase: z.literal('PLANNED') }),
  z.object({ phase: z.literal('PREPARING') }),
  z.object({ phase: z.literal('MERGING'), accepted: Accepted, buckets: z.number().int().nonnegative() }),
  z.object({ phase: z.literal('COMMITTING'), accepted: Accepted, collidingKeys: z.number().int().nonnegative().optional(), bucketStage: BucketStageSchema.optional() }),
  z.object({
    phase: z.literal('COMMITTED'),
    accepted: Accepted,
    snapshotId: z.number().int(),
    collidingKeys: z.number().int().nonnegative().optional(),
    bucketStage: BucketStageSchema.optional(),
  }),
  z.object({ phase: z.literal('ABORTING'), reason: ErrorDataSchema, deleteStaged: z.boolean() }),
  z.object({ phase: z.literal('ABORTED'), reason: ErrorDataSchema, stagedDeleted: z.boolean() }),
]);

export const SyncRecordSchema = z.object({
  id: z.string(),
  version: z.number().int().nonnegative(),
  plan: SyncPlanSchema,
  state: SyncStateSchema,
  timings: z.partialRecord(SyncPhaseSchema, z.string()),
});

// Compile-time: what the schema parses is assignable to the domain types.
export type ParsedRecord = z.infer<typeof SyncRecordSchema>;
const _recordCheck = (r: ParsedRecord): SyncRecord => r;
const _planCheck = (p: z.infer<typeof SyncPlanSchema>): SyncPlan => p;
void _recordCheck;
void _planCheck;
