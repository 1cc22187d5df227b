/**
 * Scan planning: snapshot → manifest lists → manifests → the live data files, mirroring
 * org.apache.paimon.operation.AbstractFileStoreScan (readManifests, readAndMergeFileEntries) and
 * ManifestsReader.
 *
 *   snapshot ─► base list + delta list ─► prune manifests by partition stats and bucket range
 *            ─► read entries in list order ─► filter partition / bucket ─► FileEntry.mergeEntries ─► ADDs
 *
 * Memory is the file metadata of the matching manifests (entries, not rows).
 */
import type { ObjectStore } from '../io/object-store.ts';
import { compareInternal } from '../format/column-stats.ts';
import { decodeBinaryRow, partitionKey } from '../spec/binary-row.ts';
import { mergeEntries } from '../spec/file-entry.ts';
import { decodeManifestFile, type ManifestEntry } from '../spec/manifest-entry.ts';
import { decodeManifestList, type ManifestFileMeta } from '../spec/manifest-file-meta.ts';
import type { ManifestCache } from './manifest-cache.ts';
import type { DataFilePaths } from '../spec/partition-path.ts';
import type { Snapshot } from '../spec/snapshot.ts';
import type { DataField, InternalValue } from '../spec/types.ts';
import { errorFrom } from '@tributary/errors';
import { tableErrors } from '../errors.ts';

/** Partition values by partition-key name. */
export type PartitionSpec = Readonly<Record<string, InternalValue>>;

export interface ScanFilter {
  /**
   * Equality on some partition keys (internal values: DATE as epoch days, BIGINT as bigint, ...),
   * or a predicate over all partition values. Equality also skips whole manifests by their
   * partition statistics.
   */
  readonly partition?: PartitionSpec | ((partition: PartitionSpec) => boolean);
  /** Only these buckets. */
  readonly buckets?: readonly number[];
  /** Only these partitions, as arity-prefixed partition rows (the committer's conflict scan). */
  readonly partitionRows?: readonly Uint8Array[];
  /**
   * Only the partitions stored in the directories of these rows, which holds more rows than
   * `partitionRows` where rows share a directory (NULL, '' and blank strings are all the default
   * name): the committer's path check. `paths` computes the directories.
   */
  readonly partitionDirectories?: { readonly rows: readonly Uint8Array[]; readonly paths: DataFilePaths };
}

/** Manifests read at once (Java's `scan.manifest.parallelism` defaults to the CPU count). */
const MANIFEST_READ_PARALLELISM = 8;

/** fn over every item with at most `limit` calls in flight; results in the items' order. */
export async function mapInOrder<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

export class FileStoreScan {
  readonly store: ObjectStore;
  readonly tablePath: string;
  readonly partitionFields: readonly DataField[];
  /** Where decoded manifests are kept between scans (a worker's); none: each scan reads its own. */
  readonly #cache: ManifestCache | undefined;

  constructor(store: ObjectStore, tablePath: string, partitionFields: readonly DataField[], cache?: ManifestCache) {
    this.store = store;
    this.tablePath = tablePath;
    this.partitionFields = partitionFields;
    this.#cache = cache;
  }

  manifestKey(fileName: string): string {
    return `${this.tablePath}/manifest/${fileName}`;
  }

  async readManifestList(fileName: string): Promise<readonly ManifestFileMeta[]> {
    const key = this.manifestKey(fileName);
    return this.#cache === undefined ? decodeManifestList(await this.store.get(key)) : this.#cache.manifestList(this.store, key);
  }

  async readManifest(fileName: string): Promise<readonly ManifestEntry[]> {
    const key = this.manifestKey(fileName);
    return this.#cache === undefined ? decodeManifestFile(await this.store.get(key)) : this.#cache.manifest(this.store, key);
  }

  /** The manifests of a snapshot's data (base, then delta), in the order their entries merge. */
  async dataManifests(snapshot: Snapshot): Promise<ManifestFileMeta[]> {
    const base = await this.readManifestList(snapshot.baseManifestList);
    const delta = await this.readManifestList(snapshot.deltaManifestList);
    return [...base, ...delta];
  }

  /** The live files of a snapshot that match the filter, as merged ADD entries. */
  async plan(snapshot: Snapshot | null, filter: ScanFilter = {}): Promise<ManifestEntry[]> {
    if (snapshot === null) return [];
    const matches = this.entryFilter(filter);
    const directories = this.directoryValues(filter.partitionDirectories);
    const manifests = (await this.dataManifests(snapshot)).filter((meta) => this.mayContain(meta, filter, directories));
    // Read in parallel (object stores answer each GET slowly), merge in manifest order.
    const read = await mapInOrder(manifests, MANIFEST_READ_PARALLELISM, async (meta) =>
      (await this.readManifest(meta.fileName)).filter(matches),
    );
    const entries = read.flat();
    // A DELETE left over after merging lost its ADD to the filters; it removes nothing we read.
    return mergeEntries(entries).filter((e) => e.kind === 'ADD');
  }

  /** Decodes a partition row into values by name. */
  partitionSpec(partition: Uint8Array): PartitionSpec {
    const values = decodeBinaryRow(partition, this.partitionFields.map((f) => f.type));
    return Object.fromEntries(this.partitionFields.map((f, i) => [f.name, values[i] ?? null]));
  }

  private entryFilter(filter: ScanFilter): (entry: ManifestEntry) => boolean {
    const buckets = filter.buckets === undefined ? undefined : new Set(filter.buckets);
    const rows = filter.partitionRows === undefined ? undefined : new Set(filter.partitionRows.map(partitionKey));
    const inDirectory = this.directoryFilter(filter.partitionDirectories);
    const predicate = this.partitionPredicate(filter.partition);
    const cache = new Map<string, boolean>();
    return (entry) => {
      // Postpone-bucket files (bucket -2) are invisible to batch reads until Java compacts them
      // into real buckets (ManifestsReader's onlyReadRealBuckets).
      if (entry.bucket < 0) return false;
      if (buckets !== undefined && !buckets.has(entry.bucket)) return false;
      if (inDirectory !== undefined && !inDirectory(entry.partition)) return false;
      if (rows === undefined && predicate === undefined) return true;
      const key = partitionKey(entry.partition);
      if (rows !== undefined && !rows.has(key)) return false;
      if (predicate === undefined) return true;
      let keep = cache.get(key);
      if (keep === undefined) cache.set(key, (keep = predicate(this.partitionSpec(entry.partition))));
      return keep;
    };
  }

  private directoryFilter(filter: ScanFilter['partitionDirectories']): ((partition: Uint8Array) => boolean) | undefined {
    if (filter === undefined) return undefined;
    const wanted = new Set(filter.rows.map((row) => filter.paths.directory(row)));
    return (partition) => wanted.has(filter.paths.directory(partition));
  }

  /**
   * The values a manifest must be able to hold to contain files of these directories: the rows
   * themselves and each directory parsed back, the default name as null (matches anything).
   * Undefined without the filter, or where a directory does not parse back (then no manifest is
   * skipped).
   */
  private directoryValues(filter: ScanFilter['partitionDirectories']): InternalValue[][] | undefined {
    if (filter === undefined) return undefined;
    const types = this.partitionFields.map((f) => f.type);
    try {
      return filter.rows.flatMap((row) => [
        decodeBinaryRow(row, types),
        filter.paths.parse(filter.paths.directory(row)),
      ]);
    } catch {
      return undefined;
    }
  }

  private partitionPredicate(filter: ScanFilter['partition']): ((p: PartitionSpec) => boolean) | undefined {
    if (filter === undefined || typeof filter === 'function') return filter;
    for (const name of Object.keys(filter)) {
      if (!this.partitionFields.some((f) => f.name === name)) {
        throw errorFrom(tableErrors, 'SCAN_FILTER_INVALID', `'${name}' is not a partition key of ${this.tablePath}`, { column: name });
      }
    }
    return (p) => Object.entries(filter).every(([name, want]) => valuesEqual(p[name] ?? null, want));
  }

  /** ManifestsReader: skip a manifest whose bucket range or partition stats exclude the filter. */
  private mayContain(meta: ManifestFileMeta, filter: ScanFilter, directories: readonly InternalValue[][] | undefined): boolean {
    if (meta.maxBucket !== null && meta.maxBucket < 0) return false;
    if (filter.buckets !== undefined && meta.minBucket !== null && meta.maxBucket !== null) {
      const { minBucket, maxBucket } = meta;
      if (!filter.buckets.some((b) => b >= minBucket && b <= maxBucket)) return false;
    }
    const spec = typeof filter.partition === 'object' ? filter.partition : undefined;
    if (spec === undefined && filter.partitionRows === undefined && filter.partitionDirectories === undefined) return true;
    const types = this.partitionFields.map((f) => f.type);
    let mins: InternalValue[];
    let maxs: InternalValue[];
    try {
      mins = decodeBinaryRow(meta.partitionStats.minValues, types);
      maxs = decodeBinaryRow(meta.partitionStats.maxValues, types);
    } catch {
      return true; // stats of another arity (e.g. an older partition spec): unknown, keep
    }
    const within = (want: (i: number) => InternalValue | undefined): boolean =>
      this.partitionFields.every((_field, i) => {
        const value = want(i);
        const min = mins[i] ?? null;
        const max = maxs[i] ?? null;
        if (value === undefined || value === null || min === null || max === null) return true;
        return compareInternal(value, min) >= 0 && compareInternal(value, max) <= 0;
      });
    if (spec !== undefined && !within((i) => spec[(this.partitionFields[i] as DataField).name])) return false;
    if (directories !== undefined && !directories.some((values) => within((i) => values[i]))) return false;
    if (filter.partitionRows === undefined) return true;
    return filter.partitionRows.some((row) => {
      const values = decodeBinaryRow(row, types);
      return within((i) => values[i]);
    });
  }
}

function valuesEqual(a: InternalValue, b: InternalValue): boolean {
  if (a === null || b === null) return a === b;
  return compareInternal(a, b) === 0;
}
