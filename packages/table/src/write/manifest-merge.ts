/**
 * Which manifests of the previous snapshot go into the next base manifest list unchanged and which
 * are merged into new manifest files: the minor compaction of Paimon's
 * org.apache.paimon.operation.ManifestFileMerger (ManifestFileLegacyMerger.tryMinorCompaction).
 *
 * Walk the manifests in order (previous base, then previous delta), accumulating their sizes. Each
 * time the accumulated size reaches `manifest.target-file-size`, the group is merged (a group of
 * one manifest is kept as it is). The tail is merged only if it holds at least
 * `manifest.merge-min-count` manifests. Merging cancels ADD/DELETE pairs inside a group; a DELETE
 * whose ADD lies in an earlier group stays a DELETE, which readers resolve in manifest order.
 *
 * Java's full compaction (rewriting every manifest that holds deletes once they exceed
 * `manifest.full-compaction-threshold-size`) is not done: it only makes metadata smaller, readers
 * never need it. Pure: the caller reads and writes the manifests.
 */
import { errorFrom } from '@tributary/errors';
import { tableErrors } from '../errors.ts';

export interface ManifestMergeOptions {
  /** `manifest.target-file-size`, bytes (default 8 MB). */
  readonly targetFileSize: number;
  /** `manifest.merge-min-count` (default 30). */
  readonly mergeMinCount: number;
}

const DEFAULT_MANIFEST_MERGE: ManifestMergeOptions = {
  targetFileSize: 8 * 1024 * 1024,
  mergeMinCount: 30,
};

/** One step of the new base list, in order: keep a manifest, or merge a group into new ones. */
export type ManifestMergeStep<M> = { readonly keep: M } | { readonly merge: readonly M[] };

export function planMinorCompaction<M>(
  manifests: readonly M[],
  sizeOf: (manifest: M) => number,
  options: ManifestMergeOptions = DEFAULT_MANIFEST_MERGE,
): ManifestMergeStep<M>[] {
  const steps: ManifestMergeStep<M>[] = [];
  let candidates: M[] = [];
  let total = 0;
  const flush = (merge: boolean): void => {
    if (merge && candidates.length > 1) steps.push({ merge: candidates });
    else for (const keep of candidates) steps.push({ keep });
    candidates = [];
    total = 0;
  };
  for (const manifest of manifests) {
    total += sizeOf(manifest);
    candidates.push(manifest);
    if (total >= options.targetFileSize) flush(true);
  }
  flush(candidates.length >= options.mergeMinCount);
  return steps;
}

/** Reads `manifest.target-file-size` and `manifest.merge-min-count` from table options. */
export function manifestMergeOptions(options: Readonly<Record<string, string>>): ManifestMergeOptions {
  const target = options['manifest.target-file-size'];
  const minCount = options['manifest.merge-min-count'];
  return {
    targetFileSize: target === undefined ? DEFAULT_MANIFEST_MERGE.targetFileSize : parseMemorySize(target),
    mergeMinCount: minCount === undefined ? DEFAULT_MANIFEST_MERGE.mergeMinCount : Number.parseInt(minCount, 10),
  };
}

const UNITS: Readonly<Record<string, number>> = {
  b: 1, bytes: 1, k: 1024, kb: 1024, kib: 1024, m: 1024 ** 2, mb: 1024 ** 2, mib: 1024 ** 2,
  g: 1024 ** 3, gb: 1024 ** 3, gib: 1024 ** 3,
};

/** Paimon's MemorySize.parse: a number with an optional unit, "8 mb", "128MB", "1024". */
export function parseMemorySize(text: string): number {
  const match = /^\s*(\d+)\s*([a-zA-Z]*)\s*$/.exec(text);
  const unit = UNITS[(match?.[2] ?? '').toLowerCase() || 'b'];
  if (match === null || unit === undefined) {
    throw errorFrom(tableErrors, 'TABLE_OPTION_INVALID', `'${text}' is not a memory size (e.g. '8 mb')`, { value: text });
  }
  return Number(match[1]) * unit;
}
