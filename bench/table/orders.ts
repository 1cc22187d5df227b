/**
 * The benchmark's rows and tables, shared by the runner and the Tributary peer. The pypaimon peer
 * (python/bench.py) and the Paimon Java peer (java/) implement the same formula; the runner checks
 * every table against `expectedTotals`, so a peer that drifts from it fails the run.
 *
 * Row i (0-based): id = i, store_id = (i * 7919) % 1000, amount = (i * 104729) % 10 000 000 cents,
 * status = STATUSES[i % 5], created_at = 1 700 000 000 000 + i * 1000 ms, dt = 19700 + i % 30.
 */

export const STATUSES = ['pending', 'paid', 'shipped', 'delivered', 'cancelled'] as const;

export const ORDER_FIELDS = [
  { name: 'id', type: 'BIGINT' },
  { name: 'store_id', type: 'INT' },
  { name: 'amount', type: 'DECIMAL(18, 2)' },
  { name: 'status', type: 'STRING' },
  { name: 'created_at', type: 'TIMESTAMP(3)' },
  { name: 'dt', type: 'DATE' },
] as const;

export const TABLE_KINDS = ['append', 'pk'] as const;
export type TableKind = (typeof TABLE_KINDS)[number];

/** Both tables are partitioned by dt; Paimon requires the partition key inside the primary key. */
export interface TableShape {
  readonly partitionKeys: readonly string[];
  readonly primaryKeys: readonly string[];
  readonly options: Readonly<Record<string, string>>;
}

export const TABLE_SHAPES: Readonly<Record<TableKind, TableShape>> = {
  append: { partitionKeys: ['dt'], primaryKeys: [], options: { bucket: '-1' } },
  pk: { partitionKeys: ['dt'], primaryKeys: ['id', 'dt'], options: { bucket: '16' } },
};

export function storeIdOf(i: number): number {
  return (i * 7919) % 1000;
}

export function amountCentsOf(i: number): number {
  return (i * 104729) % 10_000_000;
}

export function createdAtMillisOf(i: number): number {
  return 1_700_000_000_000 + i * 1000;
}

export function dtOf(i: number): number {
  return 19700 + (i % 30);
}

/** What a reader of a table of `rows` rows must find: the count and column sums (as bigints). */
export interface OrderTotals {
  readonly rows: number;
  readonly sumId: bigint;
  readonly sumStoreId: bigint;
  readonly sumAmountCents: bigint;
}

export function expectedTotals(rows: number): OrderTotals {
  let sumStoreId = 0n;
  let sumAmountCents = 0n;
  let storeAcc = 0;
  let amountAcc = 0;
  for (let i = 0; i < rows; i++) {
    storeAcc += storeIdOf(i);
    amountAcc += amountCentsOf(i);
    // Flush before the doubles leave the exact-integer range.
    if (amountAcc > 2 ** 50) {
      sumStoreId += BigInt(storeAcc);
      sumAmountCents += BigInt(amountAcc);
      storeAcc = 0;
      amountAcc = 0;
    }
  }
  sumStoreId += BigInt(storeAcc);
  sumAmountCents += BigInt(amountAcc);
  const n = BigInt(rows);
  return { rows, sumId: (n * (n - 1n)) / 2n, sumStoreId, sumAmountCents };
}
