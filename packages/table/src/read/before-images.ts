/**
 * The stored record of touched keys of one primary-key bucket in one snapshot (the before-images a
 * changelog needs), probed file by file rather than merged record by record:
 *
 *   bucket's live files ─► a file is opened only when an asked key lies in its [minKey, maxKey]
 *                       ─► per file, a cursor over its row groups (key order), the file read 4 MiB
 *                          at a time (one ranged read per window, not per column chunk): a row
 *                          group's key, `_SEQUENCE_NUMBER` and `_VALUE_KIND` columns are decoded first
 *                          and each asked key found by binary search on them; its other columns are
 *                          decoded only once a key matches in it; both are decoded page by page into
 *                          page references and converted only for the rows compared or matched (a key of one
 *                          integer field: compared as a scalar straight from its column)
 *                          (ParquetDataFileReader.readRowsSparse): the other rows never become values
 *                       ─► per key, the matches of all files: the greatest by (sequence.field,
 *                          `_SEQUENCE_NUMBER`) wins, as the deduplicate merge picks it
 *                          (sort-merge-reader.ts); a winning retraction means the key is absent, and
 *                          with `ignore-delete` retractions are skipped
 *
 * Keys are asked in ascending order across calls (a bucket's changes streamed batch by batch), so
 * each file is read once, front to back, and no further than the last key asked.
 * Cost: the decompression and page decode of the overlapping files' key columns and of the other
 * columns of the row groups where a key matched (without a per-row conversion), and O(log d) key
 * comparisons per asked key and overlapping file, d the rows between it and the key asked before. Memory: one row group and one read window per open
 * file; a row group's decompressed pages go into buffers the file's cursor hands out again for its
 * next row group (parquet/page-arena.ts: no fresh memory and garbage per page).
 */
import { isRetract } from '../format/key-value.ts';
import { PageArena } from '../parquet/page-arena.ts';
import type { ParquetDataFileReader, SparseRows } from '../parquet/parquet-reader.ts';
import { decodeBinaryRow } from '../spec/binary-row.ts';
import type { ManifestEntry } from '../spec/manifest-entry.ts';
import { fieldsByName, trimmedPrimaryKeys } from '../spec/table-schema.ts';
import type { DataField, DataType, InternalRow, InternalValue, RowType } from '../spec/types.ts';
import { compareKeyValues, type KeyValue, type KeyValueOrder } from './sort-merge-reader.ts';
import type { TableRead } from './table-read.ts';

/** A key's stored record: all table columns and its `_SEQUENCE_NUMBER`. */
export interface BeforeImage {
  readonly row: InternalRow;
  readonly sequenceNumber: bigint;
}

export interface BeforeImageLookup {
  /** One entry per key asked for, in the same order: the stored record, or null when the key is absent. */
  readonly images: (BeforeImage | null)[];
  /** The files read (after pruning by key range), for tests and metrics. */
  readonly filesRead: number;
}

/**
 * Before-images of one bucket's keys, asked in ascending key order over one or more calls to
 * `lookup`. `files`: the live files of one (partition, bucket) of the snapshot. `read`: a TableRead
 * of the table (its key order and file reader). Call `close` when done (or on failure).
 */
export class BeforeImageProbe {
  readonly #cursors: FileCursor[];
  readonly #order: KeyValueOrder;
  readonly #ignoreDelete: boolean;
  #last: InternalRow | undefined;

  constructor(read: TableRead, files: readonly ManifestEntry[], options: { readonly ignoreDelete: boolean }) {
    const keyFields = fieldsByName(read.schema, trimmedPrimaryKeys(read.schema));
    const keyTypes = keyFields.map((f) => f.type);
    const keyColumns = keyFields.map((k) => 2 + read.schema.fields.findIndex((f) => f.name === k.name));
    const order = read.keyValueOrder();
    this.#order = { ...order, compareKey: integerKeyComparator(keyTypes) ?? order.compareKey };
    this.#ignoreDelete = options.ignoreDelete;
    const scalar = keyTypes.length === 1 && INTEGER_ROOTS.has((keyTypes[0] as DataType).root);
    this.#cursors = files.map(
      (entry) => new FileCursor(read, entry, decodeBinaryRow(entry.file.minKey, keyTypes), decodeBinaryRow(entry.file.maxKey, keyTypes), keyColumns, this.#order, scalar),
    );
  }

  /**
   * Whether `key` lies above every file's key range: it has no before-image, and asking for it would
   * only compare it with each file's range (a load's new keys, above the stored ones).
   */
  isAboveAll(key: InternalRow): boolean {
    const { compareKey } = this.#order;
    return this.#cursors.every((cursor) => compareKey(key, cursor.max) > 0);
  }

  /** The files opened so far (a file whose key range holds no asked key is never opened). */
  get filesRead(): number {
    return this.#cursors.filter((c) => c.opened).length;
  }

  /**
   * `keys`: trimmed primary-key values, ascending, each once, and above every key of earlier calls.
   * @throws Error when the keys are out of order (a caller's bug: a file cursor cannot go back)
   */
  async lookup(keys: readonly InternalRow[]): Promise<(BeforeImage | null)[]> {
    const { compareKey } = this.#order;
    const images: (BeforeImage | null)[] = new Array<BeforeImage | null>(keys.length).fill(null);
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i] as InternalRow;
      if (this.#last !== undefined && compareKey(this.#last, key) >= 0) throw new Error('before-image keys must be asked in ascending order, each once');
      this.#last = key;
      let winner: KeyValue | undefined;
      for (const cursor of this.#cursors) {
        if (compareKey(cursor.min, key) > 0 || compareKey(key, cursor.max) > 0) continue;
        const record = await cursor.find(key);
        if (record === undefined || (this.#ignoreDelete && isRetract(record.valueKind))) continue;
        if (winner === undefined || compareKeyValues(this.#order, record, winner) >= 0) winner = record;
      }
      if (winner !== undefined && !isRetract(winner.valueKind)) images[i] = { row: winner.value, sequenceNumber: winner.sequenceNumber };
    }
    return images;
  }

  async close(): Promise<void> {
    for (const cursor of this.#cursors) await cursor.close();
  }
}

/**
 * `keys`: trimmed primary-key values, sorted ascending by the table's key order, each once.
 * `files`: the live files of one (partition, bucket) of the snapshot. `read`: a TableRead of the
 * table (its key order, merge options and file reader).
 */
export async function lookupBeforeImages(
  read: TableRead,
  files: readonly ManifestEntry[],
  keys: readonly InternalRow[],
  options: { readonly ignoreDelete: boolean },
): Promise<BeforeImageLookup> {
  const probe = new BeforeImageProbe(read, files, options);
  try {
    const images = await probe.lookup(keys);
    return { images, filesRead: probe.filesRead };
  } finally {
    await probe.close();
  }
}

/**
 * Bytes fetched per read of a probed file: the probe walks a file front to back and, when the load
 * is spread over the table, reads every row group of it; one ranged read per window instead of one
 * per column chunk of each row group (a request to S3 costs more than a MiB of transfer on its own).
 */
const READ_AHEAD_BYTES = 4 * 1024 * 1024;

interface OpenFile {
  readonly reader: ParquetDataFileReader;
  /** The record row type as the file names its columns. */
  readonly fileRowType: RowType;
  readonly groups: number;
  /** The record columns that are not key columns (read at a group's first match), in record order. */
  readonly others: readonly number[];
  /** Per table column (record column 2 + c): its index in the key columns read, or -(1 + its index in `others`). */
  readonly from: readonly number[];
}

/** A forward-only position in one data file's row groups. */
class FileCursor {
  readonly min: InternalRow;
  readonly max: InternalRow;
  readonly #read: TableRead;
  readonly #entry: ManifestEntry;
  /** Indices of the key columns in the record row type (`_SEQUENCE_NUMBER`, `_VALUE_KIND`, the table's columns). */
  readonly #keyColumns: readonly number[];
  readonly #order: KeyValueOrder;
  /** The key is one integer field: compared as a scalar, read straight from its column. */
  readonly #scalar: boolean;
  #file: OpenFile | undefined;
  #group = -1;
  /** The current row group's `_SEQUENCE_NUMBER`, `_VALUE_KIND` and key columns, decoded, converted per row asked. */
  #keys: SparseRows | undefined;
  /** The current row group's other columns (record columns `#valueColumns`), decoded at its first match, converted per row asked. */
  #values: SparseRows | undefined;
  /** The current row group's keys converted so far, by row (the last row's is compared once per asked key). */
  #rowKeys: (InternalRow | undefined)[] = [];
  #row = 0;
  /**
   * The current row group's decompressed pages (keys and other columns): released for the next
   * group's once the cursor leaves it (nothing read from them outlives that: values are converted,
   * BINARY ones copied), dropped at the end of the file.
   */
  readonly #arena = new PageArena();

  constructor(read: TableRead, entry: ManifestEntry, min: InternalRow, max: InternalRow, keyColumns: readonly number[], order: KeyValueOrder, scalar: boolean) {
    this.#read = read;
    this.#entry = entry;
    this.min = min;
    this.max = max;
    this.#keyColumns = keyColumns;
    this.#order = order;
    this.#scalar = scalar;
  }

  get opened(): boolean {
    return this.#file !== undefined;
  }

  /** The file's record of `key` (greater than every key found before), or undefined; rows before it are skipped. */
  async find(key: InternalRow): Promise<KeyValue | undefined> {
    if (this.#file === undefined) {
      const { reader, fileRowType } = await this.#read.openKeyValueFile(this.#entry, { readAhead: READ_AHEAD_BYTES });
      const others: number[] = [];
      const from: number[] = [];
      for (let c = 2; c < fileRowType.fields.length; c++) {
        const k = this.#keyColumns.indexOf(c);
        if (k < 0) others.push(c);
        from.push(k >= 0 ? k : -others.length);
      }
      this.#file = { reader, fileRowType, groups: reader.rowGroupCount, others, from };
      await this.#nextGroup();
    }
    for (let batch = this.#keys; batch !== undefined; batch = this.#keys) {
      const last = batch.length - 1;
      if (this.#row > last || this.#compareAt(batch, last, key) < 0) {
        await this.#nextGroup();
        continue;
      }
      // The first row at or after #row whose key is not below `key`: rows before `lo` are below it,
      // row `hi` is not. Asked keys ascend and a spread load's are close together, so gallop from
      // #row (1, 2, 4, … rows on) before the binary search: O(log distance) comparisons, not O(log rows).
      let lo = this.#row;
      let hi = last;
      for (let step = 1; lo + step - 1 < hi; step *= 2) {
        const at = lo + step - 1;
        if (this.#compareAt(batch, at, key) >= 0) {
          hi = at;
          break;
        }
        lo = at + 1;
      }
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (this.#compareAt(batch, mid, key) < 0) lo = mid + 1;
        else hi = mid;
      }
      this.#row = lo;
      return this.#compareAt(batch, lo, key) === 0 ? this.#record(batch, lo, key) : undefined;
    }
    return undefined;
  }

  async close(): Promise<void> {
    this.#keys = undefined;
    this.#values = undefined;
    this.#rowKeys = [];
    this.#arena.clear();
  }

  /** The next non-empty row group's key columns (its other columns wait for a match); none past the last. */
  async #nextGroup(): Promise<void> {
    const file = this.#file as OpenFile;
    this.#keys = undefined;
    this.#values = undefined;
    this.#rowKeys = [];
    this.#row = 0;
    this.#arena.release();
    while (++this.#group < file.groups) {
      const [start, end] = file.reader.rowGroupRange(this.#group);
      if (end <= start) continue;
      const fields = file.fileRowType.fields;
      const keyType: RowType = { fields: [fields[0] as DataField, fields[1] as DataField, ...this.#keyColumns.map((c) => fields[c] as DataField)] };
      this.#keys = await file.reader.readRowsSparse(keyType, start, end, { arena: this.#arena });
      return;
    }
    this.#arena.clear();
  }

  /** The row's key against `key`, read from the key columns in place (converted once per row of the group). */
  #compareAt(batch: SparseRows, row: number, key: InternalRow): number {
    if (this.#scalar) {
      // integerKeyComparator's order for one field, without a key row per compared row.
      const x = batch.value(2, row) as number | bigint | null;
      const y = (key[0] ?? null) as number | bigint | null;
      if (x === y) return 0;
      if (x === null || y === null) return x === null ? -1 : 1;
      return x < y ? -1 : 1;
    }
    let at = this.#rowKeys[row];
    if (at === undefined) {
      at = this.#keyColumns.map((_, k) => batch.value(2 + k, row));
      this.#rowKeys[row] = at;
    }
    return this.#order.compareKey(at, key);
  }

  async #record(batch: SparseRows, row: number, key: InternalRow): Promise<KeyValue> {
    const file = this.#file as OpenFile;
    if (this.#values === undefined) {
      const [start, end] = file.reader.rowGroupRange(this.#group);
      this.#values = await file.reader.readRowsSparse({ fields: file.others.map((c) => file.fileRowType.fields[c] as DataField) }, start, end, { arena: this.#arena });
    }
    const values = this.#values;
    const value: InternalValue[] = [];
    for (const k of file.from) value.push(k >= 0 ? batch.value(2 + k, row) : values.value(-1 - k, row));
    return { key, sequenceNumber: batch.value(0, row) as bigint, valueKind: batch.value(1, row) as number, value };
  }
}

/** Key types whose values are integers (number or bigint), compared with `<` exactly as compareInternal orders them. */
const INTEGER_ROOTS: ReadonlySet<DataType['root']> = new Set(['TINYINT', 'SMALLINT', 'INT', 'BIGINT', 'DATE', 'TIME']);

/**
 * The key order (field by field, nulls first) without the per-value type dispatch when every key
 * field is an integer type; undefined otherwise (the table's comparator is used).
 */
function integerKeyComparator(keyTypes: readonly DataType[]): ((a: InternalRow, b: InternalRow) => number) | undefined {
  if (!keyTypes.every((t) => INTEGER_ROOTS.has(t.root))) return undefined;
  const arity = keyTypes.length;
  return (a, b) => {
    for (let i = 0; i < arity; i++) {
      const x = (a[i] ?? null) as number | bigint | null;
      const y = (b[i] ?? null) as number | bigint | null;
      if (x === y) continue;
      if (x === null || y === null) return x === null ? -1 : 1;
      return x < y ? -1 : 1;
    }
    return 0;
  };
}
