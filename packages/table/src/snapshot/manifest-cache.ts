/**
 * A process's decoded manifest files and manifest lists, kept for the next scan that reads them.
 *
 * Paimon writes every manifest file and manifest list once under a name of its own (a UUID and a
 * counter) and never rewrites it, so a decoded file stays right for as long as it is kept: there is
 * nothing to invalidate. A worker's bucket jobs each scan the same pinned snapshot's manifests for
 * their own bucket, and the next load's snapshot keeps most of the previous one's; with a cache a
 * worker decodes each file once instead of once per job.
 *
 * Kept by store and key (a store is one warehouse with its credentials; the same key in another
 * store is another file), least recently used dropped once the entries held, over every store,
 * pass `maxEntries` (a manifest entry is about 2 KB decoded, more with many columns' statistics:
 * the default 10,000 is some 20 MB). Concurrent reads of one file share its decode; a failed read
 * is not kept. What a reader gets is shared: read-only.
 */
import { LRUCache } from 'lru-cache';
import type { ObjectStore } from '../io/object-store.ts';
import { decodeManifestFile, type ManifestEntry } from '../spec/manifest-entry.ts';
import { decodeManifestList, type ManifestFileMeta } from '../spec/manifest-file-meta.ts';

export interface ManifestCacheOptions {
  /** The most manifest entries (and manifest list items) kept, over every store; default 10,000. */
  readonly maxEntries?: number;
}

type Decoded = readonly ManifestEntry[] | readonly ManifestFileMeta[];

export const DEFAULT_MANIFEST_CACHE_ENTRIES = 10_000;

export class ManifestCache {
  readonly #kept: LRUCache<string, Decoded>;
  readonly #reading = new Map<string, Promise<Decoded>>();
  /** A number per store, so that one bound holds for every warehouse the process writes. */
  readonly #storeIds = new WeakMap<ObjectStore, number>();
  #nextStoreId = 0;
  #hits = 0;
  #misses = 0;

  constructor(options: ManifestCacheOptions = {}) {
    const max = options.maxEntries ?? DEFAULT_MANIFEST_CACHE_ENTRIES;
    if (!Number.isSafeInteger(max) || max < 1) throw new RangeError(`maxEntries must be a positive integer, not ${max}`);
    this.#kept = new LRUCache<string, Decoded>({ maxSize: max, sizeCalculation: (value) => Math.max(1, value.length) });
  }

  /** The manifest file at `key` in `store`, decoded (read and decoded only when not kept). */
  manifest(store: ObjectStore, key: string): Promise<readonly ManifestEntry[]> {
    return this.#get(store, `m:${key}`, async () => decodeManifestFile(await store.get(key))) as Promise<readonly ManifestEntry[]>;
  }

  /** The manifest list at `key` in `store`, decoded (read and decoded only when not kept). */
  manifestList(store: ObjectStore, key: string): Promise<readonly ManifestFileMeta[]> {
    return this.#get(store, `l:${key}`, async () => decodeManifestList(await store.get(key))) as Promise<readonly ManifestFileMeta[]>;
  }

  /** Reads answered from the cache and reads that went to the store, since the cache was made. */
  stats(): { readonly hits: number; readonly misses: number } {
    return { hits: this.#hits, misses: this.#misses };
  }

  async #get(store: ObjectStore, key: string, load: () => Promise<Decoded>): Promise<Decoded> {
    let id = this.#storeIds.get(store);
    if (id === undefined) this.#storeIds.set(store, (id = this.#nextStoreId++));
    const cacheKey = `${id}\u0000${key}`;
    const found = this.#kept.get(cacheKey);
    if (found !== undefined) {
      this.#hits++;
      return found;
    }
    const pending = this.#reading.get(cacheKey);
    if (pending !== undefined) {
      this.#hits++;
      return pending;
    }
    this.#misses++;
    const read = load().then((value) => Object.freeze(value));
    this.#reading.set(cacheKey, read);
    try {
      const value = await read;
      // A file larger than the whole cache is returned, not kept (lru-cache refuses it).
      this.#kept.set(cacheKey, value);
      return value;
    } finally {
      this.#reading.delete(cacheKey);
    }
  }
}
