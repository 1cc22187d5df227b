/**
 * The coordinator's Tables seam with a catalog in front: a table exists when the catalog holds it
 * (a table's files without its catalog entry are not listed, described or written), creating one
 * writes its schema then registers it, dropping one forgets it then deletes its files (Paimon's
 * JdbcCatalog order), and a publish runs under the catalog's lock for the table, then tells the
 * catalog what it added, in the background: that step never delays or fails the commit.
 *
 * With a journal (a catalog whose after-commit step does work: the Hive Metastore), a table's
 * refresh mark is written before its first publish and moved forward by each finished refresh, so
 * a refresh cut short by a crash of the process is found on the next start (`resumeAfterCommits`:
 * the table's latest snapshot is newer than its mark) and run again for every partition holding
 * live data.
 */
import { errorFrom, isTributaryError } from '@tributary/errors';
import { tableErrors, type Table, type TableRef, type Tables } from '@tributary/table';
import type { Catalog } from './catalog.ts';
import { tableLocationIn } from './location.ts';

export interface CatalogTables extends Tables {
  readonly catalog: Catalog;
  /** Waits for the after-commit steps still running (before closing the catalog). */
  drain(): Promise<void>;
  /**
   * Starts the after-commit step again, in the background, for each journalled table whose latest
   * snapshot is newer than its refresh mark (a process stopped before the refresh finished);
   * returns how many. Nothing without a journal.
   */
  resumeAfterCommits(warehouse: string): Promise<number>;
}

/**
 * Durable per-table refresh marks: the latest snapshot whose after-commit step finished. Shared by
 * every coordinator of a deployment.
 */
export interface AfterCommitJournal {
  /** Gives the table the mark `snapshotId` unless it has one (before a publish). */
  begin(ref: TableRef, snapshotId: number): Promise<void>;
  /** Moves the table's mark forward to `snapshotId`, never back (a refresh finished). */
  refreshed(ref: TableRef, snapshotId: number): Promise<void>;
  /** Every table with a mark. */
  marks(): Promise<{ ref: TableRef; snapshotId: number }[]>;
  /** Drops the table's mark (the table is gone). */
  forget(ref: TableRef): Promise<void>;
}

export interface CatalogTablesOptions {
  /** An after-commit step failed (the catalog retried as it could); the snapshot stays committed. */
  readonly onAfterCommitError?: (ref: TableRef, snapshotId: number, error: unknown) => void;
  /**
   * Where the refresh marks are kept. The journal's `refreshed` is the catalog's to call when a
   * refresh finishes (the Hive catalog's `onRefresh`); this seam writes the mark before a publish,
   * drops it with the table, and reads the marks in `resumeAfterCommits`.
   */
  readonly journal?: AfterCommitJournal;
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

  const journal = options.journal;
  /** Runs an after-commit step in the background (drain waits for it); its failure is reported, never thrown. */
  const inBackground = (ref: TableRef, snapshotId: number, step: () => Promise<void>): void => {
    const running = step().catch((error: unknown) => options.onAfterCommitError?.(ref, snapshotId, error));
    pending.add(running);
    void running.finally(() => pending.delete(running));
  };

  return {
    ...inner,
    catalog,
    async drain(): Promise<void> {
      while (pending.size > 0) await Promise.all(pending);
    },
    async resumeAfterCommits(wh) {
      if (journal === undefined) return 0;
      const scan = (async () => {
        let resumed = 0;
        for (const { ref, snapshotId: mark } of await journal.marks()) {
          // From the table's files, not the catalog: the catalog may be the very thing that is away.
          let live: Awaited<ReturnType<Table['livePartitions']>>;
          try {
            const table = await inner.openTable(wh, ref);
            const latest = await table.latestSnapshot();
            if (latest === null || Number(latest.id) <= mark) continue;
            live = await table.livePartitions();
          } catch (error) {
            if (isTributaryError(error) && error.code === 'TABLE_NOT_FOUND') await journal.forget(ref);
            else options.onAfterCommitError?.(ref, mark, error);
            continue;
          }
          const snapshotId = live.snapshotId ?? mark;
          resumed += 1;
          inBackground(ref, snapshotId, () => catalog.afterCommit(ref, { snapshotId, addedPartitions: live.partitions }));
        }
        return resumed;
      })();
      const tracked = scan.then(() => {}, () => {});
      pending.add(tracked);
      void tracked.finally(() => pending.delete(tracked));
      return scan;
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
    schemaSha256: (wh, ref, schemaId) => ifHeld(ref, () => inner.schemaSha256(wh, ref, schemaId)),
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
      await journal?.forget(ref);
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
      // Before the snapshot exists: a crash after it leaves a mark older than the table's latest snapshot.
      await journal?.begin(ref, request.baseSnapshotId ?? 0);
      const result = await catalog.withLock(ref, () => inner.publish(wh, ref, request));
      inBackground(ref, result.snapshotId, async () => {
        const table = await inner.openTable(wh, ref);
        await catalog.afterCommit(ref, { snapshotId: result.snapshotId, addedPartitions: table.addedPartitions(request.messages) });
      });
      return result;
    },
  };
}
