/** The generator source kind: deterministic orders, for the demo, the benchmarks and the tests. */
import { sourceKind } from '../source.ts';
import { GeneratorSource } from './source.ts';
import { GeneratorSourceSpec } from './spec.ts';

export const generatorSource = sourceKind({
  kind: 'generator',
  spec: GeneratorSourceSpec,
  summary: (spec) => ({ shards: spec.shards, ...(spec.faults === undefined ? {} : { testHook: 'faults' }) }),
  create: (spec) => new GeneratorSource(spec),
});

export { GENERATOR_COLUMNS, GENERATOR_TABLE_COLUMNS, GeneratorSource, generatorRow } from './source.ts';
export { GeneratorSourceSpec, generatorShardId, planGeneratorShards, type GeneratorShard } from './spec.ts';
