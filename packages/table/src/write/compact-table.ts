/**
 * A table's compaction plan: the live files of a snapshot grouped by (partition, bucket), each
 * group given to the planning rule of its table kind (write/compact-plan.ts); a unit's input files
 * as a manifest file, so the job that rewrites it gets their metadata without scanning manifests;
 * and the live files of one bucket, read back from a snapshot.
 */
import { bucketKey } from '../spec/binary-row.ts';
import type { DataFileMeta } from '../spec/data-file-meta.ts';
import { decodeManifestFile, encodeManifestFile, type ManifestEntry } from '../spec/manifest-entry.ts';
import { dataFilePaths, partitionPathOptions } from '../spec/partition-path.ts';
import { partitionFields, trimmedPrimaryKeys, type TableSchema } from '../spec/table-schema.ts';
import type { ObjectStore } from '../io/object-store.ts';
import { FileStoreScan } from '../snapshot/file-store-scan.ts';
import { SnapshotManager } from '../snapshot/snapshot-manager.ts';
import type { CommitMessage } from '../spec/commit-message.ts';
import { compactBucket } from './compact-bucket.ts';
import { appendOptions, pickAppendCompaction, pickPrimaryKeyCompaction, universalOptions, type CompactUnit } from './compact-plan.ts';

export interface CompactTableRequest {
  /** Full compaction (every bucket to one top-level run; append: all small files). */
  readonly full: boolean;
  /** Only these partitions, as partition directories (`dt=2024-01-01/region=eu`); all when absent. */
  readonly partitions?: readonly string[];
}

export interface BucketCompaction {
  readonly partition: Uint8Array;
  /** The partition's directory inside the table (`dt=2024-01-01/`, empty when unpartitioned). */
  readonly partitionPath: string;
  readonly bucket: number;
  readonly totalBuckets: number;
  readonly unit: CompactUnit<DataFileMeta>;
}

export interface TableCompactionPlan {
  /** The snapshot planned against (null: the table has none, nothing to do). */
  readonly baseSnapshotId: number | null;
  /** Live data files of the planned partitions. */
  readonly liveFiles: number;
  readonly buckets: readonly BucketCompaction[];
}

interface TableAt {
  readonly store: ObjectStore;
  readonly path: string;
  readonly schema: TableSchema;
}

/** Plans the compaction of the latest snapshot. */
export async function planTableCompaction(table: TableAt, request: CompactTableRequest): Promise<TableCompactionPlan> {
  const snapshot = await new SnapshotManager(table.store, table.path).latestSnapshot();
  if (snapshot === null) return { baseSnapshotId: null, liveFiles: 0, buckets: [] };
  const fields = partitionFields(table.schema);
  const paths = dataFilePaths(fields, partitionPathOptions(table.schema.options));
  const wanted = request.partitions === undefined ? undefined : new Set(request.partitions.map(normalDirectory));
  const entries = (await new FileStoreScan(table.store, table.path, fields).plan(snapshot)).filter(
    (e) => wanted === undefined || wanted.has(normalDirectory(paths.directory(e.partition))),
  );
  const groups = new Map<string, ManifestEntry[]>();
  for (const e of entries) {
    const key = bucketKey(e.partition, e.bucket);
    const group = groups.get(key);
    if (group === undefined) groups.set(key, [e]);
    else group.push(e);
  }
  const primaryKey = trimmedPrimaryKeys(table.schema).length > 0;
  const universal = primaryKey ? universalOptions(table.schema.options) : undefined;
  const append = primaryKey ? undefined : appendOptions(table.schema.options);
  const buckets: BucketCompaction[] = [];
  for (const group of groups.values()) {
    const first = group[0] as ManifestEntry;
    const files = group.map((e) => e.file);
    const unit = universal !== undefined ? pickPrimaryKeyCompaction(files, universal, request.full) : pickAppendCompaction(files, append!, request.full);
    if (unit === undefined) continue;
    buckets.push({ partition: first.partition, partitionPath: paths.directory(first.partition), bucket: first.bucket, totalBuckets: first.totalBuckets, unit });
  }
  buckets.sort((a, b) => (a.partitionPath < b.partitionPath ? -1 : a.partitionPath > b.partitionPath ? 1 : a.bucket - b.bucket));
  return { baseSnapshotId: Number(snapshot.id), liveFiles: entries.length, buckets };
}

/**
 * A unit's input files as a manifest file of ADD entries: their metadata exactly as the planned
 * snapshot's manifests hold it (the commit's DELETE entries are built from it), in the unit's order.
 */
export function encodeCompactionInputs(b: BucketCompaction): Uint8Array {
  return encodeManifestFile(b.unit.files.map((file): ManifestEntry => ({ kind: 'ADD', partition: b.partition, bucket: b.bucket, totalBuckets: b.totalBuckets, file })));
}

/** The entries of encodeCompactionInputs, in its order. @throws AVRO_CORRUPT, MANIFEST_RECORD_INVALID (the manifest reader's codes) */
export function decodeCompactionInputs(bytes: Uint8Array): ManifestEntry[] {
  return decodeManifestFile(bytes);
}

/** The live files of one (partition, bucket) in a snapshot, by name. @throws SNAPSHOT_NOT_FOUND */
export async function liveBucketFiles(table: TableAt, snapshotId: number, partition: Uint8Array, bucket: number): Promise<Map<string, ManifestEntry>> {
  const snapshot = await new SnapshotManager(table.store, table.path).snapshot(snapshotId);
  const entries = await new FileStoreScan(table.store, table.path, partitionFields(table.schema)).plan(snapshot, { partitionRows: [partition], buckets: [bucket] });
  return new Map(entries.map((e) => [e.file.fileName, e]));
}

function normalDirectory(path: string): string {
  return path.replace(/^\/+|\/+$/g, '');
}

/**
 * The whole compaction in this process (tests, tools, a single machine): plan, rewrite every unit
 * one after another, and return the messages for one COMPACT commit on `baseSnapshotId`. Nothing
 * is committed here.
 */
export async function rewriteTable(table: TableAt, request: CompactTableRequest, writerId: string): Promise<{ baseSnapshotId: number | null; messages: CommitMessage[] }> {
  const plan = await planTableCompaction(table, request);
  const messages: CommitMessage[] = [];
  if (plan.baseSnapshotId === null) return { baseSnapshotId: null, messages };
  for (const [i, b] of plan.buckets.entries()) {
    const done = await compactBucket({ ...table, tablePath: table.path, partition: b.partition, bucket: b.bucket, totalBuckets: b.totalBuckets, unit: b.unit, writerId: `${writerId}-${i}` });
    messages.push(done.message);
  }
  return { baseSnapshotId: plan.baseSnapshotId, messages };
}
