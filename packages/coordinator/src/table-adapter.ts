/**
 * CoordinatorTables over @tributary/table. The messages decoded from blobs (the protocol's shape)
 * become the table's own with fromProtocolCommitMessage.
 */
import { errorFrom, isTributaryError, type CommitMessage } from '@tributary/protocol';
import {
  FileStoreScan,
  createTable,
  credentialedStores,
  formatDataType,
  jsonCell,
  listTables,
  mapInOrder,
  fromProtocolCommitMessage,
  openTable,
  tableErrors,
  tablePath,
  warehouseStores,
  type S3ConnectionOptions,
  type Table,
} from '@tributary/table';
import type {
  CommitIdentity,
  CoordinatorTables,
  DataFileSummary,
  PublishRequest,
  PublishResult,
  RowPreview,
  SnapshotSummary,
  TableDefinition,
  TableInfo,
} from './table-port.ts';
import type { TableRef } from './sync/state.ts';

export function coordinatorTables(s3: S3ConnectionOptions = {}): CoordinatorTables {
  const storeOf = warehouseStores(s3);
  const open = async (warehouse: string, ref: TableRef): Promise<Table | undefined> => {
    try {
      return await openTable(storeOf(warehouse), ref.database, ref.table);
    } catch (error) {
      if (isTributaryError(error) && error.code === 'TABLE_NOT_FOUND') return undefined;
      throw error;
    }
  };
  const require = async (warehouse: string, ref: TableRef): Promise<Table> => {
    const table = await open(warehouse, ref);
    if (table === undefined) {
      throw errorFrom(tableErrors, 'TABLE_NOT_FOUND', `table ${ref.database}.${ref.table} does not exist`, { ...ref });
    }
    return table;
  };
  return {
    warehouseStore: storeOf,
    sourceStore: credentialedStores(),
    tablePath: (ref) => tablePath({ database: ref.database, name: ref.table }),
    async createTable(warehouse: string, ref: TableRef, definition: TableDefinition): Promise<TableInfo> {
      const schema = {
        fields: definition.columns,
        partitionKeys: definition.partitionKeys,
        primaryKeys: definition.primaryKeys,
        options: definition.options,
      };
      return describe(await createTable(storeOf(warehouse), { database: ref.database, name: ref.table, schema }));
    },
    async describeTable(warehouse: string, ref: TableRef): Promise<TableInfo | undefined> {
      const table = await open(warehouse, ref);
      return table === undefined ? undefined : describe(table);
    },
    async listTableRefs(warehouse: string): Promise<TableRef[]> {
      return (await listTables(storeOf(warehouse))).map((id) => ({ database: id.database, table: id.name }));
    },
    async summarizeTable(warehouse: string, ref: TableRef) {
      const table = await open(warehouse, ref);
      if (table === undefined) return undefined;
      return {
        database: table.database,
        table: table.name,
        primaryKeys: table.schema.primaryKeys,
        partitionKeys: table.schema.partitionKeys,
        bucket: table.bucketCount,
        latestSnapshotId: await table.snapshots.latestSnapshotId(),
      };
    },
    async dropTable(warehouse: string, ref: TableRef): Promise<void> {
      const table = await require(warehouse, ref);
      const keys: string[] = [];
      for await (const meta of table.store.list(`${table.path}/`)) keys.push(meta.key);
      const rank = (key: string): number => (key.startsWith(`${table.path}/snapshot/`) ? 0 : key.startsWith(`${table.path}/schema/`) ? 2 : 1);
      for (const step of [0, 1, 2]) await table.store.deleteMany(keys.filter((k) => rank(k) === step));
    },
    async listSnapshots(warehouse: string, ref: TableRef, limit: number, beforeId?: number): Promise<SnapshotSummary[]> {
      const table = await require(warehouse, ref);
      const ids = (await table.snapshots.listIds()).filter((id) => beforeId === undefined || id < beforeId);
      const page = ids.reverse().slice(0, limit);
      const snapshots = await mapInOrder(page, SNAPSHOT_READS, (id) => table.snapshots.tryGetSnapshot(id));
      return snapshots.flatMap((s) => (s === null ? [] : [snapshotSummary(s)])); // null: expired since the listing
    },
    async listFiles(warehouse: string, ref: TableRef, snapshotId?: number): Promise<{ snapshotId: number | null; files: DataFileSummary[] }> {
      return (await require(warehouse, ref)).dataFiles(snapshotId);
    },
    async previewRows(warehouse: string, ref: TableRef, limit: number, snapshotId?: number): Promise<RowPreview> {
      const table = await require(warehouse, ref);
      const id = snapshotId ?? (await table.snapshots.latestSnapshotId());
      if (snapshotId !== undefined) await table.snapshot(snapshotId); // SNAPSHOT_NOT_FOUND before any read
      const fields = table.schema.fields;
      const rows: (readonly ReturnType<typeof jsonCell>[])[] = [];
      if (id !== null && limit > 0) {
        for await (const row of table.newRead({ snapshotId: id }).rows()) {
          rows.push(row.map((value, i) => jsonCell(value, (fields[i] as (typeof fields)[number]).type)));
          if (rows.length >= limit) break;
        }
      }
      return { snapshotId: id, columns: fields.map((f) => ({ name: f.name, type: formatDataType(f.type) })), rows };
    },
    async publish(warehouse: string, ref: TableRef, request: PublishRequest): Promise<PublishResult> {
      const table = await require(warehouse, ref);
      const result = await table.newCommit(request.identity.commitUser).commit(request.messages.map(fromProtocolCommitMessage), {
        identifier: request.identity.commitIdentifier,
        kind: request.kind,
        ...(request.overwritePartitions === undefined ? {} : { overwritePartitions: request.overwritePartitions }),
        ...(request.baseSnapshotId === null ? {} : { baseSnapshotId: request.baseSnapshotId }),
        properties: request.properties,
      });
      return { snapshotId: result.snapshotId, attempts: result.attempts, conflicts: result.conflicts };
    },
    async countCollidingKeys(warehouse: string, ref: TableRef, shards: readonly (readonly CommitMessage[])[]): Promise<number | null> {
      const table = await require(warehouse, ref);
      if (table.schema.primaryKeys.length === 0) return null;
      return table.countSharedKeys(shards.map((messages) => messages.map(fromProtocolCommitMessage)));
    },
    async findCommitted(warehouse: string, ref: TableRef, identity: CommitIdentity, afterSnapshotId: number | null): Promise<number | undefined> {
      const table = await require(warehouse, ref);
      const snapshot = await table.snapshots.findCommitted(identity, afterSnapshotId ?? 0);
      return snapshot === null ? undefined : Number(snapshot.id);
    },
  };
}

async function describe(table: Table): Promise<TableInfo> {
  const schema = table.schema;
  const snapshot = await table.latestSnapshot();
  const partitionFields = schema.fields.filter((f) => schema.partitionKeys.includes(f.name));
  const files = snapshot === null ? [] : await new FileStoreScan(table.store, table.path, partitionFields).plan(snapshot);
  return {
    database: table.database,
    table: table.name,
    schemaId: schema.id,
    columns: schema.fields.map((f) => ({ name: f.name, type: f.type, ...(f.description === undefined ? {} : { description: f.description }) })),
    partitionKeys: schema.partitionKeys,
    primaryKeys: schema.primaryKeys,
    options: schema.options,
    latestSnapshotId: snapshot === null ? null : Number(snapshot.id),
    fileCount: files.length,
    rowCount: snapshot === null ? 0 : Number(snapshot.totalRecordCount),
  };
}

/** Snapshot files read at once while listing snapshots. */
const SNAPSHOT_READS = 8;

type Snapshot = NonNullable<Awaited<ReturnType<Table['latestSnapshot']>>>;

function snapshotSummary(s: Snapshot): SnapshotSummary {
  return {
    id: Number(s.id),
    commitKind: s.commitKind,
    time: new Date(Number(s.timeMillis)).toISOString(),
    commitUser: s.commitUser,
    totalRecordCount: Number(s.totalRecordCount),
    deltaRecordCount: Number(s.deltaRecordCount),
    changelogRecordCount: s.changelogRecordCount === null ? null : Number(s.changelogRecordCount),
    properties: Object.fromEntries(s.properties ?? []),
  };
}
