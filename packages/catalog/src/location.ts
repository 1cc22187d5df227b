import type { TableRef } from '@tributary/table';

/** Where Paimon puts a table of a warehouse: `<warehouse>/<db>.db/<table>` (no trailing slash). */
export function tableLocationIn(warehouse: string, ref: TableRef): string {
  return `${warehouse.replace(/\/+$/, '')}/${ref.database}.db/${ref.table}`;
}
