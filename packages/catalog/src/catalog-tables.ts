/**
 * The coordinator's Tables seam with a catalog in front: a table exists when the catalog holds it
 * (a table's files without its catalog entry are not listed, described or written), creating one
 * writes its schema then registers it, dropping one forgets it then deletes its files (Paimon's
 * JdbcCatalog order), and a publish runs under the catalog's lock for the table, then tells the
 * catalog what it added, in the background: that step never delays or fails the commit.
 */
import { errorFrom, isTributaryError } from '@tributary/errors';
import { tableErrors, type TableRef, type Tables } from '@tributary/table';
import type { Catalog } from './catalog.ts';
import { tableLocationIn } from './location.ts';

export interface CatalogTables extends Tables {
  readonly catalog: Catalog;
  /** Waits for the after-commit steps still running (before closing the catalog). */
  drain(): Promise<void>;
}

export interface CatalogTablesOptions {
  /** An after-commit step failed (the catalog retried as it could); the snapshot stays committed. */
  readonly onAfterCommitError?: (ref: TableRef, snapshotId: number, error: unknown) => void;
}

/** `inner` behind the catalog of `warehouse` (the coordinator serves one warehouse). */
export function catalogTables(inner: Tables, catalog: Catalog, warehouse: string, options: CatalogTablesOptions = {}): CatalogTables {
  const pending = new Set<Promise<void>>();
  const notFound = (ref: TableRef) => errorFrom(tableErrors, 'TABLE_NOT_FOUND', `table ${ref.database}.${ref.table} does not exist`, { ...ref });
  const held = async (ref: TableRef): Promise<boolean> => (await catalog.tableLocation(ref)) !== null;
  const require = async (ref: TableRef): Promise<void> => {
    if (!(await held(ref))) throw notFound(ref);
  };
  /** The inner call when the catalog holds the table, else undefined. */
  const ifHeld = async <T>(ref: TableRef, fn: () => Promise<T>): Promise<T | undefined> => ((await held(ref)) ? fn() : undefined);

  return {
    ...inner,
    catalog,
    async drain(): Promise<void> {
      while (pending.size > 0) await Promise.all(pending);
    },
    async openTable(wh, ref, schemaId) {
      await require(ref);
      return inner.openTable(wh, ref, schemaId);
    },
    async createTable(wh, ref, schema) {
      await catalog.createDatabase(ref.database);
      if (await held(ref)) {
        throw errorFrom(tableErrors, 'TABLE_ALREADY_EXISTS', `table ${ref.database}.${ref.table} already exists`, { table: inner.tablePath(ref) });
      }
      // As Paimon's JdbcCatalog: the schema is written under the table's lock, then the table registered.
      const description = await catalog.withLock(ref, () => inner.createTable(wh, ref, schema));
      try {
        await catalog.registerTable(ref, tableLocationIn(warehouse, ref));
      } catch (error) {
        if (isTributaryError(error) && error.code === 'CATALOG_TABLE_EXISTS') {
          throw errorFrom(tableErrors, 'TABLE_ALREADY_EXISTS', `table ${ref.database}.${ref.table} already exists`, { table: inner.tablePath(ref) });
        }
        throw error;
      }
      return description;
    },
    describeTable: (wh, ref) => ifHeld(ref, () => inner.describeTable(wh, ref)),
    describeTableWithStats: (wh, ref) => ifHeld(ref, () => inner.describeTableWithStats(wh, ref)),
    summarizeTable: (wh, ref) => ifHeld(ref, () => inner.summarizeTable(wh, ref)),
    async listTableRefs() {
      const refs: TableRef[] = [];
      for (const database of await catalog.listDatabases()) for (const table of await catalog.listTables(database)) refs.push({ database, table });
      return refs; // databases and tables come sorted
    },
    async dropTable(wh, ref) {
      await require(ref);
      await catalog.dropTable(ref);
      try {
        await inner.dropTable(wh, ref);
      } catch (error) {
        // Registered without files (created elsewhere and never written, or half dropped): forgotten is dropped.
        if (!(isTributaryError(error) && error.code === 'TABLE_NOT_FOUND')) throw error;
      }
    },
    async listSnapshots(wh, ref, limit, beforeId) {
      await require(ref);
      return inner.listSnapshots(wh, ref, limit, beforeId);
    },
    async listFiles(wh, ref, snapshotId) {
      await require(ref);
      return inner.listFiles(wh, ref, snapshotId);
    },
    async previewRows(wh, ref, limit, snapshotId) {
      await require(ref);
      return inner.previewRows(wh, ref, limit, snapshotId);
    },
    async auditChangelog(wh, ref, query) {
      await require(ref);
      return inner.auditChangelog(wh, ref, query);
    },
    async expireSnapshots(wh, ref, request) {
      await require(ref);
      return inner.expireSnapshots(wh, ref, request);
    },
    async findOrphanFiles(wh, ref, request) {
      await require(ref);
      return inner.findOrphanFiles(wh, ref, request);
    },
    async publish(wh, ref, request) {
      await require(ref);
      const result = await catalog.withLock(ref, () => inner.publish(wh, ref, request));
      const step = (async () => {
        try {
          const table = await inner.openTable(wh, ref);
          await catalog.afterCommit(ref, { snapshotId: result.snapshotId, addedPartitions: table.addedPartitions(request.messages) });
        } catch (error) {
          options.onAfterCommitError?.(ref, result.snapshotId, error);
        }
      })();
      pending.add(step);
      void step.finally(() => pending.delete(step));
      return result;
    },
  };
}
