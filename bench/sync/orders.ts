/**
 * The one table definition and source of every part of the sync benchmark: the demo's orders
 * table (primary key order_id, 4 buckets) fed by the deterministic generator of @tributary/worker.
 */
export const ORDERS_COLUMNS = [
  { name: 'order_id', type: 'BIGINT NOT NULL' },
  { name: 'customer_id', type: 'INT NOT NULL' },
  { name: 'store_id', type: 'INT NOT NULL' },
  { name: 'amount', type: 'DECIMAL(12, 2)' },
  { name: 'status', type: 'VARCHAR(16)' },
  { name: 'order_date', type: 'DATE' },
  { name: 'created_at', type: 'TIMESTAMP(3)' },
] as const;

/** The body of POST /v1/tables, less database and name. */
export const ORDERS_TABLE = {
  columns: ORDERS_COLUMNS,
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
