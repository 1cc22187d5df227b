/**
 * `npm run bench:changelog`: what `changelog-producer = input` costs a sync (see README.md).
 *
 * Two primary-key tables of the same rows (`--buckets` fixed buckets): one without a changelog
 * producer, one with `input`. Each is filled with `--table-rows` rows, then `--pairs` upsert loads of
 * `--keys` keys each (`--updates` of them existing keys with a new amount, `--deletes` existing keys
 * deleted by a marker column, the rest new keys) go into both, alternating which goes first. Each
 * measured load runs on a fresh coordinator and `--workers` worker processes, so each process's peak
 * RSS (VmHWM) is that load's; CPU is user + system of all of them. Sources are NDJSON files in the
 * warehouse's bucket (`--shards` files per load, one shard each).
 *
 * Flags: --table-rows 20000000, --keys 1000000, --updates 0.10, --deletes 0.01, --buckets 16,
 * --shards 8, --workers 2, --pairs 3, --keep (leave the warehouse and sources), --worker-cpu-prof DIR
 * (the measured loads' workers write CPU profiles to DIR/<variant>-<pair>/, their coordinator to
 * DIR/<variant>-<pair>/coordinator/; the base fills are not profiled),
 * --java (then the same fill and loads by Paimon Java into a `changelog-producer = lookup` table, each
 * load followed by a full compaction: java/, built on demand with mvn),
 * --warm (long-lived processes, as a deployment runs them: one coordinator and its workers per
 * variant for the whole run, the base fill and one unmeasured warm-up load of the same shape on them
 * before the measured pairs; the peak RSS printed is then each process's over the whole run).
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile, readdir, writeFile } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { setTimeout as sleep } from 'node:timers/promises';
import { openObjectStore, openTable, type ObjectStore } from '@tributary/table';
import { call, cpuSeconds, peakRssMb, s3Options, startCluster } from '../sync/processes.ts';
import { median } from '../sync/stats.ts';

const { values } = parseArgs({
  options: {
    'table-rows': { type: 'string', default: '20000000' },
    keys: { type: 'string', default: '1000000' },
    updates: { type: 'string', default: '0.10' },
    deletes: { type: 'string', default: '0.01' },
    buckets: { type: 'string', default: '16' },
    shards: { type: 'string', default: '8' },
    workers: { type: 'string', default: '2' },
    pairs: { type: 'string', default: '3' },
    keep: { type: 'boolean', default: false },
    'worker-cpu-prof': { type: 'string' },
    java: { type: 'boolean', default: false },
    warm: { type: 'boolean', default: false },
  },
});
const tableRows = Number(values['table-rows']);
const keys = Number(values.keys);
const updates = Math.round(keys * Number(values.updates));
const deletes = Math.round(keys * Number(values.deletes));
const buckets = Number(values.buckets);
const shards = Number(values.shards);
const workers = Number(values.workers);
const pairs = Number(values.pairs);
const prof = values['worker-cpu-prof'];
const warm = values.warm;
const bucketName = process.env.TRIBUTARY_S3_BUCKET ?? 'tributary';
const run = new Date().toISOString().replace(/[-:.TZ]/g, '').slice(0, 14);
const warehouse = `s3://${bucketName}/bench-changelog/${run}`;
const sourceRoot = `s3://${bucketName}/bench-changelog/${run}-src`;
const database = 'bench';
const VARIANTS = ['none', 'input'] as const;
type Variant = (typeof VARIANTS)[number];

const COLUMNS = [
  { name: 'id', type: 'BIGINT NOT NULL' },
  { name: 'store_id', type: 'INT' },
  { name: 'amount', type: 'BIGINT' },
  { name: 'status', type: 'STRING' },
  { name: 'op', type: 'STRING' },
];
const STATUSES = ['NEW', 'PAID', 'SHIPPED', 'DELIVERED'];

/** The row of `id` in version `version` (0: the base fill); `op` marks a delete. */
function line(id: number, version: number, op: string | null = null): string {
  const h = Math.imul(id ^ (version * 0x9e3779b1), 0x85ebca6b) >>> 0;
  return JSON.stringify({ id, store_id: 1 + (h % 64), amount: (h >>> 6) % 100_000, status: STATUSES[h % 4], op });
}

/** Writes rows as `shards` NDJSON files under `<sourceRoot>/<name>/`; returns their URIs. */
async function writeFiles(store: ObjectStore, name: string, ids: (shard: number) => Iterable<string>): Promise<string[]> {
  const uris: string[] = [];
  for (let s = 0; s < shards; s++) {
    const lines: string[] = [];
    for (const l of ids(s)) lines.push(l);
    const key = `${name}/part-${String(s).padStart(4, '0')}.ndjson`;
    await store.put(key, new TextEncoder().encode(lines.join('\n') + '\n'));
    uris.push(`${sourceRoot}/${key}`);
  }
  return uris;
}

/** The base fill: ids 1 … tableRows, shard s taking every shards-th id. */
function* baseRows(shard: number): Generator<string> {
  for (let id = 1 + shard; id <= tableRows; id += shards) yield line(id, 0);
}

/**
 * Load p: `updates` existing ids with a new row, `deletes` existing ids marked deleted (spread over
 * the table, a different set each load), and new ids above everything loaded before.
 */
function* loadRows(p: number, shard: number): Generator<string> {
  const touched = updates + deletes;
  const stride = Math.max(1, Math.floor(tableRows / Math.max(1, touched)));
  for (let j = shard; j < touched; j += shards) {
    const id = 1 + ((j * stride + p) % tableRows);
    yield j < updates ? line(id, p + 1) : line(id, p + 1, 'D');
  }
  const first = tableRows + p * keys + 1;
  for (let j = shard; j < keys - touched; j += shards) yield line(first + j, p + 1);
}

interface Measured {
  readonly variant: Variant;
  readonly pair: number;
  readonly wallS: number;
  readonly cpuS: number;
  readonly workerPeakRssMb: number;
  readonly coordinatorPeakRssMb: number;
  readonly snapshotId: number;
  readonly changelogRows: number | null;
  readonly phases: Record<string, number>;
}

type Cluster = Awaited<ReturnType<typeof startCluster>>;

/** A coordinator and `--workers` workers for `variant`; `label` names its Redis prefix and its profiles' folder. */
function variantCluster(variant: Variant, label: string, profiled: boolean): Promise<Cluster> {
  return startCluster({ prefix: `bench-changelog-${run}-${variant}-${label}`, warehouse }, {
    workers,
    workerConcurrency: 1,
    extraEnv: { TRIBUTARY_SOURCE_ROOTS: sourceRoot },
    ...(prof === undefined || !profiled
      ? {}
      : {
          workerNodeArgs: () => ['--cpu-prof', `--cpu-prof-dir=${join(prof, `${variant}-${label}`)}`],
          coordinatorNodeArgs: ['--cpu-prof', `--cpu-prof-dir=${join(prof, `${variant}-${label}`, 'coordinator')}`],
        }),
  });
}

/**
 * One sync: wall time, CPU of every process over it, peak RSS. On a fresh cluster of its own (stopped
 * after it, so each process's peak is this load's) unless `--warm` gives the variant's long-lived one.
 */
async function measuredSync(variant: Variant, pair: number, uris: readonly string[], shared?: Cluster): Promise<Measured> {
  const name = `orders_${variant}`;
  const cluster = shared ?? (await variantCluster(variant, String(pair), pair >= 0));
  const pids = [cluster.coordinator.pid ?? -1, ...cluster.workers.map((w) => w.pid ?? -1)];
  try {
    const cpu0 = pids.reduce((n, pid) => n + cpuSeconds(pid), 0);
    const t0 = performance.now();
    const { id } = await call<{ id: string }>(cluster.base, 'POST', '/v1/syncs', {
      table: { database, table: name },
      mode: 'upsert',
      source: { kind: 'files', format: 'ndjson', uris, filesPerShard: 1 },
      options: { deleteMarker: { column: 'op', values: ['D'] } },
    });
    let view: { phase: string; snapshotId: number | null; phaseDurationsMs: Record<string, number>; state: { reason?: unknown } };
    for (;;) {
      view = await call(cluster.base, 'GET', `/v1/syncs/${id}`);
      if (view.phase === 'COMMITTED' || view.phase === 'ABORTED') break;
      await sleep(200);
    }
    const wallS = (performance.now() - t0) / 1000;
    const cpuS = pids.reduce((n, pid) => n + cpuSeconds(pid), 0) - cpu0;
    if (view.phase !== 'COMMITTED' || view.snapshotId === null) throw new Error(`sync ${id} of ${name} ended ${view.phase}: ${JSON.stringify(view.state.reason)}`);
    const workerPeakRssMb = Math.max(...cluster.workers.map((w) => peakRssMb(w.pid ?? -1)));
    const snapshot = await (await openTable(openObjectStore(warehouse, s3Options()), database, name)).snapshot(view.snapshotId);
    const changelogRows = snapshot.changelogRecordCount === null ? null : Number(snapshot.changelogRecordCount);
    const coordinatorPeakRssMb = shared === undefined ? (await cluster.stop()).coordinatorPeakRssMb : peakRssMb(cluster.coordinator.pid ?? -1);
    return { variant, pair, wallS, cpuS, workerPeakRssMb, coordinatorPeakRssMb, snapshotId: view.snapshotId, changelogRows, phases: view.phaseDurationsMs };
  } catch (error) {
    if (shared === undefined) await cluster.stop();
    throw error;
  }
}

async function main(): Promise<void> {
  const s3 = s3Options();
  const sources = openObjectStore(sourceRoot, s3);
  console.log(`bench:changelog — table ${tableRows.toLocaleString('en')} rows, loads of ${keys.toLocaleString('en')} keys (${updates.toLocaleString('en')} updates, ${deletes.toLocaleString('en')} deletes), ${buckets} buckets, ${shards} shards, ${workers} workers, ${pairs} pairs`);
  console.log(`  warehouse ${warehouse}`);
  const setup = await startCluster({ prefix: `bench-changelog-${run}-setup`, warehouse }, { workers, workerConcurrency: 1, extraEnv: { TRIBUTARY_SOURCE_ROOTS: sourceRoot } });
  const baseUris = await writeFiles(sources, 'base', baseRows);
  try {
    for (const variant of VARIANTS) {
      await call(setup.base, 'POST', '/v1/tables', {
        database,
        name: `orders_${variant}`,
        columns: COLUMNS,
        primaryKeys: ['id'],
        bucket: buckets,
        options: variant === 'input' ? { 'changelog-producer': 'input' } : {},
      });
    }
  } finally {
    await setup.stop();
  }
  const results: Measured[] = [];
  // --warm: each variant's processes live through the whole run (profiled whole, when asked).
  const clusters = new Map<Variant, Cluster>();
  try {
    if (warm) for (const variant of VARIANTS) clusters.set(variant, await variantCluster(variant, 'warm', true));
    for (const variant of VARIANTS) {
      const base = await measuredSync(variant, -1, baseUris, clusters.get(variant));
      console.log(`  base fill of orders_${variant}: ${base.wallS.toFixed(1)} s wall, ${base.cpuS.toFixed(1)} s CPU, worker peak RSS ${base.workerPeakRssMb.toFixed(0)} MB`);
    }
    // Warm: load 0 is the warm-up, the same shape as the measured ones, and is not measured.
    const first = warm ? -1 : 0;
    for (let p = first; p < pairs; p++) {
      const load = p - first;
      const uris = await writeFiles(sources, `load-${load}`, (s) => loadRows(load, s));
      const order: Variant[] = p % 2 === 0 ? ['none', 'input'] : ['input', 'none'];
      for (const variant of order) {
        const m = await measuredSync(variant, p, uris, clusters.get(variant));
        if (p < 0) {
          console.log(`  warm-up load ${variant.padEnd(5)}: ${m.wallS.toFixed(1)} s wall, ${m.cpuS.toFixed(1)} s CPU (not measured)`);
          continue;
        }
        results.push(m);
        console.log(
          `  pair ${p} ${variant.padEnd(5)}: ${m.wallS.toFixed(1)} s wall, ${m.cpuS.toFixed(1)} s CPU, worker peak RSS ${m.workerPeakRssMb.toFixed(0)} MB, ` +
            `coordinator ${m.coordinatorPeakRssMb.toFixed(0)} MB, changelog rows ${m.changelogRows ?? '-'}, phases ${JSON.stringify(m.phases)}`,
        );
      }
    }
  } finally {
    for (const cluster of clusters.values()) await cluster.stop();
  }
  if (warm) console.log('  warm: long-lived processes; each peak RSS is the process\'s over the whole run (base fill included)');
  console.log('\n| pair | wall none (s) | wall input (s) | wall ratio | CPU none (s) | CPU input (s) | CPU ratio | worker peak RSS none / input (MB) | changelog rows |');
  console.log('|---|---|---|---|---|---|---|---|---|');
  const ratios: { wall: number; cpu: number }[] = [];
  for (let p = 0; p < pairs; p++) {
    const none = results.find((m) => m.pair === p && m.variant === 'none');
    const input = results.find((m) => m.pair === p && m.variant === 'input');
    if (none === undefined || input === undefined) continue;
    ratios.push({ wall: input.wallS / none.wallS, cpu: input.cpuS / none.cpuS });
    console.log(
      `| ${p} | ${none.wallS.toFixed(1)} | ${input.wallS.toFixed(1)} | ${(input.wallS / none.wallS).toFixed(2)}× | ${none.cpuS.toFixed(1)} | ${input.cpuS.toFixed(1)} | ${(input.cpuS / none.cpuS).toFixed(2)}× | ` +
        `${none.workerPeakRssMb.toFixed(0)} / ${input.workerPeakRssMb.toFixed(0)} | ${input.changelogRows ?? '-'} |`,
    );
  }
  const wall = median(ratios.map((r) => r.wall));
  const cpu = median(ratios.map((r) => r.cpu));
  const rss = Math.max(...results.map((m) => m.workerPeakRssMb));
  console.log(`\nmedian ratio input / none: wall ${wall.toFixed(2)}×, CPU ${cpu.toFixed(2)}× (target ≤ 1.5×: ${wall <= 1.5 ? 'met' : 'NOT met'} on wall, ${cpu <= 1.5 ? 'met' : 'NOT met'} on CPU); worker peak RSS ${rss.toFixed(0)} MB (target ≤ 512 MB: ${rss <= 512 ? 'met' : 'NOT met'})`);
  console.log(`load average ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);
  if (values.java) await javaReference();
  if (!values.keep) {
    for (const root of [warehouse, sourceRoot]) {
      const store = openObjectStore(root, s3);
      const all: string[] = [];
      for await (const o of store.list('')) all.push(o.key);
      await store.deleteMany(all);
    }
  }
}

const javaDir = join(dirname(fileURLToPath(import.meta.url)), 'java');
const javaJar = join(javaDir, 'target', 'paimon-changelog-bench.jar');

/** Runs a process to its end; its stdout, or an error with its stderr's tail. */
function runProcess(command: string, args: readonly string[], cwd: string, env: NodeJS.ProcessEnv = process.env): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      process.stdout.write(d);
    });
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`${command} exited ${String(code)}: ${err.slice(-2000)}`))));
  });
}

/** Builds the Java reference unless target/ holds a build of exactly these sources. */
async function buildJava(): Promise<void> {
  const files = (await readdir(join(javaDir, 'src'), { recursive: true, withFileTypes: true })).filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name));
  const hash = createHash('sha256');
  for (const file of [join(javaDir, 'pom.xml'), ...files.sort()]) hash.update(file.slice(javaDir.length)).update(await readFile(file));
  const stamp = hash.digest('hex');
  const stampFile = join(javaDir, 'target', '.build-stamp');
  if (existsSync(javaJar) && existsSync(stampFile) && (await readFile(stampFile, 'utf8')) === stamp) return;
  console.log('  building the Paimon Java reference (mvn package)…');
  await runProcess('mvn', ['--batch-mode', '--no-transfer-progress', '--quiet', 'package'], javaDir);
  await writeFile(stampFile, stamp);
}

interface JavaPair {
  readonly pair: number;
  readonly writeSeconds: number;
  readonly writeCpuSeconds: number;
  readonly compactSeconds: number;
  readonly compactCpuSeconds: number;
  readonly writeChangelogRows: number;
  readonly compactChangelogRows: number;
  readonly peakRssMb: number;
}

/**
 * Paimon Java, for reference: the same fill and loads (one JVM; its CPU and wall per load), into a
 * `changelog-producer = lookup` table of the same warehouse, each load followed by a full compaction.
 */
async function javaReference(): Promise<void> {
  await buildJava();
  const s3 = s3Options();
  console.log(`\nPaimon Java (changelog-producer = lookup, each load + a full compaction of every bucket), one JVM:`);
  const out = await runProcess(
    'java',
    ['-jar', javaJar, 'run', warehouse, database, 'orders_java', String(buckets), String(tableRows), String(keys), String(updates), String(deletes), String(pairs)],
    javaDir,
    { ...process.env, BENCH_S3_ENDPOINT: s3.endpoint, BENCH_S3_ACCESS_KEY: s3.accessKeyId, BENCH_S3_SECRET_KEY: s3.secretAccessKey },
  );
  const loads = out
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Partial<JavaPair> & { fill?: boolean })
    .filter((l): l is JavaPair => l.fill !== true);
  console.log('\n| pair | Java write + commit: wall / CPU (s) | full compaction: wall / CPU (s) | total wall / CPU (s) | changelog rows (write / compaction) | JVM peak RSS (MB) |');
  console.log('|---|---|---|---|---|---|');
  for (const l of loads) {
    console.log(
      `| ${l.pair} | ${l.writeSeconds.toFixed(1)} / ${l.writeCpuSeconds.toFixed(1)} | ${l.compactSeconds.toFixed(1)} / ${l.compactCpuSeconds.toFixed(1)} | ` +
        `${(l.writeSeconds + l.compactSeconds).toFixed(1)} / ${(l.writeCpuSeconds + l.compactCpuSeconds).toFixed(1)} | ${l.writeChangelogRows} / ${l.compactChangelogRows} | ${l.peakRssMb.toFixed(0)} |`,
    );
  }
  console.log(`load average ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);
}

await main();
