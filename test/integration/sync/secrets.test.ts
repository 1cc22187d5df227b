/**
 * No secret leaves the processes that need it. A MySQL sync runs through a named connection whose
 * password (distinctive, of a MariaDB user made for this test) sits in a password file; the
 * coordinator and the workers are real processes. Then every place a secret could land is searched
 * for the password, as text, base64, base64url and hex: every Redis key and value (SCAN, read by
 * type), every job's payload, return value and failure, every object under the test's prefixes in
 * MinIO (data files, blobs, manifests, snapshots, outcome.json), everything the processes printed,
 * every API response of the test and the bull-board API's JSON. A request that carries the password
 * inline is refused, and is part of what is searched.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { ChildProcess } from 'node:child_process';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { createConnection, type Connection } from 'mysql2/promise';
import type { SyncRecord } from '@tributary/coordinator';
import { openObjectStore } from '@tributary/table';
import { services } from '@tributary/testkit';
import { outputOf, s3, spawnListeningCoordinator, spawnWorker, stop, syncEnv, waitForPhase } from './harness.ts';

const PASSWORD = `Tr1b-secret-${randomBytes(12).toString('hex')}`;

const HOSTS = ['%', 'localhost'];

/** The forms a leaked password could take. */
const NEEDLES = [PASSWORD, Buffer.from(PASSWORD).toString('base64'), Buffer.from(PASSWORD).toString('base64url'), Buffer.from(PASSWORD).toString('hex')].map((n) => Buffer.from(n));

function leaks(haystack: Uint8Array | string): boolean {
  const bytes = typeof haystack === 'string' ? Buffer.from(haystack) : Buffer.from(haystack.buffer, haystack.byteOffset, haystack.byteLength);
  return NEEDLES.some((n) => bytes.includes(n) || bytes.toString('latin1').toLowerCase().includes(n.toString('latin1').toLowerCase()));
}

describe('secrets: a MySQL sync by named connection leaves its password nowhere', () => {
  const dir = mkdtempSync(join(tmpdir(), 'tributary-secrets-'));
  const passwordFile = join(dir, 'orders-db.password');
  const suffix = randomBytes(4).toString('hex');
  const database = `secret_${suffix}`;
  const user = `trib_secret_${suffix}`;
  const e = syncEnv('secrets', {
    connections: { 'orders-db': { kind: 'mysql', host: services.mariadb.host, port: services.mariadb.port, user, passwordFile } },
  });
  const processes: ChildProcess[] = [];
  const responses: string[] = [];
  let admin: Connection;
  let url = '';
  let syncId = '';

  const request = async (method: string, path: string, body?: unknown): Promise<{ status: number; text: string }> => {
    const response = await fetch(`${url}${path}`, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    responses.push(`${method} ${path} ${response.status} ${JSON.stringify([...response.headers])} ${text}`);
    return { status: response.status, text };
  };

  before(async () => {
    writeFileSync(passwordFile, `${PASSWORD}\n`, { mode: 0o600 });
    admin = await createConnection({ ...services.mariadb });
    await admin.query(`CREATE DATABASE \`${database}\``);
    await admin.query(`CREATE TABLE \`${database}\`.orders_0 (id BIGINT NOT NULL PRIMARY KEY, name VARCHAR(32))`);
    await admin.query(`INSERT INTO \`${database}\`.orders_0 SELECT seq, CONCAT('n', seq) FROM \`${database}\`.seq_1_to_500`);
    // Also @localhost: MariaDB's anonymous ''@localhost would otherwise take a loopback login.
    for (const host of HOSTS) {
      await admin.query(`CREATE USER '${user}'@'${host}' IDENTIFIED BY '${PASSWORD}'`);
      await admin.query(`GRANT SELECT ON \`${database}\`.* TO '${user}'@'${host}'`);
    }
    const coordinator = await spawnListeningCoordinator(e);
    processes.push(coordinator.child, ...(await Promise.all([spawnWorker(e), spawnWorker(e)])));
    url = coordinator.url;
  });

  after(async () => {
    await Promise.all(processes.map((p) => stop(p)));
    for (const host of HOSTS) await admin?.query(`DROP USER IF EXISTS '${user}'@'${host}'`);
    await admin?.query(`DROP DATABASE IF EXISTS \`${database}\``);
    await admin?.end();
    rmSync(dir, { recursive: true, force: true });
  });

  test('the sync commits through the named connection; an inline password is refused', async () => {
    const created = await request('POST', '/v1/tables', { database: 'shop', name: 'orders', columns: [{ name: 'id', type: 'BIGINT NOT NULL' }, { name: 'name', type: 'STRING' }], primaryKeys: ['id'], bucket: 2 });
    assert.equal(created.status, 201, created.text);
    const source = { kind: 'mysql', connection: 'orders-db', databases: [database], tables: 'orders_%', splitRows: 100 };
    const started = await request('POST', '/v1/syncs', { table: { database: 'shop', table: 'orders' }, source });
    assert.equal(started.status, 202, started.text);
    syncId = (JSON.parse(started.text) as { id: string }).id;
    const done = await waitForPhase(async () => JSON.parse((await request('GET', `/v1/syncs/${syncId}`)).text) as SyncRecord, ['COMMITTED', 'ABORTED'], 60_000);
    assert.equal(done.state.phase, 'COMMITTED', JSON.stringify(done.state));
    const shards = JSON.parse((await request('GET', `/v1/syncs/${syncId}/shards`)).text) as { shards: unknown[] };
    assert.equal(shards.shards.length, 5);
    const table = JSON.parse((await request('GET', '/v1/tables/shop/orders')).text) as { rowCount: number };
    assert.equal(table.rowCount, 500);
    await request('GET', '/v1/syncs');

    const inline = { kind: 'mysql', host: services.mariadb.host, port: services.mariadb.port, user, password: PASSWORD, databases: [database], tables: 'orders_%' };
    const refused = await request('POST', '/v1/syncs', { table: { database: 'shop', table: 'orders' }, source: inline });
    assert.equal(refused.status, 400, refused.text);
    assert.equal((JSON.parse(refused.text) as { code: string }).code, 'SOURCE_CREDENTIALS_INLINE');
    const schedule = (s: unknown) => request('PUT', `/v1/schedules/${e.prefix}`, { cron: '0 0 1 1 *', enabled: false, sync: { table: { database: 'shop', table: 'orders' }, source: s } });
    assert.equal((await schedule(inline)).status, 400);
    assert.equal((await schedule(source)).status, 201);
    await request('GET', '/v1/schedules');
    await request('GET', `/v1/schedules/${e.prefix}`);
    assert.equal((await request('DELETE', `/v1/schedules/${e.prefix}`)).status, 204);

    // The dashboard's API: every queue's latest jobs, and each job's detail.
    for (const queue of ['write-shard', 'commit', 'schedules']) {
      const list = await request('GET', `/admin/queues/api/queues?activeQueue=${queue}&status=latest&page=1&jobsPerPage=100`);
      assert.equal(list.status, 200, list.text);
      const queues = (JSON.parse(list.text) as { queues: { name: string; jobs: { id: string }[] }[] }).queues;
      for (const job of queues.find((q) => q.name === queue)?.jobs ?? []) await request('GET', `/admin/queues/api/queues/${queue}/${encodeURIComponent(job.id)}`);
    }
    // A shard job carries no source (the worker reads it from the persisted plan), so its view names the sync.
    assert.ok(responses.some((r) => r.includes(syncId) && r.includes('/admin/queues/api/queues/write-shard/')), 'the dashboard shows the shard jobs');
  });

  test('the password is in no Redis value, job, object, process output or API response', async () => {
    assert.ok(syncId !== '', 'the sync ran');
    // Redis, all of it (SCAN, each key read by its type), and the jobs as BullMQ returns them.
    const redis = new Redis(services.redis);
    const found: string[] = [];
    let keys = 0;
    let sawPlan = false;
    try {
      let cursor = '0';
      do {
        const [next, batch] = await redis.scanBuffer(cursor, 'COUNT', 1000);
        cursor = next.toString();
        for (const key of batch) {
          keys++;
          const values = await dump(redis, key);
          const joined = Buffer.concat([key, ...values]);
          if (leaks(joined)) found.push(`redis ${key.toString()}`);
          if (key.toString().startsWith(`${e.prefix}:`) && joined.includes(Buffer.from('orders-db'))) sawPlan = true;
        }
      } while (cursor !== '0');
      for (const name of ['write-shard', 'commit', 'schedules']) {
        const queue = new Queue(name, { connection: services.redis, prefix: e.prefix });
        for (const job of await queue.getJobs(['completed', 'failed', 'active', 'waiting', 'delayed', 'prioritized', 'waiting-children'])) {
          if (leaks(JSON.stringify([job.data, job.returnvalue, job.failedReason, job.stacktrace, job.progress, job.opts]))) found.push(`job ${name} ${job.id ?? ''}`);
        }
        await queue.close();
      }
    } finally {
      redis.disconnect();
    }
    assert.ok(sawPlan, 'the sync record and jobs were read (they name the connection)');

    // Every object under the test's prefixes: the warehouse (tables, blobs, outcome.json) and beside it.
    const bucket = openObjectStore(`s3://${services.s3.bucket}`, s3);
    let objects = 0;
    for await (const o of bucket.list(e.prefix)) {
      objects++;
      if (leaks(await bucket.get(o.key)) || leaks(o.key)) found.push(`object ${o.key}`);
    }
    assert.ok(objects > 10, `${objects} objects`);
    assert.ok(await bucket.stat(`${e.prefix}/.tributary/syncs/${syncId}/outcome.json`), 'outcome.json was written');

    // What the processes printed, and every API answer of the test.
    await Promise.all(processes.map((p) => stop(p)));
    for (const p of processes) if (leaks(outputOf(p))) found.push(`output of process ${p.pid ?? '?'}`);
    assert.ok(outputOf(processes[0] as ChildProcess).includes('listening'));
    for (const r of responses) if (leaks(r)) found.push(`response ${r.slice(0, 80)}`);
    assert.ok(responses.length >= 15, `${responses.length} responses`);

    assert.deepEqual(found, [], `the password leaked (searched ${keys} Redis keys, ${objects} objects, ${responses.length} responses)`);
  });
});

/** A key's contents as byte strings, read according to its type. */
async function dump(redis: Redis, key: Buffer): Promise<Buffer[]> {
  const type = await redis.type(key);
  switch (type) {
    case 'string':
      return [(await redis.getBuffer(key)) ?? Buffer.alloc(0)];
    case 'hash':
      return Object.entries(await redis.hgetallBuffer(key)).flatMap(([k, v]) => [Buffer.from(k), v]);
    case 'list':
      return redis.lrangeBuffer(key, 0, -1);
    case 'set':
      return redis.smembersBuffer(key);
    case 'zset':
      return redis.zrangeBuffer(key, '0', '-1', 'WITHSCORES');
    case 'stream':
      return (await redis.xrangeBuffer(key, '-', '+')).flatMap(([id, fields]) => [id, ...fields]);
    case 'none':
      return [];
    default:
      throw new Error(`Redis key ${key.toString()} has type ${type}, which this dump cannot read`);
  }
}
