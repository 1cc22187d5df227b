/**
 * Starts a coordinator and listens. Configuration from the environment:
 *   TRIBUTARY_HOST / TRIBUTARY_PORT            HTTP address (default 127.0.0.1:8080)
 *   TRIBUTARY_REDIS_HOST / TRIBUTARY_REDIS_PORT  Redis (default 127.0.0.1:6390)
 *   TRIBUTARY_PREFIX                           key prefix of syncs and queues (default tributary)
 *   TRIBUTARY_WAREHOUSE                        s3://bucket/prefix or file:///path (default s3://<bucket>/warehouse)
 *   TRIBUTARY_S3_ENDPOINT, _REGION, _ACCESS_KEY, _SECRET_KEY, _BUCKET   S3 (default: the local MinIO)
 *   TRIBUTARY_LOCK_MS / TRIBUTARY_STALLED_MS   BullMQ lock and stall check of the commit job (30000)
 *   TRIBUTARY_AUTH_TOKENS / TRIBUTARY_AUTH_TOKENS_FILE   bearer tokens as `role:sha256hex` or
 *                                              `role:name:sha256hex` entries (see README); none: open,
 *                                              which is refused unless TRIBUTARY_HOST is loopback
 *   TRIBUTARY_AUTH_PUBLIC                      routes open to anyone (default /healthz; e.g. /healthz,/readyz,/metrics)
 *   TRIBUTARY_RATE_LIMIT / TRIBUTARY_RATE_WINDOW_MS   requests per window per token (6000 / 60000)
 *   TRIBUTARY_MAX_SHARDS                       shards per sync (10000)
 *   TRIBUTARY_MAX_ACTIVE_SYNCS[_PER_TABLE]     syncs not yet COMMITTED or ABORTED at once (64, per table 8)
 *   TRIBUTARY_CLUSTER_SECRET or _SECRET_FILE   the cluster secret shared with the workers (required,
 *                                              ≥ 32 bytes; signs shard jobs, checks blobs)
 *   TRIBUTARY_ABORT_GRACE_MS                   how long an abort waits for running shards (10000)
 *   TRIBUTARY_CONNECTIONS_FILE, TRIBUTARY_SOURCE_ROOTS, TRIBUTARY_ALLOW_INLINE_CREDENTIALS
 *                                              what syncs may read (see loadSourceAccess and README.md)
 *   TRIBUTARY_LOG_LEVEL                        pino level of the JSON log lines on stderr (default info)
 *   TRIBUTARY_TEST_MODE=1                      tests only: accept test hooks (generator `faults`) and
 *   TRIBUTARY_FAULT_KILL_AT                    before-publish | after-publish: SIGKILL at that point of a commit
 * Prints one JSON line `{"listening": "http://…"}` on stdout when ready.
 */
import { readFileSync } from 'node:fs';
import { realpath } from 'node:fs/promises';
import { clusterSecretFromEnv, isTributaryError } from '@tributary/protocol';
import { loadSourceAccess, type SourceAccess } from '@tributary/sources';
import { pino } from 'pino';
import { startCoordinator } from './runtime.ts';
import { isLoopback } from './loopback.ts';
import { securityFromEnv, type SecurityConfig } from './server-config.ts';

const env = process.env;
// Log lines carry ids, phases, codes and durations; the paths below are never logged, and are
// removed should a future line carry them by mistake.
const logger = pino(
  {
    base: { service: 'coordinator', pid: process.pid },
    level: env.TRIBUTARY_LOG_LEVEL ?? 'info',
    redact: { paths: ['headers.authorization', 'headers.cookie', '*.headers.authorization', '*.headers.cookie', '*.secretAccessKey', '*.password'], censor: '[redacted]' },
  },
  pino.destination({ dest: 2, sync: true }),
);
const bucket = env.TRIBUTARY_S3_BUCKET ?? 'tributary';
const host = env.TRIBUTARY_HOST ?? '127.0.0.1';

/** Refuses to start, on stderr, with a non-zero exit: a configuration error is never a stack trace. */
function refuse(message: string): never {
  console.error(`coordinator: ${message}`);
  process.exit(2);
}

let clusterSecret: Uint8Array;
try {
  clusterSecret = clusterSecretFromEnv(env, (path) => readFileSync(path, 'utf8'));
} catch (error) {
  // The message names the variables, never the secret.
  refuse(isTributaryError(error) ? `${error.code}: ${error.message}` : String(error));
}

let security: SecurityConfig;
let sources: SourceAccess;
try {
  security = securityFromEnv(env);
  sources = loadSourceAccess({ env, readText: (path) => readFileSync(path, 'utf8'), realpath });
} catch (error) {
  refuse(isTributaryError(error) ? `${error.code}: ${error.message}` : String(error));
}
if (security.auth.tokens.length === 0) {
  if (!isLoopback(host)) {
    refuse(
      `AUTH_NOT_CONFIGURED: no token is configured (TRIBUTARY_AUTH_TOKENS or TRIBUTARY_AUTH_TOKENS_FILE), so the coordinator will not listen on ${host}; configure a token or listen on loopback`,
    );
  }
  logger.warn({ host }, 'authentication is OFF: no token configured; anyone who reaches this address may do everything (allowed on loopback only)');
}

const coordinator = await startCoordinator({
  clusterSecret,
  redis: { host: env.TRIBUTARY_REDIS_HOST ?? '127.0.0.1', port: Number(env.TRIBUTARY_REDIS_PORT ?? 6390) },
  prefix: env.TRIBUTARY_PREFIX ?? 'tributary',
  warehouse: env.TRIBUTARY_WAREHOUSE ?? `s3://${bucket}/warehouse`,
  s3: {
    endpoint: env.TRIBUTARY_S3_ENDPOINT ?? 'http://127.0.0.1:9100',
    region: env.TRIBUTARY_S3_REGION ?? 'us-east-1',
    accessKeyId: env.TRIBUTARY_S3_ACCESS_KEY ?? 'tributary',
    secretAccessKey: env.TRIBUTARY_S3_SECRET_KEY ?? 'tributary-secret',
  },
  sources,
  lockDurationMs: Number(env.TRIBUTARY_LOCK_MS ?? 30_000),
  stalledIntervalMs: Number(env.TRIBUTARY_STALLED_MS ?? 30_000),
  ...(env.TRIBUTARY_ABORT_GRACE_MS === undefined ? {} : { abortGraceMs: Number(env.TRIBUTARY_ABORT_GRACE_MS) }),
  logger,
  faultPoint: (point) => {
    if (security.testMode && env.TRIBUTARY_FAULT_KILL_AT === point) process.kill(process.pid, 'SIGKILL');
  },
  auth: security.auth,
  rateLimit: security.rateLimit,
  limits: security.limits,
  testMode: security.testMode,
});
const address = await coordinator.app.listen({ host, port: Number(env.TRIBUTARY_PORT ?? 8080) });
console.log(JSON.stringify({ listening: address }));

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    // Refuses new syncs at once, finishes the commits in flight, then exits 0.
    logger.info({ signal }, 'shutting down');
    coordinator.close().then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error({ error: error instanceof Error ? error.message : String(error) }, 'close failed');
        process.exit(1);
      },
    );
  });
}
