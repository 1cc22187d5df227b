/**
 * `npm run bench:sync`: what coordination costs, in one run on the local services (see README.md).
 *
 *   1. end to end: N shards × M generated rows through the REST API, a coordinator and W worker
 *      processes, into a primary-key table on S3 (MinIO): rows/s, phases, commit latency;
 *   2. table-only: the same rows written by W processes with the table API alone, one commit;
 *   3. commit latency of syncs of many tiny shards (10 … 10,000), with the coordinator's peak RSS.
 *
 * Flags (environment in brackets): --shards 8, --rows-per-shard 1000000 [TRIBUTARY_BENCH_ROWS_PER_SHARD],
 * --workers 2, --tiny 10,100,1000 [TRIBUTARY_BENCH_TINY] ('' skips part 3; add 10000 for the largest size,
 * which takes over ten minutes on a small machine), --tiny-rows 5,
 * --tiny-concurrency 8, --tiny-layout direct|bucketed (the sync's layout; default: the coordinator's choice),
 * --tiny-java-commits 3 (Paimon Java's own commit() of the same messages, that many times in one JVM;
 * 0 skips it), --tiny-syncs 1 (syncs of each size on the same coordinator and workers, each into a
 * fresh table: the first is the cold one the tables report, the others warm, beside Java's warm commits), --parts e2e,table,tiny (run in this order), --cpu-prof-dir <dir> (CPU profiles of every
 * coordinator, worker and table-only writer), --coordinator-node-args "<flags>" (more Node flags for every
 * coordinator, e.g. `--heap-growing-percent=0` to compare with V8's own heap growth), --repeat N (the end-to-end and table-only parts N
 * times, alternating, for the median of their ratio on a noisy machine), --keep (leaves the
 * warehouse and the Redis keys); part `api` (not in the default parts): --api-syncs 1000 × --api-shards
 * 1000 stored, --api-concurrency 200 requests at once (a list: one burst per entry), --api-rounds 3,
 * --api-baseline <checkout> (a coordinator of another checkout served from the same records, in
 * alternation), --api-baseline-max-concurrency N (the baseline skips larger bursts),
 * --api-sustained-seconds 5 (after the bursts, each call with --api-concurrency connections kept busy
 * for that long by autocannon; 0 skips it); part `layouts`
 * (not in the default parts): the direct and the bucketed layout interleaved on one source,
 * --layouts-shards 50 × --layouts-rows-per-shard 1000 over --layouts-days 30 × --layouts-buckets 4,
 * --layouts-pairs 3, --layouts-concurrency 4 (per worker), --layouts-tables primary-key[,append],
 * --no-layouts-java (skips Paimon Java's reads: the load alone, e.g. with --cpu-prof-dir).
 */
import { cpus, loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { Redis } from 'ioredis';
import { openObjectStore, openTable, type ObjectStore } from '@tributary/table';
import { paimonJava, type CommitCopyResult } from '@tributary/testkit';
import { generatorSpec } from './orders.ts';
import { cpuSeconds, s3Options, startCluster, type Deployment } from './processes.ts';
import { measureApiLoad } from './api-load.ts';
import { printApiLoad, printResults, type Results, type Round, type TinyResult } from './report.ts';
import { createOrdersTable, measureSync } from './sync-run.ts';
import { layoutsSourceRoot, measureLayouts, type TableKind } from './layouts.ts';
import { printLayouts } from './layouts-report.ts';
import { measureTableOnly } from './table-only.ts';

const env = process.env;
const { values } = parseArgs({
  allowNegative: true,
  options: {
    shards: { type: 'string', default: '8' },
    'rows-per-shard': { type: 'string', default: env.TRIBUTARY_BENCH_ROWS_PER_SHARD ?? '1000000' },
    workers: { type: 'string', default: '2' },
    tiny: { type: 'string', default: env.TRIBUTARY_BENCH_TINY ?? '10,100,1000' },
    'tiny-rows': { type: 'string', default: '5' },
    'tiny-concurrency': { type: 'string', default: '8' },
    'tiny-layout': { type: 'string' },
    'tiny-java-commits': { type: 'string', default: '3' },
    'tiny-syncs': { type: 'string', default: '1' },
    parts: { type: 'string', default: 'e2e,table,tiny' },
    'cpu-prof-dir': { type: 'string' },
    'coordinator-node-args': { type: 'string' },
    repeat: { type: 'string', default: '1' },
    keep: { type: 'boolean', default: false },
    'api-syncs': { type: 'string', default: '1000' },
    'api-shards': { type: 'string', default: '1000' },
    'api-concurrency': { type: 'string', default: '200' },
    'api-rounds': { type: 'string', default: '3' },
    'api-sustained-seconds': { type: 'string', default: '5' },
    'api-baseline': { type: 'string' },
    'api-baseline-max-concurrency': { type: 'string' },
    'layouts-shards': { type: 'string', default: '50' },
    'layouts-rows-per-shard': { type: 'string', default: '1000' },
    'layouts-days': { type: 'string', default: '30' },
    'layouts-buckets': { type: 'string', default: '4' },
    'layouts-pairs': { type: 'string', default: '3' },
    'layouts-concurrency': { type: 'string', default: '4' },
    'layouts-tables': { type: 'string', default: 'primary-key' },
    'layouts-java': { type: 'boolean', default: true },
  },
});
const shards = Number(values.shards);
const rowsPerShard = Number(values['rows-per-shard']);
const workers = Number(values.workers);
const tinySizes = values.tiny.split(',').filter((s) => s.trim() !== '').map(Number);
const parts = values.parts.split(',').filter((p) => p !== '');
const bucket = env.TRIBUTARY_S3_BUCKET ?? 'tributary';
const run = new Date().toISOString().replace(/[-:.TZ]/g, '').slice(0, 14);
const warehouse = `s3://${bucket}/bench-sync/${run}`;
const database = 'bench';
const progress = (line: string): void => console.log(line);

/** --coordinator-node-args, split at whitespace. */
const coordinatorArgs = (values['coordinator-node-args'] ?? '').split(/\s+/).filter((flag) => flag !== '');

/** Node flags that write a CPU profile named `<name>.cpuprofile` into --cpu-prof-dir, if given. */
function cpuProf(name: string): string[] {
  const dir = values['cpu-prof-dir'];
  return dir === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${dir}`, `--cpu-prof-name=${name}.cpuprofile`];
}

async function endToEnd(store: ObjectStore, round: Round): Promise<void> {
  const deployment: Deployment = { prefix: `bench-sync-${run}-e2e${round.index}`, warehouse };
  const name = `orders_sync_${round.index}`;
  console.log(`end to end #${round.index}: ${shards} shards × ${rowsPerShard.toLocaleString('en')} rows, ${workers} workers`);
  const cluster = await startCluster(deployment, {
    workers,
    workerConcurrency: 1,
    coordinatorNodeArgs: [...coordinatorArgs, ...cpuProf(`e2e-${round.index}-coordinator`)],
    workerNodeArgs: (i) => cpuProf(`e2e-${round.index}-worker-${i}`),
  });
  try {
    await createOrdersTable(cluster.base, database, name);
    const pids = [cluster.coordinator, ...cluster.workers].map((c) => c.pid ?? -1);
    const cpu0 = pids.map(cpuSeconds);
    const sync = await measureSync(cluster.base, store, database, name, generatorSpec(shards, rowsPerShard), {
      pollMs: 100,
      timeoutMs: 3_600_000,
      progress,
    });
    const cpuMs = pids.map((pid, i) => (cpuSeconds(pid) - (cpu0[i] ?? 0)) * 1000);
    const [coordinatorCpuMs = NaN, ...workerCpuMs] = cpuMs;
    round.endToEnd = { ...sync, snapshotRows: await snapshotRows(store, name), workerCpuMs, coordinatorCpuMs };
    progress(`    ${(sync.endToEndMs / 1000).toFixed(1)} s, commit latency ${sync.commitLatencyMs.toFixed(0)} ms`);
  } finally {
    const { coordinatorPeakRssMb } = await cluster.stop();
    if (round.endToEnd !== undefined) round.endToEnd = { ...round.endToEnd, coordinatorPeakRssMb };
  }
}

async function tableOnly(store: ObjectStore, round: Round): Promise<void> {
  const name = `orders_table_only_${round.index}`;
  console.log(`table only #${round.index}: the same rows by ${workers} processes with the table API, one commit`);
  const baseline = await measureTableOnly(store, warehouse, database, name, generatorSpec(shards, rowsPerShard), workers, (i) =>
    cpuProf(`table-only-${round.index}-writer-${i}`),
  );
  round.tableOnly = { ...baseline, snapshotRows: await snapshotRows(store, name) };
  progress(`    ${(baseline.totalMs / 1000).toFixed(1)} s (commit ${baseline.commitMs.toFixed(0)} ms)`);
}

async function tiny(store: ObjectStore, size: number, results: Results): Promise<void> {
  const deployment: Deployment = { prefix: `bench-sync-${run}-t${size}`, warehouse };
  const name = `tiny_${size}`;
  const tinyRows = Number(values['tiny-rows']);
  console.log(`tiny shards: ${size.toLocaleString('en')} × ${tinyRows} rows`);
  const started = Date.now();
  const cluster = await startCluster(deployment, {
    workers,
    workerConcurrency: Number(values['tiny-concurrency']),
    coordinatorNodeArgs: [...coordinatorArgs, ...cpuProf(`coordinator-${size}-shards`)],
    workerNodeArgs: (i) => cpuProf(`worker-${i}-${size}-shards`),
  });
  let sync;
  const warmCommitLatenciesMs: number[] = [];
  try {
    // Every list call makes the coordinator read and validate the sync record, whose plan lists every
    // shard: poll less often as it grows, so the bench does not load what it measures (the commit
    // latency comes from the snapshot watcher, not from this poll).
    const pollMs = Math.max(250, size / 10);
    const layout = values['tiny-layout'];
    const once = async (table: string) => {
      await createOrdersTable(cluster.base, database, table);
      return measureSync(cluster.base, store, database, table, generatorSpec(size, tinyRows), {
        pollMs,
        timeoutMs: 3_600_000,
        progress,
        ...(layout === undefined ? {} : { syncOptions: { layout } }),
      });
    };
    sync = await once(name);
    // The same sync again on the same processes, each into a table of its own: warm code, as Java's warm commits.
    for (let k = 1; k < Number(values['tiny-syncs']); k++) {
      const warm = await once(`${name}_warm_${k}`);
      progress(`    warm sync ${k}: commit latency ${warm.commitLatencyMs.toFixed(0)} ms`);
      warmCommitLatenciesMs.push(warm.commitLatencyMs);
    }
  } finally {
    const { coordinatorPeakRssMb, coordinatorCpuS } = await cluster.stop();
    if (sync !== undefined) {
      const wallMs = Date.now() - started;
      progress(`    commit latency ${sync.commitLatencyMs.toFixed(0)} ms, coordinator peak RSS ${coordinatorPeakRssMb.toFixed(0)} MB, CPU ${coordinatorCpuS.toFixed(1)} s`);
      const javaCommits = await javaCommitsOf(name, Number(values['tiny-java-commits']));
      results.tiny.push({ ...sync, coordinatorPeakRssMb, coordinatorCpuS, snapshotRows: await snapshotRows(store, name), wallMs, javaCommits, warmCommitLatenciesMs });
    }
  }
}

/**
 * Paimon Java's own commit() of the messages the sync committed (the ADD entries of the table's
 * snapshot, one message per file) into `count` fresh tables of the same schema, one after the other
 * in one JVM: the first is the cold commit, the others warm.
 */
async function javaCommitsOf(name: string, count: number): Promise<TinyResult['javaCommits']> {
  if (count <= 0) return [];
  const ref = { warehouse, database, table: name };
  const ops = Array.from({ length: count }, (_, i) => ({ op: 'commitCopy' as const, ...ref, target: `${name}_java_${String(i + 1)}` }));
  const results = (await paimonJava.batch(ops, { timeoutMs: 1_800_000 })) as CommitCopyResult[];
  progress(`    Paimon Java commit() of the same ${results[0]?.messages.toLocaleString('en') ?? '?'} messages: ${results.map((r) => `${r.commitMs.toFixed(0)} ms`).join(', ')}`);
  return results;
}

async function apiLoad(): Promise<void> {
  const redis = new Redis({ host: env.TRIBUTARY_REDIS_HOST ?? '127.0.0.1', port: Number(env.TRIBUTARY_REDIS_PORT ?? 6390), maxRetriesPerRequest: null });
  try {
    const result = await measureApiLoad(redis, { prefix: `bench-sync-${run}-api`, warehouse }, {
      syncs: Number(values['api-syncs']),
      shards: Number(values['api-shards']),
      concurrency: values['api-concurrency'].split(',').map(Number),
      baselineMaxConcurrency: Number(values['api-baseline-max-concurrency'] ?? Infinity),
      rounds: Number(values['api-rounds']),
      sustainedSeconds: Number(values['api-sustained-seconds']),
      baselineRoot: values['api-baseline'],
      nodeArgs: (contender) => [...coordinatorArgs, ...cpuProf(`api-${contender}-coordinator`)],
      progress,
    });
    printApiLoad(result);
  } finally {
    await redis.quit();
  }
}

async function layouts(): Promise<void> {
  const kinds = values['layouts-tables'].split(',').filter((k) => k !== '');
  for (const kind of kinds) if (kind !== 'primary-key' && kind !== 'append') throw new Error(`--layouts-tables: primary-key or append, not ${kind}`);
  // Set before the part runs, so a failed run's source files are removed too.
  layoutsSource = layoutsSourceRoot(warehouse);
  const { runs } = await measureLayouts({
    run,
    warehouse,
    database,
    shards: Number(values['layouts-shards']),
    rowsPerShard: Number(values['layouts-rows-per-shard']),
    days: Number(values['layouts-days']),
    buckets: Number(values['layouts-buckets']),
    pairs: Number(values['layouts-pairs']),
    workers,
    workerConcurrency: Number(values['layouts-concurrency']),
    kinds: kinds as TableKind[],
    javaReads: values['layouts-java'],
    nodeArgs: (tag, process) => [...(process === 'coordinator' ? coordinatorArgs : []), ...cpuProf(`layouts-${tag}-${process}`)],
    progress,
  });
  printLayouts(runs);
}

/** The source files part `layouts` wrote (outside the warehouse), removed with it. */
let layoutsSource: string | undefined;

async function snapshotRows(store: ObjectStore, name: string): Promise<number> {
  const latest = await (await openTable(store, database, name)).latestSnapshot();
  return Number(latest?.totalRecordCount ?? -1);
}

async function cleanUp(store: ObjectStore): Promise<void> {
  const keys: string[] = [];
  for await (const o of store.list('')) keys.push(o.key);
  await store.deleteMany(keys);
  if (layoutsSource !== undefined) {
    const source = openObjectStore(layoutsSource, s3Options());
    const sourceKeys: string[] = [];
    for await (const o of source.list('')) sourceKeys.push(o.key);
    await source.deleteMany(sourceKeys);
    keys.push(...sourceKeys);
  }
  const redis = new Redis({ host: env.TRIBUTARY_REDIS_HOST ?? '127.0.0.1', port: Number(env.TRIBUTARY_REDIS_PORT ?? 6390) });
  try {
    let cursor = '0';
    do {
      const [next, found] = await redis.scan(cursor, 'MATCH', `bench-sync-${run}*`, 'COUNT', 1000);
      if (found.length > 0) await redis.unlink(...found);
      cursor = next;
    } while (cursor !== '0');
  } finally {
    await redis.quit();
  }
  console.log(`removed ${keys.length} objects under ${warehouse} and the run's Redis keys`);
}

async function main(): Promise<number> {
  console.log(`Tributary sync benchmark ${run}, warehouse ${warehouse}\n`);
  const store = openObjectStore(warehouse, s3Options());
  const machine = `${cpus().length} × ${cpus()[0]?.model.trim() ?? '?'}`;
  const results: Results = { run, warehouse, shards, rowsPerShard, workers, machine, load: {}, rounds: [], tiny: [] };
  const part = (name: string): void => {
    results.load[name] = loadavg()[0] ?? NaN;
  };
  try {
    // In the order given, so the two halves of the ratio can be swapped to see the drift of a busy machine.
    for (let index = 1; index <= Number(values.repeat); index++) {
      const round: Round = { index };
      results.rounds.push(round);
      for (const name of parts) {
        if (name === 'e2e') {
          part(`end to end #${index}`);
          await endToEnd(store, round);
        } else if (name === 'table') {
          part(`table only #${index}`);
          await tableOnly(store, round);
        } else if (name === 'tiny') {
          if (index > 1) continue; // measured once; --repeat is for the noisy end-to-end ratio
          for (const size of tinySizes) {
            part(`${size} shards`);
            await tiny(store, size, results);
          }
        } else if (name === 'layouts') {
          if (index > 1) continue; // interleaves its own pairs (--layouts-pairs)
          part('layouts');
          await layouts();
        } else if (name === 'api') {
          if (index > 1) continue;
          part('api load');
          await apiLoad();
        } else {
          throw new Error(`unknown part ${name}: e2e, table, tiny, layouts or api`);
        }
      }
    }
    printResults(results);
    return 0;
  } finally {
    if (!values.keep) await cleanUp(store);
  }
}

let code = 1;
try {
  code = await main();
} catch (error) {
  console.error(error instanceof Error ? (error.stack ?? error.message) : error);
}
process.exit(code);
