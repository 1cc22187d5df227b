/**
 * `npm run bench:load`: MariaDB shards → one Paimon primary-key table on MinIO, end to end, against
 * a Paimon Java loader, a pypaimon loader and the source-read ceiling, interleaved round by round
 * (see bench/load/README.md). With `--source postgres`, PostgreSQL shards of the same shape
 * (dataset-postgres.ts) against `psql` reading every shard to /dev/null as the ceiling. With
 * `--source parquet`, the MariaDB dataset's shards as Parquet files in MinIO (dataset-parquet.ts,
 * written by pyarrow, one file per shard) loaded by a files source (`tributary`, and `baseline`).
 *
 *   npm run bench:load -- [--source mysql|postgres|parquet] [--shards 8] [--rows 1000000] [--rounds 3]
 *                         [--contenders tributary,java,pypaimon,mysql2,mariadb | tributary,psql]
 *                         [--worker-cpu-prof DIR] [--worker-mem-trace DIR] [--baseline DIR] [--no-check] [--keep]
 *                         [--worker-node-args="FLAGS"]
 *
 * `--baseline DIR`: another checkout of the repository (with its node_modules) whose coordinator and
 * workers load the same shards as a further contender, `baseline`, interleaved with the others: an
 * A/B of two versions of Tributary in one run. `--worker-node-args`: Node or V8 flags for the
 * workers of this checkout (contenders `tributary` and `direct`), not the baseline's (with
 * `--baseline` at the same commit: an A/B of a flag).
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { call, cpuSeconds, peakRssMb, s3Options, startCluster, type Cluster } from '../sync/processes.ts';
import { ensureDataset, LOAD_COLUMNS, type Dataset, type Expected } from './dataset.ts';
import { ensurePostgresDataset } from './dataset-postgres.ts';
import { ensureParquetDataset } from './dataset-parquet.ts';
import { printReport, type Measurement } from './report.ts';

const here = fileURLToPath(new URL('.', import.meta.url));
const root = fileURLToPath(new URL('../../', import.meta.url));
const javaDir = join(here, 'java');
const javaJar = join(javaDir, 'target', 'paimon-load-bench.jar');
const python = join(root, '.cache', 'venv', 'bin', 'python');
const pyDeps = join(here, 'python', '.deps');

const { values: args } = parseArgs({
  options: {
    source: { type: 'string', default: 'mysql' },
    shards: { type: 'string', default: '8' },
    rows: { type: 'string', default: '1000000' },
    rounds: { type: 'string', default: '3' },
    contenders: { type: 'string' },
    'worker-cpu-prof': { type: 'string' },
    'worker-mem-trace': { type: 'string' },
    'worker-node-args': { type: 'string' },
    baseline: { type: 'string' },
    'no-check': { type: 'boolean', default: false },
    keep: { type: 'boolean', default: false },
  },
});

const CONTENDERS = ['tributary', 'direct', 'baseline', 'java', 'pypaimon', 'mysql2', 'mariadb', 'psql'] as const;
type Contender = (typeof CONTENDERS)[number];
const sourceKind = args.source === 'postgres' ? 'postgres' : args.source === 'parquet' ? 'parquet' : 'mysql';
if (args.source !== sourceKind) throw new Error(`bench: --source is mysql, postgres or parquet, not ${String(args.source)}`);
// The Java and pypaimon loaders read MariaDB only; PostgreSQL's peer is its own client's read; Parquet files are Tributary's alone.
const defaultContenders = sourceKind === 'postgres' ? 'tributary,psql' : sourceKind === 'parquet' ? 'tributary' : 'tributary,java,pypaimon,mysql2,mariadb';
// `--baseline DIR` adds the baseline contender (once, also when --contenders names it).
const contenders = [...new Set([...(args.contenders ?? defaultContenders).split(','), ...(args.baseline === undefined ? [] : ['baseline'])])].filter((c): c is Contender => (CONTENDERS as readonly string[]).includes(c));
const shards = Number(args.shards);
const rowsPerShard = Number(args.rows);
const rounds = Number(args.rounds);
const mariadb = {
  host: process.env.TRIBUTARY_MARIADB_HOST ?? '127.0.0.1',
  port: Number(process.env.TRIBUTARY_MARIADB_PORT ?? 3390),
  user: process.env.TRIBUTARY_MARIADB_USER ?? 'tributary',
  password: process.env.TRIBUTARY_MARIADB_PASSWORD ?? 'tributary',
};
const postgres = {
  host: process.env.TRIBUTARY_POSTGRES_HOST ?? '127.0.0.1',
  port: Number(process.env.TRIBUTARY_POSTGRES_PORT ?? 5440),
  user: process.env.TRIBUTARY_POSTGRES_USER ?? 'tributary',
  password: process.env.TRIBUTARY_POSTGRES_PASSWORD ?? 'tributary',
};
const s3 = s3Options();
const bucket = process.env.TRIBUTARY_S3_BUCKET ?? 'tributary';
const run = `${Date.now().toString(36)}`;
const warehouse = `s3://${bucket}/bench-load/${run}`;
/** Where `--source parquet` keeps its files (kept across runs, per scale). */
const parquetRoot = (database: string): string => `s3://${bucket}/bench-load-src/${database}`;
const log = (line: string) => console.error(line);
const childEnv = {
  ...process.env,
  BENCH_MYSQL_PASSWORD: mariadb.password,
  // The mariadb client's password, from its environment (never on a command line).
  MYSQL_PWD: mariadb.password,
  // psql's, the same way.
  PGPASSWORD: postgres.password,
  BENCH_S3_ENDPOINT: s3.endpoint,
  BENCH_S3_ACCESS_KEY: s3.accessKeyId,
  BENCH_S3_SECRET_KEY: s3.secretAccessKey,
  PYTHONPATH: pyDeps,
};

interface Ran {
  readonly stdout: string;
  readonly stderr: string;
  readonly seconds: number;
}

function runProcess(command: string, argv: readonly string[], cwd = root): Promise<Ran> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(command, argv, { cwd, env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-8000)));
    child.on('error', reject);
    child.on('exit', (code) => {
      if (code === 0) resolve({ stdout, stderr, seconds: (performance.now() - started) / 1000 });
      else reject(new Error(`${command} ${argv.slice(0, 3).join(' ')}… exited with ${code}\n${stderr}`));
    });
  });
}

function lastJson<T>(stdout: string): T {
  const lines = stdout.trim().split('\n');
  return JSON.parse(lines[lines.length - 1] ?? '') as T;
}

/** Builds the Java loader unless target/ holds a build of exactly these sources. */
async function buildJava(): Promise<void> {
  const files = (await readdir(join(javaDir, 'src'), { recursive: true, withFileTypes: true })).filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name));
  const hash = createHash('sha256');
  for (const file of [join(javaDir, 'pom.xml'), ...files.sort()]) hash.update(file.slice(javaDir.length)).update(await readFile(file));
  const stamp = hash.digest('hex');
  const stampFile = join(javaDir, 'target', '.build-stamp');
  if (existsSync(javaJar) && existsSync(stampFile) && (await readFile(stampFile, 'utf8')) === stamp) return;
  log('bench: building the Paimon Java loader (mvn package)…');
  await runProcess('mvn', ['--batch-mode', '--no-transfer-progress', '--quiet', 'package'], javaDir);
  await writeFile(stampFile, stamp);
}

/** PyMySQL for the pypaimon loader, installed beside it (the shared venv is left as it is). */
async function installPyDeps(): Promise<void> {
  if (existsSync(join(pyDeps, 'pymysql'))) return;
  log('bench: installing PyMySQL for the pypaimon loader…');
  await runProcess(python, ['-m', 'pip', 'install', '--quiet', '--target', pyDeps, 'pymysql==1.1.1']);
}

async function createTable(cluster: Cluster, name: string): Promise<void> {
  await call(cluster.base, 'POST', '/v1/tables', {
    database: 'load',
    name,
    columns: LOAD_COLUMNS.map((c) => ({ name: c.name, type: c.paimon })),
    primaryKeys: ['id'],
    bucket: 8,
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * CPU seconds so far of the local services a load keeps busy (their infra/ pid files), which no
 * contender's own CPU includes: MinIO serves every object (Tributary's runs too), MariaDB every row.
 */
const serviceRun = join(process.env['TRIBUTARY_DATA'] ?? join(root, '.data'), 'run');
function servicesCpu(): Record<string, number> {
  const out: Record<string, number> = {};
  for (const name of ['minio', 'mariadb']) {
    try {
      out[name] = cpuSeconds(Number(readFileSync(join(serviceRun, `${name}.pid`), 'utf8').trim()));
    } catch {
      // not running from this repository's infra: not reported
    }
  }
  return out;
}

/** `layout`: the sync's `options.layout` (absent: the default, `bucketed` for this primary-key table). */
async function runTributary(cluster: Cluster, dataset: Dataset, name: string, layout?: 'direct'): Promise<Measurement> {
  const pids = [cluster.coordinator, ...cluster.workers].map((c) => c.pid ?? -1);
  const cpu0 = pids.map(cpuSeconds);
  const t0 = performance.now();
  const source =
    sourceKind === 'parquet'
      ? { kind: 'files', format: 'parquet', uris: [`${parquetRoot(dataset.database)}/orders_*`], filesPerShard: 1 }
      : { kind: sourceKind, connection: sourceKind === 'postgres' ? 'bench-pg' : 'bench', databases: [dataset.database], tables: dataset.tables, batchRows: 10_000 };
  const { id } = await call<{ id: string }>(cluster.base, 'POST', '/v1/syncs', { table: { database: 'load', table: name }, source, mode: 'upsert', ...(layout === undefined ? {} : { options: { layout } }) });
  let phases: Readonly<Record<string, number>> | undefined;
  for (;;) {
    const view = await call<{ phase: string; state?: { reason?: unknown }; phaseDurationsMs?: Record<string, number> }>(cluster.base, 'GET', `/v1/syncs/${id}`);
    if (view.phase === 'COMMITTED') {
      phases = view.phaseDurationsMs;
      break;
    }
    if (view.phase === 'ABORTED') throw new Error(`tributary sync ${id} aborted: ${JSON.stringify(view.state?.reason)}`);
    await sleep(100);
  }
  const seconds = (performance.now() - t0) / 1000;
  const cpu = pids.map((pid, i) => cpuSeconds(pid) - (cpu0[i] ?? 0));
  return {
    seconds,
    cpuSeconds: cpu.reduce((a, b) => a + b, 0),
    workerCpuSeconds: cpu.slice(1).reduce((a, b) => a + b, 0),
    peakRssMb: Math.max(...cluster.workers.map((w) => peakRssMb(w.pid ?? -1))),
    ...(phases === undefined ? {} : { phases }),
  };
}

async function runJava(dataset: Dataset, name: string): Promise<Measurement> {
  const url = `jdbc:mariadb://${mariadb.host}:${mariadb.port}/`;
  const ran = await runProcess('java', ['-jar', javaJar, 'load', warehouse, 'load', name, url, '2', ...dataset.tables.map((t) => `${dataset.database}.${t}`)]);
  const out = lastJson<{ loadSeconds: number; loadCpuSeconds: number; peakRssMb: number }>(ran.stdout);
  return { seconds: out.loadSeconds, cpuSeconds: out.loadCpuSeconds, peakRssMb: out.peakRssMb, processSeconds: ran.seconds };
}

async function runPypaimon(dataset: Dataset, name: string): Promise<Measurement> {
  const shardArgs = dataset.tables.flatMap((t) => ['--shard', `${dataset.database}.${t}`]);
  const ran = await runProcess(python, [join(here, 'python', 'load.py'), '--warehouse', warehouse, '--table', `load.${name}`, '--port', String(mariadb.port), '--processes', '2', ...shardArgs]);
  const out = lastJson<{ loadSeconds: number; loadCpuSeconds: number; peakRssMb: number }>(ran.stdout);
  return { seconds: out.loadSeconds, cpuSeconds: out.loadCpuSeconds, peakRssMb: out.peakRssMb, processSeconds: ran.seconds };
}

/** Two readers, each a process, each its half of the shards, every row dropped. */
async function runCeiling(kind: 'mysql2' | 'mariadb', dataset: Dataset): Promise<Measurement> {
  const halves = [0, 1].map((h) => dataset.tables.filter((_, i) => i % 2 === h).map((t) => `${dataset.database}.${t}`));
  const t0 = performance.now();
  const results = await Promise.all(
    halves.map(async (half) => {
      if (kind === 'mysql2') return lastJson<{ rows: number; cpuSeconds: number }>((await runProcess(process.execPath, [join(here, 'read-ceiling.ts'), String(mariadb.port), ...half])).stdout);
      const sql = half.map((t) => `SELECT * FROM ${t} ORDER BY id;`).join(' ');
      const script = `mariadb --quick --batch --skip-column-names -h ${mariadb.host} -P ${mariadb.port} -u ${mariadb.user} -e "${sql}" > /dev/null && cat /proc/$$/stat >&2`;
      // The shell's own stat after its child exits (only if the client succeeded): cutime/cstime are the client's CPU.
      const ran = await runProcess('bash', ['-c', script]);
      const stat = ran.stderr.trim().split('\n').pop() ?? '';
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      return { rows: NaN, cpuSeconds: (Number(fields[13]) + Number(fields[14])) / 100 };
    }),
  );
  return { seconds: (performance.now() - t0) / 1000, cpuSeconds: results.reduce((n, r) => n + r.cpuSeconds, 0), peakRssMb: NaN };
}

/**
 * psql as the PostgreSQL ceiling: two processes, each its half of the shards, each shard read with
 * the COPY the source itself runs (binary, in key order) and written to /dev/null.
 */
async function runPsqlCeiling(dataset: Dataset): Promise<Measurement> {
  const halves = [0, 1].map((h) => dataset.tables.filter((_, i) => i % 2 === h));
  const t0 = performance.now();
  const results = await Promise.all(
    halves.map(async (half) => {
      const commands = half.map((t) => `-c "COPY (SELECT * FROM ${t} ORDER BY id) TO STDOUT (FORMAT binary)"`).join(' ');
      const script = `psql -X -q -v ON_ERROR_STOP=1 -h ${postgres.host} -p ${postgres.port} -U ${postgres.user} -d ${dataset.database} ${commands} > /dev/null && cat /proc/$$/stat >&2`;
      // The shell's own stat after its child exits (only if the client succeeded): cutime/cstime are the client's CPU.
      const ran = await runProcess('bash', ['-c', script]);
      const stat = ran.stderr.trim().split('\n').pop() ?? '';
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      return { cpuSeconds: (Number(fields[13]) + Number(fields[14])) / 100 };
    }),
  );
  return { seconds: (performance.now() - t0) / 1000, cpuSeconds: results.reduce((n, r) => n + r.cpuSeconds, 0), peakRssMb: NaN };
}

interface Check {
  readonly rows: number;
  readonly splitFiles: number;
  readonly sums: readonly string[];
  readonly nulls: readonly number[];
}

/** Paimon Java reads the table back: the count, every column's sum and NULL count must be the source's. */
async function checkTable(name: string, expected: Expected): Promise<{ ok: boolean; files: number; detail: string }> {
  const ran = await runProcess('java', ['-jar', javaJar, 'check', warehouse, 'load', name]);
  const got = lastJson<Check>(ran.stdout);
  const problems: string[] = [];
  if (got.rows !== expected.rows) problems.push(`rows ${got.rows} ≠ ${expected.rows}`);
  LOAD_COLUMNS.forEach((c, i) => {
    if (got.sums[i] !== expected.sums[i]) problems.push(`sum(${c.name}) ${got.sums[i]} ≠ ${expected.sums[i]}`);
    if (got.nulls[i] !== expected.nulls[i]) problems.push(`nulls(${c.name}) ${got.nulls[i]} ≠ ${expected.nulls[i]}`);
  });
  return { ok: problems.length === 0, files: got.splitFiles, detail: problems.join('; ') };
}

function measure(contender: Contender, cluster: Cluster, dataset: Dataset, name: string): Promise<Measurement> {
  switch (contender) {
    case 'tributary':
    case 'baseline':
      return runTributary(cluster, dataset, name);
    case 'direct':
      return runTributary(cluster, dataset, name, 'direct');
    case 'java':
      return runJava(dataset, name);
    case 'pypaimon':
      return runPypaimon(dataset, name);
    case 'mysql2':
    case 'mariadb':
      return runCeiling(contender, dataset);
    case 'psql':
      return runPsqlCeiling(dataset);
  }
}

async function main(): Promise<void> {
  log(`bench: load average ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
  const dataset = sourceKind === 'postgres' ? await ensurePostgresDataset(postgres, shards, rowsPerShard, log) : await ensureDataset(mariadb, shards, rowsPerShard, log);
  if (sourceKind === 'parquet') await ensureParquetDataset(dataset, rowsPerShard, parquetRoot(dataset.database), python, log);
  if (contenders.some((c) => c === 'java' || c === 'pypaimon' || c === 'tributary')) await buildJava();
  if (contenders.includes('pypaimon')) await installPyDeps();
  const dir = join(tmpdir(), `bench-load-${run}`);
  await mkdir(dir, { recursive: true });
  const connectionsFile = join(dir, 'connections.json');
  const connections = {
    bench: { kind: 'mysql', host: mariadb.host, port: mariadb.port, user: mariadb.user, passwordEnv: 'BENCH_MYSQL_PASSWORD' },
    'bench-pg': { kind: 'postgres', host: postgres.host, port: postgres.port, user: postgres.user, database: 'postgres', passwordEnv: 'BENCH_PG_PASSWORD' },
  };
  await writeFile(connectionsFile, JSON.stringify({ connections }), { mode: 0o600 });
  const prof = args['worker-cpu-prof'];
  const extraNodeArgs = (args['worker-node-args'] ?? '').split(/\s+/).filter((a) => a !== '');
  // Every worker samples its memory every 100 ms into <dir>/<cluster>/<pid>.tsv, its attempts' starts and ends into <pid>.events.
  const memTrace = args['worker-mem-trace'];
  if (memTrace !== undefined) for (const name of ['tributary', 'baseline']) await mkdir(join(memTrace, name), { recursive: true });
  const clusterOf = (name: string, checkout?: string) =>
    startCluster(
      { prefix: `bench-load-${run}-${name}`, warehouse },
      {
        workers: 2,
        workerConcurrency: 1,
        extraEnv: {
          TRIBUTARY_CONNECTIONS_FILE: connectionsFile,
          BENCH_MYSQL_PASSWORD: mariadb.password,
          BENCH_PG_PASSWORD: postgres.password,
          ...(sourceKind === 'parquet' ? { TRIBUTARY_SOURCE_ROOTS: parquetRoot(dataset.database) } : {}),
          ...(memTrace === undefined ? {} : { MEMTRACE_DIR: join(memTrace, name) }),
        },
        ...(checkout === undefined ? {} : { root: checkout }),
        ...(prof === undefined && memTrace === undefined && extraNodeArgs.length === 0
          ? {}
          : {
              workerNodeArgs: () => [
                ...(prof === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${join(prof, name)}`]),
                ...(memTrace === undefined ? [] : ['--require', join(here, 'mem-trace.cjs')]),
                ...(checkout === undefined ? extraNodeArgs : []),
              ],
            }),
      },
    );
  const cluster = await clusterOf('tributary');
  const baseline = args.baseline === undefined ? undefined : await clusterOf('baseline', args.baseline);
  const measurements: Measurement[] = [];
  try {
    for (let round = 0; round < rounds; round++) {
      const order = round % 2 === 0 ? contenders : [...contenders].reverse();
      for (const contender of order) {
        const name = `${contender}_${round}`;
        const load = loadavg()[0] ?? NaN;
        if (contender === 'tributary' || contender === 'direct' || contender === 'baseline' || contender === 'java' || contender === 'pypaimon') await createTable(cluster, name);
        const services0 = servicesCpu();
        const measured = await measure(contender, contender === 'baseline' ? (baseline ?? cluster) : cluster, dataset, name);
        const services1 = servicesCpu();
        const serviceCpu = Object.fromEntries(Object.keys(services1).filter((k) => services0[k] !== undefined).map((k) => [k, (services1[k] as number) - (services0[k] as number)]));
        const check = contender === 'mysql2' || contender === 'mariadb' || contender === 'psql' || args['no-check'] ? undefined : await checkTable(name, dataset.expected);
        const m: Measurement = { ...measured, contender, round, rows: dataset.expected.rows, loadAverage: load, serviceCpu, ...(check ? { check } : {}) };
        measurements.push(m);
        log(
          `  round ${round} ${contender.padEnd(9)} ${m.seconds.toFixed(2)} s, CPU ${m.cpuSeconds.toFixed(2)} s, ${Math.round(dataset.expected.rows / m.seconds).toLocaleString('en-US')} rows/s` +
            (Number.isFinite(m.peakRssMb) ? `, peak RSS ${m.peakRssMb.toFixed(0)} MB` : '') +
            (check ? `, ${check.files} files, check ${check.ok ? 'ok' : `FAILED: ${check.detail}`}` : '') +
            (Object.keys(serviceCpu).length === 0 ? '' : `, services CPU ${Object.entries(serviceCpu).map(([k, v]) => `${k} ${v.toFixed(2)} s`).join(', ')}`) +
            (m.phases === undefined ? '' : `, phases ${Object.entries(m.phases).map(([phase, ms]) => `${phase} ${(ms / 1000).toFixed(2)} s`).join(', ')}`) +
            `, load ${load.toFixed(2)}`,
        );
      }
    }
  } finally {
    await cluster.stop();
    await baseline?.stop();
    await rm(dir, { recursive: true, force: true });
    if (!args.keep) {
      await removeWarehouse();
      await removeRedisKeys();
    }
  }
  printReport({ shards, rowsPerShard, measurements, loadAverage: loadavg() });
  if (measurements.some((m) => m.check !== undefined && !m.check.ok)) process.exitCode = 1;
}

/** The run's keys in Redis (its syncs and queues, under `bench-load-<run>-…`). */
async function removeRedisKeys(): Promise<void> {
  const { Redis } = await import('ioredis');
  const redis = new Redis({ host: process.env.TRIBUTARY_REDIS_HOST ?? '127.0.0.1', port: Number(process.env.TRIBUTARY_REDIS_PORT ?? 6390) });
  let cursor = '0';
  do {
    const [next, found] = await redis.scan(cursor, 'MATCH', `bench-load-${run}-*`, 'COUNT', 1000);
    if (found.length > 0) await redis.unlink(...found);
    cursor = next;
  } while (cursor !== '0');
  await redis.quit();
}

/** Every object of the run's warehouse, directory markers of pyarrow's file system included. */
async function removeWarehouse(): Promise<void> {
  const { S3Client, ListObjectsV2Command, DeleteObjectsCommand } = await import('@aws-sdk/client-s3');
  const client = new S3Client({ endpoint: s3.endpoint, region: s3.region, forcePathStyle: true, credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey } });
  let token: string | undefined;
  do {
    const page = await client.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: `bench-load/${run}/`, ContinuationToken: token }));
    const keys = (page.Contents ?? []).map((o) => ({ Key: o.Key ?? '' }));
    if (keys.length > 0) await client.send(new DeleteObjectsCommand({ Bucket: bucket, Delete: { Objects: keys } }));
    token = page.NextContinuationToken;
  } while (token !== undefined);
  client.destroy();
}

await main();
