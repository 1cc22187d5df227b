/** The PostgreSQL source kind: many databases × schemas × tables with the same columns, read as one table. */
import { sourceKind } from '../source.ts';
import { PostgresSource } from './source.ts';
import { PostgresSourceSpec } from './spec.ts';

export const postgresSource = sourceKind({
  kind: 'postgres',
  spec: PostgresSourceSpec,
  summary: () => ({}),
  create: (spec, context) => new PostgresSource(spec, context.columns, context.access),
});

export { PostgresSource } from './source.ts';
export { PostgresKeyKind, PostgresShard, PostgresSourceSpec, isShardSafeTriple, postgresShardId } from './spec.ts';
export { keyCondition, keyLiteral, nextCutQuery, quoteIdentifier, shardCopy, shardSelect } from './sql.ts';
export { checkColumns, splitRanges } from './plan.ts';
export { CopyBinaryReader, binaryDecoder, numericText, timestampValue } from './binary.ts';
export { incompatibility, keyKind, numericTypmod, type PostgresColumn } from './types.ts';
