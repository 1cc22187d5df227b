/**
 * The sync list's index on Redis: summaries beside the records, the per-table and per-database
 * sorted sets, their order and filters, records written before the index existed (migration and
 * lazy backfill), and records that disappear.
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { Redis } from 'ioredis';
import { services, uniqueName } from '@tributary/testkit';
import { isTributaryError, syncRedisKeys } from '@tributary/protocol';
import { SyncStore, type ListPosition } from '../../../src/sync/store.ts';
import { newSyncRecord, type SyncPlan, type SyncRecord } from '../../../src/sync/state.ts';
import { syncHead } from '../../../src/sync/head.ts';
import { syncSummary } from '../../../src/sync/summary.ts';
import { testPlan } from '../../support/plan.ts';

const redis = new Redis({ ...services.redis, maxRetriesPerRequest: null });
after(() => redis.quit());

const reason = { code: 'SYNC_ABORT_REQUESTED', message: 'stop', retryable: false, context: {} };

function planOf(database: string, table: string, shards = 1): SyncPlan {
  return testPlan('tributary-sync-x', { table: { database, table }, shards: Array.from({ length: shards }, (_, i) => ({ id: `s${i}`, spec: { i } })) });
}

/** What a coordinator without the index wrote: the record's hash without `summary`, and the global sorted set only. */
async function writeOldStyle(prefix: string, record: SyncRecord, createdAtMs: number): Promise<void> {
  const key = syncRedisKeys(prefix, record.id).record;
  const table = `${record.plan.table.database}.${record.plan.table.table}`;
  await redis.hset(key, 'version', String(record.version), 'json', JSON.stringify(record), 'phase', record.state.phase, 'table', table, 'discard', '0');
  await redis.zadd(`${prefix}:syncs`, createdAtMs, record.id);
}

const ids = (list: readonly { id: string }[]) => list.map((s) => s.id);

describe('sync list index', () => {
  test('newest first; filters by database, table, both, and phase; limit', async () => {
    const store = new SyncStore(redis, uniqueName('index'));
    const tables = [planOf('db1', 'a'), planOf('db1', 'b'), planOf('db2', 'a'), planOf('db_x', 't_1')];
    for (let i = 0; i < 12; i++) await store.create(newSyncRecord(`s${i}`, tables[i % 4]!, 't'), 1000 + i);
    await store.apply('s4', { type: 'abort', reason });
    await store.apply('s8', { type: 'start' });

    assert.deepEqual(ids(await store.listSummaries({ limit: 5 })), ['s11', 's10', 's9', 's8', 's7']);
    assert.deepEqual(ids(await store.listSummaries({ limit: 50, database: 'db1' })), ['s9', 's8', 's5', 's4', 's1', 's0']);
    assert.deepEqual(ids(await store.listSummaries({ limit: 50, database: 'db1', table: 'a' })), ['s8', 's4', 's0']);
    assert.deepEqual(ids(await store.listSummaries({ limit: 2, database: 'db1', table: 'a' })), ['s8', 's4']);
    assert.deepEqual(ids(await store.listSummaries({ limit: 50, table: 'a' })), ['s10', 's8', 's6', 's4', 's2', 's0']);
    assert.deepEqual(ids(await store.listSummaries({ limit: 50, database: 'db_x', table: 't_1' })), ['s11', 's7', 's3']);
    assert.deepEqual(ids(await store.listSummaries({ limit: 50, database: 'db1', table: 'a', phase: 'ABORTING' })), ['s4']);
    assert.deepEqual(ids(await store.listSummaries({ limit: 50, phase: 'PREPARING' })), ['s8']);
    assert.deepEqual(await store.listSummaries({ limit: 50, database: 'nope' }), []);
    assert.deepEqual(await store.listSummaries({ limit: 50, database: 'db1', table: 'nope' }), []);
    // The whole records, in the same order.
    assert.deepEqual(ids(await store.list({ limit: 50, database: 'db1' })), ['s9', 's8', 's5', 's4', 's1', 's0']);
    assert.equal((await store.list({ limit: 1, database: 'db1', table: 'a' }))[0]?.plan.table.table, 'a');
    // The summary follows every transition.
    assert.deepEqual(await store.summary('s4'), syncSummary(await store.require('s4')));
    assert.equal((await store.summary('s4'))?.phase, 'ABORTING');
  });

  test('a filter that matches deep in the index reads past the first page of ids', async () => {
    const store = new SyncStore(redis, uniqueName('index'));
    const pipeline: Promise<boolean>[] = [];
    for (let i = 0; i < 450; i++) pipeline.push(store.create(newSyncRecord(`s${String(i).padStart(3, '0')}`, planOf('db', i % 150 === 0 ? 'rare' : 'common'), 't'), i));
    await Promise.all(pipeline);
    await store.apply('s000', { type: 'abort', reason });
    assert.deepEqual(ids(await store.listSummaries({ limit: 10, table: 'rare' })), ['s300', 's150', 's000']);
    assert.deepEqual(ids(await store.listSummaries({ limit: 10, phase: 'ABORTING' })), ['s000']);
    assert.equal((await store.listSummaries({ limit: 500 })).length, 450);
  });

  test('pages follow their cursor: nothing listed twice or left out while syncs start, end and go between pages', async () => {
    const store = new SyncStore(redis, uniqueName('index'));
    // 30 syncs, three at each creation score (ties are ordered by id), over two tables.
    const made: string[] = [];
    for (let i = 0; i < 30; i++) {
      const id = `p${String(i).padStart(2, '0')}`;
      made.push(id);
      await store.create(newSyncRecord(id, planOf('db', i % 3 === 0 ? 'rare' : 'common'), 't'), 100 + Math.floor(i / 3));
    }
    const newestFirst = [...made].reverse();
    const walk = async (filter: { limit: number; table?: string; database?: string; phase?: 'ABORTING' }, between?: (page: number, last: string) => Promise<void>) => {
      const seen: string[] = [];
      let after: ListPosition | undefined;
      for (let page = 0; page < 100; page++) {
        const listed = await store.listSummaryTexts({ ...filter, ...(after === undefined ? {} : { after }) });
        const pageIds = listed.texts.map((t) => (JSON.parse(t) as { id: string }).id);
        seen.push(...pageIds);
        if (listed.next === undefined) {
          assert.ok(pageIds.length < filter.limit, 'only a page that is not full has no next');
          return seen;
        }
        assert.equal(pageIds.length, filter.limit, 'a page with a next is full');
        assert.equal(listed.next.id, pageIds.at(-1), "the next page starts after the page's last sync");
        await between?.(page, listed.next.id);
        after = listed.next;
      }
      throw new Error('the walk did not end');
    };
    // Every page size, ties split across pages included.
    for (const limit of [1, 2, 3, 4, 7, 29, 30, 31]) assert.deepEqual(await walk({ limit }), newestFirst, `limit ${limit}`);
    assert.deepEqual(await walk({ limit: 4, table: 'rare' }), newestFirst.filter((id) => Number(id.slice(1)) % 3 === 0));
    assert.deepEqual(await walk({ limit: 4, database: 'db', table: 'common' }), newestFirst.filter((id) => Number(id.slice(1)) % 3 !== 0));

    // Between pages: a new sync starts (newer: it belongs to the first page, not to the next ones),
    // one far down ends (it stays listed), and the page's last sync itself is deleted (its place holds).
    let started = 0;
    const changed = await walk({ limit: 5 }, async (page, last) => {
      await store.create(newSyncRecord(`new${started++}`, planOf('db', 'common'), 't'), 1000 + page);
      if (page === 0) await store.apply('p02', { type: 'abort', reason });
      if (page === 1) await redis.del(syncRedisKeys(store.prefix, last).record);
    });
    assert.deepEqual(changed, newestFirst, 'exactly the syncs listed at the start, each once');
    // The deleted one is gone from the index and the lists that follow.
    const deleted = newestFirst[9];
    assert.equal((await store.listSummaries({ limit: 100 })).some((s) => s.id === deleted), false);
    // A cursor whose sync is gone from the index, at a tie: the page starts with the sync after it by id.
    const tie = await store.listSummaryTexts({ limit: 2, after: { score: 105, id: 'p16z' } });
    assert.deepEqual(tie.texts.map((t) => (JSON.parse(t) as { id: string }).id), ['p16', 'p15']);
    // Ids of one score in byte order, whatever a locale would say ('-' and case sort apart in bytes).
    for (const id of ['t-B', 't-a', 'tA', 't_b']) await store.create(newSyncRecord(id, planOf('db', 'ties'), 't'), 7);
    const tieOrder = ['t_b', 'tA', 't-a', 't-B']; // newest first: descending bytes
    assert.deepEqual(ids(await store.listSummaries({ limit: 10, table: 'ties' })), tieOrder);
    for (const [gone, i] of [['u', 0], ['tZ', 1], ['t0', 2], ['t-c', 2], ['t-A', 4], ['t', 4]] as const) {
      const page = await store.listSummaryTexts({ limit: 10, table: 'ties', after: { score: 7, id: gone } });
      assert.deepEqual(page.texts.map((t) => (JSON.parse(t) as { id: string }).id), tieOrder.slice(i), `after ${gone}`);
    }
  });

  test('a summary stays small whatever the shard count', async () => {
    const store = new SyncStore(redis, uniqueName('index'));
    await store.create(newSyncRecord('big', planOf('db', 't', 5000), 't'), 1);
    const summary = await redis.hget(syncRedisKeys(store.prefix, 'big').record, 'summary');
    assert.ok(summary !== null && summary.length < 500, `summary of ${summary?.length} bytes`);
    assert.equal((await store.listSummaries({ limit: 1, database: 'db', table: 't' }))[0]?.shards, 5000);
  });

  test('records written before the index: the migration indexes them, then the filtered lists find them', async () => {
    const prefix = uniqueName('index');
    for (let i = 0; i < 5; i++) await writeOldStyle(prefix, newSyncRecord(`old${i}`, planOf('db', i % 2 === 0 ? 'even' : 'odd'), 't'), 100 + i);
    const store = new SyncStore(redis, prefix);
    await store.create(newSyncRecord('new', planOf('db', 'even'), 't'), 200);
    // A filtered list on an unmarked index migrates first.
    assert.deepEqual(ids(await store.listSummaries({ limit: 10, database: 'db', table: 'even' })), ['new', 'old4', 'old2', 'old0']);
    assert.equal(await redis.get(`${prefix}:syncs:index-version`), '1');
    for (let i = 0; i < 5; i++) assert.notEqual(await redis.hget(syncRedisKeys(prefix, `old${i}`).record, 'summary'), null);
    assert.deepEqual(ids(await store.listSummaries({ limit: 10, database: 'db', table: 'odd' })), ['old3', 'old1']);
    assert.deepEqual(ids(await store.listSummaries({ limit: 10, database: 'db' })), ['new', 'old4', 'old3', 'old2', 'old1', 'old0']);
    // The status call's head: read from its field when written by this version, else from the whole record.
    const newest = await store.require('new');
    assert.deepEqual(await store.head('new'), syncHead(newest));
    assert.equal(await redis.hget(syncRedisKeys(prefix, 'old1').record, 'head'), null);
    assert.deepEqual(await store.head('old1'), syncHead(await store.require('old1')));
    await assert.rejects(store.head('missing'), (e: unknown) => isTributaryError(e) && e.code === 'SYNC_NOT_FOUND');
    // Running it again finds nothing left to do.
    assert.equal(await new SyncStore(redis, prefix).migrateIndex(), 0);
  });

  test('migrateIndex counts what it indexed; an old record written after it is backfilled by the list that meets it or by its next transition', async () => {
    const prefix = uniqueName('index');
    await writeOldStyle(prefix, newSyncRecord('old0', planOf('db', 't'), 't'), 1);
    const store = new SyncStore(redis, prefix);
    assert.equal(await store.migrateIndex(), 1);
    // Written by an older coordinator after the migration (a rolling upgrade).
    await writeOldStyle(prefix, newSyncRecord('late1', planOf('db', 't'), 't'), 2);
    await writeOldStyle(prefix, newSyncRecord('late2', planOf('db', 't'), 't'), 3);
    assert.deepEqual(ids(await store.listSummaries({ limit: 10, database: 'db', table: 't' })), ['old0'], 'not yet in the table index');
    // The global list meets late2 and late1: their summaries are computed and they join their indexes.
    assert.deepEqual(ids(await store.listSummaries({ limit: 10 })), ['late2', 'late1', 'old0']);
    assert.deepEqual(ids(await store.listSummaries({ limit: 10, database: 'db', table: 't' })), ['late2', 'late1', 'old0']);
    // A transition written by this version indexes an old record as well.
    await writeOldStyle(prefix, newSyncRecord('late3', planOf('db', 'u'), 't'), 4);
    await store.apply('late3', { type: 'start' });
    assert.deepEqual(ids(await store.listSummaries({ limit: 10, database: 'db', table: 'u' })), ['late3']);
    assert.equal((await store.summary('late3'))?.phase, 'PREPARING');
  });

  test('a record that is gone is never listed, and leaves the index the list read', async () => {
    const prefix = uniqueName('index');
    const store = new SyncStore(redis, prefix);
    for (let i = 0; i < 4; i++) await store.create(newSyncRecord(`s${i}`, planOf('db', 't'), 't'), i);
    await redis.del(syncRedisKeys(prefix, 's2').record);
    await redis.pexpire(syncRedisKeys(prefix, 's1').record, 1);
    await waitGone(syncRedisKeys(prefix, 's1').record);
    const tableIndex = `${prefix}:syncs:table:db/t`;
    assert.equal(await redis.zcard(tableIndex), 4);
    assert.deepEqual(ids(await store.listSummaries({ limit: 10, database: 'db', table: 't' })), ['s3', 's0']);
    assert.deepEqual(await redis.zrange(tableIndex, '0', '-1'), ['s0', 's3']);
    assert.deepEqual(ids(await store.listSummaries({ limit: 10 })), ['s3', 's0']);
    assert.deepEqual(await redis.zrange(`${prefix}:syncs`, '0', '-1'), ['s0', 's3']);
    assert.equal(await store.summary('s2'), undefined);
    // limit still filled from further down when removed ids were on the page
    assert.deepEqual(ids(await store.listSummaries({ limit: 2, database: 'db' })), ['s3', 's0']);
  });
});

/** Polls until Redis has expired the key (expiry is observable state, not a timer of ours). */
async function waitGone(key: string): Promise<void> {
  for (let i = 0; i < 1000 && (await redis.exists(key)) === 1; i++) await new Promise((r) => setImmediate(r));
  assert.equal(await redis.exists(key), 0);
}
