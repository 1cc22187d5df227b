/**
 * Orphan files of a table: files in its data and manifest directories that no snapshot or tag
 * reaches, as org.apache.paimon.operation.OrphanFilesClean / LocalOrphanFilesClean find them.
 *
 *   1. used = every manifest list, manifest and index manifest named by a snapshot or tag, and the
 *      file (and extra files) of every entry, ADD or DELETE, of every such manifest
 *   2. list the table; a file of `manifest/` or of a `bucket-N/` directory that is not used, older
 *      than the guard age and not protected by the caller (a live writer's files) is an orphan
 *
 * The snapshots are read before the listing: a file a commit references after step 1 is either new
 * (younger than the guard age) or written by a live writer the caller protects. `snapshot/`,
 * `schema/`, `tag/`, `consumer/`, `index/`, `statistics/`, `branch/` and `changelog/` are never
 * touched, nor anything outside a bucket directory.
 */
import { errorFrom, isTributaryError } from '@tributary/errors';
import { tableErrors } from '../errors.ts';
import type { Snapshot } from '../spec/snapshot.ts';
import { mapInOrder } from './file-store-scan.ts';
import type { SnapshotManager } from './snapshot-manager.ts';
import { MAINTENANCE_READS, type TableFiles } from './table-files.ts';

export interface OrphanScanRequest {
  /** Only files last modified at least this long before `now` are orphans (Paimon's older_than; default 1 day). */
  readonly olderThanMs: number;
  readonly now: number;
  /** Files the caller knows a live writer still needs (store keys); never orphans. */
  readonly isProtected?: (key: string) => boolean;
}

export interface OrphanFile {
  /** The store key. */
  readonly key: string;
  readonly size: number;
  readonly lastModified: string;
}

export interface OrphanScan {
  readonly files: readonly OrphanFile[];
  readonly bytes: number;
}

/** Paimon's own directories and those of features maintenance leaves alone. */
const UNTOUCHED = new Set(['snapshot', 'schema', 'tag', 'consumer', 'index', 'statistics', 'branch', 'changelog', 'service']);
const IN_BUCKET = /(?:^|\/)bucket-\d+\/[^/]+$/;

export const DEFAULT_ORPHAN_AGE_MS = 86_400_000;

export async function findOrphanFiles(snapshots: SnapshotManager, files: TableFiles, request: OrphanScanRequest): Promise<OrphanScan> {
  const used = await usedFiles(snapshots, files);
  const cutoff = request.now - request.olderThanMs;
  const prefix = `${snapshots.tablePath}/`;
  const orphans: OrphanFile[] = [];
  for await (const meta of files.store.list(prefix)) {
    const relative = meta.key.slice(prefix.length);
    const top = relative.slice(0, relative.indexOf('/'));
    if (UNTOUCHED.has(top)) continue;
    const isManifest = top === 'manifest';
    if (!isManifest && !IN_BUCKET.test(relative)) continue;
    if (isManifest ? used.names.has(relative.slice('manifest/'.length)) : used.keys.has(meta.key)) continue;
    if (meta.lastModified.getTime() > cutoff || request.isProtected?.(meta.key) === true) continue;
    orphans.push({ key: meta.key, size: meta.size, lastModified: meta.lastModified.toISOString() });
  }
  return { files: orphans, bytes: orphans.reduce((sum, f) => sum + f.size, 0) };
}

/** The metadata names and data file keys that the snapshots and tags reach. */
async function usedFiles(snapshots: SnapshotManager, files: TableFiles): Promise<{ names: Set<string>; keys: Set<string> }> {
  const names = new Set<string>();
  const manifests = new Set<string>();
  const ids = await snapshots.listIds();
  const read = await mapInOrder(ids, MAINTENANCE_READS, (id) => snapshots.tryGetSnapshot(id));
  const tags = await files.tags();
  const all = [...read.filter((s) => s !== null).map((s) => ({ snapshot: s, isTag: false })), ...tags.map((s) => ({ snapshot: s, isTag: true }))];
  await mapInOrder(all, MAINTENANCE_READS, async ({ snapshot, isTag }) => {
    const meta = await files.metadata(snapshot).catch((error: unknown) => missing(error, snapshots, snapshot, isTag));
    if (meta === undefined) return;
    for (const name of meta.lists) names.add(name);
    if (meta.indexManifest !== null) names.add(meta.indexManifest);
    for (const name of [...meta.dataManifests, ...meta.changelogManifests]) manifests.add(name);
  });
  for (const name of manifests) names.add(name);
  const keys = new Set<string>();
  await mapInOrder([...manifests], MAINTENANCE_READS, async (name) => {
    const entries = await files.entries(name).catch((error: unknown) => {
      if (!(isTributaryError(error) && error.code === 'OBJECT_NOT_FOUND')) throw error;
      throw changed(snapshots, `manifest ${name} of ${snapshots.tablePath} went away during the scan`, {});
    });
    for (const entry of entries) for (const key of files.fileKeys(entry)) keys.add(key);
  });
  return { names, keys };
}

/**
 * A snapshot's metadata is gone: fine if the snapshot went too (an expiration removed both; never
 * for a tag);
 * otherwise the used set cannot be known and nothing may be deleted.
 */
async function missing(error: unknown, snapshots: SnapshotManager, snapshot: Snapshot, isTag: boolean): Promise<undefined> {
  if (!(isTributaryError(error) && error.code === 'OBJECT_NOT_FOUND')) throw error;
  if (!isTag && !(await snapshots.exists(Number(snapshot.id)))) return undefined;
  throw changed(snapshots, `snapshot ${snapshot.id} of ${snapshots.tablePath} names a manifest that is gone`, { snapshotId: Number(snapshot.id) });
}

function changed(snapshots: SnapshotManager, message: string, context: Record<string, number>): Error {
  return errorFrom(tableErrors, 'TABLE_FILES_CHANGED', message, { table: snapshots.tablePath, ...context });
}
