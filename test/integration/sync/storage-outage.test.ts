/**
 * The object store out of reach of the workers for longer than a few seconds, with real worker
 * processes whose S3 endpoint is a TCP proxy this test cuts (every connection closed at once) and restores:
 * 1. in PREPARING: the shard jobs fail their attempts with STORAGE_UNAVAILABLE while it lasts;
 * 2. in MERGING: so do the bucket jobs.
 * In both the outage lasts until three attempts of one job have failed (the whole retry budget
 * before five attempts were the default: such a sync used to abort); once the store is back the
 * sync commits, and Paimon's readers find each source row exactly once.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import type { ChildProcess } from 'node:child_process';
import type { Coordinator } from '@tributary/coordinator';
import type { ShardAttempt } from '@tributary/protocol';
import { services } from '@tributary/testkit';
import {
  createOrdersTable,
  generatorSource,
  inProcessCoordinator,
  oneTo,
  pypaimonIds,
  readRows,
  spawnWorker,
  stop,
  syncEnv,
  waitForPhase,
  waitUntil,
} from './harness.ts';

/** A TCP proxy to MinIO that can refuse every connection for a while (an outage) and carry them again. */
class CuttableProxy {
  readonly #server: Server;
  readonly #open = new Set<Socket>();
  #cut = false;

  private constructor(server: Server) {
    this.#server = server;
  }

  static async start(target: URL): Promise<CuttableProxy> {
    let proxy: CuttableProxy | undefined;
    const server = createServer((client) => proxy?.accept(client, target));
    proxy = new CuttableProxy(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return proxy;
  }

  get endpoint(): string {
    return `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
  }

  accept(client: Socket, target: URL): void {
    client.on('error', () => {});
    if (this.#cut) {
      client.destroy();
      return;
    }
    const upstream = connect(Number(target.port), target.hostname);
    upstream.on('error', () => client.destroy());
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
    this.#open.add(client).add(upstream);
    client.once('close', () => this.#open.delete(client));
    upstream.once('close', () => this.#open.delete(upstream));
    client.pipe(upstream).pipe(client);
  }

  /** From now on every connection is closed as soon as it is made, and those open are closed. */
  cut(): void {
    this.#cut = true;
    for (const socket of this.#open) socket.destroy();
  }

  restore(): void {
    this.#cut = false;
  }

  async close(): Promise<void> {
    this.cut();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }
}

/** Waits until some job has `count` failed attempts whose error is the store's unavailability; returns them. */
async function failedAttempts(read: () => Promise<ShardAttempt[]>, count: number, what: string): Promise<ShardAttempt[]> {
  return waitUntil(
    async () => {
      const byJob = new Map<string, ShardAttempt[]>();
      for (const a of await read()) if (a.status === 'failed') byJob.set(a.shardId, [...(byJob.get(a.shardId) ?? []), a]);
      return [...byJob.values()].find((failed) => failed.length >= count);
    },
    `${count} failed attempts of one ${what} job`,
    90_000,
  );
}

describe('the object store out of reach of the workers for a while (real worker processes)', () => {
  const e = syncEnv('outage');
  let coordinator: Coordinator;
  let proxy: CuttableProxy;
  let worker: ChildProcess;

  before(async () => {
    coordinator = await inProcessCoordinator(e);
    proxy = await CuttableProxy.start(new URL(services.s3.endpoint));
    worker = await spawnWorker(e, { TRIBUTARY_S3_ENDPOINT: proxy.endpoint });
  });
  after(async () => {
    await stop(worker);
    await proxy.close();
    await coordinator.close();
  });

  async function assertExact(table: string, total: number): Promise<void> {
    const ids = (await readRows(e, 'shop', table)).map((r) => r[0] as bigint).sort((a, b) => Number(a - b));
    assert.deepEqual(ids, oneTo(total), 'each source row exactly once');
    assert.deepEqual(await pypaimonIds(e, 'shop', table), oneTo(total), 'pypaimon reads each source row exactly once');
  }

  test('an outage in PREPARING: the shard jobs retry until the store is back, and the sync commits', async () => {
    await createOrdersTable(coordinator, 'shop', 'prepare_outage', { primaryKeys: ['order_id'], bucket: 2 });
    proxy.cut();
    const response = await coordinator.app.inject({
      method: 'POST',
      url: '/v1/syncs',
      payload: { table: { database: 'shop', table: 'prepare_outage' }, source: generatorSource(2, 500), mode: 'upsert' },
    });
    assert.equal(response.statusCode, 202, response.body);
    const { id } = response.json<{ id: string }>();
    assert.equal((await coordinator.syncs.get(id)).plan.options.maxAttempts, 5, 'the default attempts');
    try {
      const failed = await failedAttempts(() => coordinator.store.attempts(id), 3, 'shard');
      assert.ok(failed.every((a) => a.error?.code === 'STORAGE_UNAVAILABLE'), JSON.stringify(failed));
      assert.equal((await coordinator.syncs.get(id)).state.phase, 'PREPARING', 'three failed attempts do not end the sync');
    } finally {
      proxy.restore();
    }
    const done = await waitForPhase(() => coordinator.syncs.get(id), ['COMMITTED', 'ABORTED'], 90_000);
    assert.equal(done.state.phase, 'COMMITTED', JSON.stringify(done.state));
    await assertExact('prepare_outage', 1000);
  });

  test('an outage in MERGING: the bucket jobs retry until the store is back, and the sync commits', async () => {
    await createOrdersTable(coordinator, 'shop', 'merge_outage', { primaryKeys: ['order_id'], bucket: 2 });
    const response = await coordinator.app.inject({
      method: 'POST',
      url: '/v1/syncs',
      payload: { table: { database: 'shop', table: 'merge_outage' }, source: generatorSource(2, 500), mode: 'upsert' },
    });
    assert.equal(response.statusCode, 202, response.body);
    const { id } = response.json<{ id: string }>();
    // Every shard's attempt succeeded: its runs and blob are written, and no bucket job has run yet.
    await waitUntil(async () => {
      const attempts = await coordinator.store.attempts(id);
      return attempts.filter((a) => a.status === 'succeeded').length === 2;
    }, 'both shards written');
    proxy.cut();
    try {
      const failed = await failedAttempts(() => coordinator.store.bucketAttempts(id), 3, 'bucket');
      assert.ok(failed.every((a) => a.error?.code === 'STORAGE_UNAVAILABLE'), JSON.stringify(failed));
      assert.equal((await coordinator.syncs.get(id)).state.phase, 'MERGING', 'three failed attempts do not end the sync');
    } finally {
      proxy.restore();
    }
    const done = await waitForPhase(() => coordinator.syncs.get(id), ['COMMITTED', 'ABORTED'], 90_000);
    assert.equal(done.state.phase, 'COMMITTED', JSON.stringify(done.state));
    await assertExact('merge_outage', 1000);
  });
});
