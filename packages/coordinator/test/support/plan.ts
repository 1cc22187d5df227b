/**
 * A sync plan for the tests of the coordinator's own machinery (the store, the state machine, the
 * flows, the committer), which need a plan but not a real source: the generator, appended, on no
 * base snapshot.
 */
import type { PlannedShard, SyncPlan, SyncPlanOptions } from '../../src/sync/state.ts';
import type { TableRef } from '@tributary/table';

export interface TestPlanOptions {
  /** Default `db.orders`. */
  readonly table?: TableRef;
  /** How many shards (`shard-<i>`, spec `{ index: i }`; default 1), or the shards themselves. */
  readonly shards?: number | readonly PlannedShard[];
  readonly mode?: SyncPlan['mode'];
  /** Over `{ maxAttempts: 3, snapshotProperties: {} }`. */
  readonly options?: Partial<SyncPlanOptions>;
}

/** The plan of a sync whose commit user is `commitUser` (one per test file, so their commits never look alike). */
export function testPlan(commitUser: string, o: TestPlanOptions = {}): SyncPlan {
  const shards = typeof o.shards === 'object' ? o.shards : Array.from({ length: o.shards ?? 1 }, (_, i) => ({ id: `shard-${i}`, spec: { index: i } }));
  return {
    table: o.table ?? { database: 'db', table: 'orders' },
    mode: o.mode ?? 'append',
    source: { kind: 'generator' },
    shards,
    baseSnapshotId: null,
    schemaId: 0,
    commitUser,
    commitIdentifier: '1',
    options: { maxAttempts: 3, snapshotProperties: {}, ...o.options },
  };
}
