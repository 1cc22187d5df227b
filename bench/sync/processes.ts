/**
 * The bench's side of Tributary's processes: starts a coordinator and shard workers as child
 * processes (as scripts/demo.ts does), calls the REST API, reads a process's peak RSS, stops them.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));

export interface Deployment {
  /** Key prefix of the syncs and queues in Redis. */
  readonly prefix: string;
  readonly warehouse: string;
}

/** A started process and what its ready line said. */
export interface Started {
  readonly child: ChildProcess;
  readonly ready: Record<string, unknown>;
}

/**
 * Starts one of Tributary's processes and waits for its ready line (one JSON object on stdout),
 * through the `tributary` command as deployed (bin/tributary.js: a worker gets its Node flags there).
 * `from`: another checkout to run it from (a baseline to compare with), else this one.
 */
export async function startProcess(command: string, env: NodeJS.ProcessEnv, nodeArgs: readonly string[] = [], from: string = root): Promise<Started> {
  const child = spawn(process.execPath, [...nodeArgs, 'packages/cli/bin/tributary.js', command], { cwd: from, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  child.stderr?.on('data', (d: Buffer) => (log = (log + d.toString()).slice(-4000)));
  let out = '';
  const ready = await new Promise<Record<string, unknown>>((resolve, reject) => {
    const onData = (d: Buffer): void => {
      out += d.toString();
      const newline = out.indexOf('\n');
      if (newline < 0) return;
      child.stdout?.off('data', onData);
      child.stdout?.resume();
      resolve(JSON.parse(out.slice(0, newline)) as Record<string, unknown>);
    };
    child.stdout?.on('data', onData);
    child.once('exit', (code) => reject(new Error(`tributary ${command} exited with ${String(code)} before it was ready:\n${log}`)));
  });
  child.on('exit', (code, signal) => {
    if (code !== 0 && signal === null) console.error(`tributary ${command} (pid ${child.pid}) exited with ${String(code)}:\n${log}`);
  });
  return { child, ready };
}

/** The coordinator and the workers share a cluster secret; one per benchmark run unless one is given. */
const secretEnv: Record<string, string> =
  process.env.TRIBUTARY_CLUSTER_SECRET || process.env.TRIBUTARY_CLUSTER_SECRET_FILE ? {} : { TRIBUTARY_CLUSTER_SECRET: randomBytes(32).toString('base64url') };

export function deploymentEnv(d: Deployment, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return { ...process.env, ...secretEnv, TRIBUTARY_PREFIX: d.prefix, TRIBUTARY_WAREHOUSE: d.warehouse, ...extra };
}

export interface Cluster {
  readonly base: string;
  readonly coordinator: ChildProcess;
  readonly workers: readonly ChildProcess[];
  /** Peak RSS (VmHWM, MB) and CPU time (user + system since its start, s) of the coordinator process, read before it is stopped. */
  stop(): Promise<{ coordinatorPeakRssMb: number; coordinatorCpuS: number }>;
}

export interface ClusterOptions {
  readonly workers: number;
  readonly workerConcurrency: number;
  /** Node flags of the coordinator process (e.g. --cpu-prof). */
  readonly coordinatorNodeArgs?: readonly string[];
  /** Node flags of each worker process, given its index. */
  readonly workerNodeArgs?: (index: number) => readonly string[];
  /** More environment of every process (e.g. a connections file). */
  readonly extraEnv?: Record<string, string>;
  /** Another checkout of the repository to run the processes from (a baseline); default this one. */
  readonly root?: string;
}

/** A coordinator and `workers` shard worker processes on one deployment. */
export async function startCluster(d: Deployment, options: ClusterOptions): Promise<Cluster> {
  const coordinator = await startProcess('coordinator', deploymentEnv(d, { ...options.extraEnv, TRIBUTARY_PORT: '0' }), options.coordinatorNodeArgs, options.root);
  const workerEnv = deploymentEnv(d, { ...options.extraEnv, TRIBUTARY_WORKER_CONCURRENCY: String(options.workerConcurrency) });
  const workers = await Promise.all(
    Array.from({ length: options.workers }, (_, i) => startProcess('worker', workerEnv, options.workerNodeArgs?.(i), options.root)),
  );
  const all = [coordinator.child, ...workers.map((w) => w.child)];
  return {
    base: String(coordinator.ready.listening),
    coordinator: coordinator.child,
    workers: workers.map((w) => w.child),
    async stop() {
      const coordinatorPeakRssMb = peakRssMb(coordinator.child.pid ?? -1);
      const coordinatorCpuS = cpuSeconds(coordinator.child.pid ?? -1);
      await Promise.all(all.map((c) => stopProcess(c)));
      return { coordinatorPeakRssMb, coordinatorCpuS };
    },
  };
}

export async function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  await exited;
}

/** CPU time (user + system) a process has used so far, in seconds (/proc/<pid>/stat, USER_HZ = 100). */
export function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** VmHWM of /proc/<pid>/status: the process's peak resident set, in MB. */
export function peakRssMb(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('VmHWM:'));
  return Number(/(\d+)/.exec(line ?? '')?.[1] ?? NaN) / 1024;
}

export async function call<T>(base: string, method: string, path: string, body?: unknown): Promise<T> {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${path} → ${response.status} ${text}`);
  return JSON.parse(text) as T;
}

/** The S3 connection of the services, from the same variables the coordinator and workers read. */
export function s3Options() {
  const env = process.env;
  return {
    endpoint: env.TRIBUTARY_S3_ENDPOINT ?? 'http://127.0.0.1:9100',
    region: env.TRIBUTARY_S3_REGION ?? 'us-east-1',
    accessKeyId: env.TRIBUTARY_S3_ACCESS_KEY ?? 'tributary',
    secretAccessKey: env.TRIBUTARY_S3_SECRET_KEY ?? 'tributary-secret',
  };
}
