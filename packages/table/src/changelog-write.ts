/**
 * Writes a load into a primary-key table with `changelog-producer = input`, computing its complete
 * changelog from the pinned base snapshot (Paimon's lookup rule, without a Java compaction):
 *
 *   one bucket's netted changes, in key order, each key once (at once, or streamed in batches; a
 *   bucket job's merged key-value record batches stay columns: writeBucketRecords, format/changelog-batch.ts)
 *     ─► before-images of those keys in the base snapshot (read/before-images.ts: only the files
 *        whose key range holds one of them, probed by key, batch by batch; a row group's non-key
 *        columns decoded only where a key matches, converted only for the matching rows; a
 *        batch's keys above every file's range, a load's new keys, are not asked for)
 *     ─► per key: data record and changelog rows (format/changelog.ts)
 *     ─► one level-0 data file run `data-<writer>-<uuid>-<n>.parquet` (+I/+U after images, -D
 *        tombstones holding the stored row), sequence numbers from the bucket's base maximum + 1
 *     ─► one changelog file run `changelog-<writer>-<uuid>-<n>.parquet` (same key-value layout, key
 *        order, each -U immediately followed by its +U; -U/-D carry the stored record's
 *        `_SEQUENCE_NUMBER`, +I/+U the new one)
 *     ─► a CommitMessage with both; the committer writes them as one APPEND snapshot with
 *        `changelogManifestList`, and refuses it (COMMIT_CHANGELOG_STALE) if another writer changed
 *        one of its buckets after the base.
 *
 * Netting a load across writers (shards) is the caller's: writeBucket takes the final state of each
 * key. `write` nets the changes of this one writer (the last by sequence.field, then arrival wins)
 * and routes them to their buckets.
 */
import { randomUUID } from 'node:crypto';
import { errorFrom } from '@tributary/errors';
import { tableErrors } from './errors.ts';
import type { ObjectStore } from './io/object-store.ts';
import { compareRowsAt, prepareColumns, type PreparedColumns } from './format/batch-merge.ts';
import { changelogBatch, countChangelogRow } from './format/changelog-batch.ts';
import { allocateColumn, batchFromRows, isNullAt, shiftRows, valueAt, type Column, type ColumnBatch } from './format/column-batch.ts';
import { compareKeys, keyOutcome, netChanges, type ChangelogRules, type KeyedChange } from './format/changelog.ts';
import { RowKind, keyValueRowType } from './format/key-value.ts';
import { bucketKey } from './spec/binary-row.ts';
import { dataFilesMessage, type CommitMessage } from './spec/commit-message.ts';
import type { DataFileMeta } from './spec/data-file-meta.ts';
import type { ManifestEntry } from './spec/manifest-entry.ts';
import { fieldsByName, partitionFields, trimmedPrimaryKeys, validateTableSchema, type TableSchema } from './spec/table-schema.ts';
import type { InternalRow, InternalValue, RowType } from './spec/types.ts';
import { FileStoreScan } from './snapshot/file-store-scan.ts';
import type { ManifestCache } from './snapshot/manifest-cache.ts';
import { SnapshotManager } from './snapshot/snapshot-manager.ts';
import type { Snapshot } from './spec/snapshot.ts';
import { BeforeImageProbe } from './read/before-images.ts';
import { TableRead } from './read/table-read.ts';
import { keyValueFileMeta, localCreationTime, valueStatsOptions, type FileMetaContext } from './write/data-file-metas.ts';
import { CHANGELOG_FILE, DATA_FILE_LEVEL_0, fileCompression, type FileKind } from './spec/file-options.ts';
import { KeyValueFileWriter } from './write/key-value-writer.ts';
import { parseMemorySize } from './write/manifest-merge.ts';
import { objectStoreSink } from './write/object-sink.ts';
import { RowRouter, type BucketTarget } from './write/row-routing.ts';
import { fileNameSafe } from './write/table-write.ts';

export interface ChangelogWriteOptions {
  /** The pinned snapshot the before-images are read from (null: the table was empty). Commit with the same baseSnapshotId. */
  readonly baseSnapshotId: number | null;
  /** Starts every file name, as TableWriteOptions.writerId does (default: a random UUID). */
  readonly writerId?: string;
  /** Overrides the table's `target-file-size` (bytes). */
  readonly targetFileSize?: number;
  /** Most rows in a row group of the files written (default 128 Ki; e.g. small row groups in a test). */
  readonly rowGroupRows?: number;
  /** Decoded manifests kept between writes (a worker's, shared by its bucket jobs); none: read afresh. */
  readonly manifestCache?: ManifestCache;
}

/** What one bucket's changes came to. */
export interface BucketChangelog {
  /** Null when no key changed (no-op updates, deletes of absent keys, late records). */
  readonly message: CommitMessage | null;
  readonly dataRows: number;
  /** Changelog rows by kind. */
  readonly inserts: number;
  readonly updates: number;
  readonly deletes: number;
  /** Base-snapshot files read for before-images (files whose key range holds none of the keys are skipped). */
  readonly filesRead: number;
}

export class ChangelogWrite {
  readonly #store: ObjectStore;
  readonly #tablePath: string;
  readonly #schema: TableSchema;
  readonly #rowType: RowType;
  readonly #router: RowRouter;
  /** The table's columns, all nullable: a delete may carry only its key. */
  readonly #routeType: RowType;
  readonly #read: TableRead;
  readonly #rules: ChangelogRules;
  readonly #keyIndex: readonly number[];
  /** Column indices of the primary keys (partition keys included), for the null check of each row. */
  readonly #primaryKeyIndex: readonly number[];
  readonly #trimmed: readonly string[];
  readonly #writerId: string;
  readonly #targetFileSize: number;
  readonly #rowGroupRows: number | undefined;
  /**
   * Whether data and changelog files are written with the same file options (compression), so a
   * load's new keys, whose changelog rows are their data records, are encoded once for both.
   */
  readonly #shareInserts: boolean;
  /** The pinned base snapshot (null: the table was empty). */
  readonly #snapshot: Snapshot | null;
  readonly #scan: FileStoreScan;
  /** The base snapshot's live files per bucketKey, when `write` scanned them for many buckets at once. */
  #base: ReadonlyMap<string, ManifestEntry[]> | undefined;
  readonly #written = new Set<string>();
  readonly #messages: CommitMessage[] = [];
  #closed = false;

  private constructor(store: ObjectStore, tablePath: string, schema: TableSchema, snapshot: Snapshot | null, options: ChangelogWriteOptions) {
    this.#store = store;
    this.#tablePath = tablePath;
    this.#schema = schema;
    this.#rowType = { fields: schema.fields };
    this.#routeType = { fields: schema.fields.map((f) => ({ ...f, type: { ...f.type, nullable: true } })) };
    this.#router = new RowRouter(schema);
    this.#read = new TableRead(store, tablePath, schema, options.baseSnapshotId === null ? {} : { snapshotId: options.baseSnapshotId });
    this.#trimmed = trimmedPrimaryKeys(schema);
    const indexOf = (name: string) => schema.fields.findIndex((f) => f.name === name.trim());
    this.#keyIndex = this.#trimmed.map(indexOf);
    this.#primaryKeyIndex = schema.primaryKeys.map((k) => schema.fields.findIndex((f) => f.name === k));
    const list = (key: string) => (schema.options[key] ?? '').split(',').map((s) => s.trim()).filter((s) => s !== '');
    this.#rules = {
      types: schema.fields.map((f) => f.type),
      ignored: new Set(list('changelog-producer.row-deduplicate-ignore-fields').map(indexOf)),
      sequenceFields: list('sequence.field').map(indexOf),
      ignoreDelete: (schema.options['ignore-delete'] ?? '').trim().toLowerCase() === 'true',
    };
    this.#writerId = fileNameSafe(options.writerId ?? randomUUID());
    const target = schema.options['target-file-size'];
    this.#targetFileSize = options.targetFileSize ?? (target === undefined ? 128 * 1024 * 1024 : parseMemorySize(target));
    this.#rowGroupRows = options.rowGroupRows;
    const dataFiles = fileCompression(schema.options, DATA_FILE_LEVEL_0);
    const changelogFiles = fileCompression(schema.options, CHANGELOG_FILE);
    this.#shareInserts = dataFiles.compression === changelogFiles.compression && dataFiles.zstdLevel === changelogFiles.zstdLevel;
    this.#snapshot = snapshot;
    this.#scan = new FileStoreScan(store, tablePath, partitionFields(schema), options.manifestCache);
  }

  /** @throws TABLE_UNSUPPORTED unless the table has changelog-producer = input (and validateTableSchema passes) */
  static async open(store: ObjectStore, tablePath: string, schema: TableSchema, options: ChangelogWriteOptions): Promise<ChangelogWrite> {
    validateTableSchema(schema);
    const producer = (schema.options['changelog-producer'] ?? 'none').trim().toLowerCase();
    if (producer !== 'input') {
      throw errorFrom(tableErrors, 'TABLE_UNSUPPORTED', `a changelog is written only into a table with changelog-producer = 'input', not '${producer}'`, {
        option: 'changelog-producer',
        value: producer,
      });
    }
    const snapshot = options.baseSnapshotId === null ? null : await new SnapshotManager(store, tablePath).snapshot(options.baseSnapshotId);
    return new ChangelogWrite(store, tablePath, schema, snapshot, options);
  }

  /**
   * Nets these changes (arrival order; the last by sequence.field, then arrival, wins a key),
   * routes them to their buckets and writes each bucket (writeBucket).
   */
  async write(changes: readonly KeyedChange[]): Promise<BucketChangelog[]> {
    this.#checkOpen();
    if (changes.length === 0) return [];
    const routing = batchFromRows(this.#routeType, changes.map((c) => c.row));
    const results: BucketChangelog[] = [];
    const routed = this.#router.route(routing);
    // Many buckets: one scan of the base for all of them, not one per bucket.
    if (routed.length > 1 && this.#base === undefined) this.#base = await this.#scanBase();
    for (const { rows } of routed) {
      results.push(await this.writeBucket(netChanges(rows.map((i) => changes[i] as KeyedChange), this.#keyIndex, this.#rules.sequenceFields)));
    }
    return results;
  }

  /**
   * Writes one bucket's final changes: all rows of one (partition, bucket), sorted by primary key,
   * each key once (a delete may carry only the primary-key columns). A bucket is written once.
   * @throws WRITE_ROW_INVALID when rows span buckets, are out of key order, repeat a key or lack a key value
   */
  writeBucket(changes: readonly KeyedChange[]): Promise<BucketChangelog> {
    return this.writeBucketBatches([changes]);
  }

  /**
   * writeBucket with the bucket's changes streamed in batches (the batches together in ascending key
   * order): each batch's before-images are probed, its data and changelog records appended to the
   * bucket's two open file runs, and the batch dropped, so memory is one batch, one row group per
   * overlapping base file and the open files' buffers (each holds records until they fill a row
   * group), whatever the bucket's size. Rows are checked
   * batch by batch; a failure aborts the files written so far.
   * @throws WRITE_ROW_INVALID as writeBucket (`row` counts from the first batch's first row)
   */
  async writeBucketBatches(batches: AsyncIterable<readonly KeyedChange[]> | Iterable<readonly KeyedChange[]>): Promise<BucketChangelog> {
    this.#checkOpen();
    let bucket: BucketRuns | undefined;
    let offset = 0;
    let previous: KeyedChange | undefined;
    try {
      for await (const changes of batches) {
        if (changes.length === 0) continue;
        this.#checkRows(changes, offset, previous);
        const target = this.#checkBucket(this.#routingBatch(changes), offset, bucket?.target);
        bucket ??= await this.#openBucket(target);
        await this.#writeChanges(bucket, changes);
        offset += changes.length;
        previous = changes[changes.length - 1];
      }
    } catch (error) {
      await abandonBucket(bucket, error);
      throw error;
    }
    return bucket === undefined ? NOTHING_WRITTEN : this.#finish(bucket);
  }

  /**
   * writeBucketBatches for a bucket job's merged records (bucket-merge.ts `mergeBucketRuns`): batches
   * of the key-value record type (keys, `_SEQUENCE_NUMBER`, `_VALUE_KIND`, the table's columns), one
   * record per key in ascending key order across batches; a retraction deletes its key, any other
   * record upserts it. The records stay columns: each batch's data and changelog records are
   * gathered from it and from the before-images by row (format/changelog-batch.ts), with the same
   * result as writeBucketBatches given the same changes as rows.
   * @throws WRITE_ROW_INVALID as writeBucketBatches
   */
  async writeBucketRecords(batches: AsyncIterable<ColumnBatch> | Iterable<ColumnBatch>): Promise<BucketChangelog> {
    this.#checkOpen();
    const k = this.#trimmed.length;
    const keyColumns = this.#trimmed.map((_, i) => i);
    let bucket: BucketRuns | undefined;
    let offset = 0;
    let previous: { keys: PreparedColumns; row: number } | undefined;
    try {
      for await (const records of batches) {
        if (records.length === 0) continue;
        const keys = prepareColumns(records, keyColumns);
        this.#checkRecords(records, keys, offset, previous);
        const routing: ColumnBatch = { rowType: this.#routeType, length: records.length, columns: records.columns.slice(k + 2) };
        const target = this.#checkBucket(routing, offset, bucket?.target);
        bucket ??= await this.#openBucket(target);
        await this.#writeRecords(bucket, records);
        offset += records.length;
        previous = { keys, row: records.length - 1 };
      }
    } catch (error) {
      await abandonBucket(bucket, error);
      throw error;
    }
    return bucket === undefined ? NOTHING_WRITTEN : this.#finish(bucket);
  }

  /** Every message written so far (one per bucket that changed); the writer takes no more rows. */
  prepareCommit(): CommitMessage[] {
    this.#checkOpen();
    this.#closed = true;
    return [...this.#messages];
  }

  #checkOpen(): void {
    if (this.#closed) throw errorFrom(tableErrors, 'WRITE_CLOSED', 'this ChangelogWrite was already prepared for commit', { writerId: this.#writerId });
  }

  /** Each row has all columns and its key values, in strictly ascending key order after `previous`. */
  #checkRows(changes: readonly KeyedChange[], offset: number, previous: KeyedChange | undefined): void {
    const invalid = (message: string, row: number) => errorFrom(tableErrors, 'WRITE_ROW_INVALID', message, { row: offset + row });
    changes.forEach((c, i) => {
      if (c.row.length !== this.#rowType.fields.length) throw invalid(`row has ${c.row.length} values, the table ${this.#rowType.fields.length} columns`, i);
      if (this.#primaryKeyIndex.some((k) => (c.row[k] ?? null) === null)) {
        throw invalid('a primary-key value is null', i);
      }
      const before = i === 0 ? previous : changes[i - 1];
      if (before !== undefined && compareKeys(before.row, c.row, this.#keyIndex) >= 0) {
        throw invalid('rows of a bucket must be in ascending primary-key order, each key once', i);
      }
    });
  }

  /**
   * Each record has its primary-key values, in strictly ascending key order after `previous` (the
   * last record of the batch before): writeBucketBatches' checks on the columns.
   */
  #checkRecords(records: ColumnBatch, keys: PreparedColumns, offset: number, previous: { keys: PreparedColumns; row: number } | undefined): void {
    const invalid = (message: string, row: number) => errorFrom(tableErrors, 'WRITE_ROW_INVALID', message, { row: offset + row });
    if (records.columns.length !== this.#rowType.fields.length + this.#trimmed.length + 2) {
      throw invalid(`records have ${records.columns.length} columns, the table's key-value records ${this.#rowType.fields.length + this.#trimmed.length + 2}`, 0);
    }
    const k = this.#trimmed.length;
    for (const index of this.#primaryKeyIndex) {
      const column = records.columns[k + 2 + index] as Column;
      if (column.validity === undefined) continue;
      for (let i = 0; i < records.length; i++) if (isNullAt(column, i)) throw invalid('a primary-key value is null', i);
    }
    if (previous !== undefined && compareRowsAt(previous.keys, previous.row, keys, 0) >= 0) {
      throw invalid('rows of a bucket must be in ascending primary-key order, each key once', 0);
    }
    for (let i = 1; i < records.length; i++) {
      if (compareRowsAt(keys, i - 1, keys, i) >= 0) throw invalid('rows of a bucket must be in ascending primary-key order, each key once', i);
    }
  }

  /** The one bucket of the rows (`routing`: a batch of the table's columns): `current` when given (a later batch), else a bucket not yet written by this writer. */
  #checkBucket(routing: ColumnBatch, offset: number, current: BucketTarget | undefined): BucketTarget {
    const invalid = (message: string, row: number) => errorFrom(tableErrors, 'WRITE_ROW_INVALID', message, { row: offset + row });
    const routed = this.#router.route(routing);
    const first = routed[0];
    if (first === undefined || routed.length > 1) throw invalid('the rows belong to more than one (partition, bucket)', routed[1]?.rows[0] ?? 0);
    if (current !== undefined) {
      if (first.target.key !== current.key) throw invalid('the rows belong to more than one (partition, bucket)', 0);
      return current;
    }
    if (this.#written.has(first.target.key)) throw invalid(`bucket ${first.target.bucket} of this partition was already written by this changelog write`, 0);
    this.#written.add(first.target.key);
    return first.target;
  }

  /** The rows as a batch of the columns routing reads (the others all null: not converted). */
  #routingBatch(changes: readonly KeyedChange[]): ColumnBatch {
    const length = changes.length;
    const read = this.#router.columnsRead;
    const columns = this.#routeType.fields.map((field, f) => {
      if (!read.has(f)) return allocateColumn(field.type, length, new Uint8Array(length));
      return batchFromRows({ fields: [field] }, changes.map((c) => [c.row[f] ?? null])).columns[0] as Column;
    });
    return { rowType: this.#routeType, length, columns };
  }

  /** The base snapshot's live files of every bucket, per bucketKey. */
  async #scanBase(): Promise<Map<string, ManifestEntry[]>> {
    const base = new Map<string, ManifestEntry[]>();
    for (const entry of await this.#scan.plan(this.#snapshot)) {
      const key = bucketKey(entry.partition, entry.bucket);
      const files = base.get(key);
      if (files === undefined) base.set(key, [entry]);
      else files.push(entry);
    }
    return base;
  }

  /**
   * The base snapshot's live files of one bucket: from the scan of every bucket when `write` made
   * one, else a scan of this (partition, bucket) only (manifests pruned by their partition and
   * bucket statistics, entries of other buckets dropped as they are read): a bucket job reads the
   * metadata it needs, not the whole table's.
   */
  async #bucketFiles(target: BucketTarget): Promise<ManifestEntry[]> {
    if (this.#base !== undefined) return this.#base.get(target.key) ?? [];
    return this.#scan.plan(this.#snapshot, { partitionRows: [target.partition], buckets: [target.bucket] });
  }

  async #openBucket(target: BucketTarget): Promise<BucketRuns> {
    const files = await this.#bucketFiles(target);
    return {
      target,
      probe: new BeforeImageProbe(this.#read, files, { ignoreDelete: this.#rules.ignoreDelete }),
      next: files.reduce((max, e) => (e.file.maxSequenceNumber > max ? e.file.maxSequenceNumber : max), -1n) + 1n,
      data: undefined,
      changelog: undefined,
      inserts: [],
      insertRows: 0,
      insertsStarted: false,
      insertsOver: false,
      dataRows: 0,
      counts: { inserts: 0, updates: 0, deletes: 0 },
    };
  }

  /** One batch: its before-images, the per-key rule, its records appended to the bucket's runs. */
  async #writeChanges(bucket: BucketRuns, changes: readonly KeyedChange[]): Promise<void> {
    const images = await bucket.probe.lookup(changes.map((c) => this.#keyIndex.map((i) => c.row[i] ?? null)));
    const data: InternalRow[] = [];
    const changelog: InternalRow[] = [];
    changes.forEach((change, i) => {
      const before = images[i] ?? null;
      const outcome = keyOutcome(before, change, this.#rules);
      if (outcome.data === null) return;
      const sequence = bucket.next++;
      const record = this.#record(outcome.data.row, sequence, outcome.data.kind);
      data.push(record);
      for (const row of outcome.changelog) {
        const number = row.sequence === 'before' ? (before?.sequenceNumber ?? sequence) : sequence;
        // An +I is the data record itself (same row, kind and number): one array for both runs.
        changelog.push(row.row === outcome.data.row && row.kind === outcome.data.kind && number === sequence ? record : this.#record(row.row, number, row.kind));
        countChangelogRow(bucket.counts, row);
      }
    });
    const recordType = keyValueRowType(this.#rowType, this.#trimmed);
    if (data.length > 0) {
      bucket.data ??= this.#runWriter(bucket.target, 'data-', DATA_FILE_LEVEL_0);
      await bucket.data.write(batchFromRows(recordType, data));
      bucket.dataRows += data.length;
    }
    if (changelog.length > 0) {
      bucket.changelog ??= this.#runWriter(bucket.target, this.#changelogPrefix(), CHANGELOG_FILE);
      await bucket.changelog.write(batchFromRows(recordType, changelog));
    }
  }

  /** One batch of merged records: its before-images, then its data and changelog records gathered column-wise. */
  async #writeRecords(bucket: BucketRuns, records: ColumnBatch): Promise<void> {
    const keyColumns = records.columns.slice(0, this.#trimmed.length);
    const keyAt = (i: number): InternalRow => keyColumns.map((c) => valueAt(c, i));
    // The records whose keys lie above every base file's range have no before-image and are not
    // asked for: records ascend, so they are the batch's last ones (a load's new keys), found by a
    // binary search instead of a key row and a comparison with each file per record.
    let probed = records.length;
    if (probed > 0 && bucket.probe.isAboveAll(keyAt(probed - 1))) {
      let lo = 0;
      while (lo < probed) {
        const mid = (lo + probed) >>> 1;
        if (bucket.probe.isAboveAll(keyAt(mid))) probed = mid;
        else lo = mid + 1;
      }
    }
    const keys: InternalRow[] = new Array<InternalRow>(probed);
    for (let i = 0; i < probed; i++) keys[i] = keyAt(i);
    const images = await bucket.probe.lookup(keys);
    for (let i = probed; i < records.length; i++) images.push(null);
    const recordType = keyValueRowType(this.#rowType, this.#trimmed);
    const out = changelogBatch(records, images, this.#rules, { recordType, keyIndex: this.#keyIndex }, bucket.next, bucket.counts);
    bucket.next = out.next;
    // A batch of new keys above every stored one (a load's appended keys): its changelog rows are its
    // data records (changelogBatch gives one batch for both), held and encoded once for both files.
    if (out.data !== undefined && out.data === out.changelog && probed === 0 && this.#shareInserts && !bucket.insertsOver) {
      bucket.inserts.push(out.data);
      bucket.insertRows += out.data.length;
      bucket.insertsStarted = true;
      bucket.dataRows += out.data.length;
      // Groups as the files would cut them: the smaller of the two writers' next group (row-group
      // bound, what is left of a file's target size).
      const { data, changelog } = this.#sharedWriters(bucket);
      for (let rows = Math.min(data.nextGroupRows(), changelog.nextGroupRows()); bucket.insertRows >= rows; rows = Math.min(data.nextGroupRows(), changelog.nextGroupRows())) {
        await this.#writeInserts(bucket, rows);
      }
      return;
    }
    if (bucket.insertsStarted && !bucket.insertsOver) {
      // Records that are not new keys after new keys (deletes of keys never stored): the held rows
      // go first, and the rest of the bucket is written to each file on its own (no more cuts).
      await this.#writeInserts(bucket, bucket.insertRows);
      bucket.insertsOver = true;
    }
    if (out.data !== undefined) {
      bucket.data ??= this.#runWriter(bucket.target, 'data-', DATA_FILE_LEVEL_0);
      await bucket.data.write(out.data);
      bucket.dataRows += out.data.length;
    }
    if (out.changelog !== undefined) {
      bucket.changelog ??= this.#runWriter(bucket.target, this.#changelogPrefix(), CHANGELOG_FILE);
      await bucket.changelog.write(out.changelog);
    }
  }

  /**
   * The first `rows` held new-key records as one row group, encoded once and written into both the
   * data and the changelog file (each first ends the row group of the rows it holds).
   */
  async #writeInserts(bucket: BucketRuns, rows: number): Promise<void> {
    if (rows === 0) return;
    bucket.insertRows -= rows;
    const group = shiftRows(keyValueRowType(this.#rowType, this.#trimmed), bucket.inserts, rows);
    const { data, changelog } = this.#sharedWriters(bucket);
    const shared = data.share(group);
    await data.writeShared(shared);
    await changelog.writeShared(shared);
  }

  /** The bucket's data and changelog runs, both open (shared row groups go into both). */
  #sharedWriters(bucket: BucketRuns): { data: KeyValueFileWriter; changelog: KeyValueFileWriter } {
    bucket.data ??= this.#runWriter(bucket.target, 'data-', DATA_FILE_LEVEL_0);
    bucket.changelog ??= this.#runWriter(bucket.target, this.#changelogPrefix(), CHANGELOG_FILE);
    return { data: bucket.data, changelog: bucket.changelog };
  }

  async #finish(bucket: BucketRuns): Promise<BucketChangelog> {
    if (bucket.insertRows > 0) await this.#writeInserts(bucket, bucket.insertRows);
    const filesRead = bucket.probe.filesRead;
    await bucket.probe.close();
    const { target, counts } = bucket;
    if (bucket.data === undefined) return { message: null, dataRows: 0, inserts: 0, updates: 0, deletes: 0, filesRead };
    let newFiles: DataFileMeta[];
    let changelogFiles: DataFileMeta[];
    try {
      newFiles = await this.#closeRun(bucket.data, DATA_FILE_LEVEL_0);
      changelogFiles = bucket.changelog === undefined ? [] : await this.#closeRun(bucket.changelog, CHANGELOG_FILE);
    } catch (error) {
      await bucket.data.abort(error);
      await bucket.changelog?.abort(error);
      throw error;
    }
    const message = dataFilesMessage(target.partition, target.bucket, target.totalBuckets, { newFiles, changelogFiles });
    this.#messages.push(message);
    return { message, dataRows: bucket.dataRows, ...counts, filesRead };
  }

  /** A key-value record: trimmed key, `_SEQUENCE_NUMBER`, `_VALUE_KIND`, the table columns. */
  #record(row: InternalRow, sequence: bigint, kind: number): InternalRow {
    const keys: InternalValue[] = this.#keyIndex.map((i) => row[i] ?? null);
    return [...keys, sequence, kind, ...row];
  }

  #changelogPrefix(): string {
    const prefix = this.#schema.options['changelog-file.prefix'];
    return prefix === undefined || prefix.trim() === '' ? 'changelog-' : prefix.trim();
  }

  #runWriter(target: BucketTarget, prefix: string, kind: FileKind): KeyValueFileWriter {
    const dir = `${this.#tablePath}/${target.partitionPath}bucket-${target.bucket}`;
    return new KeyValueFileWriter({
      ...fileCompression(this.#schema.options, kind),
      uuid: `${this.#writerId}-${randomUUID()}`,
      fileNamePrefix: prefix,
      // Records come a merged batch at a time: the files still get full row groups, as a bucket
      // job's files without a changelog do (a row group per batch made 4,096-row groups).
      fillRowGroups: true,
      ...(this.#rowGroupRows === undefined ? {} : { rowGroupRows: this.#rowGroupRows }),
      targetFileSize: this.#targetFileSize,
      openSink: (fileName: string) => objectStoreSink(this.#store, `${dir}/${fileName}`),
      tableRowType: this.#rowType,
      trimmedPrimaryKeys: this.#trimmed,
    });
  }

  async #closeRun(writer: KeyValueFileWriter, kind: FileKind): Promise<DataFileMeta[]> {
    const ctx: FileMetaContext = {
      schemaId: this.#schema.id,
      creationTime: localCreationTime(new Date()),
      valueStats: valueStatsOptions(this.#rowType.fields, this.#schema.options, kind),
    };
    const keyTypes = fieldsByName(this.#schema, this.#trimmed).map((f) => f.type);
    return (await writer.close()).map((file) => keyValueFileMeta(file, keyTypes, ctx));
  }
}

/** One bucket being written: its before-image probe, its next sequence number, its two file runs (opened at their first record). */
interface BucketRuns {
  readonly target: BucketTarget;
  readonly probe: BeforeImageProbe;
  next: bigint;
  data: KeyValueFileWriter | undefined;
  changelog: KeyValueFileWriter | undefined;
  /** New-key records held until they fill a row group shared by both files (in key order, after everything written). */
  inserts: ColumnBatch[];
  insertRows: number;
  /** New-key records were shared (or are held). */
  insertsStarted: boolean;
  /** Records other than new keys came after new keys: the rest of the bucket is not shared. */
  insertsOver: boolean;
  dataRows: number;
  readonly counts: { inserts: number; updates: number; deletes: number };
}

/** A bucket write that saw no record. */
const NOTHING_WRITTEN: BucketChangelog = { message: null, dataRows: 0, inserts: 0, updates: 0, deletes: 0, filesRead: 0 };

/** A bucket write that failed: its probe closed, its open files abandoned (closed files stay as orphans). */
async function abandonBucket(bucket: BucketRuns | undefined, error: unknown): Promise<void> {
  await bucket?.probe.close();
  await bucket?.data?.abort(error);
  await bucket?.changelog?.abort(error);
}
