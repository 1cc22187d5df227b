/**
 * The API under load (part `api`): many large syncs stored, then the list and status calls fired
 * at once. The records are inserted through the coordinator's own SyncStore (create, start,
 * beginCommit with every shard accepted, committed), not by running syncs: what is measured is
 * what the API reads, whatever produced it. A coordinator process serves them (and, with
 * --api-baseline <checkout>, a second one started from that checkout on the same records, measured
 * in alternation with ours).
 */
import { loadavg } from 'node:os';
import autocannon from 'autocannon';
import { Redis } from 'ioredis';
import { SyncStore, type SyncRecord } from '@tributary/coordinator';
import { cpuSeconds, deploymentEnv, peakRssMb, startProcess, stopProcess, type Deployment, type Started } from './processes.ts';

export interface ApiLoadOptions {
  readonly syncs: number;
  readonly shards: number;
  /** Requests fired at once per measurement, one measurement per entry. */
  readonly concurrency: readonly number[];
  /** The baseline skips the bursts larger than this (its list reads whole records: minutes per burst on a small machine). */
  readonly baselineMaxConcurrency: number;
  /** Alternating rounds: ours then the baseline's (if any) in odd rounds, the baseline's first in even ones. */
  readonly rounds: number;
  readonly baselineRoot?: string;
  /** Seconds of each sustained run (autocannon, `concurrency` connections kept busy); 0: none. */
  readonly sustainedSeconds: number;
  /** Node flags of each serving coordinator, given its contender name (e.g. --cpu-prof). */
  readonly nodeArgs?: (contender: string) => readonly string[];
  readonly progress: (line: string) => void;
}

/** Latencies of one burst of requests, in ms. */
export interface Burst {
  readonly contender: string;
  readonly round: number;
  readonly call: string;
  readonly requests: number;
  readonly concurrency: number;
  readonly p50: number;
  readonly p95: number;
  readonly p99: number;
  readonly max: number;
  readonly wallMs: number;
  /** CPU the serving coordinator used for the burst. */
  readonly cpuS: number;
  /** CPU this process (the client: its fetches) used for the burst. */
  readonly clientCpuS: number;
  readonly load: number;
}

/**
 * A sustained run: `connections` connections each sending its next request as soon as the last one
 * was answered (autocannon, keep-alive), for `seconds`: latencies under a steady queue of that depth.
 */
export interface Sustained {
  readonly contender: string;
  readonly round: number;
  readonly call: string;
  readonly connections: number;
  readonly seconds: number;
  readonly requests: number;
  /** Answers that were not 2xx, errors and timeouts (all counted as failures of the run). */
  readonly failed: number;
  readonly rps: number;
  readonly p50: number;
  readonly p90: number;
  readonly p99: number;
  readonly max: number;
  /** CPU of the serving coordinator, of Redis and of this process (the client) over the run. */
  readonly cpuS: number;
  readonly redisCpuS: number;
  readonly clientCpuS: number;
  readonly load: number;
}

export interface ApiLoadResult {
  readonly syncs: number;
  readonly shards: number;
  readonly insertMs: number;
  readonly redisBytes: number;
  readonly bursts: Burst[];
  readonly sustained: Sustained[];
  readonly peakRssMb: Record<string, number>;
}

const TABLES = ['a', 'b', 'c', 'd'].flatMap((t) => [`bench.api_${t}`, `bench2.api_${t}`]);

function record(id: string, index: number, shards: number, createdAt: Date): SyncRecord {
  const [database = 'bench', table = 'api'] = TABLES[index % TABLES.length]!.split('.');
  return {
    id,
    version: 0,
    plan: {
      table: { database, table },
      mode: 'append',
      source: { kind: 'generator', shards, rowsPerShard: 5 },
      shards: Array.from({ length: shards }, (_, i) => ({ id: `shard-${String(i).padStart(5, '0')}`, spec: { index: i, rows: 5 } })),
      baseSnapshotId: index,
      schemaId: 0,
      commitUser: `tributary-${id}`,
      commitIdentifier: String(index + 1),
      options: { maxAttempts: 3, snapshotProperties: {} },
    },
    state: { phase: 'PLANNED' },
    timings: { PLANNED: createdAt.toISOString() },
  };
}

/** Inserts `syncs` COMMITTED syncs of `shards` shards each through the store; returns their ids. */
async function insert(store: SyncStore, syncs: number, shards: number): Promise<string[]> {
  const ids = Array.from({ length: syncs }, (_, i) => `sync-api-${String(i).padStart(5, '0')}`);
  let next = 0;
  const one = async (): Promise<void> => {
    for (let i = next++; i < syncs; i = next++) {
      const id = ids[i]!;
      const created = new Date(Date.UTC(2026, 0, 1) + i * 60_000);
      const r = record(id, i, shards, created);
      await store.create(r, created.getTime());
      await store.apply(id, { type: 'start' });
      const accepted = Object.fromEntries(
        r.plan.shards.map((s) => [s.id, { attemptId: '1', blobKey: `.tributary/syncs/${id}/${s.id}/1.blob`, checksum: 123_456_789, rows: 5, bytes: 1_234 }]),
      );
      await store.apply(id, { type: 'beginCommit', accepted });
      await store.apply(id, { type: 'committed', snapshotId: i + 1 });
    }
  };
  await Promise.all(Array.from({ length: 4 }, one));
  return ids;
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;
}

/** Fires `paths` at once (all in flight together) and measures each response. */
async function burst(base: string, pid: number, paths: readonly string[]): Promise<Omit<Burst, 'contender' | 'round' | 'call'>> {
  const cpu0 = cpuSeconds(pid);
  const client0 = process.cpuUsage();
  const started = performance.now();
  const latencies = await Promise.all(
    paths.map(async (path) => {
      const t0 = performance.now();
      const response = await fetch(`${base}${path}`);
      await response.arrayBuffer();
      if (!response.ok) throw new Error(`GET ${path} → ${response.status}`);
      return performance.now() - t0;
    }),
  );
  const wallMs = performance.now() - started;
  const sorted = [...latencies].sort((a, b) => a - b);
  return {
    requests: paths.length,
    concurrency: paths.length,
    p50: percentile(sorted, 50),
    p95: percentile(sorted, 95),
    p99: percentile(sorted, 99),
    max: sorted.at(-1) ?? NaN,
    wallMs,
    cpuS: cpuSeconds(pid) - cpu0,
    clientCpuS: clientSeconds(client0),
    load: loadavg()[0] ?? NaN,
  };
}

/**
 * `connections` connections kept busy for `seconds`, each cycling through `paths` (its k-th request
 * asks for `paths[k mod n]`). Each request is built as it is sent (`setupRequest`): given a list of
 * requests, autocannon builds all of them for every connection as it starts it, one connection
 * after the other in one turn of this process's event loop, and times each connection's first
 * request from its start. With 200 connections of 200 paths that was 40,000 requests built in
 * about 0.4 s, counted in the latency of the first request of every connection started before
 * (the "max" of every run, and a part of its p99, was that stall).
 */
async function sustained(base: string, pid: number, redisPid: number, paths: readonly string[], connections: number, seconds: number): Promise<Omit<Sustained, 'contender' | 'round' | 'call'>> {
  const cpu0 = cpuSeconds(pid);
  const redis0 = cpuSeconds(redisPid);
  const client0 = process.cpuUsage();
  const result = await autocannon({
    url: base,
    connections,
    duration: seconds,
    requests: [{ method: 'GET', path: paths[0] ?? '/' }],
    setupClient: (client) => {
      let sent = 0;
      client.setRequests([{ method: 'GET', setupRequest: (request) => ({ ...request, path: paths[sent++ % paths.length] ?? '/' }) }]);
    },
  });
  return {
    connections,
    seconds,
    requests: result.requests.total,
    failed: result.non2xx + result.errors + result.timeouts,
    rps: result.requests.total / result.duration,
    p50: result.latency.p50,
    p90: result.latency.p90,
    p99: result.latency.p99,
    max: result.latency.max,
    cpuS: cpuSeconds(pid) - cpu0,
    redisCpuS: cpuSeconds(redisPid) - redis0,
    clientCpuS: clientSeconds(client0),
    load: loadavg()[0] ?? NaN,
  };
}

/** One request at a time: latency without queueing. */
async function sequential(base: string, pid: number, paths: readonly string[]): Promise<Omit<Burst, 'contender' | 'round' | 'call'>> {
  const cpu0 = cpuSeconds(pid);
  const client0 = process.cpuUsage();
  const started = performance.now();
  const latencies: number[] = [];
  for (const path of paths) {
    const t0 = performance.now();
    const response = await fetch(`${base}${path}`);
    await response.arrayBuffer();
    if (!response.ok) throw new Error(`GET ${path} → ${response.status}`);
    latencies.push(performance.now() - t0);
  }
  const sorted = latencies.sort((a, b) => a - b);
  return {
    requests: paths.length,
    concurrency: 1,
    p50: percentile(sorted, 50),
    p95: percentile(sorted, 95),
    p99: percentile(sorted, 99),
    max: sorted.at(-1) ?? NaN,
    wallMs: performance.now() - started,
    cpuS: cpuSeconds(pid) - cpu0,
    clientCpuS: clientSeconds(client0),
    load: loadavg()[0] ?? NaN,
  };
}

function clientSeconds(since: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1e6;
}

/** Whether a coordinator serves a path (a baseline checkout may predate a route). */
async function serves(base: string, path: string): Promise<boolean> {
  const response = await fetch(`${base}${path}`);
  await response.arrayBuffer();
  return response.ok;
}

export async function measureApiLoad(redis: Redis, deployment: Deployment, options: ApiLoadOptions): Promise<ApiLoadResult> {
  const { progress } = options;
  const store = new SyncStore(redis, deployment.prefix);
  progress(`api load: inserting ${options.syncs.toLocaleString('en')} syncs × ${options.shards.toLocaleString('en')} shards through the store`);
  const t0 = Date.now();
  const ids = await insert(store, options.syncs, options.shards);
  const insertMs = Date.now() - t0;
  const redisBytes = Number(await redis.memory('USAGE', `${deployment.prefix}:sync:${ids[0]}`, 'SAMPLES', 0)) * ids.length;
  progress(`    inserted in ${(insertMs / 1000).toFixed(1)} s (~${(redisBytes / 1e6).toFixed(0)} MB of records in Redis)`);

  const contenders: { name: string; started: Started }[] = [];
  // The rate limit still counts every request (its Redis call is part of each request's cost) but
  // never refuses one: the bursts of several rounds and contenders exceed the default per minute.
  const env = deploymentEnv(deployment, { TRIBUTARY_PORT: '0', TRIBUTARY_RATE_LIMIT: '100000000' });
  contenders.push({ name: 'ours', started: await startProcess('coordinator', env, options.nodeArgs?.('ours')) });
  if (options.baselineRoot !== undefined) contenders.push({ name: 'baseline', started: await startProcess('coordinator', env, options.nodeArgs?.('baseline'), options.baselineRoot) });

  const bursts: Burst[] = [];
  const steady: Sustained[] = [];
  const peak: Record<string, number> = {};
  const redisPid = Number(/process_id:(\d+)/.exec(await redis.info('server'))?.[1] ?? -1);
  try {
    // Every id is asked for about equally (a spread of records, not one cached page).
    const most = Math.max(20, ...options.concurrency);
    const status = Array.from({ length: most }, (_, i) => `/v1/syncs/${ids[(i * 7919) % ids.length]}`);
    const brief = status.map((path) => `${path}/status`);
    const lists = Array.from({ length: most }, (_, i) => (i % 4 === 3 ? `/v1/syncs?limit=100&database=bench&table=api_b` : '/v1/syncs?limit=100'));
    for (let round = 1; round <= options.rounds; round++) {
      // Who goes first alternates: the first contender of a round ran measurably dearer in a control
      // of the same code against itself (bench/sync/README.md, "The coordinator's old generation").
      for (const { name, started } of round % 2 === 1 ? contenders : [...contenders].reverse()) {
        const base = String(started.ready.listening);
        const pid = started.child.pid ?? -1;
        // The light status route (GET /v1/syncs/:id/status) where the contender has it.
        const kinds: [string, readonly string[]][] = [['list', lists], ['status', status], ...((await serves(base, brief[0]!)) ? [['brief status', brief] as [string, readonly string[]]] : [])];
        const calls: [string, () => Promise<Omit<Burst, 'contender' | 'round' | 'call'>>][] = [
          ...kinds.map(([kind, paths]): [string, () => Promise<Omit<Burst, 'contender' | 'round' | 'call'>>] => [`${kind}, one at a time`, () => sequential(base, pid, paths.slice(0, 20))]),
          ...options.concurrency
            .filter((c) => name === 'ours' || c <= options.baselineMaxConcurrency)
            .flatMap((c) => kinds.map(([kind, paths]): [string, () => Promise<Omit<Burst, 'contender' | 'round' | 'call'>>] => [`${kind}, ${c} at once`, () => burst(base, pid, paths.slice(0, c))])),
        ];
        for (const [call, measure] of calls) {
          const b = { contender: name, round, call, ...(await measure()) };
          bursts.push(b);
          progress(
            `    #${round} ${name.padEnd(8)} ${call.padEnd(22)} p50 ${b.p50.toFixed(1)} p95 ${b.p95.toFixed(1)} p99 ${b.p99.toFixed(1)} max ${b.max.toFixed(1)} ms; ` +
              `${(b.wallMs / 1000).toFixed(2)} s wall, ${b.cpuS.toFixed(2)} s CPU (client ${b.clientCpuS.toFixed(2)} s), load ${b.load.toFixed(1)}`,
          );
        }
        if (options.sustainedSeconds > 0) {
          for (const c of options.concurrency.filter((c) => name === 'ours' || c <= options.baselineMaxConcurrency)) {
            for (const [kind, paths] of kinds) {
              const call = `${kind}, ${c} connections`;
              const r = { contender: name, round, call, ...(await sustained(base, pid, redisPid, paths.slice(0, c), c, options.sustainedSeconds)) };
              steady.push(r);
              progress(
                `    #${round} ${name.padEnd(8)} ${call.padEnd(26)} ${Math.round(r.rps)} req/s, p50 ${r.p50} p90 ${r.p90} p99 ${r.p99} max ${r.max} ms, ${r.failed} failed; ` +
                  `CPU per request: coordinator ${((r.cpuS * 1000) / r.requests).toFixed(3)}, Redis ${((r.redisCpuS * 1000) / r.requests).toFixed(3)}, client ${((r.clientCpuS * 1000) / r.requests).toFixed(3)} ms; load ${r.load.toFixed(1)}`,
              );
              if (r.failed > 0) throw new Error(`${name} ${call}: ${r.failed} of ${r.requests} requests failed`);
            }
          }
        }
      }
    }
  } finally {
    for (const { name, started } of contenders) {
      peak[name] = peakRssMb(started.child.pid ?? -1);
      await stopProcess(started.child);
    }
  }
  return { syncs: options.syncs, shards: options.shards, insertMs, redisBytes, bursts, sustained: steady, peakRssMb: peak };
}
