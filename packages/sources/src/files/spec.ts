/**
 * How a sync request names a files source, and the pure part of its plan: URIs split into a store
 * root and a key (or a name prefix), and the resolved files grouped into shards.
 */
import { z } from 'zod';
import { MAX_POSITION_FILES, type FileReadPosition } from '@tributary/protocol';
import { ConnectionName } from '../access.ts';

/** Files on disk or in S3; each file one shard, or `filesPerShard` files per shard. */
export const FilesSourceSpec = z.object({
  kind: z.literal('files'),
  format: z.enum(['ndjson', 'csv', 'parquet']),
  /** Warehouse-style URIs (`s3://bucket/prefix/`, `file:///dir/`); a trailing `*` matches a name prefix. */
  uris: z.array(z.string().min(1)).min(1),
  /** An S3 connection of the operator's to read the `s3://` URIs with (default: the service's own S3 credentials). */
  connection: ConnectionName.optional(),
  /** At most MAX_POSITION_FILES (10,000): a shard's blob lists every file it read. */
  filesPerShard: z.number().int().min(1).max(MAX_POSITION_FILES).default(1),
  /**
   * CSV and NDJSON: accept a last record without its line terminator. Off by default, because a
   * file cut inside its last field still parses as a plausible row; the worker then refuses it.
   */
  allowUnterminatedLastLine: z.boolean().default(false),
  /**
   * A file column that is no column of the table (a CSV header name, a Parquet column, an NDJSON
   * key): `fail` (the default) refuses the file, naming the column, because its values would not be
   * loaded and a misspelt name would load the table's column as null; `ignore` loads the file
   * without it.
   */
  unknownColumns: z.enum(['fail', 'ignore']).default('fail'),
  /**
   * Load only files that no committed snapshot of the table lists as loaded (by URI and ETag): a
   * file rewritten since (another ETag) is loaded again. Unset: false for a sync; a schedule sets
   * it to true when it is stored.
   */
  newFilesOnly: z.boolean().optional(),
});
export type FilesSourceSpec = z.infer<typeof FilesSourceSpec>;

/**
 * Splits an object URI into the store root and the key below it: `s3://b/dir/f.csv` →
 * `{ root: 's3://b/dir', key: 'f.csv' }`. A trailing `*` makes the key a name prefix (a glob of
 * one kind only: `s3://b/dir/orders-*`), reported as `prefix: true`.
 */
export function splitObjectUri(uri: string): { root: string; key: string; prefix: boolean } {
  const slash = uri.lastIndexOf('/');
  const root = uri.slice(0, slash);
  const name = uri.slice(slash + 1);
  const prefix = name.endsWith('*');
  return { root, key: prefix ? name.slice(0, -1) : name, prefix };
}

export function filesShardId(index: number): string {
  return `files-${String(index).padStart(5, '0')}`;
}

/** A listed file's version, as a shard spec carries it beside its URI (`versions[i]` is `files[i]`'s). */
export const FileVersion = z.strictObject({ size: z.number().int().min(0), etag: z.string().max(1024) });
export type FileVersion = z.infer<typeof FileVersion>;

/** A files shard: its files' URIs and, from plans of this release on, the version of each the plan listed (every read is pinned to it). */
export const FilesShardSpec = z.object({ files: z.array(z.string()), versions: z.array(FileVersion).optional() });
export type FilesShardSpec = z.infer<typeof FilesShardSpec>;

/** Groups listed files into shards of `filesPerShard`, in the given order, each with the versions listed. */
export function planFileShards(files: readonly FileReadPosition[], filesPerShard: number): { id: string; spec: FilesShardSpec }[] {
  const shards: { id: string; spec: FilesShardSpec }[] = [];
  for (let i = 0; i < files.length; i += filesPerShard) {
    const group = files.slice(i, i + filesPerShard);
    shards.push({ id: filesShardId(shards.length), spec: { files: group.map((f) => f.uri), versions: group.map(({ size, etag }) => ({ size, etag })) } });
  }
  return shards;
}
