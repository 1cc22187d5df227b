/**
 * `node bench/sync/commit-rss.ts [--shards 10000] [--runs 3] [--baseline <checkout>]`: the
 * coordinator's memory and commit latency for a sync of many shards, without the workers. Each run
 * stages a fresh sync on the local MinIO and Redis as its workers would have left it (every shard
 * accepted with its vote, one blob per shard naming one data file per bucket, key ranges apart),
 * then a fresh child process runs the coordinator's own `SyncCommitter` from the checkout under
 * test: it prefetches every shard's blob as the shards' events would (PREPARING), then drives the
 * sync to COMMITTED. Reported per run: the child's RSS before, its peak (VmHWM) once the prefetches
 * are done and once the commit is done, and the commit's latency (drive → COMMITTED). The data
 * files are not written (a commit does not read them; the key ranges are apart, so counting
 * colliding keys reads none). With `--baseline`, another checkout's committer (e.g. `git archive`
 * of an older commit with this checkout's node_modules linked in) runs in alternation with ours.
 * Each run uses its own table, sync id and key prefix; everything is removed at the end.
 */
import { execFileSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { crc32c } from '@node-rs/crc32';
import { Redis } from 'ioredis';
import { SyncStore, type SyncRecord } from '@tributary/coordinator';
import { PAIMON_COMMIT_MESSAGE_VERSION, encodeBlob, planFingerprint, shardVoteToken, stagedBlobKey, syncRedisKeys } from '@tributary/protocol';
import { GeneratorSource, rowConverter } from '@tributary/sources';
import { TRIBUTARY_VERSION, mapInOrder, openObjectStore, openTable, warehouseTables, type CommitMessage, type ObjectStore } from '@tributary/table';
import { createBaselineTable } from './table-only.ts';
import { generatorSpec } from './orders.ts';
import { s3Options } from './processes.ts';

const here = fileURLToPath(new URL('../../', import.meta.url));
const { values } = parseArgs({
  options: {
    shards: { type: 'string', default: '10000' },
    runs: { type: 'string', default: '3' },
    baseline: { type: 'string' },
    child: { type: 'string' },
    setup: { type: 'string' },
  },
});
const shards = Number(values.shards);
const redisOptions = { host: process.env.TRIBUTARY_REDIS_HOST ?? '127.0.0.1', port: Number(process.env.TRIBUTARY_REDIS_PORT ?? 6390) };
const bucket = process.env.TRIBUTARY_S3_BUCKET ?? 'tributary';
const secret = new Uint8Array(32).fill(9);

/** One staged sync, as the parent hands it to a child. */
interface Staged {
  readonly prefix: string;
  readonly warehouse: string;
  readonly syncId: string;
}

interface RunResult {
  readonly beforeMb: number;
  readonly prefetchedPeakMb: number;
  readonly peakMb: number;
  readonly commitMs: number;
  readonly phase: string;
}

function statusKb(field: string): number {
  return Number(new RegExp(`${field}:\\s+(\\d+)`).exec(readFileSync('/proc/self/status', 'utf8'))?.[1] ?? NaN);
}

/** The messages of one real 5-row shard of the bench's orders table: one file per bucket it touched. */
async function templateMessages(store: ObjectStore): Promise<CommitMessage[]> {
  const table = await openTable(store, 'bench', 'orders');
  const source = new GeneratorSource(generatorSpec(1, 5));
  const columns = await source.columns();
  const [shard] = await source.plan();
  if (shard === undefined) throw new Error('no shard');
  const write = await table.newWrite({ writerId: 'template', baseSnapshotId: null });
  const convert = rowConverter(shard.id, columns, write.rowType);
  for await (const batch of source.open(shard)) await write.writeRows(batch.rows.map((row, i) => convert(row, batch.firstRowPosition + i)));
  return write.prepareCommit();
}

/** A serialised one-BIGINT BinaryRow (4 bytes of arity, 8 of null bits, the value) like `template`, holding `value`. */
function keyRow(template: Uint8Array, value: bigint): Uint8Array {
  if (template.length !== 20) throw new Error(`expected a 20-byte one-BIGINT key row, got ${template.length} bytes`);
  const row = template.slice();
  new DataView(row.buffer).setBigInt64(12, value, true);
  return row;
}

/** Stages a sync of `shards` accepted shards; returns where. */
async function stage(): Promise<Staged> {
  const run = `${Date.now()}-${randomBytes(3).toString('hex')}`;
  const staged: Staged = { prefix: `bench-commit-${run}`, warehouse: `s3://${bucket}/bench-commit/${run}`, syncId: `sync-commit-${run}` };
  const store = openObjectStore(staged.warehouse, s3Options());
  await createBaselineTable(store, 'bench', 'orders');
  const template = await templateMessages(store);
  const tablePath = warehouseTables(s3Options()).tablePath({ database: 'bench', table: 'orders' });
  const redis = new Redis(redisOptions);
  const syncStore = new SyncStore(redis, staged.prefix);
  const record: SyncRecord = {
    id: staged.syncId,
    version: 0,
    plan: {
      table: { database: 'bench', table: 'orders' },
      mode: 'upsert',
      source: { kind: 'generator', shards, rowsPerShard: 5 },
      shards: Array.from({ length: shards }, (_, i) => ({ id: `gen-${i}`, spec: { index: i } })),
      baseSnapshotId: null,
      schemaId: 0,
      commitUser: `tributary-${staged.syncId}`,
      commitIdentifier: '9223372036854775807',
      options: { maxAttempts: 3, snapshotProperties: {} },
    },
    state: { phase: 'PLANNED' },
    timings: { PLANNED: new Date().toISOString() },
  };
  await syncStore.create(record, Date.now());
  await syncStore.apply(record.id, { type: 'start' });
  const fingerprint = planFingerprint(record.plan);
  const keys = syncRedisKeys(staged.prefix, record.id);
  await mapInOrder(
    record.plan.shards.map((shard, i) => ({ shard, i })),
    32,
    async ({ shard, i }) => {
    const messages = template.map((m, b): CommitMessage => ({
      ...m,
      dataIncrement: {
        ...m.dataIncrement,
        newFiles: m.dataIncrement.newFiles.map((f) => ({
          ...f,
          fileName: `data-${record.id}-${shard.id}-a1-${b}.parquet`,
          minKey: keyRow(f.minKey, BigInt(i) * 1000n + BigInt(b) * 10n),
          maxKey: keyRow(f.maxKey, BigInt(i) * 1000n + BigInt(b) * 10n + 5n),
        })),
      },
    }));
    const files = messages.flatMap((m) => m.dataIncrement.newFiles);
    const blob = encodeBlob(
      {
        syncId: record.id,
        shardId: shard.id,
        attempt: 1,
        tablePath,
        schemaId: 0n,
        paimonFormatVersion: PAIMON_COMMIT_MESSAGE_VERSION,
        tributaryVersion: TRIBUTARY_VERSION,
        creationTimeMillis: BigInt(Date.now()),
        rowCount: files.reduce((n, f) => n + f.rowCount, 0n),
        byteCount: files.reduce((n, f) => n + f.fileSize, 0n),
        fileCount: BigInt(files.length),
        voteToken: shardVoteToken(secret, record.id, shard.id, fingerprint),
      },
      messages,
    );
    await store.put(stagedBlobKey(record.id, shard.id, '1'), blob);
    const vote = {
      attemptId: '1',
      checksum: crc32c(blob),
      sha256: createHash('sha256').update(blob).digest('hex'),
      rows: Number(files.reduce((n, f) => n + f.rowCount, 0n)),
      bytes: Number(files.reduce((n, f) => n + f.fileSize, 0n)),
    };
    await redis.hset(keys.votes, shard.id, JSON.stringify(vote));
    await redis.hset(keys.accepted, shard.id, '1');
    },
  );
  await redis.quit();
  return staged;
}

async function cleanUp(staged: Staged): Promise<void> {
  const redis = new Redis(redisOptions);
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${staged.prefix}:*`, 'COUNT', 1000);
    cursor = next;
    if (keys.length > 0) await redis.unlink(...keys);
  } while (cursor !== '0');
  await redis.quit();
  const store = openObjectStore(staged.warehouse, s3Options());
  const keys: string[] = [];
  for await (const o of store.list('')) keys.push(o.key);
  await store.deleteMany(keys);
}

/** What the child uses of a checkout's committer and store (imported by path: another checkout's types are not this one's). */
interface Committer {
  prefetch(syncId: string, shardId: string, attemptId: string): void;
  drive(syncId: string): Promise<{ state: { phase: string } }>;
  close(): Promise<void>;
}
type CommitterClass = new (deps: { store: unknown; tables: unknown; warehouse: string; clusterSecret: Uint8Array }) => Committer;
type StoreClass = new (redis: Redis, prefix: string) => { vote(syncId: string, shardId: string): Promise<unknown> };

async function child(checkout: string, staged: Staged): Promise<RunResult> {
  const src = `${checkout}/packages/coordinator/src/sync`;
  const { SyncCommitter } = (await import(pathToFileURL(`${src}/committer.ts`).href)) as { SyncCommitter: CommitterClass };
  const { SyncStore: Store } = (await import(pathToFileURL(`${src}/store.ts`).href)) as { SyncStore: StoreClass };
  const redis = new Redis({ ...redisOptions, maxRetriesPerRequest: null });
  // The prefetch asks for the shard's vote last, once its blob is read and decoded: counting the
  // answers tells when every prefetch is done.
  let votes = 0;
  const store = new Store(redis, staged.prefix);
  const vote = store.vote.bind(store);
  store.vote = async (syncId, shardId) => {
    const v = await vote(syncId, shardId);
    votes++;
    return v;
  };
  const committer = new SyncCommitter({ store, tables: warehouseTables(s3Options()), warehouse: staged.warehouse, clusterSecret: secret });
  globalThis.gc?.();
  const beforeMb = statusKb('VmRSS') / 1024;
  for (let i = 0; i < shards; i++) committer.prefetch(staged.syncId, `gen-${i}`, '1');
  while (votes < shards) await new Promise((resolve) => setTimeout(resolve, 20));
  await new Promise((resolve) => setImmediate(resolve));
  const prefetchedPeakMb = statusKb('VmHWM') / 1024;
  const started = performance.now();
  const record = await committer.drive(staged.syncId);
  const commitMs = performance.now() - started;
  const peakMb = statusKb('VmHWM') / 1024;
  await committer.close();
  await redis.quit();
  return { beforeMb, prefetchedPeakMb, peakMb, commitMs, phase: record.state.phase };
}

if (values.child !== undefined) {
  process.stdout.write(`${JSON.stringify(await child(values.child, JSON.parse(values.setup ?? '{}') as Staged))}\n`);
} else {
  const contenders = [{ name: 'ours', checkout: here }, ...(values.baseline === undefined ? [] : [{ name: 'baseline', checkout: values.baseline }])];
  const results = new Map<string, RunResult[]>(contenders.map((c) => [c.name, []]));
  for (let run = 0; run < Number(values.runs); run++) {
    for (const c of contenders) {
      const staged = await stage();
      try {
        const out = execFileSync(process.execPath, ['--expose-gc', fileURLToPath(import.meta.url), '--shards', String(shards), '--child', c.checkout, '--setup', JSON.stringify(staged)], {
          encoding: 'utf8',
          stdio: ['ignore', 'pipe', 'inherit'],
        });
        const r = JSON.parse(out.trim().split('\n').at(-1) ?? '{}') as RunResult;
        if (r.phase !== 'COMMITTED') throw new Error(`${c.name}: the sync ended ${r.phase}`);
        results.get(c.name)?.push(r);
        const load = readFileSync('/proc/loadavg', 'utf8').split(' ')[0];
        console.log(
          `${c.name} run ${run + 1}: RSS ${r.beforeMb.toFixed(0)} MB before, peak ${r.prefetchedPeakMb.toFixed(0)} MB after the prefetches, ${r.peakMb.toFixed(0)} MB after the commit; commit ${r.commitMs.toFixed(0)} ms; load ${load}`,
        );
      } finally {
        await cleanUp(staged);
      }
    }
  }
  const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
  const range = (xs: number[], digits = 0): string => `${median(xs).toFixed(digits)} [${Math.min(...xs).toFixed(digits)}–${Math.max(...xs).toFixed(digits)}]`;
  for (const [name, rs] of results) {
    console.log(
      `${name}: peak after prefetches ${range(rs.map((r) => r.prefetchedPeakMb))} MB, peak ${range(rs.map((r) => r.peakMb))} MB, commit ${range(rs.map((r) => r.commitMs))} ms (median [range])`,
    );
  }
}
