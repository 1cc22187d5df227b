/**
 * The rewrite of one (partition, bucket) by a compaction: the picked files (write/compact-plan.ts)
 * read back and merged by the bucket stage's merge (write/bucket-merge.ts, so the merge engine and
 * `sequence.field` rule is the one of every load), written as files of the output level, and
 * described by one CommitMessage with compactBefore (the inputs, exactly as the table lists them)
 * and compactAfter (the new files).
 *
 *   primary key:  k-way merge by (key, sequence.field…, _SEQUENCE_NUMBER), one record per key, its
 *                 sequence number kept; retractions dropped only when the unit says so (nothing
 *                 older stays below the output level); files at the output level, source COMPACT
 *   append:       the files one after another by sequence number, renumbered from the first;
 *                 level 0, source COMPACT
 */
import { EMPTY_COMPACT_INCREMENT, EMPTY_DATA_INCREMENT, type CommitMessage } from '../spec/commit-message.ts';
import { FileSource, type DataFileMeta } from '../spec/data-file-meta.ts';
import { trimmedPrimaryKeys, type TableSchema } from '../spec/table-schema.ts';
import { errorFrom } from '@tributary/errors';
import { tableErrors } from '../errors.ts';
import { isRetract } from '../format/key-value.ts';
import { takeRows, valueAt, type ColumnBatch } from '../format/column-batch.ts';
import type { ObjectStore } from '../io/object-store.ts';
import { mergeBucketRuns, writeMergedBucket, type BucketMergeInput, type MergedRows } from './bucket-merge.ts';
import type { CompactUnit } from './compact-plan.ts';

export interface CompactBucketInput {
  readonly store: ObjectStore;
  readonly tablePath: string;
  /** The table's schema; every input file must have been written with it. */
  readonly schema: TableSchema;
  readonly partition: Uint8Array;
  readonly bucket: number;
  /** As the table's live entries of this bucket carry it. */
  readonly totalBuckets: number | null;
  /** What to rewrite, with the live files' full metadata. */
  readonly unit: CompactUnit<DataFileMeta>;
  /** Starts every new file name, `data-<writerId>-<uuid>-<n>.parquet`. */
  readonly writerId: string;
  /** Overrides the table's `target-file-size`. */
  readonly targetFileSize?: number;
  readonly batchRows?: number;
  /** Told the rows written so far, once per batch, and awaited (progress; throwing stops the rewrite). */
  readonly onRows?: (rows: number) => void | Promise<void>;
}

export interface CompactedBucket {
  readonly message: CommitMessage;
  /** Rows in the new files. */
  readonly rows: number;
  /** Rows read from the inputs. */
  readonly inputRows: number;
}

/** Rewrites the unit's files. @throws COMPACT_INPUT_UNSUPPORTED */
export async function compactBucket(input: CompactBucketInput): Promise<CompactedBucket> {
  const { schema, unit } = input;
  for (const f of unit.files) {
    if (Number(f.schemaId) !== schema.id || f.externalPath !== null) {
      throw errorFrom(
        tableErrors,
        'COMPACT_INPUT_UNSUPPORTED',
        f.externalPath !== null
          ? `file ${f.fileName} of bucket ${input.bucket} is at an external path`
          : `file ${f.fileName} of bucket ${input.bucket} was written with schema ${f.schemaId}, the table's is ${schema.id}`,
        { fileName: f.fileName, bucket: input.bucket },
      );
    }
  }
  const merge: BucketMergeInput = {
    store: input.store,
    tablePath: input.tablePath,
    // The inputs are the table's own files: read from the table's bucket directory.
    runsPath: input.tablePath,
    schema,
    partition: input.partition,
    bucket: input.bucket,
    totalBuckets: input.totalBuckets,
    runs: unit.files.map((f, slot) => ({ fileName: f.fileName, size: Number(f.fileSize), slot, minSequence: f.minSequenceNumber })),
    // One pass: the inputs are the table's files, many small ones (tiny row groups) or a few large
    // ones, which passes through intermediate runs would rewrite again and again.
    fanIn: Number.POSITIVE_INFINITY,
    mergeBudgetBytes: Number.POSITIVE_INFINITY,
    writerId: input.writerId,
    level: unit.outputLevel,
    ...(input.targetFileSize === undefined ? {} : { targetFileSize: input.targetFileSize }),
    ...(input.batchRows === undefined ? {} : { batchRows: input.batchRows }),
    ...(input.onRows === undefined ? {} : { onRows: input.onRows }),
  };
  const merged = mergeBucketRuns(merge);
  const keys = trimmedPrimaryKeys(schema).length;
  const written = await writeMergedBucket(merge, unit.dropDelete && keys > 0 ? withoutRetractions(merged, keys + 1) : merged);
  const after = (written.message?.dataIncrement.newFiles ?? []).map((f): DataFileMeta => ({ ...f, level: unit.outputLevel, fileSource: FileSource.COMPACT }));
  const message: CommitMessage = {
    partition: input.partition,
    bucket: input.bucket,
    totalBuckets: input.totalBuckets,
    dataIncrement: EMPTY_DATA_INCREMENT,
    compactIncrement: { ...EMPTY_COMPACT_INCREMENT, compactBefore: unit.files, compactAfter: after },
  };
  return { message, rows: written.rows, inputRows: unit.files.reduce((n, f) => n + Number(f.rowCount), 0) };
}

/** The merged rows without retractions (`_VALUE_KIND` at `kindColumn`: -U or -D). */
function withoutRetractions(merged: MergedRows, kindColumn: number): MergedRows {
  async function* batches(): AsyncGenerator<ColumnBatch> {
    for await (const batch of merged.batches) {
      const kinds = batch.columns[kindColumn];
      if (kinds === undefined) throw new Error('a key-value batch has no _VALUE_KIND column');
      const kept: number[] = [];
      for (let i = 0; i < batch.length; i++) if (!isRetract(Number(valueAt(kinds, i)))) kept.push(i);
      if (kept.length === batch.length) yield batch;
      else if (kept.length > 0) yield takeRows(batch, kept);
    }
  }
  return { batches: batches(), collidingKeys: () => merged.collidingKeys() };
}
