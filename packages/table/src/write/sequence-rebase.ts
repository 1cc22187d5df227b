/**
 * The rewrite behind "the later snapshot wins" (docs/architecture.md, "Which row a key keeps"; the decision is
 * commit-plan.ts bucketsToRebase): when rows committed since our writers' base snapshot reach our
 * sequence numbers in a primary-key bucket, our files of that bucket are copied with every
 * `_SEQUENCE_NUMBER` shifted by one amount, so they start just above the live rows and keep their
 * own order.
 *
 *   original file ──► row group by row group: read, _SEQUENCE_NUMBER + shift, encode ──► new file
 *   DataFileMeta: new name and size, min/max sequence + shift; keys, stats, counts unchanged
 *
 * Memory: one row group at a time. The rewrite always starts from the writers' original files, so
 * a rebased file's name and bytes depend only on (original, new first sequence number): an attempt
 * that repeats a rebase writes the same object again. The originals stay where they are, never
 * referenced by a snapshot: orphans for a future cleanup. Nothing is deleted here, because the
 * commit's outcome may be unknown.
 */
import type { ObjectStore } from '../io/object-store.ts';
import type { Column, ColumnBatch } from '../format/column-batch.ts';
import { keyValueRowType } from '../format/key-value.ts';
import { ParquetDataFileReader } from '../parquet/parquet-reader.ts';
import { ParquetFileEncoder } from '../parquet/parquet-writer.ts';
import type { DataFileMeta } from '../spec/data-file-meta.ts';
import { fileCompression } from '../spec/file-options.ts';
import { decodeTableSchema, trimmedPrimaryKeys, type TableSchema } from '../spec/table-schema.ts';
import type { RowType } from '../spec/types.ts';
import { mapInOrder } from '../snapshot/file-store-scan.ts';
import { bucketKey } from '../spec/binary-row.ts';
import type { CommitMessage } from '../spec/commit-message.ts';
import { objectStoreSink } from './object-sink.ts';

export interface SequenceRebaseOptions {
  readonly store: ObjectStore;
  readonly tablePath: string;
  /** The table's latest schema; files written under another schema id are read with theirs. */
  readonly schema: TableSchema;
  /** `<partition path>bucket-N/` of a message's files, relative to the table. */
  readonly bucketDir: (partition: Uint8Array, bucket: number) => string;
}

/** Files rewritten at once (each holds one row group in memory). */
const FILES_IN_FLIGHT = 4;

/** `data-x-0.parquet` starting at sequence 42 → `data-x-0-seq42.parquet`: unique per (original, start). */
export function rebasedFileName(original: string, firstSequence: bigint): string {
  const dot = original.lastIndexOf('.');
  const [stem, extension] = dot > 0 ? [original.slice(0, dot), original.slice(dot)] : [original, ''];
  return `${stem}-seq${firstSequence}${extension}`;
}

/**
 * The name of the file a rebased file was copied from (`data-x-0-seq42.parquet` → `data-x-0.parquet`),
 * or the name itself: lets a check that compares committed files with messages see a rebased
 * file as the writer's original.
 */
export function rebasedFrom(fileName: string): string {
  return fileName.replace(/-seq\d+(\.[^.]*)?$/, (_, extension: string | undefined) => extension ?? '');
}

export class SequenceRebaser {
  readonly #o: SequenceRebaseOptions;
  readonly #schemas = new Map<number, Promise<TableSchema>>();

  constructor(options: SequenceRebaseOptions) {
    this.#o = options;
  }

  /**
   * The messages to commit: `current` (what the previous attempt committed, or the originals),
   * except that the messages of every bucket in `starts` are rewritten from `original` so their
   * files of that bucket begin at the given sequence number. `current` is `original` or an
   * earlier result of this method for it (same messages, same order).
   */
  async rebase(
    original: readonly CommitMessage[],
    current: readonly CommitMessage[],
    starts: ReadonlyMap<string, bigint>,
  ): Promise<CommitMessage[]> {
    const firstOf = new Map<string, bigint>();
    for (const m of original) {
      const key = bucketKey(m.partition, m.bucket);
      for (const f of m.dataIncrement.newFiles) {
        const seen = firstOf.get(key);
        if (seen === undefined || f.minSequenceNumber < seen) firstOf.set(key, f.minSequenceNumber);
      }
    }
    const rewrites = original.flatMap((message, index) => {
      const key = bucketKey(message.partition, message.bucket);
      const start = starts.get(key);
      const first = firstOf.get(key);
      return start === undefined || first === undefined ? [] : message.dataIncrement.newFiles.map((file) => ({ index, file, shift: start - first }));
    });
    const rewritten = await mapInOrder(rewrites, FILES_IN_FLIGHT, (r) => {
      const m = original[r.index] as CommitMessage;
      return this.#rewrite(this.#o.bucketDir(m.partition, m.bucket), r.file, r.shift);
    });
    const filesOf = new Map<number, DataFileMeta[]>();
    rewrites.forEach((r, i) => filesOf.set(r.index, [...(filesOf.get(r.index) ?? []), rewritten[i] as DataFileMeta]));
    return original.map((message, index) => {
      const newFiles = filesOf.get(index);
      return newFiles === undefined ? (current[index] ?? message) : { ...message, dataIncrement: { ...message.dataIncrement, newFiles } };
    });
  }

  async #rewrite(dir: string, file: DataFileMeta, shift: bigint): Promise<DataFileMeta> {
    const schema = await this.#schemaOf(Number(file.schemaId));
    const primaryKeys = trimmedPrimaryKeys(schema);
    const rowType: RowType = keyValueRowType({ fields: schema.fields }, primaryKeys);
    const from = `${this.#o.tablePath}/${dir}${file.fileName}`;
    const fileName = rebasedFileName(file.fileName, file.minSequenceNumber + shift);
    const reader = await ParquetDataFileReader.open({
      size: Number(file.fileSize),
      read: (offset, length) => this.#o.store.getRange(from, offset, length),
    });
    // Written as the file's level is (the rewrite only shifts sequence numbers; its stats stay).
    const encoder = new ParquetFileEncoder(rowType, objectStoreSink(this.#o.store, `${this.#o.tablePath}/${dir}${fileName}`), fileCompression(schema.options, { level: file.level, changelog: false }));
    let size: number;
    try {
      for await (const batch of reader.batches(rowType)) await encoder.writeRowGroup(shifted(batch, primaryKeys.length, shift));
      size = await encoder.finish();
    } catch (error) {
      await encoder.abort(error);
      throw error;
    }
    return {
      ...file,
      fileName,
      fileSize: BigInt(size),
      minSequenceNumber: file.minSequenceNumber + shift,
      maxSequenceNumber: file.maxSequenceNumber + shift,
    };
  }

  #schemaOf(id: number): Promise<TableSchema> {
    if (id === this.#o.schema.id) return Promise.resolve(this.#o.schema);
    let schema = this.#schemas.get(id);
    if (schema === undefined) {
      schema = this.#o.store.get(`${this.#o.tablePath}/schema/schema-${id}`).then((bytes) => decodeTableSchema(new TextDecoder().decode(bytes)));
      this.#schemas.set(id, schema);
    }
    return schema;
  }
}

/** The batch with column `index` (`_SEQUENCE_NUMBER`, after the key columns) shifted. */
function shifted(batch: ColumnBatch, index: number, shift: bigint): ColumnBatch {
  const column = batch.columns[index] as Column;
  if (column.kind !== 'int64') throw new Error(`_SEQUENCE_NUMBER read as ${column.kind}`);
  const values = new BigInt64Array(batch.length);
  for (let i = 0; i < batch.length; i++) values[i] = (column.values[i] as bigint) + shift;
  const columns = [...batch.columns];
  columns[index] = { kind: 'int64', values, validity: undefined };
  return { ...batch, columns };
}
