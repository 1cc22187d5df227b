/**
 * Writes manifest files and manifest lists into `<table>/manifest/`, and derives each manifest's
 * ManifestFileMeta (partition statistics, bucket and level ranges) from its entries, as
 * org.apache.paimon.manifest.ManifestFile (RollingFileWriter + ManifestEntryWriter) and
 * ManifestList do. The metadata derivation is pure (`manifestFileMeta`).
 *
 * `_PARTITION_STATS` lets readers skip whole manifests, so they are exact: min, max and null count
 * of every partition field over the entries.
 */
import type { ObjectStore } from '../io/object-store.ts';
import { compareInternal } from '../format/column-stats.ts';
import { decodeBinaryRow, partitionKey, serializeBinaryRow } from '../spec/binary-row.ts';
import { encodeManifestFile, type ManifestEntry } from '../spec/manifest-entry.ts';
import { encodeManifestList, type ManifestFileMeta } from '../spec/manifest-file-meta.ts';
import { EMPTY_STATS, type SimpleStats } from '../spec/simple-stats.ts';
import type { DataType, InternalValue } from '../spec/types.ts';

/** Entries per manifest file; Java rolls at `manifest.target-file-size` (8 MB), about this many entries. */
const MANIFEST_ROLL_ENTRIES = 16_000;

/** ManifestFileMeta of a manifest holding `entries` (ManifestEntryWriter.result). */
export function manifestFileMeta(
  fileName: string,
  fileSize: number,
  entries: readonly ManifestEntry[],
  partitionTypes: readonly DataType[],
  latestSchemaId: number,
): ManifestFileMeta {
  // Counted as numbers (exact: a manifest holds far fewer than 2^53 entries), one BigInt each at the end.
  let added = 0;
  let deleted = 0;
  let schemaId: bigint | undefined;
  let minBucket: number | null = null;
  let maxBucket: number | null = null;
  let minLevel: number | null = null;
  let maxLevel: number | null = null;
  for (const e of entries) {
    if (e.kind === 'ADD') added++;
    else deleted++;
    if (schemaId === undefined || e.file.schemaId > schemaId) schemaId = e.file.schemaId;
    minBucket = minBucket === null ? e.bucket : Math.min(minBucket, e.bucket);
    maxBucket = maxBucket === null ? e.bucket : Math.max(maxBucket, e.bucket);
    minLevel = minLevel === null ? e.file.level : Math.min(minLevel, e.file.level);
    maxLevel = maxLevel === null ? e.file.level : Math.max(maxLevel, e.file.level);
  }
  return {
    fileName,
    fileSize: BigInt(fileSize),
    numAddedFiles: BigInt(added),
    numDeletedFiles: BigInt(deleted),
    partitionStats: partitionStats(entries, partitionTypes),
    schemaId: schemaId ?? BigInt(latestSchemaId),
    minBucket,
    maxBucket,
    minLevel,
    maxLevel,
    minRowId: null,
    maxRowId: null,
  };
}

/** Min, max and null count per partition field over the distinct partitions of the entries. */
export function partitionStats(entries: readonly Pick<ManifestEntry, 'partition'>[], types: readonly DataType[]): SimpleStats {
  if (types.length === 0) return EMPTY_STATS;
  const mins: InternalValue[] = types.map(() => null);
  const maxs: InternalValue[] = types.map(() => null);
  const nulls = types.map(() => 0n);
  const seen = new Map<string, InternalValue[]>();
  for (const e of entries) {
    const key = partitionKey(e.partition);
    let values = seen.get(key);
    if (values === undefined) seen.set(key, (values = decodeBinaryRow(e.partition, types)));
    values.forEach((v, i) => {
      if (v === null) {
        nulls[i] = (nulls[i] ?? 0n) + 1n;
        return;
      }
      const min = mins[i] ?? null;
      const max = maxs[i] ?? null;
      if (min === null || compareInternal(v, min) < 0) mins[i] = v;
      if (max === null || compareInternal(v, max) > 0) maxs[i] = v;
    });
  }
  return { minValues: serializeBinaryRow(mins, types), maxValues: serializeBinaryRow(maxs, types), nullCounts: nulls };
}

export interface ManifestWriterContext {
  readonly store: ObjectStore;
  readonly tablePath: string;
  readonly partitionTypes: readonly DataType[];
  readonly schemaId: number;
  /** Makes a fresh file name for the given prefix (`manifest-` or `manifest-list-`). */
  readonly newName: (prefix: 'manifest-' | 'manifest-list-') => string;
}

/**
 * Writes entries into manifest files (rolling), returning their metadata; nothing for no entries.
 * Each file is uploaded while the next is encoded; all are written when this resolves.
 */
export async function writeManifests(ctx: ManifestWriterContext, entries: readonly ManifestEntry[]): Promise<ManifestFileMeta[]> {
  const metas: ManifestFileMeta[] = [];
  const uploads: Promise<void>[] = [];
  for (let start = 0; start < entries.length; start += MANIFEST_ROLL_ENTRIES) {
    const chunk = entries.slice(start, start + MANIFEST_ROLL_ENTRIES);
    const fileName = ctx.newName('manifest-');
    const bytes = encodeManifestFile(chunk);
    // No await between the uploads started here and Promise.all below: none rejects unhandled.
    uploads.push(ctx.store.put(`${ctx.tablePath}/manifest/${fileName}`, bytes));
    metas.push(manifestFileMeta(fileName, bytes.length, chunk, ctx.partitionTypes, ctx.schemaId));
  }
  await Promise.all(uploads);
  return metas;
}

/** Writes a manifest list; returns its file name and size (Snapshot.*ManifestList, *ManifestListSize). */
export async function writeManifestList(
  ctx: ManifestWriterContext,
  metas: readonly ManifestFileMeta[],
): Promise<{ fileName: string; size: number }> {
  const fileName = ctx.newName('manifest-list-');
  const bytes = encodeManifestList(metas);
  await ctx.store.put(`${ctx.tablePath}/manifest/${fileName}`, bytes);
  return { fileName, size: bytes.length };
}
