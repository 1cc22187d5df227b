/**
 * GET /v1/syncs/:id/status reads the store's status text: the summary and shard counts of a sync in
 * one constant-size step. Its text must be what the route's response schema serialises for the
 * sync as GET /v1/syncs/:id shows it (phase, counts, frozen totals), in every phase, whoever wrote
 * the record (this store; an older writer that left no summary or no frozen totals, or left them
 * behind at an earlier version), and nothing for a sync that is gone.
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { Redis } from 'ioredis';
import { serializerCompiler } from 'fastify-type-provider-zod';
import { services, uniqueName } from '@tributary/testkit';
import { syncRedisKeys } from '@tributary/protocol';
import { SyncStore } from '../../../src/sync/store.ts';
import { newSyncRecord, type SyncPlan, type SyncRecord } from '../../../src/sync/state.ts';
import { syncSummary } from '../../../src/sync/summary.ts';
import { SyncStatusSchema } from '../../../src/sync/status.ts';
import { testPlan } from '../../support/plan.ts';

const redis = new Redis({ ...services.redis, maxRetriesPerRequest: null });
after(() => redis.quit());

const reason = { code: 'SYNC_ABORT_REQUESTED', message: 'stop "now" \u00e9', retryable: false, context: { n: 3 } };

function planOf(database: string, table: string, shards: number): SyncPlan {
  return testPlan('tributary-sync-x', { table: { database, table }, shards: Array.from({ length: shards }, (_, i) => ({ id: `s${i}`, spec: { i } })) });
}

/** The route's response serialiser. */
const serialise = serializerCompiler({ schema: SyncStatusSchema, method: 'GET', url: '/v1/syncs/:id/status', httpStatus: '200' } as never) as (data: unknown) => string;

/** What the status must say of `record`, computed from the whole record and the hashes' sizes, as GET /v1/syncs/:id counts. */
function expected(record: SyncRecord, accepted: number, attempted: number): string {
  const state = record.state;
  const frozen = state.phase === 'COMMITTING' || state.phase === 'COMMITTED' ? Object.values(state.accepted) : undefined;
  return serialise({
    ...syncSummary(record),
    shardCounts: { total: record.plan.shards.length, accepted: frozen?.length ?? accepted, attempted },
    rowsRead: frozen === undefined ? null : frozen.reduce((n, a) => n + a.rows, 0),
    bytesWritten: frozen === undefined ? null : frozen.reduce((n, a) => n + a.bytes, 0),
  });
}

const acceptedOf = (shards: readonly string[]) =>
  Object.fromEntries(shards.map((id, i) => [id, { attemptId: '1', blobKey: `b/${id}`, checksum: 1, rows: 10 + i, bytes: 100 + i }]));

describe('sync status text', () => {
  test('every phase: the schema serialiser\u2019s output of the summary and the counts', async () => {
    const prefix = uniqueName('status');
    const store = new SyncStore(redis, prefix);
    const keys = syncRedisKeys(prefix, 'p');
    await store.create(newSyncRecord('p', planOf('db', 't', 3), 't'), 1);
    assert.equal(await store.statusText('p'), expected((await store.get('p'))!, 0, 0));

    await store.apply('p', { type: 'start' });
    // Two shards tried, one accepted (as the workers' scripts write them).
    await redis.hset(keys.attemptSeq, 's0', '1', 's1', '2');
    await redis.hset(keys.accepted, 's0', '1');
    assert.equal(await store.statusText('p'), expected((await store.get('p'))!, 1, 2));
    assert.equal((JSON.parse((await store.statusText('p'))!) as { phase: string }).phase, 'PREPARING');

    await store.apply('p', { type: 'beginCommit', accepted: acceptedOf(['s0', 's1', 's2']) });
    const committing = JSON.parse((await store.statusText('p'))!) as Record<string, unknown>;
    assert.deepEqual([committing.shardCounts, committing.rowsRead, committing.bytesWritten], [{ total: 3, accepted: 3, attempted: 2 }, 33, 303]);
    await store.apply('p', { type: 'committed', snapshotId: 7 });
    const text = await store.statusText('p');
    assert.equal(text, expected((await store.get('p'))!, 1, 2));
    assert.equal((JSON.parse(text!) as { snapshotId: number }).snapshotId, 7);

    await store.create(newSyncRecord('a', planOf('db', 't', 2), 't'), 2);
    await store.apply('a', { type: 'abort', reason });
    const aborting = await store.statusText('a');
    assert.equal(aborting, expected((await store.get('a'))!, 0, 0));
    assert.deepEqual((JSON.parse(aborting!) as { reason: unknown }).reason, reason);
    assert.deepEqual(Object.keys(JSON.parse(aborting!) as object), ['id', 'phase', 'table', 'shards', 'snapshotId', 'reason', 'timings', 'shardCounts', 'rowsRead', 'bytesWritten']);
  });

  test('a record whose summary or frozen totals an older writer left behind (or never wrote) is read whole', async () => {
    const prefix = uniqueName('status');
    const store = new SyncStore(redis, prefix);
    const key = syncRedisKeys(prefix, 'c').record;
    await store.create(newSyncRecord('c', planOf('db', 't', 2), 't'), 1);
    await store.apply('c', { type: 'start' });
    await store.apply('c', { type: 'beginCommit', accepted: acceptedOf(['s0', 's1']) });
    // An older writer's next write: the record moves on (COMMITTED, one more shard in its plan) with
    // its summary (keys in another order), but no version marker, head or frozen totals of its version.
    const current = (await store.get('c'))!;
    const next: SyncRecord = { ...current, version: current.version + 1, state: { ...current.state, phase: 'COMMITTED', snapshotId: 4, accepted: { ...(current.state as { accepted: object }).accepted, ...acceptedOf(['s0', 's1', 's2']) } } as SyncRecord['state'], plan: { ...current.plan, shards: [...current.plan.shards, { id: 's2', spec: {} }] } };
    const { id, ...rest } = syncSummary(next);
    await redis.hset(key, 'version', String(next.version), 'json', JSON.stringify(next), 'phase', 'COMMITTED', 'summary', JSON.stringify({ ...rest, id }));
    await redis.hdel(key, 'head');
    assert.equal(await store.statusText('c'), expected(next, 0, 0));
    assert.deepEqual((JSON.parse((await store.statusText('c'))!) as { shardCounts: unknown }).shardCounts, { total: 3, accepted: 3, attempted: 0 });

    // Written before summaries, heads and frozen totals existed.
    await redis.hdel(key, 'summary', 'summaryVersion', 'frozen');
    assert.equal(await store.statusText('c'), expected(next, 0, 0));
  });

  test('a sync that is gone has no status', async () => {
    const prefix = uniqueName('status');
    const store = new SyncStore(redis, prefix);
    assert.equal(await store.statusText('never'), undefined);
    await store.create(newSyncRecord('g', planOf('db', 't', 1), 't'), 1);
    assert.notEqual(await store.statusText('g'), undefined);
    await redis.del(syncRedisKeys(prefix, 'g').record);
    assert.equal(await store.statusText('g'), undefined);
  });
});
