/**
 * Shared by the Hive catalog's integration tests: a local warehouse with a Tributary table
 * written and committed through @tributary/table, and a metastore connection for checking what
 * the metastore holds (the real one started by infra/hive-metastore.sh unless a test starts its own).
 */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalObjectStore, createTable, type InternalRow, type Table } from '@tributary/table';
import { services, uniqueName } from '@tributary/testkit';
import { MetastoreConnection } from '../../src/hive/metastore-client.ts';

export const metastoreUri = (port = services.hiveMetastore.port) => `thrift://${services.hiveMetastore.host}:${port}`;

export function metastore(port = services.hiveMetastore.port): MetastoreConnection {
  return new MetastoreConnection({ host: services.hiveMetastore.host, port }, { requestTimeoutMs: 20_000 });
}

export interface Warehouse {
  readonly root: string;
  readonly store: LocalObjectStore;
  /** A database name no other test uses. */
  readonly database: string;
}

export async function localWarehouse(prefix: string): Promise<Warehouse> {
  const root = await mkdtemp(join(tmpdir(), `tributary-hive-${prefix}-`));
  return { root, store: new LocalObjectStore(root), database: uniqueName(`hive_${prefix}`).toLowerCase().replace(/[^a-z0-9_]/g, '_') };
}

/** A primary-key table (id BIGINT, region STRING, amount DOUBLE) partitioned by region. */
export async function regionTable(w: Warehouse, name: string, options: Record<string, string> = {}): Promise<Table> {
  return createTable(w.store, {
    database: w.database,
    name,
    schema: {
      fields: [
        { name: 'id', type: 'BIGINT' },
        { name: 'region', type: 'STRING' },
        { name: 'amount', type: 'DOUBLE', description: 'the amount' },
      ],
      partitionKeys: ['region'],
      primaryKeys: ['id', 'region'],
      options: { bucket: '2', 'metastore.partitioned-table': 'true', ...options },
    },
  });
}

/** Writes the rows and commits them as one snapshot; returns its id. */
export async function commitRows(table: Table, rows: readonly InternalRow[], writerId: string): Promise<number> {
  const base = (await table.latestSnapshot())?.id ?? null;
  const write = await table.newWrite({ writerId, baseSnapshotId: base === null ? null : Number(base) });
  await write.writeRows(rows, rows.map(() => 0));
  const messages = await write.prepareCommit();
  const result = await table.newCommit(`commit-${writerId}`).commit(messages, { identifier: 1n });
  return Number(result.snapshotId);
}
