/**
 * What the snapshots, tags and consumers of a table reach on storage: the I/O that snapshot
 * expiration and orphan cleanup share.
 *
 *   snapshot or tag ─► manifest lists (base, delta, changelog) ─► manifests ─► data and changelog files
 *                   └► index manifest (kept as a name: index files are never deleted by maintenance)
 *
 * Tags are `tag/tag-<name>` (Paimon's TagManager: a snapshot's JSON plus tag fields, which the
 * snapshot decoder ignores); consumers are `consumer/consumer-<id>` (`{"nextSnapshot": N}`), the
 * oldest snapshot a streaming reader of Paimon still needs.
 */
import { errorFrom, isTributaryError } from '@tributary/errors';
import { tableErrors } from '../errors.ts';
import type { ObjectStore } from '../io/object-store.ts';
import { decodeManifestFile, type ManifestEntry } from '../spec/manifest-entry.ts';
import { decodeManifestList } from '../spec/manifest-file-meta.ts';
import type { DataFilePaths } from '../spec/partition-path.ts';
import { decodeSnapshot, type Snapshot } from '../spec/snapshot.ts';
import { mapInOrder } from './file-store-scan.ts';

/** Metadata files read at once. */
export const MAINTENANCE_READS = 8;

export interface TableFilesContext {
  readonly store: ObjectStore;
  /** `<db>.db/<table>` inside the store. */
  readonly tablePath: string;
  readonly paths: DataFilePaths;
}

/** The metadata files a snapshot names. */
export interface SnapshotMetadata {
  /** Manifest list file names (base, delta, changelog). */
  readonly lists: readonly string[];
  /** Manifest file names of the base and delta lists (the data). */
  readonly dataManifests: readonly string[];
  /** Manifest file names of the changelog list. */
  readonly changelogManifests: readonly string[];
  readonly deltaManifests: readonly string[];
  readonly indexManifest: string | null;
}

export class TableFiles {
  readonly #c: TableFilesContext;

  constructor(context: TableFilesContext) {
    this.#c = context;
  }

  get store(): ObjectStore {
    return this.#c.store;
  }

  manifestKey(name: string): string {
    return `${this.#c.tablePath}/manifest/${name}`;
  }

  async #list(name: string): Promise<string[]> {
    return decodeManifestList(await this.#c.store.get(this.manifestKey(name))).map((m) => m.fileName);
  }

  /** The metadata a snapshot names. @throws OBJECT_NOT_FOUND when a list is missing */
  async metadata(snapshot: Snapshot): Promise<SnapshotMetadata> {
    const base = await this.#list(snapshot.baseManifestList);
    const delta = await this.#list(snapshot.deltaManifestList);
    const changelog = snapshot.changelogManifestList === null ? [] : await this.#list(snapshot.changelogManifestList);
    const lists = [snapshot.baseManifestList, snapshot.deltaManifestList];
    if (snapshot.changelogManifestList !== null) lists.push(snapshot.changelogManifestList);
    return { lists, dataManifests: [...base, ...delta], deltaManifests: delta, changelogManifests: changelog, indexManifest: snapshot.indexManifest };
  }

  async entries(manifest: string): Promise<ManifestEntry[]> {
    return decodeManifestFile(await this.#c.store.get(this.manifestKey(manifest)));
  }

  /**
   * The store keys of an entry's file and its extra files; none for a file at an external path
   * (maintenance never deletes outside the table).
   */
  fileKeys(entry: ManifestEntry): string[] {
    if (entry.file.externalPath !== null) return [];
    const file = `${this.#c.tablePath}/${this.#c.paths.file(entry.partition, entry.bucket, entry.file.fileName)}`;
    const dir = file.slice(0, file.lastIndexOf('/') + 1);
    return [file, ...entry.file.extraFiles.map((extra) => `${dir}${extra}`)];
  }

  /** The keys of the live data files of a snapshot (base + delta merged as a scan does). */
  async liveFileKeys(snapshot: Snapshot): Promise<Set<string>> {
    const { dataManifests } = await this.metadata(snapshot);
    const read = await mapInOrder(dataManifests, MAINTENANCE_READS, (m) => this.entries(m));
    const live = new Map<string, string[]>();
    for (const entry of read.flat()) {
      const keys = this.fileKeys(entry);
      const [key] = keys;
      if (key === undefined) continue;
      if (entry.kind === 'ADD') live.set(key, keys);
      else live.delete(key);
    }
    return new Set([...live.values()].flat());
  }

  /** The keys of the changelog files a snapshot's changelog manifests add. */
  async changelogFileKeys(snapshot: Snapshot): Promise<string[]> {
    const { changelogManifests } = await this.metadata(snapshot);
    const read = await mapInOrder(changelogManifests, MAINTENANCE_READS, (m) => this.entries(m));
    return read.flat().flatMap((e) => (e.kind === 'ADD' ? this.fileKeys(e) : []));
  }

  /** Every tag of the table (TagManager.taggedSnapshots), as the snapshot it holds, by id. */
  async tags(): Promise<Snapshot[]> {
    const keys: string[] = [];
    for await (const meta of this.#c.store.list(`${this.#c.tablePath}/tag/tag-`)) keys.push(meta.key);
    const tags = await mapInOrder(keys, MAINTENANCE_READS, async (key) => decodeSnapshot(await this.#c.store.get(key)));
    return tags.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }

  /** The smallest `nextSnapshot` of Paimon's consumers (ConsumerManager.minNextSnapshot), if any. */
  async minConsumerSnapshot(): Promise<number | undefined> {
    let min: number | undefined;
    for await (const meta of this.#c.store.list(`${this.#c.tablePath}/consumer/consumer-`)) {
      const body = await getOrNull(this.#c.store, meta.key);
      if (body === null) continue;
      const next = (JSON.parse(new TextDecoder().decode(body)) as { nextSnapshot?: unknown }).nextSnapshot;
      if (typeof next !== 'number' || !Number.isSafeInteger(next)) {
        throw errorFrom(tableErrors, 'SNAPSHOT_INVALID', `consumer file ${meta.key} has no nextSnapshot`, { key: meta.key });
      }
      min = min === undefined ? next : Math.min(min, next);
    }
    return min;
  }
}

/** Reads an object, or null if it does not exist. */
export async function getOrNull(store: ObjectStore, key: string): Promise<Uint8Array | null> {
  try {
    return await store.get(key);
  } catch (error) {
    if (isTributaryError(error) && error.code === 'OBJECT_NOT_FOUND') return null;
    throw error;
  }
}
