/**
 * Syncs into a primary-key table with `changelog-producer = input`, and syncs that carry deletes,
 * through the REST API, the real queues, the worker's real shard and bucket processors, Redis and MinIO:
 *
 * - the same key in three shards with different values, the shards finishing in all six orders: the
 *   load's changelog is `-U(100)`/`+U(80)` (the later shard in plan order wins), never a lone `+U`,
 *   and byte-identical (rows, kinds, sequence numbers, file order) whatever the order; a retracting
 *   `SUM(amount) GROUP BY store_id` fed only the changelog equals the SUM over the table at every
 *   snapshot; a delete by marker is a `-D` carrying the full stored row; a no-op update emits nothing;
 *   one APPEND snapshot with `changelogManifestList` and `changelogRecordCount`. Paimon Java reads the
 *   changelog through `$audit_log` and gets exactly our rows; Paimon Java and pypaimon read the data.
 * - a full extract of the (unpartitioned) table: keys absent from it become `-D` with the stored row;
 *   the same into a table without a changelog producer deletes them (and a marker's delete), APPEND.
 * - refusals at plan time: layout `direct` into an `input` table, a bad marker column, a full extract
 *   into an append table or with `badRows: 'reject'` (typed 400s, nothing started).
 * - a concurrent commit into the table between the bucket merge and the sync's commit, by a Tributary
 *   writer or by Paimon Java (into a bucket the sync touches): the commit is refused
 *   (COMMIT_CHANGELOG_STALE), the sync ends ABORTED, the table holds no snapshot of it, and Paimon
 *   Java's changelog scan after the base finds only the other writer's rows.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Worker, type Job } from 'bullmq';
import { Redis } from 'ioredis';
import type { Coordinator } from '@tributary/coordinator';
import { SYNC_QUEUES, type SyncShardResult } from '@tributary/protocol';
import { ManifestCache, openObjectStore, openTable, warehouseTables, type InternalRow, type Table } from '@tributary/table';
import { canonicalRows, paimonJava, pypaimon, readResults, services, type OracleRow } from '@tributary/testkit';
import { mergeBucketProcessor, writeShardProcessor, type MergeBucketResult } from '@tributary/worker';
import { HeldJobs } from './held-jobs.ts';
import { inProcessCoordinator, listKeys, s3, syncEnv, waitForPhase, type SyncEnv } from './harness.ts';

const COLUMNS = [
  { name: 'id', type: 'BIGINT NOT NULL' },
  { name: 'store_id', type: 'STRING' },
  { name: 'amount', type: 'BIGINT' },
  { name: 'op', type: 'STRING' },
];
type Row = { id: number; store_id: string | null; amount: number | null; op: string | null };
const r = (id: number, store: string | null, amount: number | null, op: string | null = null): Row => ({ id, store_id: store, amount, op });

const BASE = [r(1, 'A', 100), r(2, 'A', 50), r(3, 'B', 30), r(4, 'B', 40), r(5, 'A', 10), r(6, 'B', 60)];
/** Key 1 in all three shards (100 → 90, 85, 80: shard 2 wins), key 2 in shards 0 and 1 (A,50 → B,70), key 3 deleted by marker, key 4 a no-op, 99 a delete of an absent key. */
const SHARDS = [
  [r(1, 'A', 90), r(2, 'A', 55), r(10, 'A', 1)],
  [r(1, 'A', 85), r(2, 'B', 70), r(3, null, null, 'D'), r(4, 'B', 40), r(11, 'B', 2)],
  [r(1, 'A', 80), r(12, 'A', 3), r(99, null, null, 'D')],
];
const ORDERS = [[0, 1, 2], [0, 2, 1], [1, 0, 2], [1, 2, 0], [2, 0, 1], [2, 1, 0]] as const;
const KINDS = ['+I', '-U', '+U', '-D'];
const MARKER = { column: 'op', values: ['D'] };

const ndjson = (rows: readonly Row[]) => new TextEncoder().encode(rows.map((x) => JSON.stringify(x)).join('\n') + '\n');
const text = (row: readonly unknown[]): string => JSON.stringify(row, (_, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v));

/** The changelog of a snapshot as Tributary reads it, in file order: kind, bucket, sequence number, row. */
async function changelogOf(table: Table, snapshotId: number): Promise<string[]> {
  const out: string[] = [];
  for await (const c of table.changelog(snapshotId)) out.push(text([KINDS[c.kind], c.bucket, c.sequenceNumber, ...c.row]));
  return out;
}

/** SUM(amount) GROUP BY store_id over rows. */
function sums(rows: readonly InternalRow[]): Map<string, bigint> {
  const out = new Map<string, bigint>();
  for (const row of rows) {
    const store = String(row[1]);
    out.set(store, (out.get(store) ?? 0n) + ((row[2] as bigint | null) ?? 0n));
  }
  return new Map([...out].filter(([, v]) => v !== 0n).sort());
}

/**
 * A retracting SUM fed only the changelog, snapshot after snapshot: +I/+U add, -U/-D subtract; it
 * must equal the SUM over the table read at every snapshot. Returns the states it went through.
 */
async function checkRetractingSum(table: Table, snapshots: number): Promise<void> {
  const state = new Map<string, bigint>();
  for (let id = 1; id <= snapshots; id++) {
    for await (const c of table.changelog(id)) {
      const store = String(c.row[1]);
      const amount = (c.row[2] as bigint | null) ?? 0n;
      state.set(store, (state.get(store) ?? 0n) + (c.kind === 1 || c.kind === 3 ? -amount : amount));
    }
    const fed = new Map([...state].filter(([, v]) => v !== 0n).sort());
    assert.deepEqual(fed, sums(await table.newRead({ snapshotId: id }).toArray()), `the retracting SUM equals the table's at snapshot ${id}`);
  }
}

/** The bucket jobs' manifest cache, as a worker process shares one between its bucket jobs. */
const manifestCache = new ManifestCache();

function bucketWorker(e: SyncEnv): { worker: Worker; redis: Redis } {
  const connection = { host: services.redis.host, port: services.redis.port, maxRetriesPerRequest: null };
  const redis = new Redis(connection);
  const merge = mergeBucketProcessor({ redis, prefix: e.prefix, clusterSecret: e.clusterSecret, tables: warehouseTables(s3), manifestCache });
  return { redis, worker: new Worker(SYNC_QUEUES.mergeBucket, (job: Job) => merge(job), { connection, prefix: e.prefix }) };
}

function shardRunner(e: SyncEnv): HeldJobs<SyncShardResult> {
  return new HeldJobs(
    e,
    SYNC_QUEUES.writeShard,
    (redis) => writeShardProcessor({ redis, prefix: e.prefix, clusterSecret: e.clusterSecret, tables: warehouseTables(s3), sources: e.sources }),
    (job) => job.data.shardId as string,
  );
}

/** The REST calls of these tests. */
function api(coordinator: Coordinator, e: SyncEnv) {
  return {
    async createTable(name: string, options: Record<string, string>, primaryKeys: string[] = ['id']): Promise<void> {
      const response = await coordinator.app.inject({
        method: 'POST',
        url: '/v1/tables',
        payload: { database: 'shop', name, columns: COLUMNS, primaryKeys, bucket: primaryKeys.length > 0 ? 2 : -1, options },
      });
      assert.equal(response.statusCode, 201, response.body);
    },
    startSync(table: string, files: readonly string[], options: Record<string, unknown> = {}) {
      return coordinator.app.inject({
        method: 'POST',
        url: '/v1/syncs',
        payload: { table: { database: 'shop', table }, source: { kind: 'files', format: 'ndjson', uris: files.map((f) => `${e.sourceRoot}/${f}`), filesPerShard: 1 }, options },
      });
    },
    async started(table: string, files: readonly string[], options: Record<string, unknown> = {}): Promise<string> {
      const response = await this.startSync(table, files, options);
      assert.equal(response.statusCode, 202, response.body);
      return response.json<{ id: string }>().id;
    },
    async committed(id: string): Promise<number> {
      const record = await waitForPhase(() => coordinator.syncs.get(id), ['COMMITTED', 'ABORTED'], 60_000);
      assert.equal(record.state.phase, 'COMMITTED', JSON.stringify(record.state));
      return record.state.phase === 'COMMITTED' ? record.state.snapshotId : -1;
    },
  };
}

describe('syncs into a changelog-producer = input table, and syncs with deletes (real Redis and MinIO, real processors)', () => {
  const e = syncEnv('changelog-sync');
  let coordinator: Coordinator;
  let shards: HeldJobs<SyncShardResult>;
  let buckets: { worker: Worker; redis: Redis };
  let rest: ReturnType<typeof api>;

  before(async () => {
    const source = openObjectStore(e.sourceRoot, s3);
    await source.put('base.ndjson', ndjson(BASE));
    for (const [i, rows] of SHARDS.entries()) await source.put(`part-${i}.ndjson`, ndjson(rows));
    await source.put('extract.ndjson', ndjson([r(1, 'A', 80), r(2, 'A', 50), r(3, 'B', 30, 'D'), r(4, 'B', 40)]));
    coordinator = await inProcessCoordinator(e);
    shards = shardRunner(e);
    buckets = bucketWorker(e);
    rest = api(coordinator, e);
  });
  after(async () => {
    await buckets.worker.close();
    await buckets.redis.quit();
    await shards.close();
    await coordinator.close();
  });

  async function load(table: string, files: readonly string[], order: readonly number[], options: Record<string, unknown> = {}): Promise<number> {
    const id = await rest.started(table, files, options);
    await shards.take(id, files.length);
    for (const i of order) await shards.finish(id, `files-0000${i}`);
    return rest.committed(id);
  }

  test('a key in three shards, finishing in all six orders: -U(100)/+U(80) and the same bytes every time; -D by marker carries the stored row; Java and pypaimon agree', async () => {
    const changelogs: string[][] = [];
    const names: string[] = [];
    for (const order of ORDERS) {
      const name = `orders_${order.join('')}`;
      names.push(name);
      await rest.createTable(name, { 'changelog-producer': 'input' });
      assert.equal(await load(name, ['base.ndjson'], [0]), 1);
      const cached = manifestCache.stats();
      assert.equal(await load(name, SHARDS.map((_, i) => `part-${i}.ndjson`), order, { deleteMarker: MARKER }), 2);
      // Both bucket jobs scanned snapshot 1 through the cache: its manifest list, then its manifest, read once.
      const { hits, misses } = manifestCache.stats();
      assert.ok(misses > cached.misses && hits > cached.hits, `the bucket jobs shared the manifest cache: ${JSON.stringify({ before: cached, after: { hits, misses } })}`);
      const table = await openTable(e.store, 'shop', name);
      const snapshot = await table.snapshot(2);
      assert.equal(snapshot.commitKind, 'APPEND');
      assert.notEqual(snapshot.changelogManifestList, null);
      const rows = await changelogOf(table, 2);
      assert.equal(snapshot.changelogRecordCount, BigInt(rows.length));
      changelogs.push(rows);
      await checkRetractingSum(table, 2);
      // The read after the load: key 1 → 80 (shard 2), key 2 → B,70 (shard 1), key 3 deleted, key 4 unchanged, 10-12 new.
      assert.deepEqual(
        canonicalRows((await table.newRead().toArray()) as OracleRow[]),
        canonicalRows([r(1, 'A', 80), r(2, 'B', 70), r(4, 'B', 40), r(5, 'A', 10), r(6, 'B', 60), r(10, 'A', 1), r(11, 'B', 2), r(12, 'A', 3)].map((x) => [BigInt(x.id), x.store_id, BigInt(x.amount ?? 0), null])),
      );
    }
    for (const [i, rows] of changelogs.entries()) assert.deepEqual(rows, changelogs[0], `order ${ORDERS[i]!.join('')}: the same changelog rows, in the same order`);
    const byKind = (changelogs[0] ?? []).map((line) => JSON.parse(line) as unknown[]).map(([kind, , , ...row]) => text([kind, ...row]));
    assert.deepEqual(
      [...byKind].sort(),
      [
        text(['-U', '1n', 'A', '100n', null]),
        text(['+U', '1n', 'A', '80n', null]),
        text(['-U', '2n', 'A', '50n', null]),
        text(['+U', '2n', 'B', '70n', null]),
        text(['-D', '3n', 'B', '30n', null]),
        text(['+I', '10n', 'A', '1n', null]),
        text(['+I', '11n', 'B', '2n', null]),
        text(['+I', '12n', 'A', '3n', null]),
      ].sort(),
      'no changelog row for the no-op update of key 4 nor for the delete of the absent key 99',
    );
    for (const [k, line] of byKind.entries()) if (line.startsWith('["-U"')) assert.match(byKind[k + 1] ?? '', /^\["\+U"/, '-U right before its +U');

    // Paimon Java reads the sync's changelog through $audit_log (changelog mode, snapshots 1 → 2), and the data; pypaimon the data.
    const name = names[0]!;
    const table = await openTable(e.store, 'shop', name);
    const ref = { warehouse: e.warehouse, database: 'shop' };
    const [audit, data] = readResults(
      await paimonJava.batch([
        { op: 'read', ...ref, table: `${name}$audit_log`, options: { 'incremental-between': '1,2', 'incremental-between-scan-mode': 'changelog' } },
        { op: 'read', ...ref, table: name },
      ]),
    );
    const ours = (changelogs[0] ?? []).map((line) => JSON.parse(line) as unknown[]).map(([kind, , , ...row]) => text(canonicalRows([[kind, ...row.map((v) => (typeof v === 'string' && /^-?[0-9]+n$/.test(v) ? BigInt(v.slice(0, -1)) : v))] as OracleRow])[0]!));
    assert.deepEqual((audit?.rows ?? []).map((row) => text(canonicalRows([row])[0]!)).sort(), [...ours].sort(), 'Paimon Java $audit_log holds exactly our rows and kinds');
    const expected = canonicalRows((await table.newRead().toArray()) as OracleRow[]);
    assert.deepEqual(canonicalRows(data?.rows ?? []), expected, 'Paimon Java reads the table');
    assert.deepEqual(canonicalRows((await pypaimon.read({ ...ref, table: name })).rows), expected, 'pypaimon reads the table');
  });

  test('a full extract: keys absent from it become -D with the stored row (input table), or are deleted (table without a changelog producer); APPEND', async () => {
    for (const producer of ['input', 'none'] as const) {
      const name = `extract_${producer}`;
      await rest.createTable(name, producer === 'input' ? { 'changelog-producer': 'input' } : {});
      assert.equal(await load(name, ['base.ndjson'], [0]), 1);
      assert.equal(await load(name, ['extract.ndjson'], [0], { fullExtract: { partition: {} }, deleteMarker: MARKER }), 2);
      const table = await openTable(e.store, 'shop', name);
      const snapshot = await table.snapshot(2);
      assert.equal(snapshot.commitKind, 'APPEND');
      const expected = canonicalRows([r(1, 'A', 80), r(2, 'A', 50), r(4, 'B', 40)].map((x) => [BigInt(x.id), x.store_id, BigInt(x.amount ?? 0), null]));
      assert.deepEqual(canonicalRows((await table.newRead().toArray()) as OracleRow[]), expected, `${producer}: keys 5 and 6 (absent) and 3 (marker) deleted`);
      const [java] = readResults(await paimonJava.batch([{ op: 'read', warehouse: e.warehouse, database: 'shop', table: name }]));
      assert.deepEqual(canonicalRows(java?.rows ?? []), expected, `${producer}: Paimon Java reads the same`);
      if (producer === 'input') {
        const rows = (await changelogOf(table, 2)).map((line) => JSON.parse(line) as unknown[]).map(([kind, , , ...row]) => text([kind, ...row]));
        assert.deepEqual(
          rows.sort(),
          [
            text(['-U', '1n', 'A', '100n', null]),
            text(['+U', '1n', 'A', '80n', null]),
            text(['-D', '3n', 'B', '30n', null]),
            text(['-D', '5n', 'A', '10n', null]),
            text(['-D', '6n', 'B', '60n', null]),
          ].sort(),
        );
        assert.equal(snapshot.changelogRecordCount, 5n);
        await checkRetractingSum(table, 2);
      } else {
        assert.equal(snapshot.changelogManifestList, null);
      }
    }
  });

  test('refused at plan time with a typed 400: layout direct into an input table, a bad marker column, a full extract into an append table or with mode overwrite', async () => {
    await rest.createTable('refusals', { 'changelog-producer': 'input' });
    await rest.createTable('refusals_append', {}, []);
    const cases: [string, string, Record<string, unknown>, RegExp][] = [
      ['refusals', 'direct layout', { layout: 'direct' }, /layout 'bucketed' only/],
      ['refusals', 'marker on a key column', { deleteMarker: { column: 'id', values: [1] } }, /primary-key column/],
      ['refusals', 'marker on an unknown column', { deleteMarker: { column: 'nope', values: ['D'] } }, /not a column/],
      ['refusals', 'full extract naming a non-partition key', { fullExtract: { partition: { dt: '2024-01-01' } } }, /not a partition key/],
      ['refusals_append', 'full extract into an append table', { fullExtract: { partition: {} } }, /primary key/],
      // A rejected row's key would be missing from the extract, and its stored row deleted.
      ['refusals', "full extract with badRows 'reject'", { fullExtract: { partition: {} }, badRows: 'reject' }, /takes no badRows 'reject'/],
    ];
    for (const [table, what, options, message] of cases) {
      const response = await rest.startSync(table, ['base.ndjson'], options);
      assert.equal(response.statusCode, 400, `${what}: ${response.body}`);
      const problem = response.json<{ code: string; detail: string }>();
      assert.ok(['SYNC_LOAD_UNSUPPORTED', 'PARTITION_SPEC_INVALID'].includes(problem.code), `${what}: ${problem.code}`);
      assert.match(problem.detail, message, what);
    }
    const overwrite = await coordinator.app.inject({
      method: 'POST',
      url: '/v1/syncs',
      payload: { table: { database: 'shop', table: 'refusals' }, mode: 'overwrite', source: { kind: 'files', format: 'ndjson', uris: [`${e.sourceRoot}/base.ndjson`] } },
    });
    assert.equal(overwrite.statusCode, 400, overwrite.body);
    assert.match(overwrite.json<{ detail: string }>().detail, /OVERWRITE snapshot carries no changelog/);
    for (const table of ['refusals', 'refusals_append']) {
      const listed = await coordinator.app.inject({ method: 'GET', url: `/v1/syncs?database=shop&table=${table}` });
      assert.equal(listed.statusCode, 200, listed.body);
      assert.deepEqual(listed.json<{ syncs: unknown[] }>().syncs, [], `no sync of ${table} was started`);
    }
  });
});

describe('a concurrent commit between the bucket merge and the commit of an input-table sync (real processors, held jobs)', () => {
  const e = syncEnv('changelog-stale');
  let coordinator: Coordinator;
  let shards: HeldJobs<SyncShardResult>;
  let merges: HeldJobs<MergeBucketResult>;

  before(async () => {
    await openObjectStore(e.sourceRoot, s3).put('base.ndjson', ndjson(BASE));
    await openObjectStore(e.sourceRoot, s3).put('update.ndjson', ndjson([r(1, 'A', 80), r(6, 'B', 65)]));
    coordinator = await inProcessCoordinator(e);
    shards = shardRunner(e);
    merges = new HeldJobs(e, SYNC_QUEUES.mergeBucket, (redis) => mergeBucketProcessor({ redis, prefix: e.prefix, clusterSecret: e.clusterSecret, tables: warehouseTables(s3) }), (job) => job.data.bucketId as string);
  });
  after(async () => {
    await merges.close();
    await shards.close();
    await coordinator.close();
  });

  async function runUntilMerged(id: string): Promise<string[]> {
    await shards.take(id, 1);
    await shards.finish(id, 'files-00000');
    const merging = await waitForPhase(() => coordinator.syncs.get(id), ['MERGING', 'ABORTED'], 60_000);
    assert.equal(merging.state.phase, 'MERGING', JSON.stringify(merging.state));
    const count = merging.state.phase === 'MERGING' ? merging.state.buckets : 0;
    await merges.take(id, count);
    return merges.held(id);
  }

  test('the commit is refused with COMMIT_CHANGELOG_STALE, the sync ends ABORTED and nothing of it is visible', async () => {
    const rest = api(coordinator, e);
    await rest.createTable('stale', { 'changelog-producer': 'input' });
    const base = await rest.started('stale', ['base.ndjson']);
    for (const bucket of await runUntilMerged(base)) await merges.finish(base, bucket);
    assert.equal(await rest.committed(base), 1);

    const id = await rest.started('stale', ['update.ndjson']);
    const held = await runUntilMerged(id);
    const table = await openTable(e.store, 'shop', 'stale');
    const [first, ...rest2] = held;
    // After the first bucket's merge (its data and changelog files staged), another writer commits into every bucket.
    await merges.finish(id, first!, async () => {
      const write = await table.newChangelogWrite({ baseSnapshotId: 1, writerId: 'other-writer' });
      await write.write(BASE.map((x) => ({ kind: 'upsert' as const, row: [BigInt(x.id), x.store_id, BigInt((x.amount ?? 0) + 1), null] })));
      assert.equal((await table.newCommit('other-writer').commit(write.prepareCommit(), { baseSnapshotId: 1 })).snapshotId, 2);
    });
    for (const bucket of rest2) await merges.finish(id, bucket);
    const done = await waitForPhase(() => coordinator.syncs.get(id), ['COMMITTED', 'ABORTED'], 60_000);
    assert.equal(done.state.phase, 'ABORTED', JSON.stringify(done.state));
    assert.equal(done.state.phase === 'ABORTED' ? done.state.reason.code : '', 'COMMIT_CHANGELOG_STALE');
    const latest = await table.latestSnapshot();
    assert.equal(Number(latest?.id), 2, 'only the other writer committed');
    assert.equal(latest?.commitUser, 'other-writer');
    assert.deepEqual(
      canonicalRows((await table.newRead().toArray()) as OracleRow[]),
      canonicalRows(BASE.map((x) => [BigInt(x.id), x.store_id, BigInt((x.amount ?? 0) + 1), null])),
      "the table holds the other writer's rows, none of the sync's",
    );
    await checkRetractingSum(table, 2);
  });

  test('Paimon Java commits into a touched bucket after the base snapshot: COMMIT_CHANGELOG_STALE, ABORTED, only Java\'s snapshot visible, Java reads no row of the sync', async () => {
    const rest = api(coordinator, e);
    await rest.createTable('stale_java', { 'changelog-producer': 'input' });
    const base = await rest.started('stale_java', ['base.ndjson']);
    for (const bucket of await runUntilMerged(base)) await merges.finish(base, bucket);
    assert.equal(await rest.committed(base), 1);

    // The sync pins snapshot 1 and touches keys 1 and 6; its bucket jobs are held once staged.
    const id = await rest.started('stale_java', ['update.ndjson']);
    const held = await runUntilMerged(id);
    const table = await openTable(e.store, 'shop', 'stale_java');
    const ref = { warehouse: e.warehouse, database: 'shop', table: 'stale_java' };
    const [first, ...others] = held;
    await merges.finish(id, first!, async () => {
      const pending = await coordinator.syncs.get(id);
      assert.equal(pending?.state.phase, 'MERGING', 'the sync has not committed when Java writes');
      // Java changes key 1 (a key the sync touches, so its bucket is one of the sync's) with its own -U/+U.
      const written = await paimonJava.write(ref, [[1n, 'A', 100n, null], [1n, 'A', 75n, null]], ['-U', '+U']);
      assert.equal(written.snapshotId, 2);
    });
    for (const bucket of others) await merges.finish(id, bucket);
    const done = await waitForPhase(() => coordinator.syncs.get(id), ['COMMITTED', 'ABORTED'], 60_000);
    assert.equal(done.state.phase, 'ABORTED', JSON.stringify(done.state));
    assert.equal(done.state.phase === 'ABORTED' ? done.state.reason.code : '', 'COMMIT_CHANGELOG_STALE');

    const latest = await table.latestSnapshot();
    assert.equal(Number(latest?.id), 2, 'only Paimon Java committed after the base');
    assert.notEqual(latest?.commitUser, done.plan.commitUser);
    const expected = canonicalRows(BASE.map((x) => [BigInt(x.id), x.store_id, BigInt(x.id === 1 ? 75 : (x.amount ?? 0)), null]));
    assert.deepEqual(canonicalRows((await table.newRead().toArray()) as OracleRow[]), expected, "the table holds Java's update of key 1, none of the sync's rows");
    const [audit, data] = readResults(
      await paimonJava.batch([
        { op: 'read', ...ref, table: 'stale_java$audit_log', options: { 'incremental-between': '1,2', 'incremental-between-scan-mode': 'changelog' } },
        { op: 'read', ...ref },
      ]),
    );
    assert.deepEqual(
      (audit?.rows ?? []).map((row) => text(canonicalRows([row])[0]!)).sort(),
      [text(['-U', 1n, 'A', 100n, null]), text(['+U', 1n, 'A', 75n, null])].sort(),
      "Paimon Java's changelog after the base is its own -U/+U, nothing of the sync (no +U(80), no change of key 6)",
    );
    assert.deepEqual(canonicalRows(data?.rows ?? []), expected, 'Paimon Java reads the same table');
    await checkRetractingSum(table, 2);
  });

  test('an orphan cleanup (guard age 0) while the sync is MERGING keeps its staged data and changelog files; Paimon Java reads its changelog', async () => {
    const rest = api(coordinator, e);
    await rest.createTable('cleaned', { 'changelog-producer': 'input' });
    const base = await rest.started('cleaned', ['base.ndjson']);
    for (const bucket of await runUntilMerged(base)) await merges.finish(base, bucket);
    assert.equal(await rest.committed(base), 1);
    const id = await rest.started('cleaned', ['update.ndjson']);
    const held = await runUntilMerged(id);
    const [first, ...others] = held;
    let deleted: string[] = [];
    await merges.finish(id, first!, async () => {
      const staged = (await listKeys(e, 'shop.db/cleaned/')).filter((k) => k.includes(`/changelog-${id}-`));
      assert.ok(staged.length > 0, 'the first bucket job staged changelog files');
      const response = await coordinator.app.inject({ method: 'POST', url: '/v1/tables/shop/cleaned/orphan-cleanups', payload: { olderThanMs: 0, dryRun: false } });
      assert.equal(response.statusCode, 200, response.body);
      deleted = response.json<{ files: { key: string }[] }>().files.map((f) => f.key);
    });
    assert.deepEqual(deleted.filter((k) => k.includes(id)), [], 'nothing of the live sync was deleted');
    for (const bucket of others) await merges.finish(id, bucket);
    assert.equal(await rest.committed(id), 2);
    const ref = { warehouse: e.warehouse, database: 'shop', table: 'cleaned' };
    const [audit] = readResults(await paimonJava.batch([{ op: 'read', ...ref, table: 'cleaned$audit_log', options: { 'incremental-between': '1,2', 'incremental-between-scan-mode': 'changelog' } }]));
    assert.deepEqual(
      (audit?.rows ?? []).map((row) => text(canonicalRows([row])[0]!)).sort(),
      [text(['-U', 1n, 'A', 100n, null]), text(['+U', 1n, 'A', 80n, null]), text(['-U', 6n, 'B', 60n, null]), text(['+U', 6n, 'B', 65n, null])].sort(),
    );
  });

  // A load that changes nothing in a bucket stages nothing there; its "nothing" holds only while no other writer changed the bucket.
  for (const [what, table, options, file] of [
    ['an input table, a load of no-op updates', 'stale_noop', { 'changelog-producer': 'input' }, 'noop.ndjson'],
    ['a full extract into a table without a changelog producer', 'stale_extract', {}, 'same-extract.ndjson'],
  ] as const) {
    test(`${what}: another writer changes its buckets after the base: COMMIT_CHANGELOG_STALE, ABORTED, the other writer's rows stand`, async () => {
      const rest = api(coordinator, e);
      const source = openObjectStore(e.sourceRoot, s3);
      await source.put('noop.ndjson', ndjson([r(1, 'A', 100), r(6, 'B', 60)]));
      await source.put('same-extract.ndjson', ndjson(BASE));
      await rest.createTable(table, options);
      const base = await rest.started(table, ['base.ndjson']);
      for (const bucket of await runUntilMerged(base)) await merges.finish(base, bucket);
      assert.equal(await rest.committed(base), 1);

      const id = await rest.started(table, [file], file === 'same-extract.ndjson' ? { fullExtract: { partition: {} } } : {});
      const held = await runUntilMerged(id);
      const paimon = await openTable(e.store, 'shop', table);
      const [first, ...others] = held;
      // Another writer changes key 1 and adds key 40, in whatever buckets they fall.
      const changed = [r(1, 'J', 99), r(40, 'J', 7)];
      await merges.finish(id, first!, async () => {
        const rows = changed.map((x): InternalRow => [BigInt(x.id), x.store_id, BigInt(x.amount ?? 0), null]);
        let messages;
        if (table === 'stale_noop') {
          const write = await paimon.newChangelogWrite({ baseSnapshotId: 1, writerId: 'other-writer' });
          await write.write(rows.map((row) => ({ kind: 'upsert' as const, row })));
          messages = write.prepareCommit();
        } else {
          const write = await paimon.newWrite({ writerId: 'other-writer' });
          await write.writeRows(rows);
          messages = await write.prepareCommit();
        }
        assert.equal((await paimon.newCommit('other-writer').commit(messages, { baseSnapshotId: 1 })).snapshotId, 2);
      });
      for (const bucket of others) await merges.finish(id, bucket);
      const done = await waitForPhase(() => coordinator.syncs.get(id), ['COMMITTED', 'ABORTED'], 60_000);
      assert.equal(done.state.phase, 'ABORTED', JSON.stringify(done.state));
      assert.equal(done.state.phase === 'ABORTED' ? done.state.reason.code : '', 'COMMIT_CHANGELOG_STALE');
      assert.equal(Number((await paimon.latestSnapshot())?.id), 2, 'nothing of the sync landed');
      const expected = canonicalRows([...BASE.filter((x) => x.id !== 1), ...changed].map((x) => [BigInt(x.id), x.store_id, BigInt(x.amount ?? 0), null]));
      const [java] = readResults(await paimonJava.batch([{ op: 'read', warehouse: e.warehouse, database: 'shop', table }]));
      assert.deepEqual(canonicalRows(java?.rows ?? []), expected, "Paimon Java reads the other writer's rows over the base");
    });
  }
});
