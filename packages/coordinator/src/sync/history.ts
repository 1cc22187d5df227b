/**
 * What a table's committed snapshots remember of earlier loads, read at plan time by walking the
 * snapshots back from the newest (nothing else stores it):
 *
 * - the watermark of an incremental load: the newest snapshot whose `tributary.source-id` is the
 *   source's identity and whose `tributary.watermark` names the column;
 * - the files loaded (newFilesOnly): every file (URI and ETag) any snapshot of the table lists in
 *   its `tributary.positions`.
 *
 * Only the snapshots up to the plan's base snapshot count (none when the table had none): a load
 * of the same source that commits after it is refused at commit (COMMIT_BASE_SUPERSEDED, the
 * commit's `exclusive` source id), so the plan and that check see one history.
 *
 * Snapshots are read PAGE at a time, newest first. An expired snapshot is forgotten: a file only
 * an expired snapshot listed loads again, and a watermark only an expired snapshot held starts
 * the next incremental load from the newest remaining one (or from the start).
 */
import type { Tables, TableRef } from '@tributary/table';
import { loadedFileKey, type PlanHistory } from '@tributary/sources';
import { loadedFilesOf, watermarkOf } from './positions.ts';

const PAGE = 100;

export function tableHistory(tables: Tables, warehouse: string, ref: TableRef, sourceId: string, baseSnapshotId: number | null): PlanHistory {
  async function* snapshots(): AsyncIterable<{ readonly id: number; readonly properties: Readonly<Record<string, string>> }> {
    if (baseSnapshotId === null) return;
    let before = baseSnapshotId + 1;
    for (;;) {
      const page = await tables.listSnapshots(warehouse, ref, PAGE, before);
      for (const s of page) yield s;
      // A short page does not mean the end: a snapshot expired between the listing and its read is left out of it.
      const last = page.at(-1);
      if (last === undefined) return;
      before = last.id;
    }
  }
  return {
    async watermark(column) {
      for await (const { id, properties } of snapshots()) {
        const found = watermarkOf(properties, sourceId, column, id);
        if (found !== undefined) return found.value;
      }
      return null;
    },
    async loadedFiles() {
      const store = tables.warehouseStore(warehouse);
      const loaded = new Set<string>();
      for await (const { id, properties } of snapshots()) {
        for (const [uri, etag] of await loadedFilesOf(properties, (key) => store.get(key), id)) loaded.add(loadedFileKey(uri, etag));
      }
      return loaded;
    },
  };
}
