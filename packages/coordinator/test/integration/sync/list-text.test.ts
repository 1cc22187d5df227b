/**
 * GET /v1/syncs splices the summaries' stored texts: each text must be exactly what the route's
 * response schema serialises for that summary, whoever wrote it (this store; a coordinator that
 * wrote summaries in another key order; one that predates the summary's version marker and
 * overwrote a summary after this store), and a transition must show in the next list.
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { Redis } from 'ioredis';
import { z } from 'zod';
import { serializerCompiler } from 'fastify-type-provider-zod';
import { services, uniqueName } from '@tributary/testkit';
import { syncRedisKeys } from '@tributary/protocol';
import { SyncStore } from '../../../src/sync/store.ts';
import { newSyncRecord, type SyncPlan } from '../../../src/sync/state.ts';
import { SyncSummarySchema, syncSummary } from '../../../src/sync/summary.ts';
import { testPlan } from '../../support/plan.ts';

const redis = new Redis({ ...services.redis, maxRetriesPerRequest: null });
after(() => redis.quit());

const reason = { code: 'SYNC_ABORT_REQUESTED', message: 'stop "now" \u00e9\u2028', retryable: false, context: { shard: 's0', n: 3, ok: true, none: null } };

function planOf(database: string, table: string): SyncPlan {
  return testPlan('tributary-sync-x', { table: { database, table }, shards: [{ id: 's0', spec: {} }] });
}

/** What the route sent before the splice: its response schema's serialiser over the parsed summaries. */
const serialise = serializerCompiler({ schema: z.object({ syncs: z.array(SyncSummarySchema) }), method: 'GET', url: '/v1/syncs', httpStatus: '200' } as never) as (data: unknown) => string;

async function listed(store: SyncStore, filter: Parameters<SyncStore['listSummaries']>[0]): Promise<{ spliced: string; serialised: string }> {
  const spliced = `{"syncs":[${(await store.listSummaryTexts(filter)).texts.join(',')}]}`;
  const serialised = serialise({ syncs: await store.listSummaries(filter) });
  return { spliced, serialised };
}

describe('sync list texts', () => {
  test('each text is the schema serialiser\u2019s output, for every phase and filter', async () => {
    const store = new SyncStore(redis, uniqueName('list-text'));
    for (let i = 0; i < 6; i++) await store.create(newSyncRecord(`s${i}`, planOf('db1', i % 2 === 0 ? 'a' : 'b'), 't'), 1000 + i);
    await store.apply('s1', { type: 'abort', reason });
    await store.apply('s2', { type: 'start' });
    for (const filter of [{ limit: 50 }, { limit: 2 }, { limit: 50, database: 'db1' }, { limit: 50, database: 'db1', table: 'a' }, { limit: 50, table: 'b' }, { limit: 50, phase: 'ABORTING' as const }]) {
      const { spliced, serialised } = await listed(store, filter);
      assert.equal(spliced, serialised, JSON.stringify(filter));
      assert.ok((JSON.parse(spliced) as { syncs: unknown[] }).syncs.length > 0);
    }
    const one = JSON.parse((await listed(store, { limit: 50, phase: 'ABORTING' })).spliced) as { syncs: { id: string; reason: unknown }[] };
    assert.deepEqual(one.syncs.map((s) => [s.id, s.reason]), [['s1', reason]]);
  });

  test('a transition shows in the next list, text and filters', async () => {
    const store = new SyncStore(redis, uniqueName('list-text'));
    await store.create(newSyncRecord('s0', planOf('db', 't'), 't'), 1);
    assert.equal((await store.listSummaries({ limit: 10 }))[0]?.phase, 'PLANNED');
    await store.apply('s0', { type: 'start' });
    assert.equal((await store.listSummaries({ limit: 10 }))[0]?.phase, 'PREPARING');
    assert.deepEqual((await store.listSummaryTexts({ limit: 10, phase: 'PLANNED' })).texts, []);
    assert.equal((await store.listSummaryTexts({ limit: 10, phase: 'PREPARING' })).texts.length, 1);
    const { spliced, serialised } = await listed(store, { limit: 10 });
    assert.equal(spliced, serialised);
  });

  test('a summary stored in another key order, or left behind by an older writer, is served as the schema serialises the current one', async () => {
    const prefix = uniqueName('list-text');
    const store = new SyncStore(redis, prefix);
    await store.create(newSyncRecord('s0', planOf('db', 't'), 't'), 1);
    await store.create(newSyncRecord('s1', planOf('db', 't'), 't'), 2);
    await store.apply('s1', { type: 'abort', reason });
    const key = (id: string) => syncRedisKeys(prefix, id).record;

    // s0: a summary in another key order with an extra key, marked as written for the current version by nobody (no marker).
    const s0 = syncSummary((await store.get('s0'))!);
    await redis.hset(key('s0'), 'summary', JSON.stringify({ extra: 1, timings: s0.timings, reason: s0.reason, snapshotId: s0.snapshotId, shards: s0.shards, table: { table: 't', database: 'db' }, phase: s0.phase, id: s0.id }));
    await redis.hdel(key('s0'), 'summaryVersion');
    // s1: an older coordinator's next write: a new version and summary (reason keys reordered), the marker of the version before.
    const s1 = syncSummary((await store.get('s1'))!);
    const version = Number(await redis.hget(key('s1'), 'version'));
    await redis.hset(key('s1'), 'version', String(version + 1), 'summary', JSON.stringify({ ...s1, phase: 'ABORTED', reason: { context: reason.context, retryable: false, message: reason.message, code: reason.code } }));

    const { spliced, serialised } = await listed(store, { limit: 10 });
    assert.equal(spliced, serialised);
    const syncs = (JSON.parse(spliced) as { syncs: Record<string, unknown>[] }).syncs;
    assert.deepEqual(syncs.map((s) => [s.id, s.phase]), [['s1', 'ABORTED'], ['s0', 'PLANNED']]);
    assert.deepEqual(Object.keys(syncs[1]!), ['id', 'phase', 'table', 'shards', 'snapshotId', 'reason', 'timings']);
    assert.equal(spliced.includes('"extra"'), false);
  });
});
