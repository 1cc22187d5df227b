/**
 * Identity of a manifest entry and the ADD/DELETE merge over a sequence of entries.
 * Mirrors Java `org.apache.paimon.manifest.FileEntry` (`Identifier`, `mergeEntries`).
 *
 * Two entries refer to the same data file when partition (compared byte for byte), bucket,
 * level, file name, extra files, embedded index and external path are all equal. So a DELETE
 * must copy those fields from the ADD it cancels rather than re-encode them.
 */

import { errorFrom } from '@tributary/errors';
import { tableErrors } from '../errors.ts';
import { partitionKey } from './binary-row.ts';
import type { ManifestEntry } from './manifest-entry.ts';

function hex(bytes: Uint8Array | null): string | null {
  return bytes === null ? null : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex');
}

/**
 * `FileEntry.Identifier` as a string, usable as a `Map` key: equal strings exactly when Java's
 * `Identifier.equals` holds.
 */
export function entryIdentifier(entry: ManifestEntry): string {
  const { file } = entry;
  return JSON.stringify([
    partitionKey(entry.partition),
    entry.bucket,
    file.level,
    file.fileName,
    file.extraFiles,
    hex(file.embeddedIndex),
    file.externalPath,
  ]);
}

/**
 * `FileEntry.mergeEntries`: walks the entries in manifest order (base list, then delta list); a
 * DELETE removes the earlier ADD of the same file, a DELETE with no earlier ADD is kept (its ADD
 * lives in manifests not given here), and adding a file already present is an error. Returns the
 * surviving entries in first-seen order.
 */
export function mergeEntries<T extends ManifestEntry>(entries: Iterable<T>): T[] {
  const merged = new Map<string, T>();
  for (const entry of entries) {
    const id = entryIdentifier(entry);
    if (entry.kind === 'ADD') {
      if (merged.has(id)) {
        throw errorFrom(tableErrors, 'MANIFEST_ENTRY_CONFLICT',
          `trying to add file ${entry.file.fileName} (bucket ${entry.bucket}, level ${entry.file.level}) which is already present`,
          { fileName: entry.file.fileName, bucket: entry.bucket, level: entry.file.level });
      }
      merged.set(id, entry);
    } else if (merged.has(id)) {
      merged.delete(id);
    } else {
      merged.set(id, entry);
    }
  }
  return [...merged.values()];
}
