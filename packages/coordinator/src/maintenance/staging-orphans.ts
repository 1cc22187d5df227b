/**
 * What syncs and compactions stage under `.tributary/`, outside their table, and when it becomes an
 * orphan. Each kind of staging has a root with one directory per owner (a sync, a compaction):
 *
 *   .tributary/syncs/<syncId>/              shard and bucket blobs, spilled runs; the sync's record
 *                                           (outcome.json, positions.json, rejects) stays
 *   .tributary/compactions/<compactionId>/  one blob per job attempt
 *
 * A directory's objects are orphans when its owner belongs to the table, has ended (a sync
 * COMMITTED or ABORTED, or forgotten by Redis after it wrote its outcome; a compaction COMMITTED,
 * FAILED or CONFLICT) and they are older than the guard age. A live owner's directory is never
 * touched, and a directory whose owner is not known here (another deployment's, or a record that
 * is gone) is left alone. Nothing staged is referenced by a snapshot: a committed owner's files in
 * the table are judged by the table's own orphan search, never here.
 */
import type { ObjectStore, OrphanFile, TableRef } from '@tributary/table';

/** The owner of a staging directory as its record says. */
export interface StagingOwner {
  readonly table: TableRef;
  /** Committed or aborted: nothing will read its staging again. */
  readonly ended: boolean;
}

export interface StagingKind {
  /** `.tributary/syncs/`: one directory per owner id below it. */
  readonly root: string;
  /** Directory `id` (the protocol's staging prefix of a sync or compaction). */
  prefix(id: string): string;
  /** The owner of directory `id`, read now; undefined when not known (the directory is left alone). */
  owner(id: string): Promise<StagingOwner | undefined>;
  /** Objects that outlive their ended owner (its record for its user). */
  keeps(key: string): boolean;
}

/**
 * Staged objects of the table's ended owners last modified at or before `cutoff`. `live`: the ids
 * read as live before the table's snapshots were read; an owner is asked again here, so one that
 * started since is not ended either.
 */
export async function stagingOrphans(store: ObjectStore, kinds: readonly StagingKind[], ref: TableRef, live: ReadonlySet<string>, cutoff: number): Promise<OrphanFile[]> {
  const orphans: OrphanFile[] = [];
  for (const kind of kinds) {
    for await (const id of store.listDirectories(kind.root)) {
      if (live.has(id)) continue;
      const owner = await kind.owner(id);
      if (owner === undefined || !owner.ended || owner.table.database !== ref.database || owner.table.table !== ref.table) continue;
      for await (const meta of store.list(kind.prefix(id))) {
        if (kind.keeps(meta.key) || meta.lastModified.getTime() > cutoff) continue;
        orphans.push({ key: meta.key, size: meta.size, lastModified: meta.lastModified.toISOString() });
      }
    }
  }
  return orphans;
}
