/**
 * What a load's bucket job does between the k-way merge of a bucket's runs (bucket-merge.ts,
 * `mergeBucketRuns`) and the bucket's files, when the load carries deletes or the table a changelog:
 *
 *   mergeBucketRuns ─► [fullExtractDeletes] ─► writeMergedBucket            (changelog-producer = none)
 *                                           └► writeBucketChangelog         (changelog-producer = input)
 *
 * - `fullExtractDeletes`: the load is the whole content of the bucket's partition (a full extract),
 *   so each key stored in the bucket at the base snapshot that the merged rows lack becomes a `-D`
 *   record carrying its stored row. A walk of two key-ordered streams: the merged rows, and the
 *   base snapshot's records of the bucket (a sort-merge of its files). Cost: one read of the
 *   bucket's live files; memory: one row group per file and one output batch.
 * - `writeBucketChangelog`: the merged records (one per key: the greatest by sequence.field then
 *   `_SEQUENCE_NUMBER`; a retraction means the key is deleted) are the bucket's netted changes, which
 *   ChangelogWrite.writeBucketRecords turns into data files and changelog files against the base snapshot
 *   (before-images, `+I`, `-U`/`+U`, `-D` with the stored row, nothing for a no-op).
 *
 * Memory of writeBucketChangelog: the merged batches stream through ChangelogWrite.writeBucketRecords
 * (before-images probed batch by batch, records appended to open file runs), so a bucket job holds
 * one merged batch, one row group per overlapping base file and the open files' buffers, whatever
 * the bucket's size; bench/changelog measures the worker's peak RSS.
 */
import { errorFrom } from '@tributary/errors';
import { tableErrors } from './errors.ts';
import type { BucketChangelog, ChangelogWrite } from './changelog-write.ts';
import { batchFromRows, valueAt, type ColumnBatch } from './format/column-batch.ts';
import { RowKind, keyValueRowType } from './format/key-value.ts';
import { TableRead } from './read/table-read.ts';
import { mergeDeduplicate, type KeyValue } from './read/sort-merge-reader.ts';
import { partitionKey } from './spec/binary-row.ts';
import { DEFAULT_PARTITION_NAME, escapePathName, parsePartitionPath, partitionPathOptions } from './spec/partition-path.ts';
import { partitionFields, trimmedPrimaryKeys, type TableSchema } from './spec/table-schema.ts';
import type { InternalRow } from './spec/types.ts';
import { FileStoreScan } from './snapshot/file-store-scan.ts';
import { SnapshotManager } from './snapshot/snapshot-manager.ts';
import type { BucketMergeInput, MergedBucket, MergedRows } from './write/bucket-merge.ts';
import { encodePartitionRow } from './write/row-routing.ts';

const BATCH_ROWS = 4096;

/**
 * The arity-prefixed BinaryRow of one partition given as text values per partition key, each as its
 * directory name writes it (Paimon's partition spec; a DATE is its epoch day under the default
 * `partition.legacy-name = true`; null is the default partition). An unpartitioned table's only
 * partition is `{}`.
 * @throws PARTITION_SPEC_INVALID when the keys are not exactly the partition keys or a value does not parse
 */
export function partitionRowOf(schema: TableSchema, spec: Readonly<Record<string, string | null>>): Uint8Array {
  const fields = partitionFields(schema);
  const names = Object.keys(spec);
  const invalid = (message: string) => errorFrom(tableErrors, 'PARTITION_SPEC_INVALID', message, { partitionKeys: fields.map((f) => f.name).join(',') });
  const missing = fields.find((f) => !(f.name in spec));
  if (missing !== undefined) throw invalid(`the partition spec lacks partition key '${missing.name}'`);
  const extra = names.find((n) => !fields.some((f) => f.name === n));
  if (extra !== undefined) throw invalid(`'${extra}' is not a partition key of the table`);
  const options = partitionPathOptions(schema.options);
  const defaultName = options.defaultName ?? DEFAULT_PARTITION_NAME;
  const path = fields.map((f) => `${escapePathName(f.name)}=${escapePathName(spec[f.name] ?? defaultName)}/`).join('');
  let values: InternalRow;
  try {
    values = parsePartitionPath(path, fields, options);
  } catch {
    throw invalid('a partition value does not parse as its partition key\'s type');
  }
  return encodePartitionRow(values, fields.map((f) => f.type));
}

/** Merged rows with the deletes of a full extract added; `deletes()` is final once the batches are exhausted. */
export interface ExtractedRows extends MergedRows {
  deletes(): number;
}

/**
 * The merged rows of a bucket of a full extract, with a `-D` record for every key of the bucket's
 * base snapshot the extract lacks, in key order. The added records carry the stored row and the
 * sequence number just above the bucket's base maximum (a merge picks them over the stored row).
 */
export function fullExtractDeletes(input: BucketMergeInput, merged: MergedRows, baseSnapshotId: number | null): ExtractedRows {
  let deletes = 0;
  return {
    batches: withDeletes(input, merged, baseSnapshotId, () => deletes++),
    collidingKeys: () => merged.collidingKeys(),
    deletes: () => deletes,
  };
}

async function* withDeletes(input: BucketMergeInput, merged: MergedRows, baseSnapshotId: number | null, counted: () => void): AsyncGenerator<ColumnBatch> {
  const { schema, store, tablePath } = input;
  const keys = trimmedPrimaryKeys(schema);
  const k = keys.length;
  const rowType = keyValueRowType({ fields: schema.fields }, keys);
  if (baseSnapshotId === null) {
    yield* merged.batches;
    return;
  }
  const snapshot = await new SnapshotManager(store, tablePath).snapshot(baseSnapshotId);
  const wanted = partitionKey(input.partition);
  const files = (await new FileStoreScan(store, tablePath, partitionFields(schema)).plan(snapshot)).filter(
    (e) => e.bucket === input.bucket && partitionKey(e.partition) === wanted,
  );
  const read = new TableRead(store, tablePath, schema, { snapshotId: baseSnapshotId });
  const order = read.keyValueOrder();
  const ignoreDelete = (schema.options['ignore-delete'] ?? '').trim().toLowerCase() === 'true';
  const base = mergeDeduplicate(files.map((e) => read.keyValues(e)), order, { ignoreDelete });
  let next = files.reduce((max, e) => (e.file.maxSequenceNumber > max ? e.file.maxSequenceNumber : max), -1n) + 1n;
  let stored: KeyValue | undefined = (await base.next()).value ?? undefined;
  let out: InternalRow[] = [];
  const deleted = (kv: KeyValue): InternalRow => {
    counted();
    return [...kv.key, next++, RowKind.DELETE, ...kv.value];
  };
  try {
    for await (const batch of merged.batches) {
      for (let i = 0; i < batch.length; i++) {
        const row = batch.columns.map((c) => valueAt(c, i));
        const key = row.slice(0, k);
        while (stored !== undefined && order.compareKey(stored.key, key) < 0) {
          out.push(deleted(stored));
          stored = (await base.next()).value ?? undefined;
        }
        if (stored !== undefined && order.compareKey(stored.key, key) === 0) stored = (await base.next()).value ?? undefined;
        out.push(row);
      }
      if (out.length >= BATCH_ROWS) {
        yield batchFromRows(rowType, out);
        out = [];
      }
    }
    while (stored !== undefined) {
      out.push(deleted(stored));
      stored = (await base.next()).value ?? undefined;
      if (out.length >= BATCH_ROWS) {
        yield batchFromRows(rowType, out);
        out = [];
      }
    }
    if (out.length > 0) yield batchFromRows(rowType, out);
  } finally {
    await base.return(undefined);
  }
}

/** What a changelog bucket came to: the merged bucket's fields and the changelog's counts. */
export interface MergedChangelogBucket extends MergedBucket {
  readonly changelog: BucketChangelog;
}

/**
 * Feeds the bucket's merged records (key-value rows, one per key, in key order) to the changelog
 * write as the bucket's final changes: a retraction deletes the key, anything else upserts it. The
 * records stay column batches (ChangelogWrite.writeBucketRecords).
 * `input.onRows` is told the rows taken so far, once per batch (progress; throwing stops it).
 */
export async function writeBucketChangelog(input: BucketMergeInput, merged: MergedRows, write: ChangelogWrite): Promise<MergedChangelogBucket> {
  const changelog = await write.writeBucketRecords(counted(input, merged));
  return { message: changelog.message ?? undefined, rows: changelog.dataRows, collidingKeys: merged.collidingKeys(), changelog };
}

/** The merged batches, `input.onRows` told the rows taken after each. */
async function* counted(input: BucketMergeInput, merged: MergedRows): AsyncGenerator<ColumnBatch> {
  let taken = 0;
  for await (const batch of merged.batches) {
    taken += batch.length;
    await input.onRows?.(taken);
    yield batch;
  }
}
