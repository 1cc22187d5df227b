/**
 * Index manifests (`manifest/index-manifest-<uuid>-<n>`, a snapshot's `indexManifest`): the
 * index files of dynamic-bucket tables (`HASH`) and of deletion vectors (`DELETION_VECTORS`).
 * Mirrors Java `org.apache.paimon.manifest.IndexManifestEntry` (its `SCHEMA`),
 * `IndexManifestEntrySerializer` (`_VERSION` = 1) and `index.IndexFileMeta`.
 *
 * Read only, and only the identifying fields: Tributary writes neither kind of table. It reads
 * index manifests so that it can refuse a table whose live index files change what a reader must
 * do (deletion vectors hide rows; a HASH index owns the key-to-bucket assignment). The deletion
 * vector ranges and global-index metadata are skipped.
 *
 * A snapshot's index manifest is the complete set of live index files, all of kind ADD: each
 * commit rewrites it from the previous one plus the changes (`IndexManifestFileHandler.write`).
 */

import { errorFrom } from '@tributary/errors';
import { tableErrors } from '../errors.ts';
import { readAvroFile } from '../avro/avro-container.ts';
import type { FileKind } from './manifest-entry.ts';
import {
  asRecord, checkVersion, optionalString, requiredBytes, requiredInt, requiredLong, requiredString,
} from './manifest-avro.ts';

/** `IndexManifestEntrySerializer.getVersion()`. */
export const INDEX_MANIFEST_ENTRY_VERSION = 1;

/** Java `IndexFileMeta` index types (`HashIndexFile.HASH_INDEX`, `DeletionVectorsIndexFile.DELETION_VECTORS_INDEX`, ...). */
export type IndexType = 'HASH' | 'DELETION_VECTORS' | (string & {});

export interface IndexManifestEntry {
  readonly kind: FileKind;
  /** Arity-prefixed BinaryRow of the partition values. */
  readonly partition: Uint8Array;
  readonly bucket: number;
  readonly indexType: IndexType;
  /** File name inside the table's `index/` directory. */
  readonly fileName: string;
  readonly fileSize: bigint;
  readonly rowCount: bigint;
  readonly externalPath: string | null;
}

/** Decodes an index manifest with the writer's schema from its header. */
export function decodeIndexManifest(bytes: Uint8Array): IndexManifestEntry[] {
  return readAvroFile(bytes).records.map((value, i) => {
    const path = `index manifest entry ${i}`;
    const r = asRecord(value, path);
    checkVersion(r, INDEX_MANIFEST_ENTRY_VERSION, path);
    const kind = requiredInt(r, '_KIND', path);
    if (kind !== 0 && kind !== 1) {
      throw errorFrom(tableErrors, 'MANIFEST_RECORD_INVALID', `${path}._KIND: unknown file kind ${kind}`, { path });
    }
    return {
      kind: kind === 0 ? 'ADD' : 'DELETE',
      partition: requiredBytes(r, '_PARTITION', path),
      bucket: requiredInt(r, '_BUCKET', path),
      indexType: requiredString(r, '_INDEX_TYPE', path),
      fileName: requiredString(r, '_FILE_NAME', path),
      fileSize: requiredLong(r, '_FILE_SIZE', path),
      rowCount: requiredLong(r, '_ROW_COUNT', path),
      externalPath: optionalString(r, '_EXTERNAL_PATH', path),
    };
  });
}
