/**
 * `node bench/sync/flow-rss.ts [--shards 10000] [--runs 3] [--baseline <checkout>]`: what enqueueing
 * one sync's flow costs the coordinator. Each run is a fresh child process that builds a record of
 * `--shards` planned shards, calls `SyncFlows.enqueue` once against the local Redis, and reports
 * its resident set before the call and its peak (VmHWM of /proc/self/status) after, the call's wall
 * time, and how many shard jobs the flow holds (which must equal the shards). With `--baseline`,
 * another checkout's `flow.ts` (e.g. `git archive` of an older commit with this checkout's
 * node_modules linked in) is measured in alternation with this one: ours, baseline, ours, …
 * Every run uses its own key prefix and removes its keys at the end.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { Redis } from 'ioredis';
import { median } from './stats.ts';

const here = fileURLToPath(new URL('../../', import.meta.url));
const { values } = parseArgs({
  options: {
    shards: { type: 'string', default: '10000' },
    runs: { type: 'string', default: '3' },
    baseline: { type: 'string' },
    child: { type: 'string' },
  },
});
const shards = Number(values.shards);
const redisOptions = { host: process.env.TRIBUTARY_REDIS_HOST ?? '127.0.0.1', port: Number(process.env.TRIBUTARY_REDIS_PORT ?? 6390) };

function statusKb(field: string): number {
  return Number(new RegExp(`${field}:\\s+(\\d+)`).exec(readFileSync('/proc/self/status', 'utf8'))?.[1] ?? NaN);
}

interface RunResult {
  readonly beforeMb: number;
  readonly peakMb: number;
  readonly ms: number;
  readonly jobs: number;
}

/** What the bench uses of a checkout's `SyncFlows` (imported by path: another checkout's is not this one's type). */
interface Flows {
  readonly shardQueue: { waitUntilReady(): Promise<unknown>; getJobCounts(...states: string[]): Promise<Record<string, number>> };
  enqueue(record: unknown, fingerprint: string): Promise<void>;
  close(): Promise<void>;
}
type FlowsClass = new (options: { connection: typeof redisOptions; prefix: string; clusterSecret: Uint8Array; shardBackoffMs: number; commitAttempts: number }) => Flows;

async function child(checkout: string): Promise<RunResult> {
  const { SyncFlows } = (await import(pathToFileURL(`${checkout}/packages/coordinator/src/sync/flow.ts`).href)) as { SyncFlows: FlowsClass };
  const prefix = `bench-flow-${process.pid}-${Date.now()}`;
  const syncId = 'sync-flow-rss';
  const record = {
    id: syncId,
    version: 0,
    plan: {
      table: { database: 'bench', name: 'orders' },
      mode: 'append',
      source: {},
      shards: Array.from({ length: shards }, (_, i) => ({ id: `gen-${String(i).padStart(6, '0')}`, spec: {} })),
      baseSnapshotId: null,
      schemaId: 0,
      commitUser: syncId,
      commitIdentifier: '9223372036854775807',
      options: { maxAttempts: 3, snapshotProperties: {} },
    },
    state: { phase: 'PLANNED' },
    timings: {},
  };
  const flows = new SyncFlows({ connection: redisOptions, prefix, clusterSecret: new Uint8Array(32).fill(7), shardBackoffMs: 1000, commitAttempts: 3 });
  const redis = new Redis(redisOptions);
  try {
    await flows.shardQueue.waitUntilReady();
    globalThis.gc?.();
    const beforeMb = statusKb('VmRSS') / 1024;
    const started = performance.now();
    await flows.enqueue(record, 'fingerprint');
    const ms = performance.now() - started;
    const peakMb = statusKb('VmHWM') / 1024;
    const counts = await flows.shardQueue.getJobCounts('waiting', 'delayed', 'prioritized');
    const jobs = Object.values(counts).reduce((a, b) => a + b, 0);
    return { beforeMb, peakMb, ms, jobs };
  } finally {
    await flows.close();
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
      cursor = next;
      if (keys.length > 0) await redis.unlink(...keys);
    } while (cursor !== '0');
    await redis.quit();
  }
}

if (values.child !== undefined) {
  process.stdout.write(`${JSON.stringify(await child(values.child))}\n`);
} else {
  const contenders = [{ name: 'ours', checkout: here }, ...(values.baseline === undefined ? [] : [{ name: 'baseline', checkout: values.baseline }])];
  const results = new Map<string, RunResult[]>(contenders.map((c) => [c.name, []]));
  for (let run = 0; run < Number(values.runs); run++) {
    for (const c of contenders) {
      const out = execFileSync(process.execPath, ['--expose-gc', fileURLToPath(import.meta.url), '--shards', String(shards), '--child', c.checkout], { encoding: 'utf8' });
      const r = JSON.parse(out) as RunResult;
      results.get(c.name)?.push(r);
      const load = readFileSync('/proc/loadavg', 'utf8').split(' ')[0];
      console.log(`${c.name} run ${run + 1}: RSS ${r.beforeMb.toFixed(0)} MB before, peak ${r.peakMb.toFixed(0)} MB (+${(r.peakMb - r.beforeMb).toFixed(0)}), ${(r.ms / 1000).toFixed(2)} s, ${r.jobs} shard jobs, load ${load}`);
      if (r.jobs !== shards) throw new Error(`${c.name}: ${r.jobs} shard jobs for ${shards} shards`);
    }
  }
  for (const [name, rs] of results) {
    const growth = rs.map((r) => r.peakMb - r.beforeMb);
    console.log(
      `${name}: peak ${median(rs.map((r) => r.peakMb)).toFixed(0)} MB median [${Math.min(...rs.map((r) => r.peakMb)).toFixed(0)}–${Math.max(...rs.map((r) => r.peakMb)).toFixed(0)}], growth +${median(growth).toFixed(0)} MB [${Math.min(...growth).toFixed(0)}–${Math.max(...growth).toFixed(0)}], enqueue ${(median(rs.map((r) => r.ms)) / 1000).toFixed(2)} s median [${(Math.min(...rs.map((r) => r.ms)) / 1000).toFixed(2)}–${(Math.max(...rs.map((r) => r.ms)) / 1000).toFixed(2)}]`,
    );
  }
}
