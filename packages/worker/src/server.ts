/**
 * Starts a shard worker process. Configuration from the environment:
 *   TRIBUTARY_REDIS_HOST / TRIBUTARY_REDIS_PORT  Redis (default 127.0.0.1:6390)
 *   TRIBUTARY_PREFIX                           key prefix, the coordinator's (default tributary)
 *   TRIBUTARY_S3_ENDPOINT, _REGION, _ACCESS_KEY, _SECRET_KEY   S3 (default: the local MinIO)
 *   TRIBUTARY_WORKER_CONCURRENCY               shard jobs at once (default 1)
 *   TRIBUTARY_LOCK_MS / TRIBUTARY_STALLED_MS   BullMQ lock and stall check (default 30000)
 *   TRIBUTARY_PHASE_CHECK_MS                   how often a running shard checks for an abort (default 500)
 *   TRIBUTARY_CONNECTIONS_FILE, TRIBUTARY_SOURCE_ROOTS, TRIBUTARY_ALLOW_INLINE_CREDENTIALS
 *                                              what shards may read: the coordinator's settings
 *   TRIBUTARY_CLUSTER_SECRET or _SECRET_FILE   the cluster secret, the coordinator's (required, ≥ 32 bytes)
 *   TRIBUTARY_LOG_LEVEL                        pino level of the JSON log lines on stderr (default info)
 *   TRIBUTARY_METRICS_PORT / _HOST             serve /metrics, /healthz, /readyz there (unset: no listener;
 *                                              0: a free port; host default 127.0.0.1)
 *   TRIBUTARY_WAREHOUSE, TRIBUTARY_S3_BUCKET   where /readyz checks storage (default s3://<bucket>/warehouse)
 *   TRIBUTARY_SHUTDOWN_GRACE_MS                on SIGTERM, how long running shards may finish before they
 *                                              are released to other workers (default 25000)
 * Prints one JSON line `{"worker": "ready", "pid": …, "metrics": url?}` on stdout when ready.
 */
import { readFileSync } from 'node:fs';
import { realpath } from 'node:fs/promises';
import { clusterSecretFromEnv, isTributaryError } from '@tributary/protocol';
import { loadSourceAccess } from '@tributary/sources';
import { pino } from 'pino';
import { serveWorkerHttp } from './http.ts';
import { startShardWorker } from './runtime.ts';

const env = process.env;
const logger = pino({ base: { service: 'worker', pid: process.pid }, level: env.TRIBUTARY_LOG_LEVEL ?? 'info' }, pino.destination({ dest: 2, sync: true }));
let clusterSecret: Uint8Array;
try {
  clusterSecret = clusterSecretFromEnv(env, (path) => readFileSync(path, 'utf8'));
} catch (error) {
  // The message names the variables, never the secret.
  console.error(`worker: ${isTributaryError(error) ? `${error.code}: ` : ''}${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
}
const shardWorker = startShardWorker({
  clusterSecret,
  redis: { host: env.TRIBUTARY_REDIS_HOST ?? '127.0.0.1', port: Number(env.TRIBUTARY_REDIS_PORT ?? 6390) },
  prefix: env.TRIBUTARY_PREFIX ?? 'tributary',
  s3: {
    endpoint: env.TRIBUTARY_S3_ENDPOINT ?? 'http://127.0.0.1:9100',
    region: env.TRIBUTARY_S3_REGION ?? 'us-east-1',
    accessKeyId: env.TRIBUTARY_S3_ACCESS_KEY ?? 'tributary',
    secretAccessKey: env.TRIBUTARY_S3_SECRET_KEY ?? 'tributary-secret',
  },
  sources: loadSourceAccess({ env, readText: (path) => readFileSync(path, 'utf8'), realpath }),
  concurrency: Number(env.TRIBUTARY_WORKER_CONCURRENCY ?? 1),
  lockDurationMs: Number(env.TRIBUTARY_LOCK_MS ?? 30_000),
  stalledIntervalMs: Number(env.TRIBUTARY_STALLED_MS ?? 30_000),
  ...(env.TRIBUTARY_PHASE_CHECK_MS === undefined ? {} : { phaseCheckMs: Number(env.TRIBUTARY_PHASE_CHECK_MS) }),
  logger,
  storageProbe: env.TRIBUTARY_WAREHOUSE ?? `s3://${env.TRIBUTARY_S3_BUCKET ?? 'tributary'}/warehouse`,
});
const metricsPort = env.TRIBUTARY_METRICS_PORT;
const http = metricsPort === undefined || metricsPort === '' ? undefined : await serveWorkerHttp(shardWorker, { host: env.TRIBUTARY_METRICS_HOST, port: Number(metricsPort) });
await shardWorker.worker.waitUntilReady();
console.log(JSON.stringify({ worker: 'ready', pid: process.pid, ...(http === undefined ? {} : { metrics: http.url }) }));
logger.info({ concurrency: shardWorker.worker.concurrency, metrics: http?.url }, 'worker ready');

const graceMs = Number(env.TRIBUTARY_SHUTDOWN_GRACE_MS ?? 25_000);
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    // Stop taking jobs; running shards finish, or after the grace go back to the queue for another worker.
    logger.info({ signal, graceMs }, 'shutting down');
    shardWorker
      .close({ graceMs })
      .then(() => http?.close())
      .then(
        () => {
          logger.info('shut down');
          process.exit(0);
        },
        (error: unknown) => {
          logger.error({ error: error instanceof Error ? error.message : String(error) }, 'shutdown failed');
          process.exit(1);
        },
      );
  });
}
