/**
 * The bucket stage of a load: the one writer of a (partition, bucket). The writers of the load
 * (a sync's shards) have each written sorted runs of the bucket somewhere outside the table
 * (TableWriteOptions.dataPath); this merges them into the bucket's data files, so a load adds
 * ⌈bytes / target-file-size⌉ files per bucket whatever the number of writers.
 *
 *   primary key:  run files ─► k-way merge by (key, sequence.field…, _SEQUENCE_NUMBER)
 *                           ─► one record per key: the greatest (a retraction stays a retraction)
 *                           ─► KeyValueFileWriter, files rolled at target-file-size
 *   append:       run files in run order ─► DataFileWriter, files rolled at target-file-size
 *
 * Which record a key keeps is the rule of a direct load ("Which row a key keeps" in
 * docs/architecture.md): each writer numbered its rows in its own slot's sequence range, so the
 * greatest `_SEQUENCE_NUMBER` is the later writer in plan order, then the later row; `sequence.field`
 * decides before either. Records keep their sequence numbers, so a commit's rebase works as for a
 * direct load.
 *
 * Memory: one row group (a run block) per run being read, of at most MERGE_FAN_IN runs at once (a
 * primary-key bucket of more runs is merged in passes through intermediate runs, mergedKeyValues),
 * small run files whole up to a fixed budget (RunBudget), plus one output batch (which references
 * the runs' row groups it copies from until it is taken) and one row group of the output file (the
 * writer holds rows until a row group is full, parquet-writer.ts); never the bucket.
 *
 * `mergeBucket` = `writeMergedBucket(mergeBucketRuns(…))`: the merge yields the merged rows of the
 * bucket in key order, the write turns rows into files. A later step that needs the merged rows
 * (say a changelog) goes between the two.
 */
import { randomUUID } from 'node:crypto';
import type { ObjectStore } from '../io/object-store.ts';
import { compareRowsAt, prepareColumns, SegmentBuilder, type PreparedColumns } from '../format/batch-merge.ts';
import { valueAt, type Column, type ColumnBatch } from '../format/column-batch.ts';
import { compareInternal } from '../format/column-stats.ts';
import { keyValueRowType } from '../format/key-value.ts';
import { LoserTree } from '../format/loser-tree.ts';
import { ParquetDataFileReader } from '../parquet/parquet-reader.ts';
import { mapInOrder } from '../snapshot/file-store-scan.ts';
import { DataFileWriter } from '../parquet/parquet-writer.ts';
import { dataFilesMessage, type CommitMessage } from '../spec/commit-message.ts';
import type { DataFileMeta } from '../spec/data-file-meta.ts';
import { dataFilePaths, partitionPathOptions } from '../spec/partition-path.ts';
import { fieldsByName, partitionFields, trimmedPrimaryKeys, type TableSchema } from '../spec/table-schema.ts';
import type { DataField, InternalValue, RowType } from '../spec/types.ts';
import { appendFileMeta, keyValueFileMeta, localCreationTime, valueStatsOptions, type FileMetaContext } from './data-file-metas.ts';
import { APPEND_FILE, fileCompression, type FileKind } from '../spec/file-options.ts';
import { KeyValueFileWriter } from './key-value-writer.ts';
import { parseMemorySize } from './manifest-merge.ts';
import { objectStoreSink } from './object-sink.ts';
import { parseRunSegment, readRunSegment, RUN_BLOCK_ROWS, RunSpill, type RunSegment } from './run-spill.ts';

/** One run file of the bucket. */
export interface BucketRunFile {
  /**
   * The file's name in the bucket's directory under `runsPath`, or a segment of a spill object
   * under `runsPath` (`<object>#<offset>`, run-spill.ts; `size` is the segment's length).
   */
  readonly fileName: string;
  readonly size: number;
  /** The file's rows, when the caller knows them (a run in the run encoding is checked against them). */
  readonly rows?: number;
  /** The writer's place in the load (a shard's index in plan order): counts keys written by several writers. */
  readonly slot: number;
  /** The first sequence number of the file (append tables number the merged files from the smallest). */
  readonly minSequence: bigint;
}

export interface BucketMergeInput {
  readonly store: ObjectStore;
  /** The table's path in the store (the merged files go to `<tablePath>/<partition path>bucket-N/`). */
  readonly tablePath: string;
  /**
   * Where the writers put their runs (TableWriteOptions.dataPath): the run files of the bucket are
   * in `<runsPath>/<partition path>bucket-N/`.
   */
  readonly runsPath: string;
  /** The schema the runs were written with, the one the load pinned. */
  readonly schema: TableSchema;
  readonly partition: Uint8Array;
  readonly bucket: number;
  readonly totalBuckets: number | null;
  /**
   * The runs in the writers' order (slot, then the order each writer flushed them). For a
   * primary-key table each file is one sorted run with unique keys, as TableWrite writes them.
   */
  readonly runs: readonly BucketRunFile[];
  /** Starts every file name, `data-<writerId>-<uuid>-<n>.parquet` (as TableWriteOptions.writerId). */
  readonly writerId: string;
  /** Overrides the table's `target-file-size`. */
  readonly targetFileSize?: number;
  /**
   * The LSM level the written files are for (a compaction's output level; default 0): picks the
   * per-level file options (spec/file-options.ts). The files' metas say level 0 either way.
   */
  readonly level?: number;
  /** Rows per batch handed from the merge to the writer (default 4096). */
  readonly batchRows?: number;
  /** Runs merged at once at most (default MERGE_FAN_IN); more are merged in passes through intermediate runs. */
  readonly fanIn?: number;
  /** The blocks one merge pass may hold, in bytes (default MERGE_BLOCK_BUDGET_BYTES). */
  readonly mergeBudgetBytes?: number;
  /**
   * Where a merge in passes puts its intermediate runs (`data-<writerId>-merge-<uuid>.run`, deleted
   * when the merge ends); default `runsPath`. Never the table's own path.
   */
  readonly scratchPath?: string;
  /** Told the rows written so far, once per batch, and awaited (progress; throwing stops the merge). */
  readonly onRows?: (rows: number) => void | Promise<void>;
}

export interface MergedBucket {
  /** The bucket's CommitMessage (no message when the bucket ended up empty). */
  readonly message: CommitMessage | undefined;
  /** Rows in the merged files. */
  readonly rows: number;
  /** Keys found in runs of more than one writer (always 0 for append tables). */
  readonly collidingKeys: number;
}

/** The merged rows of a bucket, batch by batch, and how many keys several writers wrote. */
export interface MergedRows {
  /** Batches of the file row type (primary key: keyValueRowType; append: the table's row type), in key order. */
  readonly batches: AsyncIterable<ColumnBatch>;
  /** Final once `batches` is exhausted. */
  collidingKeys(): number;
}

const DEFAULT_BATCH_ROWS = 4096;

/** Merges the bucket's runs and writes its data files: `writeMergedBucket(mergeBucketRuns(input))`. */
export async function mergeBucket(input: BucketMergeInput): Promise<MergedBucket> {
  return writeMergedBucket(input, mergeBucketRuns(input));
}

/** The bucket's rows in the order they go into its files, one record per key for a primary-key table. */
export function mergeBucketRuns(input: BucketMergeInput): MergedRows {
  const keys = trimmedPrimaryKeys(input.schema);
  if (keys.length === 0) return { batches: concatenatedRuns(input), collidingKeys: () => 0 };
  let colliding = 0;
  return {
    batches: mergedKeyValues(input, keys, (n) => (colliding += n)),
    collidingKeys: () => colliding,
  };
}

/** Writes merged rows (mergeBucketRuns' batches) into the bucket's data files, rolled at the target size. */
export async function writeMergedBucket(input: BucketMergeInput, merged: MergedRows): Promise<MergedBucket> {
  const { schema } = input;
  const tableRowType: RowType = { fields: schema.fields };
  const keys = trimmedPrimaryKeys(schema);
  const paths = dataFilePaths(partitionFields(schema), partitionPathOptions(schema.options));
  const fallback = keys.length > 0 ? 128 * 1024 * 1024 : 256 * 1024 * 1024;
  const configured = schema.options['target-file-size'];
  const kind: FileKind = keys.length > 0 ? { level: input.level ?? 0, changelog: false } : APPEND_FILE;
  const options = {
    ...fileCompression(schema.options, kind),
    uuid: `${input.writerId}-${randomUUID()}`,
    // The merge hands small batches: its files still get full row groups (rowGroupRows' default).
    fillRowGroups: true,
    targetFileSize: input.targetFileSize ?? (configured === undefined ? fallback : parseMemorySize(configured)),
    openSink: (fileName: string) => objectStoreSink(input.store, `${input.tablePath}/${paths.file(input.partition, input.bucket, fileName)}`),
  };
  const ctx: FileMetaContext = {
    schemaId: schema.id,
    creationTime: localCreationTime(new Date()),
    valueStats: valueStatsOptions(schema.fields, schema.options, kind),
  };
  let rows = 0;
  let files: DataFileMeta[];
  if (keys.length > 0) {
    const writer = new KeyValueFileWriter({ ...options, tableRowType, trimmedPrimaryKeys: keys });
    try {
      for await (const batch of merged.batches) {
        await writer.write(batch);
        rows += batch.length;
        await input.onRows?.(rows);
      }
    } catch (error) {
      await writer.abort(error);
      throw error;
    }
    const keyTypes = fieldsByName(schema, keys).map((f) => f.type);
    files = (await writer.close()).map((file) => keyValueFileMeta(file, keyTypes, ctx));
  } else {
    const writer = new DataFileWriter({ ...options, rowType: tableRowType });
    try {
      for await (const batch of merged.batches) {
        await writer.write(batch);
        rows += batch.length;
        await input.onRows?.(rows);
      }
    } catch (error) {
      await writer.abort(error);
      throw error;
    }
    let next = input.runs.reduce<bigint | undefined>((min, r) => (min === undefined || r.minSequence < min ? r.minSequence : min), undefined) ?? 0n;
    files = (await writer.close()).map((file) => {
      const meta = appendFileMeta(file, next, ctx);
      next += BigInt(file.rowCount);
      return meta;
    });
  }
  const message = files.length === 0 ? undefined : dataFilesMessage(input.partition, input.bucket, input.totalBuckets, { newFiles: files });
  return { message, rows, collidingKeys: merged.collidingKeys() };
}

/**
 * A run file smaller than this is fetched in one request rather than read by ranges (a footer and
 * each column chunk cost a round trip otherwise), while the files so held stay under
 * WHOLE_RUN_BUDGET_BYTES in all; larger ones are read range by range.
 */
const WHOLE_RUN_BYTES = 1024 * 1024;
const WHOLE_RUN_BUDGET_BYTES = 64 * 1024 * 1024;
/** Run files opened at once when the merge starts (each open is a round trip or two). */
const RUNS_OPENED_IN_FLIGHT = 16;

/** Bytes of whole run files held in memory by one merge. */
class RunBudget {
  #held = 0;
  take(bytes: number): boolean {
    if (bytes > WHOLE_RUN_BYTES || this.#held + bytes > WHOLE_RUN_BUDGET_BYTES) return false;
    this.#held += bytes;
    return true;
  }
  give(bytes: number): void {
    this.#held -= bytes;
  }
}

/** The batches of one run file, row group by row group. */
async function* runBatches(input: BucketMergeInput, run: BucketRunFile, rowType: RowType, budget: RunBudget): AsyncGenerator<ColumnBatch> {
  // A segment of a spill object (run-spill.ts) is read by range, in the run encoding when its name
  // carries a checksum (else Parquet); a whole run file lives in the bucket's directory.
  const segment = parseRunSegment(run.fileName);
  const paths = dataFilePaths(partitionFields(input.schema), partitionPathOptions(input.schema.options));
  const key = segment === undefined ? `${input.runsPath}/${paths.file(input.partition, input.bucket, run.fileName)}` : `${input.runsPath}/${segment.object}`;
  const start = segment?.offset ?? 0;
  const whole = budget.take(run.size);
  try {
    if (segment?.checksum !== undefined) {
      yield* readRunSegment({ store: input.store, key, segment: { ...segment, checksum: segment.checksum }, size: run.size, rows: run.rows, whole }, rowType);
      return;
    }
    const bytes = !whole ? undefined : segment === undefined ? await input.store.get(key) : await input.store.getRange(key, start, run.size);
    const read =
      bytes === undefined ? (offset: number, length: number) => input.store.getRange(key, start + offset, length) : (offset: number, length: number) => Promise.resolve(bytes.subarray(offset, offset + length));
    const reader = await ParquetDataFileReader.open({ size: bytes?.length ?? run.size, read });
    yield* reader.batches(rowType);
  } finally {
    if (whole) budget.give(run.size);
  }
}

/** Append tables: the runs one after another, in the writers' order. */
async function* concatenatedRuns(input: BucketMergeInput): AsyncGenerator<ColumnBatch> {
  const rowType: RowType = { fields: input.schema.fields };
  const budget = new RunBudget();
  for (const run of input.runs) yield* runBatches(input, run, rowType, budget);
}

/** A run being merged: its current batch (a row group) and row, read in place from the columns. */
interface Cursor {
  readonly batches: AsyncIterator<ColumnBatch>;
  /** The run's writer slot, or undefined: each record's own, in `slots`. */
  readonly slot: number | undefined;
  /** An intermediate run's batch: its records' slots. */
  slots: Int32Array | undefined;
  batch: ColumnBatch;
  /** The batch's key columns prepared for comparisons (batch-merge.ts). */
  keys: PreparedColumns;
  /** The batch's `_SEQUENCE_NUMBER` column, prepared. */
  sequence: PreparedColumns;
  row: number;
}

/** The next non-empty batch of a run, undefined at its end. */
async function nextBatch(batches: AsyncIterator<ColumnBatch>): Promise<ColumnBatch | undefined> {
  for (;;) {
    const next = await batches.next();
    if (next.done === true) return undefined;
    if (next.value.length > 0) return next.value;
  }
}

/**
 * What one merge pass may hold: one block of each run it reads, so a bucket of a 1,000-shard load
 * (1,000 runs or more) is merged in passes. Contiguous groups of runs whose blocks come to at most
 * MERGE_BLOCK_BUDGET_BYTES (and at most MERGE_FAN_IN runs) are each merged into one intermediate run
 * under `scratchPath`, then those runs, until one pass reads them all. Memory is bounded by the
 * budget whatever the number of runs; a bucket whose runs fit it is merged in one pass, as before.
 */
export const MERGE_FAN_IN = 1024;
export const MERGE_BLOCK_BUDGET_BYTES = 16 * 1024 * 1024;

/** An intermediate run's records carry their writer's slot; this one means "written by several writers". */
const SEVERAL_SLOTS = -1;
const SLOT_FIELD: DataField = { id: 2147483640, name: '_TRIBUTARY_SLOT', type: { root: 'INT', nullable: false } };
/** The slot column's bytes a record in an intermediate run. */
const SLOT_BYTES = 4;

/** A run one merge pass reads: its batches in key order, and the writer slot of its records. */
interface MergeSource {
  open(budget: RunBudget): AsyncIterator<ColumnBatch>;
  /** The slot of every record of the run; undefined: each record's own (an intermediate run's last column). */
  readonly slot: number | undefined;
  /** About what the merge holds of the run: the bytes of one block (RUN_BLOCK_ROWS rows), or the run when smaller. */
  readonly blockBytes: number;
  /** The bytes of a full block of the run's records (its bytes per row × RUN_BLOCK_ROWS): what a run merged from it holds. */
  readonly fullBlockBytes: number;
  /** The run's records, when known. */
  readonly rows: number | undefined;
}

function blockBytes(size: number, rows: number | undefined): number {
  return rows !== undefined && rows > RUN_BLOCK_ROWS ? Math.ceil((size * RUN_BLOCK_ROWS) / rows) : size;
}

function fullBlockBytes(size: number, rows: number | undefined): number {
  return rows !== undefined && rows > 0 ? Math.ceil((size * RUN_BLOCK_ROWS) / rows) : size;
}

/**
 * A group takes at least this many runs whatever their blocks weigh (fewer only under a smaller
 * `fanIn`): runs of huge blocks then exceed the budget a little instead of taking log2(n) passes.
 */
const MIN_GROUP = 8;

/** Contiguous groups of the sources, each within the pass's limits (at least two runs a group, so each pass shortens the list). */
function mergeGroups(sources: readonly MergeSource[], fanIn: number, budgetBytes: number): MergeSource[][] {
  const groups: MergeSource[][] = [];
  let group: MergeSource[] = [];
  let bytes = 0;
  for (const source of sources) {
    if (closesGroup(group.length, bytes, source.blockBytes, fanIn, budgetBytes)) {
      groups.push(group);
      group = [];
      bytes = 0;
    }
    group.push(source);
    bytes += source.blockBytes;
  }
  if (group.length > 0) groups.push(group);
  return groups;
}

/** Whether a group of `runs` runs holding `bytes` is full before a run of `next` bytes. */
function closesGroup(runs: number, bytes: number, next: number, fanIn: number, budgetBytes: number): boolean {
  return runs >= Math.min(MIN_GROUP, fanIn) && (runs >= fanIn || bytes + next > budgetBytes);
}

/** Whether one pass may hold all of these blocks (mergeGroups would make them one group). */
function fitsOnePass(blocks: readonly number[], fanIn: number, budgetBytes: number): boolean {
  let bytes = 0;
  for (let i = 0; i < blocks.length; i++) {
    if (closesGroup(i, bytes, blocks[i] as number, fanIn, budgetBytes)) return false;
    bytes += blocks[i] as number;
  }
  return true;
}

/**
 * The next pass: groups of contiguous sources, each of two or more merged into one intermediate run,
 * a group of one passed on as it is; one group when the sources fit one pass (the last).
 *
 * When they do not fit by a little (a load whose shards spilled a few runs more than one pass holds),
 * merging every group would rewrite every record once more. It is enough to merge the shortest
 * leading group after which the rest and that group's intermediate run fit one pass: only those
 * records are written twice. Past that (many times the pass's limits) the sources are cut into full
 * groups, each merged, which divides their number by about the fan-in each pass.
 */
function nextPass(sources: readonly MergeSource[], fanIn: number, budgetBytes: number): MergeSource[][] {
  const blocks = sources.map((s) => s.blockBytes);
  if (fitsOnePass(blocks, fanIn, budgetBytes)) return [[...sources]];
  let bytes = 0;
  let widest = 0;
  let rows = 0;
  for (let p = 1; p <= sources.length; p++) {
    const source = sources[p - 1] as MergeSource;
    if (closesGroup(p - 1, bytes, source.blockBytes, fanIn, budgetBytes)) break;
    bytes += source.blockBytes;
    widest = Math.max(widest, source.fullBlockBytes);
    rows += source.rows ?? RUN_BLOCK_ROWS;
    if (p < 2) continue;
    // The intermediate run's block: a full block of its records, or all of them when fewer (at most
    // what its runs' blocks held), with their slot column.
    const merged = Math.min(bytes, widest) + SLOT_BYTES * Math.min(rows, RUN_BLOCK_ROWS);
    if (fitsOnePass([merged, ...blocks.slice(p)], fanIn, budgetBytes)) return [sources.slice(0, p), ...sources.slice(p).map((s) => [s])];
  }
  return mergeGroups(sources, fanIn, budgetBytes);
}

/**
 * Primary-key tables: the k-way merge. Per key the greatest record under (sequence.field…,
 * _SEQUENCE_NUMBER) wins, whatever its kind (a retraction must still retract older snapshots' rows);
 * of records equal under all of them, the one of the later run in `runs`. With more runs than one
 * pass may hold, earlier passes merge contiguous groups of runs into intermediate runs first: the greatest
 * of each group's greatest is the greatest of all, and ties still go to the later run, since a
 * group's runs all come before the next group's. A key counts as colliding once, in the last pass,
 * when its records came from several writers: an intermediate record carries its key's one slot,
 * or SEVERAL_SLOTS.
 */
async function* mergedKeyValues(input: BucketMergeInput, keys: readonly string[], countColliding: (n: number) => void): AsyncGenerator<ColumnBatch> {
  const rowType = keyValueRowType({ fields: input.schema.fields }, keys);
  const withSlot: RowType = { fields: [...rowType.fields, SLOT_FIELD] };
  const fanIn = Math.max(2, input.fanIn ?? MERGE_FAN_IN);
  const budgetBytes = input.mergeBudgetBytes ?? MERGE_BLOCK_BUDGET_BYTES;
  const scratchPath = input.scratchPath ?? input.runsPath;
  let sources: MergeSource[] = input.runs.map((run) => ({
    open: (budget) => runBatches(input, run, rowType, budget)[Symbol.asyncIterator](),
    slot: run.slot,
    blockBytes: blockBytes(run.size, run.rows),
    fullBlockBytes: fullBlockBytes(run.size, run.rows),
    rows: run.rows,
  }));
  const scratch: string[] = [];
  try {
    for (let groups = nextPass(sources, fanIn, budgetBytes); groups.length > 1; groups = nextPass(sources, fanIn, budgetBytes)) {
      const next: MergeSource[] = [];
      for (const group of groups) {
        if (group.length === 1) {
          next.push(group[0] as MergeSource);
          continue;
        }
        const object = `data-${input.writerId}-merge-${randomUUID()}.run`;
        const key = `${scratchPath}/${object}`;
        scratch.push(key);
        const spill = new RunSpill(input.store, key, object);
        let written;
        try {
          written = await spill.writeSegmentOf(progressing(input, mergeSources(input, keys, group, withSlot, undefined)));
          await spill.close();
        } catch (error) {
          await spill.abort(error);
          throw error;
        }
        const { size, rows } = written;
        const segment = parseRunSegment(written.name) as RunSegment & { checksum: string };
        next.push({ open: (budget) => intermediateBatches(input, key, segment, size, rows, withSlot, budget), slot: undefined, blockBytes: blockBytes(size, rows), fullBlockBytes: fullBlockBytes(size, rows), rows });
      }
      sources = next;
    }
    yield* mergeSources(input, keys, sources, rowType, countColliding);
  } finally {
    // Best effort: the runs' path is deleted whole once the load ends (a compaction's staging once it ended).
    if (scratch.length > 0) await input.store.deleteMany(scratch).catch(() => undefined);
  }
}

/** An intermediate pass's batches, with the stop check of `onRows` between them (no rows are written yet). */
async function* progressing(input: BucketMergeInput, batches: AsyncIterable<ColumnBatch>): AsyncGenerator<ColumnBatch> {
  for await (const batch of batches) {
    yield batch;
    await input.onRows?.(0);
  }
}

/** The batches of an intermediate run, read whole when small (as a run), checked against its SHA-256, size and rows. */
async function* intermediateBatches(input: BucketMergeInput, key: string, segment: RunSegment & { checksum: string }, size: number, rows: number, rowType: RowType, budget: RunBudget): AsyncGenerator<ColumnBatch> {
  const whole = budget.take(size);
  try {
    yield* readRunSegment({ store: input.store, key, segment, size, rows, whole }, rowType);
  } finally {
    if (whole) budget.give(size);
  }
}

/**
 * One merge pass over `sources`. `outType`: the key-value row type (the last pass: colliding keys
 * counted) or the same with the slot column (an intermediate pass: each record's slot written).
 * Records are compared and copied in place in the runs' column batches (format/batch-merge.ts).
 */
async function* mergeSources(
  input: BucketMergeInput,
  keys: readonly string[],
  sources: readonly MergeSource[],
  outType: RowType,
  countColliding: ((n: number) => void) | undefined,
): AsyncGenerator<ColumnBatch> {
  const { schema } = input;
  const k = keys.length;
  const rowType = keyValueRowType({ fields: schema.fields }, keys);
  const slotColumn = rowType.fields.length;
  const keyIndices = keys.map((_, i) => i);
  const userSequence = sequenceFieldIndices(schema).map((i) => i + k + 2);
  const compareCursors = (a: Cursor, b: Cursor): number => {
    const byKey = compareRowsAt(a.keys, a.row, b.keys, b.row);
    if (byKey !== 0) return byKey;
    for (const i of userSequence) {
      const c = compareNullsFirst(valueAt(a.batch.columns[i] as Column, a.row), valueAt(b.batch.columns[i] as Column, b.row));
      if (c !== 0) return c;
    }
    return compareRowsAt(a.sequence, a.row, b.sequence, b.row);
  };
  const load = (cursor: Cursor, batch: ColumnBatch): void => {
    cursor.batch = batch;
    cursor.keys = prepareColumns(batch, keyIndices);
    cursor.sequence = prepareColumns(batch, [k]);
    cursor.slots = cursor.slot === undefined ? (batch.columns[slotColumn] as Column & { kind: 'int32' }).values : undefined;
    cursor.row = 0;
  };
  const budget = new RunBudget();
  const cursors = await mapInOrder(sources, RUNS_OPENED_IN_FLIGHT, async (source): Promise<Cursor | undefined> => {
    const batches = source.open(budget);
    const first = await nextBatch(batches);
    if (first === undefined) return undefined;
    const cursor: Cursor = { batches, slot: source.slot, slots: undefined, batch: first, keys: [], sequence: [], row: 0 };
    load(cursor, first);
    return cursor;
  });
  // A tournament tree: thousands of runs (a compaction's small files) cost ⌈log2 k⌉ comparisons a row.
  const tree = new LoserTree<Cursor>(cursors, compareCursors);
  const size = input.batchRows ?? DEFAULT_BATCH_ROWS;
  // Each _KEY_ column is its key field's column (keyValueRowType: keys, sequence, kind, fields).
  const out = new SegmentBuilder(rowType, new Map(keys.map((name, i) => [i, k + 2 + schema.fields.findIndex((f) => f.name === name)])));
  const intermediate = countColliding === undefined;
  let slots: number[] = [];
  const take = (): ColumnBatch => {
    const batch = out.take();
    if (!intermediate) return batch;
    const column: Column = { kind: 'int32', values: Int32Array.from(slots), validity: undefined };
    slots = [];
    return { rowType: outType, length: batch.length, columns: [...batch.columns, column] };
  };
  // The key being merged: its greatest record so far (batch, row, prepared key columns) and writers.
  let winnerBatch: ColumnBatch | undefined;
  let winnerKeys: PreparedColumns = [];
  let winnerRow = 0;
  let firstSlot = 0;
  let several = false;
  const emit = (): void => {
    out.push(winnerBatch as ColumnBatch, winnerRow);
    if (intermediate) slots.push(several ? SEVERAL_SLOTS : firstSlot);
    else if (several) countColliding(1);
  };
  for (let top = tree.peek(); top !== undefined; top = tree.peek()) {
    if (winnerBatch !== undefined && compareRowsAt(winnerKeys, winnerRow, top.keys, top.row) !== 0) {
      emit();
      winnerBatch = undefined;
      if (out.length >= size) yield take();
    }
    const slot = top.slot ?? (top.slots as Int32Array)[top.row] as number;
    if (winnerBatch === undefined) {
      firstSlot = slot;
      several = slot === SEVERAL_SLOTS;
    } else if (slot !== firstSlot || slot === SEVERAL_SLOTS) {
      several = true;
    }
    winnerBatch = top.batch;
    winnerKeys = top.keys;
    winnerRow = top.row;
    if (top.row + 1 < top.batch.length) {
      top.row += 1;
      tree.replaceTop(top);
      continue;
    }
    const batch = await nextBatch(top.batches);
    if (batch === undefined) tree.replaceTop(undefined);
    else {
      load(top, batch);
      tree.replaceTop(top);
    }
  }
  if (winnerBatch !== undefined) emit();
  if (out.length > 0) yield take();
}

/** Indices of the `sequence.field` columns in the table's row type (none without the option). */
function sequenceFieldIndices(schema: TableSchema): number[] {
  const option = schema.options['sequence.field'];
  if (option === undefined || option.trim() === '') return [];
  return option.split(',').map((name) => schema.fields.findIndex((f) => f.name === name.trim()));
}

function compareNullsFirst(a: InternalValue, b: InternalValue): number {
  if (a === null || b === null) return a === b ? 0 : a === null ? -1 : 1;
  return compareInternal(a, b);
}
