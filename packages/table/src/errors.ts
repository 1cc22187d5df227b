/**
 * The table library's error codes. Code branches on `code`, never on the message; each entry says
 * whether the same operation may succeed if tried again unchanged.
 */
import { defineErrorCatalogue } from '@tributary/errors';

export const tableErrors = defineErrorCatalogue({
  // io/: the ObjectStore contract (see io/object-store.ts).
  OBJECT_NOT_FOUND: {
    retryable: false,
    summary: 'The object does not exist in the store (a missing table file, a wrong warehouse path).',
  },
  OBJECT_ALREADY_EXISTS: {
    retryable: false,
    summary:
      'A put-if-absent found the key taken: another writer published it first. Re-read and decide again.',
  },
  OBJECT_CHANGED: {
    retryable: false,
    summary: 'A read pinned to one version of an object (S3 If-Match: its ETag) found another version: the object was rewritten since that version was seen.',
  },
  OBJECT_RANGE_INVALID: {
    retryable: false,
    summary: 'A ranged read started past the end of the object, or its offset or length is not a non-negative integer.',
  },
  OBJECT_KEY_INVALID: {
    retryable: false,
    summary: "An object key is not a relative '/'-separated path (empty, absolute, '.', '..' or empty segments).",
  },
  STORAGE_URI_INVALID: {
    retryable: false,
    summary: "A warehouse URI is neither 'file:///absolute/path' nor 's3://bucket/prefix'.",
  },
  STORAGE_UNAVAILABLE: {
    retryable: true,
    summary: 'The storage did not answer or asked us to slow down (network error, throttling, 5xx). Retry later.',
  },
  STORAGE_ACCESS_DENIED: {
    retryable: false,
    summary: 'The storage refused the credentials or the permission (S3 403, EACCES). Fix the configuration.',
  },
  STORAGE_BUCKET_NOT_FOUND: {
    retryable: false,
    summary: 'The configured bucket does not exist. Create it or fix the warehouse URI.',
  },
  STORAGE_REQUEST_FAILED: {
    retryable: false,
    summary: 'The storage rejected a request for another reason; the context carries its code and status.',
  },
  // spec/: pure codecs of Paimon's on-disk structures.
  UNSUPPORTED_TYPE: {
    retryable: false,
    summary: 'A column type Tributary does not read or write (nested ARRAY/MAP/ROW/MULTISET, VARIANT, BLOB, ...).',
  },
  DATA_TYPE_INVALID: {
    retryable: false,
    summary: "A type string is not valid Paimon type syntax, or its length/precision/scale is out of range.",
  },
  ROW_VALUE_INVALID: {
    retryable: false,
    summary: 'A value does not fit its column type (wrong JS type, out of range, precision overflow, bad UTF-16).',
  },
  BINARY_ROW_INVALID: {
    retryable: false,
    summary: 'Bytes are not a well-formed Paimon BinaryRow for the expected types (length, arity, offsets, UTF-8).',
  },
  SCHEMA_INVALID: {
    retryable: false,
    summary: 'A schema file or schema definition is malformed or inconsistent (missing field, unknown key column).',
  },
  TABLE_UNSUPPORTED: {
    retryable: false,
    summary:
      'The table uses a feature Tributary does not write correctly (dynamic or postpone bucket on a primary-key table, deletion vectors, merge engine, changelog producer, file format, bucket function, row tracking).',
  },
  SNAPSHOT_INVALID: {
    retryable: false,
    summary: 'A snapshot file is malformed: not JSON, a missing required field, a wrong type or an unknown enum value.',
  },
  PARTITION_VALUE_UNSUPPORTED: {
    retryable: false,
    summary: 'A partition value cannot be turned into a directory name the way Paimon does (e.g. BINARY partition keys).',
  },
  PARTITION_SPEC_INVALID: {
    retryable: false,
    summary: "A partition given as text values per partition key (a sync's full extract) does not name exactly the table's partition keys, or a value does not parse as its key's type.",
  },
  PARTITION_PATH_INVALID: {
    retryable: false,
    summary: "A partition directory path does not match the table's partition keys ('k=v/' segments in key order).",
  },
  // spec/: Avro manifests (manifest list, manifest entries, index manifest).
  AVRO_CORRUPT: {
    retryable: false,
    summary: 'Bytes are not a well-formed Avro object container file (magic, header, block, sync marker, varint, UTF-8).',
  },
  AVRO_CODEC_UNSUPPORTED: {
    retryable: false,
    summary: "An Avro file uses a compression codec Tributary cannot read (it reads null, deflate, snappy, zstandard).",
  },
  AVRO_SCHEMA_INVALID: {
    retryable: false,
    summary: 'The Avro schema in a file header is not valid Avro schema JSON.',
  },
  AVRO_VALUE_INVALID: {
    retryable: false,
    summary: 'A value to encode does not fit its Avro type (e.g. a number where a 64-bit bigint is required).',
  },
  MANIFEST_VERSION_UNSUPPORTED: {
    retryable: false,
    summary: 'A manifest record has a _VERSION Tributary does not read (Paimon writes 2; 1 means the table must be recreated).',
  },
  MANIFEST_RECORD_INVALID: {
    retryable: false,
    summary: 'A manifest record lacks a required field or has a field of the wrong type or value (e.g. an unknown _KIND).',
  },
  TABLE_FILES_CHANGED: {
    retryable: true,
    summary:
      'A snapshot expiration or orphan scan found a snapshot or metadata file gone that it had just seen (another expiration ran at the same time). A scan deleted nothing; an expiration stopped where it was, and the next run finishes it. Retry.',
  },
  MANIFEST_ENTRY_CONFLICT: {
    retryable: false,
    summary: 'Merging manifest entries found a file added twice (FileEntry.mergeEntries): the manifests are inconsistent.',
  },
  // parquet/ and format/: Parquet data files (see parquet/parquet-writer.ts, parquet/parquet-reader.ts).
  DATA_FILE_NULL_IN_REQUIRED: {
    retryable: false,
    summary: 'A null value reached a NOT NULL column (or a primary-key column) of a data file. Fix the source rows or the schema.',
  },
  DATA_FILE_OPTION_INVALID: {
    retryable: false,
    summary: 'A data file writer option is out of range (target file size, row group size, compression).',
  },
  DATA_FILE_TYPE_UNSUPPORTED: {
    retryable: false,
    summary: 'A column type cannot be written to or read from a Paimon Parquet data file by Tributary.',
  },
  RUN_TRUNCATED: {
    retryable: false,
    summary:
      "A load's sorted run (bucketed layout staging) is shorter than the shard's blob says: the object was cut or replaced. The bucket job refuses it; the sync does not commit.",
  },
  RUN_CORRUPT: {
    retryable: false,
    summary:
      "A load's sorted run does not match the SHA-256, length or rows the shard's blob gives it, or is not a run of the table's columns (altered, swapped or malformed), or its blob names it by a CRC32C only (a run of a worker older than 2026-12-03). The bucket job refuses it; the sync does not commit.",
  },
  PARQUET_FILE_INVALID: {
    retryable: false,
    summary: 'A data file is not valid Parquet (bad magic, truncated footer, undecodable pages, a page whose bytes do not match the CRC-32 its page header carries).',
  },
  PARQUET_COLUMN_MISSING: {
    retryable: false,
    summary: 'A NOT NULL column of the table is absent from a Parquet data file, so its rows cannot be read.',
  },
  PARQUET_TYPE_MISMATCH: {
    retryable: false,
    summary: "A Parquet column's physical type cannot hold the table column's type (the file does not belong to this schema).",
  },
  // write/, read/ and the table API: catalog, commit, scan.
  TABLE_ALREADY_EXISTS: {
    retryable: false,
    summary: 'createTable found schema/schema-0 already there: the table exists. Open it instead.',
  },
  TABLE_NOT_FOUND: {
    retryable: false,
    summary: 'openTable found no schema file under <db>.db/<table>/schema/: the table does not exist in this warehouse.',
  },
  TABLE_OPTION_INVALID: {
    retryable: false,
    summary: 'A table or write option has a value Tributary cannot parse (a memory size, a count, a retry limit).',
  },
  SNAPSHOT_NOT_FOUND: {
    retryable: false,
    summary: 'The requested snapshot does not exist (never written, or expired). Time travel only reaches live snapshots.',
  },
  COMMIT_CONFLICT: {
    retryable: false,
    summary:
      'A concurrent commit made this one invalid: a file to delete is no longer live, a file would be added twice, or a partition would mix bucket counts.',
  },
  COMMIT_PATH_DUPLICATE: {
    retryable: false,
    summary:
      "Two files of one commit, or a new file and a live file of the table, have one path (distinct partitions can share a directory: NULL, '' and blank strings are all __DEFAULT_PARTITION__). Nothing was published: one file overwrote the other on storage, so the files must be written again under unique names.",
  },
  COMMIT_IDENTITY_REUSED: {
    retryable: false,
    summary:
      'A snapshot with this commit identity (commitUser and identifier) already exists and added other files than this commit: the identity was reused for another batch. Nothing was published; commit it under a new identity.',
  },
  COMMIT_CHANGELOG_STALE: {
    retryable: false,
    summary:
      "A commit computed from the stored rows of its base snapshot (a changelog's before-images, a full extract's deletes, a bucket where the load changed nothing) found that another writer changed one of its buckets after that snapshot (or a snapshot in between is gone). Nothing was published: what it computed would be wrong. Compute the load again from the latest snapshot.",
  },
  COMMIT_BASE_SUPERSEDED: {
    retryable: false,
    summary:
      'A commit planned from what the table\'s snapshots said up to its base snapshot (the files or rows its source had already loaded) found a later snapshot with the same mark: another load of the same source committed in between (or a later snapshot is gone and cannot be checked). Nothing was published: the same data would load twice. Plan again from the latest snapshot.',
  },
  COMMIT_MESSAGE_UNSUPPORTED: {
    retryable: false,
    summary: 'A commit message carries files its commit kind does not take: index or compaction files in a load, or anything but compactBefore and compactAfter in a compaction.',
  },
  COMPACT_INPUT_UNSUPPORTED: {
    retryable: false,
    summary:
      'A file a compaction would rewrite was written with another schema or lives at an external path; Tributary rewrites files of the table\'s current schema in the table\'s own directories only.',
  },
  COMMIT_RETRIES_EXHAUSTED: {
    retryable: true,
    summary: 'Other writers kept winning the next snapshot id for every attempt (commit.max-retries). Retry the commit with the same identity.',
  },
  WRITE_ROW_INVALID: {
    retryable: false,
    summary: 'A row given to the table writer does not fit the table (wrong arity, unknown row kind, a retract row in an append table).',
  },
  SEQUENCE_RANGE_EXHAUSTED: {
    retryable: false,
    summary:
      'A primary-key bucket ran out of sequence numbers: a writer with a sequence slot (a sync shard) wrote 2^32 rows into one bucket, or the numbers would pass 2^63 - 1. Split the shard.',
  },
  WRITE_CLOSED: {
    retryable: false,
    summary: 'The table writer was used after prepareCommit or abort: a writer commits once (BatchTableWrite).',
  },
  CHANGELOG_AUDIT_INVALID: {
    retryable: false,
    summary:
      'A changelog audit request does not fit the table: an append table (no keys), a key that does not parse for the key columns or has the wrong number of values, a snapshot range out of order or too long.',
  },
  SCAN_FILTER_INVALID: {
    retryable: false,
    summary: 'A scan filter names a column that is not a partition key, or a bucket the table does not have.',
  },
});

export type TableErrorCode = keyof typeof tableErrors;
