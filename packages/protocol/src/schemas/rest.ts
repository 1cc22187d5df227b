/**
 * Bodies of the coordinator's REST API (`/v1/tables`, `/v1/syncs`) and its error body. The
 * coordinator registers these with fastify-type-provider-zod, so they also make the OpenAPI
 * document. A sync's source is described by the sources package (`@tributary/sources`
 * `SyncSourceSpec`, the union of every source kind's spec), which depends on this package; so the
 * sync request is built from it by `startSyncRequest(sourceSpec)` in the coordinator, and this
 * package never learns the source kinds. Job payloads and results are in ../sync-schemas.ts.
 */
import { z } from 'zod';
import { DeleteMarker, FullExtract, SyncLayout, SyncTableRef } from '../sync-schemas.ts';
import { BadRowPolicy, Identifier, StringMap, SyncMode } from './common.ts';

/**
 * The field names Paimon keeps for itself: Java's `SpecialFields.SYSTEM_FIELD_NAMES` and its
 * `_KEY_` prefix, which `SchemaValidation.validateTableSchema` refuses in a table schema (Paimon
 * 1.4). A table that has one is written, but pypaimon and Paimon Java refuse to read it.
 */
const PAIMON_SYSTEM_FIELDS: ReadonlySet<string> = new Set(['_SEQUENCE_NUMBER', '_VALUE_KIND', '_LEVEL', 'rowkind', '_ROW_ID']);
const PAIMON_KEY_PREFIX = '_KEY_';

/**
 * A column name: an Identifier that is not one of Paimon's system field names. The one rule for
 * every column of a new table, given in `columns` or made from a source's schema (`fromSource`).
 */
export const ColumnName = Identifier.refine(
  (name) => !PAIMON_SYSTEM_FIELDS.has(name) && !name.startsWith(PAIMON_KEY_PREFIX),
  `a name Paimon keeps for its system fields (${[...PAIMON_SYSTEM_FIELDS].join(', ')}, or starting with ${PAIMON_KEY_PREFIX})`,
);
export type ColumnName = z.infer<typeof ColumnName>;

/**
 * One column. `type` is a Paimon type string as in schema JSON ("BIGINT NOT NULL",
 * "VARCHAR(32)", "DECIMAL(10, 2)", "TIMESTAMP(3)"); @tributary/table parses it, so an unknown
 * type is refused there with its own code.
 */
export const ColumnSpec = z.strictObject({
  name: ColumnName,
  type: z.string().min(1).max(512),
  description: z.string().max(4096).optional(),
});
export type ColumnSpec = z.infer<typeof ColumnSpec>;

/**
 * `POST /v1/tables`. `bucket`: -1 (unaware) for append tables, N ≥ 1 fixed buckets; a
 * primary-key table needs fixed buckets (dynamic and postpone buckets are refused in v1,
 * architecture.md "Format scope").
 */
export const CreateTableRequest = z
  .strictObject({
    database: Identifier,
    name: Identifier,
    columns: z.array(ColumnSpec).min(1).max(4096),
    partitionKeys: z.array(Identifier).default([]),
    primaryKeys: z.array(Identifier).default([]),
    bucket: z.number().int().min(-1).max(65_536).refine((b) => b !== 0, 'bucket is -1 or at least 1').default(-1),
    options: StringMap.default({}),
    comment: z.string().max(4096).optional(),
  })
  .superRefine((t, ctx) => {
    const names = new Set<string>();
    t.columns.forEach((c, i) => {
      if (names.has(c.name)) ctx.addIssue({ code: 'custom', path: ['columns', i, 'name'], message: `duplicate column ${c.name}` });
      names.add(c.name);
    });
    for (const key of ['partitionKeys', 'primaryKeys'] as const) {
      t[key].forEach((k, i) => {
        if (!names.has(k)) ctx.addIssue({ code: 'custom', path: [key, i], message: `unknown column ${k}` });
      });
    }
    if (t.primaryKeys.length > 0) {
      if (t.bucket < 1) ctx.addIssue({ code: 'custom', path: ['bucket'], message: 'a primary-key table needs fixed buckets (bucket >= 1)' });
      // Paimon: the primary key must contain every partition field.
      t.partitionKeys.forEach((k, i) => {
        if (!t.primaryKeys.includes(k)) {
          ctx.addIssue({ code: 'custom', path: ['partitionKeys', i], message: `partition key ${k} is not in the primary key` });
        }
      });
    }
  });
export type CreateTableRequest = z.infer<typeof CreateTableRequest>;

/**
 * `POST /v1/tables` with `fromSource` instead of `columns`: the table is made from the source's own
 * schema (its columns and types, its primary key unless `primaryKeys` is given, and a bucket count
 * from its size unless `bucket` is given; the coordinator's README states the rule). `source` is
 * the union of the source kinds' specs, as for a sync.
 */
export function createTableFromSourceRequest<Source extends z.ZodType>(source: Source) {
  return z.strictObject({
    database: Identifier,
    name: Identifier,
    fromSource: source,
    partitionKeys: z.array(Identifier).default([]),
    primaryKeys: z.array(Identifier).optional(),
    bucket: z.number().int().min(-1).max(65_536).refine((b) => b !== 0, 'bucket is -1 or at least 1').optional(),
    options: StringMap.default({}),
    comment: z.string().max(4096).optional(),
  });
}

/** The prefix of the snapshot properties Tributary writes itself (the source, its positions, the watermark). */
export const RESERVED_PROPERTY_PREFIX = 'tributary.';

/** Attempts of a shard or bucket job unless a sync says otherwise (SyncOptions.maxAttempts). */
export const DEFAULT_MAX_ATTEMPTS = 5;

/**
 * The first wait before a failed shard or bucket job runs again; each later wait doubles (BullMQ's
 * exponential backoff, with up to a fifth taken off at random so that jobs failed together do not
 * retry together). With DEFAULT_MAX_ATTEMPTS the waits are about 2 + 4 + 8 + 16 = 30 s.
 */
export const JOB_BACKOFF_MS = 2000;

/** Per-sync settings; every field has a default. */
export const SyncOptions = z.strictObject({
  /**
   * Attempts per shard job and per bucket job before it votes NO (BullMQ `attempts`). A transient
   * failure (storage or source unavailable, a connection lost) is retried after about 2, 4, 8, 16, …
   * seconds (JOB_BACKOFF_MS, doubling, up to a fifth less): the default 5 rides out an outage of
   * about half a minute. A deterministic failure (a bad row, a schema mismatch) fails at once.
   */
  maxAttempts: z.number().int().min(1).max(100).default(DEFAULT_MAX_ATTEMPTS),
  /** Abort the sync if PREPARE has not finished after this long. */
  prepareTimeoutMs: z.number().int().min(1_000).max(7 * 24 * 3600 * 1000).optional(),
  /**
   * Properties written into the snapshot's `properties` (the sync id is always added). Keys starting
   * `tributary.` are the load's own (its source, positions and watermark, which later loads trust):
   * a request may not set them.
   */
  snapshotProperties: StringMap.refine((m) => !Object.keys(m).some((k) => k.startsWith(RESERVED_PROPERTY_PREFIX)), {
    message: `keys starting "tributary." are written by Tributary, not by a request`,
  }).default({}),
  /**
   * Once the sync is COMMITTED, plan a compaction of the table (Paimon's universal or append rules,
   * as `POST /v1/tables/{db}/{table}/compactions` without `full`): like a Paimon writer that is not
   * write-only. It runs as its own compaction and never fails the committed sync.
   */
  compactAfter: z.boolean().optional(),
  /**
   * A row with a value that does not fit its column (out of range, NULL in a NOT NULL column, not
   * convertible): `fail` fails its shard, naming the shard, the row and the column, and the sync
   * aborts; `reject` leaves it out of the table and writes it to the shard's rejects file, counted
   * in the sync's status and listed by `GET /v1/syncs/{id}/rejects`.
   */
  badRows: BadRowPolicy.default('fail'),
  /**
   * `bucketed`: shards write sorted runs and one job per (partition, bucket) writes the bucket's
   * files (files per load = partitions × buckets × size splits, whatever the shard count);
   * `direct`: every shard writes into every bucket it touches (lowest latency, more files).
   * Default: `bucketed` for primary-key tables, `direct` for append tables.
   */
  layout: SyncLayout.optional(),
  /**
   * Deletes carried by a primary-key load: rows whose `column` (a column of the table, not of its
   * primary key; BOOLEAN, integer or string) holds one of `values` delete their key. Checked when
   * the sync is planned.
   */
  deleteMarker: DeleteMarker.optional(),
  /**
   * The load is the whole content of one partition of a primary-key table (`{"region": "eu"}`, each
   * value as the partition's directory name writes it; `{}` unpartitioned): keys stored there and absent from the load are deleted, committed as APPEND.
   * Needs the bucketed layout, a fixed bucket count and mode append or upsert.
   */
  fullExtract: FullExtract.optional(),
});
export type SyncOptions = z.infer<typeof SyncOptions>;

/** `POST /v1/syncs`, with `source` the union of the source kinds' specs. */
export function startSyncRequest<Source extends z.ZodType>(source: Source) {
  return z.strictObject({
    table: SyncTableRef,
    source,
    mode: SyncMode.default('append'),
    options: SyncOptions.default({ maxAttempts: DEFAULT_MAX_ATTEMPTS, snapshotProperties: {}, badRows: 'fail' }),
  });
}

/**
 * An error answer, `application/problem+json` (RFC 9457), with Tributary's stable `code` and
 * `retryable` flag as extension members (errors.ts `ErrorData`).
 */
export const ProblemDetails = z.looseObject({
  type: z.string().default('about:blank'),
  title: z.string(),
  status: z.number().int().min(400).max(599),
  detail: z.string().optional(),
  instance: z.string().optional(),
  code: z.string().min(1),
  retryable: z.boolean(),
  context: z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()])).optional(),
});
export type ProblemDetails = z.infer<typeof ProblemDetails>;
