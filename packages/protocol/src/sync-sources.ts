/**
 * How a sync request names its source, and the pure part of planning one: the coordinator turns a
 * source into an exact list of shard ids before anything runs; the worker opens one shard by its
 * spec. Sources that must look at the outside world to plan (files, MySQL, PostgreSQL) list it at
 * the coordinator; the generator plans from its options alone, here.
 */
import { z } from 'zod';
import { ConnectionName } from './sources/access.ts';
import { MysqlSourceSpec } from './sources/mysql.ts';

/** The deterministic orders generator: shard i of N yields order ids i·rowsPerShard+1 … (i+1)·rowsPerShard. */
export const GeneratorSourceSpec = z.object({
  kind: z.literal('generator'),
  seed: z.number().int().default(1),
  shards: z.number().int().min(1).max(100_000),
  rowsPerShard: z.number().int().min(0).max(100_000_000),
  /** Rows per batch the source yields (the unit of progress and resume). */
  batchRows: z.number().int().min(1).max(1_000_000).default(10_000),
  /** Test hooks: a row that cannot be converted, a slow shard. */
  faults: z
    .object({
      badRow: z.object({ shard: z.number().int().min(0), position: z.number().int().min(0) }).optional(),
      delayMsPerBatch: z.number().int().min(0).max(60_000).optional(),
    })
    .optional(),
});
export type GeneratorSourceSpec = z.infer<typeof GeneratorSourceSpec>;

/** Files on disk or in S3; each file one shard, or `filesPerShard` files per shard. */
export const FilesSourceSpec = z.object({
  kind: z.literal('files'),
  format: z.enum(['ndjson', 'csv', 'parquet']),
  /** Warehouse-style URIs (`s3://bucket/prefix/`, `file:///dir/`); a trailing `*` matches a name prefix. */
  uris: z.array(z.string().min(1)).min(1),
  /** An S3 connection of the operator's to read the `s3://` URIs with (default: the service's own S3 credentials). */
  connection: ConnectionName.optional(),
  filesPerShard: z.number().int().min(1).default(1),
  /**
   * CSV and NDJSON: accept a last record without its line terminator. Off by default, because a
   * file cut inside its last field still parses as a plausible row; the worker then refuses it.
   */
  allowUnterminatedLastLine: z.boolean().default(false),
});
export type FilesSourceSpec = z.infer<typeof FilesSourceSpec>;

export const SyncSourceSpec = z.discriminatedUnion('kind', [GeneratorSourceSpec, FilesSourceSpec, MysqlSourceSpec]);
export type SyncSourceSpec = z.infer<typeof SyncSourceSpec>;

/** One generator shard: its index among `count`. */
export type GeneratorShard = {
  readonly index: number;
  readonly count: number;
};

export function generatorShardId(index: number): string {
  return `shard-${String(index).padStart(5, '0')}`;
}

export function planGeneratorShards(spec: GeneratorSourceSpec): { id: string; spec: GeneratorShard }[] {
  return Array.from({ length: spec.shards }, (_, index) => ({
    id: generatorShardId(index),
    spec: { index, count: spec.shards },
  }));
}

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

/** Groups resolved file URIs into shards of `filesPerShard`, in the given order. */
export function planFileShards(files: readonly string[], filesPerShard: number): { id: string; spec: { files: string[] } }[] {
  const shards: { id: string; spec: { files: string[] } }[] = [];
  for (let i = 0; i < files.length; i += filesPerShard) {
    shards.push({ id: filesShardId(shards.length), spec: { files: files.slice(i, i + filesPerShard) } });
  }
  return shards;
}
