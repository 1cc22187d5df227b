/**
 * Table maintenance through the coordinator (real Redis and MinIO, 2 worker processes): snapshot
 * expiration after each committed sync and on request, orphan cleanup of the table and of its
 * syncs' staging (dry run, then delete), the table's visible state, cleanup and expiration racing a
 * sync in flight, which must lose nothing of it, and cleanup of compactions' staging: an ended
 * compaction's leftovers go, a live compaction's staging and files and a committed one's files stay.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { ChildProcess } from 'node:child_process';
import type { Coordinator } from '@tributary/coordinator';
import { compactionStagingPrefix, stagedCompactionBlobKey } from '@tributary/protocol';
import { openTable } from '@tributary/table';
import {
  createOrdersTable,
  generatorSource,
  inProcessCoordinator,
  listKeys,
  pypaimonRead,
  readRows,
  spawnWorker,
  stop,
  syncEnv,
  waitForPhase,
  waitUntil,
} from './harness.ts';

const ROWS = 200;

async function startSync(c: Coordinator, table: string, source: Record<string, unknown>, mode = 'append'): Promise<string> {
  const response = await c.app.inject({ method: 'POST', url: '/v1/syncs', payload: { table: { database: 'shop', table }, source, mode } });
  assert.equal(response.statusCode, 202, response.body);
  return response.json<{ id: string }>().id;
}

async function sync(c: Coordinator, table: string, mode = 'append', shards = 2): Promise<{ id: string; snapshotId: number }> {
  const id = await startSync(c, table, generatorSource(shards, ROWS / shards), mode);
  const done = await waitForPhase(() => c.syncs.get(id), ['COMMITTED', 'ABORTED'], 60_000);
  assert.equal(done.state.phase, 'COMMITTED', JSON.stringify(done.state));
  assert.ok(done.state.phase === 'COMMITTED');
  return { id, snapshotId: done.state.snapshotId };
}

interface TableView {
  readonly snapshotCount: number;
  readonly earliestSnapshotId: number | null;
  readonly latestSnapshotId: number | null;
  readonly fileCount: number;
  readonly filesPerLevel: Record<string, number>;
  readonly totalFileSize: number;
  readonly averageFileSize: number;
  readonly orphans: { readonly fileCount: number; readonly bytes: number; readonly dryRun: boolean } | null;
}

async function show(c: Coordinator, table: string): Promise<TableView> {
  const response = await c.app.inject({ method: 'GET', url: `/v1/tables/shop/${table}` });
  assert.equal(response.statusCode, 200, response.body);
  return response.json<TableView>();
}

async function rowCountAt(e: ReturnType<typeof syncEnv>, table: string, snapshotId: number): Promise<number> {
  let n = 0;
  for await (const _row of (await openTable(e.store, 'shop', table)).newRead({ snapshotId })) n++;
  return n;
}

describe('table maintenance (real Redis and MinIO, 2 worker processes)', () => {
  const e = syncEnv('maintenance');
  let coordinator: Coordinator;
  const workers: ChildProcess[] = [];
  /** Set by a test to stop a commit at one of its points (the coordinator's crash-test hook). */
  let hold: ((point: string) => void) | undefined;

  before(async () => {
    coordinator = await inProcessCoordinator(e, { faultPoint: (point) => hold?.(point) });
    workers.push(...(await Promise.all([spawnWorker(e), spawnWorker(e)])));
  });
  after(async () => {
    await Promise.all(workers.map((w) => stop(w)));
    await coordinator.close();
  });

  test('retention options are honoured after each commit; expired files and manifests are deleted, the kept snapshots read exactly', async () => {
    const options = { 'snapshot.num-retained.min': '2', 'snapshot.num-retained.max': '2', 'snapshot.time-retained': '1 ms' };
    await createOrdersTable(coordinator, 'shop', 'expiring', { options });
    const first = await sync(coordinator, 'expiring');
    const manifestsAfterFirst = await listKeys(e, 'shop.db/expiring/manifest/');
    await sync(coordinator, 'expiring', 'overwrite'); // deletes the first sync's files from the table
    const third = await sync(coordinator, 'expiring');
    const fourth = await sync(coordinator, 'expiring');
    // The expiration runs after the sync is recorded COMMITTED.
    const view = await waitUntil(async () => {
      const shown = await show(coordinator, 'expiring');
      return shown.snapshotCount === 2 && shown;
    }, 'the retention options keep 2 snapshots');
    assert.deepEqual([view.snapshotCount, view.earliestSnapshotId, view.latestSnapshotId], [2, third.snapshotId, fourth.snapshotId]);
    assert.equal(new TextDecoder().decode(await e.store.get('shop.db/expiring/snapshot/EARLIEST')), String(third.snapshotId));
    // The first sync's files left the table at the overwrite; both snapshots that held them expired.
    assert.deepEqual((await listKeys(e, 'shop.db/expiring/')).filter((k) => k.includes(`/data-${first.id}-`)), []);
    const manifestsNow = new Set(await listKeys(e, 'shop.db/expiring/manifest/'));
    assert.ok(manifestsAfterFirst.some((k) => !manifestsNow.has(k)), 'manifests of expired snapshots are gone');
    // The kept snapshots read exactly their rows, by Tributary and pypaimon.
    assert.equal(await rowCountAt(e, 'expiring', third.snapshotId), 2 * ROWS);
    assert.equal(await rowCountAt(e, 'expiring', fourth.snapshotId), 3 * ROWS);
    assert.equal((await pypaimonRead(e, 'shop', 'expiring')).rows.length, 3 * ROWS);
    assert.deepEqual(view.filesPerLevel, { 0: view.fileCount });
    assert.ok(view.fileCount > 0 && view.averageFileSize === Math.round(view.totalFileSize / view.fileCount));
  });

  test('POST …/expirations expires on request with overrides; refuses bad overrides and a missing table', async () => {
    await createOrdersTable(coordinator, 'shop', 'on_request');
    for (let i = 0; i < 3; i++) await sync(coordinator, 'on_request');
    assert.equal((await show(coordinator, 'on_request')).snapshotCount, 3, 'the default retention (10 snapshots, 1 hour) keeps everything');
    const url = '/v1/tables/shop/on_request/expirations';
    const bad = await coordinator.app.inject({ method: 'POST', url, payload: { retainMin: 0 } });
    assert.equal(bad.statusCode, 400, bad.body);
    const unknown = await coordinator.app.inject({ method: 'POST', url, payload: { keep: 1 } });
    assert.equal(unknown.statusCode, 400, unknown.body);
    const missing = await coordinator.app.inject({ method: 'POST', url: '/v1/tables/shop/no_such_table/expirations', payload: {} });
    assert.equal(missing.statusCode, 404, missing.body);
    const done = await coordinator.app.inject({ method: 'POST', url, payload: { retainMin: 1, timeRetainedMs: 0 } });
    assert.equal(done.statusCode, 200, done.body);
    assert.deepEqual(done.json<{ expired: number[] }>().expired, [1, 2]);
    assert.equal(await rowCountAt(e, 'on_request', 3), 3 * ROWS);
    const again = await coordinator.app.inject({ method: 'POST', url, payload: { retainMin: 1, timeRetainedMs: 0 } });
    assert.deepEqual(again.json<{ expired: number[] }>().expired, [], 'nothing more to expire');
  });

  test("orphan cleanup: a dry run lists the ended syncs' blobs and a crashed attempt's file with sizes, deletes nothing; then deletes exactly those", async () => {
    await createOrdersTable(coordinator, 'shop', 'orphans');
    const done = await sync(coordinator, 'orphans');
    // A data file that no snapshot references, as a crashed attempt leaves it.
    const stray = 'shop.db/orphans/bucket-0/data-crashed-shard-a1-00000000-0000-0000-0000-000000000000-0.parquet';
    await e.store.put(stray, new Uint8Array(1234));
    const blobs = (await listKeys(e, `.tributary/syncs/${done.id}/`)).filter((k) => k.endsWith('.blob'));
    assert.equal(blobs.length, 2);
    // The full positions a snapshot's `tributary.positions` points at when they did not fit in it.
    const positions = `.tributary/syncs/${done.id}/positions.json`;
    await e.store.put(positions, new TextEncoder().encode('{"syncId":"x","shards":{}}'));
    const url = '/v1/tables/shop/orphans/orphan-cleanups';
    const guarded = await coordinator.app.inject({ method: 'POST', url, payload: {} });
    assert.equal(guarded.statusCode, 200, guarded.body);
    assert.deepEqual([guarded.json<{ dryRun: boolean }>().dryRun, guarded.json<{ fileCount: number }>().fileCount], [true, 0], 'the default guard age (1 day) protects new files');
    const dry = await coordinator.app.inject({ method: 'POST', url, payload: { olderThanMs: 0 } });
    const listed = dry.json<{ dryRun: boolean; fileCount: number; bytes: number; files: { key: string; size: number }[] }>();
    assert.deepEqual(listed.files.map((f) => f.key).sort(), [stray, ...blobs].sort());
    assert.equal(listed.files.find((f) => f.key === stray)?.size, 1234);
    assert.equal(listed.bytes, listed.files.reduce((n, f) => n + f.size, 0));
    assert.ok(await e.store.stat(stray), 'a dry run deletes nothing');
    const view = await show(coordinator, 'orphans');
    assert.deepEqual(view.orphans && { fileCount: view.orphans.fileCount, bytes: view.orphans.bytes, dryRun: view.orphans.dryRun }, { fileCount: listed.fileCount, bytes: listed.bytes, dryRun: true });
    const real = await coordinator.app.inject({ method: 'POST', url, payload: { olderThanMs: 0, dryRun: false } });
    assert.equal(real.json<{ fileCount: number }>().fileCount, listed.fileCount);
    assert.equal(await e.store.stat(stray), null);
    assert.deepEqual((await listKeys(e, `.tributary/syncs/${done.id}/`)).sort(), [`.tributary/syncs/${done.id}/outcome.json`, positions].sort(), 'the outcome summary and the positions a snapshot references stay');
    assert.equal(await rowCountAt(e, 'orphans', done.snapshotId), ROWS);
    assert.deepEqual((await pypaimonRead(e, 'shop', 'orphans')).rows.length, ROWS);
    assert.equal((await show(coordinator, 'orphans')).orphans?.bytes, 0);
  });

  test('fault: cleanup (guard age 0) and expiration racing a sync in flight never delete its staged or data files, nor its base snapshot', async () => {
    const options = { 'snapshot.num-retained.min': '1', 'snapshot.time-retained': '1 ms' };
    await createOrdersTable(coordinator, 'shop', 'racing', { options });
    const base = await sync(coordinator, 'racing');
    // 3 shards of 20 batches × 100 ms on 2 workers (one shard each at a time): the third shard runs
    // while the first two have staged their blobs. The sync is pinned on `base`.
    const slow = await startSync(coordinator, 'racing', generatorSource(3, 2000, { batchRows: 100, faults: { delayMsPerBatch: 100 } }));
    await waitUntil(async () => (await listKeys(e, 'shop.db/racing/')).some((k) => k.includes(`/data-${slow}-`)), 'the slow sync wrote data files');
    // Another writer commits meanwhile: `base` is no longer the latest, and retention 1 would expire it.
    const other = await (await openTable(e.store, 'shop', 'racing')).newCommit('another-writer').commit([]);
    let rounds = 0;
    let sawStaged = false;
    for (;;) {
      const record = await coordinator.syncs.get(slow);
      if (record.state.phase === 'COMMITTED' || record.state.phase === 'ABORTED') break;
      sawStaged ||= (await listKeys(e, `.tributary/syncs/${slow}/`)).some((k) => k.endsWith('.blob'));
      const cleaned = await coordinator.app.inject({ method: 'POST', url: '/v1/tables/shop/racing/orphan-cleanups', payload: { olderThanMs: 0, dryRun: false } });
      assert.ok(cleaned.statusCode === 200 || cleaned.statusCode === 503, cleaned.body);
      // While the sync is live, nothing of it is an orphan; once it committed (possibly during this
      // cleanup), its blobs are, its data files never (the snapshot holds them).
      const liveAfter = !['COMMITTED', 'ABORTED'].includes((await coordinator.syncs.get(slow)).state.phase);
      for (const f of cleaned.statusCode === 200 ? cleaned.json<{ files: { key: string }[] }>().files : []) {
        assert.ok(!(f.key.includes(`/data-${slow}-`) || (liveAfter && f.key.includes(slow))), `${f.key} belongs to the live sync`);
      }
      const expired = await coordinator.app.inject({ method: 'POST', url: '/v1/tables/shop/racing/expirations', payload: {} });
      assert.equal(expired.statusCode, 200, expired.body);
      // Still live after the expiration returned, so live all through it: its base must have stayed.
      const after = (await coordinator.syncs.get(slow)).state.phase;
      if (after !== 'COMMITTED' && after !== 'ABORTED') assert.ok(await (await openTable(e.store, 'shop', 'racing')).snapshots.exists(base.snapshotId), 'the pinned base stays');
      rounds++;
    }
    assert.ok(rounds >= 2 && sawStaged, `cleanup ran ${rounds} times while the sync was live (blobs seen: ${sawStaged})`);
    const done = await coordinator.syncs.get(slow);
    assert.equal(done.state.phase, 'COMMITTED', JSON.stringify(done.state));
    assert.ok(done.state.phase === 'COMMITTED');
    assert.equal(await rowCountAt(e, 'racing', done.state.snapshotId), ROWS + 6000);
    assert.equal((await pypaimonRead(e, 'shop', 'racing')).rows.length, ROWS + 6000);
    // Once it ended, the base expires after the next commit.
    assert.ok(other.snapshotId > base.snapshotId);
    await sync(coordinator, 'racing');
    await waitUntil(async () => (await show(coordinator, 'racing')).snapshotCount === 1, 'only the latest snapshot is kept once no sync pins an older one');
  });
  test("orphan cleanup of compactions' staging: an ended compaction's leftovers are listed with sizes, then deleted; a live compaction's blobs and files and a committed compaction's files stay", async () => {
    await createOrdersTable(coordinator, 'shop', 'compacted', { primaryKeys: ['order_id'], bucket: 2 });
    await sync(coordinator, 'compacted');
    await sync(coordinator, 'compacted');
    const compact = async (): Promise<string> => {
      const response = await coordinator.app.inject({ method: 'POST', url: '/v1/tables/shop/compacted/compactions', payload: { full: true } });
      assert.equal(response.statusCode, 202, response.body);
      return response.json<{ id: string }>().id;
    };
    const phaseOf = async (id: string, c = coordinator): Promise<string> => {
      const response = await c.app.inject({ method: 'GET', url: `/v1/tables/shop/compacted/compactions/${id}` });
      assert.equal(response.statusCode, 200, response.body);
      return response.json<{ phase: string }>().phase;
    };
    // A committed compaction; the coordinator deletes its staged blobs once it is recorded COMMITTED.
    const ended = await compact();
    await waitUntil(async () => (await phaseOf(ended)) === 'COMMITTED', `compaction ${ended} committed (2 workers)`, 120_000);
    await waitUntil(async () => (await listKeys(e, compactionStagingPrefix(ended))).length === 0, 'its staged blobs deleted');
    const committedFiles = (await (await openTable(e.store, 'shop', 'compacted')).dataFiles()).files.map((f) => `shop.db/compacted/${f.path}`);
    assert.ok(committedFiles.length === 2 && committedFiles.every((p) => p.includes(`/data-${ended}-`)), JSON.stringify(committedFiles));
    // What a late attempt (or a staging deletion that failed) leaves behind the ended compaction.
    const leftover = stagedCompactionBlobKey(ended, 'job-0', 'late-attempt');
    await e.store.put(leftover, new Uint8Array(321));
    // A directory of a compaction this deployment does not know (another deployment's): left alone.
    const unknown = stagedCompactionBlobKey('compact-not-recorded-here', 'job-0', '1');
    await e.store.put(unknown, new Uint8Array(7));

    // A live compaction: another load, then a compaction stopped just before it publishes (COMMITTING,
    // every job's blob staged, its rewritten files in the table, nothing referencing them yet).
    await sync(coordinator, 'compacted');
    const rows = (await readRows(e, 'shop', 'compacted')).length;
    let held = false;
    hold = (point) => {
      if (point !== 'before-publish') return;
      held = true;
      throw new Error('held before publishing by the test');
    };
    let live: string;
    try {
      live = await compact();
      await waitUntil(async () => held && (await phaseOf(live)) === 'COMMITTING', `compaction ${live} held before its publish (2 workers)`, 120_000);
    } finally {
      hold = undefined;
    }
    const liveBlobs = await listKeys(e, compactionStagingPrefix(live));
    assert.equal(liveBlobs.filter((k) => k.endsWith('.blob')).length, 2, JSON.stringify(liveBlobs));
    const liveFiles = (await listKeys(e, 'shop.db/compacted/')).filter((k) => k.includes(`/data-${live}-`));
    assert.ok(liveFiles.length > 0, 'the live compaction wrote its files');

    const url = '/v1/tables/shop/compacted/orphan-cleanups';
    type Cleanup = { fileCount: number; bytes: number; files: { key: string; size: number }[] };
    const staged = (c: Cleanup) => c.files.filter((f) => f.key.startsWith('.tributary/compactions/'));
    const guarded = await coordinator.app.inject({ method: 'POST', url, payload: {} });
    assert.deepEqual(staged(guarded.json<Cleanup>()), [], 'the default guard age (1 day) protects the new leftover');
    const dry = await coordinator.app.inject({ method: 'POST', url, payload: { olderThanMs: 0 } });
    assert.equal(dry.statusCode, 200, dry.body);
    assert.deepEqual(staged(dry.json<Cleanup>()).map((f) => [f.key, f.size]), [[leftover, 321]], 'exactly the ended compaction\'s leftover, with its size');
    for (const f of dry.json<Cleanup>().files) {
      assert.ok(!f.key.includes(live), `${f.key} belongs to the live compaction`);
      assert.ok(!committedFiles.includes(f.key), `${f.key} is referenced by the committed compaction's snapshot`);
    }
    assert.ok(await e.store.stat(leftover), 'a dry run deletes nothing');

    const real = await coordinator.app.inject({ method: 'POST', url, payload: { olderThanMs: 0, dryRun: false } });
    assert.equal(real.statusCode, 200, real.body);
    assert.deepEqual(staged(real.json<Cleanup>()).map((f) => f.key), [leftover]);
    assert.equal(await e.store.stat(leftover), null, 'the leftover is deleted');
    assert.ok(await e.store.stat(unknown), "an unknown compaction's directory is left alone");
    assert.deepEqual((await listKeys(e, compactionStagingPrefix(live))).sort(), [...liveBlobs].sort(), "the live compaction's staging is untouched");
    for (const key of [...liveFiles, ...committedFiles]) assert.ok(await e.store.stat(key), `${key} stays`);
    assert.equal((await readRows(e, 'shop', 'compacted')).length, rows);

    // A restarted coordinator drives the held compaction to its commit with the blobs the cleanup
    // left, and the table reads the same.
    const restarted = await inProcessCoordinator(e);
    try {
      await waitUntil(async () => (await phaseOf(live, restarted)) === 'COMMITTED', `compaction ${live} committed by a restarted coordinator`, 120_000);
    } finally {
      await restarted.close();
    }
    const after = (await (await openTable(e.store, 'shop', 'compacted')).dataFiles()).files.map((f) => f.path);
    assert.ok(after.length === 2 && after.every((p) => p.includes(`/data-${live}-`)), JSON.stringify(after));
    assert.equal((await readRows(e, 'shop', 'compacted')).length, rows);
    assert.equal((await pypaimonRead(e, 'shop', 'compacted')).rows.length, rows);
    await e.store.delete(unknown);
  });
});
