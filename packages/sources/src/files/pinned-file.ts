/**
 * A source file's bytes, read only as the version the plan listed (its size and ETag). A file
 * rewritten while its shard read it once committed a mix of both versions, and the snapshot
 * recorded the old ETag with the new rows, so `newFilesOnly` loaded it again. Every ranged read is therefore pinned:
 *
 * - S3: each GET sends `If-Match` with the listed ETag (S3ObjectStore's `ifMatch`), which S3 and
 *   MinIO evaluate atomically with the read: another version answers 412.
 * - Anything else (a local file): the file's size and version tag (the local store's tag is
 *   `W/<size>-<mtime in ns>`) are compared with the listed ones before and after each read, so a
 *   rewrite, truncation or replacement before or during the read is seen. A replacement that keeps
 *   the size and the modification time to the nanosecond is not (the inode is not compared: the
 *   store does not report it).
 *
 * A file found changed or gone is SOURCE_FILE_CHANGED (not retryable: the shard reads the listed
 * version or nothing), naming the file's URI and never its content.
 */
import { errorFrom, isTributaryError, type FileReadPosition, type TributaryError } from '@tributary/protocol';
import { S3ObjectStore, type ObjectMeta, type ObjectStore } from '@tributary/table';
import { sourceErrors } from '../errors.ts';

/** Ranged reads of one version of one file; `size` is that version's. */
export interface PinnedFile {
  readonly uri: string;
  readonly size: number;
  read(offset: number, length: number): Promise<Uint8Array>;
}

export function pinnedFile(store: ObjectStore, key: string, version: FileReadPosition): PinnedFile {
  const { uri, size, etag } = version;
  const check = async (): Promise<void> => {
    if (!sameVersion(await store.stat(key), version)) throw fileChanged(uri);
  };
  // A read that failed (a 412, the file gone, a range past a truncated end) because the file changed says so.
  const failed = async (error: unknown): Promise<never> => {
    if (isTributaryError(error) && error.code === 'OBJECT_CHANGED') throw fileChanged(uri);
    await check();
    throw error;
  };
  if (store instanceof S3ObjectStore && etag !== '') {
    return { uri, size, read: (offset, length) => store.getRange(key, offset, length, { ifMatch: etag }).catch(failed) };
  }
  return {
    uri,
    size,
    read: async (offset, length) => {
      await check();
      const bytes = await store.getRange(key, offset, length).catch(failed);
      await check();
      return bytes;
    },
  };
}

/** Whether `meta` is the listed version: the same size, and the same tag when the store gives one. */
export function sameVersion(meta: ObjectMeta | null, version: FileReadPosition): boolean {
  return meta !== null && meta.size === version.size && (meta.etag ?? '') === version.etag;
}

export function fileChanged(uri: string): TributaryError {
  return errorFrom(
    sourceErrors,
    'SOURCE_FILE_CHANGED',
    `source file ${uri} changed after the sync listed it (rewritten, truncated or deleted): its shard reads only the version listed; sync again to load the new one`,
    { file: uri },
  );
}
