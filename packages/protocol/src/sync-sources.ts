/**
 * How a sync request names its source, and the pure part of planning one: the coordinator turns a
 * source into an exact list of shard ids before anything runs; the worker opens one shard by its
 * spec. Sources that must look at the outside world to plan (files, MySQL, PostgreSQL) list it at
 * the coordinator; the generator plans from its options alone, here.
 */
import { z } from 'zod';

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
  filesPerShard: z.number().int().min(1).default(1),
});
export type FilesSourceSpec = z.infer<typeof FilesSourceSpec>;

export const SyncSourceSpec = z.discriminatedUnion('kind', [GeneratorSourceSpec, FilesSourceSpec]);
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
