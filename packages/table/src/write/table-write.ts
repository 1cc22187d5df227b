/**
 * Writes rows into data files of one table, for one worker, mirroring
 * org.apache.paimon.table.sink.TableWriteImpl over AppendFileStoreWrite / KeyValueFileStoreWrite:
 *
 *   write(batch, rowKinds) ─► RowRouter: (partition, bucket) per row
 *                          ─► buffer per bucket ──(bufferRows, or maxBufferedRows over all)──► flush
 *        flush, append table: DataFileWriter (rolling files)
 *        flush, primary key:  sorted run (sort by key, deduplicate, _SEQUENCE_NUMBER, _VALUE_KIND) ─► KeyValueFileWriter
 *   prepareCommit() ─► close every file ─► CommitMessage per (partition, bucket)
 *
 * Nothing is visible until a committer commits the messages. Each flush of a primary-key bucket
 * is its own sorted run (one or more level-0 files); readers merge the runs. Sequence numbers of a
 * primary-key bucket continue from the highest `_MAX_SEQUENCE_NUMBER` of that bucket in the base
 * snapshot (MergeTreeWriter), so later writes win over earlier ones. Writers of one load use
 * disjoint ranges (`sequenceSlot`); writers of loads that overlap in time are put in commit order
 * by the commit's rebase (sequence-rebase.ts).
 */
import { createHash, randomUUID } from 'node:crypto';
import { errorFrom, isTributaryError } from '@tributary/errors';
import { tableErrors } from '../errors.ts';
import type { ObjectStore } from '../io/object-store.ts';
import { batchFromRows, concatBatches, gatherColumnOf, gatherRows, takeRows, type Column, type ColumnBatch } from '../format/column-batch.ts';
import { RowKind, fieldIndex, isRetract, keyValueRun, sortedRunRows } from '../format/key-value.ts';
import { DataFileWriter, type DataFileResult, type ParquetCompression } from '../parquet/parquet-writer.ts';
import type { DataFileMeta } from '../spec/data-file-meta.ts';
import { bucketCount, fieldsByName, trimmedPrimaryKeys, validateTableSchema, type TableSchema } from '../spec/table-schema.ts';
import type { DataType, InternalRow, RowType } from '../spec/types.ts';
import { binaryRowEncoder } from '../spec/binary-row-writer.ts';
import { FileStoreScan } from '../snapshot/file-store-scan.ts';
import { SnapshotManager } from '../snapshot/snapshot-manager.ts';
import { dataFilesMessage, type CommitMessage } from '../spec/commit-message.ts';
import { MAX_SEQUENCE_NUMBER, maxSequenceNumbers } from './commit-plan.ts';
import { appendFileMeta, keyValueFileMeta, localCreationTime, runFileMeta, valueStatsOptions, type FileMetaContext } from './data-file-metas.ts';
import { APPEND_FILE, DATA_FILE_LEVEL_0, fileCompression, type FileKind } from '../spec/file-options.ts';
import { parseMemorySize } from './manifest-merge.ts';
import { KeyValueFileWriter } from './key-value-writer.ts';
import { objectStoreSink } from './object-sink.ts';
import { RowRouter, type BucketTarget } from './row-routing.ts';
import { RunSpill } from './run-spill.ts';

export interface TableWriteOptions {
  /**
   * The prefix of every data file name: `data-<writerId>-<uuid>-<n>.parquet`, where `<uuid>` is
   * fresh for each (partition, bucket) of this writer and `<n>` counts that bucket's files. The
   * UUID makes names unique on its own (as Paimon's DataFilePathFactory does): distinct partitions
   * may share a directory (NULL, '' and ' ' are all `__DEFAULT_PARTITION__`), and a caller may
   * reuse an id. The id lets the sync find its files by name (sync, shard, attempt). Default: a
   * random UUID. Characters other than [A-Za-z0-9._-] are replaced and a hash of the whole id is
   * appended, so ids stay distinct.
   */
  readonly writerId?: string;
  /**
   * The snapshot whose files give primary-key buckets their next sequence number (the sync's
   * pinned snapshot). Default: the latest snapshot when the writer opens; null: an empty table.
   */
  readonly baseSnapshotId?: number | null;
  /** Rows buffered per (partition, bucket) before they are flushed to files (default 100 000). */
  readonly bufferRows?: number;
  /** Rows buffered over all buckets before the largest buffer is flushed (default 400 000). */
  readonly maxBufferedRows?: number;
  /** Overrides the table's `target-file-size` (bytes). */
  readonly targetFileSize?: number;
  /**
   * Append tables keep a bucket's file open between flushes, so it can grow to the target size.
   * At most this many stay open (default 4); beyond that the least recently flushed one is closed,
   * because each open file holds an upload buffer (the S3 part size) in memory.
   */
  readonly maxOpenFiles?: number;
  /**
   * The writer's place among the writers of one load (a sync's shard index in plan order): a
   * primary-key bucket then numbers its rows from `restoredMax + 1 + sequenceSlot * SEQUENCE_STRIDE`,
   * so the writers' ranges are disjoint and, committed together, a later slot wins a key over an
   * earlier one whatever order they finished in (committed apart, the later commit wins: the
   * commit's rebase). Unset: no offset and no limit (a single writer).
   */
  readonly sequenceSlot?: number;
  /**
   * Where the data files go, `<dataPath>/<partition path>bucket-N/…` (default: the table's path).
   * Sequence numbers still continue from the table's base snapshot. A sync's bucketed layout
   * writes its shards' sorted runs to a staging path this way, never into the table.
   */
  readonly dataPath?: string;
  /** Parquet settings of the files written (default: zstd, row groups of up to 128 Ki rows). */
  readonly fileOptions?: { readonly compression?: ParquetCompression; readonly rowGroupRows?: number };
  /**
   * Sorted runs for a later merge (with `dataPath`): nothing is flushed bucket by bucket; once the
   * buffers hold `maxBufferedRows` rows (or `maxBufferedBytes`), every buffered bucket is spilled
   * at once into ONE object `<dataPath>/data-<writerId>-runs-<uuid>.run`, one segment per
   * (partition, bucket) in the run encoding (run-spill.ts, format/run-codec.ts; blocks of
   * `fileOptions.rowGroupRows` rows). The messages name the segments (`<object>#<offset>.<crc32c>`)
   * and carry no value statistics (nothing reads them).
   */
  readonly spill?: boolean;
  /**
   * Spill mode: the budget of the buffers in bytes, estimated from the rows' values (fixed-width
   * values at their width, strings at their length plus a fixed overhead); whichever of this and
   * `maxBufferedRows` is reached first triggers the spill. Default: no byte budget.
   */
  readonly maxBufferedBytes?: number;
}

/** Sequence numbers one slot may use in one bucket (2^32): with 10,000 slots a load spans < 2^46. */
export const SEQUENCE_STRIDE = 2n ** 32n;

interface BucketWriter {
  readonly target: BucketTarget;
  /**
   * The batches holding the bucket's buffered rows, in arrival order, with `pendingRowsOf` the rows
   * of each that are the bucket's (undefined: all of them). In spill mode these are the written
   * batches themselves (every bucket spills at once, so none outlives the spill) and the rows are
   * copied once, in key order, when the run is made; otherwise each batch is the bucket's rows
   * already copied out, so that a bucket slow to fill holds only its own rows.
   */
  pending: ColumnBatch[];
  pendingRowsOf: (Int32Array | undefined)[];
  pendingKinds: Uint8Array[];
  pendingRows: number;
  /** Spill mode: the estimated bytes of the pending rows. */
  pendingBytes: number;
  /** Spill mode: the bucket's segments spilled so far, in order. */
  readonly spilled: DataFileMeta[];
  nextSequence: bigint;
  readonly firstSequence: bigint;
  /** With a sequence slot: the first number of the next slot, which this bucket must not reach. */
  readonly sequenceLimit: bigint | undefined;
  readonly append: DataFileWriter | undefined;
  readonly keyValue: KeyValueFileWriter | undefined;
}

/** A bucket's buffered rows taken out (TableWrite's #takePending). */
interface Pending {
  readonly batches: readonly ColumnBatch[];
  readonly of: Int32Array;
  readonly rows: Int32Array;
  readonly kinds: Uint8Array;
  /** Every batch holds only the bucket's rows, all of them (not views of written batches). */
  readonly whole: boolean;
}

export class TableWrite {
  readonly #store: ObjectStore;
  readonly #tablePath: string;
  readonly #dataPath: string;
  readonly #fileOptions: NonNullable<TableWriteOptions['fileOptions']>;
  readonly #schema: TableSchema;
  readonly #rowType: RowType;
  readonly #fieldTypes: readonly DataType[];
  readonly #router: RowRouter;
  readonly #primaryKeys: readonly string[];
  /** What the files written are, for their compression and value statistics (spec/file-options.ts). */
  readonly #fileKind: FileKind;
  readonly #sequenceFields: readonly string[];
  readonly #restored: ReadonlyMap<string, bigint>;
  readonly #writerId: string;
  readonly #bufferRows: number;
  readonly #maxBufferedRows: number;
  readonly #targetFileSize: number;
  readonly #maxOpenFiles: number;
  readonly #sequenceSlot: bigint | undefined;
  /** `ignore-delete`: retractions are dropped on write, as DeduplicateMergeFunction ignores them. */
  readonly #ignoreDeletes: boolean;
  readonly #buckets = new Map<string, BucketWriter>();
  readonly #spill: boolean;
  readonly #maxBufferedBytes: number;
  #bufferedBytes = 0;
  /** Spill mode: the spill being written. */
  #currentSpill: RunSpill | undefined;
  /** Append buckets with an open file, least recently flushed first. */
  readonly #openFiles = new Set<BucketWriter>();
  #buffered = 0;
  #closed = false;
  /** The previous write call: calls run one after another even if the caller does not await them. */
  #tail: Promise<void> = Promise.resolve();

  private constructor(store: ObjectStore, tablePath: string, schema: TableSchema, restored: ReadonlyMap<string, bigint>, options: TableWriteOptions) {
    this.#store = store;
    this.#tablePath = tablePath;
    this.#dataPath = options.dataPath ?? tablePath;
    this.#fileOptions = options.fileOptions ?? {};
    this.#schema = schema;
    this.#rowType = { fields: schema.fields };
    this.#fieldTypes = schema.fields.map((f) => f.type);
    this.#router = new RowRouter(schema);
    this.#primaryKeys = trimmedPrimaryKeys(schema);
    this.#fileKind = this.#primaryKeys.length > 0 ? DATA_FILE_LEVEL_0 : APPEND_FILE;
    const sequence = schema.options['sequence.field'];
    this.#sequenceFields = sequence === undefined || sequence.trim() === '' ? [] : sequence.split(',').map((s) => s.trim());
    this.#restored = restored;
    this.#writerId = fileNameSafe(options.writerId ?? randomUUID());
    this.#bufferRows = options.bufferRows ?? 100_000;
    this.#maxBufferedRows = options.maxBufferedRows ?? 400_000;
    this.#maxOpenFiles = Math.max(1, options.maxOpenFiles ?? 4);
    this.#sequenceSlot = options.sequenceSlot === undefined || this.#primaryKeys.length === 0 ? undefined : BigInt(options.sequenceSlot);
    this.#spill = options.spill === true;
    this.#maxBufferedBytes = options.maxBufferedBytes ?? Number.POSITIVE_INFINITY;
    this.#ignoreDeletes = (schema.options['ignore-delete'] ?? '').trim().toLowerCase() === 'true';
    const target = schema.options['target-file-size'];
    const fallback = this.#primaryKeys.length > 0 ? 128 * 1024 * 1024 : 256 * 1024 * 1024;
    this.#targetFileSize = options.targetFileSize ?? (target === undefined ? fallback : parseMemorySize(target));
  }

  /** Opens a writer; refuses tables Tributary does not write correctly (validateTableSchema). */
  static async open(store: ObjectStore, tablePath: string, schema: TableSchema, options: TableWriteOptions = {}): Promise<TableWrite> {
    validateTableSchema(schema);
    const slot = options.sequenceSlot;
    if (slot !== undefined && !(Number.isSafeInteger(slot) && slot >= 0)) {
      throw errorFrom(tableErrors, 'TABLE_OPTION_INVALID', `sequenceSlot must be a non-negative integer, not ${slot}`, { option: 'sequenceSlot' });
    }
    const producer = (schema.options['changelog-producer'] ?? 'none').trim().toLowerCase();
    // Rows written outside the table (dataPath) are a load's sorted runs, which a bucket job turns
    // into the table's data and changelog (bucket-changelog.ts); only the table's own files must not lack one.
    const staged = options.dataPath !== undefined && options.dataPath !== tablePath;
    if (producer !== 'none' && !(producer === 'input' && staged)) {
      // Its rows would become data without a changelog: a streaming reader would miss the load.
      throw errorFrom(tableErrors, 'TABLE_UNSUPPORTED', `a table with changelog-producer = '${producer}' is written with Table.newChangelogWrite, which computes its changelog; this writer writes data only`, {
        option: 'changelog-producer',
        value: producer,
      });
    }
    const restored = await restoreSequenceNumbers(store, tablePath, schema, options.baseSnapshotId);
    return new TableWrite(store, tablePath, schema, restored, options);
  }

  get rowType(): RowType {
    return this.#rowType;
  }

  /**
   * Writes a batch of table rows (the table's row type). `rowKinds` gives each row's RowKind byte
   * (+I 0, -U 1, +U 2, -D 3; default +I); retractions only exist in primary-key tables.
   */
  write(input: ColumnBatch, inputKinds?: Uint8Array): Promise<void> {
    const run = this.#tail.then(() => this.#write(input, inputKinds));
    this.#tail = run.catch(() => undefined);
    return run;
  }

  async #write(input: ColumnBatch, inputKinds?: Uint8Array): Promise<void> {
    this.#checkOpen();
    this.#checkBatch(input, inputKinds);
    const { batch, rowKinds } = this.#ignoreDeletes ? withoutRetractions(input, inputKinds) : { batch: input, rowKinds: inputKinds };
    const bytesPerRow = this.#spill && batch.length > 0 ? estimatedBytes(batch) / batch.length : 0;
    for (const { target, rows } of this.#router.route(batch)) {
      const bucket = this.#bucket(target);
      const indices = Int32Array.from(rows);
      const all = rows.length === batch.length;
      bucket.pending.push(all || this.#spill ? batch : takeRows(batch, indices));
      bucket.pendingRowsOf.push(all || !this.#spill ? undefined : indices);
      if (rowKinds !== undefined) bucket.pendingKinds.push(Uint8Array.from(indices, (i) => rowKinds[i] as number));
      else bucket.pendingKinds.push(new Uint8Array(rows.length));
      bucket.pendingRows += rows.length;
      this.#buffered += rows.length;
      if (this.#spill) {
        bucket.pendingBytes += bytesPerRow * rows.length;
        this.#bufferedBytes += bytesPerRow * rows.length;
      } else if (bucket.pendingRows >= this.#bufferRows) await this.#flush(bucket);
    }
    if (this.#spill) {
      if (this.#buffered >= this.#maxBufferedRows || this.#bufferedBytes >= this.#maxBufferedBytes) await this.#spillAll();
      return;
    }
    while (this.#buffered > this.#maxBufferedRows) await this.#flush(this.#largestBuffer());
  }

  /** Spill mode: every buffered bucket into one run object, in (partition, bucket) order. */
  async #spillAll(): Promise<void> {
    const buckets = [...this.#buckets.values()].filter((b) => b.pendingRows > 0).sort((a, b) => (a.target.key < b.target.key ? -1 : a.target.key > b.target.key ? 1 : 0));
    if (buckets.length === 0) return;
    const object = `data-${this.#writerId}-runs-${randomUUID()}.run`;
    const spill = new RunSpill(this.#store, `${this.#dataPath}/${object}`, object, this.#fileOptions.rowGroupRows);
    this.#currentSpill = spill;
    const ctx = { schemaId: this.#schema.id, creationTime: localCreationTime(new Date()) };
    const keyTypes = fieldsByName(this.#schema, this.#primaryKeys).map((f) => f.type);
    const spilled: [BucketWriter, DataFileMeta][] = [];
    try {
      for (const bucket of buckets) {
        const first = bucket.nextSequence;
        const run = this.#run(bucket);
        if (run.length === 0) continue;
        spilled.push([bucket, runFileMeta(await spill.writeSegment(run), run, keyTypes, first, ctx)]);
      }
      await spill.close();
    } catch (error) {
      await spill.abort(error);
      throw error;
    } finally {
      this.#currentSpill = undefined;
    }
    // Only a spill whose object is complete names its segments in the messages.
    for (const [bucket, meta] of spilled) bucket.spilled.push(meta);
    this.#bufferedBytes = 0;
  }

  /**
   * Rows as arrays of internal values (tests, small loads, a source's rows after its bad-row
   * policy). Each row is checked against the table's types first, as a BinaryRow is written
   * (ROW_VALUE_INVALID naming the row and field, never the value): a column array would otherwise
   * wrap a BIGINT outside int64, truncate an INT, or write a lone surrogate as U+FFFD.
   */
  async writeRows(rows: readonly InternalRow[], rowKinds?: readonly number[]): Promise<void> {
    this.#checkOpen();
    const check = binaryRowEncoder(this.#fieldTypes);
    for (let r = 0; r < rows.length; r++) {
      try {
        check.write(rows[r] as InternalRow);
      } catch (error) {
        if (isTributaryError(error) && error.code === 'ROW_VALUE_INVALID') throw errorFrom(tableErrors, 'ROW_VALUE_INVALID', `row ${r}: ${error.message}`, { ...error.context, row: r });
        throw error;
      }
    }
    await this.write(batchFromRows(this.#rowType, rows), rowKinds === undefined ? undefined : Uint8Array.from(rowKinds));
  }

  /** Flushes and closes every file; returns one CommitMessage per (partition, bucket) written. Once. */
  async prepareCommit(): Promise<CommitMessage[]> {
    await this.#tail;
    this.#checkOpen();
    this.#closed = true;
    const ctx: FileMetaContext = {
      schemaId: this.#schema.id,
      creationTime: localCreationTime(new Date()),
      valueStats: valueStatsOptions(this.#rowType.fields, this.#schema.options, this.#fileKind),
    };
    const messages: CommitMessage[] = [];
    if (this.#spill) await this.#spillAll();
    for (const bucket of this.#buckets.values()) {
      let newFiles = bucket.spilled;
      if (!this.#spill) {
        await this.#flush(bucket);
        newFiles = await this.#closeBucket(bucket, ctx);
      }
      if (newFiles.length === 0) continue;
      const { partition, bucket: b, totalBuckets } = bucket.target;
      messages.push(dataFilesMessage(partition, b, totalBuckets, { newFiles }));
    }
    return messages;
  }

  /** Abandons the open files (already closed files stay as orphans for garbage collection). */
  async abort(): Promise<void> {
    this.#closed = true;
    await this.#currentSpill?.abort(new Error('write aborted'));
    for (const bucket of this.#buckets.values()) {
      await bucket.append?.abort(new Error('write aborted'));
      await bucket.keyValue?.abort(new Error('write aborted'));
    }
  }

  #checkOpen(): void {
    if (this.#closed) throw errorFrom(tableErrors, 'WRITE_CLOSED', 'this TableWrite was already committed or aborted', { writerId: this.#writerId });
  }

  #checkBatch(batch: ColumnBatch, rowKinds: Uint8Array | undefined): void {
    if (batch.columns.length !== this.#rowType.fields.length) {
      throw errorFrom(tableErrors, 'WRITE_ROW_INVALID', `batch has ${batch.columns.length} columns, the table ${this.#rowType.fields.length}`, {});
    }
    if (rowKinds === undefined) return;
    if (rowKinds.length !== batch.length) throw errorFrom(tableErrors, 'WRITE_ROW_INVALID', 'one row kind per row is required', {});
    for (let i = 0; i < rowKinds.length; i++) {
      const kind = rowKinds[i] as number;
      if (kind > RowKind.DELETE) throw errorFrom(tableErrors, 'WRITE_ROW_INVALID', `unknown row kind ${kind}`, { row: i });
      if (this.#primaryKeys.length === 0 && isRetract(kind)) {
        throw errorFrom(tableErrors, 'WRITE_ROW_INVALID', 'an append table takes no -U/-D rows (it has no key to retract)', { row: i });
      }
    }
  }

  #bucket(target: BucketTarget): BucketWriter {
    let bucket = this.#buckets.get(target.key);
    if (bucket !== undefined) return bucket;
    const dir = `${this.#dataPath}/${target.partitionPath}bucket-${target.bucket}`;
    const options = {
      ...fileCompression(this.#schema.options, this.#fileKind),
      ...this.#fileOptions,
      // One UUID per (partition, bucket) writer: partitions whose rows differ can share `dir`.
      uuid: `${this.#writerId}-${randomUUID()}`,
      targetFileSize: this.#targetFileSize,
      openSink: (fileName: string) => objectStoreSink(this.#store, `${dir}/${fileName}`),
    };
    const pk = this.#primaryKeys.length > 0;
    const first = (this.#restored.get(target.key) ?? -1n) + 1n + (this.#sequenceSlot ?? 0n) * SEQUENCE_STRIDE;
    bucket = {
      target,
      pending: [],
      pendingRowsOf: [],
      pendingKinds: [],
      pendingRows: 0,
      pendingBytes: 0,
      spilled: [],
      nextSequence: first,
      firstSequence: first,
      sequenceLimit: this.#sequenceSlot === undefined ? undefined : first + SEQUENCE_STRIDE,
      // Spill mode writes runs (#spillAll), never files of its own.
      append: pk || this.#spill ? undefined : new DataFileWriter({ ...options, rowType: this.#rowType }),
      keyValue: pk && !this.#spill ? new KeyValueFileWriter({ ...options, tableRowType: this.#rowType, trimmedPrimaryKeys: this.#primaryKeys }) : undefined,
    };
    this.#buckets.set(target.key, bucket);
    return bucket;
  }

  #largestBuffer(): BucketWriter {
    let largest: BucketWriter | undefined;
    for (const b of this.#buckets.values()) if (largest === undefined || b.pendingRows > largest.pendingRows) largest = b;
    return largest as BucketWriter;
  }

  async #flush(bucket: BucketWriter): Promise<void> {
    if (bucket.pendingRows === 0) return;
    if (bucket.append !== undefined) {
      await bucket.append.write(this.#inArrivalOrder(this.#takePending(bucket)));
      this.#openFiles.delete(bucket);
      this.#openFiles.add(bucket);
      for (const oldest of this.#openFiles) {
        if (this.#openFiles.size <= this.#maxOpenFiles) break;
        this.#openFiles.delete(oldest);
        await oldest.append?.roll();
      }
      return;
    }
    await (bucket.keyValue as KeyValueFileWriter).writeRun(this.#run(bucket));
  }

  /**
   * The bucket's buffered rows, taken out of the buffers: in arrival order, row p is row `rows[p]`
   * of `batches[of[p]]` (gatherRows), with its row kind `kinds[p]`.
   */
  #takePending(bucket: BucketWriter): Pending {
    const { pending: batches, pendingRowsOf } = bucket;
    const length = bucket.pendingRows;
    const of = new Int32Array(length);
    const rows = new Int32Array(length);
    let at = 0;
    batches.forEach((batch, b) => {
      const taken = pendingRowsOf[b];
      if (taken === undefined) {
        for (let r = 0; r < batch.length; r++, at++) {
          of[at] = b;
          rows[at] = r;
        }
      } else {
        of.fill(b, at, at + taken.length);
        rows.set(taken, at);
        at += taken.length;
      }
    });
    if (at !== length) throw new Error(`a bucket's buffers hold ${at} rows, not the ${length} counted`);
    const kinds = concatKinds(bucket.pendingKinds, length);
    this.#buffered -= length;
    bucket.pending = [];
    bucket.pendingRowsOf = [];
    bucket.pendingKinds = [];
    bucket.pendingRows = 0;
    bucket.pendingBytes = 0;
    return { batches, of, rows, kinds, whole: pendingRowsOf.every((taken) => taken === undefined) };
  }

  /** The taken rows as one batch in arrival order (each batch whole: concatenated). */
  #inArrivalOrder({ batches, of, rows, whole }: Omit<Pending, 'kinds'>): ColumnBatch {
    return whole ? concatBatches(this.#rowType, batches) : gatherRows(this.#rowType, batches, of, rows);
  }

  /**
   * The bucket's buffered rows as its next sorted run (primary key: sorted, one record per key, in
   * key-value layout, numbered from the bucket's next sequence number; append: as buffered).
   */
  #run(bucket: BucketWriter): ColumnBatch {
    const { batches, of, rows, kinds, whole } = this.#takePending(bucket);
    const length = rows.length;
    if (this.#primaryKeys.length === 0) {
      bucket.nextSequence += BigInt(length);
      return this.#inArrivalOrder({ batches, of, rows, whole });
    }
    if (bucket.sequenceLimit !== undefined && bucket.nextSequence + BigInt(length) > bucket.sequenceLimit) {
      throw errorFrom(tableErrors, 'SEQUENCE_RANGE_EXHAUSTED', `a writer with a sequence slot may write at most ${SEQUENCE_STRIDE} rows into one bucket`, {
        bucket: bucket.target.bucket,
        writerId: this.#writerId,
      });
    }
    if (bucket.nextSequence + BigInt(length) - 1n > MAX_SEQUENCE_NUMBER) {
      throw errorFrom(tableErrors, 'SEQUENCE_RANGE_EXHAUSTED', 'the sequence numbers of this bucket would pass the largest 64-bit number', {
        bucket: bucket.target.bucket,
        writerId: this.#writerId,
      });
    }
    // The key (and sequence field) columns first, to find each key's row; then every column of
    // the kept rows, in key order, in one copy out of the batches the rows arrived in.
    const column = (name: string): Column => gatherColumnOf(batches.map((b) => b.columns[fieldIndex(this.#rowType, name)] as Column), of, rows);
    const kept = sortedRunRows(this.#primaryKeys.map(column), this.#sequenceFields.map(column), length);
    const keptOf = new Int32Array(kept.length);
    const keptRows = new Int32Array(kept.length);
    for (let i = 0; i < kept.length; i++) {
      const p = kept[i] as number;
      keptOf[i] = of[p] as number;
      keptRows[i] = rows[p] as number;
    }
    const values = gatherRows(this.#rowType, batches, keptOf, keptRows);
    const run = keyValueRun({ tableRowType: this.#rowType, trimmedPrimaryKeys: this.#primaryKeys, rowKinds: kinds, firstSequenceNumber: bucket.nextSequence }, values, kept);
    bucket.nextSequence += BigInt(length);
    return run;
  }

  async #closeBucket(bucket: BucketWriter, ctx: FileMetaContext): Promise<DataFileMeta[]> {
    if (bucket.append !== undefined) {
      let next = bucket.firstSequence;
      return (await bucket.append.close()).map((file: DataFileResult) => {
        const meta = appendFileMeta(file, next, ctx);
        next += BigInt(file.rowCount);
        return meta;
      });
    }
    const keyTypes = fieldsByName(this.#schema, this.#primaryKeys).map((f) => f.type);
    const files = await (bucket.keyValue as KeyValueFileWriter).close();
    return files.map((file) => keyValueFileMeta(file, keyTypes, ctx));
  }
}

/** The id as a file-name component: safe characters only, distinct ids stay distinct. */
export function fileNameSafe(id: string): string {
  if (/^[A-Za-z0-9._-]{1,100}$/.test(id)) return id;
  const hash = createHash('sha256').update(id).digest('hex').slice(0, 16);
  // Never empty: a name starting `data--` would look like Java's postpone-bucket files.
  return `${id.replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 80) || 'w'}-${hash}`;
}

function withoutRetractions(batch: ColumnBatch, kinds: Uint8Array | undefined): { batch: ColumnBatch; rowKinds?: Uint8Array } {
  if (kinds === undefined) return { batch };
  const keep: number[] = [];
  for (let i = 0; i < kinds.length; i++) if (!isRetract(kinds[i] as number)) keep.push(i);
  if (keep.length === kinds.length) return { batch, rowKinds: kinds };
  const indices = Int32Array.from(keep);
  return { batch: takeRows(batch, indices), rowKinds: Uint8Array.from(indices, (i) => kinds[i] as number) };
}

function concatKinds(parts: readonly Uint8Array[], length: number): Uint8Array {
  const out = new Uint8Array(length);
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

/**
 * The highest sequence number per (partition, bucket) in the base snapshot, for primary-key and
 * fixed-bucket append tables. Bucket-unaware append tables start every file at 0, as Java does.
 */
async function restoreSequenceNumbers(
  store: ObjectStore,
  tablePath: string,
  schema: TableSchema,
  baseSnapshotId: number | null | undefined,
): Promise<ReadonlyMap<string, bigint>> {
  if (bucketCount(schema) <= 0 || baseSnapshotId === null) return new Map();
  const snapshots = new SnapshotManager(store, tablePath);
  const snapshot = baseSnapshotId === undefined ? await snapshots.latestSnapshot() : await snapshots.snapshot(baseSnapshotId);
  if (snapshot === null) return new Map();
  // A snapshot never changes: the writers of one load (a worker's shards, pinned on one base) read
  // its manifests once, not once each. Its manifest lists' names (fresh UUIDs) tell a snapshot of a
  // dropped and recreated table from the old one with the same id.
  const key = `${tablePath}\u0000${snapshot.id}\u0000${snapshot.baseManifestList}\u0000${snapshot.deltaManifestList}`;
  let perStore = restoredBySnapshot.get(store);
  if (perStore === undefined) restoredBySnapshot.set(store, (perStore = new Map()));
  const known = perStore.get(key);
  if (known !== undefined) {
    perStore.delete(key);
    perStore.set(key, known); // most recently used last
    return known;
  }
  const scan = new FileStoreScan(store, tablePath, fieldsByName(schema, schema.partitionKeys));
  const restoring = scan.plan(snapshot).then(maxSequenceNumbers);
  perStore.set(key, restoring);
  restoring.catch(() => perStore.delete(key));
  while (perStore.size > RESTORED_SNAPSHOTS_KEPT) perStore.delete(perStore.keys().next().value as string);
  return restoring;
}

/** How many snapshots' restored sequence numbers a process keeps per store (least recently used go). */
const RESTORED_SNAPSHOTS_KEPT = 16;
/** Per store, per table snapshot: the highest sequence number per (partition, bucket) in it. */
const restoredBySnapshot = new WeakMap<ObjectStore, Map<string, Promise<ReadonlyMap<string, bigint>>>>();


/** Bytes a JavaScript string or byte array costs beyond its content (header, pointer): a rough constant. */
const VALUE_OVERHEAD_BYTES = 16;

/**
 * A cheap estimate of the memory a batch's values hold (the spill budget): typed arrays at their
 * byte length, strings at 2 bytes a character (V8 stores the wider ones so) plus an overhead,
 * byte arrays at their length plus an overhead, bigints at 16 bytes.
 */
export function estimatedBytes(batch: ColumnBatch): number {
  let bytes = 0;
  for (const column of batch.columns) {
    if (column.validity !== undefined) bytes += column.validity.byteLength;
    switch (column.kind) {
      case 'string':
        for (const v of column.values) bytes += 2 * v.length + VALUE_OVERHEAD_BYTES;
        break;
      case 'binary':
        for (const v of column.values) bytes += v.byteLength + VALUE_OVERHEAD_BYTES;
        break;
      case 'bigint':
        bytes += 16 * column.values.length;
        break;
      case 'timestamp':
        bytes += column.millis.byteLength + column.nanos.byteLength;
        break;
      default:
        bytes += column.values.byteLength;
    }
  }
  return bytes;
}
