/**
 * How a sync request names the generator, and its plan: computed from the options alone, shard i
 * of N is `{index: i, count: N}`.
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
