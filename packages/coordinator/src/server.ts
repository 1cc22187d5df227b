/**
 * Starts a coordinator and listens. Configuration from the environment:
 *   TRIBUTARY_HOST / TRIBUTARY_PORT            HTTP address (default 127.0.0.1:8080)
 *   TRIBUTARY_REDIS_HOST / TRIBUTARY_REDIS_PORT  Redis (default 127.0.0.1:6390)
 *   TRIBUTARY_PREFIX                           key prefix of syncs and queues (default tributary)
 *   TRIBUTARY_WAREHOUSE                        s3://bucket/prefix or file:///path (default s3://<bucket>/warehouse)
 *   TRIBUTARY_S3_ENDPOINT, _REGION, _ACCESS_KEY, _SECRET_KEY, _BUCKET   S3 (default: the local MinIO)
 *   TRIBUTARY_LOCK_MS / TRIBUTARY_STALLED_MS   BullMQ lock and stall check of the commit job (30000)
 *   TRIBUTARY_ABORT_GRACE_MS                   how long an abort waits for running shards (10000)
 *   TRIBUTARY_FAULT_KILL_AT                    crash tests only: before-publish | after-publish makes the
 *                                              process SIGKILL itself at that point of a commit
 * Prints one JSON line `{"listening": "http://…"}` on stdout when ready.
 */
import { startCoordinator } from './runtime.ts';

const env = process.env;
const bucket = env.TRIBUTARY_S3_BUCKET ?? 'tributary';
const coordinator = await startCoordinator({
  redis: { host: env.TRIBUTARY_REDIS_HOST ?? '127.0.0.1', port: Number(env.TRIBUTARY_REDIS_PORT ?? 6390) },
  prefix: env.TRIBUTARY_PREFIX ?? 'tributary',
  warehouse: env.TRIBUTARY_WAREHOUSE ?? `s3://${bucket}/warehouse`,
  s3: {
    endpoint: env.TRIBUTARY_S3_ENDPOINT ?? 'http://127.0.0.1:9100',
    region: env.TRIBUTARY_S3_REGION ?? 'us-east-1',
    accessKeyId: env.TRIBUTARY_S3_ACCESS_KEY ?? 'tributary',
    secretAccessKey: env.TRIBUTARY_S3_SECRET_KEY ?? 'tributary-secret',
  },
  lockDurationMs: Number(env.TRIBUTARY_LOCK_MS ?? 30_000),
  stalledIntervalMs: Number(env.TRIBUTARY_STALLED_MS ?? 30_000),
  ...(env.TRIBUTARY_ABORT_GRACE_MS === undefined ? {} : { abortGraceMs: Number(env.TRIBUTARY_ABORT_GRACE_MS) }),
  log: (message) => console.error(`[coordinator] ${message}`),
  faultPoint: (point) => {
    if (env.TRIBUTARY_FAULT_KILL_AT === point) process.kill(process.pid, 'SIGKILL');
  },
});
const address = await coordinator.app.listen({ host: env.TRIBUTARY_HOST ?? '127.0.0.1', port: Number(env.TRIBUTARY_PORT ?? 8080) });
console.log(JSON.stringify({ listening: address }));

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    coordinator.close().then(
      () => process.exit(0),
      (error: unknown) => {
        console.error(`coordinator: close failed: ${error instanceof Error ? error.message : String(error)}`);
        process.exit(1);
      },
    );
  });
}
