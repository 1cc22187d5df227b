/**
 * Writes primary-key data files: sorted runs in the key-value layout (format/key-value.ts) through
 * the Parquet data file writer, with the file facts the manifest needs (keys, key and value stats,
 * sequence range, delete count). Mirrors org.apache.paimon.io.KeyValueDataFileWriter.
 */
import { errorFrom } from '@tributary/errors';
import { tableErrors } from '../errors.ts';
import type { InternalRow, RowType } from '../spec/types.ts';
import { isNullAt, type Column, type ColumnBatch } from '../format/column-batch.ts';
import type { ColumnStats } from '../format/column-stats.ts';
import { isRetract, keyValueRowType } from '../format/key-value.ts';
import { DataFileWriter, shareRowGroup, type DataFileResult, type DataFileWriterOptions, type SharedRowGroup } from '../parquet/parquet-writer.ts';

/** What a primary-key data file adds to DataFileResult (DataFileMeta's key and sequence fields). */
export interface KeyValueFileResult extends DataFileResult {
  readonly minKey: InternalRow;
  readonly maxKey: InternalRow;
  readonly keyStats: readonly ColumnStats[];
  /** Stats of the table columns (the value fields), in table order. */
  readonly valueStats: readonly ColumnStats[];
  readonly minSequenceNumber: bigint;
  readonly maxSequenceNumber: bigint;
  /** Rows with kind -U or -D: DataFileMeta._DELETE_ROW_COUNT, exact. */
  readonly deleteRowCount: number;
}

export type KeyValueFileWriterOptions = Omit<DataFileWriterOptions, 'rowType' | 'onRowGroup'> & {
  readonly tableRowType: RowType;
  readonly trimmedPrimaryKeys: readonly string[];
};

/**
 * Writes sorted runs (from sortedRun) of one (partition, bucket) into primary-key data files. Each
 * run ends its last file, so no file mixes two runs and keys stay unique and sorted within a file.
 */
export class KeyValueFileWriter {
  readonly #keyCount: number;
  readonly #files: DataFileWriter;
  readonly #deletes: number[] = [];
  readonly #rowType: RowType;
  readonly #options: KeyValueFileWriterOptions;

  constructor(options: KeyValueFileWriterOptions) {
    this.#keyCount = options.trimmedPrimaryKeys.length;
    const rowType = keyValueRowType(options.tableRowType, options.trimmedPrimaryKeys);
    this.#rowType = rowType;
    this.#options = options;
    const kindIndex = this.#keyCount + 1;
    this.#files = new DataFileWriter({
      ...options,
      rowType,
      onRowGroup: (rows, fileIndex) => {
        const kinds = rows.columns[kindIndex] as Column & { kind: 'int32' };
        let n = 0;
        for (let i = 0; i < rows.length; i++) if (isRetract(kinds.values[i] as number)) n++;
        this.#deletes[fileIndex] = (this.#deletes[fileIndex] ?? 0) + n;
      },
    });
  }

  async writeRun(run: ColumnBatch): Promise<void> {
    await this.write(run);
    await this.#files.roll();
  }

  /**
   * Appends rows that continue the open file's run: they must come after its rows in key order,
   * with unique keys (a merged bucket written batch by batch). Files roll at the target size only.
   */
  async write(rows: ColumnBatch): Promise<void> {
    this.#checkKeys(rows);
    await this.#files.write(rows);
  }

  /**
   * `rows` (records continuing the run, as for `write`) encoded once as a row group of this writer's
   * files, to be written by `writeShared` here and into every other writer of the same record type
   * and file options (a changelog's inserts are the data file's records too).
   */
  share(rows: ColumnBatch): SharedRowGroup {
    this.#checkKeys(rows);
    return shareRowGroup(this.#rowType, rows, this.#options);
  }

  /** Rows of this writer's next row group (DataFileWriter.nextGroupRows). */
  nextGroupRows(): number {
    return this.#files.nextGroupRows();
  }

  /** Writes a shared row group (from `share` of a writer of the same record type) as a row group of its own, after the rows written before. */
  async writeShared(shared: SharedRowGroup): Promise<void> {
    await this.#files.writeShared(shared);
  }

  #checkKeys(rows: ColumnBatch): void {
    for (const column of rows.columns.slice(0, this.#keyCount)) {
      for (let i = 0; i < rows.length; i++) {
        if (isNullAt(column, i)) throw errorFrom(tableErrors, 'DATA_FILE_NULL_IN_REQUIRED', 'null primary-key value', { row: i });
      }
    }
  }

  async close(): Promise<KeyValueFileResult[]> {
    const files = await this.#files.close();
    return files.map((file, index) => this.#result(file, index));
  }

  async abort(reason: unknown): Promise<void> {
    await this.#files.abort(reason);
  }

  #result(file: DataFileResult, index: number): KeyValueFileResult {
    const k = this.#keyCount;
    const seq = file.stats[k] as ColumnStats;
    return {
      ...file,
      minKey: file.firstRow.slice(0, k),
      maxKey: file.lastRow.slice(0, k),
      keyStats: file.stats.slice(0, k),
      valueStats: file.stats.slice(k + 2),
      minSequenceNumber: seq.min as bigint,
      maxSequenceNumber: seq.max as bigint,
      deleteRowCount: this.#deletes[index] ?? 0,
    };
  }
}
