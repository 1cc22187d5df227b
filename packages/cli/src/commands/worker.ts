/**
 * `tributary worker`: starts a shard worker process. Prints one JSON line `{"worker": "ready"}` on
 * stdout when ready; a bad configuration exits 1 (as the worker always has), Redis or S3
 * unreachable past `startupTimeoutMs` exits 3.
 */
import { startShardWorker } from '@tributary/worker';
import type { Config } from '../config/keys.ts';
import { awaitServices, commonSettings, refuse, type Common } from './services.ts';

const who = 'worker';

export async function runWorker(config: Config): Promise<void> {
  let common: Common;
  try {
    common = commonSettings(config);
  } catch (error) {
    refuse(who, error, 1);
  }
  // Workers take each sync's warehouse from its plan; the configured bucket proves S3 is there.
  await awaitServices(who, config, common, `s3://${config['s3.bucket']}`);

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
    log: (message) => console.error(`[worker ${process.pid}] ${message}`),
  });
  await shardWorker.worker.waitUntilReady();
  console.log(JSON.stringify({ worker: 'ready', pid: process.pid }));

  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      void shardWorker.close().then(() => process.exit(0));
    });
  }
}
