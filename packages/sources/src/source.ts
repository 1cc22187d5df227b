/**
 * The source contract. Every source kind (a folder of this package: generator/, files/, mysql/)
 * gives one `SourceKind`: its spec (zod, the `source` member of a sync request), what the spec
 * alone says, and `create(spec, context)`, a `Source` bound to the process's context. The
 * coordinator and the worker look a kind up in the registry (registry.ts) and know nothing else
 * about it:
 *
 * - `check()` refuses what can be refused without reading the source: a URI outside the source
 *   roots, an unknown connection, inline credentials. Schedules check this when they are stored.
 * - `plan(ctx)` (coordinator) resolves the source into an exact list of shards, each with a stable
 *   id and a plain JSON spec (a MySQL shard is `{database, table, key, from?, to?}`; a file shard a
 *   list of URIs; a generator shard its index). The coordinator persists this list before anything
 *   runs and never lists the source again.
 * - `columns()` (worker) is the source's schema: names and what the source knows of each column's
 *   type. The worker converts every value to the table column of the same name (values/convert.ts),
 *   so a source never needs to know the table's types.
 * - `open(shard, from, signal)` (worker) streams a shard as batches of rows, each batch ending at a
 *   `position` that is enough to resume after it (a MySQL shard: the last primary key; a file: the
 *   row count or `{file, row}`; the generator: the row index). A batch is the unit of memory: a
 *   worker holds one at a time. When the signal aborts (the sync was aborted), a source that holds a
 *   server-side resource cancels it (MySQL kills its query); the worker stops waiting either way.
 *   A batch may also carry the read's `readPosition` in the source (a server's log position at
 *   the read, the files read with their sizes and ETags): the worker puts the last one given into
 *   its blob, and the coordinator folds the shards' positions into the snapshot's properties.
 * - `identity()` (on the kind) is what makes two syncs read "the same source": the fields that
 *   name what is read, never a secret; an incremental load continues from the watermark of the
 *   last snapshot of its table with the same identity.
 */
import type { ShardReadPosition } from '@tributary/protocol';
import type { Column, DataType, ObjectStore, Timestamp } from '@tributary/table';
import type { z } from 'zod';
import type { S3Credentials, SourceAccess } from './access.ts';

/**
 * A value as a source yields it, before conversion to the table type. A `Timestamp` (epoch millis
 * + nanos of the milli) is an exact instant finer than a Date (Parquet MICROS/NANOS, INT96).
 */
export type SourceValue = string | number | bigint | boolean | Date | Uint8Array | Timestamp | null;

export type SourceRow = readonly SourceValue[];

export interface SourceColumn {
  readonly name: string;
  /** What the source knows about the column (its own type name), for error messages. */
  readonly sourceType: string;
}

/** An opaque, JSON-serialisable point in a shard after which reading can resume. */
export type SourcePosition = string | number | Readonly<Record<string, string | number>>;

export interface SourceBatch {
  readonly rows: readonly SourceRow[];
  /** The position of the first row of the batch (for error messages: the position of row i is found from it). */
  readonly firstRowPosition: number;
  /** Where to resume after this batch. */
  readonly end: SourcePosition;
  /** When every row of the batch comes from one file: its URI and the file's row index of the first row (for error messages). */
  readonly file?: { readonly uri: string; readonly firstRow: number };
  /**
   * The read position: where the read stands in the source for the rows given so far (optional),
   * in the one shape every kind, the worker's blob (`BlobHeader.readPosition`) and the snapshot's
   * `tributary.positions` share: a server's log position taken inside the read's snapshot (MySQL:
   * binlog `file`/`offset`, `gtid`, `consistent`; PostgreSQL: `lsn`, `database`, `snapshot`), or
   * every file read so far with its size and ETag. The worker keeps the last one a shard gives; a
   * source that has one gives it at least once, on a batch without rows when the shard is empty.
   * Not a resume point (that is `end`).
   */
  readonly readPosition?: ShardReadPosition;
  /**
   * The same rows as the cells the source read them as, when it can write them into the table's
   * columns itself (PostgreSQL's binary COPY): a converter takes the batch's columns from these, and
   * `rows` is then decoded only when read. Its `length` is the batch's row count.
   */
  readonly columnar?: ColumnarCells;
}

/** A batch's cells, which the source writes into the table's column vectors itself where it can. */
export interface ColumnarCells {
  /** Rows. */
  readonly length: number;
  /**
   * Writes source column `index` into `column`, a table column of type `type`, in row order: each
   * cell the source reads itself goes straight into its slot, with exactly the value the value
   * converter gives its source value (and never one the converter refuses); every other cell,
   * NULLs included, is handed to `other` as its source value, the one `rows` holds.
   */
  fill(index: number, type: DataType, column: Column, other: (r: number, value: SourceValue) => void): void;
}

export interface PlannedSourceShard {
  readonly id: string;
  readonly spec: Readonly<Record<string, unknown>>;
}

/** Opens the store of a source file's directory (s3://… or file://…). */
export type OpenStore = (root: string) => ObjectStore;

/** What a process gives every source it creates: the coordinator to plan, a worker to read. */
export interface SourceContext {
  /** Opens the store of a source root with the process's own credentials. */
  readonly openStore: OpenStore;
  /** Opens it with a source's own S3 credentials (a files source that names an S3 connection). */
  readonly openCredentialedStore?: (root: string, s3: S3Credentials) => ObjectStore;
  /** The table's column names, in order: sources without a fixed schema (files) project onto them. */
  readonly columns: readonly string[];
  /** This process's connections and source roots: a spec is checked against them, whatever it says. */
  readonly access: SourceAccess;
}

/** A column of the target table, with its Paimon type. */
export interface TargetColumn {
  readonly name: string;
  readonly type: DataType;
}

/** What planning needs beyond the context: the target's types, and the shard limit. */
export interface PlanContext {
  /** The target table's columns: a source with a schema of its own (MySQL) checks it against them. */
  readonly target: readonly TargetColumn[];
  /** At most this many shards; a source that finds more stops listing and throws `tooManyShards`. */
  readonly maxShards: number;
  /** The planner's own error for too many shards (`planned`: the count, or "more than N"). */
  readonly tooManyShards: (planned: string) => Error;
  /** The planner's own error for a request that cannot be planned as it is (no file matches a URI). */
  readonly refuse: (message: string, context: Readonly<Record<string, string>>) => Error;
  /**
   * The planner's own error for a source column that does not fit the table (400, naming the
   * column): every kind checks its columns against `target` at plan time, before anything runs.
   */
  readonly mismatch: (column: string, message: string) => Error;
  /** What earlier snapshots of the table recorded of this source (incremental loads). */
  readonly history: PlanHistory;
  /** The planner's own error for a load that finds nothing new to read (newFilesOnly: every file is loaded already). */
  readonly nothingToLoad: (message: string) => Error;
  /** An incremental load tells the planner its bounds (persisted with the plan; `upTo` is committed as the new watermark). */
  readonly fixWatermark: (watermark: Watermark) => void;
}

/** What the table's committed snapshots say about earlier loads of the same source. */
export interface PlanHistory {
  /** The watermark of `column` the last load of this source committed (null: none yet). */
  watermark(column: string): Promise<string | null>;
  /** Every file (`uri` NUL `etag`) a committed snapshot of the table lists as loaded. */
  loadedFiles(): Promise<ReadonlySet<string>>;
}

/** An incremental load's bounds, fixed at plan time: rows with `after < column <= upTo` (after null: from the start). */
export interface Watermark {
  readonly column: string;
  readonly after: string | null;
  /** The column's maximum when planned (null: the source had no row), committed as the new watermark. */
  readonly upTo: string | null;
}

/** A table made from a source's schema (`POST /v1/tables` with `fromSource`). */
export interface SourceSchema {
  readonly columns: readonly { readonly name: string; readonly type: string }[];
  readonly primaryKeys: readonly string[];
  /** The source's size as far as it knows (bytes of data), for the bucket count. */
  readonly bytes: number;
}

export interface Source {
  readonly kind: string;
  /** What can be refused without reading the source (access, URIs); resolves when nothing is. */
  check(): Promise<void>;
  /** The exact shard list (coordinator); refuses at least what `check()` refuses, and columns that do not fit. */
  plan(ctx: PlanContext): Promise<readonly PlannedSourceShard[]>;
  /** The source's own schema, as table columns, with its primary key and size (coordinator, table creation); a kind without one leaves it out. */
  schema?(): Promise<SourceSchema>;
  /** The columns the shards' rows carry, in row order (worker). */
  columns(): Promise<readonly SourceColumn[]>;
  /** One shard's rows, from its start or after `from` (worker). */
  open(shard: PlannedSourceShard, from?: SourcePosition, signal?: AbortSignal): AsyncIterable<SourceBatch>;
}

/** What a spec says by itself, before the table or the source is looked at. */
export interface SpecSummary {
  /** The field of a test hook the spec sets (refused outside test mode), relative to the spec. */
  readonly testHook?: string;
  /** How many shards it will plan, when the spec alone says. */
  readonly shards?: number;
}

/** One kind of source: a folder of this package, one line of the registry. */
export interface SourceKind<Schema extends z.ZodType<{ readonly kind: string }> = z.ZodType<{ readonly kind: string }>> {
  readonly kind: z.infer<Schema>['kind'];
  /** The `source` member of a sync request of this kind. */
  readonly spec: Schema;
  summary(spec: z.infer<Schema>): SpecSummary;
  /**
   * What names the data a spec reads, without secrets and without how it is read (batch sizes,
   * shard sizes, incremental options): syncs whose identities are equal read the same source.
   * Default (registry.ts `sourceIdentity`): the spec without secrets and without those options.
   */
  identity?(spec: z.infer<Schema>): Readonly<Record<string, unknown>>;
  /** The source a spec (valid by `spec`) describes, bound to the process's context. */
  create(spec: z.infer<Schema>, context: SourceContext): Source;
}

/** Declares a kind (only to check it against the contract while keeping its spec's own type). */
export function sourceKind<Schema extends z.ZodType<{ readonly kind: string }>>(kind: SourceKind<Schema>): SourceKind<Schema> {
  return kind;
}
