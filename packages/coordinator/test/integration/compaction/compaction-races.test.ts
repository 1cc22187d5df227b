/**
 * Two drivers of one compaction, on real Redis and a real local warehouse: a coordinator that
 * resumed the compaction on start (a rolling restart) while the old one still drives it. The other
 * driver is played by stand-ins that act inside this driver's reads, where the real one could:
 * - it publishes the COMPACT snapshot inside this driver's publish, which then sees its own
 *   rewrite as a conflict (the files it rewrites are no longer live): the compaction is committed,
 *   and the rewritten files, which the snapshot references, stay;
 * - it sees every job accepted (a lapsed lock's first execution voting late) and moves the
 *   compaction to COMMITTING while this driver, having seen the job failed and not accepted, moves
 *   it to FAILED: that move loses, and the staged files, which the other's commit publishes, stay.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, describe, test } from 'node:test';
import { Queue, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { crc32c } from '@node-rs/crc32';
import {
  COMPACTION_QUEUE,
  CompactionPlanHead,
  PAIMON_COMMIT_MESSAGE_VERSION,
  PLAN_HEAD_FIELD,
  compactionJobId,
  compactionLiveKey,
  compactionPlanFingerprint,
  compactionRedisKeys,
  compactionVoteToken,
  compactionWriterId,
  encodeBlob,
  errorFrom,
  stagedCompactionBlobKey,
} from '@tributary/protocol';
import { TRIBUTARY_VERSION, tableErrors, warehouseTables, type Tables } from '@tributary/table';
import { services, uniqueName } from '@tributary/testkit';
import { CompactionService } from '../../../src/compaction/compaction-service.ts';

const redis = new Redis({ ...services.redis, maxRetriesPerRequest: null });
after(() => redis.quit());

const secret = new Uint8Array(32).fill(7);
const ref = { database: 'shop', table: 'orders' };
const JOB = compactionJobId(0);

interface Setup {
  readonly prefix: string;
  readonly id: string;
  readonly warehouse: string;
  readonly real: Tables;
  /** A data file the job's attempt 1 wrote into the table, and its staged blob. */
  readonly dataFile: string;
  readonly blobKey: string;
}

/** A RUNNING compaction of one job, as #plan leaves it, whose attempt 1 staged its blob and a data file (its vote: `accept`). */
async function runningCompaction(): Promise<Setup & { accept: () => Promise<void> }> {
  const prefix = uniqueName('compaction-races');
  const id = `compact-${uniqueName('c')}`;
  const warehouse = pathToFileURL(mkdtempSync(join(tmpdir(), 'compaction-races-'))).href;
  const real = warehouseTables();
  const basics = { compactionId: id, warehouse, table: ref, schemaId: 0, baseSnapshotId: 3, full: true, jobs: 1 };
  const entryDigests = ['0'.repeat(64)];
  const head = CompactionPlanHead.parse({ ...basics, entryDigests, fingerprint: compactionPlanFingerprint(basics, entryDigests) });
  const now = new Date().toISOString();
  const view = {
    id,
    table: ref,
    phase: 'RUNNING',
    full: true,
    partitions: null,
    createdAt: now,
    updatedAt: now,
    baseSnapshotId: 3,
    snapshotId: null,
    jobs: 1,
    liveFiles: 4,
    filesBefore: 4,
    filesAfter: null,
    error: null,
  };
  const keys = compactionRedisKeys(prefix, id);
  await redis.hset(keys.plan, PLAN_HEAD_FIELD, JSON.stringify(head));
  await redis.multi().hset(keys.record, 'phase', 'RUNNING', 'view', JSON.stringify(view)).sadd(compactionLiveKey(prefix), id).exec();

  const store = real.warehouseStore(warehouse);
  const tablePath = real.tablePath(ref);
  const dataFile = `${tablePath}/bucket-0/data-${compactionWriterId(id, JOB, 1)}-0.parquet`;
  await store.put(dataFile, new TextEncoder().encode('rewritten rows'));
  const blob = encodeBlob(
    {
      syncId: id,
      shardId: JOB,
      attempt: 1,
      tablePath,
      schemaId: 0n,
      paimonFormatVersion: PAIMON_COMMIT_MESSAGE_VERSION,
      tributaryVersion: TRIBUTARY_VERSION,
      creationTimeMillis: BigInt(Date.now()),
      rowCount: 0n,
      byteCount: 0n,
      fileCount: 0n,
      voteToken: compactionVoteToken(secret, id, JOB, head.fingerprint),
    },
    [],
  );
  const blobKey = stagedCompactionBlobKey(id, JOB, '1');
  await store.put(blobKey, blob);
  const vote = { attemptId: '1', checksum: crc32c(blob), sha256: createHash('sha256').update(blob).digest('hex'), rows: 0, bytes: 0, files: 0 };
  // What the worker's accept script writes, in one step.
  const accept = async () => void (await redis.multi().hset(keys.accepted, JOB, '1').hset(keys.votes, JOB, JSON.stringify(vote)).exec());
  return { prefix, id, warehouse, real, dataFile, blobKey, accept };
}

function service(s: Setup, tables: Tables, r: Redis = redis): CompactionService {
  return new CompactionService({ redis: r, connection: services.redis, prefix: s.prefix, tables, warehouse: s.warehouse, clusterSecret: secret, pollMs: 10 });
}

/** Drives the compaction as a starting coordinator does, and waits for the driver to stop (close waits for it). */
async function drive(compactions: CompactionService): Promise<void> {
  await compactions.resume();
  await compactions.close();
}

async function exists(s: Setup, key: string): Promise<boolean> {
  return (await s.real.warehouseStore(s.warehouse).stat(key)) !== null;
}

async function phase(s: Setup): Promise<string | null> {
  return redis.hget(compactionRedisKeys(s.prefix, s.id).record, 'phase');
}

describe('two drivers of one compaction', () => {
  test('a conflict with its own snapshot, published by the other driver inside this publish, is a commit', async () => {
    const s = await runningCompaction();
    await s.accept();
    let landed: number | undefined;
    // The stand-in table: the other driver's COMPACT snapshot (ours: the same identity and files) lands
    // after this publish looked for the identity; the publish then finds the files it rewrites no
    // longer live, as the real table does, and refuses with COMMIT_CONFLICT.
    const tables: Tables = {
      ...s.real,
      publish: () => {
        landed = 4;
        return Promise.reject(errorFrom(tableErrors, 'COMMIT_CONFLICT', 'a file this commit deletes is no longer live', { fileName: 'f', partition: '', bucket: 0 }));
      },
      findCommitted: (_warehouse, _ref, identity) => Promise.resolve(identity.commitUser === `tributary-${s.id}` ? landed : undefined),
    };
    await drive(service(s, tables));
    const view = JSON.parse((await redis.hget(compactionRedisKeys(s.prefix, s.id).record, 'view')) ?? 'null') as { phase: string; snapshotId: number | null };
    assert.equal(view.phase, 'COMMITTED', 'the snapshot carrying the compaction\'s identity is its commit');
    assert.equal(view.snapshotId, 4);
    assert.ok(await exists(s, s.dataFile), 'the rewritten file the COMPACT snapshot references is kept');
    assert.equal(await exists(s, s.blobKey), false, 'the staged blob goes once committed');
  });

  test('a conflict with another writer still ends CONFLICT and deletes the rewritten files', async () => {
    const s = await runningCompaction();
    await s.accept();
    const tables: Tables = {
      ...s.real,
      publish: () => Promise.reject(errorFrom(tableErrors, 'COMMIT_CONFLICT', 'a file this commit deletes is no longer live', { fileName: 'f', partition: '', bucket: 0 })),
      findCommitted: () => Promise.resolve(undefined),
    };
    await drive(service(s, tables));
    assert.equal(await phase(s), 'CONFLICT');
    assert.equal(await exists(s, s.dataFile), false, 'nothing references the rewritten file');
    assert.equal(await exists(s, s.blobKey), false);
  });

  test('a failed job voting late while the other driver moves on to COMMITTING: this driver deletes nothing', async () => {
    const s = await runningCompaction();
    // The job failed (its last execution); its first execution, whose lock lapsed, is still at work.
    const queue = new Queue(COMPACTION_QUEUE, { connection: services.redis, prefix: s.prefix });
    const worker = new Worker(COMPACTION_QUEUE, null, { connection: services.redis, prefix: s.prefix });
    try {
      await queue.add('compact', {}, { jobId: `${s.id}-${JOB}`, attempts: 1 });
      const job = await worker.getNextJob('lock');
      assert.ok(job !== undefined);
      await job.moveToFailed(new Error('the second execution failed'), 'lock');
      assert.equal(await job.getState(), 'failed');
    } finally {
      await worker.close();
      await queue.close();
    }
    // Just as this driver has seen the job failed and still not accepted, the first execution's vote
    // lands and the other driver, seeing every job accepted, moves the compaction to COMMITTING.
    let moved = false;
    const hooked = new Proxy(redis, {
      get(target, name) {
        if (name === 'hexists') {
          return async (...args: Parameters<Redis['hexists']>) => {
            const answer = await target.hexists(...args);
            if (!moved) {
              moved = true;
              await s.accept();
              await redis.hset(compactionRedisKeys(s.prefix, s.id).record, 'phase', 'COMMITTING');
            }
            return answer;
          };
        }
        const value: unknown = Reflect.get(target, name);
        return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      },
    });
    await drive(service(s, s.real, hooked));
    assert.ok(moved, 'the driver looked at the failed job');
    assert.equal(await phase(s), 'COMMITTING', 'the other driver\'s move stands');
    assert.ok(await exists(s, s.dataFile), 'the file the other driver\'s commit publishes is kept');
    assert.ok(await exists(s, s.blobKey), 'the accepted blob the other driver\'s commit reads is kept');
  });
});
