// TableMaintenance's rules that need no storage: the live syncs' oldest pinned base is what
// expiration protects, and an expiration after a commit never throws (it is logged instead).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Logger } from 'pino';
import { errorFrom } from '@tributary/protocol';
import { tableErrors, type Tables } from '@tributary/table';
import { TableMaintenance } from '../../../src/maintenance/table-maintenance.ts';
import type { SyncStore } from '../../../src/sync/store.ts';

const ref = { database: 'shop', table: 'orders' };

function storeWith(bases: Record<string, number | null>): SyncStore {
  return {
    activeIdsOf: () => Promise.resolve(Object.keys(bases)),
    get: (id: string) => Promise.resolve({ id, plan: { table: ref, baseSnapshotId: bases[id] }, state: { phase: 'PREPARING' } }),
  } as unknown as SyncStore;
}

function logger(lines: string[]): Logger {
  return { info: (_o: unknown, m: string) => lines.push(`info ${m}`), warn: (o: { code?: string }, m: string) => lines.push(`warn ${o.code} ${m}`) } as unknown as Logger;
}

describe('TableMaintenance', () => {
  test("expiration protects the oldest base snapshot among the table's live syncs", async () => {
    const calls: unknown[] = [];
    const tables = {
      expireSnapshots: (_w: string, _r: unknown, request: unknown) => {
        calls.push(request);
        return Promise.resolve({ expired: [], earliestSnapshotId: 1, deletedDataFiles: 0, deletedChangelogFiles: 0, deletedManifests: 0 });
      },
    } as unknown as Tables;
    await new TableMaintenance({ tables, warehouse: 'w', store: storeWith({ a: 7, b: 3, c: null }) }).expire(ref, { retainMin: 1 });
    await new TableMaintenance({ tables, warehouse: 'w', store: storeWith({ c: null }) }).expire(ref);
    assert.deepEqual(calls, [{ retention: { retainMin: 1 }, protectFrom: 3 }, { retention: {} }]);
  });

  test('a failed expiration after a commit is logged with its code, never thrown', async () => {
    const tables = {
      expireSnapshots: () => Promise.reject(errorFrom(tableErrors, 'STORAGE_UNAVAILABLE', 'storage away', {})),
    } as unknown as Tables;
    const lines: string[] = [];
    await new TableMaintenance({ tables, warehouse: 'w', store: storeWith({}), logger: logger(lines) }).expireAfterCommit(ref, 'sync-1');
    assert.deepEqual(lines, ['warn STORAGE_UNAVAILABLE snapshot expiration failed; retried after the next commit']);
  });
});
