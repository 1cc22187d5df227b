/**
 * A worker's two queues are sized apart: `bucketConcurrency` bucket jobs (bucketed layout) at once
 * beside `concurrency` shard jobs; without it, bucket jobs take the shard jobs' concurrency.
 * Real Redis: the BullMQ workers connect as in production.
 */
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { test } from 'node:test';
import { startShardWorker } from '@tributary/worker';
import { services } from '@tributary/testkit';

test('bucket jobs have their own concurrency; unset, they take the shard jobs\'', async () => {
  const prefix = `t-wconc-${randomUUID()}`;
  const clusterSecret = randomBytes(32);
  const redis = { host: services.redis.host, port: services.redis.port };
  const apart = startShardWorker({ redis, prefix, clusterSecret, concurrency: 2, bucketConcurrency: 5 });
  const same = startShardWorker({ redis, prefix, clusterSecret, concurrency: 3 });
  try {
    await Promise.all([apart.worker.waitUntilReady(), apart.bucketWorker.waitUntilReady(), same.bucketWorker.waitUntilReady()]);
    assert.equal(apart.worker.concurrency, 2);
    assert.equal(apart.bucketWorker.concurrency, 5);
    assert.equal(same.worker.concurrency, 3);
    assert.equal(same.bucketWorker.concurrency, 3);
  } finally {
    await Promise.all([apart.close(), same.close()]);
  }
});
