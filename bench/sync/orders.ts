/**
 * The one table definition and source of every part of the sync benchmark: the demo's orders
 * table (primary key order_id, 4 buckets) fed by the deterministic generator of @tributary/worker.
 */
import { GENERATOR_TABLE_COLUMNS } from '@tributary/sources';

/** The body of POST /v1/tables, less database and name. */
export const ORDERS_TABLE = {
  columns: GENERATOR_TABLE_COLUMNS,
  primaryKeys: ['order_id'],
  bucket: 4,
};

/** The generator source of POST /v1/syncs (GeneratorSourceSpec of @tributary/protocol). */
export interface GeneratorSpec {
  readonly kind: 'generator';
  readonly seed: number;
  readonly shards: number;
  readonly rowsPerShard: number;
  readonly batchRows: number;
}

export function generatorSpec(shards: number, rowsPerShard: number): GeneratorSpec {
  return { kind: 'generator', seed: 7, shards, rowsPerShard, batchRows: Math.max(1, Math.min(10_000, rowsPerShard)) };
}
