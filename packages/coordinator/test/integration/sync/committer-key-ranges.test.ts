/**
 * The colliding-key count of a direct sync's commit, with each shard's key ranges decoded as its
 * blob was prefetched (issue #11): on real Redis and a real primary-key table on local disk.
 *
 * - Prefetched or read at the drive, the count is the same, and it is the keys that really are in
 *   more than one shard.
 * - Ranges decoded from a blob that is no longer the accepted one are never used: a shard that
 *   accepted another attempt after its prefetch is counted from that attempt's blob (the ranges
 *   of the first attempt say it overlaps nothing, so using them would miss its collisions).
 * - The commit after the prefetches reads no record (it drives the one the prefetch read, at the
 *   same version), and a record written since is read again.
 */
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { services, uniqueName } from '@tributary/testkit';
import { planFingerprint, shardVoteToken, stagedBlobKey, syncRedisKeys } from '@tributary/protocol';
import { parseDataTypeString, warehouseTables, type CommitMessage, type Tables } from '@tributary/table';
import { SyncCommitter } from '../../../src/sync/committer.ts';
import { SyncStore } from '../../../src/sync/store.ts';
import { newSyncRecord, type SyncRecord } from '../../../src/sync/state.ts';
import { testBlob } from '../../support/blob.ts';
import { testPlan } from '../../support/plan.ts';

const redis = new Redis({ ...services.redis, maxRetriesPerRequest: null });
after(() => redis.quit());

const secret = new TextEncoder().encode('thirty-two bytes of cluster secret!!');
const SHARDS = 5;
const ref = { database: 'db', table: 'kv' };

/** Counts the record reads. */
class CountingStore extends SyncStore {
  recordReads = 0;
  override async get(syncId: string): Promise<SyncRecord | undefined> {
    this.recordReads++;
    return super.get(syncId);
  }
}

interface Staged {
  readonly store: CountingStore;
  readonly committer: SyncCommitter;
  /** Writes shard `i`'s rows `ids` as attempt `attempt`, stages its blob and vote, and accepts it. */
  stage(i: number, attempt: number, ids: readonly bigint[]): Promise<void>;
  /** Prefetches every shard's attempt 1 and waits until each verified its blob and decoded its key ranges. */
  prefetchAll(): Promise<void>;
}

/** A PREPARING direct sync of SHARDS shards into a fresh primary-key table of one bucket. */
async function preparingSync(): Promise<Staged> {
  const prefix = uniqueName('key-ranges');
  const warehouse = pathToFileURL(mkdtempSync(join(tmpdir(), 'key-ranges-'))).href;
  const tables: Tables = warehouseTables();
  await tables.createTable(warehouse, ref, {
    fields: [
      { name: 'id', type: parseDataTypeString('BIGINT NOT NULL') },
      { name: 'v', type: parseDataTypeString('STRING') },
    ],
    partitionKeys: [],
    primaryKeys: ['id'],
    options: { bucket: '1' },
  });
  const plan = testPlan('tributary-sync-k', { table: ref, shards: SHARDS, mode: 'upsert' });
  const store = new CountingStore(redis, prefix);
  const record = newSyncRecord('k', plan, new Date().toISOString());
  await store.create(record, Date.now());
  await store.apply('k', { type: 'start' });
  store.recordReads = 0;
  const keys = syncRedisKeys(prefix, 'k');
  const fingerprint = planFingerprint(plan, warehouse);
  const objects = tables.warehouseStore(warehouse);
  const stage = async (i: number, attempt: number, ids: readonly bigint[]): Promise<void> => {
    const shardId = `shard-${i}`;
    const table = await tables.openTable(warehouse, ref);
    const write = await table.newWrite({ writerId: `k-${i}-a${attempt}`, sequenceSlot: i });
    await write.writeRows(ids.map((id) => [id, `v${id}-${attempt}`]));
    const messages: CommitMessage[] = await write.prepareCommit();
    const { blob, vote } = testBlob({ syncId: 'k', shardId, attempt, tablePath: tables.tablePath(ref), voteToken: shardVoteToken(secret, 'k', shardId, fingerprint) }, messages);
    await objects.put(stagedBlobKey('k', shardId, String(attempt)), blob);
    await redis.hset(keys.votes, shardId, JSON.stringify(vote));
    await redis.hset(keys.accepted, shardId, String(attempt));
  };
  // The committer's tables count the key ranges its prefetches decode: the sign a prefetch is done.
  let rangesDecoded = 0;
  const counted: Tables = {
    ...tables,
    async openTable(...args: Parameters<Tables['openTable']>) {
      const table = await tables.openTable(...args);
      if (!Object.hasOwn(table, 'writerKeyRanges')) {
        const decode = table.writerKeyRanges.bind(table);
        table.writerKeyRanges = (messages) => {
          const ranges = decode(messages);
          rangesDecoded++;
          return ranges;
        };
      }
      return table;
    },
  };
  const committer = new SyncCommitter({ store, tables: counted, warehouse, clusterSecret: secret });
  const prefetchAll = async (): Promise<void> => {
    const decoded = rangesDecoded;
    for (let i = 0; i < SHARDS; i++) committer.prefetch('k', `shard-${i}`, '1');
    const deadline = Date.now() + 10_000;
    while (rangesDecoded < decoded + SHARDS) {
      if (Date.now() > deadline) throw new Error(`only ${rangesDecoded - decoded} of ${SHARDS} prefetches decoded their key ranges`);
      await sleep(5);
    }
  };
  return { store, committer, stage, prefetchAll };
}

/** Shard i's keys: 10i … 10i + width - 1 (width > 10: the next shard's first width - 10 keys too). */
const keysOf = (i: number, width: number): bigint[] => Array.from({ length: width }, (_, k) => BigInt(10 * i + k));

function collidingOf(record: SyncRecord): number | undefined {
  return record.state.phase === 'COMMITTED' ? record.state.collidingKeys : undefined;
}

describe('SyncCommitter, direct: the colliding-key count from key ranges decoded at the prefetch', () => {
  test('prefetched or read at the drive: the same count, the keys that are in two shards', async () => {
    const counts: (number | undefined)[] = [];
    for (const prefetch of [true, false]) {
      const s = await preparingSync();
      for (let i = 0; i < SHARDS; i++) await s.stage(i, 1, keysOf(i, 13)); // 3 keys shared with the next shard
      if (prefetch) await s.prefetchAll();
      const committed = await s.committer.drive('k');
      await s.committer.close();
      assert.equal(committed.state.phase, 'COMMITTED', committed.state.phase === 'ABORTED' ? committed.state.reason.code : '');
      counts.push(collidingOf(committed));
    }
    assert.deepEqual(counts, [3 * (SHARDS - 1), 3 * (SHARDS - 1)]);
  });

  test('a shard that accepted another attempt after its prefetch is counted from that attempt, not from the ranges of the first', async () => {
    const s = await preparingSync();
    for (let i = 0; i < SHARDS; i++) await s.stage(i, 1, keysOf(i, 5)); // apart: nothing collides
    await s.prefetchAll();
    // Attempt 2 of shard 0 writes keys 0 … 14: 10 … 14 are shard 1's too.
    await s.stage(0, 2, keysOf(0, 15));
    const committed = await s.committer.drive('k');
    await s.committer.close();
    assert.equal(committed.state.phase, 'COMMITTED', committed.state.phase === 'ABORTED' ? committed.state.reason.code : '');
    assert.equal(collidingOf(committed), 5);
    if (committed.state.phase === 'COMMITTED') assert.equal(committed.state.accepted['shard-0']?.attemptId, '2');
  });

  test('the commit drives the record the prefetch read while its version is the stored one, and reads it again once written since', async () => {
    const s = await preparingSync();
    for (let i = 0; i < SHARDS; i++) await s.stage(i, 1, keysOf(i, 5));
    await s.prefetchAll();
    assert.equal(s.store.recordReads, 1, 'the prefetches read the record once');
    assert.equal((await s.committer.drive('k')).state.phase, 'COMMITTED');
    await s.committer.close();
    assert.equal(s.store.recordReads, 1, 'the drive read no record');

    const t = await preparingSync();
    for (let i = 0; i < SHARDS; i++) await t.stage(i, 1, keysOf(i, 5));
    await t.prefetchAll();
    // Written since the prefetch read it (another coordinator, an abort request): read again, and decided on.
    await t.store.apply('k', { type: 'abort', reason: { code: 'SYNC_ABORT_REQUESTED', message: 'stop', retryable: false, context: {} } });
    const reads = t.store.recordReads;
    const ended = await t.committer.drive('k');
    await t.committer.close();
    assert.ok(t.store.recordReads > reads, 'the drive read the record');
    assert.equal(ended.state.phase, 'ABORTED');
  });
});
