/**
 * Part `layouts`: the two layouts of a sync side by side on the same source. N ndjson files (one
 * per shard) whose rows spread over D day partitions go into a table partitioned by day with B
 * buckets, once with `options.layout: 'direct'` (every shard writes its own files into every
 * (partition, bucket) it touches) and once with `'bucketed'` (one writer per (partition, bucket)),
 * interleaved pair by pair (direct, bucketed, then bucketed, direct, …) so that a drift of a shared
 * machine falls on both. Each run gets a fresh coordinator and fresh workers, so the workers' peak
 * RSS is that run's. After each run, Paimon Java (the oracle runner of the tests) reads the whole
 * table: once alone in a JVM (cold: JVM start included) and twice in one JVM; the second batch's
 * extra time is one warm read.
 */
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { paimonJava, readResults, type OracleOp } from '@tributary/testkit';
import { openObjectStore, type ObjectStore } from '@tributary/table';
import { call, cpuSeconds, peakRssMb, s3Options, startCluster, type Deployment } from './processes.ts';
import { measureSync, type SyncMeasurement } from './sync-run.ts';

export type Layout = 'direct' | 'bucketed';
export type TableKind = 'primary-key' | 'append';

export interface LayoutsOptions {
  readonly run: string;
  readonly warehouse: string;
  readonly database: string;
  readonly shards: number;
  readonly rowsPerShard: number;
  readonly days: number;
  readonly buckets: number;
  readonly pairs: number;
  readonly workers: number;
  readonly workerConcurrency: number;
  readonly kinds: readonly TableKind[];
  /** Paimon Java reads each table after its run (false: only the load is measured, e.g. for a profile). */
  readonly javaReads: boolean;
  /** Node flags of a run's coordinator and workers (e.g. --cpu-prof), given the run's tag. */
  readonly nodeArgs?: (tag: string, process: string) => readonly string[];
  readonly progress: (line: string) => void;
}

export interface LayoutRun extends SyncMeasurement {
  readonly kind: TableKind;
  readonly pair: number;
  readonly asked: Layout;
  /** CPU time (user + system) of the coordinator and of each worker from POST to COMMITTED. */
  readonly coordinatorCpuMs: number;
  readonly workerCpuMs: readonly number[];
  /** VmHWM of each worker process, read before it is stopped. */
  readonly workerPeakRssMb: readonly number[];
  /** Paimon Java: one read alone in a JVM (start included), and the extra time of a second read in one JVM. */
  readonly javaColdMs: number;
  readonly javaWarmMs: number;
  readonly javaRows: number;
  /** The 1-minute load average when the run started and when its Java reads ended. */
  readonly load: readonly [number, number];
}

const COLUMNS = [
  { name: 'id', type: 'BIGINT NOT NULL' },
  { name: 'dt', type: 'STRING NOT NULL' },
  { name: 'v', type: 'STRING' },
];

/** Writes one ndjson file per shard under `root`; rows of shard s spread over every day. */
async function writeSource(store: ObjectStore, options: LayoutsOptions): Promise<void> {
  const day = (i: number): string => {
    const d = new Date(Date.UTC(2024, 0, 1) + (i % options.days) * 86_400_000);
    return d.toISOString().slice(0, 10);
  };
  for (let shard = 0; shard < options.shards; shard++) {
    const lines: string[] = [];
    for (let i = 0; i < options.rowsPerShard; i++) {
      lines.push(JSON.stringify({ id: shard * options.rowsPerShard + i, dt: day(shard + i), v: `s${shard}-r${i}` }));
    }
    await store.put(`part-${String(shard).padStart(5, '0')}.ndjson`, new TextEncoder().encode(lines.join('\n') + '\n'));
  }
}

/** Milliseconds of one Paimon Java batch of `reads` full reads of the table; every read must return `rows` rows. */
async function javaReads(op: OracleOp, reads: number, rows: number): Promise<number> {
  const t0 = performance.now();
  const results = readResults(await paimonJava.batch(Array.from({ length: reads }, () => op), { timeoutMs: 1_800_000 }));
  const ms = performance.now() - t0;
  for (const result of results) {
    if (result.rows.length !== rows) throw new Error(`Paimon Java read ${result.rows.length} rows of ${op.op === 'read' ? op.table : '?'}, ${rows} expected`);
  }
  return ms;
}

async function oneRun(options: LayoutsOptions, sourceRoot: string, kind: TableKind, layout: Layout, pair: number): Promise<LayoutRun> {
  const tag = `${kind === 'append' ? 'ap' : 'pk'}_${layout}_${pair}`;
  const deployment: Deployment = { prefix: `bench-sync-${options.run}-lay-${tag}`, warehouse: options.warehouse };
  const name = `layouts_${tag}`;
  const expected = options.shards * options.rowsPerShard;
  const loadStart = loadavg()[0] ?? NaN;
  options.progress(`layouts #${pair} ${kind} ${layout}: ${options.shards} shards × ${options.rowsPerShard.toLocaleString('en')} rows, ${options.days} days × ${kind === 'append' ? 'bucket -1' : `${options.buckets} buckets`}`);
  const cluster = await startCluster(deployment, {
    workers: options.workers,
    workerConcurrency: options.workerConcurrency,
    ...(options.nodeArgs === undefined
      ? {}
      : { coordinatorNodeArgs: options.nodeArgs(tag, 'coordinator'), workerNodeArgs: (i: number) => options.nodeArgs?.(tag, `worker-${i}`) ?? [] }),
    extraEnv: { TRIBUTARY_SOURCE_ROOTS: sourceRoot },
  });
  let measured: Omit<LayoutRun, 'javaColdMs' | 'javaWarmMs' | 'javaRows' | 'load'>;
  try {
    const table =
      kind === 'append'
        ? { columns: COLUMNS, partitionKeys: ['dt'], bucket: -1 }
        : { columns: COLUMNS, partitionKeys: ['dt'], primaryKeys: ['id', 'dt'], bucket: options.buckets };
    await call(cluster.base, 'POST', '/v1/tables', { database: options.database, name, ...table });
    const uris = Array.from({ length: options.shards }, (_, s) => `${sourceRoot}/part-${String(s).padStart(5, '0')}.ndjson`);
    const pids = [cluster.coordinator, ...cluster.workers].map((c) => c.pid ?? -1);
    const cpu0 = pids.map(cpuSeconds);
    const store = openObjectStore(options.warehouse, s3Options());
    const sync = await measureSync(cluster.base, store, options.database, name, { kind: 'files', format: 'ndjson', uris, filesPerShard: 1 }, {
      pollMs: 100,
      timeoutMs: 3_600_000,
      progress: options.progress,
      mode: kind === 'append' ? 'append' : 'upsert',
      syncOptions: { layout },
    });
    const cpuMs = pids.map((pid, i) => (cpuSeconds(pid) - (cpu0[i] ?? 0)) * 1000);
    const [coordinatorCpuMs = NaN, ...workerCpuMs] = cpuMs;
    if (sync.rows !== expected) throw new Error(`${name}: ${sync.rows} rows read, ${expected} expected`);
    if (sync.layout !== layout) throw new Error(`${name}: the sync ran ${String(sync.layout)}, ${layout} asked`);
    measured = { ...sync, kind, pair, asked: layout, coordinatorCpuMs, workerCpuMs, workerPeakRssMb: cluster.workers.map((w) => peakRssMb(w.pid ?? -1)) };
  } finally {
    await cluster.stop();
  }
  const cpuS = (measured.coordinatorCpuMs + measured.workerCpuMs.reduce((a, x) => a + x, 0)) / 1000;
  options.progress(
    `    ${(measured.endToEndMs / 1000).toFixed(1)} s, CPU ${cpuS.toFixed(1)} s, ${String(measured.files)} files, worker peak RSS ${measured.workerPeakRssMb.map((mb) => mb.toFixed(0)).join('/')} MB${options.javaReads ? '; Paimon Java reads the table' : ''}`,
  );
  if (!options.javaReads) return { ...measured, javaColdMs: NaN, javaWarmMs: NaN, javaRows: 0, load: [loadStart, loadavg()[0] ?? NaN] };
  // Read with the processes stopped, so the JVM competes with nothing of this run.
  const op: OracleOp = { op: 'read', warehouse: options.warehouse, database: options.database, table: name };
  const javaColdMs = await javaReads(op, 1, expected);
  const javaWarmMs = (await javaReads(op, 2, expected)) - javaColdMs;
  options.progress(`    Paimon Java: ${(javaColdMs / 1000).toFixed(2)} s cold, ${(javaWarmMs / 1000).toFixed(2)} s warm`);
  return { ...measured, javaColdMs, javaWarmMs, javaRows: expected, load: [loadStart, loadavg()[0] ?? NaN] };
}

/** Every run of the part, in the order they ran. The source is written once under `<warehouse>-src/layouts`. */
export const layoutsSourceRoot = (warehouse: string): string => `${warehouse}-src/layouts`;

export async function measureLayouts(options: LayoutsOptions): Promise<{ runs: LayoutRun[]; sourceRoot: string }> {
  const sourceRoot = layoutsSourceRoot(options.warehouse);
  await writeSource(openObjectStore(sourceRoot, s3Options()), options);
  const runs: LayoutRun[] = [];
  for (const kind of options.kinds) {
    for (let pair = 1; pair <= options.pairs; pair++) {
      const order: Layout[] = pair % 2 === 1 ? ['direct', 'bucketed'] : ['bucketed', 'direct'];
      for (const layout of order) runs.push(await oneRun(options, sourceRoot, kind, layout, pair));
    }
  }
  return { runs, sourceRoot };
}
