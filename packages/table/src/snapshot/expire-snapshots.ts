/**
 * Snapshot expiration: the I/O around expire-plan.ts, in Paimon's order
 * (ExpireSnapshotsImpl.expireUntil):
 *
 *   list snapshots ─► bounds (retention, expire.limit, consumers, the caller's pinned snapshot)
 *   ─► read the candidates' times ─► end (the first snapshot that stays)
 *   ─► data files removed by the deltas of (begin, end], minus the files live in snapshot `end` and in every tag
 *   ─► changelog files of [begin, end), minus those of tags
 *   ─► manifests and manifest lists of [begin, end) that no kept snapshot or tag names
 *   ─► delete: data files, changelog files, manifests, then the snapshot files oldest first, then EARLIEST
 *
 * Safe to run again after a crash at any step: what is already gone is skipped, and the snapshot
 * files go last and in ascending order, so what remains is always a suffix of the history whose
 * files are all present. Index files and statistics are never deleted here.
 */
import { errorFrom, isTributaryError } from '@tributary/errors';
import { tableErrors } from '../errors.ts';
import type { ObjectStore } from '../io/object-store.ts';
import type { Snapshot } from '../spec/snapshot.ts';
import { mapInOrder } from './file-store-scan.ts';
import { dataFilesToDelete, endOfExpiry, expireBounds, manifestsToDelete, type DeltaFile, type RetentionOptions } from './expire-plan.ts';
import type { SnapshotManager } from './snapshot-manager.ts';
import { MAINTENANCE_READS, type TableFiles } from './table-files.ts';

export interface ExpireRequest {
  readonly retention: RetentionOptions;
  /** The current time in ms (snapshot.time-retained counts back from it). */
  readonly now: number;
  /** The oldest snapshot id a live reader or writer still needs (a sync's pinned base); none expires from it on. */
  readonly protectFrom?: number;
}

export interface ExpireResult {
  /** The expired snapshot ids, ascending (empty when nothing was due). */
  readonly expired: readonly number[];
  /** The earliest snapshot left (null for a table without snapshots). */
  readonly earliestSnapshotId: number | null;
  readonly deletedDataFiles: number;
  readonly deletedChangelogFiles: number;
  readonly deletedManifests: number;
}

const NOTHING = { expired: [], deletedDataFiles: 0, deletedChangelogFiles: 0, deletedManifests: 0 } as const;

export async function expireSnapshots(snapshots: SnapshotManager, files: TableFiles, request: ExpireRequest): Promise<ExpireResult> {
  try {
    return await expire(snapshots, files, request);
  } catch (error) {
    // Something listed a moment ago is gone: another expiration is deleting the same snapshots.
    if (isTributaryError(error) && (error.code === 'OBJECT_NOT_FOUND' || error.code === 'SNAPSHOT_NOT_FOUND')) {
      throw errorFrom(tableErrors, 'TABLE_FILES_CHANGED', `expiring snapshots of ${snapshots.tablePath}: a file went away meanwhile (another expiration?): ${error.message}`, { table: snapshots.tablePath }, { cause: error });
    }
    throw error;
  }
}

async function expire(snapshots: SnapshotManager, files: TableFiles, request: ExpireRequest): Promise<ExpireResult> {
  const ids = await snapshots.listIds();
  const earliest = ids[0];
  const latest = ids.at(-1);
  if (earliest === undefined || latest === undefined) return { ...NOTHING, earliestSnapshotId: null };
  const consumer = await files.minConsumerSnapshot();
  const pins = [request.protectFrom, consumer].filter((p): p is number => p !== undefined);
  const bounds = expireBounds({ earliest, latest, retention: request.retention, ...(pins.length > 0 ? { protectFrom: Math.min(...pins) } : {}) });
  const olderThan = request.now - request.retention.timeRetainedMs;
  const candidates = ids.filter((id) => id >= bounds.min && id < bounds.maxExclusive);
  // Times are read a few snapshots at a time, oldest first, up to the first young one (the common
  // case after a commit: nothing is due, and one or two reads tell).
  const times = new Map<number, number>();
  for (let i = 0; i < candidates.length; i += MAINTENANCE_READS) {
    const read = await mapInOrder(candidates.slice(i, i + MAINTENANCE_READS), MAINTENANCE_READS, (id) => snapshots.tryGetSnapshot(id));
    for (const s of read) if (s !== null) times.set(Number(s.id), Number(s.timeMillis));
    if (read.some((s) => s !== null && Number(s.timeMillis) >= olderThan)) break;
  }
  const end = endOfExpiry(bounds, olderThan, (id) => times.get(id));
  if (end <= earliest) return { ...NOTHING, earliestSnapshotId: earliest };
  return expireUntil(snapshots, files, new Set(ids), earliest, end);
}

async function expireUntil(snapshots: SnapshotManager, files: TableFiles, present: ReadonlySet<number>, earliest: number, end: number): Promise<ExpireResult> {
  // Only a suffix of the history is kept: a gap below `end` means everything under it is gone already.
  let begin = earliest;
  for (let id = end - 1; id >= earliest; id--) {
    if (!present.has(id)) {
      begin = id + 1;
      break;
    }
  }
  const first = await snapshots.tryGetSnapshot(end);
  if (first === null || begin >= end) return { ...NOTHING, earliestSnapshotId: earliest };
  const tags = await files.tags();
  const keptIds = [...present].filter((id) => id > end);
  const kept = [first, ...(await mapInOrder(keptIds, MAINTENANCE_READS, (id) => snapshots.tryGetSnapshot(id))).filter((s) => s !== null), ...tags];

  // What must stay: the live files of the first kept snapshot and of every tag, the tags' changelog.
  const protectedKeys = new Set<string>();
  for (const snapshot of [first, ...tags]) for (const key of await files.liveFileKeys(snapshot)) protectedKeys.add(key);
  for (const tag of tags) for (const key of await files.changelogFileKeys(tag)) protectedKeys.add(key);
  const keptNames = new Set<string>();
  for (const meta of await mapInOrder(kept, MAINTENANCE_READS, (s) => files.metadata(s))) {
    for (const name of [...meta.lists, ...meta.dataManifests, ...meta.changelogManifests]) keptNames.add(name);
    if (meta.indexManifest !== null) keptNames.add(meta.indexManifest);
  }

  const range = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => from + i);
  const expiring = await mapInOrder(range(begin, end), MAINTENANCE_READS, (id) => snapshots.snapshot(id));
  // The deltas of (begin, end]: each says which files left the table after the snapshot before it.
  const deltas: DeltaFile[] = [];
  for (const snapshot of [...expiring.slice(1), first]) {
    const meta = await files.metadata(snapshot);
    const entries = await mapInOrder(meta.deltaManifests, MAINTENANCE_READS, (m) => files.entries(m));
    for (const entry of entries.flat()) deltas.push({ kind: entry.kind, keys: files.fileKeys(entry) });
  }
  const dataKeys = dataFilesToDelete(deltas, (key) => protectedKeys.has(key));
  const changelogKeys: string[] = [];
  const expiredNames: string[] = [];
  for (const snapshot of expiring) {
    for (const key of await files.changelogFileKeys(snapshot)) if (!protectedKeys.has(key)) changelogKeys.push(key);
    const meta = await files.metadata(snapshot);
    expiredNames.push(...meta.dataManifests, ...meta.changelogManifests, ...meta.lists);
  }
  const manifests = manifestsToDelete(expiredNames, keptNames);

  const store: ObjectStore = files.store;
  await store.deleteMany(dataKeys);
  await store.deleteMany(changelogKeys);
  await store.deleteMany(manifests.map((name) => files.manifestKey(name)));
  for (const snapshot of expiring) await store.delete(snapshots.snapshotKey(Number(snapshot.id)));
  await snapshots.commitEarliestHint(end);
  return {
    expired: expiring.map((s: Snapshot) => Number(s.id)),
    earliestSnapshotId: end,
    deletedDataFiles: dataKeys.length,
    deletedChangelogFiles: changelogKeys.length,
    deletedManifests: manifests.length,
  };
}
