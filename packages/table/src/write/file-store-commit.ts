/**
 * Commits CommitMessages as one new snapshot, mirroring
 * org.apache.paimon.operation.FileStoreCommitImpl (commit, overwrite, tryCommit, tryCommitOnce).
 *
 *   ┌──────────► read latest snapshot L (id N, or none)
 *   │            identity already in a snapshot after the base? ──yes──► same files? yes ► done (no second commit)
 *   │                                                                              no ─► COMMIT_IDENTITY_REUSED
 *   │            live files of the touched partitions of L (and of those sharing their directories)
 *   │            primary key, APPEND: live rows reach our sequence numbers in a bucket? ─► rebase it
 *   │              (sequence-rebase.ts: our files of that bucket rewritten above the live rows)
 *   │            delta = ADD new files, DELETE deleted files (+ OVERWRITE: DELETE live files of the partitions)
 *   │            conflict and path checks against L's live files (commit-plan.ts)
 *   │            write delta manifests; base list = minor-compacted L.base + L.delta; delta list
 *   │            put-if-absent snapshot/snapshot-(N+1)
 *   │              ├─ ok ─────────────────► rewrite LATEST (best effort) ──► done
 *   │              ├─ ALREADY_EXISTS ─────► is it ours (lost response)? yes ► done (same files checked)
 *   └─ backoff ◄───┴─ other error ────────► is it ours? yes ► done, no ► retry if retryable, else throw
 *
 * Manifests of a failed attempt, and the original files of rebased buckets, are left behind
 * unreferenced (garbage collection removes them later); nothing is ever deleted while the outcome
 * is unknown. The messages an attempt commits (`current`: the originals, or their rebased copies)
 * are what the next attempt starts from, and what a snapshot found with our identity holds.
 */
import { randomUUID } from 'node:crypto';
import { errorFrom, isTributaryError } from '@tributary/errors';
import { tableErrors } from '../errors.ts';
import type { ObjectStore } from '../io/object-store.ts';
import { entryIdentifier, mergeEntries } from '../spec/file-entry.ts';
import { dataFilePaths, type DataFilePaths, type PartitionPathOptions } from '../spec/partition-path.ts';
import { bucketKey, partitionKey } from '../spec/binary-row.ts';
import type { CommitMessage } from '../spec/commit-message.ts';
import type { ManifestEntry } from '../spec/manifest-entry.ts';
import type { ManifestFileMeta } from '../spec/manifest-file-meta.ts';
import { BATCH_COMMIT_IDENTIFIER, encodeSnapshot, hasIdentity, type CommitIdentity, type Snapshot } from '../spec/snapshot.ts';
import type { DataField } from '../spec/types.ts';
import { FileStoreScan } from '../snapshot/file-store-scan.ts';
import { SnapshotManager } from '../snapshot/snapshot-manager.ts';
import {
  bucketsToRebase,
  changelogBuckets,
  changelogEntries,
  checkCommitConflicts,
  checkCompactFilesOnly,
  checkDataFilesOnly,
  checkDistinctPaths,
  deltaEntries,
  nextSnapshot,
  overwriteDeletes,
  sameFiles,
  staleChangelogEntry,
  type CommitKind,
} from './commit-plan.ts';
import { planMinorCompaction, type ManifestMergeOptions } from './manifest-merge.ts';
import { writeManifestList, writeManifests, type ManifestWriterContext } from './manifest-writer.ts';
import { rebasedFrom, type SequenceRebaser } from './sequence-rebase.ts';

export interface FileStoreCommitOptions {
  readonly store: ObjectStore;
  readonly tablePath: string;
  readonly commitUser: string;
  readonly schemaId: number;
  readonly partitionFields: readonly DataField[];
  /** `partition.default-name` and `partition.legacy-name`: where the files' directories are. */
  readonly partitionPath?: PartitionPathOptions;
  /** `commit.max-retries` (default 10). */
  readonly maxRetries: number;
  /** `commit.min-retry-wait` / `commit.max-retry-wait` in ms (defaults 10 ms and 10 s). */
  readonly minRetryWaitMs: number;
  readonly maxRetryWaitMs: number;
  readonly manifestMerge: ManifestMergeOptions;
  /**
   * Primary-key tables: rewrites the files of buckets where rows committed since the writers' base
   * reach our sequence numbers, so the later snapshot wins (absent: append tables, no rebase).
   */
  readonly rebaser?: SequenceRebaser;
  /** Wall clock for Snapshot.timeMillis (injectable for tests). */
  readonly clock?: () => number;
}

export interface CommitRequest {
  /** Snapshot.commitIdentifier; a batch load uses BATCH_COMMIT_IDENTIFIER with a unique commitUser. */
  readonly identifier?: bigint;
  readonly kind?: CommitKind;
  /** OVERWRITE only: arity-prefixed partition rows to replace; undefined replaces the whole table. */
  readonly overwritePartitions?: readonly Uint8Array[];
  /**
   * The snapshot the writers read from (the pinned snapshot). The identity search looks at the
   * snapshots after it; without it, it walks back to the first missing snapshot.
   */
  readonly baseSnapshotId?: number;
  /** Snapshot.properties. */
  readonly properties?: Readonly<Record<string, string>>;
  /**
   * A property no snapshot after `baseSnapshotId` may carry with this value: the commit was
   * planned from what the snapshots up to the base say (the files or rows a source already
   * loaded), so a later snapshot with the same mark means that plan is out of date.
   * @see FileStoreCommit.#checkExclusive
   */
  readonly exclusive?: { readonly key: string; readonly value: string };
  /**
   * Buckets whose outcome was computed from the rows of the base snapshot (a changelog's
   * before-images, a full extract's deletes), whether or not this commit writes into them: a
   * bucket where the load changed nothing has no message, yet its "nothing" is only right while
   * no other writer changed it. Checked with the changelog's buckets (COMMIT_CHANGELOG_STALE).
   */
  readonly baseBuckets?: readonly { readonly partition: Uint8Array; readonly bucket: number }[];
  /** Snapshot.watermark of this commit; the snapshot keeps max(previous, this). */
  readonly watermark?: bigint;
}

export interface CommitResult {
  readonly snapshotId: number;
  /** True when a snapshot with this identity already existed: nothing new was committed. */
  readonly alreadyCommitted: boolean;
  readonly attempts: number;
  /** Attempts that lost the race for the next snapshot id to another committer (each was retried). */
  readonly conflicts: number;
}

/**
 * `builtOn`: the id of the snapshot the failed attempt read as latest (0 for none); `messages`:
 * what it tried to commit (rebased or not), the next attempt's `current`.
 */
type Attempt =
  | { readonly done: Omit<CommitResult, 'conflicts'> }
  | { readonly retry: unknown; readonly builtOn: number; readonly messages?: readonly CommitMessage[] };

export class FileStoreCommit {
  readonly #o: FileStoreCommitOptions;
  readonly #snapshots: SnapshotManager;
  readonly #scan: FileStoreScan;
  readonly #paths: DataFilePaths;

  constructor(options: FileStoreCommitOptions) {
    this.#o = options;
    this.#snapshots = new SnapshotManager(options.store, options.tablePath);
    this.#scan = new FileStoreScan(options.store, options.tablePath, options.partitionFields);
    this.#paths = dataFilePaths(options.partitionFields, options.partitionPath);
  }

  async commit(messages: readonly CommitMessage[], request: CommitRequest = {}): Promise<CommitResult> {
    if (request.kind === 'COMPACT') checkCompactFilesOnly(messages);
    else checkDataFilesOnly(messages);
    const identity: CommitIdentity = { commitUser: this.#o.commitUser, commitIdentifier: request.identifier ?? BATCH_COMMIT_IDENTIFIER };
    let lastFailure: unknown;
    // Our snapshot can only follow the base; after a failed attempt, only the snapshots after the
    // one that attempt built on are new to us.
    let searchAfter = request.baseSnapshotId ?? 0;
    // What the last attempt tried to commit: the caller's messages, or their rebased copies.
    let current = messages;
    let conflicts = 0;
    for (let attempt = 1; attempt <= this.#o.maxRetries + 1; attempt++) {
      const outcome = await this.#attempt(messages, current, request, identity, attempt, searchAfter).catch((error: unknown): Attempt => {
        // A storage hiccup while reading or writing metadata: the attempt changed nothing visible.
        if (isTributaryError(error) && error.retryable) return { retry: error, builtOn: searchAfter };
        throw error;
      });
      if ('done' in outcome) return { ...outcome.done, conflicts };
      if (isTributaryError(outcome.retry) && outcome.retry.code === 'OBJECT_ALREADY_EXISTS') conflicts++;
      lastFailure = outcome.retry;
      current = outcome.messages ?? current;
      searchAfter = Math.max(searchAfter, outcome.builtOn);
      await sleep(this.#backoff(attempt));
    }
    throw errorFrom(
      tableErrors,
      'COMMIT_RETRIES_EXHAUSTED',
      `commit of ${this.#o.tablePath} by ${identity.commitUser} failed after ${this.#o.maxRetries + 1} attempts: ${String(lastFailure)}`,
      { table: this.#o.tablePath, commitUser: identity.commitUser, commitIdentifier: identity.commitIdentifier },
      { cause: lastFailure },
    );
  }

  /** One attempt: stop if the identity is already committed, else try to publish. */
  async #attempt(
    original: readonly CommitMessage[],
    current: readonly CommitMessage[],
    request: CommitRequest,
    identity: CommitIdentity,
    attempt: number,
    searchAfter: number,
  ): Promise<Attempt> {
    const found = await this.#snapshots.findCommitted(identity, searchAfter);
    if (found !== null) {
      await this.#checkSameFiles(found, current, identity);
      return { done: { snapshotId: Number(found.id), alreadyCommitted: true, attempts: attempt } };
    }
    return this.#tryCommitOnce(original, current, request, identity, attempt);
  }

  /**
   * A snapshot carries our identity: it is ours only if it added the files we commit now (a lost
   * acknowledgement). Other files mean the identity was reused for another batch; answering
   * `alreadyCommitted` would silently drop this batch. `messages`: those of the latest attempt. A
   * rebased file counts as its original (`rebasedFrom`): a new commit() with the original messages
   * may find its identity in a snapshot that holds their rebased copies.
   */
  async #checkSameFiles(found: Snapshot, messages: readonly CommitMessage[], identity: CommitIdentity): Promise<void> {
    const delta: ManifestEntry[] = [];
    for (const meta of await this.#scan.readManifestList(found.deltaManifestList)) delta.push(...(await this.#scan.readManifest(meta.fileName)));
    if (sameFiles(delta, messages, rebasedFrom)) return;
    throw errorFrom(
      tableErrors,
      'COMMIT_IDENTITY_REUSED',
      `snapshot ${found.id} of ${this.#o.tablePath} was committed by ${identity.commitUser} with identifier ${identity.commitIdentifier} and other files: ` +
        'a commit identity belongs to one batch (use a new commit user or identifier per batch)',
      { table: this.#o.tablePath, commitUser: identity.commitUser, commitIdentifier: identity.commitIdentifier, snapshotId: Number(found.id) },
    );
  }

  async #tryCommitOnce(
    original: readonly CommitMessage[],
    current: readonly CommitMessage[],
    request: CommitRequest,
    identity: CommitIdentity,
    attempt: number,
  ): Promise<Attempt> {
    const latest = await this.#snapshots.latestSnapshot();
    const kind = request.kind ?? 'APPEND';
    await this.#checkExclusive(latest, request);
    await this.#checkChangelogBase(latest, current, request);
    const live = await this.#live(latest, original, request, kind);
    const messages = await this.#rebased(original, current, live, kind);
    const changelog: ManifestEntry[] = changelogEntries(messages);
    const delta = this.#delta(live, messages, changelog, request, kind);
    const snapshot = await this.#writeMetadata(latest, delta, changelog, request, identity, kind);
    const id = Number(snapshot.id);
    try {
      await this.#o.store.putIfAbsent(this.#snapshots.snapshotKey(id), new TextEncoder().encode(encodeSnapshot(snapshot)));
    } catch (error) {
      // The response may be lost although our write landed (S3 retries): look before deciding.
      const there = await this.#snapshots.tryGetSnapshot(id).catch(() => null);
      if (there !== null && hasIdentity(there, identity)) {
        await this.#checkSameFiles(there, messages, identity);
        await this.#snapshots.commitLatestHint(id);
        return { done: { snapshotId: id, alreadyCommitted: false, attempts: attempt } };
      }
      if (isTributaryError(error) && (error.code === 'OBJECT_ALREADY_EXISTS' || error.retryable)) {
        return { retry: error, builtOn: id - 1, messages };
      }
      throw error;
    }
    await this.#snapshots.commitLatestHint(id);
    return { done: { snapshotId: id, alreadyCommitted: false, attempts: attempt } };
  }

  /** The snapshots after `base` up to `latest`, oldest first; one that is gone throws `gone(id, error)`. */
  async *#snapshotsAfter(base: number, latest: Snapshot, gone: (id: number, error: unknown) => Error): AsyncIterable<Snapshot> {
    for (let id = base + 1; id <= Number(latest.id); id++) {
      if (id === Number(latest.id)) {
        yield latest;
        continue;
      }
      try {
        yield await this.#snapshots.snapshot(id);
      } catch (error) {
        if (isTributaryError(error) && error.code === 'SNAPSHOT_NOT_FOUND') throw gone(id, error);
        throw error;
      }
    }
  }

  /**
   * No snapshot after the base carries `request.exclusive` (any commit kind). A snapshot after the
   * base that is gone cannot be checked, and refuses the commit too.
   * @throws COMMIT_BASE_SUPERSEDED
   */
  async #checkExclusive(latest: Snapshot | null, request: CommitRequest): Promise<void> {
    const exclusive = request.exclusive;
    if (exclusive === undefined || latest === null) return;
    const base = request.baseSnapshotId ?? 0;
    const superseded = (message: string, context: Record<string, string | number>, cause?: unknown) =>
      errorFrom(tableErrors, 'COMMIT_BASE_SUPERSEDED', message, { table: this.#o.tablePath, baseSnapshotId: base, property: exclusive.key, ...context }, cause === undefined ? undefined : { cause });
    const gone = (id: number, error: unknown) =>
      superseded(`snapshot ${id}, committed after the base snapshot ${base}, is gone: whether it carries ${exclusive.key} cannot be checked`, { snapshotId: id }, error);
    for await (const snapshot of this.#snapshotsAfter(base, latest, gone)) {
      const id = Number(snapshot.id);
      if (snapshot.properties?.get(exclusive.key) === exclusive.value) {
        throw superseded(
          `snapshot ${id} (${snapshot.commitKind} by ${snapshot.commitUser}), committed after the base snapshot ${base}, has the same ${exclusive.key}: this commit was planned without it`,
          { snapshotId: id },
        );
      }
    }
  }

  /**
   * A changelog's before-images were read in the base snapshot (`request.baseSnapshotId`; none: an
   * empty table): every APPEND or OVERWRITE snapshot since then must have left the changelog's
   * buckets (and `request.baseBuckets`) alone, else the changelog would retract rows that are no
   * longer stored (or the load's "no change" and deletes would be computed from rows that are not).
   * @throws COMMIT_CHANGELOG_STALE
   */
  async #checkChangelogBase(latest: Snapshot | null, messages: readonly CommitMessage[], request: CommitRequest): Promise<void> {
    const buckets = changelogBuckets(messages);
    for (const b of request.baseBuckets ?? []) buckets.add(bucketKey(b.partition, b.bucket));
    if (buckets.size === 0 || latest === null) return;
    const base = request.baseSnapshotId ?? 0;
    const stale = (message: string, context: Record<string, string | number>, cause?: unknown) =>
      errorFrom(tableErrors, 'COMMIT_CHANGELOG_STALE', message, { table: this.#o.tablePath, baseSnapshotId: base, ...context }, cause === undefined ? undefined : { cause });
    const gone = (id: number, error: unknown) => stale(`snapshot ${id}, committed after the load's base snapshot ${base}, is gone: the load cannot be checked`, { snapshotId: id }, error);
    for await (const snapshot of this.#snapshotsAfter(base, latest, gone)) {
      const id = Number(snapshot.id);
      if (snapshot.commitKind !== 'APPEND' && snapshot.commitKind !== 'OVERWRITE') continue;
      const delta: ManifestEntry[] = [];
      for (const meta of await this.#scan.readManifestList(snapshot.deltaManifestList)) delta.push(...(await this.#scan.readManifest(meta.fileName)));
      const hit = staleChangelogEntry(buckets, delta);
      if (hit !== undefined) {
        throw stale(
          `snapshot ${id} (${snapshot.commitKind} by ${snapshot.commitUser}) changed bucket ${hit.bucket} after the load's base snapshot ${base}: what the load computed from that bucket's stored rows (before-images, deletes) is stale`,
          { snapshotId: id, bucket: hit.bucket },
        );
      }
    }
  }

  /**
   * The live files of the partitions the commit touches (manifests pruned by their partition
   * statistics), and of every partition sharing a directory with one (NULL, '' and blank strings share one).
   */
  async #live(
    latest: Snapshot | null,
    messages: readonly CommitMessage[],
    request: CommitRequest,
    kind: CommitKind,
  ): Promise<ManifestEntry[]> {
    if (latest === null) return [];
    const overwriteAll = kind === 'OVERWRITE' && request.overwritePartitions === undefined;
    const partitionRows = new Map<string, Uint8Array>();
    for (const row of [...messages.map((m) => m.partition), ...(request.overwritePartitions ?? [])]) partitionRows.set(partitionKey(row), row);
    return this.#scan.plan(latest, overwriteAll ? {} : { partitionDirectories: { rows: [...partitionRows.values()], paths: this.#paths } });
  }

  /**
   * The messages this attempt commits: for a primary-key APPEND, the buckets where live rows reach
   * our sequence numbers are rebased from the originals (bucketsToRebase against the messages of
   * the last attempt, so a bucket already above the live rows is not rewritten again).
   * OVERWRITE replaces the partitions: nothing live remains to lose to.
   */
  async #rebased(
    original: readonly CommitMessage[],
    current: readonly CommitMessage[],
    live: readonly ManifestEntry[],
    kind: CommitKind,
  ): Promise<readonly CommitMessage[]> {
    const rebaser = this.#o.rebaser;
    if (rebaser === undefined || kind !== 'APPEND') return current;
    const starts = bucketsToRebase(live, current);
    return starts.size === 0 ? current : rebaser.rebase(original, current, starts);
  }

  /**
   * The delta entries, checked against the live files of the partitions they touch. Java's
   * commit() skips this for a pure append; we do not, because a file added twice (the same messages
   * committed under a second identity) would make the table unreadable for every engine
   * (FileEntry.mergeEntries refuses it), and two files at one path mean one overwrote the other.
   */
  #delta(
    live: readonly ManifestEntry[],
    messages: readonly CommitMessage[],
    changelog: readonly ManifestEntry[],
    request: CommitRequest,
    kind: CommitKind,
  ): ManifestEntry[] {
    const written: ManifestEntry[] = deltaEntries(messages);
    const delta = kind === 'OVERWRITE' ? [...overwriteDeletes(live, request.overwritePartitions), ...written] : written;
    checkCommitConflicts(live, delta, kind, entryIdentifier);
    const added = [...delta.filter((e) => e.kind === 'ADD'), ...changelog];
    const locate = (e: ManifestEntry) => e.file.externalPath ?? this.#paths.file(e.partition, e.bucket, e.file.fileName);
    checkDistinctPaths(live, added, delta.filter((e) => e.kind === 'DELETE'), locate);
    return delta;
  }

  async #writeMetadata(
    latest: Snapshot | null,
    delta: readonly ManifestEntry[],
    changelog: readonly ManifestEntry[],
    request: CommitRequest,
    identity: CommitIdentity,
    kind: CommitKind,
  ): Promise<Snapshot> {
    const uuid = randomUUID();
    let counter = 0;
    const ctx: ManifestWriterContext = {
      store: this.#o.store,
      tablePath: this.#o.tablePath,
      partitionTypes: this.#o.partitionFields.map((f) => f.type),
      schemaId: this.#o.schemaId,
      newName: (prefix) => `${prefix}${uuid}-${counter++}`,
    };
    const previous = latest === null ? [] : await this.#scan.dataManifests(latest);
    // The three lists are independent: written side by side (the snapshot, written after, names them all).
    const [base, deltaList, changelogList] = await Promise.all([
      this.#mergeBase(ctx, previous).then((metas) => writeManifestList(ctx, metas)),
      writeManifests(ctx, delta).then((metas) => writeManifestList(ctx, metas)),
      changelog.length === 0 ? null : writeManifests(ctx, changelog).then((metas) => writeManifestList(ctx, metas)),
    ]);
    return nextSnapshot(latest, {
      uuid: randomUUID(),
      timeMillis: (this.#o.clock ?? Date.now)(),
      schemaId: this.#o.schemaId,
      identity,
      kind,
      base,
      delta: deltaList,
      changelog: changelogList,
      deltaEntries: delta,
      changelogEntries: changelog,
      ...(request.watermark !== undefined ? { watermark: request.watermark } : {}),
      ...(request.properties !== undefined ? { properties: request.properties } : {}),
    });
  }

  /** Base list = previous base + previous delta, minor-compacted (ManifestFileMerger). */
  async #mergeBase(ctx: ManifestWriterContext, previous: readonly ManifestFileMeta[]): Promise<ManifestFileMeta[]> {
    const result: ManifestFileMeta[] = [];
    for (const step of planMinorCompaction(previous, (m) => Number(m.fileSize), this.#o.manifestMerge)) {
      if ('keep' in step) {
        result.push(step.keep);
        continue;
      }
      const entries: ManifestEntry[] = [];
      for (const meta of step.merge) entries.push(...(await this.#scan.readManifest(meta.fileName)));
      result.push(...(await writeManifests(ctx, mergeEntries(entries))));
    }
    return result;
  }

  #backoff(attempt: number): number {
    const exp = Math.min(this.#o.maxRetryWaitMs, this.#o.minRetryWaitMs * 2 ** (attempt - 1));
    return exp / 2 + Math.random() * (exp / 2);
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
