/**
 * What every sync test needs: its own key prefix and warehouse (so tests run in parallel), a
 * coordinator (in this process, or as a child process that a test can SIGKILL), shard workers as
 * child processes, the orders table, and waiting for a sync to reach a phase.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { Redis } from 'ioredis';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { readFileSync, writeFileSync } from 'node:fs';
import { realpath } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { pino } from 'pino';
import { canonicalRows, pypaimon, services, uniqueName, type OracleRow } from '@tributary/testkit';
import { Queue } from 'bullmq';
import { startCoordinator, type Coordinator, type CoordinatorConfig, type SyncRecord } from '@tributary/coordinator';
import { openObjectStore, openTable, type InternalRow, type ObjectStore } from '@tributary/table';
import { GENERATOR_TABLE_COLUMNS } from '@tributary/sources';
import { loadSourceAccess, type SourceAccess } from '@tributary/sources';

const root = fileURLToPath(new URL('../../../', import.meta.url));

/** The `tributary` command's entry (the processes start as operators start them: `tributary coordinator`, `tributary worker`). */
const CLI = 'packages/cli/src/main.ts';

export const ORDERS_COLUMNS = GENERATOR_TABLE_COLUMNS;

export const s3 = {
  endpoint: services.s3.endpoint,
  region: services.s3.region,
  accessKeyId: services.s3.accessKeyId,
  secretAccessKey: services.s3.secretAccessKey,
};

/**
 * The two ways a sync writes (`options.layout`): the fault suite runs in both. `direct` shards write
 * the table's files; `bucketed` shards write sorted runs that one job per bucket merges.
 */
export const LAYOUTS = ['direct', 'bucketed'] as const;
export type Layout = (typeof LAYOUTS)[number];

/** Short BullMQ locks so a killed process's job is re-run within seconds. */
export const FAST_LOCKS = { lockDurationMs: 3000, stalledIntervalMs: 1000 };

export interface SyncEnv {
  readonly prefix: string;
  readonly warehouse: string;
  readonly store: ObjectStore;
  /** The one source root of the test (beside the warehouse, not in it): `s3://<bucket>/<prefix>-src`. */
  readonly sourceRoot: string;
  /** What the test's coordinator and workers may read, from `env` (an in-process coordinator gets it too). */
  readonly sources: SourceAccess;
  /** The deployment's cluster secret (vote tokens): in `env` for spawned processes, here for in-process ones. */
  readonly clusterSecret: Uint8Array;
  readonly env: NodeJS.ProcessEnv;
}

export interface SyncEnvOptions {
  /** Named connections, written to a connections file of the test (TRIBUTARY_CONNECTIONS_FILE). */
  readonly connections?: Record<string, unknown>;
  /** More source roots than `sourceRoot`. */
  readonly roots?: readonly string[];
  /** More environment for the coordinator and the workers. */
  readonly env?: NodeJS.ProcessEnv;
}

/** The variable the test MariaDB's password is in, for the named connection `mariadb` (withMariadb). */
export const MARIADB_PASSWORD_ENV = 'TRIBUTARY_TEST_MARIADB_PASSWORD';

/** Options that add the test MariaDB as the named connection `mariadb`: a source then says `connection: 'mariadb'`. */
export function withMariadb(options: SyncEnvOptions = {}): SyncEnvOptions {
  const { host, port, user, password } = services.mariadb;
  return {
    ...options,
    connections: { ...options.connections, mariadb: { kind: 'mysql', host, port, user, passwordEnv: MARIADB_PASSWORD_ENV } },
    env: { ...options.env, [MARIADB_PASSWORD_ENV]: password },
  };
}

export function syncEnv(name: string, options: SyncEnvOptions = {}): SyncEnv {
  const prefix = uniqueName(`t-${name}`);
  envPrefixes.add(prefix);
  const warehouse = `s3://${services.s3.bucket}/${prefix}`;
  const sourceRoot = `${warehouse}-src`;
  const connectionsFile = join(tmpdir(), `${prefix}-connections.json`);
  if (options.connections !== undefined) writeFileSync(connectionsFile, JSON.stringify({ connections: options.connections }), { mode: 0o600 });
  const secret = randomBytes(32).toString('base64url');
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    TRIBUTARY_CLUSTER_SECRET: secret,
    TRIBUTARY_SOURCE_ROOTS: [sourceRoot, ...(options.roots ?? [])].join(','),
    ...(options.connections === undefined ? {} : { TRIBUTARY_CONNECTIONS_FILE: connectionsFile }),
    ...options.env,
  };
  return {
    prefix,
    warehouse,
    store: openObjectStore(warehouse, s3),
    sourceRoot,
    clusterSecret: new TextEncoder().encode(secret),
    sources: loadSourceAccess({ env, readText: (path) => readFileSync(path, 'utf8'), realpath }),
    env: {
      ...env,
      TRIBUTARY_PREFIX: prefix,
      TRIBUTARY_WAREHOUSE: warehouse,
      TRIBUTARY_REDIS_HOST: services.redis.host,
      TRIBUTARY_REDIS_PORT: String(services.redis.port),
      TRIBUTARY_S3_ENDPOINT: services.s3.endpoint,
      TRIBUTARY_S3_BUCKET: services.s3.bucket,
      TRIBUTARY_LOCK_MS: String(FAST_LOCKS.lockDurationMs),
      TRIBUTARY_STALLED_MS: String(FAST_LOCKS.stalledIntervalMs),
      // Tests use the generator's fault hooks, which a coordinator accepts only in test mode.
      TRIBUTARY_TEST_MODE: '1',
    },
  };
}

/** The last log lines of each in-process coordinator (info and above), for a failing test's message. */
const coordinatorLogs = new WeakMap<Coordinator, string[]>();
const LOG_LINES_KEPT = 60;

export async function inProcessCoordinator(e: SyncEnv, extra: Partial<CoordinatorConfig> = {}): Promise<Coordinator> {
  const lines: string[] = [];
  const logger = pino({ level: 'info' }, {
    write(line: string) {
      lines.push(line.trimEnd());
      if (lines.length > LOG_LINES_KEPT) lines.shift();
    },
  });
  const c = await startCoordinator({ redis: services.redis, prefix: e.prefix, warehouse: e.warehouse, s3, sources: e.sources, clusterSecret: e.clusterSecret, ...FAST_LOCKS, testMode: true, logger, ...extra });
  coordinatorLogs.set(c, lines);
  liveCoordinators.add(c);
  const close = c.close.bind(c);
  return Object.assign(c, { close: () => close().finally(() => liveCoordinators.delete(c)) });
}

/** The in-process coordinators not yet closed: a sync that waited too long is explained by each. */
const liveCoordinators = new Set<Coordinator>();
/** The key prefixes of this process's tests: where a sync's BullMQ jobs are looked for. */
const envPrefixes = new Set<string>();

/**
 * Where a sync's BullMQ jobs stand, read from Redis: its commit job (state, tries, stalls, why it
 * failed, pending children), its gate, its redrive and the job counts of its queues.
 */
export async function flowReport(prefix: string, syncId: string): Promise<string | undefined> {
  const connection = { host: services.redis.host, port: services.redis.port };
  const queues = ['commit', 'write-shard', 'merge-bucket', 'flow-gate'].map((name) => new Queue(name, { connection, prefix }));
  try {
    const [commit, shards, buckets, gates] = queues as [Queue, Queue, Queue, Queue];
    const describe = async (queue: Queue, id: string): Promise<string> => {
      const job = await queue.getJob(id);
      if (job === undefined) return `${id}: none`;
      const pending = await job.getDependenciesCount({ unprocessed: true }).catch(() => undefined);
      const fields = {
        state: await job.getState(),
        attemptsMade: job.attemptsMade,
        stalledCounter: job.stalledCounter,
        processedOn: job.processedOn,
        finishedOn: job.finishedOn,
        failedReason: job.failedReason,
        pendingChildren: pending?.unprocessed,
        now: Date.now(),
      };
      return `${id}: ${JSON.stringify(fields)}`;
    };
    const lines = [
      await describe(commit, `commit-${syncId}`),
      await describe(gates, `gate-${syncId}`),
      await describe(commit, `commit-buckets-${syncId}`),
      await describe(commit, `redrive-${syncId}`),
      ...(await Promise.all(
        [shards, buckets].map(async (queue) => {
          const jobs = (await queue.getJobs(['active', 'wait', 'delayed', 'prioritized', 'waiting-children', 'failed'], 0, 200)).filter((j) => j.id?.includes(syncId) === true);
          return Promise.all(jobs.slice(0, 20).map((j) => describe(queue, j.id ?? '')));
        }),
      )).flat(),
      `job counts: commit ${JSON.stringify(await commit.getJobCounts())}, write-shard ${JSON.stringify(await shards.getJobCounts())}, merge-bucket ${JSON.stringify(await buckets.getJobCounts())}`,
    ];
    return lines.join('\n');
  } finally {
    await Promise.all(queues.map((q) => q.close()));
  }
}

/** What every live coordinator and every test prefix of this process know of a sync (waitForPhase's default explanation). */
async function explainEverywhere(syncId: string): Promise<string> {
  const parts = [await flowReports(syncId)];
  for (const c of liveCoordinators) parts.push(await coordinatorView(c, syncId));
  for (const child of spawned) parts.push(`process ${child.pid} (${child.spawnargs.slice(2, 3).join(' ')}) output, tail:`, outputOf(child).slice(-2000));
  return parts.join('\n');
}

async function flowReports(syncId: string): Promise<string> {
  const parts: string[] = [];
  for (const prefix of envPrefixes) {
    const report = await flowReport(prefix, syncId).catch((error: unknown) => `flow report failed: ${String(error)}`);
    if (report !== undefined && !report.startsWith(`commit-${syncId}: none`)) parts.push(`BullMQ (prefix ${prefix}):`, report);
  }
  return parts.length === 0 ? `BullMQ: no commit job of ${syncId} under this process's prefixes` : parts.join('\n');
}

/**
 * What a test that waited too long for a sync should print: the sync's status as the API shows it
 * (shards, attempts, errors), the job counts of its queues and the coordinator's last log lines.
 */
export async function explainSync(c: Coordinator, syncId: string): Promise<string> {
  return `${await coordinatorView(c, syncId)}\n${await flowReports(syncId)}`;
}

async function coordinatorView(c: Coordinator, syncId: string): Promise<string> {
  const parts: string[] = [];
  try {
    const status = await c.app.inject({ method: 'GET', url: `/v1/syncs/${encodeURIComponent(syncId)}` });
    parts.push(`status ${status.statusCode}: ${status.body.slice(0, 3000)}`);
  } catch (error) {
    parts.push(`status: ${String(error)}`);
  }
  parts.push(`coordinator log (last ${LOG_LINES_KEPT} lines):`, ...(coordinatorLogs.get(c) ?? ['(not an in-process coordinator of this harness)']));
  return parts.join('\n');
}

/** Everything each spawned process printed, stdout and stderr (the secret tests read all of it). */
const outputs = new WeakMap<ChildProcess, { text: string }>();
/** The spawned processes still running (their output explains a sync that waited too long). */
const spawned = new Set<ChildProcess>();

export function outputOf(child: ChildProcess): string {
  return outputs.get(child)?.text ?? '';
}

/** Starts a process and resolves once it printed its ready line. */
async function spawnReady(command: string, env: NodeJS.ProcessEnv, ready: string, args: readonly string[] = []): Promise<ChildProcess> {
  const child = spawn(process.execPath, [CLI, command, ...args], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
  const all = { text: '' };
  outputs.set(child, all);
  spawned.add(child);
  child.once('exit', () => spawned.delete(child));
  let err = '';
  child.stderr?.on('data', (d: Buffer) => {
    all.text += d.toString();
    err = (err + d.toString()).slice(-4000);
  });
  let out = '';
  const started = new Promise<void>((resolve, reject) => {
    child.stdout?.on('data', (d: Buffer) => {
      all.text += d.toString();
      out += d.toString();
      if (out.includes(ready)) resolve();
    });
    child.once('exit', (code) => reject(new Error(`tributary ${command} exited with ${code}: ${err}`)));
  });
  await started;
  return child;
}

export function spawnWorker(e: SyncEnv, extra: NodeJS.ProcessEnv = {}, args: readonly string[] = []): Promise<ChildProcess> {
  return spawnReady('worker', { ...e.env, ...extra }, '"worker":"ready"', args);
}

export function spawnCoordinator(e: SyncEnv, port: number, extra: NodeJS.ProcessEnv = {}): Promise<ChildProcess> {
  return spawnReady('coordinator', { ...e.env, TRIBUTARY_PORT: String(port), ...extra }, '"listening"');
}

/** A coordinator process on a free port, and its base URL. */
export async function spawnListeningCoordinator(e: SyncEnv, extra: NodeJS.ProcessEnv = {}): Promise<{ child: ChildProcess; url: string }> {
  const child = await spawnCoordinator(e, 0, extra);
  const line = /\{"listening":"([^"]+)"\}/.exec(outputOf(child));
  if (line?.[1] === undefined) throw new Error(`no listening line in ${outputOf(child)}`);
  return { child, url: line[1] };
}

export async function stop(child: ChildProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill(signal);
  await exited;
}

export async function createOrdersTable(c: Coordinator, database: string, name: string, extra: Record<string, unknown> = {}): Promise<void> {
  const response = await c.app.inject({ method: 'POST', url: '/v1/tables', payload: { database, name, columns: ORDERS_COLUMNS, ...extra } });
  if (response.statusCode !== 201) throw new Error(`create table: ${response.statusCode} ${response.body}`);
}

export async function waitForPhase(
  read: () => Promise<SyncRecord>,
  phases: readonly string[],
  timeoutMs = 60_000,
  explain?: (syncId: string) => Promise<string>,
): Promise<SyncRecord> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const record = await read();
    if (phases.includes(record.state.phase)) return record;
    if (Date.now() > deadline) {
      const why = `\n${await (explain ?? explainEverywhere)(record.id).catch((error: unknown) => String(error))}`;
      throw new Error(`sync ${record.id} still ${record.state.phase} after ${timeoutMs} ms${why}`);
    }
    await sleep(100);
  }
}

/** Polls `check` until it returns something other than undefined or false; fails after `timeoutMs`, saying `what`. */
export async function waitUntil<T>(check: () => Promise<T | undefined | false>, what: string, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`not within ${timeoutMs} ms: ${what}`);
    await sleep(50);
  }
}

/**
 * The rows a running shard job has reported as its BullMQ progress (the worker reports every
 * phase check, about twice a second): proof that the shard is in the middle of its work.
 */
export async function shardProgressRows(
  e: SyncEnv,
  syncId: string,
  shardId: string,
  redis: { readonly host: string; readonly port: number } = services.redis,
): Promise<number> {
  const queue = new Queue('write-shard', { connection: { host: redis.host, port: redis.port }, prefix: e.prefix });
  try {
    const progress = (await queue.getJob(`shard-${syncId}-${shardId}`))?.progress;
    return typeof progress === 'object' && progress !== null && 'rows' in progress && typeof progress.rows === 'number' ? progress.rows : 0;
  } finally {
    await queue.close();
  }
}

export async function readRows(e: SyncEnv, database: string, table: string): Promise<InternalRow[]> {
  const t = await openTable(e.store, database, table);
  const rows: InternalRow[] = [];
  for await (const row of t.newRead()) rows.push(row);
  return rows;
}

/** Every object under a prefix of the warehouse. */
export async function listKeys(e: SyncEnv, prefix: string): Promise<string[]> {
  const keys: string[] = [];
  for await (const o of e.store.list(prefix)) keys.push(o.key);
  return keys;
}

export function generatorSource(shards: number, rowsPerShard: number, extra: Record<string, unknown> = {}) {
  return { kind: 'generator', seed: 42, shards, rowsPerShard, batchRows: Math.max(1, Math.min(1000, rowsPerShard)), ...extra };
}

/** What pypaimon (the reference reader) returns for the table's latest snapshot, in canonical order. */
export async function pypaimonRead(e: SyncEnv, database: string, table: string): Promise<{ snapshotId: number | null; rows: OracleRow[] }> {
  const result = await pypaimon.read({ warehouse: e.warehouse, database, table });
  return { snapshotId: result.snapshotId, rows: canonicalRows(result.rows) };
}

export { canonicalRows };

/** The order ids pypaimon reads, ascending. */
export async function pypaimonIds(e: SyncEnv, database: string, table: string): Promise<bigint[]> {
  const { rows } = await pypaimonRead(e, database, table);
  return rows.map((r) => r[0] as bigint).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

export const oneTo = (n: number): bigint[] => Array.from({ length: n }, (_, i) => BigInt(i + 1));

/** An object's bytes once it exists (written after a state change a test already saw). */
export async function waitForObject(e: SyncEnv, key: string, timeoutMs = 10_000): Promise<Uint8Array> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if ((await e.store.stat(key)) !== null) return e.store.get(key);
    if (Date.now() > deadline) throw new Error(`${key} was not written within ${timeoutMs} ms`);
    await sleep(100);
  }
}

/**
 * A redis-server of the test's own (append-only, in `dir`) on `port`, once it answers: a test may
 * stop or restart it without disturbing the shared Redis.
 */
export async function startRedis(port: number, dir: string): Promise<ChildProcess> {
  const child = spawn('redis-server', ['--bind', '127.0.0.1', '--port', String(port), '--dir', dir, '--appendonly', 'yes', '--save', '', '--maxmemory-policy', 'noeviction'], { stdio: 'ignore' });
  // A new client per try: one connection attempt, no reconnecting client whose `connect()` refuses.
  for (let i = 0; i < 200; i++) {
    if (child.exitCode !== null || child.signalCode !== null) break;
    const probe = new Redis({ port, host: '127.0.0.1', lazyConnect: true, retryStrategy: () => null, maxRetriesPerRequest: 0 });
    probe.on('error', () => undefined); // refused until the server listens
    try {
      await probe.connect();
      if ((await probe.ping()) === 'PONG') return child;
    } catch {
      // not listening yet
    } finally {
      probe.disconnect();
    }
    await sleep(50);
  }
  // Never returned as if it ran: clients of a server that is not there wait for it (a BullMQ close hangs).
  child.kill('SIGKILL');
  throw new Error(`redis-server on port ${port} did not answer (exit ${String(child.exitCode ?? child.signalCode)})`);
}

/** A sync as planned (generator shards, one row each), to store without a coordinator: a test of what lists and views read. */
export function plannedSyncRecord(id: string, database: string, table: string, shards = 1) {
  return {
    id,
    version: 0,
    plan: {
      table: { database, table },
      mode: 'append' as const,
      source: { kind: 'generator', shards, rowsPerShard: 1 },
      shards: Array.from({ length: shards }, (_, i) => ({ id: `s${i}`, spec: { index: i } })),
      baseSnapshotId: null,
      schemaId: 0,
      commitUser: `tributary-${id}`,
      commitIdentifier: '1',
      options: { maxAttempts: 3, snapshotProperties: {} },
    },
    state: { phase: 'PLANNED' as const },
    timings: { PLANNED: new Date(Date.UTC(2026, 0, 1)).toISOString() },
  };
}
