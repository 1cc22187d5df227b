/**
 * `node bench/sync/running-view.ts [--shards 1000,10000] [--requests 60] [--baseline <checkout>]`:
 * what `GET /v1/syncs/:id` costs for a sync that is still running. Until its shards are frozen the
 * view sums every shard's current attempt, so each request reads every attempt of the sync; and a
 * running sync's view changes with every progress report, so a kept view rarely answers twice.
 *
 * Per size: a PREPARING sync of N shards is stored on the local Redis, with one attempt per shard
 * written through the worker's own attempt ledger (a third still running, the rest succeeded), then
 * a coordinator in this process (`startCoordinator`, not listening: `app.inject`) answers
 * `--requests` views one after the other, a progress report written after every other one, with
 * its kept views off (`apiCacheMs` 0: the cost of a read) and on (the default 1 s). Printed: the
 * median wall and CPU time of a request (the first 5 left out as warm-up). Everything it wrote is
 * removed at the end.
 */
import { parseArgs } from 'node:util';
import { randomUUID } from 'node:crypto';
import pino from 'pino';
import { Redis } from 'ioredis';
import { SyncStore, startCoordinator, type SyncRecord } from '@tributary/coordinator';
import { AttemptLedger } from '@tributary/worker';
import type { ShardAttempt } from '@tributary/protocol';
import { s3Options } from './processes.ts';
import { median } from './stats.ts';

const { values } = parseArgs({ options: { shards: { type: 'string', default: '1000,10000' }, requests: { type: 'string', default: '60' } } });
const redisOptions = { host: process.env.TRIBUTARY_REDIS_HOST ?? '127.0.0.1', port: Number(process.env.TRIBUTARY_REDIS_PORT ?? 6390) };
const bucket = process.env.TRIBUTARY_S3_BUCKET ?? 'tributary';
const requests = Number(values.requests);

function recordOf(id: string, shards: number): SyncRecord {
  return {
    id,
    version: 0,
    plan: {
      table: { database: 'bench', table: 'running_view' },
      mode: 'append',
      source: { kind: 'generator', shards, rowsPerShard: 10 },
      shards: Array.from({ length: shards }, (_, i) => ({ id: `s${String(i).padStart(5, '0')}`, spec: { index: i } })),
      baseSnapshotId: null,
      schemaId: 0,
      commitUser: `tributary-${id}`,
      commitIdentifier: '1',
      options: { maxAttempts: 3, snapshotProperties: {} },
    },
    state: { phase: 'PLANNED' },
    timings: { PLANNED: new Date().toISOString() },
  } as SyncRecord;
}

const at = '2026-01-01T00:00:01.000Z';
const attempt = (shardId: string, running: boolean, rows: number): ShardAttempt =>
  ({ shardId, attemptId: '1', status: running ? 'running' : 'succeeded', rows, bytes: rows * 10, startedAt: at, updatedAt: at, ...(running ? {} : { finishedAt: at }) }) as ShardAttempt;

const redis = new Redis({ ...redisOptions, maxRetriesPerRequest: null });
const prefix = `bench-running-view-${randomUUID().slice(0, 8)}`;
try {
  const store = new SyncStore(redis, prefix);
  for (const shards of values.shards.split(',').map(Number)) {
    const id = `running-${shards}`;
    const record = recordOf(id, shards);
    await store.create(record, Date.now());
    await store.apply(id, { type: 'start' });
    const ledger = new AttemptLedger(redis, prefix, id);
    for (let i = 0; i < shards; i += 500) {
      await Promise.all(
        record.plan.shards.slice(i, i + 500).map(async (s, j) => {
          await ledger.nextAttempt(s.id);
          await ledger.report(attempt(s.id, (i + j) % 3 === 0, 10));
        }),
      );
    }
    for (const apiCacheMs of [0, 1000]) {
      const c = await startCoordinator({
        redis: redisOptions,
        prefix,
        warehouse: `s3://${bucket}/${prefix}`,
        s3: s3Options(),
        clusterSecret: new Uint8Array(32).fill(7),
        testMode: true,
        logger: pino({ level: 'silent' }),
        apiCacheMs,
      });
      try {
        const wall: number[] = [];
        const cpu: number[] = [];
        for (let i = 0; i < requests; i++) {
          const t0 = performance.now();
          const u0 = process.cpuUsage();
          const response = await c.app.inject({ method: 'GET', url: `/v1/syncs/${id}` });
          const u = process.cpuUsage(u0);
          if (response.statusCode !== 200) throw new Error(`GET /v1/syncs/${id} → ${response.statusCode}`);
          wall.push(performance.now() - t0);
          cpu.push((u.user + u.system) / 1000);
          if (i % 2 === 0) await ledger.progress(attempt(record.plan.shards[0]!.id, true, 11 + i));
        }
        console.log(
          `${shards.toLocaleString('en')} shards, kept views ${apiCacheMs === 0 ? 'off' : 'on '}: per request median ${median(wall.slice(5)).toFixed(2)} ms wall, ${median(cpu.slice(5)).toFixed(2)} ms CPU (a progress report after every other request)`,
        );
      } finally {
        await c.close();
      }
    }
  }
} finally {
  const keys = await redis.keys(`${prefix}*`);
  for (let i = 0; i < keys.length; i += 500) await redis.del(...keys.slice(i, i + 500));
  await redis.quit();
}
