/**
 * The committer's start of the bucket stage on real Redis (bucketed layout): the shards' blobs,
 * which name sorted runs under the sync's runs path, are verified as they are prefetched and kept
 * only as runs summaries; the bucket plan and the folded positions are made from those summaries.
 *
 * - The plan and the positions are the same whether every blob was prefetched or read at the drive,
 *   and they are the runs the blobs name (computed here independently of the committer).
 * - A blob rewritten after its prefetch (however well resealed) changes nothing: what was verified
 *   against the worker's vote is what the plan names; the rewritten blob is never used.
 * - A blob rewritten before its prefetch, or carrying another vote token, is refused: the prefetch
 *   keeps nothing of it and the drive aborts the sync with the blob's typed reason.
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
import {
  planFingerprint,
  shardVoteToken,
  stagedBlobKey,
  syncRedisKeys,
  syncRunsPath,
  type PlannedBucketEntry,
  type ShardReadPosition,
  type ShardVote,
} from '@tributary/protocol';
import { EMPTY_COMPACT_INCREMENT, EMPTY_DATA_INCREMENT, FileSource, warehouseTables, type CommitMessage, type DataFileMeta } from '@tributary/table';
import { SyncCommitter, type BucketFlows } from '../../../src/sync/committer.ts';
import { foldPositions } from '../../../src/sync/positions.ts';
import { SyncStore } from '../../../src/sync/store.ts';
import { newSyncRecord, type SyncRecord } from '../../../src/sync/state.ts';
import { testBlob } from '../../support/blob.ts';
import { testPlan } from '../../support/plan.ts';

const redis = new Redis({ ...services.redis, maxRetriesPerRequest: null });
after(() => redis.quit());

const secret = new TextEncoder().encode('thirty-two bytes of cluster secret!!');
const SHARDS = 12;
/** Two day partitions (STRING BinaryRows of different lengths) × 3 buckets; NULL-partition-free. */
const partitions = [Uint8Array.of(0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0x81), Uint8Array.of(0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0x80)];
const KEY = Uint8Array.of(0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0);

function runFile(name: string, rows: bigint, minSequence: bigint): DataFileMeta {
  return {
    fileName: name,
    fileSize: 4096n + rows,
    rowCount: rows,
    minKey: KEY,
    maxKey: KEY,
    keyStats: { minValues: KEY, maxValues: KEY, nullCounts: [0n] },
    valueStats: { minValues: KEY, maxValues: KEY, nullCounts: [0n] },
    minSequenceNumber: minSequence,
    maxSequenceNumber: minSequence + rows - 1n,
    schemaId: 0n,
    level: 0,
    extraFiles: [],
    creationTimeMillis: 1_767_225_600_000n,
    deleteRowCount: 0n,
    embeddedIndex: null,
    fileSource: FileSource.APPEND,
    valueStatsCols: null,
    externalPath: null,
    firstRowId: null,
    writeCols: null,
    writeColsSequences: null,
  };
}

/**
 * The runs shard `i` writes (`tag` names them: a forged blob names others): some shards one bucket,
 * some several, one none at all; sequence numbers up to the int64 limit.
 */
function shardMessages(i: number, tag = 'run'): CommitMessage[] {
  const buckets = i % 5 === 4 ? [] : i % 3 === 0 ? [0, 2] : [i % 3];
  return buckets.map((bucket, k) => ({
    partition: partitions[(i + k) % 2] ?? new Uint8Array(),
    bucket,
    totalBuckets: 3,
    dataIncrement: {
      ...EMPTY_DATA_INCREMENT,
      newFiles: Array.from({ length: 1 + ((i + k) % 2) }, (_, f) =>
        runFile(`${tag}-${i}-${k}-${f}.parquet`, BigInt(1 + i + f), i === SHARDS - 1 ? 2n ** 63n - 100n : BigInt(i) * 1000n + BigInt(f)),
      ),
    },
    compactIncrement: EMPTY_COMPACT_INCREMENT,
  }));
}

function readPosition(i: number): ShardReadPosition {
  return { server: { id: `db-${i % 2}:3306`, log: { file: 'binlog.000007', offset: 1000 + i }, order: String(1000 + i).padStart(12, '0') } };
}

function blobOf(record: SyncRecord, shardId: string, i: number, messages: CommitMessage[], token: Uint8Array): { blob: Uint8Array; vote: ShardVote } {
  return testBlob({ syncId: record.id, shardId, attempt: 1, tablePath: syncRunsPath(record.id), voteToken: token, readPosition: readPosition(i) }, messages);
}

/** The bucket plan the blobs' runs make, computed here from the staged messages. */
function expectedPlan(): PlannedBucketEntry[] {
  const byKey = new Map<string, PlannedBucketEntry>();
  for (let slot = 0; slot < SHARDS; slot++) {
    for (const m of shardMessages(slot)) {
      const key = `${Buffer.from(m.partition).toString('hex')}/${m.bucket}`;
      const entry = byKey.get(key) ?? { partition: Buffer.from(m.partition).toString('base64'), bucket: m.bucket, totalBuckets: m.totalBuckets, runs: [] };
      for (const f of m.dataIncrement.newFiles) entry.runs.push({ fileName: f.fileName, size: Number(f.fileSize), rows: Number(f.rowCount), slot, minSequence: String(f.minSequenceNumber) });
      byKey.set(key, entry);
    }
  }
  return [...byKey.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([, e]) => e);
}

/** Counts the answers to the prefetches' vote reads (a prefetch asks for the vote once its blob decoded and checked). */
class CountingStore extends SyncStore {
  votesAnswered = 0;
  /** The drive's reads of votes: every vote (`all`), or those of the shards named. */
  readonly voteReads: ('all' | string[])[] = [];
  override async vote(syncId: string, shardId: string): Promise<ShardVote | undefined> {
    const v = await super.vote(syncId, shardId);
    this.votesAnswered++;
    return v;
  }
  override async votes(syncId: string): Promise<Map<string, ShardVote>> {
    this.voteReads.push('all');
    return super.votes(syncId);
  }
  override async votesOf(syncId: string, shardIds: readonly string[]): Promise<Map<string, ShardVote>> {
    this.voteReads.push([...shardIds]);
    return super.votesOf(syncId, shardIds);
  }
}

interface Staged {
  readonly store: CountingStore;
  readonly committer: SyncCommitter;
  readonly record: SyncRecord;
  readonly objects: ReturnType<ReturnType<typeof warehouseTables>['warehouseStore']>;
  readonly enqueued: number[];
  /** Rewrites shard `i`'s blob with other runs, validly sealed with its true vote token (only its vote no longer matches). */
  forge(i: number): Promise<void>;
}

/** A PREPARING bucketed sync whose every shard accepted attempt 1, with its blob and its vote. */
async function stagedSync(): Promise<Staged> {
  const prefix = uniqueName('bucketed-prefetch');
  const plan = testPlan('tributary-sync-b', { shards: SHARDS, mode: 'upsert', options: { layout: 'bucketed' } });
  const store = new CountingStore(redis, prefix);
  const record = newSyncRecord('b', plan, new Date().toISOString());
  await store.create(record, Date.now());
  await store.apply('b', { type: 'start' });
  const keys = syncRedisKeys(prefix, 'b');
  const warehouse = pathToFileURL(mkdtempSync(join(tmpdir(), 'bucketed-prefetch-'))).href;
  const fingerprint = planFingerprint(plan, warehouse);
  const tables = warehouseTables();
  const objects = tables.warehouseStore(warehouse);
  const token = (i: number) => shardVoteToken(secret, 'b', `shard-${i}`, fingerprint);
  for (let i = 0; i < SHARDS; i++) {
    const { blob, vote } = blobOf(record, `shard-${i}`, i, shardMessages(i), token(i));
    await objects.put(stagedBlobKey('b', `shard-${i}`, '1'), blob);
    await redis.hset(keys.votes, `shard-${i}`, JSON.stringify(vote));
    await redis.hset(keys.accepted, `shard-${i}`, '1');
  }
  const enqueued: number[] = [];
  const flows: BucketFlows = {
    enqueueBuckets: (_record, _fingerprint, buckets) => {
      enqueued.push(buckets);
      return Promise.resolve();
    },
    bucketFlowState: () => Promise.resolve('pending'),
  };
  const committer = new SyncCommitter({ store, tables, warehouse, clusterSecret: secret, bucketFlows: flows });
  const forge = async (i: number) => objects.put(stagedBlobKey('b', `shard-${i}`, '1'), blobOf(record, `shard-${i}`, i, shardMessages(i, 'forged'), token(i)).blob);
  return { store, committer, record, objects, enqueued, forge };
}

/** The bucket plan the committer wrote (`bucket:<id>` fields of `:plan`), in bucket job order. */
async function writtenPlan(store: SyncStore): Promise<PlannedBucketEntry[]> {
  const fields = await redis.hgetall(syncRedisKeys(store.prefix, 'b').plan);
  const buckets = Object.entries(fields).filter(([k]) => k.startsWith('bucket:bucket-'));
  return buckets
    .sort(([a], [b]) => Number(a.split('-')[1]) - Number(b.split('-')[1]))
    .map(([, v]) => {
      const { seal, ...entry } = JSON.parse(v) as PlannedBucketEntry & { seal: string };
      assert.match(seal, /^[A-Za-z0-9_-]{43}$/, 'each entry is sealed');
      return entry;
    });
}

/** Prefetches every shard (but `skip`) and waits until each has answered its vote read (the rest of a prefetch is synchronous after it). */
async function prefetchAll(s: Staged, expectedVotes = SHARDS, skip: readonly number[] = []): Promise<void> {
  for (let i = 0; i < SHARDS; i++) if (!skip.includes(i)) s.committer.prefetch('b', `shard-${i}`, '1');
  const deadline = Date.now() + 10_000;
  while (s.store.votesAnswered < expectedVotes) {
    if (Date.now() > deadline) throw new Error(`only ${s.store.votesAnswered} of ${expectedVotes} prefetches verified their blob`);
    await sleep(5);
  }
  await new Promise((resolve) => setImmediate(resolve));
}

const positionsOf = () => foldPositions('b', Array.from({ length: SHARDS }, (_, i) => ({ id: `shard-${i}`, readPosition: readPosition(i) }))).properties;

describe('SyncCommitter, bucketed: the bucket plan from verified runs summaries', () => {
  test('prefetched or read at the drive: the same plan, the same positions, the runs the blobs name', async () => {
    const plans: PlannedBucketEntry[][] = [];
    for (const prefetch of [true, false]) {
      const s = await stagedSync();
      if (prefetch) await prefetchAll(s);
      const merging = await s.committer.drive('b');
      await s.committer.close();
      assert.equal(merging.state.phase, 'MERGING');
      const plan = await writtenPlan(s.store);
      assert.deepEqual(s.enqueued, [plan.length]);
      assert.deepEqual((await s.store.foldedPositions('b'))?.properties, positionsOf());
      // Every shard's accepted attempt, with its blob's file count.
      if (merging.state.phase === 'MERGING') {
        assert.deepEqual(
          Object.entries(merging.state.accepted).map(([id, a]) => [id, a.files]),
          Array.from({ length: SHARDS }, (_, i) => [`shard-${i}`, shardMessages(i).reduce((n, m) => n + m.dataIncrement.newFiles.length, 0)]),
        );
      }
      plans.push(plan);
    }
    assert.deepEqual(plans[0], expectedPlan());
    assert.deepEqual(plans[1], expectedPlan());
  });

  test('a blob rewritten after its prefetch is never used: the plan names the runs its worker voted for', async () => {
    const s = await stagedSync();
    await prefetchAll(s);
    for (let i = 0; i < SHARDS; i++) await s.forge(i);
    const merging = await s.committer.drive('b');
    await s.committer.close();
    assert.equal(merging.state.phase, 'MERGING', merging.state.phase === 'ABORTED' ? merging.state.reason.code : '');
    const plan = await writtenPlan(s.store);
    assert.deepEqual(plan, expectedPlan());
    assert.ok(plan.every((e) => e.runs.every((r) => !r.fileName.startsWith('forged-'))));
  });

  test('a blob rewritten before its prefetch is refused: nothing kept of it, and the drive aborts with SYNC_VOTE_MISMATCH', async () => {
    const s = await stagedSync();
    await s.forge(3);
    // The forged blob decodes and carries the shard's token, so its prefetch reads the vote too.
    await prefetchAll(s);
    const aborted = await s.committer.drive('b');
    await s.committer.close();
    assert.ok(aborted.state.phase === 'ABORTED' || aborted.state.phase === 'ABORTING', aborted.state.phase);
    if (aborted.state.phase === 'ABORTED' || aborted.state.phase === 'ABORTING') {
      assert.equal(aborted.state.reason.code, 'SYNC_VOTE_MISMATCH');
      assert.equal(aborted.state.reason.context.shard, 'shard-3');
    }
    assert.deepEqual(s.enqueued, []);
    assert.deepEqual(await writtenPlan(s.store), []);
  });

  test('a blob sealed with another vote token is refused before its vote is read, prefetched or not', async () => {
    const s = await stagedSync();
    await s.objects.put(stagedBlobKey('b', 'shard-5', '1'), blobOf(s.record, 'shard-5', 5, shardMessages(5), new Uint8Array(32).fill(7)).blob);
    await prefetchAll(s, SHARDS - 1);
    const aborted = await s.committer.drive('b');
    await s.committer.close();
    assert.ok(aborted.state.phase === 'ABORTED' || aborted.state.phase === 'ABORTING', aborted.state.phase);
    if (aborted.state.phase === 'ABORTED' || aborted.state.phase === 'ABORTING') assert.equal(aborted.state.reason.code, 'BLOB_VOTE_TOKEN_INVALID');
    assert.deepEqual(s.enqueued, []);
  });

  test('the drive reads the votes of the shards no prefetch verified, and only those; each is still checked', async () => {
    const s = await stagedSync();
    await prefetchAll(s, SHARDS - 2, [3, 8]);
    const merging = await s.committer.drive('b');
    await s.committer.close();
    assert.equal(merging.state.phase, 'MERGING', merging.state.phase === 'ABORTED' ? merging.state.reason.code : '');
    assert.deepEqual(s.store.voteReads, [['shard-3', 'shard-8']]);
    assert.deepEqual(await writtenPlan(s.store), expectedPlan());

    // Not prefetched and rewritten: its vote, read by id, refuses it.
    const t = await stagedSync();
    await prefetchAll(t, SHARDS - 2, [3, 8]);
    await t.forge(8);
    const aborted = await t.committer.drive('b');
    await t.committer.close();
    assert.deepEqual(t.store.voteReads, [['shard-3', 'shard-8']]);
    assert.ok(aborted.state.phase === 'ABORTED' || aborted.state.phase === 'ABORTING', aborted.state.phase);
    if (aborted.state.phase === 'ABORTED' || aborted.state.phase === 'ABORTING') {
      assert.equal(aborted.state.reason.code, 'SYNC_VOTE_MISMATCH');
      assert.equal(aborted.state.reason.context.shard, 'shard-8');
    }

    // Nothing prefetched (a restarted coordinator): every vote, in one read.
    const u = await stagedSync();
    assert.equal((await u.committer.drive('b')).state.phase, 'MERGING');
    await u.committer.close();
    assert.deepEqual(u.store.voteReads, ['all']);
  });
});
