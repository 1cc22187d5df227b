/**
 * `node bench/sync/commit-rss.ts [--shards 10000] [--runs 3] [--layout direct|bucketed] [--baseline <checkout>]`: the
 * coordinator's memory and commit latency for a sync of many shards, without the workers. Each run
 * stages a fresh sync on the local MinIO and Redis as its workers would have left it (every shard
 * accepted with its vote, one blob per shard naming one data file per bucket, key ranges apart),
 * then a fresh child process runs the coordinator's own `SyncCommitter` from the checkout under
 * test: it prefetches every shard's blob as the shards' events would (PREPARING), then drives the
 * sync to COMMITTED. Reported per run: the child's RSS before, its peak (VmHWM) once the prefetches
 * are done and once the commit is done, and the commit's latency (drive → COMMITTED). The data
 * files are not written (a commit does not read them; the key ranges are apart, so counting
 * colliding keys reads none). With `--baseline`, another checkout's committer and table package
 * (its `packages/table`, imported by path: manifests, the commit's checks, the colliding-key count;
 * e.g. `git archive` of an older commit with this checkout's node_modules linked in) run in
 * alternation with ours.
 * Each run uses its own table, sync id and key prefix; everything is removed at the end.
 *
 * `--layout bucketed` (the default layout of primary-key tables): the shards' blobs name sorted runs
 * (under the sync's runs path, as a bucketed shard job writes them); the prefetches, then a drive
 * that verifies every blob, writes the bucket plan and the folded positions and enters MERGING (the
 * bucket flow is a stand-in that enqueues nothing); then the bucket jobs are simulated (one accepted
 * blob with its vote per bucket of the plan, naming one data file) and a second drive commits
 * them. Reported: the peak once the prefetches are done, once MERGING is reached (the "commit" time
 * is then the drive to MERGING) and once the bucket commit is done, with its own latency.
 *
 * `--node-args "<flags>"` and `--baseline-node-args "<flags>"`: more Node flags for our child and the
 * baseline's (e.g. the coordinator's `--max-semi-space-size`, which `tributary coordinator` gives it
 * and this bench's child, started with `node` directly, would not have); `--baseline` may name this
 * checkout, to compare flags alone.
 *
 * Diagnosis only (they change what they measure): `--heap` prints the V8 heap (used, total,
 * external) at each of those points, before and after a forced GC; `--alloc` samples every
 * allocation of the prefetches and of the drive (collected ones included) and prints the top sites;
 * `--cpu-profile <dir>` writes a V8 CPU profile of the drive(s) alone (the commit, not the
 * prefetches) to `<dir>/commit-<pid>.cpuprofile`, for Chrome's DevTools or any `.cpuprofile` reader.
 */
import { execFileSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { getHeapStatistics } from 'node:v8';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { crc32c } from '@node-rs/crc32';
import { Redis } from 'ioredis';
import { SyncStore, type SyncRecord } from '@tributary/coordinator';
import {
  PAIMON_COMMIT_MESSAGE_VERSION,
  bucketJobId,
  bucketVoteToken,
  encodeBlob,
  planFingerprint,
  shardVoteToken,
  stagedBlobKey,
  stagedBucketBlobKey,
  syncRedisKeys,
  syncRunsPath,
} from '@tributary/protocol';
import { GeneratorSource, rowConverter } from '@tributary/sources';
import { TRIBUTARY_VERSION, mapInOrder, openObjectStore, openTable, warehouseTables, type CommitMessage, type ObjectStore } from '@tributary/table';
import { createBaselineTable } from './table-only.ts';
import { generatorSpec } from './orders.ts';
import { s3Options } from './processes.ts';
import { median } from './stats.ts';

const here = fileURLToPath(new URL('../../', import.meta.url));
const { values } = parseArgs({
  options: {
    shards: { type: 'string', default: '10000' },
    runs: { type: 'string', default: '3' },
    baseline: { type: 'string' },
    'node-args': { type: 'string', default: '' },
    'baseline-node-args': { type: 'string', default: '' },
    layout: { type: 'string', default: 'direct' },
    heap: { type: 'boolean', default: false },
    alloc: { type: 'boolean', default: false },
    'cpu-profile': { type: 'string' },
    child: { type: 'string' },
    setup: { type: 'string' },
  },
});
const shards = Number(values.shards);
const bucketed = values.layout === 'bucketed';
if (!bucketed && values.layout !== 'direct') throw new Error(`--layout: direct or bucketed, not ${values.layout}`);
const redisOptions = { host: process.env.TRIBUTARY_REDIS_HOST ?? '127.0.0.1', port: Number(process.env.TRIBUTARY_REDIS_PORT ?? 6390) };
const bucket = process.env.TRIBUTARY_S3_BUCKET ?? 'tributary';
const secret = new Uint8Array(32).fill(9);

/** One staged sync, as the parent hands it to a child. */
interface Staged {
  readonly prefix: string;
  readonly warehouse: string;
  readonly syncId: string;
}

/** Where the staged shard blobs say their files are: the table, or the sync's runs (bucketed). */
function blobTablePath(syncId: string, tablePath: string): string {
  return bucketed ? syncRunsPath(syncId) : tablePath;
}

interface RunResult {
  readonly beforeMb: number;
  readonly prefetchedPeakMb: number;
  readonly peakMb: number;
  readonly commitMs: number;
  /** CPU time (user + system) of the prefetches and of the drive(s), ms. */
  readonly prefetchCpuMs: number;
  readonly commitCpuMs: number;
  /** Bucketed: the bucket commit after MERGING (peak after it, its latency and CPU). */
  readonly bucketCommit?: { readonly peakMb: number; readonly ms: number; readonly cpuMs: number };
  readonly phase: string;
}

const mb = (bytes: number): string => (bytes / 1048576).toFixed(0);

/** `--heap`: the V8 heap now, and after a forced GC (what is live). */
function heapReport(label: string): void {
  if (!values.heap) return;
  const before = getHeapStatistics();
  const rss = statusKb('VmRSS') / 1024;
  globalThis.gc?.();
  const after = getHeapStatistics();
  process.stderr.write(
    `[heap] ${label}: RSS ${rss.toFixed(0)} MB (peak ${(statusKb('VmHWM') / 1024).toFixed(0)}); heap used ${mb(before.used_heap_size)} of ${mb(before.total_heap_size)} MB, ` +
      `external ${mb(before.external_memory)} MB; after a GC: used ${mb(after.used_heap_size)} of ${mb(after.total_heap_size)} MB\n`,
  );
}

interface ProfileNode {
  readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number };
  readonly selfSize: number;
  readonly children: readonly ProfileNode[];
}

/** `--alloc`: V8's sampling heap profiler, counting objects collected since (every allocation, sampled). */
class AllocationSampler {
  readonly #session = new Session();
  #connected = false;
  async start(): Promise<void> {
    if (!values.alloc) return;
    if (!this.#connected) this.#session.connect();
    this.#connected = true;
    await this.#session.post('HeapProfiler.enable');
    const params = { samplingInterval: 32768, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true };
    await this.#session.post('HeapProfiler.startSampling', params as { samplingInterval: number });
  }
  async stop(label: string): Promise<void> {
    if (!values.alloc) return;
    const { profile } = (await this.#session.post('HeapProfiler.stopSampling')) as unknown as { profile: { head: ProfileNode } };
    const bySite = new Map<string, number>();
    const walk = (n: ProfileNode): void => {
      const site = `${n.callFrame.functionName || '(anonymous)'} ${n.callFrame.url.replace(/^.*node_modules\//, '')}:${n.callFrame.lineNumber}`;
      if (n.selfSize > 0) bySite.set(site, (bySite.get(site) ?? 0) + n.selfSize);
      for (const c of n.children) walk(c);
    };
    walk(profile.head);
    const total = [...bySite.values()].reduce((a, b) => a + b, 0);
    const top = [...bySite].sort((a, b) => b[1] - a[1]).slice(0, 15);
    process.stderr.write(`[alloc] ${label}: ${mb(total)} MB allocated; top sites:\n${top.map(([site, bytes]) => `  ${(bytes / 1048576).toFixed(1)} MB ${site}`).join('\n')}\n`);
  }
}

/** `--cpu-profile <dir>`: V8's CPU profiler over the drive(s); nothing without the flag. */
class CpuProfiler {
  readonly #session = new Session();
  static async start(): Promise<CpuProfiler | undefined> {
    if (values['cpu-profile'] === undefined) return undefined;
    const p = new CpuProfiler();
    p.#session.connect();
    await p.#session.post('Profiler.enable');
    await p.#session.post('Profiler.start');
    return p;
  }
  async stop(): Promise<void> {
    const { profile } = await this.#session.post('Profiler.stop');
    const dir = values['cpu-profile'] ?? '.';
    mkdirSync(dir, { recursive: true });
    const file = `${dir}/commit-${process.pid}.cpuprofile`;
    writeFileSync(file, JSON.stringify(profile));
    process.stderr.write(`[cpu-profile] ${file}\n`);
    this.#session.disconnect();
  }
}

function cpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
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
      options: { maxAttempts: 3, snapshotProperties: {}, ...(bucketed ? { layout: 'bucketed' as const } : {}) },
    },
    state: { phase: 'PLANNED' },
    timings: { PLANNED: new Date().toISOString() },
  };
  await syncStore.create(record, Date.now());
  await syncStore.apply(record.id, { type: 'start' });
  const fingerprint = planFingerprint(record.plan, staged.warehouse);
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
        tablePath: blobTablePath(record.id, tablePath),
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
type CommitterClass = new (deps: { store: unknown; tables: unknown; warehouse: string; clusterSecret: Uint8Array; bucketFlows?: unknown }) => Committer;
type StoreClass = new (redis: Redis, prefix: string) => { vote(syncId: string, shardId: string): Promise<unknown> };

async function child(checkout: string, staged: Staged): Promise<RunResult> {
  const src = `${checkout}/packages/coordinator/src/sync`;
  const { SyncCommitter } = (await import(pathToFileURL(`${src}/committer.ts`).href)) as { SyncCommitter: CommitterClass };
  const { SyncStore: Store } = (await import(pathToFileURL(`${src}/store.ts`).href)) as { SyncStore: StoreClass };
  const redis = new Redis({ ...redisOptions, maxRetriesPerRequest: null });
  // A prefetch reads its blob, decodes and checks it (synchronously, where a refused blob ends the
  // prefetch), then asks for the shard's vote: every prefetch is done once every blob read has
  // returned, the microtasks after them have run, and every vote asked for has been answered.
  // (A prefetch that refuses its blob, as main's did for a bucketed blob, asks no vote.)
  let blobReads = 0;
  let votesAsked = 0;
  let votes = 0;
  const store = new Store(redis, staged.prefix);
  const vote = store.vote.bind(store);
  store.vote = async (syncId, shardId) => {
    votesAsked++;
    const v = await vote(syncId, shardId);
    votes++;
    return v;
  };
  // The checkout's own table package (manifests, the commit's checks, the colliding-key count), as
  // its committer would import it: this script's `warehouseTables` would give every checkout ours.
  const { warehouseTables: checkoutTables } = (await import(pathToFileURL(`${checkout}/packages/table/src/index.ts`).href)) as { warehouseTables: typeof warehouseTables };
  const baseTables = checkoutTables(s3Options());
  const tables: typeof baseTables = {
    ...baseTables,
    warehouseStore: (warehouse) => {
      const objects = baseTables.warehouseStore(warehouse);
      return Object.assign(Object.create(objects) as typeof objects, {
        get: async (key: string) => {
          const bytes = await objects.get(key);
          if (key.endsWith('.blob')) blobReads++;
          return bytes;
        },
      });
    },
  };
  // Bucketed: the bucket flow is a stand-in; its jobs are simulated once the sync is MERGING.
  let flow: 'pending' | 'finished' = 'pending';
  const bucketFlows = { enqueueBuckets: () => Promise.resolve(), bucketFlowState: () => Promise.resolve(flow) };
  const committer = new SyncCommitter({ store, tables, warehouse: staged.warehouse, clusterSecret: secret, bucketFlows });
  const sampler = new AllocationSampler();
  globalThis.gc?.();
  const beforeMb = statusKb('VmRSS') / 1024;
  await sampler.start();
  const cpu0 = cpuMs();
  for (let i = 0; i < shards; i++) committer.prefetch(staged.syncId, `gen-${i}`, '1');
  while (blobReads < shards) await new Promise((resolve) => setTimeout(resolve, 20));
  await new Promise((resolve) => setImmediate(resolve));
  while (votes < votesAsked) await new Promise((resolve) => setTimeout(resolve, 20));
  await new Promise((resolve) => setImmediate(resolve));
  const prefetchedPeakMb = statusKb('VmHWM') / 1024;
  const cpu1 = cpuMs();
  await sampler.stop('prefetches');
  heapReport('after the prefetches');
  await sampler.start();
  const profiler = await CpuProfiler.start();
  const started = performance.now();
  let record = await committer.drive(staged.syncId);
  const commitMs = performance.now() - started;
  const commitCpuMs = cpuMs() - cpu1;
  const peakMb = statusKb('VmHWM') / 1024;
  await sampler.stop(bucketed ? 'drive to MERGING' : 'commit');
  heapReport(bucketed ? 'after the drive to MERGING' : 'after the commit');
  let bucketCommit: RunResult['bucketCommit'];
  if (bucketed && record.state.phase === 'MERGING') {
    await stageBuckets(redis, staged, tables.tablePath({ database: 'bench', table: 'orders' }));
    flow = 'finished';
    const cpu2 = cpuMs();
    const t = performance.now();
    record = await committer.drive(staged.syncId);
    bucketCommit = { peakMb: statusKb('VmHWM') / 1024, ms: performance.now() - t, cpuMs: cpuMs() - cpu2 };
    heapReport('after the bucket commit');
  }
  await profiler?.stop();
  await committer.close();
  await redis.quit();
  return { beforeMb, prefetchedPeakMb, peakMb, commitMs, prefetchCpuMs: cpu1 - cpu0, commitCpuMs, ...(bucketCommit ? { bucketCommit } : {}), phase: record.state.phase };
}

/**
 * The bucket jobs of a MERGING sync, simulated: for each bucket of the plan, one accepted attempt
 * whose blob names one data file (the template's, renamed) and its vote, as a merge-bucket job
 * leaves them. The data files are not written: the commit does not read them.
 */
async function stageBuckets(redis: Redis, staged: Staged, tablePath: string): Promise<void> {
  const store = openObjectStore(staged.warehouse, s3Options());
  const template = await templateMessages(store);
  const syncStore = new SyncStore(redis, staged.prefix);
  const record = await syncStore.require(staged.syncId);
  if (record.state.phase !== 'MERGING') throw new Error(`expected MERGING, got ${record.state.phase}`);
  const fingerprint = planFingerprint(record.plan, staged.warehouse);
  const keys = syncRedisKeys(staged.prefix, record.id);
  for (let i = 0; i < record.state.buckets; i++) {
    const id = bucketJobId(i);
    const m = template[i % template.length];
    if (m === undefined) throw new Error('no template message');
    const files = m.dataIncrement.newFiles.map((f, n) => ({ ...f, fileName: `data-${record.id}-${id}-a1-${n}.parquet` }));
    const messages = [{ ...m, dataIncrement: { ...m.dataIncrement, newFiles: files } }];
    const blob = encodeBlob(
      {
        syncId: record.id,
        shardId: id,
        attempt: 1,
        tablePath,
        schemaId: 0n,
        paimonFormatVersion: PAIMON_COMMIT_MESSAGE_VERSION,
        tributaryVersion: TRIBUTARY_VERSION,
        creationTimeMillis: BigInt(Date.now()),
        rowCount: files.reduce((n, f) => n + f.rowCount, 0n),
        byteCount: files.reduce((n, f) => n + f.fileSize, 0n),
        fileCount: BigInt(files.length),
        voteToken: bucketVoteToken(secret, record.id, id, fingerprint),
      },
      messages,
    );
    await store.put(stagedBucketBlobKey(record.id, id, '1'), blob);
    const vote = {
      attemptId: '1',
      checksum: crc32c(blob),
      sha256: createHash('sha256').update(blob).digest('hex'),
      rows: Number(files.reduce((n, f) => n + f.rowCount, 0n)),
      bytes: Number(files.reduce((n, f) => n + f.fileSize, 0n)),
      files: files.length,
      collidingKeys: 0,
    };
    await redis.hset(keys.bucketVotes, id, JSON.stringify(vote));
    await redis.hset(keys.bucketAccepted, id, '1');
  }
}

if (values.child !== undefined) {
  process.stdout.write(`${JSON.stringify(await child(values.child, JSON.parse(values.setup ?? '{}') as Staged))}\n`);
} else {
  const flags = (given: string | undefined): string[] => (given ?? '').split(/\s+/).filter((f) => f !== '');
  const contenders = [
    { name: 'ours', checkout: here, nodeArgs: flags(values['node-args']) },
    ...(values.baseline === undefined ? [] : [{ name: 'baseline', checkout: values.baseline, nodeArgs: flags(values['baseline-node-args']) }]),
  ];
  const results = new Map<string, RunResult[]>(contenders.map((c) => [c.name, []]));
  for (let run = 0; run < Number(values.runs); run++) {
    for (const c of contenders) {
      const staged = await stage();
      try {
        const args = ['--expose-gc', ...c.nodeArgs, fileURLToPath(import.meta.url), '--shards', String(shards), '--layout', values.layout ?? 'direct', ...(values.heap ? ['--heap'] : []), ...(values.alloc ? ['--alloc'] : []), ...(values['cpu-profile'] !== undefined ? ['--cpu-profile', values['cpu-profile']] : []), '--child', c.checkout, '--setup', JSON.stringify(staged)];
        const out = execFileSync(process.execPath, args, {
          encoding: 'utf8',
          stdio: ['ignore', 'pipe', 'inherit'],
        });
        const r = JSON.parse(out.trim().split('\n').at(-1) ?? '{}') as RunResult;
        if (r.phase !== 'COMMITTED') throw new Error(`${c.name}: the sync ended ${r.phase}`);
        results.get(c.name)?.push(r);
        const load = readFileSync('/proc/loadavg', 'utf8').split(' ')[0];
        console.log(
          `${c.name} run ${run + 1}: RSS ${r.beforeMb.toFixed(0)} MB before, peak ${r.prefetchedPeakMb.toFixed(0)} MB after the prefetches (CPU ${r.prefetchCpuMs.toFixed(0)} ms), ` +
            `${r.peakMb.toFixed(0)} MB after the ${bucketed ? 'drive to MERGING' : 'commit'}; ${bucketed ? 'drive to MERGING' : 'commit'} ${r.commitMs.toFixed(0)} ms (CPU ${r.commitCpuMs.toFixed(0)} ms)` +
            (r.bucketCommit ? `; bucket commit: peak ${r.bucketCommit.peakMb.toFixed(0)} MB, ${r.bucketCommit.ms.toFixed(0)} ms (CPU ${r.bucketCommit.cpuMs.toFixed(0)} ms)` : '') +
            `; load ${load}`,
        );
      } finally {
        await cleanUp(staged);
      }
    }
  }
  const range = (xs: number[], digits = 0): string => `${median(xs).toFixed(digits)} [${Math.min(...xs).toFixed(digits)}–${Math.max(...xs).toFixed(digits)}]`;
  for (const [name, rs] of results) {
    console.log(
      `${name}: peak after prefetches ${range(rs.map((r) => r.prefetchedPeakMb))} MB (prefetch CPU ${range(rs.map((r) => r.prefetchCpuMs))} ms), ` +
        `peak ${range(rs.map((r) => r.peakMb))} MB, ${bucketed ? 'drive to MERGING' : 'commit'} ${range(rs.map((r) => r.commitMs))} ms (CPU ${range(rs.map((r) => r.commitCpuMs))} ms)` +
        (bucketed
          ? `, bucket commit peak ${range(rs.map((r) => r.bucketCommit?.peakMb ?? NaN))} MB, ${range(rs.map((r) => r.bucketCommit?.ms ?? NaN))} ms (CPU ${range(rs.map((r) => r.bucketCommit?.cpuMs ?? NaN))} ms)`
          : '') +
        ' (median [range])',
    );
  }
}
