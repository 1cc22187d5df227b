/**
 * The demo: one sharded sync, end to end, on the local services (`npm run demo` starts them first).
 *
 *   1. starts a coordinator and two shard workers as separate processes;
 *   2. creates a primary-key Paimon table through the REST API;
 *   3. starts a sync of 8 generated shards (POST /v1/syncs) and shows its progress;
 *   4. when it has committed, prints the snapshot id and reads the table back, with Tributary's
 *      reader and with pypaimon.
 *
 * Settings (environment): TRIBUTARY_DEMO_SHARDS (8), TRIBUTARY_DEMO_ROWS_PER_SHARD (25000),
 * TRIBUTARY_DEMO_WORKERS (2), and the service variables of the README. Each run writes a fresh
 * warehouse under s3://<bucket>/demo/<run>, so runs never disturb each other.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { openObjectStore, openTable } from '@tributary/table';
import { oraclePaths, pypaimon } from '@tributary/testkit';
import { GENERATOR_TABLE_COLUMNS } from '@tributary/sources';

const env = process.env;
const shards = Number(env.TRIBUTARY_DEMO_SHARDS ?? 8);
const rowsPerShard = Number(env.TRIBUTARY_DEMO_ROWS_PER_SHARD ?? 25_000);
const workerCount = Number(env.TRIBUTARY_DEMO_WORKERS ?? 2);
const bucket = env.TRIBUTARY_S3_BUCKET ?? 'tributary';
const run = new Date().toISOString().replace(/[-:.TZ]/g, '').slice(0, 14);
const prefix = `demo-${run}`;
const warehouse = `s3://${bucket}/demo/${run}`;
const s3 = {
  endpoint: env.TRIBUTARY_S3_ENDPOINT ?? 'http://127.0.0.1:9100',
  region: env.TRIBUTARY_S3_REGION ?? 'us-east-1',
  accessKeyId: env.TRIBUTARY_S3_ACCESS_KEY ?? 'tributary',
  secretAccessKey: env.TRIBUTARY_S3_SECRET_KEY ?? 'tributary-secret',
};
const root = fileURLToPath(new URL('../', import.meta.url));
const children: ChildProcess[] = [];
/** The coordinator and the workers share a cluster secret; the demo makes one unless one is given. */
const secretEnv: Record<string, string> =
  env.TRIBUTARY_CLUSTER_SECRET || env.TRIBUTARY_CLUSTER_SECRET_FILE ? {} : { TRIBUTARY_CLUSTER_SECRET: randomBytes(32).toString('base64url') };

/** Starts one of Tributary's processes and waits for its ready line (one JSON object on stdout). */
async function start(command: string, extraEnv: Record<string, string>): Promise<Record<string, unknown>> {
  const child = spawn(process.execPath, ['packages/cli/src/main.ts', command], {
    cwd: root,
    env: { ...env, ...secretEnv, TRIBUTARY_PREFIX: prefix, TRIBUTARY_WAREHOUSE: warehouse, ...extraEnv },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let log = '';
  child.stderr?.on('data', (d: Buffer) => (log = (log + d.toString()).slice(-4000)));
  const [line] = (await Promise.race([
    once(child.stdout!, 'data'),
    once(child, 'exit').then(([code]) => {
      throw new Error(`tributary ${command} exited with ${String(code)} before it was ready:\n${log}`);
    }),
  ])) as [Buffer];
  return JSON.parse(line.toString().split('\n')[0] ?? '{}') as Record<string, unknown>;
}

async function call<T>(base: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<T> {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${path} → ${response.status} ${text}`);
  return JSON.parse(text) as T;
}

interface SyncView {
  phase: string;
  snapshotId: number | null;
  state: { reason?: unknown };
  phaseDurationsMs: Record<string, number>;
  shardCounts: { total: number; accepted: number };
  /** Rows read so far by running and finished shards (live progress). */
  rowsRead: number;
  /** The bucket jobs of the bucketed layout (null: direct); `total` is null until they are planned. */
  stages: { buckets: { accepted: number; total: number | null } | null };
}

async function main(): Promise<number> {
  console.log(`Tributary demo: ${shards} shards × ${rowsPerShard.toLocaleString('en')} generated rows, ${workerCount} workers`);
  console.log(`warehouse ${warehouse}\n`);

  const { listening } = await start('coordinator', { TRIBUTARY_PORT: '0' });
  const base = String(listening);
  await Promise.all(Array.from({ length: workerCount }, () => start('worker', {})));
  console.log(`coordinator ${base}   syncs ${base}/ui   dashboard ${base}/admin/queues   API docs ${base}/docs`);

  await call(base, 'POST', '/v1/tables', {
    database: 'shop',
    name: 'orders',
    columns: GENERATOR_TABLE_COLUMNS,
    primaryKeys: ['order_id'],
    bucket: 4,
  });
  console.log('created table shop.orders (primary key order_id, 4 buckets)');

  const t0 = Date.now();
  const { id } = await call<{ id: string }>(
    base,
    'POST',
    '/v1/syncs',
    {
      table: { database: 'shop', table: 'orders' },
      source: { kind: 'generator', seed: 7, shards, rowsPerShard },
      mode: 'upsert',
    },
    { 'idempotency-key': `demo-${run}` },
  );
  console.log(`started sync ${id}`);

  let last = '';
  let view: SyncView;
  for (;;) {
    view = await call<SyncView>(base, 'GET', `/v1/syncs/${id}`);
    const buckets = view.stages.buckets;
    const merged = buckets === null || buckets.total === null ? '' : `  buckets ${buckets.accepted}/${buckets.total}`;
    const line = `  ${view.phase.padEnd(11)} shards ${view.shardCounts.accepted}/${view.shardCounts.total}  rows ${view.rowsRead.toLocaleString('en')}${merged}`;
    if (line !== last) console.log(`${line}  (${((Date.now() - t0) / 1000).toFixed(1)} s)`);
    last = line;
    if (view.phase === 'COMMITTED' || view.phase === 'ABORTED') break;
    await sleep(250);
  }
  if (view.phase !== 'COMMITTED') {
    console.error(`\nthe sync was aborted: ${JSON.stringify(view.state.reason)}`);
    return 1;
  }
  const seconds = (Date.now() - t0) / 1000;
  console.log(`\ncommitted as snapshot ${view.snapshotId} in ${seconds.toFixed(1)} s; phases (ms): ${JSON.stringify(view.phaseDurationsMs)}`);

  const described = await call<{ rowCount: number; fileCount: number }>(base, 'GET', '/v1/tables/shop/orders');
  const table = await openTable(openObjectStore(warehouse, s3), 'shop', 'orders');
  let read = 0;
  for await (const batch of table.newRead().batches()) read += batch.length;
  console.log(`GET /v1/tables/shop/orders: ${described.rowCount.toLocaleString('en')} rows in ${described.fileCount} files`);
  console.log(`read back from snapshot ${view.snapshotId}: ${read.toLocaleString('en')} rows (expected ${(shards * rowsPerShard).toLocaleString('en')})`);
  let ok = read === shards * rowsPerShard;
  // The table is real Paimon: pypaimon (installed by infra/up.sh) reads it too.
  if (existsSync(oraclePaths.python)) {
    const byPypaimon = await pypaimon.read({ warehouse, database: 'shop', table: 'orders' });
    console.log(`read by pypaimon from snapshot ${byPypaimon.snapshotId}: ${byPypaimon.rows.length.toLocaleString('en')} rows`);
    ok &&= byPypaimon.rows.length === read;
  }
  return ok ? 0 : 1;
}

async function shutdown(): Promise<void> {
  await Promise.all(
    children
      .filter((c) => c.exitCode === null && c.signalCode === null)
      .map(async (c) => {
        const exited = once(c, 'exit');
        c.kill('SIGTERM');
        await exited;
      }),
  );
}

let code = 1;
try {
  code = await main();
} catch (error) {
  console.error(error instanceof Error ? error.message : error);
} finally {
  await shutdown();
}
process.exit(code);
