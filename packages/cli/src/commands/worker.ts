/**
 * `tributary worker`: starts a shard worker process. Prints one JSON line `{"worker": "ready"}` on
 * stdout when ready; a bad configuration exits 1 (as the worker always has), Redis or S3
 * unreachable past `startupTimeoutMs` exits 3.
 */
import { serveWorkerHttp, startShardWorker } from '@tributary/worker';
import type { Config } from '../config/keys.ts';
import { awaitServices, commonSettings, exitAfterLog, processLogger, refuse, stopBounded, type Common } from './services.ts';

const who = 'worker';

export async function runWorker(config: Config): Promise<void> {
  const logger = processLogger('worker', config);
  let common: Common;
  try {
    common = commonSettings(config);
  } catch (error) {
    return refuse(who, error, 1);
  }
  // Workers take each sync's warehouse from its plan; the configured bucket proves S3 is there.
  await awaitServices(who, logger, config, common, `s3://${config['s3.bucket']}`);

  const shardWorker = startShardWorker({
    clusterSecret: common.clusterSecret,
    redis: common.redis,
    prefix: config.prefix,
    s3: common.s3,
    sources: common.sources,
    concurrency: config['worker.concurrency'],
    lockDurationMs: config.lockMs,
    stalledIntervalMs: config.stalledMs,
    phaseCheckMs: config['worker.phaseCheckMs'],
    runBufferRows: config['worker.runBufferRows'],
    runBufferBytes: config['worker.runBufferBytes'],
    ...(config['worker.bucketConcurrency'] === undefined ? {} : { bucketConcurrency: config['worker.bucketConcurrency'] }),
    ...(config['worker.testMergeDelayMs'] > 0 ? { mergeDelayMsPerBatch: config['worker.testMergeDelayMs'] } : {}),
    logger,
    // Where /readyz checks storage.
    storageProbe: config.warehouse ?? `s3://${config['s3.bucket']}/warehouse`,
  });
  const metricsPort = config['worker.metricsPort'];
  const http = metricsPort === undefined ? undefined : await serveWorkerHttp(shardWorker, { host: config['worker.metricsHost'], port: metricsPort });
  await shardWorker.worker.waitUntilReady();

  // The signal handlers before the ready line: a supervisor may stop it as soon as it reads that line.
  const graceMs = config.shutdownGraceMs;
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      stopBounded(logger, graceMs);
      // Stop taking jobs; running shards finish, or after the grace go back to the queue for another worker.
      logger.info({ signal, graceMs }, 'shutting down');
      shardWorker
        .close({ graceMs })
        .then(() => http?.close())
        .then(
          () => {
            logger.info('shut down');
            void exitAfterLog(0);
          },
          (error: unknown) => {
            logger.error({ error: error instanceof Error ? error.message : String(error) }, 'shutdown failed');
            void exitAfterLog(1);
          },
        );
    });
  }
  console.log(JSON.stringify({ worker: 'ready', pid: process.pid, ...(http === undefined ? {} : { metrics: http.url }) }));
  logger.info({ concurrency: shardWorker.worker.concurrency, metrics: http?.url }, 'worker ready');
}
