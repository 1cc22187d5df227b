/**
 * Manifest files (`manifest/manifest-<uuid>-<n>`): Avro object container files of manifest
 * entries, each adding or deleting one data file in one partition and bucket.
 * Mirrors Java `org.apache.paimon.manifest.ManifestEntry` (its `SCHEMA`), `ManifestEntrySerializer`
 * (`_VERSION` = 2 first, via `VersionedObjectSerializer`) and `FileKind`.
 *
 * Paimon master's `ManifestAvroReader` reads the six top-level fields by position with fixed
 * types, so we write exactly `_VERSION, _KIND, _PARTITION, _BUCKET, _TOTAL_BUCKETS, _FILE`.
 */

import { errorFrom } from '@tributary/errors';
import { tableErrors } from '../errors.ts';
import type { AvroSchema, AvroValue, EncodedDatum } from '../avro/avro.ts';
import { compiledSchema, readAvroFile, writeAvroFile, type AvroWriteOptions } from '../avro/avro-container.ts';
import { encodeDatums } from '../avro/avro-encoder.ts';
import { partitionKey } from './binary-row.ts';
import { dataFileMetaFromAvro, dataFileMetaSchema, dataFileMetaToAvro, type DataFileMeta } from './data-file-meta.ts';
import {
  AVRO_ROOT_NAME, AVRO_ROOT_NAMESPACE, asRecord, checkVersion, requiredBytes, requiredField, requiredInt,
} from './manifest-avro.ts';

/** `ManifestEntrySerializer.getVersion()`. */
export const MANIFEST_ENTRY_VERSION = 2;

/** Java `FileKind`: byte 0 = ADD, 1 = DELETE. */
export type FileKind = 'ADD' | 'DELETE';

export interface ManifestEntry {
  readonly kind: FileKind;
  /** Arity-prefixed BinaryRow of the partition values (arity 0 for an unpartitioned table). */
  readonly partition: Uint8Array;
  readonly bucket: number;
  /** The table's bucket count when written: N for fixed buckets, -1 for bucket-unaware tables. */
  readonly totalBuckets: number;
  readonly file: DataFileMeta;
}

/** The Avro schema Java writes for a manifest file (`AvroSchemaConverter` on `MANIFEST_ROW_TYPE`). */
export const MANIFEST_ENTRY_SCHEMA: AvroSchema = {
  type: 'record',
  name: AVRO_ROOT_NAME,
  namespace: AVRO_ROOT_NAMESPACE,
  fields: [
    requiredField('_VERSION', 'int'),
    requiredField('_KIND', 'int'),
    requiredField('_PARTITION', 'bytes'),
    requiredField('_BUCKET', 'int'),
    requiredField('_TOTAL_BUCKETS', 'int'),
    requiredField('_FILE', dataFileMetaSchema(`${AVRO_ROOT_NAME}__FILE`)),
  ],
};

const KINDS: readonly FileKind[] = ['ADD', 'DELETE'];

/** Encodes a manifest file: zstandard level 1 by default, as Paimon's `manifest.compression=zstd`. */
export function encodeManifestFile(entries: Iterable<ManifestEntry>, options?: AvroWriteOptions): Uint8Array {
  return writeAvroFile(MANIFEST_ENTRY_SCHEMA, manifestRecords(entries), options);
}

/**
 * Manifest entries encoded ahead (encodeEntriesAhead), by their file object, with what else the
 * entry said: a DataFileMeta is never changed in place (a rebased file is a new object), and an
 * entry made later for the same file is copied as encoded only if its kind, partition, bucket and
 * bucket count are the ones encoded; the bytes go when the file does.
 */
interface EncodedEntry {
  readonly kind: FileKind;
  /** partitionKey of the partition encoded. */
  readonly partition: string;
  readonly bucket: number;
  readonly totalBuckets: number;
  readonly datum: EncodedDatum;
}

const encodedEntries = new WeakMap<DataFileMeta, EncodedEntry>();

/**
 * Encodes the entries' manifest records now, so that a manifest listing the same entries (their
 * very file objects) later copies their bytes instead of encoding them: the coordinator does it as
 * it verifies each shard's blob, out of the commit's time (30,000 entries took ~150 ms of a
 * 10,000-shard commit; issue #11). The manifest's bytes are the same either way.
 */
export function encodeEntriesAhead(entries: readonly ManifestEntry[]): void {
  const pending = entries.filter((e) => !encodedEntries.has(e.file));
  if (pending.length === 0) return;
  const datums = encodeDatums(compiledSchema(MANIFEST_ENTRY_SCHEMA), pending.map(entryRecord));
  pending.forEach((e, i) => {
    encodedEntries.set(e.file, { kind: e.kind, partition: partitionKey(e.partition), bucket: e.bucket, totalBuckets: e.totalBuckets, datum: datums[i] as EncodedDatum });
  });
}

/** The entry's record as encoded ahead, if it was, for exactly this entry. */
function encodedAhead(entry: ManifestEntry): EncodedDatum | undefined {
  const ahead = encodedEntries.get(entry.file);
  if (ahead === undefined || ahead.kind !== entry.kind || ahead.bucket !== entry.bucket || ahead.totalBuckets !== entry.totalBuckets) return undefined;
  return ahead.partition === partitionKey(entry.partition) ? ahead.datum : undefined;
}

function entryRecord(entry: ManifestEntry): AvroValue {
  return {
    _VERSION: MANIFEST_ENTRY_VERSION,
    _KIND: fileKindToAvro(entry.kind),
    _PARTITION: entry.partition,
    _BUCKET: entry.bucket,
    _TOTAL_BUCKETS: entry.totalBuckets,
    _FILE: dataFileMetaToAvro(entry.file),
  };
}

/**
 * The entries' Avro records, each made as the encoder reaches it: a record is garbage once written,
 * so a manifest of 16,000 entries never holds 16,000 records (and their files' records) at once.
 * An entry encoded ahead is copied as encoded.
 */
function* manifestRecords(entries: Iterable<ManifestEntry>): Generator<AvroValue> {
  for (const entry of entries) yield encodedAhead(entry) ?? entryRecord(entry);
}

/**
 * Decodes a manifest file written by Paimon Java, pypaimon or us, with the writer's schema from
 * its header: older files without the newer nullable fields read them as null.
 */
export function decodeManifestFile(bytes: Uint8Array): ManifestEntry[] {
  return readAvroFile(bytes).records.map((value, i) => {
    const path = `manifest entry ${i}`;
    const record = asRecord(value, path);
    checkVersion(record, MANIFEST_ENTRY_VERSION, path);
    return {
      kind: fileKindFromAvro(requiredInt(record, '_KIND', path), path),
      partition: requiredBytes(record, '_PARTITION', path),
      bucket: requiredInt(record, '_BUCKET', path),
      totalBuckets: requiredInt(record, '_TOTAL_BUCKETS', path),
      file: dataFileMetaFromAvro(record['_FILE'], `${path}._FILE`),
    };
  });
}

function fileKindToAvro(kind: FileKind): number {
  const index = KINDS.indexOf(kind);
  if (index < 0) throw errorFrom(tableErrors, 'AVRO_VALUE_INVALID', `ManifestEntry.kind: invalid value ${String(kind)}`, {});
  return index;
}

function fileKindFromAvro(value: number, path: string): FileKind {
  const kind = KINDS[value];
  if (kind === undefined) {
    throw errorFrom(tableErrors, 'MANIFEST_RECORD_INVALID', `${path}._KIND: unknown file kind ${value}`, { path });
  }
  return kind;
}
