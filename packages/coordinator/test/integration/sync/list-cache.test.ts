/**
 * The list's reads kept by revision (SyncStore.listSummaryTexts): a list never answers from before a
 * write, whichever coordinator made it; callers asking at once share one read; what no write
 * announces (a record deleted from outside) leaves the list once the kept read is older than its
 * bound. Against the real Redis; the page script's calls are counted on the real client.
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { Redis } from 'ioredis';
import { services, uniqueName } from '@tributary/testkit';
import { syncRedisKeys } from '@tributary/protocol';
import { SyncStore } from '../../../src/sync/store.ts';
import { newSyncRecord } from '../../../src/sync/state.ts';
import { testPlan } from '../../support/plan.ts';

const redis = new Redis({ ...services.redis, maxRetriesPerRequest: null });
after(() => redis.quit());

/** The real client, with its `eval` calls (the list's page script, every write's CAS script) counted. */
function counted(): { client: Redis; evals: () => number } {
  let evals = 0;
  const client = new Proxy(redis, {
    get(target, property) {
      if (property === 'eval') {
        return (...args: Parameters<Redis['eval']>) => {
          evals++;
          return target.eval(...args);
        };
      }
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return { client, evals: () => evals };
}

const plan = (database = 'db', table = 't') => testPlan('tributary-sync-x', { table: { database, table }, shards: [{ id: 's0', spec: {} }] });
const ids = (list: readonly { id: string }[]) => list.map((s) => s.id);
// Long enough that only a revision can end a kept read while a test runs.
const KEEP = { listCacheMs: 600_000 };

describe('sync list reads kept by revision', () => {
  test('a list after a write shows it, though the same list was just read', async () => {
    const store = new SyncStore(redis, uniqueName('list-cache'), undefined, KEEP);
    await store.create(newSyncRecord('a', plan(), 't'), 1);
    assert.deepEqual(ids(await store.listSummaries({ limit: 10 })), ['a']);
    assert.deepEqual(ids(await store.listSummaries({ limit: 10, phase: 'PLANNED' })), ['a']);
    await store.create(newSyncRecord('b', plan(), 't'), 2);
    assert.deepEqual(ids(await store.listSummaries({ limit: 10 })), ['b', 'a']);
    await store.apply('a', { type: 'start' });
    assert.deepEqual(ids(await store.listSummaries({ limit: 10, phase: 'PLANNED' })), ['b']);
    assert.deepEqual(
      (await store.listSummaries({ limit: 10 })).map((s) => `${s.id}:${s.phase}`),
      ['b:PLANNED', 'a:PREPARING'],
    );
  });

  test("another coordinator's write is seen by the next list of this one", async () => {
    const prefix = uniqueName('list-cache');
    const here = new SyncStore(redis, prefix, undefined, KEEP);
    const there = new SyncStore(redis, prefix, undefined, KEEP);
    await here.create(newSyncRecord('a', plan('db', 't'), 't'), 1);
    assert.deepEqual(ids(await here.listSummaries({ limit: 10, database: 'db', table: 't' })), ['a']);
    await there.create(newSyncRecord('b', plan('db', 't'), 't'), 2);
    assert.deepEqual(ids(await here.listSummaries({ limit: 10, database: 'db', table: 't' })), ['b', 'a']);
    await there.apply('b', { type: 'abort', reason: { code: 'SYNC_ABORT_REQUESTED', message: 'stop', retryable: false, context: {} } });
    assert.deepEqual(ids(await here.listSummaries({ limit: 10, database: 'db', table: 't', phase: 'ABORTING' })), ['b']);
  });

  test('callers asking at once share one read; a repeated list reads again only after a write', async () => {
    const { client, evals } = counted();
    const prefix = uniqueName('list-cache');
    const store = new SyncStore(client, prefix, undefined, KEEP);
    for (let i = 0; i < 3; i++) await store.create(newSyncRecord(`s${i}`, plan(), 't'), i);
    // What one read of this list costs (page scripts), by a store that keeps nothing.
    const reader = new SyncStore(client, prefix, undefined, { listCacheMs: 0 });
    let before = evals();
    await reader.listSummaryTexts({ limit: 100 });
    const perRead = evals() - before;
    assert.ok(perRead >= 1);
    before = evals();
    const lists = await Promise.all(Array.from({ length: 50 }, () => store.listSummaryTexts({ limit: 100 })));
    assert.equal(evals() - before, perRead, 'one read for 50 lists asked at once');
    for (const list of lists) assert.equal(list.texts.length, 3);
    await store.listSummaryTexts({ limit: 100 });
    assert.equal(evals() - before, perRead, 'nothing written: the kept read answers');
    await store.listSummaryTexts({ limit: 2 });
    assert.ok(evals() - before > perRead, 'another filter reads');
    before = evals();
    await store.create(newSyncRecord('s3', plan(), 't'), 3); // one CAS script
    assert.equal((await store.listSummaryTexts({ limit: 100 })).texts.length, 4);
    assert.ok(evals() - before > 1, 'after the write the list reads again');
  });

  test('without keeping (listCacheMs 0) every list reads', async () => {
    const { client, evals } = counted();
    const store = new SyncStore(client, uniqueName('list-cache'), undefined, { listCacheMs: 0 });
    await store.create(newSyncRecord('a', plan(), 't'), 1);
    let before = evals();
    await store.listSummaryTexts({ limit: 10 });
    const first = evals() - before;
    before = evals();
    await store.listSummaryTexts({ limit: 10 });
    assert.ok(first >= 1);
    assert.equal(evals() - before, first);
  });

  test('a record deleted from outside (no revision) leaves the list once the kept read is older than the bound', async () => {
    const prefix = uniqueName('list-cache');
    const store = new SyncStore(redis, prefix, undefined, { listCacheMs: 50 });
    await store.create(newSyncRecord('a', plan(), 't'), 1);
    await store.create(newSyncRecord('b', plan(), 't'), 2);
    assert.deepEqual(ids(await store.listSummaries({ limit: 10 })), ['b', 'a']);
    await redis.del(syncRedisKeys(prefix, 'a').record);
    let listed = ids(await store.listSummaries({ limit: 10 }));
    for (let i = 0; i < 10_000 && listed.includes('a'); i++) {
      await new Promise((resolve) => setImmediate(resolve));
      listed = ids(await store.listSummaries({ limit: 10 }));
    }
    assert.deepEqual(listed, ['b']);
  });
});
