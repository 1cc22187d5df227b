// Property test of snapshot expiration and orphan cleanup on the local disk (fast-check): random
// histories of commits (racing ones rebase, leaving their originals unreferenced), partition
// overwrites, aborted writes, compactions (the rewrite a compaction job runs, committed as one
// COMPACT snapshot; some with a commit landing between plan and commit, some never committed), tags, writers planned on an older snapshot and still uncommitted,
// expirations with random retention and orphan cleanups. After every step every remaining
// snapshot reads exactly the model's rows for it, and after a cleanup the table holds exactly the
// files that a snapshot, a tag or an uncommitted writer reaches: nothing reachable deleted, no
// orphan left.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import fc from 'fast-check';
import { LocalObjectStore, createTable, rewriteTable, type CommitMessage, type InternalRow, type Table } from '@tributary/table';
import { decodeBinaryRow, decodeManifestFile, decodeManifestList, decodeSnapshot } from '@tributary/table/spec';
import { canonical } from './table-suite.ts';

type Op =
  | { readonly kind: 'commit'; readonly keys: readonly number[]; readonly race: boolean }
  | { readonly kind: 'overwrite'; readonly dt: number; readonly keys: readonly number[] }
  | { readonly kind: 'abort'; readonly keys: readonly number[] }
  | { readonly kind: 'begin'; readonly keys: readonly number[] }
  | { readonly kind: 'finish' }
  | { readonly kind: 'compact'; readonly full: boolean; readonly race: boolean; readonly commit: boolean }
  | { readonly kind: 'tag' }
  | { readonly kind: 'expire'; readonly retainMin: number; readonly extraMax: number; readonly limit: number }
  | { readonly kind: 'clean' };

const keys = fc.array(fc.integer({ min: 0, max: 11 }), { minLength: 1, maxLength: 6 });
const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('commit' as const), keys, race: fc.boolean() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('overwrite' as const), dt: fc.integer({ min: 0, max: 1 }), keys }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('abort' as const), keys }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('begin' as const), keys }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('finish' as const) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('compact' as const), full: fc.boolean(), race: fc.boolean(), commit: fc.integer({ min: 0, max: 3 }).map((n) => n > 0) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('tag' as const) }) },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('expire' as const),
      retainMin: fc.integer({ min: 1, max: 3 }),
      extraMax: fc.integer({ min: 0, max: 2 }),
      limit: fc.integer({ min: 1, max: 4 }),
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('clean' as const) }) },
);

/** A key's row: id, dt (the partition: id % 2), and a version text. */
type Model = Map<string, InternalRow>;
let version = 0;
const rowsOf = (ids: readonly number[]): InternalRow[] => ids.map((id) => [BigInt(id), id % 2, `v${version++}`]);
const apply = (model: Model, rows: readonly InternalRow[]): Model => {
  const next = new Map(model);
  for (const r of rows) next.set(String(r[0]), r);
  return next;
};

interface Pending {
  readonly base: number | null;
  readonly rows: InternalRow[];
  readonly messages: CommitMessage[];
  readonly user: string;
}

async function written(table: Table, base: number | null, rows: InternalRow[]): Promise<CommitMessage[]> {
  const write = await table.newWrite({ writerId: `w${version}`, baseSnapshotId: base });
  await write.writeRows(rows);
  return write.prepareCommit();
}

/**
 * What the snapshots, tags and pending writers reach, read from the metadata with the spec codecs:
 * `needed` (manifest lists, manifests, the live files of each snapshot and tag, pending writers'
 * files) must exist; `named` adds the files only a DELETE entry names, which a cleanup keeps (as
 * Paimon's does) and an expiration may already have deleted.
 */
async function reachable(table: Table, pending: readonly Pending[]): Promise<{ needed: Set<string>; named: Set<string> }> {
  const needed = new Set<string>();
  const named = new Set<string>();
  const snapshots = [];
  for (const id of await table.snapshots.listIds()) snapshots.push(await table.snapshot(id));
  for await (const meta of table.store.list(`${table.path}/tag/tag-`)) snapshots.push(decodeSnapshot(await table.store.get(meta.key)));
  const manifestKey = (name: string) => `${table.path}/manifest/${name}`;
  for (const snapshot of snapshots) {
    const live = new Map<string, boolean>();
    for (const list of [snapshot.baseManifestList, snapshot.deltaManifestList]) {
      needed.add(manifestKey(list));
      for (const m of decodeManifestList(await table.store.get(manifestKey(list)))) {
        needed.add(manifestKey(m.fileName));
        for (const e of decodeManifestFile(await table.store.get(manifestKey(m.fileName)))) {
          const [dt] = decodeBinaryRow(e.partition, [{ root: 'INT', nullable: true }]);
          const key = `${table.path}/dt=${String(dt)}/bucket-${e.bucket}/${e.file.fileName}`;
          named.add(key);
          if (e.kind === 'ADD') live.set(key, true);
          else live.delete(key);
        }
      }
    }
    for (const key of live.keys()) needed.add(key);
  }
  for (const p of pending) for (const key of table.dataFileKeys(p.messages)) needed.add(key);
  for (const key of needed) named.add(key);
  return { needed, named };
}

async function present(table: Table): Promise<string[]> {
  const keys: string[] = [];
  for await (const meta of table.store.list(`${table.path}/`)) if (/\/(bucket-\d+|manifest)\//.test(meta.key)) keys.push(meta.key);
  return keys;
}

test('expiration and orphan cleanup never delete a reachable file, and cleanup leaves no orphan', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'tributary-maint-prop-'));
  const store = new LocalObjectStore(dir);
  let tables = 0;
  // What the runs did, so that the property cannot pass by never deleting anything.
  const did = { expiredSnapshots: 0, expiredDataFiles: 0, expiredManifests: 0, orphansDeleted: 0, pinnedExpiries: 0, compactions: 0 };
  try {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 3, maxLength: 20 }), async (ops) => {
        const table = await createTable(store, {
          database: 'db',
          name: `t${tables++}`,
          schema: {
            fields: [{ name: 'id', type: 'BIGINT' }, { name: 'dt', type: 'INT' }, { name: 'v', type: 'STRING' }],
            partitionKeys: ['dt'],
            primaryKeys: ['id', 'dt'],
            options: { bucket: '2', 'manifest.merge-min-count': '2' },
          },
        });
        const models = new Map<number, Model>(); // snapshot id → its rows
        let model: Model = new Map();
        let users = 0;
        const pending: Pending[] = [];
        const commit = async (messages: CommitMessage[], request = {}) => {
          const { snapshotId } = await table.newCommit(`u${users++}`).commit(messages, request);
          return snapshotId;
        };
        const latestId = async () => table.snapshots.latestSnapshotId();
        for (const o of ops) {
          if (o.kind === 'commit') {
            const base = await latestId();
            const first = rowsOf(o.keys);
            const firstMessages = await written(table, base, first);
            if (o.race) {
              // Another writer planned on the same base commits first: ours rebases.
              const other = rowsOf([...o.keys].reverse());
              const otherMessages = await written(table, base, other);
              model = apply(model, other);
              models.set(await commit(otherMessages), model);
            }
            model = apply(model, first);
            models.set(await commit(firstMessages), model);
          } else if (o.kind === 'overwrite') {
            const rows = rowsOf(o.keys.map((k) => k * 2 + o.dt));
            const messages = await written(table, await latestId(), rows);
            model = apply(new Map([...model].filter(([, r]) => r[1] !== o.dt)), rows);
            models.set(await commit(messages, { kind: 'OVERWRITE', overwritePartitions: [table.partitionRow({ dt: o.dt })] }), model);
          } else if (o.kind === 'abort') {
            await written(table, await latestId(), rowsOf(o.keys)); // files written, never committed
          } else if (o.kind === 'begin') {
            const base = await latestId();
            const rows = rowsOf(o.keys);
            pending.push({ base, rows, messages: await written(table, base, rows), user: `p${users++}` });
          } else if (o.kind === 'finish') {
            const p = pending.shift();
            if (p === undefined) continue;
            model = apply(model, p.rows);
            models.set(await commit(p.messages, p.base === null ? {} : { baseSnapshotId: p.base }), model);
          } else if (o.kind === 'compact') {
            // The rewrite of every unit the table's rules (or a full compaction) pick, as the jobs run it.
            const { baseSnapshotId, messages } = await rewriteTable(table, { full: o.full }, `c${version++}`);
            if (baseSnapshotId === null || messages.length === 0 || !o.commit) continue; // a compaction never committed: its files are orphans
            if (o.race) {
              // A load commits between the plan and the compaction's commit: it only adds files, both stay.
              const rows = rowsOf(o.full ? [0, 1] : [2]);
              const loaded = await written(table, await latestId(), rows);
              model = apply(model, rows);
              models.set(await commit(loaded), model);
            }
            models.set(await commit(messages, { kind: 'COMPACT', baseSnapshotId }), model);
            did.compactions++;
          } else if (o.kind === 'tag') {
            const id = await latestId();
            if (id === null) continue;
            await store.put(`${table.path}/tag/tag-t${id}`, await store.get(table.snapshots.snapshotKey(id)));
          } else if (o.kind === 'expire') {
            const bases = pending.flatMap((p) => (p.base === null ? [] : [p.base]));
            const result = await table.expireSnapshots({
              retention: { retainMin: o.retainMin, retainMax: o.retainMin + o.extraMax, timeRetainedMs: 0, maxDeletes: o.limit },
              ...(bases.length > 0 ? { protectFrom: Math.min(...bases) } : {}),
            });
            did.expiredSnapshots += result.expired.length;
            did.expiredDataFiles += result.deletedDataFiles;
            did.expiredManifests += result.deletedManifests;
            if (bases.length > 0 && result.expired.length > 0) did.pinnedExpiries++;
          } else {
            const protectedKeys = new Set(pending.flatMap((p) => table.dataFileKeys(p.messages)));
            const scan = await table.findOrphanFiles({ now: Date.now() + 2 * 86_400_000, isProtected: (key) => protectedKeys.has(key) });
            await store.deleteMany(scan.files.map((f) => f.key));
            did.orphansDeleted += scan.files.length;
            const { named } = await reachable(table, pending);
            const orphans = (await present(table)).filter((key) => !named.has(key));
            assert.deepEqual(orphans, [], 'a cleanup leaves no orphan');
          }
          // Nothing a snapshot, a tag or a pending writer needs is gone.
          const { needed } = await reachable(table, pending);
          const there = new Set(await present(table));
          assert.deepEqual([...needed].filter((key) => !there.has(key)), [], `after ${o.kind}: every reachable file exists`);
          // Every remaining snapshot reads exactly its rows.
          const ids = await table.snapshots.listIds();
          for (const id of ids) {
            assert.deepEqual(canonical(await table.newRead({ snapshotId: id }).toArray()), canonical([...(models.get(id) ?? new Map<string, InternalRow>()).values()]), `snapshot ${id}`);
          }
          // Pending writers' base snapshots stay.
          for (const p of pending) if (p.base !== null) assert.ok(ids.includes(p.base), `pinned base ${p.base} kept`);
        }
        // Pending writers still commit correctly after all that.
        for (const p of pending.splice(0)) {
          model = apply(model, p.rows);
          models.set(await commit(p.messages, p.base === null ? {} : { baseSnapshotId: p.base }), model);
        }
        assert.deepEqual(canonical(await table.newRead().toArray()), canonical([...model.values()]));
      }),
      // A fixed seed (TRIBUTARY_PROPERTY_SEED replays another): the totals asserted below depend on
      // which histories are drawn, and 30 random ones do not always include an expired data file.
      { numRuns: 30, seed: Number(process.env['TRIBUTARY_PROPERTY_SEED'] ?? 20261202) },
    );
    assert.ok(did.expiredSnapshots > 0 && did.expiredDataFiles > 0 && did.expiredManifests > 0 && did.orphansDeleted > 0 && did.pinnedExpiries > 0 && did.compactions > 0, JSON.stringify(did));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
