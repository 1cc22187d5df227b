/**
 * The pure decisions of a commit, separated from its I/O (write/file-store-commit.ts):
 *
 *   CommitMessages ──► delta entries (ADD new files, DELETE deleted files)
 *                  ──► + OVERWRITE: DELETE every live file of the overwritten partitions
 *                  ──► primary key, APPEND: buckets whose live rows reach our sequence numbers
 *                      are rebased (bucketsToRebase; the rewrite is write/sequence-rebase.ts)
 *                  ──► conflict check against the live entries of the latest snapshot
 *                  ──► record counts for the new snapshot
 *
 * Mirrors org.apache.paimon.operation.FileStoreCommitImpl (tryCommitOnce, tryOverwrite) and
 * org.apache.paimon.operation.commit.ConflictDetection (checkConflicts, checkBucketKeepSame).
 * Everything here works on plain values and is tested from case tables.
 */
import { errorFrom } from '@tributary/errors';
import { tableErrors } from '../errors.ts';
import { bucketKey, partitionKey } from '../spec/binary-row.ts';
import type { CommitMessage } from '../spec/commit-message.ts';
import { SNAPSHOT_VERSION, type CommitIdentity, type Snapshot } from '../spec/snapshot.ts';

/** APPEND and OVERWRITE commit a load's data files; COMPACT commits a compaction's rewrite (compactBefore → compactAfter). */
export type CommitKind = 'APPEND' | 'OVERWRITE' | 'COMPACT';

/** The fields of a data file this module looks at (a subset of spec/data-file-meta.ts DataFileMeta). */
export interface PlanFile {
  readonly fileName: string;
  readonly rowCount: bigint | number;
  readonly maxSequenceNumber: bigint | number;
}

/** The fields of a manifest entry this module looks at (a subset of spec/manifest-entry.ts ManifestEntry). */
export interface PlanEntry<F extends PlanFile = PlanFile> {
  readonly kind: 'ADD' | 'DELETE';
  /** Arity-prefixed BinaryRow bytes; compared byte for byte as Java does. */
  readonly partition: Uint8Array;
  readonly bucket: number;
  readonly totalBuckets: number;
  readonly file: F;
}

/**
 * The fields of a commit message this module looks at (a subset of spec/commit-message.ts
 * CommitMessage: its data increment; a load carries nothing else, see checkDataFilesOnly).
 */
export interface PlanMessage<F extends PlanFile = PlanFile> {
  /** Arity-prefixed BinaryRow of the partition values. */
  readonly partition: Uint8Array;
  readonly bucket: number;
  /** N for fixed-bucket tables, -1 (or null) for bucket-unaware append tables. */
  readonly totalBuckets: number | null;
  readonly dataIncrement: {
    readonly newFiles: readonly F[];
    readonly deletedFiles: readonly F[];
    readonly changelogFiles: readonly F[];
  };
  /** A compaction's rewrite of the bucket (absent: none). */
  readonly compactIncrement?: {
    readonly compactBefore: readonly F[];
    readonly compactAfter: readonly F[];
  };
}

/**
 * A load only adds (and an overwrite only deletes) data files: a message that carries index files
 * or compaction output was not written by Tributary's writer, and committing it would drop what
 * it meant, so it is refused.
 * @throws COMMIT_MESSAGE_UNSUPPORTED
 */
export function checkDataFilesOnly(messages: readonly CommitMessage[]): void {
  for (const m of messages) {
    const d = m.dataIncrement;
    const c = m.compactIncrement;
    const unsupported = d.newIndexFiles.length + d.deletedIndexFiles.length + c.compactBefore.length + c.compactAfter.length + c.changelogFiles.length;
    if (unsupported > 0) {
      throw errorFrom(tableErrors, 'COMMIT_MESSAGE_UNSUPPORTED', 'a commit message carries index or compaction files, which a load never writes', {
        bucket: m.bucket,
      });
    }
  }
}

/**
 * A compaction commits a rewrite and nothing else: its messages carry compactBefore and
 * compactAfter only (no new data, index or changelog files), so a COMPACT snapshot never changes a
 * key's value.
 * @throws COMMIT_MESSAGE_UNSUPPORTED
 */
export function checkCompactFilesOnly(messages: readonly CommitMessage[]): void {
  for (const m of messages) {
    const d = m.dataIncrement;
    const c = m.compactIncrement;
    const other = d.newFiles.length + d.deletedFiles.length + d.changelogFiles.length + d.newIndexFiles.length + d.deletedIndexFiles.length;
    const unsupported = other + c.changelogFiles.length + c.newIndexFiles.length + c.deletedIndexFiles.length;
    if (unsupported > 0 || c.compactBefore.length === 0) {
      throw errorFrom(
        tableErrors,
        'COMMIT_MESSAGE_UNSUPPORTED',
        'a compaction commit message must carry the files it rewrote (compactBefore) and their rewrite (compactAfter) only',
        { bucket: m.bucket },
      );
    }
  }
}

/**
 * FileEntry.Identifier as a string key; supplied by spec/file-entry.ts (entryIdentifier). The
 * identifier holds the file name: entries of different file names never have the same one.
 */
export type IdentifyEntry<E> = (entry: E) => string;

/**
 * Entries by identity, holding what a `Map` keyed by `identify` would hold, in the same order,
 * without an identifier for every entry: entries are grouped by file name (part of the identity),
 * and identifiers are made, once each, only for entries whose name another entry shares.
 */
class EntriesByIdentity<E extends PlanEntry> {
  readonly #identify: IdentifyEntry<E>;
  /** In insertion order; a removed entry leaves undefined. */
  readonly #entries: (E | undefined)[] = [];
  /** Each entry's identifier, once made. */
  readonly #ids: (string | undefined)[] = [];
  /** File name → the index of its entry, or of each of its entries. */
  readonly #byName = new Map<string, number | number[]>();

  constructor(identify: IdentifyEntry<E>) {
    this.#identify = identify;
  }

  /** The index of the entry with the identity of `e`, or -1. */
  indexOf(e: E): number {
    const at = this.#byName.get(e.file.fileName);
    if (at === undefined) return -1;
    const id = this.#identify(e);
    if (typeof at === 'number') return this.#idAt(at) === id ? at : -1;
    for (const i of at) if (this.#idAt(i) === id) return i;
    return -1;
  }

  /** Map.set: replaces the entry of the same identity in its place, or adds `e` last. */
  set(e: E): void {
    const found = this.indexOf(e);
    if (found >= 0) this.#entries[found] = e;
    else this.add(e);
  }

  /** Adds `e` last: no entry has its identity (indexOf gave -1). */
  add(e: E): void {
    const i = this.#entries.length;
    this.#entries.push(e);
    this.#ids.push(undefined);
    const name = e.file.fileName;
    const at = this.#byName.get(name);
    if (at === undefined) this.#byName.set(name, i);
    else if (typeof at === 'number') this.#byName.set(name, [at, i]);
    else at.push(i);
  }

  /** Removes the entry at `i` (from indexOf). */
  deleteAt(i: number): void {
    const e = this.#entries[i];
    if (e === undefined) return;
    this.#entries[i] = undefined;
    const name = e.file.fileName;
    const at = this.#byName.get(name);
    if (typeof at === 'number') this.#byName.delete(name);
    else if (at !== undefined) {
      const rest = at.filter((j) => j !== i);
      if (rest.length === 0) this.#byName.delete(name);
      else this.#byName.set(name, rest);
    }
  }

  *values(): IterableIterator<E> {
    for (const e of this.#entries) if (e !== undefined) yield e;
  }

  #idAt(i: number): string {
    let id = this.#ids[i];
    if (id === undefined) {
      id = this.#identify(this.#entries[i] as E);
      this.#ids[i] = id;
    }
    return id;
  }
}

/**
 * The messages as manifest entries, per message: the data increment (ADDs, then DELETEs), then the
 * compact increment (compactBefore as DELETEs, then compactAfter as ADDs, as Paimon's
 * FileStoreCommitImpl collects them).
 */
export function deltaEntries<F extends PlanFile>(messages: readonly PlanMessage<F>[]): PlanEntry<F>[] {
  const entries: PlanEntry<F>[] = [];
  for (const m of messages) {
    const { partition, bucket } = m;
    const totalBuckets = m.totalBuckets ?? -1;
    for (const file of m.dataIncrement.newFiles) entries.push({ kind: 'ADD', partition, bucket, totalBuckets, file });
    for (const file of m.dataIncrement.deletedFiles) entries.push({ kind: 'DELETE', partition, bucket, totalBuckets, file });
    for (const file of m.compactIncrement?.compactBefore ?? []) entries.push({ kind: 'DELETE', partition, bucket, totalBuckets, file });
    for (const file of m.compactIncrement?.compactAfter ?? []) entries.push({ kind: 'ADD', partition, bucket, totalBuckets, file });
  }
  return entries;
}

/** The changelog files of the messages as ADD entries (they go to the changelog manifest list). */
export function changelogEntries<F extends PlanFile>(messages: readonly PlanMessage<F>[]): PlanEntry<F>[] {
  return messages.flatMap((m) =>
    m.dataIncrement.changelogFiles.map((file) => ({ kind: 'ADD' as const, partition: m.partition, bucket: m.bucket, totalBuckets: m.totalBuckets ?? -1, file })),
  );
}

/**
 * OVERWRITE (FileStoreCommitImpl.tryOverwrite): a DELETE for every live file in the overwritten
 * partitions, copying the live entry's fields so its identity matches byte for byte.
 * `partitions` undefined overwrites the whole table.
 */
export function overwriteDeletes<E extends PlanEntry>(live: readonly E[], partitions: readonly Uint8Array[] | undefined): E[] {
  const wanted = partitions === undefined ? undefined : new Set(partitions.map(partitionKey));
  return live
    .filter((e) => e.kind === 'ADD' && (wanted === undefined || wanted.has(partitionKey(e.partition))))
    .map((e) => ({ ...e, kind: 'DELETE' as const }));
}

/**
 * ConflictDetection.checkConflicts for what Tributary commits (level-0 files only, so the LSM
 * key-range check has nothing to find):
 * - merging the live entries with the delta must not add a file twice;
 * - every file the delta deletes must still be live ("File deletion conflicts");
 * - unless OVERWRITE, all files of a partition keep one `_TOTAL_BUCKETS` (checkBucketKeepSame).
 * `live` holds the merged ADD entries of the latest snapshot (at least those of the changed partitions).
 */
export function checkCommitConflicts<E extends PlanEntry>(
  live: readonly E[],
  delta: readonly E[],
  kind: CommitKind,
  identify: IdentifyEntry<E>,
): void {
  const merged = new EntriesByIdentity(identify);
  for (const e of live) merged.set(e);
  for (const e of delta) {
    const at = merged.indexOf(e);
    if (e.kind === 'ADD') {
      if (at >= 0) throw conflict(`file ${e.file.fileName} is already in the table`, e);
      merged.add(e);
    } else {
      if (at < 0) throw conflict(`file ${e.file.fileName} to delete is no longer live (deleted by a concurrent commit)`, e);
      merged.deleteAt(at);
    }
  }
  if (kind !== 'OVERWRITE') checkBucketKeepSame(merged.values());
}

/** A file's path inside the table (spec/partition-path.ts DataFilePaths.file); supplied by the committer. */
export type LocateEntry<E> = (entry: E) => string;

/**
 * No two files at one path. FileEntry identifiers compare partition bytes, but distinct partition
 * rows can share a directory (NULL, '', ' ' are all `__DEFAULT_PARTITION__`): two writers that name
 * files alike there write one object, and the table would reference it twice. So every file
 * `added` (the delta's ADDs and the changelog files) must have a path of its own, taken neither by
 * another added file nor by a live one. The one exception is Paimon's level upgrade: the delta
 * DELETEs a file and ADDs it again at another level of the same partition row (the same object).
 * `live` holds the live entries of (at least) every partition sharing a directory with `added`.
 */
export function checkDistinctPaths<E extends PlanEntry>(
  live: readonly E[],
  added: readonly E[],
  deleted: readonly E[],
  locate: LocateEntry<E>,
): void {
  const moved = new Set(deleted.map((e) => `${partitionKey(e.partition)}|${locate(e)}`));
  const taken = new Map<string, E>();
  for (const e of live) taken.set(locate(e), e);
  const seen = new Set<string>();
  for (const e of added) {
    const path = locate(e);
    if (seen.has(path)) throw duplicatePath(`file ${e.file.fileName} in bucket ${e.bucket}: another file of this commit has the same path`, e);
    seen.add(path);
    const holder = taken.get(path);
    if (holder !== undefined && !moved.has(`${partitionKey(e.partition)}|${path}`)) {
      throw duplicatePath(`file ${e.file.fileName} in bucket ${e.bucket}: a live file of the table has the same path`, e);
    }
  }
}

function duplicatePath(message: string, e: PlanEntry): Error {
  return errorFrom(tableErrors, 'COMMIT_PATH_DUPLICATE', message, { fileName: e.file.fileName, bucket: e.bucket });
}

function checkBucketKeepSame(entries: Iterable<PlanEntry>): void {
  const totals = new Map<string, number>();
  for (const e of entries) {
    if (e.totalBuckets <= 0) continue;
    const key = partitionKey(e.partition);
    const seen = totals.get(key);
    if (seen === undefined) totals.set(key, e.totalBuckets);
    else if (seen !== e.totalBuckets) {
      throw conflict(`total buckets of a partition changed from ${seen} to ${e.totalBuckets}; only OVERWRITE may rescale`, e);
    }
  }
}

function conflict(message: string, e: PlanEntry): Error {
  return errorFrom(tableErrors, 'COMMIT_CONFLICT', message, {
    fileName: e.file.fileName,
    partition: partitionKey(e.partition),
    bucket: e.bucket,
  });
}

/**
 * A commit that carries changelog files was computed from before-images read in the writers' base
 * snapshot, every bucket of it (a bucket whose only change was in ignored fields has data and no
 * changelog): those buckets, which no other data may have reached since. Empty without a changelog.
 */
export function changelogBuckets(messages: readonly PlanMessage[]): Set<string> {
  const buckets = new Set<string>();
  if (!messages.some((m) => m.dataIncrement.changelogFiles.length > 0)) return buckets;
  for (const m of messages) buckets.add(bucketKey(m.partition, m.bucket));
  return buckets;
}

/**
 * A changelog commit is stale when a snapshot committed after its base changed the data of a bucket
 * whose changelog it carries (the strict-mode check of Paimon's commit.strict-mode.last-safe-snapshot,
 * per bucket): the first such entry of that snapshot's delta, or undefined. COMPACT snapshots
 * rewrite files without changing a key's value and are not passed here.
 */
export function staleChangelogEntry<E extends PlanEntry>(buckets: ReadonlySet<string>, delta: readonly E[]): E | undefined {
  return delta.find((e) => buckets.has(bucketKey(e.partition, e.bucket)));
}

/** deltaRecordCount: rows of added files minus rows of deleted files (FileStoreCommitImpl.recordCount*). */
export function deltaRecordCount(delta: readonly PlanEntry[]): bigint {
  // Summed as a double while each count and every partial sum is an integer of magnitude at most
  // 2^53 - 1 (exact; a commit's counts are), the rest in BigInt: a commit sums each count once, in
  // code that has not warmed up, where a BigInt per entry costs ~1 µs.
  let small = 0;
  let i = 0;
  for (; i < delta.length; i++) {
    const e = delta[i] as PlanEntry;
    const rows = Number(e.file.rowCount);
    const next = e.kind === 'ADD' ? small + rows : small - rows;
    if (!Number.isInteger(rows) || Math.abs(rows) > Number.MAX_SAFE_INTEGER || Math.abs(next) > Number.MAX_SAFE_INTEGER) break;
    small = next;
  }
  let count = BigInt(small);
  for (; i < delta.length; i++) {
    const e = delta[i] as PlanEntry;
    count += e.kind === 'ADD' ? BigInt(e.file.rowCount) : -BigInt(e.file.rowCount);
  }
  return count;
}

/** Sum of the rows of the changelog files, or null when there are none (Snapshot.changelogRecordCount). */
export function changelogRecordCount(changelog: readonly PlanEntry[]): bigint | null {
  if (changelog.length === 0) return null;
  return changelog.reduce((sum, e) => sum + BigInt(e.file.rowCount), 0n);
}

/**
 * The highest `_MAX_SEQUENCE_NUMBER` per (partition, bucket) among live files, keyed by bucketKey().
 * A primary-key writer continues from here + 1 (MergeTreeWriter via DataFileMeta.getMaxSequenceNumber).
 */
export function maxSequenceNumbers(live: Iterable<PlanEntry>): Map<string, bigint> {
  const max = new Map<string, bigint>();
  for (const e of live) {
    if (e.kind !== 'ADD') continue;
    const key = bucketKey(e.partition, e.bucket);
    const seq = BigInt(e.file.maxSequenceNumber);
    const seen = max.get(key);
    if (seen === undefined || seq > seen) max.set(key, seq);
  }
  return max;
}

/** A file whose sequence range the rebase looks at (DataFileMeta's min and max sequence numbers). */
export interface SequencedFile extends PlanFile {
  readonly minSequenceNumber: bigint | number;
}

/**
 * "The later snapshot wins" (docs/architecture.md, "Which row a key keeps"): for a primary-key APPEND commit, the buckets whose
 * rows might lose to rows committed since the writers' base snapshot, each with the first sequence
 * number our files of that bucket must start at (bucketKey → live max + 1).
 *
 * A writer numbers a bucket from its base snapshot's max + 1, so live rows at or above our
 * smallest number can only come from commits that landed after that base (another load planned on
 * the same base, or any other writer). Shifting all our files of the bucket by one amount
 * (write/sequence-rebase.ts) puts every one of our rows above them and keeps our own order
 * (shards in plan order, rows in a shard). Buckets without such live rows are left alone.
 * @throws SEQUENCE_RANGE_EXHAUSTED when the shifted numbers would pass 2^63 - 1
 */
export function bucketsToRebase(live: Iterable<PlanEntry>, messages: readonly PlanMessage<SequencedFile>[]): Map<string, bigint> {
  // The highest live sequence number of each bucket with live rows (found by partition key, then
  // bucket). A bucket without any cannot need a rebase, so a load into buckets nobody else wrote
  // (a new table, new partitions) looks at none of its own files: at 10,000 shards that pass over
  // 30,000 files' sequence numbers was ~60 ms of the commit (issue #11).
  const liveMax = new Map<string, Map<number, bigint>>();
  for (const e of live) {
    if (e.kind !== 'ADD') continue;
    const key = partitionKey(e.partition);
    let buckets = liveMax.get(key);
    if (buckets === undefined) liveMax.set(key, (buckets = new Map()));
    const seq = BigInt(e.file.maxSequenceNumber);
    const max = buckets.get(e.bucket);
    if (max === undefined || seq > max) buckets.set(e.bucket, seq);
  }
  const starts = new Map<string, bigint>();
  if (liveMax.size === 0) return starts;
  // Our sequence range per bucket that has live rows, in first-seen order.
  const ours: BucketRange[] = [];
  const byPartition = new Map<string, Map<number, BucketRange>>();
  for (const m of messages) {
    if (m.dataIncrement.newFiles.length === 0) continue;
    const key = partitionKey(m.partition);
    const liveMaxHere = liveMax.get(key)?.get(m.bucket);
    if (liveMaxHere === undefined) continue;
    let buckets = byPartition.get(key);
    if (buckets === undefined) byPartition.set(key, (buckets = new Map()));
    let range = buckets.get(m.bucket);
    for (const file of m.dataIncrement.newFiles) {
      const min = BigInt(file.minSequenceNumber);
      const max = BigInt(file.maxSequenceNumber);
      if (range === undefined) {
        range = { partition: m.partition, bucket: m.bucket, min, max, liveMax: liveMaxHere };
        ours.push(range);
        buckets.set(m.bucket, range);
      } else {
        if (min < range.min) range.min = min;
        if (max > range.max) range.max = max;
      }
    }
  }
  for (const range of ours) {
    const max = range.liveMax;
    if (max === undefined || max < range.min) continue;
    const start = max + 1n;
    const key = bucketKey(range.partition, range.bucket);
    if (start + (range.max - range.min) > MAX_SEQUENCE_NUMBER) {
      throw errorFrom(tableErrors, 'SEQUENCE_RANGE_EXHAUSTED', 'rebasing the commit above the live rows would pass the largest 64-bit sequence number', {
        bucket: key,
      });
    }
    starts.set(key, start);
  }
  return starts;
}

/** Our files' sequence range in one bucket, and the live files' highest number there (bucketsToRebase). */
interface BucketRange {
  readonly partition: Uint8Array;
  readonly bucket: number;
  min: bigint;
  max: bigint;
  liveMax: bigint | undefined;
}

/** Long.MAX_VALUE: `_SEQUENCE_NUMBER` is a Java long. */
export const MAX_SEQUENCE_NUMBER = 2n ** 63n - 1n;

/**
 * Did a snapshot found under this commit's identity add exactly the files of `messages`
 * (partition, bucket, file name of its delta's ADD entries against the messages' new files)? Yes
 * for a retry after a lost acknowledgement; no when the identity was reused for another batch.
 * `messages` are those of the committer's latest attempt; `original` maps a file name to the one it
 * was rewritten from (sequence-rebase.ts rebasedFrom), so a rebased copy counts as its original.
 */
export function sameFiles(snapshotDelta: readonly PlanEntry[], messages: readonly PlanMessage[], original: (fileName: string) => string = (n) => n): boolean {
  const key = (partition: Uint8Array, bucket: number, fileName: string) => `${bucketKey(partition, bucket)}/${original(fileName)}`;
  const added = snapshotDelta.filter((e) => e.kind === 'ADD').map((e) => key(e.partition, e.bucket, e.file.fileName)).sort();
  const ours = messages
    .flatMap((m) => [...m.dataIncrement.newFiles, ...(m.compactIncrement?.compactAfter ?? [])].map((f) => key(m.partition, m.bucket, f.fileName)))
    .sort();
  return added.length === ours.length && added.every((k, i) => k === ours[i]);
}

/** What the committer wrote for a new snapshot, plus the values it takes from outside (uuid, clock). */
export interface SnapshotParts {
  readonly uuid: string;
  readonly timeMillis: number;
  /** The table's latest schema id (Java stamps the latest schema, not the files'). */
  readonly schemaId: number;
  readonly identity: CommitIdentity;
  readonly kind: CommitKind;
  readonly base: { readonly fileName: string; readonly size: number };
  readonly delta: { readonly fileName: string; readonly size: number };
  readonly changelog: { readonly fileName: string; readonly size: number } | null;
  readonly deltaEntries: readonly PlanEntry[];
  readonly changelogEntries: readonly PlanEntry[];
  readonly watermark?: bigint;
  readonly properties?: Readonly<Record<string, string>>;
}

/**
 * The next snapshot after `latest` (FileStoreCommitImpl.tryCommitOnce): id + 1, record counts
 * accumulated, the index manifest and nextRowId carried over, the watermark kept at its maximum.
 * Statistics are not inherited (Java does so only when their schema is still the latest).
 */
export function nextSnapshot(latest: Snapshot | null, parts: SnapshotParts): Snapshot {
  const delta = deltaRecordCount(parts.deltaEntries);
  const previousWatermark = latest?.watermark ?? null;
  const watermark = parts.watermark === undefined ? previousWatermark
    : previousWatermark === null || parts.watermark > previousWatermark ? parts.watermark : previousWatermark;
  return {
    version: SNAPSHOT_VERSION,
    uuid: parts.uuid,
    id: (latest?.id ?? 0n) + 1n,
    schemaId: BigInt(parts.schemaId),
    baseManifestList: parts.base.fileName,
    baseManifestListSize: BigInt(parts.base.size),
    deltaManifestList: parts.delta.fileName,
    deltaManifestListSize: BigInt(parts.delta.size),
    changelogManifestList: parts.changelog?.fileName ?? null,
    changelogManifestListSize: parts.changelog === null ? null : BigInt(parts.changelog.size),
    indexManifest: latest?.indexManifest ?? null,
    commitUser: parts.identity.commitUser,
    writerVersion: null,
    commitIdentifier: parts.identity.commitIdentifier,
    commitKind: parts.kind,
    timeMillis: BigInt(parts.timeMillis),
    totalRecordCount: (latest?.totalRecordCount ?? 0n) + delta,
    deltaRecordCount: delta,
    changelogRecordCount: changelogRecordCount(parts.changelogEntries),
    watermark,
    statistics: null,
    properties: parts.properties === undefined ? null : new Map(Object.entries(parts.properties)),
    nextRowId: latest?.nextRowId ?? 0n,
    // Left out: Java before 2.0 fails on an unknown enum value in this optional field.
    operation: null,
  };
}
