/** The MySQL 分库分表 source kind: many databases × tables with the same columns, read as one table. */
import { sourceKind } from '../source.ts';
import { MysqlSource } from './source.ts';
import { MysqlSourceSpec } from './spec.ts';

export const mysqlSource = sourceKind({
  kind: 'mysql',
  spec: MysqlSourceSpec,
  summary: (spec) => (spec.faults === undefined ? {} : { testHook: 'faults' }),
  create: (spec, context) => new MysqlSource(spec, context.columns, context.access),
});

export { MysqlSource, mysqlTime, mysqlTimestamp } from './source.ts';
export { MysqlKeyKind, MysqlShard, MysqlSourceSpec, isShardSafeName, mysqlShardId, nameMatcher, type NamePattern } from './spec.ts';
export { keyCondition, keyValueText, quoteIdentifier, shardSelect, type SqlFragment } from './sql.ts';
export { checkColumns, splitRanges } from './plan.ts';
export { incompatibility, keyKind, type MysqlColumn } from './types.ts';
