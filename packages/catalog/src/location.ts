import type { TableRef } from '@tributary/table';

/** Paimon's database path in a warehouse: `<warehouse>/<db>.db` (no trailing slash). */
export function databaseLocationIn(warehouse: string, database: string): string {
  return `${warehouse.replace(/\/+$/, '')}/${database}.db`;
}

/** Paimon's table path in a warehouse: `<warehouse>/<db>.db/<table>` (no trailing slash). */
export function tableLocationIn(warehouse: string, ref: TableRef): string {
  return `${databaseLocationIn(warehouse, ref.database)}/${ref.table}`;
}
