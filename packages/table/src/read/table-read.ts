/**
 * Reads the rows of one snapshot, streaming: org.apache.paimon.table.source.TableRead over
 * RawFileSplitRead (append tables) and MergeFileSplitRead (primary-key tables).
 *
 *   plan (file-store-scan.ts) ─► group files by (partition, bucket)
 *     append table:   each file, row group by row group
 *     primary key:    splitForBatch ─► raw sections read as is, overlapping sections merged
 *                     (sort-merge-reader.ts: deduplicate, sequence.field, drop -U/-D)
 *
 * Memory: one row group per open file, and a merge opens one file per sorted run of a section.
 */
import { errorFrom } from '@tributary/errors';
import { tableErrors } from '../errors.ts';
import type { ObjectStore } from '../io/object-store.ts';
import { batchFromRows, valueAt, type ColumnBatch } from '../format/column-batch.ts';
import { compareInternal } from '../format/column-stats.ts';
import { SEQUENCE_NUMBER_FIELD, VALUE_KIND_FIELD } from '../format/key-value.ts';
import { ParquetDataFileReader, readAheadSource, type ByteSource } from '../parquet/parquet-reader.ts';
import { decodeBinaryRow } from '../spec/binary-row.ts';
import type { ManifestEntry } from '../spec/manifest-entry.ts';
import { dataFilePaths, partitionPathOptions, type DataFilePaths } from '../spec/partition-path.ts';
import { decodeTableSchema, fieldsByName, partitionFields, trimmedPrimaryKeys, type TableSchema } from '../spec/table-schema.ts';
import type { DataField, InternalRow, InternalValue, RowType } from '../spec/types.ts';
import { FileStoreScan, type ScanFilter } from '../snapshot/file-store-scan.ts';
import { splitForBatch, type SplitFile } from './merge-tree-split.ts';
import { SnapshotManager } from '../snapshot/snapshot-manager.ts';
import { mergeDeduplicate, type KeyValue, type KeyValueOrder } from './sort-merge-reader.ts';

export interface TableReadOptions {
  /** Time travel: read this snapshot instead of the latest. */
  readonly snapshotId?: number;
  /** Partition equality (`{ dt: 19723 }`) or a predicate over the partition values. */
  readonly partitionFilter?: ScanFilter['partition'];
  /** Only these buckets. */
  readonly buckets?: readonly number[];
  /** Rows per batch produced by merges (raw files keep their row groups). Default 4096. */
  readonly batchRows?: number;
}

/** Ids of _SEQUENCE_NUMBER, _VALUE_KIND and the like (SpecialFields): never renamed. */
const SYSTEM_FIELD_ID_START = 2147483645;
/** A name no Parquet column has, so a column added after the file was written reads as null. */
const ABSENT_COLUMN_PREFIX = '\u0000absent-field-';

interface PlannedFile extends SplitFile<InternalRow> {
  readonly entry: ManifestEntry;
}

export class TableRead implements AsyncIterable<InternalRow> {
  readonly #store: ObjectStore;
  readonly #tablePath: string;
  readonly #schema: TableSchema;
  readonly #options: TableReadOptions;
  readonly #rowType: RowType;
  readonly #partition: readonly DataField[];
  readonly #paths: DataFilePaths;
  readonly #schemas = new Map<number, Promise<TableSchema>>();

  constructor(store: ObjectStore, tablePath: string, schema: TableSchema, options: TableReadOptions = {}) {
    this.#store = store;
    this.#tablePath = tablePath;
    this.#schema = schema;
    this.#options = options;
    this.#rowType = { fields: schema.fields };
    this.#partition = partitionFields(schema);
    this.#paths = dataFilePaths(this.#partition, partitionPathOptions(schema.options));
    checkReadable(schema);
  }

  get schema(): TableSchema {
    return this.#schema;
  }

  /** The live files this read covers (after partition and bucket pruning). */
  async plan(): Promise<ManifestEntry[]> {
    const snapshots = new SnapshotManager(this.#store, this.#tablePath);
    const id = this.#options.snapshotId;
    const snapshot = id === undefined ? await snapshots.latestSnapshot() : await snapshots.snapshot(id);
    const scan = new FileStoreScan(this.#store, this.#tablePath, this.#partition);
    return scan.plan(snapshot, { ...(this.#options.partitionFilter !== undefined ? { partition: this.#options.partitionFilter } : {}), ...(this.#options.buckets !== undefined ? { buckets: this.#options.buckets } : {}) });
  }

  /** Batches of the table's row type. */
  async *batches(): AsyncGenerator<ColumnBatch> {
    const pk = this.#schema.primaryKeys.length > 0;
    for (const files of groupByBucket(await this.plan())) {
      if (pk) yield* this.#readPrimaryKeyBucket(files);
      else for (const entry of files) yield* this.#readFile(entry, this.#rowType);
    }
  }

  async *rows(): AsyncGenerator<InternalRow> {
    for await (const batch of this.batches()) yield* rowsOf(batch);
  }

  [Symbol.asyncIterator](): AsyncIterator<InternalRow> {
    return this.rows();
  }

  /** Every row in memory: for tests and small tables. */
  async toArray(): Promise<InternalRow[]> {
    const out: InternalRow[] = [];
    for await (const row of this.rows()) out.push(row);
    return out;
  }

  async *#readPrimaryKeyBucket(entries: readonly ManifestEntry[]): AsyncGenerator<ColumnBatch> {
    const keyFields = fieldsByName(this.#schema, trimmedPrimaryKeys(this.#schema));
    const keyTypes = keyFields.map((f) => f.type);
    const files: PlannedFile[] = entries.map((entry) => ({
      entry,
      minKey: decodeBinaryRow(entry.file.minKey, keyTypes),
      maxKey: decodeBinaryRow(entry.file.maxKey, keyTypes),
      level: entry.file.level,
      deleteRowCount: entry.file.deleteRowCount,
    }));
    const order = this.keyValueOrder();
    for (const section of splitForBatch(files, order.compareKey)) {
      if (section.kind === 'raw') {
        yield* this.#readFile(section.file.entry, this.#rowType);
        continue;
      }
      const runs = section.runs.map((run) => this.#readRun(run.map((f) => f.entry), keyFields));
      yield* this.#rebatch(mergeDeduplicate(runs, order, { ignoreDelete: isTrue(this.#schema.options['ignore-delete']) }));
    }
  }

  /** The records of one primary-key data file, in file order (key order), with their sequence numbers and kinds. */
  keyValues(entry: ManifestEntry): AsyncGenerator<KeyValue> {
    return this.#readRun([entry], fieldsByName(this.#schema, trimmedPrimaryKeys(this.#schema)));
  }

  /**
   * The records of one primary-key data file as column batches (one per row group), in key order:
   * `_SEQUENCE_NUMBER`, `_VALUE_KIND`, then the table columns. No row is materialised.
   */
  keyValueBatches(entry: ManifestEntry): AsyncGenerator<ColumnBatch> {
    return this.#readFile(entry, { fields: [SEQUENCE_NUMBER_FIELD, VALUE_KIND_FIELD, ...this.#schema.fields] });
  }

  /** How this table's records are ordered in a merge: the trimmed primary key, then `sequence.field`. */
  keyValueOrder(): KeyValueOrder {
    const keyFields = fieldsByName(this.#schema, trimmedPrimaryKeys(this.#schema));
    const compareKey = (a: InternalRow, b: InternalRow): number => compareRows(a, b, keyFields.length);
    const sequence = this.#schema.options['sequence.field'];
    if (sequence === undefined || sequence.trim() === '') return { compareKey };
    const indices = sequence.split(',').map((name) => this.#schema.fields.findIndex((f) => f.name === name.trim()));
    const compareUserSequence = (a: KeyValue, b: KeyValue): number => {
      for (const i of indices) {
        const c = compareNullsFirst(a.value[i] ?? null, b.value[i] ?? null);
        if (c !== 0) return c;
      }
      return 0;
    };
    return { compareKey, compareUserSequence };
  }

  /** The records of a sorted run, file after file. The key is taken from the value's key columns. */
  async *#readRun(run: readonly ManifestEntry[], keyFields: readonly DataField[]): AsyncGenerator<KeyValue> {
    const rowType: RowType = { fields: [SEQUENCE_NUMBER_FIELD, VALUE_KIND_FIELD, ...this.#schema.fields] };
    const keyIndex = keyFields.map((k) => this.#schema.fields.findIndex((f) => f.name === k.name));
    for (const entry of run) {
      for await (const batch of this.#readFile(entry, rowType)) {
        for (const row of rowsOf(batch)) {
          const value = row.slice(2);
          yield { key: keyIndex.map((i) => value[i] ?? null), sequenceNumber: row[0] as bigint, valueKind: row[1] as number, value };
        }
      }
    }
  }

  async *#rebatch(records: AsyncIterable<KeyValue>): AsyncGenerator<ColumnBatch> {
    const size = this.#options.batchRows ?? 4096;
    let rows: InternalRow[] = [];
    for await (const record of records) {
      rows.push(record.value);
      if (rows.length >= size) {
        yield batchFromRows(this.#rowType, rows);
        rows = [];
      }
    }
    if (rows.length > 0) yield batchFromRows(this.#rowType, rows);
  }

  async *#readFile(entry: ManifestEntry, rowType: RowType): AsyncGenerator<ColumnBatch> {
    const { reader, fileRowType } = await this.#openFile(entry, rowType);
    for await (const batch of reader.batches(fileRowType)) yield fileRowType === rowType ? batch : { ...batch, rowType };
  }

  /**
   * A key-value data file opened for reads of its own choosing (row group by row group, some
   * columns, sparse rows): the reader, and the record row type (`_SEQUENCE_NUMBER`, `_VALUE_KIND`,
   * the table's columns) named as the file names its columns (schema evolution).
   */
  /** `options.readAhead`: bytes fetched at least per read (readAheadSource), for a reader walking the file front to back. */
  async openKeyValueFile(entry: ManifestEntry, options: { readonly readAhead?: number } = {}): Promise<{ reader: ParquetDataFileReader; fileRowType: RowType }> {
    return this.#openFile(entry, { fields: [SEQUENCE_NUMBER_FIELD, VALUE_KIND_FIELD, ...this.#schema.fields] }, options.readAhead);
  }

  async #openFile(entry: ManifestEntry, rowType: RowType, readAhead?: number): Promise<{ reader: ParquetDataFileReader; fileRowType: RowType }> {
    const key = this.#dataFileKey(entry);
    // The manifest records the size (as Java's readers use it), which saves a HEAD per file.
    const direct: ByteSource = { size: Number(entry.file.fileSize), read: (offset, length) => this.#store.getRange(key, offset, length) };
    const source = readAhead === undefined ? direct : readAheadSource(direct, readAhead);
    const reader = await ParquetDataFileReader.open(source);
    return { reader, fileRowType: await this.#fileRowType(entry, rowType) };
  }

  /**
   * Schema evolution: a file written under an older schema names its columns as that schema did.
   * Fields are matched by id (as Java's SchemaEvolutionUtil does): a renamed column is read under
   * its old name, a column added later reads as null.
   */
  async #fileRowType(entry: ManifestEntry, rowType: RowType): Promise<RowType> {
    const schemaId = Number(entry.file.schemaId);
    if (schemaId === this.#schema.id) return rowType;
    const old = await this.#schemaOf(schemaId);
    return {
      fields: rowType.fields.map((field) => {
        if (field.id >= SYSTEM_FIELD_ID_START) return field;
        const before = old.fields.find((f) => f.id === field.id);
        return { ...field, name: before?.name ?? `${ABSENT_COLUMN_PREFIX}${field.id}` };
      }),
    };
  }

  #schemaOf(id: number): Promise<TableSchema> {
    let schema = this.#schemas.get(id);
    if (schema === undefined) {
      schema = this.#store.get(`${this.#tablePath}/schema/schema-${id}`).then((bytes) => decodeTableSchema(new TextDecoder().decode(bytes)));
      this.#schemas.set(id, schema);
    }
    return schema;
  }

  /** root / partition path / bucket-N / file name (DataFilePathFactory); the path is computed, not stored. */
  #dataFileKey(entry: ManifestEntry): string {
    const { fileName, externalPath } = entry.file;
    if (externalPath !== null) {
      throw errorFrom(tableErrors, 'TABLE_UNSUPPORTED', `data file ${fileName} lives at an external path, which Tributary does not read`, {
        fileName,
        externalPath,
      });
    }
    if (!fileName.endsWith('.parquet')) {
      throw errorFrom(tableErrors, 'TABLE_UNSUPPORTED', `data file ${fileName} is not Parquet; Tributary reads Parquet only`, { fileName });
    }
    return `${this.#tablePath}/${this.#paths.file(entry.partition, entry.bucket, fileName)}`;
  }
}

/** What our merge does not reproduce: other merge engines and deletion vectors. */
function checkReadable(schema: TableSchema): void {
  const o = schema.options;
  if (schema.primaryKeys.length > 0) {
    const engine = (o['merge-engine'] ?? 'deduplicate').trim().toLowerCase();
    if (engine !== 'deduplicate') {
      throw errorFrom(tableErrors, 'TABLE_UNSUPPORTED', `reading merge-engine = '${engine}' is not implemented`, { option: 'merge-engine', value: engine });
    }
  }
  if (isTrue(o['deletion-vectors.enabled'])) {
    throw errorFrom(tableErrors, 'TABLE_UNSUPPORTED', 'reading tables with deletion vectors is not implemented', {
      option: 'deletion-vectors.enabled',
      value: 'true',
    });
  }
}

function isTrue(value: string | undefined): boolean {
  return value?.trim().toLowerCase() === 'true';
}

/** Files grouped by (partition, bucket), groups in a stable order (partition bytes, then bucket). */
function groupByBucket(entries: readonly ManifestEntry[]): ManifestEntry[][] {
  const groups = new Map<string, ManifestEntry[]>();
  for (const e of entries) {
    const key = `${Buffer.from(e.partition).toString('hex')}/${String(e.bucket).padStart(10, '0')}`;
    const group = groups.get(key);
    if (group === undefined) groups.set(key, [e]);
    else group.push(e);
  }
  return [...groups.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, g]) => g);
}

/** The rows of a batch one at a time (a row group can be large; rows are made as they are used). */
function* rowsOf(batch: ColumnBatch): Generator<InternalRow> {
  for (let i = 0; i < batch.length; i++) yield batch.columns.map((column) => valueAt(column, i));
}

function compareNullsFirst(a: InternalValue, b: InternalValue): number {
  if (a === null || b === null) return a === b ? 0 : a === null ? -1 : 1;
  return compareInternal(a, b);
}

/** Field-by-field, nulls first: Paimon's generated key comparator. */
function compareRows(a: InternalRow, b: InternalRow, arity: number): number {
  for (let i = 0; i < arity; i++) {
    const c = compareNullsFirst(a[i] ?? null, b[i] ?? null);
    if (c !== 0) return c;
  }
  return 0;
}
