/**
 * `node bench/sync/mysql-rss.ts [--rows 3000000] [--batch-rows 10000] [--append] [--keep]`: one worker process's
 * memory on one large MySQL chunk. Fills a MariaDB table of `--rows` rows (BIGINT key, DECIMAL,
 * DATETIME(6), VARCHAR), starts a coordinator and ONE worker (concurrency 1) as child processes,
 * syncs the table as a single shard into a primary-key table of 2 buckets (`--append`: an append
 * table), and samples the worker's
 * resident set (VmRSS of /proc/<pid>/status) every 100 ms until the sync commits; prints its peak
 * (VmHWM), the sync's wall time and rows/s. The source is read in batches of `--batch-rows`, pulled
 * one at a time: mysql2 pauses the socket while the writer takes a batch, so the reader never runs
 * ahead of the writer (see packages/sources/README.md, "Read").
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createConnection } from 'mysql2/promise';
import { call, peakRssMb, startCluster, type Deployment } from './processes.ts';

const env = process.env;
const { values } = parseArgs({ options: { rows: { type: 'string', default: '3000000' }, 'batch-rows': { type: 'string', default: '10000' }, append: { type: 'boolean', default: false }, keep: { type: 'boolean', default: false } } });
const rows = Number(values.rows);
const mariadb = {
  host: env.TRIBUTARY_MARIADB_HOST ?? '127.0.0.1',
  port: Number(env.TRIBUTARY_MARIADB_PORT ?? 3390),
  user: env.TRIBUTARY_MARIADB_USER ?? 'tributary',
  password: env.TRIBUTARY_MARIADB_PASSWORD ?? 'tributary',
};
const run = new Date().toISOString().replace(/[-:.TZ]/g, '').slice(0, 14);
const database = `bench_rss_${run}`;
const deployment: Deployment = { prefix: `bench-rss-${run}`, warehouse: `s3://${env.TRIBUTARY_S3_BUCKET ?? 'tributary'}/bench-rss/${run}` };

function vmRssMb(pid: number): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? NaN) / 1024;
  } catch {
    return NaN;
  }
}

const admin = await createConnection({ ...mariadb, multipleStatements: true });
console.log(`filling ${database}.orders with ${rows.toLocaleString('en')} rows`);
await admin.query(`CREATE DATABASE ${database}`);
await admin.query(`CREATE TABLE ${database}.orders (id BIGINT NOT NULL PRIMARY KEY, amount DECIMAL(12,2), created DATETIME(6), note VARCHAR(32))`);
for (let from = 0; from < rows; from += 500_000) {
  const to = Math.min(rows, from + 500_000);
  await admin.query(`INSERT INTO ${database}.orders SELECT seq, (seq % 100000) / 100, TIMESTAMPADD(MICROSECOND, seq * 1234567, '2000-01-01'), CONCAT('note-', seq) FROM ${database}.seq_${from + 1}_to_${to}`);
}

const connections = join(tmpdir(), `${deployment.prefix}-connections.json`);
writeFileSync(connections, JSON.stringify({ connections: { bench: { kind: 'mysql', host: mariadb.host, port: mariadb.port, user: mariadb.user, passwordEnv: 'TRIBUTARY_BENCH_MARIADB_PASSWORD' } } }));
Object.assign(process.env, { TRIBUTARY_CONNECTIONS_FILE: connections, TRIBUTARY_BENCH_MARIADB_PASSWORD: mariadb.password });
const cluster = await startCluster(deployment, { workers: 1, workerConcurrency: 1 });
try {
  const worker = cluster.workers[0]?.pid ?? -1;
  const idleMb = vmRssMb(worker);
  await call(cluster.base, 'POST', '/v1/tables', {
    database: 'bench',
    name: 'orders',
    columns: [
      { name: 'id', type: 'BIGINT NOT NULL' },
      { name: 'amount', type: 'DECIMAL(12, 2)' },
      { name: 'created', type: 'TIMESTAMP(6)' },
      { name: 'note', type: 'STRING' },
    ],
    ...(values.append ? {} : { primaryKeys: ['id'], bucket: 2 }),
  });
  const started = Date.now();
  const { id } = await call<{ id: string }>(cluster.base, 'POST', '/v1/syncs', {
    table: { database: 'bench', table: 'orders' },
    source: { kind: 'mysql', connection: 'bench', databases: [database], tables: ['orders'], batchRows: Number(values['batch-rows']) },
    mode: values.append ? 'append' : 'upsert',
  });
  let phase = '';
  let maxSampled = 0;
  while (phase !== 'COMMITTED' && phase !== 'ABORTED') {
    await new Promise((resolve) => setTimeout(resolve, 100));
    maxSampled = Math.max(maxSampled, vmRssMb(worker));
    phase = (await call<{ phase: string }>(cluster.base, 'GET', `/v1/syncs/${id}`)).phase;
  }
  const seconds = (Date.now() - started) / 1000;
  const peak = peakRssMb(worker);
  console.log(
    `${phase}: ${rows.toLocaleString('en')} rows in one shard (${values.append ? 'append table' : 'primary-key table, 2 buckets'}, batches of ${values['batch-rows']}), ${seconds.toFixed(1)} s (${Math.round(rows / seconds).toLocaleString('en')} rows/s); ` +
      `worker RSS idle ${idleMb.toFixed(0)} MB, peak ${peak.toFixed(0)} MB (VmHWM; sampled max ${maxSampled.toFixed(0)} MB)`,
  );
} finally {
  await cluster.stop();
  if (!values.keep) await admin.query(`DROP DATABASE ${database}`);
  await admin.end();
}
