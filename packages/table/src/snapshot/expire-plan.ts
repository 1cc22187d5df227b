/**
 * What a snapshot expiration deletes, decided without I/O. Mirrors
 * org.apache.paimon.operation.ExpireSnapshotsImpl (expire, expireUntil) and
 * SnapshotDeletion / FileDeletionBase (getDataFileToDelete).
 *
 *   which snapshots: [earliest, endExclusive)   (expireBounds, then the time rule by the caller)
 *     endExclusive ≤ latest − num-retained.min + 1, ≤ earliest + expire.limit,
 *                  ≤ the oldest snapshot a reader pinned (Paimon's consumers; a live sync's base)
 *     snapshots below latest − num-retained.max + 1 go whatever their age; between that and
 *     endExclusive, expiry stops at the first snapshot younger than snapshot.time-retained.
 *   which data files: those a DELETE entry of the delta of a snapshot in (earliest, endExclusive]
 *     removed (and no later ADD of that delta put back), unless the file is still live in a snapshot
 *     that stays (the first retained one, a tag, a pinned one): deletedByDeltas − protected.
 *   which manifests: those of the expired snapshots that no retained snapshot or tag names.
 */

/** The retention options (Paimon's names and defaults). */
export interface RetentionOptions {
  /** `snapshot.num-retained.min` (default 10): never fewer snapshots than this. */
  readonly retainMin: number;
  /** `snapshot.num-retained.max` (default Integer.MAX_VALUE): never more than this. */
  readonly retainMax: number;
  /** `snapshot.time-retained` in ms (default 1 h): snapshots younger than this stay (within min and max). */
  readonly timeRetainedMs: number;
  /** `snapshot.expire.limit` (default 50): at most this many snapshots expire in one run. */
  readonly maxDeletes: number;
}

export const DEFAULT_RETENTION: RetentionOptions = {
  retainMin: 10,
  retainMax: 2_147_483_647,
  timeRetainedMs: 3_600_000,
  maxDeletes: 50,
};

export interface ExpireBoundsInput {
  readonly earliest: number;
  readonly latest: number;
  readonly retention: RetentionOptions;
  /** The oldest snapshot someone still reads from (a consumer's next snapshot, a live sync's base); undefined for none. */
  readonly protectFrom?: number;
}

/**
 * ExpireSnapshotsImpl.expire's bounds: ids below `min` expire whatever their age; ids in
 * [min, maxExclusive) expire while they are older than the time limit. `maxExclusive ≤ min` or
 * `maxExclusive ≤ earliest`: nothing may expire.
 */
export function expireBounds(input: ExpireBoundsInput): { readonly min: number; readonly maxExclusive: number } {
  const { earliest, latest, retention } = input;
  const retainMin = Math.max(1, retention.retainMin);
  const retainMax = Math.max(retainMin, retention.retainMax);
  const min = Math.max(latest - retainMax + 1, earliest);
  let maxExclusive = latest - retainMin + 1;
  if (input.protectFrom !== undefined) maxExclusive = Math.min(maxExclusive, input.protectFrom);
  maxExclusive = Math.min(maxExclusive, earliest + Math.max(1, retention.maxDeletes));
  return { min, maxExclusive };
}

/**
 * The first id that stays: walks [min, maxExclusive) and stops at the first snapshot not older than
 * `olderThanMillis` (a missing one is skipped, as Java does); `timeOf` gives a snapshot's time.
 */
export function endOfExpiry(bounds: { readonly min: number; readonly maxExclusive: number }, olderThanMillis: number, timeOf: (id: number) => number | undefined): number {
  for (let id = bounds.min; id < bounds.maxExclusive; id++) {
    const time = timeOf(id);
    if (time !== undefined && olderThanMillis <= time) return id;
  }
  return bounds.maxExclusive;
}

/** One entry of a delta manifest as the deletion sees it: ADD or DELETE of a file at a path. */
export interface DeltaFile {
  readonly kind: 'ADD' | 'DELETE';
  /** The file's key (and its extra files' keys) in the store. */
  readonly keys: readonly string[];
}

/**
 * FileDeletionBase.getDataFileToDelete over the deltas of the expired range, in commit order: a
 * DELETE marks its file, a later ADD of the same path (Paimon's level upgrade) unmarks it. Returns
 * the marked keys that `isProtected` does not hold.
 */
export function dataFilesToDelete(deltas: Iterable<DeltaFile>, isProtected: (key: string) => boolean): string[] {
  const marked = new Map<string, readonly string[]>();
  for (const entry of deltas) {
    const [key] = entry.keys;
    if (key === undefined) continue;
    if (entry.kind === 'ADD') marked.delete(key);
    else marked.set(key, entry.keys);
  }
  const result: string[] = [];
  for (const keys of marked.values()) for (const key of keys) if (!isProtected(key)) result.push(key);
  return result;
}

/** The manifest files (lists and manifests) of the expired snapshots that no kept snapshot names. */
export function manifestsToDelete(expired: Iterable<string>, kept: ReadonlySet<string>): string[] {
  const result = new Set<string>();
  for (const name of expired) if (!kept.has(name)) result.add(name);
  return [...result];
}
