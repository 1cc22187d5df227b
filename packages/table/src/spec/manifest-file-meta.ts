/**
 * Manifest lists (`manifest/manifest-list-<uuid>-<n>`, the base, delta and changelog lists of a
 * snapshot): Avro object container files with one record per manifest file.
 * Mirrors Java `org.apache.paimon.manifest.ManifestFileMeta` (its `SCHEMA`) and
 * `ManifestFileMetaSerializer` (`_VERSION` = 2 first).
 */

import type { AvroSchema } from '../avro/avro.ts';
import { readAvroFile, writeAvroFile, type AvroWriteOptions } from '../avro/avro-container.ts';
import {
  AVRO_ROOT_NAME, AVRO_ROOT_NAMESPACE, asRecord, checkVersion, nullableField, optionalInt, optionalLong,
  requiredField, requiredLong, requiredString, simpleStatsFromAvro, simpleStatsSchema, simpleStatsToAvro,
} from './manifest-avro.ts';
import type { SimpleStats } from './simple-stats.ts';

/** `ManifestFileMetaSerializer.getVersion()`. */
export const MANIFEST_FILE_META_VERSION = 2;

export interface ManifestFileMeta {
  /** File name inside the table's `manifest/` directory. */
  readonly fileName: string;
  readonly fileSize: bigint;
  readonly numAddedFiles: bigint;
  readonly numDeletedFiles: bigint;
  /**
   * Min/max/null counts over the entries' partition rows (arity = number of partition keys, 0
   * for an unpartitioned table). Scans skip whole manifests with these, so they must be right.
   */
  readonly partitionStats: SimpleStats;
  /** The largest `_SCHEMA_ID` of the entries (the table's latest schema id if there are none). */
  readonly schemaId: bigint;
  /** Bucket and level ranges of the entries (Paimon 1.1+); null when unknown. */
  readonly minBucket: number | null;
  readonly maxBucket: number | null;
  readonly minLevel: number | null;
  readonly maxLevel: number | null;
  /** Row-id range of the entries when row tracking is on (Paimon 1.4+); null otherwise. */
  readonly minRowId: bigint | null;
  readonly maxRowId: bigint | null;
}

/** The Avro schema Java writes for a manifest list. */
export const MANIFEST_FILE_META_SCHEMA: AvroSchema = {
  type: 'record',
  name: AVRO_ROOT_NAME,
  namespace: AVRO_ROOT_NAMESPACE,
  fields: [
    requiredField('_VERSION', 'int'),
    requiredField('_FILE_NAME', 'string'),
    requiredField('_FILE_SIZE', 'long'),
    requiredField('_NUM_ADDED_FILES', 'long'),
    requiredField('_NUM_DELETED_FILES', 'long'),
    requiredField('_PARTITION_STATS', simpleStatsSchema(`${AVRO_ROOT_NAME}__PARTITION_STATS`)),
    requiredField('_SCHEMA_ID', 'long'),
    nullableField('_MIN_BUCKET', 'int'),
    nullableField('_MAX_BUCKET', 'int'),
    nullableField('_MIN_LEVEL', 'int'),
    nullableField('_MAX_LEVEL', 'int'),
    nullableField('_MIN_ROW_ID', 'long'),
    nullableField('_MAX_ROW_ID', 'long'),
  ],
};

/** Encodes a manifest list: zstandard level 1 by default, as Paimon's `manifest.compression=zstd`. */
export function encodeManifestList(metas: Iterable<ManifestFileMeta>, options?: AvroWriteOptions): Uint8Array {
  const records = Array.from(metas, (meta) => ({
    _VERSION: MANIFEST_FILE_META_VERSION,
    _FILE_NAME: meta.fileName,
    _FILE_SIZE: meta.fileSize,
    _NUM_ADDED_FILES: meta.numAddedFiles,
    _NUM_DELETED_FILES: meta.numDeletedFiles,
    _PARTITION_STATS: simpleStatsToAvro(meta.partitionStats),
    _SCHEMA_ID: meta.schemaId,
    _MIN_BUCKET: meta.minBucket,
    _MAX_BUCKET: meta.maxBucket,
    _MIN_LEVEL: meta.minLevel,
    _MAX_LEVEL: meta.maxLevel,
    _MIN_ROW_ID: meta.minRowId,
    _MAX_ROW_ID: meta.maxRowId,
  }));
  return writeAvroFile(MANIFEST_FILE_META_SCHEMA, records, options);
}

/**
 * Decodes a manifest list with the writer's schema from its header; fields an older writer (or
 * pypaimon, which omits the bucket and level ranges) did not write read as null.
 */
export function decodeManifestList(bytes: Uint8Array): ManifestFileMeta[] {
  return readAvroFile(bytes).records.map((value, i) => {
    const path = `manifest list entry ${i}`;
    const r = asRecord(value, path);
    checkVersion(r, MANIFEST_FILE_META_VERSION, path);
    return {
      fileName: requiredString(r, '_FILE_NAME', path),
      fileSize: requiredLong(r, '_FILE_SIZE', path),
      numAddedFiles: requiredLong(r, '_NUM_ADDED_FILES', path),
      numDeletedFiles: requiredLong(r, '_NUM_DELETED_FILES', path),
      partitionStats: simpleStatsFromAvro(r['_PARTITION_STATS'], `${path}._PARTITION_STATS`),
      schemaId: requiredLong(r, '_SCHEMA_ID', path),
      minBucket: optionalInt(r, '_MIN_BUCKET', path),
      maxBucket: optionalInt(r, '_MAX_BUCKET', path),
      minLevel: optionalInt(r, '_MIN_LEVEL', path),
      maxLevel: optionalInt(r, '_MAX_LEVEL', path),
      minRowId: optionalLong(r, '_MIN_ROW_ID', path),
      maxRowId: optionalLong(r, '_MAX_ROW_ID', path),
    };
  });
}
