/**
 * REST request and response bodies (zod; OpenAPI is generated from these).
 */
import { SyncSummarySchema } from '../sync/summary.ts';
import { SyncStatusSchema } from '../sync/status.ts';
import { z } from 'zod';
import { ErrorDataSchema, ShardAttempt, SyncLayout, SyncTableRef } from '@tributary/protocol';
import { AUDIT_FLAGS } from '@tributary/table';
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
  filesPerLevel: z.record(z.string(), z.number().int()).describe('Live data files of the latest snapshot by LSM level ("0": not compacted yet)'),
  totalFileSize: z.number().int().describe('Bytes of the live data files'),
  averageFileSize: z.number().int().describe('Mean size of a live data file in bytes (0 without files)'),
  snapshotCount: z.number().int().describe('Snapshots present (not expired)'),
  earliestSnapshotId: z.number().int().nullable(),
  orphans: z
    .object({
      scannedAt: z.string(),
      dryRun: z.boolean(),
      fileCount: z.number().int(),
      bytes: z.number().int(),
    })
    .nullable()
    .describe('Orphan files left after the last orphan cleanup or dry run (null: never scanned); not recomputed by this request'),
});

export const ExpireRequest = z
  .object({
    retainMin: z.number().int().min(1).max(2_147_483_647).optional().describe('Overrides snapshot.num-retained.min'),
    retainMax: z.number().int().min(1).max(2_147_483_647).optional().describe('Overrides snapshot.num-retained.max'),
    timeRetainedMs: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).optional().describe('Overrides snapshot.time-retained'),
    maxDeletes: z.number().int().min(1).max(1_000_000).optional().describe('Overrides snapshot.expire.limit'),
  })
  .strict()
  .nullish();

export const ExpireResponse = z.object({
  expired: z.array(z.number().int()),
  earliestSnapshotId: z.number().int().nullable(),
  deletedDataFiles: z.number().int(),
  deletedChangelogFiles: z.number().int(),
  deletedManifests: z.number().int(),
});

/** Files listed in an orphan cleanup's answer at most (the totals count them all). */
export const ORPHAN_FILES_SHOWN = 1000;

export const OrphanCleanupRequest = z
  .object({
    olderThanMs: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).optional().describe('Guard age: only files last modified at least this long ago (default 86400000, one day)'),
    dryRun: z.boolean().optional().describe('List only, delete nothing (default true)'),
  })
  .strict()
  .nullish();

export const OrphanCleanupResponse = z.object({
  dryRun: z.boolean(),
  olderThanMs: z.number().int(),
  scannedAt: z.string(),
  fileCount: z.number().int(),
  bytes: z.number().int(),
  files: z.array(z.object({ key: z.string(), size: z.number().int(), lastModified: z.string() })).describe(`The first ${ORPHAN_FILES_SHOWN} orphans (keys in the warehouse)`),
  truncated: z.boolean(),
});

export const StartSyncHeaders = z.object({
  'idempotency-key': z.string().min(1).max(200).optional(),
});

export const SyncParams = z.object({ id: z.string().min(1).max(100) });

export const AbortBody = z.object({ reason: z.string().max(1000).optional() }).nullish();

export const ShardView = z.object({
  id: z.string(),
  /** The shard's part of the source, as planned. */
  spec: z.record(z.string(), z.unknown()),
  acceptedAttempt: z.string().nullable(),
  attempts: z.array(ShardAttempt.extend({ durationMs: z.number().nullable() })),
  /**
   * Progress of the shard's current attempt (the accepted one, else the latest running one; null
   * without either): rows read and data-file bytes written, so far while it runs (reported a few
   * times a second), the totals once accepted.
   */
  rows: z.number().int().nullable().describe('Rows read by the current attempt: so far while it runs, the total once accepted; null without a running or accepted attempt.'),
  bytes: z.number().int().nullable().describe('Data-file bytes written by the current attempt (so far while it runs; the total once accepted).'),
  startedAt: z.string().nullable().describe('When the current attempt started.'),
  updatedAt: z.string().nullable().describe('When the current attempt last reported progress (or ended).'),
  durationMs: z.number().nullable(),
  error: ShardAttempt.shape.error,
});

/** The state without the accepted attempt of every shard (each page of shards shows its own). */
export const SyncStateView = z.union([
  SyncStateSchema.options[0],
  SyncStateSchema.options[1],
  SyncStateSchema.options[2].omit({ accepted: true }),
  SyncStateSchema.options[3].omit({ accepted: true, bucketStage: true }),
  SyncStateSchema.options[4].omit({ accepted: true, bucketStage: true }),
  SyncStateSchema.options[5],
  SyncStateSchema.options[6],
]);

/** One stage of a sync: its jobs and the rows and bytes of their current (or accepted) attempts. */
export const StageProgress = z.object({
  /** Jobs of the stage; null while not known (the buckets before MERGING). */
  total: z.number().int().nullable(),
  /** Jobs with an accepted attempt. */
  accepted: z.number().int(),
  rows: z.number().int().describe('Rows of the jobs\u2019 accepted attempts, else of their latest running ones, so far.'),
  bytes: z.number().int().describe('Bytes the same attempts wrote, so far (shards: data files or sorted runs; buckets: data files).'),
});

export const ShardCounts = z.object({
  total: z.number().int(),
  /** Shards with an accepted attempt. */
  accepted: z.number().int(),
  /** Shards that at least one attempt has started on. */
  attempted: z.number().int(),
});

export const ShardsQuery = z.object({
  cursor: z.string().max(200).optional(),
  limit: z.coerce.number().int().min(1).max(1000).default(100),
});

export const ShardsPage = z.object({
  shards: z.array(ShardView),
  /** Pass as `cursor` for the next page; null after the last shard. */
  nextCursor: z.string().nullable(),
});

export const SyncResponse = z.object({
  id: z.string(),
  version: z.number().int(),
  phase: SyncPhaseSchema,
  state: SyncStateView,
  /** The plan without its shard list: the shards are paged (`shards`, then GET /v1/syncs/{id}/shards). */
  plan: SyncPlanSchema.omit({ shards: true }),
  shardCounts: ShardCounts,
  rowsRead: z.number().int().describe('Rows read by the running and finished shards (each shard\u2019s accepted attempt, else its latest running one), so far.'),
  bytesWritten: z.number().int().describe('Data-file bytes written by the same attempts, so far.'),
  rejectedRows: z.number().int().describe('Rows the same attempts left out of the table under the `reject` bad-row policy (GET /v1/syncs/{id}/rejects lists their files).'),
  snapshotId: z.number().int().nullable(),
  /**
   * Primary keys present in more than one shard (each kept the row of the later shard in plan
   * order, or of the greater `sequence.field`); null before the commit began and for append tables.
   */
  collidingKeys: z.number().int().nullable(),
  /** How the shards write: `bucketed` (sorted runs, then one writer per bucket) or `direct`. */
  layout: SyncLayout,
  /**
   * Progress per stage: `shards` (read the source; direct: wrote the data files, bucketed: wrote
   * sorted runs) and `buckets` (bucketed only, null otherwise: merged the runs into the data files).
   */
  stages: z.object({ shards: StageProgress, buckets: StageProgress.nullable() }),
  /** Data files this load adds to the table, known once its commit began (null before). */
  files: z.number().int().nullable(),
  /** Conditions an operator should know of, such as a direct load that produced more than 1,000 files. */
  warnings: z.array(z.string()),
  timings: z.partialRecord(SyncPhaseSchema, z.string()),
  /** Milliseconds spent in each finished phase. */
  phaseDurationsMs: z.partialRecord(SyncPhaseSchema, z.number()),
  /** The first page of shards, in plan order. */
  shards: z.array(ShardView),
  /** Cursor of the next page for GET /v1/syncs/{id}/shards; null when `shards` is all of them. */
  nextShardsCursor: z.string().nullable(),
});
export type SyncResponse = z.infer<typeof SyncResponse>;

/** GET /v1/syncs/{id}/rejects: the rejects files of the shards' accepted attempts (the `reject` bad-row policy). */
export const RejectsResponse = z.object({
  syncId: z.string(),
  policy: z.enum(['fail', 'reject']),
  /** Rows rejected by accepted attempts (a shard not yet accepted counts nothing). */
  rejectedRows: z.number().int(),
  files: z.array(
    z.object({
      shardId: z.string(),
      attemptId: z.string(),
      rows: z.number().int(),
      /** The file's key in the warehouse: one JSON object per rejected row (shard, row, column, reason, values). */
      key: z.string(),
    }),
  ),
});
export type RejectsResponse = z.infer<typeof RejectsResponse>;

/** One line of GET /v1/syncs (the store keeps it beside each record). */
export const SyncSummary = SyncSummarySchema;

/** GET /v1/syncs/:id/status: the summary with the shard counts (sync/status.ts). */
export const SyncStatus = SyncStatusSchema;

export const ListSyncsQuery = z.object({
  state: SyncPhaseSchema.optional(),
  database: z.string().optional(),
  table: z.string().optional(),
  limit: z.coerce.number().int().min(1).max(500).default(50),
  /** A page's `nextCursor`: the syncs listed after its last one. */
  cursor: z.string().max(400).optional(),
});

export const StartSyncResponse = z.object({ id: z.string(), phase: SyncPhaseSchema, created: z.boolean() });

export const TableSummary = z.object({
  database: z.string(),
  table: z.string(),
  primaryKeys: z.array(z.string()),
  partitionKeys: z.array(z.string()),
  /** The `bucket` option: N fixed buckets; -1 bucket-unaware (append) or dynamic. */
  bucket: z.number().int(),
  latestSnapshotId: z.number().int().nullable(),
});

export const PageQuery = z.object({
  cursor: z.string().max(400).optional(),
  limit: z.coerce.number().int().min(1).max(1000).default(100),
});

export const TablesPage = z.object({
  tables: z.array(TableSummary),
  /** Pass as `cursor` for the next page; null after the last table. */
  nextCursor: z.string().nullable(),
});

const SnapshotIdQuery = z.coerce.number().int().min(1).max(Number.MAX_SAFE_INTEGER).optional();

/** Rows a preview may ask for. */
export const MAX_PREVIEW_ROWS = 1000;

export const RowsQuery = z.object({
  limit: z.coerce.number().int().min(1).max(MAX_PREVIEW_ROWS).default(20),
  snapshot: SnapshotIdQuery,
});

export const JsonCellSchema = z.union([z.string(), z.number(), z.boolean(), z.null()]);

export const RowsResponse = z.object({
  /** The snapshot read; null when the table has none (no rows). */
  snapshotId: z.number().int().nullable(),
  columns: z.array(z.object({ name: z.string(), type: z.string() })),
  /** Each row's values in column order: BIGINT and DECIMAL as text, bytes base64, dates and times ISO text. */
  rows: z.array(z.array(JsonCellSchema)),
});

export const SnapshotView = z.object({
  id: z.number().int(),
  commitKind: z.string(),
  time: z.string(),
  commitUser: z.string(),
  totalRecordCount: z.number().int(),
  deltaRecordCount: z.number().int(),
  changelogRecordCount: z.number().int().nullable(),
  properties: z.record(z.string(), z.string()),
});

export const SnapshotsPage = z.object({
  /** Newest first. */
  snapshots: z.array(SnapshotView),
  nextCursor: z.string().nullable(),
});

export const FilesQuery = PageQuery.extend({ snapshot: SnapshotIdQuery });

export const DataFileView = z.object({
  partition: z.string(),
  bucket: z.number().int(),
  level: z.number().int(),
  path: z.string(),
  rows: z.number().int(),
  size: z.number().int(),
});

export const FilesPage = z.object({
  /** The snapshot listed; null when the table has none. */
  snapshotId: z.number().int().nullable(),
  /** Sorted by path. */
  files: z.array(DataFileView),
  nextCursor: z.string().nullable(),
});

/** `GET /v1/tables/{db}/{table}/changelog`: a window of snapshots, optionally one key (one `key` per key column, in order). */
/** A key of the changelog audit: at most this many primary-key columns, each at most this many characters. */
const KEY_COLUMNS_MAX = 8;
const KEY_TEXT_MAX = 128;

export const ChangelogQuery = z.object({
  from: SnapshotIdQuery,
  to: SnapshotIdQuery,
  // Bounded so that the longest URL still fits Node's 16 KiB request head (past it Node answers 431 before routing).
  key: z
    .union([z.string().max(KEY_TEXT_MAX), z.array(z.string().max(KEY_TEXT_MAX)).max(KEY_COLUMNS_MAX)])
    .optional()
    .transform((k) => (k === undefined ? undefined : Array.isArray(k) ? k : [k])),
  limit: z.coerce.number().int().min(1).max(1000).default(100),
});

const AuditFlagSchema = z.enum(AUDIT_FLAGS);

export const ChangelogAuditResponse = z.object({
  /** The window audited (null: the table has no snapshot); ask again from nextFrom for the next one. */
  from: z.number().int().nullable(),
  to: z.number().int().nullable(),
  nextFrom: z.number().int().nullable(),
  columns: z.array(z.object({ name: z.string(), type: z.string() })),
  keyColumns: z.array(z.string()),
  keys: z.array(
    z.object({
      partition: z.string(),
      bucket: z.number().int(),
      key: z.array(JsonCellSchema),
      events: z.array(
        z.object({
          snapshotId: z.number().int(),
          commitKind: z.string(),
          commitUser: z.string(),
          file: z.string(),
          sequenceNumber: z.string(),
          rowKind: z.enum(['+I', '-U', '+U', '-D']),
          row: z.array(JsonCellSchema),
        }),
      ),
      /** `event`: the index in events of the row that raised the flag; null for the key as a whole. */
      findings: z.array(z.object({ snapshotId: z.number().int(), flag: AuditFlagSchema, event: z.number().int().nullable() })),
    }),
  ),
  counts: z.record(AuditFlagSchema, z.number().int()),
  /** More keys than `limit` were touched: those past it are not in `keys`. */
  truncated: z.boolean(),
});
