/**
 * `npm run bench:compact` (bench/compact/README.md): a primary-key table of many small level-0
 * files (`--syncs` commits × `--shards` writers × `--buckets` buckets), fully compacted by
 * Tributary (a coordinator and 2 workers, `POST …/compactions {full: true}`) and, on an identical
 * copy, by Paimon Java (the oracle's `compact` op: `BatchTableWrite.compact(bucket, true)` for every
 * bucket, one commit); the order alternates per round. Measured: wall and CPU seconds, rows/s,
 * files before and after, and Paimon Java's read of the whole table before and after.
 */
import { spawn } from 'node:child_process';
import { access, cp, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { LocalObjectStore, createTable, openTable, type CommitMessage, type InternalRow } from '@tributary/table';
import { oraclePaths } from '@tributary/testkit';
import { call, cpuSeconds, startCluster } from '../sync/processes.ts';

const { values: flags } = parseArgs({
  options: {
    syncs: { type: 'string', default: '10' },
    shards: { type: 'string', default: '20' },
    buckets: { type: 'string', default: '4' },
    'rows-per-shard': { type: 'string', default: '400' },
    rounds: { type: 'string', default: '2' },
    keep: { type: 'boolean', default: false },
    warehouse: { type: 'string' },
    'build-only': { type: 'boolean', default: false },
    'first-round': { type: 'string', default: '0' },
  },
});
const syncs = Number(flags.syncs);
const shards = Number(flags.shards);
const buckets = Number(flags.buckets);
const rowsPerShard = Number(flags['rows-per-shard']);
const rounds = Number(flags.rounds);
const firstRound = Number(flags['first-round']);

interface Run {
  readonly who: 'tributary' | 'paimon-java';
  readonly round: number;
  readonly wallS: number;
  readonly cpuS: number;
  readonly filesBefore: number;
  readonly filesAfter: number;
  readonly rows: number;
  readonly javaReadBeforeS: number;
  readonly javaReadAfterS: number;
  /** Paimon Java's read of an empty table in the same round: the JVM's start and the oracle's own cost. */
  readonly javaFloorS: number;
}

/** Paimon Java's oracle on one request, its wall time and the CPU of the JVM (bash's reaped children). */
async function java(request: unknown): Promise<{ out: string; wallS: number; cpuS: number }> {
  const args = ['-Xlog:disable', '-Xlog:all=warning:stderr', '-jar', oraclePaths.javaJar, (request as { op: string }).op];
  const script = `java ${args.map((a) => `'${a}'`).join(' ')}; status=$?; echo; cat /proc/$$/stat; exit $status`;
  const started = performance.now();
  const child = spawn('bash', ['-c', script], { stdio: ['pipe', 'pipe', 'inherit'], env: { ...process.env, AWS_EC2_METADATA_DISABLED: 'true' } });
  child.stdin.end(JSON.stringify(request));
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  const wallS = (performance.now() - started) / 1000;
  if (code !== 0) throw new Error(`paimon-java ${JSON.stringify(request).slice(0, 200)} exited ${String(code)}`);
  const lines = out.trimEnd().split('\n');
  const stat = lines.pop() ?? '';
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // cutime, cstime: the CPU of the children bash waited for (the JVM).
  return { out: lines.join('\n'), wallS, cpuS: (Number(fields[13]) + Number(fields[14])) / 100 };
}

async function javaRead(warehouse: string, table: string): Promise<{ rows: number; wallS: number }> {
  const r = await java({ op: 'read', warehouse, database: 'bench', table });
  return { rows: (JSON.parse(r.out) as { rows: unknown[] }).rows.length, wallS: r.wallS };
}

async function liveFiles(store: LocalObjectStore, table: string): Promise<number> {
  return (await (await openTable(store, 'bench', table)).dataFiles()).files.length;
}

/** The table of many small files (deterministic: the same flags build the same table). */
async function build(store: LocalObjectStore, dir: string): Promise<void> {
  await mkdir(dir, { recursive: true });
  const base = await createTable(store, {
    database: 'bench',
    name: 'base',
    schema: {
      fields: [
        { name: 'id', type: 'BIGINT NOT NULL' },
        { name: 'n', type: 'INT' },
        { name: 'v', type: 'STRING' },
      ],
      primaryKeys: ['id'],
      // No compaction by Java's writers on their own; full compaction is what is compared.
      options: { bucket: String(buckets), 'num-sorted-run.compaction-trigger': '1000000', 'num-levels': '6' },
    },
  });
  const keySpace = Math.max(1, Math.floor((syncs * shards * rowsPerShard) / 2));
  let seed = 7;
  const next = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0);
  for (let s = 0; s < syncs; s++) {
    const messages: CommitMessage[] = [];
    for (let w = 0; w < shards; w++) {
      const write = await base.newWrite({ writerId: `s${s}-w${w}` });
      const rows: InternalRow[] = Array.from({ length: rowsPerShard }, () => [BigInt(next() % keySpace), next() % 1000, `v${next() % 100000}`]);
      await write.writeRows(rows);
      messages.push(...(await write.prepareCommit()));
    }
    await base.newCommit(`bench-load-${s}`).commit(messages);
  }
  await createTable(store, { database: 'bench', name: 'empty', schema: { fields: [{ name: 'id', type: 'BIGINT NOT NULL' }], primaryKeys: ['id'], options: { bucket: '1' } } });
}

async function main(): Promise<void> {
  const dir = flags.warehouse ?? (await mkdtemp(join(tmpdir(), 'bench-compact-')));
  const warehouse = `file://${dir}`;
  const store = new LocalObjectStore(dir);
  console.log(`table: ${syncs} commits × ${shards} writers × ${buckets} buckets, ${rowsPerShard} rows per writer per commit; warehouse ${dir}`);
  const built = await access(join(dir, 'bench.db', 'empty')).then(
    () => true,
    () => false,
  );
  if (built) console.log('reusing the table built there before (the flags must be those it was built with)');
  else await build(store, dir);
  const filesBefore = await liveFiles(store, 'base');
  console.log(`built: ${filesBefore} live files`);
  if (flags['build-only']) return;

  const runs: Run[] = [];
  const cluster = await startCluster({ prefix: `bench-compact-${Date.now()}`, warehouse }, { workers: 2, workerConcurrency: 1 });
  try {
    for (let round = firstRound; round < firstRound + rounds; round++) {
      const order: Run['who'][] = round % 2 === 0 ? ['tributary', 'paimon-java'] : ['paimon-java', 'tributary'];
      const javaFloorS = (await javaRead(warehouse, 'empty')).wallS;
      for (const who of order) {
        const name = `${who === 'tributary' ? 'tri' : 'java'}_${round}`;
        await rm(join(dir, 'bench.db', name), { recursive: true, force: true }); // a copy left by an earlier run on this warehouse
        await cp(join(dir, 'bench.db', 'base'), join(dir, 'bench.db', name), { recursive: true });
        const before = await javaRead(warehouse, name);
        let wallS: number;
        let cpuS: number;
        if (who === 'tributary') {
          const pids = [cluster.coordinator.pid, ...cluster.workers.map((w) => w.pid)].map((p) => p ?? -1);
          const cpu0 = pids.map(cpuSeconds);
          const started = performance.now();
          const { id } = await call<{ id: string }>(cluster.base, 'POST', `/v1/tables/bench/${name}/compactions`, { full: true });
          for (;;) {
            const view = await call<{ phase: string; error: unknown }>(cluster.base, 'GET', `/v1/tables/bench/${name}/compactions/${id}`);
            if (view.phase === 'COMMITTED') break;
            if (view.phase === 'FAILED' || view.phase === 'CONFLICT') throw new Error(`compaction ${view.phase}: ${JSON.stringify(view.error)}`);
            await new Promise((resolve) => setTimeout(resolve, 50));
          }
          wallS = (performance.now() - started) / 1000;
          cpuS = pids.map(cpuSeconds).reduce((sum, c, i) => sum + c - (cpu0[i] ?? 0), 0);
        } else {
          const r = await java({ op: 'compact', warehouse, database: 'bench', table: name, buckets: Array.from({ length: buckets }, (_, i) => i) });
          wallS = r.wallS;
          cpuS = r.cpuS;
        }
        const after = await javaRead(warehouse, name);
        if (after.rows !== before.rows) throw new Error(`${who}: ${before.rows} rows before, ${after.rows} after`);
        const run: Run = { who, round, wallS, cpuS, filesBefore, filesAfter: await liveFiles(store, name), rows: before.rows, javaReadBeforeS: before.wallS, javaReadAfterS: after.wallS, javaFloorS };
        runs.push(run);
        console.log(JSON.stringify(run));
      }
    }
  } finally {
    await cluster.stop();
    if (!flags.keep && flags.warehouse === undefined) await rm(dir, { recursive: true, force: true });
  }
  const inputRows = syncs * shards * rowsPerShard;
  console.log(`\n| contender | round | wall s | CPU s | input rows/s | files before → after | live rows | Java read before s | after s | Java empty-table read s |`);
  console.log('|---|---|---|---|---|---|---|---|---|---|');
  for (const r of runs) {
    const f = (n: number) => n.toFixed(2);
    console.log(`| ${r.who} | ${r.round} | ${f(r.wallS)} | ${f(r.cpuS)} | ${Math.round(inputRows / r.wallS)} | ${r.filesBefore} → ${r.filesAfter} | ${r.rows} | ${f(r.javaReadBeforeS)} | ${f(r.javaReadAfterS)} | ${f(r.javaFloorS)} |`);
  }
  console.log(`\ninput rows: ${inputRows}; Paimon Java's times include the JVM's start (the empty-table read shows it); load average ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);
}

await main();
