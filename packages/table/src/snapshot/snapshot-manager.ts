/**
 * Finds and reads the snapshots of one table: `snapshot/snapshot-N` and the `LATEST` hint.
 * Mirrors org.apache.paimon.utils.SnapshotManager (latestSnapshotId via HintFileUtils.findLatest,
 * snapshot, latestSnapshotOfUser) over an ObjectStore.
 *
 * The hint is only a hint: it is trusted when `snapshot-(hint+1)` does not exist, otherwise the
 * directory is listed and the highest id wins (HintFileUtils.findLatest). Both hints may be
 * missing or stale, because publishing `snapshot-N` (put-if-absent) and rewriting `LATEST` are two
 * separate writes.
 */
import { errorFrom, isTributaryError } from '@tributary/errors';
import { tableErrors } from '../errors.ts';
import type { ObjectStore } from '../io/object-store.ts';
import { decodeSnapshot, hasIdentity, type CommitIdentity, type Snapshot } from '../spec/snapshot.ts';

const SNAPSHOT_PREFIX = 'snapshot-';

export class SnapshotManager {
  readonly store: ObjectStore;
  /** The table's key prefix inside the store, without a trailing '/' (`db.db/orders`). */
  readonly tablePath: string;

  constructor(store: ObjectStore, tablePath: string) {
    this.store = store;
    this.tablePath = tablePath;
  }

  snapshotKey(id: number): string {
    return `${this.tablePath}/snapshot/${SNAPSHOT_PREFIX}${id}`;
  }

  get latestHintKey(): string {
    return `${this.tablePath}/snapshot/LATEST`;
  }

  get earliestHintKey(): string {
    return `${this.tablePath}/snapshot/EARLIEST`;
  }

  /** The snapshot with this id. @throws SNAPSHOT_NOT_FOUND */
  async snapshot(id: number): Promise<Snapshot> {
    const snapshot = await this.tryGetSnapshot(id);
    if (snapshot === null) {
      throw errorFrom(tableErrors, 'SNAPSHOT_NOT_FOUND', `snapshot ${id} of ${this.tablePath} does not exist (never written, or expired)`, {
        table: this.tablePath,
        snapshotId: id,
      });
    }
    return snapshot;
  }

  async tryGetSnapshot(id: number): Promise<Snapshot | null> {
    const bytes = await getOrNull(this.store, this.snapshotKey(id));
    return bytes === null ? null : decodeSnapshot(bytes);
  }

  async exists(id: number): Promise<boolean> {
    return (await this.store.stat(this.snapshotKey(id))) !== null;
  }

  /**
   * HintFileUtils.findLatest: the hint if nothing follows it, else the highest listed id; null if
   * none. Unlike Java we also check that the hinted snapshot exists (a hint left ahead by a rollback
   * or an expiry would otherwise name a missing snapshot).
   */
  async latestSnapshotId(): Promise<number | null> {
    const hint = await this.readHint();
    if (hint !== null && hint > 0 && !(await this.exists(hint + 1)) && (await this.exists(hint))) return hint;
    return this.maxListedId();
  }

  async latestSnapshot(): Promise<Snapshot | null> {
    const id = await this.latestSnapshotId();
    return id === null ? null : this.snapshot(id);
  }

  /** Rewrites LATEST after a successful commit; best effort, as RenamingSnapshotCommit.commitLatestHint. */
  async commitLatestHint(id: number): Promise<void> {
    try {
      await this.store.put(this.latestHintKey, new TextEncoder().encode(String(id)));
    } catch {
      // A stale or missing hint only costs readers a listing (see latestSnapshotId).
    }
  }

  /** Rewrites EARLIEST after an expiration; best effort, as SnapshotManager.commitEarliestHint. */
  async commitEarliestHint(id: number): Promise<void> {
    try {
      await this.store.put(this.earliestHintKey, new TextEncoder().encode(String(id)));
    } catch {
      // Readers list the directory when the hint is missing or stale.
    }
  }

  /**
   * The newest snapshot after `afterId` that carries this commit identity, or null. Walks back from
   * the latest snapshot and stops at `afterId`, or at the first missing (expired) snapshot, as
   * SnapshotManager.latestSnapshotOfUser does.
   */
  async findCommitted(identity: CommitIdentity, afterId = 0): Promise<Snapshot | null> {
    const latest = await this.latestSnapshotId();
    if (latest === null) return null;
    for (let id = latest; id > afterId; id--) {
      const snapshot = await this.tryGetSnapshot(id);
      if (snapshot === null) return null;
      if (hasIdentity(snapshot, identity)) return snapshot;
    }
    return null;
  }

  private async readHint(): Promise<number | null> {
    const bytes = await getOrNull(this.store, this.latestHintKey);
    if (bytes === null) return null;
    const text = new TextDecoder().decode(bytes).trim();
    return /^\d+$/.test(text) ? Number(text) : null;
  }

  /** The ids of the snapshots present (one listing), ascending. */
  async listIds(): Promise<number[]> {
    const ids: number[] = [];
    for await (const meta of this.store.list(`${this.tablePath}/snapshot/${SNAPSHOT_PREFIX}`)) {
      const suffix = meta.key.slice(meta.key.lastIndexOf('/') + 1 + SNAPSHOT_PREFIX.length);
      // Temporary files of other writers have unparsable suffixes (FileUtils.listVersionedFiles skips them).
      if (/^\d+$/.test(suffix)) ids.push(Number(suffix));
    }
    return ids.sort((a, b) => a - b);
  }

  private async maxListedId(): Promise<number | null> {
    return (await this.listIds()).at(-1) ?? null;
  }
}

/** Reads an object, or null if it does not exist. */
async function getOrNull(store: ObjectStore, key: string): Promise<Uint8Array | null> {
  try {
    return await store.get(key);
  } catch (error) {
    if (isTributaryError(error) && error.code === 'OBJECT_NOT_FOUND') return null;
    throw error;
  }
}
