/**
 * Property test of table maintenance through the coordinator (real Redis and MinIO, 2 worker
 * processes, fast-check): random histories of upsert and overwrite syncs, distributed compactions
 * (full or by the table's rules, alone or racing a sync), aborted syncs, expirations with random
 * retention, expirations and cleanups while a sync is in flight, and orphan cleanups.
 *
 * The model is independent of the reader: the generator's rows are a function of (seed, order id),
 * so the rows of each snapshot are known from the syncs that made it (a COMPACT snapshot holds the
 * rows of the snapshot before it). After every step every retained snapshot reads exactly its rows
 * with Tributary's reader (which opens each of its manifests and live data files); after a cleanup
 * nothing is left under the table that no retained snapshot names, and no staged file of an ended
 * sync or compaction. At the end of each history Paimon Java reads every retained snapshot too.
 *
 * A fixed number of short histories on small tables, with a fixed seed (TRIBUTARY_PROPERTY_SEED
 * replays another); the seed is printed as a test diagnostic.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { ChildProcess } from 'node:child_process';
import fc from 'fast-check';
import type { Coordinator } from '@tributary/coordinator';
import { generatorRow } from '@tributary/sources';
import { openTable, type Table } from '@tributary/table';
import { decodeManifestFile, decodeManifestList } from '@tributary/table/spec';
import { paimonJava, readResults } from '@tributary/testkit';
import { createOrdersTable, generatorSource, inProcessCoordinator, listKeys, spawnWorker, stop, syncEnv, waitForPhase, waitUntil } from './harness.ts';

type Op =
  | { readonly kind: 'sync'; readonly seed: number; readonly rows: number; readonly overwrite: boolean }
  | { readonly kind: 'compact'; readonly full: boolean }
  | { readonly kind: 'race'; readonly seed: number; readonly rows: number; readonly full: boolean }
  | { readonly kind: 'abort'; readonly rows: number }
  | { readonly kind: 'inflight'; readonly seed: number; readonly rows: number }
  | { readonly kind: 'expire'; readonly retainMin: number; readonly extraMax: number; readonly limit: number }
  | { readonly kind: 'clean' };

const seed = fc.integer({ min: 1, max: 1000 });
const rows = fc.integer({ min: 2, max: 30 });
const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('sync' as const), seed, rows, overwrite: fc.integer({ min: 0, max: 3 }).map((n) => n === 0) }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('compact' as const), full: fc.boolean() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('race' as const), seed, rows, full: fc.boolean() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('abort' as const), rows }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('inflight' as const), seed, rows }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('expire' as const),
      retainMin: fc.integer({ min: 1, max: 3 }),
      extraMax: fc.integer({ min: 0, max: 2 }),
      limit: fc.integer({ min: 1, max: 4 }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('clean' as const) }) },
);

/** order id → the seed of the sync that wrote it last. */
type Model = ReadonlyMap<bigint, number>;
const SHARDS = 2;
const ids = (rowsPerShard: number): bigint[] => Array.from({ length: SHARDS * rowsPerShard }, (_, i) => BigInt(i + 1));
const upsert = (model: Model, s: number, rowsPerShard: number): Model => new Map([...model, ...ids(rowsPerShard).map((id): [bigint, number] => [id, s])]);
const overwrite = (s: number, rowsPerShard: number): Model => new Map(ids(rowsPerShard).map((id): [bigint, number] => [id, s]));

/** What a snapshot must read, as `order_id:customer_id` texts, sorted (the customer id is a function of the seed). */
const expected = (model: Model): string[] => [...model].map(([id, s]) => `${id}:${String(generatorRow(s, Number(id))[1])}`).sort();
const projected = (rowsRead: readonly (readonly unknown[])[]): string[] => rowsRead.map((r) => `${String(r[0])}:${String(r[1])}`).sort();

interface CompactionView {
  readonly id: string;
  readonly phase: string;
  readonly snapshotId: number | null;
  readonly jobs: number;
  readonly error: { code: string } | null;
}

describe('maintenance properties (real Redis and MinIO, 2 worker processes)', () => {
  const e = syncEnv('maint-prop');
  let coordinator: Coordinator;
  const workers: ChildProcess[] = [];

  before(async () => {
    coordinator = await inProcessCoordinator(e);
    workers.push(...(await Promise.all([spawnWorker(e), spawnWorker(e)])));
  });
  after(async () => {
    await Promise.all(workers.map((w) => stop(w)));
    await coordinator.close();
  });

  async function post<T>(url: string, payload: unknown, status: number): Promise<T> {
    const response = await coordinator.app.inject({ method: 'POST', url, payload: payload as Record<string, unknown> });
    assert.equal(response.statusCode, status, `${url}: ${response.body}`);
    return response.json<T>();
  }

  const startSync = async (table: string, source: Record<string, unknown>, mode: string): Promise<string> =>
    (await post<{ id: string }>('/v1/syncs', { table: { database: 'shop', table }, source, mode, options: { layout: 'direct' } }, 202)).id;

  /** Waits up to 2 minutes for the sync to end (COMMITTED or ABORTED). */
  const syncEnded = (id: string) => waitForPhase(() => coordinator.syncs.get(id), ['COMMITTED', 'ABORTED'], 120_000);

  async function committed(id: string): Promise<number> {
    const done = await syncEnded(id);
    assert.ok(done.state.phase === 'COMMITTED', JSON.stringify(done.state));
    return done.state.snapshotId;
  }

  /** Waits up to 2 minutes for the compaction to reach COMMITTED, FAILED or CONFLICT. */
  const compactionEnded = (table: string, id: string) =>
    waitUntil(async () => {
      const response = await coordinator.app.inject({ method: 'GET', url: `/v1/tables/shop/${table}/compactions/${id}` });
      assert.equal(response.statusCode, 200, response.body);
      const view = response.json<CompactionView>();
      return ['COMMITTED', 'FAILED', 'CONFLICT'].includes(view.phase) ? view : undefined;
    }, `compaction ${id} ended`, 120_000);

  /** Every file a retained snapshot names (its manifest lists, manifests and every data file an entry of them names). */
  async function named(table: Table): Promise<Set<string>> {
    const keys = new Set<string>();
    const manifestKey = (name: string) => `${table.path}/manifest/${name}`;
    for (const id of await table.snapshots.listIds()) {
      const snapshot = await table.snapshot(id);
      for (const list of [snapshot.baseManifestList, snapshot.deltaManifestList, snapshot.changelogManifestList]) {
        if (list === null || list === undefined) continue;
        keys.add(manifestKey(list));
        for (const m of decodeManifestList(await table.store.get(manifestKey(list)))) {
          keys.add(manifestKey(m.fileName));
          for (const entry of decodeManifestFile(await table.store.get(manifestKey(m.fileName)))) keys.add(`${table.path}/bucket-${entry.bucket}/${entry.file.fileName}`);
        }
      }
    }
    return keys;
  }

  test('expiration and cleanup never delete a file a retained snapshot or a sync in flight needs, and cleanup leaves no orphan', async (t) => {
    const propertySeed = Number(process.env['TRIBUTARY_PROPERTY_SEED'] ?? 20261202);
    t.diagnostic(`fast-check seed ${propertySeed} (TRIBUTARY_PROPERTY_SEED replays another)`);
    let tables = 0;
    // What the histories did, so that the property cannot pass by never deleting anything.
    const did = { compacted: 0, raced: 0, aborted: 0, expiredSnapshots: 0, expiredDataFiles: 0, orphansDeleted: 0, inflight: 0, javaReads: 0 };
    await fc.assert(
      // Each history ends with an expiration keeping one snapshot and a cleanup, so that every
      // history deletes what its steps left behind.
      fc.asyncProperty(fc.array(op, { minLength: 4, maxLength: 8, size: 'max' }), async (drawn) => {
        const ops: Op[] = [...drawn, { kind: 'expire', retainMin: 1, extraMax: 0, limit: 100 }, { kind: 'clean' }];
        t.diagnostic(`history ${tables}: ${ops.map((o) => o.kind).join(' ')}`);
        const name = `prop_${tables++}`;
        await createOrdersTable(coordinator, 'shop', name, { primaryKeys: ['order_id'], bucket: 2, options: { 'num-sorted-run.compaction-trigger': '2' } });
        const table = await openTable(e.store, 'shop', name);
        const models = new Map<number, Model>(); // snapshot id → its rows
        const mine: string[] = []; // the ids of this table's syncs and compactions
        const begin = async (source: Record<string, unknown>, mode: string): Promise<string> => {
          const id = await startSync(name, source, mode);
          mine.push(id);
          return id;
        };
        let model: Model = new Map();
        const compact = async (full: boolean): Promise<CompactionView> => {
          const view = await post<CompactionView>(`/v1/tables/shop/${name}/compactions`, { full }, 202);
          mine.push(view.id);
          return view;
        };
        const recordCompaction = async (view: CompactionView, rowsThen: (snapshotId: number) => Model): Promise<void> => {
          assert.equal(view.phase, 'COMMITTED', JSON.stringify(view));
          if (view.snapshotId === null) return;
          // The coordinator deletes a committed compaction's staged blobs right after recording it.
          await waitUntil(async () => (await listKeys(e, `.tributary/compactions/${view.id}/`)).length === 0, `compaction ${view.id}'s staged blobs deleted`, 60_000);
          models.set(view.snapshotId, rowsThen(view.snapshotId));
          did.compacted++;
        };
        // Paimon Java reads every retained snapshot exactly (before the final expiration, and after it).
        const javaReads = async (): Promise<void> => {
          const retained = await table.snapshots.listIds();
          if (retained.length === 0) return;
          const reads = readResults(await paimonJava.batch(retained.map((snapshotId) => ({ op: 'read' as const, warehouse: e.warehouse, database: 'shop', table: name, snapshotId }))));
          retained.forEach((id, i) => assert.deepEqual(projected(reads[i]?.rows ?? []), expected(models.get(id) ?? new Map()), `Paimon Java, snapshot ${id}`));
          did.javaReads += retained.length;
        };
        for (const [step, o] of ops.entries()) {
          if (step === drawn.length) await javaReads();
          if (o.kind === 'sync') {
            const id = await begin(generatorSource(SHARDS, o.rows, { seed: o.seed }), o.overwrite ? 'overwrite' : 'upsert');
            model = o.overwrite ? overwrite(o.seed, o.rows) : upsert(model, o.seed, o.rows);
            models.set(await committed(id), model);
          } else if (o.kind === 'compact') {
            const started = await compact(o.full);
            const before = model;
            await recordCompaction(started.phase === 'RUNNING' ? await compactionEnded(name, started.id) : started, () => before);
          } else if (o.kind === 'race') {
            // A sync and a compaction of the same buckets at once: both commit, in either order.
            const syncId = await begin(generatorSource(SHARDS, o.rows, { seed: o.seed }), 'upsert');
            const started = await compact(o.full);
            const before = model;
            model = upsert(model, o.seed, o.rows);
            const syncSnapshot = await committed(syncId);
            models.set(syncSnapshot, model);
            const after = model;
            await recordCompaction(started.phase === 'RUNNING' ? await compactionEnded(name, started.id) : started, (id) => (id < syncSnapshot ? before : after));
            did.raced++;
          } else if (o.kind === 'abort') {
            // Shard 0 writes its files; shard 1's last row cannot be converted: the sync aborts.
            const id = await begin(generatorSource(SHARDS, o.rows, { faults: { badRow: { shard: 1, position: o.rows - 1 } } }), 'upsert');
            const done = await syncEnded(id);
            assert.equal(done.state.phase, 'ABORTED', JSON.stringify(done.state));
            did.aborted++;
          } else if (o.kind === 'inflight') {
            // A slow sync planned on the latest snapshot; an expiration keeping one snapshot and a
            // cleanup with no guard age run while it is live (or just after it committed).
            const id = await begin(generatorSource(SHARDS, o.rows, { seed: o.seed, batchRows: 1, faults: { delayMsPerBatch: 20 } }), 'upsert');
            const expired = await post<{ expired: number[]; deletedDataFiles: number }>(`/v1/tables/shop/${name}/expirations`, { retainMin: 1, retainMax: 1, timeRetainedMs: 0 }, 200);
            const cleaned = await post<{ fileCount: number }>(`/v1/tables/shop/${name}/orphan-cleanups`, { olderThanMs: 0, dryRun: false }, 200);
            for (const s of expired.expired) models.delete(s);
            did.expiredSnapshots += expired.expired.length;
            did.expiredDataFiles += expired.deletedDataFiles;
            did.orphansDeleted += cleaned.fileCount;
            model = upsert(model, o.seed, o.rows);
            models.set(await committed(id), model);
            did.inflight++;
          } else if (o.kind === 'expire') {
            const result = await post<{ expired: number[]; deletedDataFiles: number }>(
              `/v1/tables/shop/${name}/expirations`,
              { retainMin: o.retainMin, retainMax: o.retainMin + o.extraMax, timeRetainedMs: 0, maxDeletes: o.limit },
              200,
            );
            for (const s of result.expired) models.delete(s);
            did.expiredSnapshots += result.expired.length;
            did.expiredDataFiles += result.deletedDataFiles;
          } else {
            const cleaned = await post<{ fileCount: number }>(`/v1/tables/shop/${name}/orphan-cleanups`, { olderThanMs: 0, dryRun: false }, 200);
            did.orphansDeleted += cleaned.fileCount;
            // Nothing is left under the table that no retained snapshot names…
            const keep = await named(table);
            const left = (await listKeys(e, `${table.path}/`)).filter((k) => /\/(bucket-\d+|manifest)\//.test(k) && !keep.has(k));
            assert.deepEqual(left, [], 'a cleanup leaves no orphan in the table');
            // …and no staged file of an ended sync or compaction (a sync keeps its outcome summary).
            const staged = (await listKeys(e, '.tributary/')).filter((k) => mine.some((id) => k.includes(`/${id}/`)) && !k.endsWith('/outcome.json') && !k.endsWith('/positions.json'));
            assert.deepEqual(staged, [], 'a cleanup leaves nothing staged once every sync and compaction ended');
          }
          // Every retained snapshot reads exactly its rows (the reader opens its manifests and live files).
          const retained = await table.snapshots.listIds();
          assert.deepEqual(retained.filter((id) => !models.has(id)), [], `after ${o.kind}: every retained snapshot is one the history made`);
          for (const id of retained) {
            const read: unknown[][] = [];
            for await (const row of table.newRead({ snapshotId: id })) read.push(row as unknown[]);
            assert.deepEqual(projected(read), expected(models.get(id) ?? new Map()), `after ${o.kind}: snapshot ${id}`);
          }
          // The newest snapshot is never expired.
          if (models.size > 0) assert.ok(retained.includes(Math.max(...models.keys())), `after ${o.kind}: the latest snapshot stays`);
        }
        await javaReads();
      }),
      { numRuns: 5, seed: propertySeed },
    );
    t.diagnostic(JSON.stringify(did));
    assert.ok(Object.values(did).every((n) => n > 0), `every kind of step happened: ${JSON.stringify(did)}`);
  });
});
