/**
 * The sync list's index and the light status through a coordinator's REST API and across its
 * restart: syncs created, finished (COMMITTED, ABORTED), deleted or expired, and one written by an
 * earlier version, listed and filtered the same by the coordinator that saw them written and by
 * the one started after it on the same Redis; GET /v1/syncs/:id/status agrees with GET /v1/syncs/:id.
 * Only terminal syncs are stored, so the restarted coordinator resumes nothing and the answers
 * cannot change between the two.
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { Redis } from 'ioredis';
import { services } from '@tributary/testkit';
import { syncRedisKeys } from '@tributary/protocol';
import { SyncStore, type Coordinator } from '@tributary/coordinator';
import { inProcessCoordinator, plannedSyncRecord, syncEnv, waitUntil } from '../sync/harness.ts';

const redis = new Redis({ ...services.redis, maxRetriesPerRequest: null });
after(() => redis.quit());

const reason = { code: 'SYNC_ABORT_REQUESTED', message: 'stop', retryable: false, context: {} };

/** Creates a sync and finishes it: COMMITTED (every shard accepted) or ABORTED. */
async function finished(store: SyncStore, id: string, database: string, table: string, createdAtMs: number, outcome: 'COMMITTED' | 'ABORTED'): Promise<void> {
  const record = plannedSyncRecord(id, database, table, 3);
  assert.equal(await store.create(record, createdAtMs), true);
  if (outcome === 'ABORTED') {
    await store.apply(id, { type: 'abort', reason });
    await store.apply(id, { type: 'cleaned' });
    return;
  }
  await store.apply(id, { type: 'start' });
  const accepted = Object.fromEntries(record.plan.shards.map((s, i) => [s.id, { attemptId: '1', blobKey: `b/${id}/${s.id}`, checksum: 1, rows: 10 * (i + 1), bytes: 100 }]));
  await store.apply(id, { type: 'beginCommit', accepted });
  await store.apply(id, { type: 'committed', snapshotId: createdAtMs });
}

async function get(c: Coordinator, url: string): Promise<{ status: number; body: string }> {
  const response = await c.app.inject({ method: 'GET', url });
  return { status: response.statusCode, body: response.body };
}

const LISTS = [
  '/v1/syncs?limit=100',
  '/v1/syncs?limit=2',
  '/v1/syncs?database=db1',
  '/v1/syncs?database=db1&table=a',
  '/v1/syncs?table=b',
  '/v1/syncs?state=ABORTED',
  '/v1/syncs?state=COMMITTED&database=db2',
];

/** Every list and every sync's status and view, as one coordinator answers them. */
async function answers(c: Coordinator, ids: readonly string[]): Promise<Record<string, { status: number; body: string }>> {
  const out: Record<string, { status: number; body: string }> = {};
  for (const url of [...LISTS, ...ids.flatMap((id) => [`/v1/syncs/${id}/status`, `/v1/syncs/${id}`])]) out[url] = await get(c, url);
  return out;
}

const listed = (body: string) => (JSON.parse(body) as { syncs: { id: string; phase: string }[] }).syncs.map((s) => s.id);

describe('sync list index across a coordinator restart', () => {
  test('created, finished, deleted, expired and earlier-version syncs: the same answers before and after', { timeout: 180_000 }, async () => {
    const e = syncEnv('list-restart');
    const store = new SyncStore(redis, e.prefix);
    const ids = ['c0', 'c1', 'c2', 'c3', 'c4', 'c5'];
    const tables: [string, string][] = [['db1', 'a'], ['db1', 'b'], ['db2', 'a'], ['db2', 'b']];
    let first: Coordinator | undefined = await inProcessCoordinator(e);
    let before: Record<string, { status: number; body: string }>;
    try {
      for (const [i, id] of ids.entries()) {
        const [database, table] = tables[i % tables.length]!;
        await finished(store, id, database, table, 1000 + i, i % 3 === 2 ? 'ABORTED' : 'COMMITTED');
      }
      before = await answers(first, ids);
      assert.deepEqual(listed(before['/v1/syncs?limit=100']!.body), ['c5', 'c4', 'c3', 'c2', 'c1', 'c0']);
      assert.deepEqual(listed(before['/v1/syncs?limit=2']!.body), ['c5', 'c4']);
      assert.deepEqual(listed(before['/v1/syncs?database=db1']!.body), ['c5', 'c4', 'c1', 'c0']);
      assert.deepEqual(listed(before['/v1/syncs?database=db1&table=a']!.body), ['c4', 'c0']);
      assert.deepEqual(listed(before['/v1/syncs?table=b']!.body), ['c5', 'c3', 'c1']);
      assert.deepEqual(listed(before['/v1/syncs?state=ABORTED']!.body), ['c5', 'c2']);
      assert.deepEqual(listed(before['/v1/syncs?state=COMMITTED&database=db2']!.body), ['c3']);
      for (const id of ids) {
        const status = JSON.parse(before[`/v1/syncs/${id}/status`]!.body) as Record<string, unknown>;
        const view = JSON.parse(before[`/v1/syncs/${id}`]!.body) as Record<string, unknown>;
        assert.equal(before[`/v1/syncs/${id}/status`]!.status, 200);
        for (const field of ['id', 'phase', 'snapshotId', 'shardCounts', 'timings']) assert.deepEqual(status[field], view[field], `${id} ${field}`);
        if (view.phase === 'COMMITTED') assert.deepEqual([status.rowsRead, status.bytesWritten], [view.rowsRead, view.bytesWritten]);
        else assert.deepEqual([status.rowsRead, status.bytesWritten], [null, null]);
      }
    } finally {
      await first.close();
      first = undefined;
    }

    // While no coordinator runs: an earlier version writes a record without summary, head, frozen
    // totals or table index (it finds its place in the index of all syncs only).
    const old = { ...plannedSyncRecord('old', 'db1', 'a', 2), state: { phase: 'ABORTED' as const, reason, stagedDeleted: false }, timings: { PLANNED: '2026-01-01T00:00:00.000Z' } };
    await redis.hset(syncRedisKeys(e.prefix, 'old').record, 'version', '0', 'json', JSON.stringify(old), 'phase', 'ABORTED', 'table', 'db1.a', 'discard', '0');
    await redis.zadd(`${e.prefix}:syncs`, 999, 'old');

    const second = await inProcessCoordinator(e);
    try {
      // The restarted coordinator indexed the earlier version's record when it started.
      assert.deepEqual(listed((await get(second, '/v1/syncs?database=db1&table=a')).body), ['c4', 'c0', 'old']);
      const oldStatus = JSON.parse((await get(second, '/v1/syncs/old/status')).body) as Record<string, unknown>;
      assert.deepEqual([oldStatus.phase, oldStatus.shardCounts, oldStatus.reason], ['ABORTED', { total: 2, accepted: 0, attempted: 0 }, reason]);
      // Every other answer is what the first coordinator gave, byte for byte, but for the lists the old record joined.
      const after = await answers(second, ids);
      for (const url of Object.keys(before)) {
        if (['/v1/syncs?limit=100', '/v1/syncs?database=db1', '/v1/syncs?database=db1&table=a', '/v1/syncs?state=ABORTED'].includes(url)) {
          assert.deepEqual(listed(after[url]!.body).filter((id) => id !== 'old'), listed(before[url]!.body), url);
        } else assert.deepEqual(after[url], before[url], url);
      }

      // The OpenAPI document describes the status route, its answer and its 404.
      const doc = JSON.parse((await get(second, '/docs/json')).body) as { paths: Record<string, { get?: { responses?: Record<string, { content?: Record<string, { schema?: { properties?: object } }> }> } }> };
      const route = doc.paths['/v1/syncs/{id}/status']?.get?.responses;
      assert.deepEqual(Object.keys(route?.['200']?.content?.['application/json']?.schema?.properties ?? {}), ['id', 'phase', 'table', 'shards', 'snapshotId', 'reason', 'timings', 'shardCounts', 'rowsRead', 'bytesWritten']);
      assert.notEqual(route?.['404']?.content?.['application/problem+json'], undefined);

      // A sync created and finished under the second coordinator is first in its lists.
      await finished(second.store, 'n0', 'db2', 'b', 2000, 'COMMITTED');
      assert.deepEqual(listed((await get(second, '/v1/syncs?database=db2&table=b')).body), ['n0', 'c3']);
      assert.deepEqual(listed((await get(second, '/v1/syncs?state=COMMITTED&limit=2')).body), ['n0', 'c4']);

      // Deleted, and expired by a TTL: gone from every list, from the indexes the lists read, and 404.
      await redis.del(syncRedisKeys(e.prefix, 'c1').record);
      await redis.pexpire(syncRedisKeys(e.prefix, 'c3').record, 1);
      await waitUntil(async () => (await redis.exists(syncRedisKeys(e.prefix, 'c3').record)) === 0, 'the record c3 to expire in Redis');
      assert.deepEqual(listed((await get(second, '/v1/syncs?table=b')).body), ['n0', 'c5']);
      assert.deepEqual(listed((await get(second, '/v1/syncs?database=db2&table=b')).body), ['n0']);
      assert.deepEqual(listed((await get(second, '/v1/syncs?database=db1&table=b')).body), ['c5']);
      assert.equal((await redis.zrange(`${e.prefix}:syncs:table:db2/b`, '0', '-1')).includes('c3'), false);
      assert.equal((await redis.zrange(`${e.prefix}:syncs`, '0', '-1')).includes('c1'), false);
      for (const id of ['c1', 'c3']) {
        const status = await get(second, `/v1/syncs/${id}/status`);
        assert.equal(status.status, 404, id);
        assert.equal((JSON.parse(status.body) as { code: string }).code, 'SYNC_NOT_FOUND');
      }
    } finally {
      await second.close();
    }
  });

  test('GET /v1/syncs pages by cursor; a cursor the listing did not return is 400 SYNC_CURSOR_INVALID', async () => {
    const e = syncEnv('list-pages');
    const store = new SyncStore(redis, e.prefix);
    const c = await inProcessCoordinator(e);
    try {
      for (let i = 0; i < 5; i++) await finished(store, `q${i}`, 'db1', i % 2 === 0 ? 'a' : 'b', 1000 + i, 'COMMITTED');
      const page = async (url: string) => {
        const r = await get(c, url);
        assert.equal(r.status, 200, r.body);
        return JSON.parse(r.body) as { syncs: { id: string }[]; nextCursor: string | null };
      };
      const walked: string[][] = [];
      for (let url: string | undefined = '/v1/syncs?limit=2'; url !== undefined; ) {
        const p = await page(url);
        walked.push(p.syncs.map((s) => s.id));
        url = p.nextCursor === null ? undefined : `/v1/syncs?limit=2&cursor=${encodeURIComponent(p.nextCursor)}`;
      }
      assert.deepEqual(walked, [['q4', 'q3'], ['q2', 'q1'], ['q0']]);
      // A cursor is a place in the list: with a filter it goes on from there too.
      const first = await page('/v1/syncs?limit=1&table=a');
      assert.deepEqual(first.syncs.map((s) => s.id), ['q4']);
      assert.deepEqual((await page(`/v1/syncs?table=a&cursor=${encodeURIComponent(first.nextCursor ?? '')}`)).syncs.map((s) => s.id), ['q2', 'q0']);
      assert.equal((await page('/v1/syncs?limit=50')).nextCursor, null, 'a page that is not full has no next');

      const shardsCursor = Buffer.from(JSON.stringify({ s: 'q1', o: 0 })).toString('base64url');
      for (const cursor of ['nope', '', shardsCursor, Buffer.from('{"k":"syncs","s":"1","id":"q1"}').toString('base64url')]) {
        const r = await get(c, `/v1/syncs?cursor=${encodeURIComponent(cursor)}`);
        assert.equal(r.status, 400, cursor);
        assert.equal((JSON.parse(r.body) as { code: string }).code, 'SYNC_CURSOR_INVALID', cursor);
      }
    } finally {
      await c.close();
    }
  });
});
