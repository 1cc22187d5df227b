/**
 * The source contract. Designed for the sources to come (MySQL 分库分表, PostgreSQL, files) as
 * much as for the generator:
 *
 * - `plan()` resolves the source into an exact list of shards, each with a stable id and a plain
 *   JSON spec (a MySQL shard is `{database, table, pkRange}`; a file shard a list of URIs). The
 *   coordinator persists this list before anything runs.
 * - `columns()` is the source's schema: names and the kind of value each column yields. The worker
 *   converts every value to the table column of the same name (convert.ts), so a source never needs
 *   to know the table.
 * - `open(shard, from)` streams a shard as batches of rows, each batch ending at a `position` that is
 *   enough to resume after it (a MySQL shard: the last primary key; a file: the byte offset; the
 *   generator: the row index). A batch is the unit of memory: a worker holds one at a time.
 * - `open(shard, from, signal)`: when the signal aborts (the sync was aborted), a source that holds
 *   a server-side resource cancels it (MySQL kills its query); the worker stops waiting either way.
 */

import type { Timestamp } from '@tributary/table';

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
}

export interface PlannedSourceShard {
  readonly id: string;
  readonly spec: Readonly<Record<string, unknown>>;
}

export interface Source {
  readonly kind: string;
  columns(): Promise<readonly SourceColumn[]>;
  plan(): Promise<readonly PlannedSourceShard[]>;
  open(shard: PlannedSourceShard, from?: SourcePosition, signal?: AbortSignal): AsyncIterable<SourceBatch>;
}
