/**
 * The filesystem catalog (Paimon's FileSystemCatalog): the warehouse's layout is the catalog. A
 * database is the `<db>.db/` prefix, a table a directory below it holding a schema file, so a
 * table exists once its schema is written and is gone once its files are; there is nothing more
 * to record. An object store has no empty directories, so a database exists through its tables.
 */
import { listTables, type ObjectStore, type TableRef } from '@tributary/table';
import type { Catalog, CommittedSnapshot } from './catalog.ts';
import { tableLocationIn } from './location.ts';

export function filesystemCatalog(warehouse: string, store: ObjectStore): Catalog {
  const tablesOf = async (database: string): Promise<string[]> =>
    (await listTables(store)).filter((id) => id.database === database).map((id) => id.name);
  return {
    kind: 'filesystem',
    async createDatabase(): Promise<void> {},
    async listDatabases(): Promise<string[]> {
      const names: string[] = [];
      for await (const dir of store.listDirectories('')) if (dir.endsWith('.db') && dir.length > 3) names.push(dir.slice(0, -3));
      return names.sort();
    },
    async registerTable(): Promise<void> {},
    listTables: tablesOf,
    async tableLocation(ref: TableRef): Promise<string | null> {
      return (await tablesOf(ref.database)).includes(ref.table) ? tableLocationIn(warehouse, ref) : null;
    },
    async dropTable(): Promise<void> {},
    async withLock<T>(_ref: TableRef, fn: () => Promise<T>): Promise<T> {
      return fn();
    },
    async afterCommit(_ref: TableRef, _commit: CommittedSnapshot): Promise<void> {},
    // The warehouse's storage is the catalog: readiness probes it already.
    async ping(): Promise<void> {},
    async close(): Promise<void> {},
  };
}
