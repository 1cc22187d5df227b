/**
 * A sync's delete marker (SyncOptions.deleteMarker), applied to the rows a shard writes: a row whose
 * marker column holds one of the marker values is a delete of its key (RowKind `-D`), any other row
 * an upsert (`+I`). Values are compared as text, so the marker `1` matches the INT 1 and the
 * BIGINT 1, `true` the BOOLEAN true. Pure.
 */
import type { DeleteMarker } from '@tributary/protocol';
import { valueAt, type ColumnBatch, type InternalRow, type RowType } from '@tributary/table';

const DELETE = 3;

export interface RowKinds {
  /** The RowKind bytes of a batch's rows, or undefined when none of them is a delete. */
  ofBatch(batch: ColumnBatch): Uint8Array | undefined;
  /** The same for rows as arrays of values (the bad-row path). */
  ofRows(rows: readonly InternalRow[]): number[] | undefined;
}

export function deleteMarkerKinds(marker: DeleteMarker, rowType: RowType): RowKinds {
  const index = rowType.fields.findIndex((f) => f.name === marker.column);
  if (index < 0) throw new Error(`the delete marker column '${marker.column}' is not a column of the table`);
  const values = new Set(marker.values.map((v) => String(v)));
  const isDelete = (v: unknown): boolean => v !== null && v !== undefined && values.has(String(v));
  return {
    ofBatch(batch) {
      const column = batch.columns[index];
      if (column === undefined) return undefined;
      let kinds: Uint8Array | undefined;
      for (let i = 0; i < batch.length; i++) {
        if (!isDelete(valueAt(column, i))) continue;
        kinds ??= new Uint8Array(batch.length);
        kinds[i] = DELETE;
      }
      return kinds;
    },
    ofRows(rows) {
      if (!rows.some((r) => isDelete(r[index]))) return undefined;
      return rows.map((r) => (isDelete(r[index]) ? DELETE : 0));
    },
  };
}
