/**
 * The stored record of touched keys of one primary-key bucket in one snapshot (the before-images a
 * changelog needs), probed file by file rather than merged record by record:
 *
 *   bucket's live files ─► a file is opened only when an asked key lies in its [minKey, maxKey]
 *                       ─► per file, a cursor over its row groups (column batches, key order): each
 *                          asked key is found by binary search on the row group's key columns; only
 *                          a matching row is materialised, the other rows never become objects
 *                       ─► per key, the matches of all files: the greatest by (sequence.field,
 *                          `_SEQUENCE_NUMBER`) wins, as the deduplicate merge picks it
 *                          (sort-merge-reader.ts); a winning retraction means the key is absent, and
 *                          with `ignore-delete` retractions are skipped
 *
 * Keys are asked in ascending order across calls (a bucket's changes streamed batch by batch), so
 * each file is read once, front to back, and no further than the last key asked.
 * Cost: the decode of the overlapping files' row groups, and O(log rows) key comparisons per asked key
 * and overlapping file. Memory: one row group per open file.
 */
import { valueAt, type Column, type ColumnBatch } from '../format/column-batch.ts';
import { isRetract } from '../format/key-value.ts';
import { decodeBinaryRow } from '../spec/binary-row.ts';
import type { ManifestEntry } from '../spec/manifest-entry.ts';
import { fieldsByName, trimmedPrimaryKeys } from '../spec/table-schema.ts';
import type { InternalRow, InternalValue } from '../spec/types.ts';
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
    this.#order = read.keyValueOrder();
    this.#ignoreDelete = options.ignoreDelete;
    this.#cursors = files.map(
      (entry) => new FileCursor(read, entry, decodeBinaryRow(entry.file.minKey, keyTypes), decodeBinaryRow(entry.file.maxKey, keyTypes), keyColumns, this.#order),
    );
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

/** A forward-only position in one data file's row groups. */
class FileCursor {
  readonly min: InternalRow;
  readonly max: InternalRow;
  readonly #read: TableRead;
  readonly #entry: ManifestEntry;
  readonly #keyColumns: readonly number[];
  readonly #order: KeyValueOrder;
  #batches: AsyncGenerator<ColumnBatch> | undefined;
  #batch: ColumnBatch | undefined;
  #row = 0;

  constructor(read: TableRead, entry: ManifestEntry, min: InternalRow, max: InternalRow, keyColumns: readonly number[], order: KeyValueOrder) {
    this.#read = read;
    this.#entry = entry;
    this.min = min;
    this.max = max;
    this.#keyColumns = keyColumns;
    this.#order = order;
  }

  get opened(): boolean {
    return this.#batches !== undefined;
  }

  /** The file's record of `key` (greater than every key found before), or undefined; rows before it are skipped. */
  async find(key: InternalRow): Promise<KeyValue | undefined> {
    if (this.#batches === undefined) {
      this.#batches = this.#read.keyValueBatches(this.#entry);
      await this.#nextBatch();
    }
    for (let batch = this.#batch; batch !== undefined; batch = this.#batch) {
      const last = batch.length - 1;
      if (this.#row > last || this.#compareAt(batch, last, key) < 0) {
        await this.#nextBatch();
        continue;
      }
      let lo = this.#row;
      let hi = last;
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
    await this.#batches?.return(undefined);
  }

  async #nextBatch(): Promise<void> {
    const next = await (this.#batches as AsyncGenerator<ColumnBatch>).next();
    this.#batch = next.done === true ? undefined : next.value;
    this.#row = 0;
  }

  /** The row's key against `key`, read from the key columns in place. */
  #compareAt(batch: ColumnBatch, row: number, key: InternalRow): number {
    const at: InternalRow = this.#keyColumns.map((c) => valueAt(batch.columns[c] as Column, row));
    return this.#order.compareKey(at, key);
  }

  #record(batch: ColumnBatch, row: number, key: InternalRow): KeyValue {
    const columns = batch.columns;
    const value: InternalValue[] = [];
    for (let c = 2; c < columns.length; c++) value.push(valueAt(columns[c] as Column, row));
    return { key, sequenceNumber: valueAt(columns[0] as Column, row) as bigint, valueKind: valueAt(columns[1] as Column, row) as number, value };
  }
}
