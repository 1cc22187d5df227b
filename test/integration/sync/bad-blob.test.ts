/**
 * A corrupted blob, and a blob from another sync, in place of a shard's own blob.
 * The worker runs in this process over a store that swaps the bytes of one shard's blob as it is
 * written (a fault at the storage edge); the commit must refuse it with the typed reason, commit
 * nothing, and remove the staged files.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Coordinator } from '@tributary/coordinator';
import { startShardWorker, type ShardWorker, type WorkerTables } from '@tributary/worker';
import { warehouseTables, type ObjectBody, type ObjectStore } from '@tributary/table';
import { services } from '@tributary/testkit';
import { LAYOUTS, createOrdersTable, generatorSource, inProcessCoordinator, listKeys, oneTo, pypaimonIds, s3, syncEnv, waitForPhase, FAST_LOCKS } from './harness.ts';

type Swap = (key: string, bytes: Uint8Array) => Uint8Array;

async function bytesOf(body: ObjectBody): Promise<Uint8Array> {
  if (body instanceof Uint8Array) return body;
  const chunks: Uint8Array[] = [];
  for await (const chunk of body as AsyncIterable<Uint8Array>) chunks.push(chunk);
  return Buffer.concat(chunks);
}

/** The real store, except that `put` of a blob goes through `swap`. */
function swappingStore(store: ObjectStore, swap: () => Swap | undefined): ObjectStore {
  return new Proxy(store, {
    get(target, property, receiver) {
      if (property === 'put') {
        return async (key: string, body: ObjectBody) => {
          const fault = swap();
          if (fault === undefined || !key.endsWith('.blob')) return target.put(key, body);
          return target.put(key, fault(key, await bytesOf(body)));
        };
      }
      const value: unknown = Reflect.get(target, property, receiver);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

for (const layout of LAYOUTS) describe(`case 8: blobs that must not be committed (layout ${layout})`, () => {
  const e = syncEnv(`blob-${layout}`);
  let coordinator: Coordinator;
  let worker: ShardWorker;
  let fault: Swap | undefined;

  before(async () => {
    coordinator = await inProcessCoordinator(e);
    const real = warehouseTables(s3);
    const tables: WorkerTables = {
      openTable: (warehouse, ref, schemaId) => real.openTable(warehouse, ref, schemaId),
      warehouseStore: (warehouse) => swappingStore(real.warehouseStore(warehouse), () => fault),
    };
    worker = startShardWorker({ redis: services.redis, prefix: e.prefix, clusterSecret: e.clusterSecret, tables, concurrency: 2, ...FAST_LOCKS });
    await createOrdersTable(coordinator, 'shop', 'orders');
  });
  after(async () => {
    await worker.close();
    await coordinator.close();
  });

  async function runSync(): Promise<ReturnType<Coordinator['syncs']['get']>> {
    const response = await coordinator.app.inject({
      method: 'POST',
      url: '/v1/syncs',
      payload: { table: { database: 'shop', table: 'orders' }, source: generatorSource(4, 100), options: { layout } },
    });
    assert.equal(response.statusCode, 202, response.body);
    const id = response.json<{ id: string }>().id;
    return waitForPhase(() => coordinator.syncs.get(id), ['COMMITTED', 'ABORTED'], 60_000);
  }

  test('a blob from another sync and a corrupted blob abort with typed reasons; nothing is committed', async () => {
    fault = undefined;
    const first = await runSync();
    assert.equal(first.state.phase, 'COMMITTED');
    const foreign = await e.store.get(`.tributary/syncs/${first.id}/shard-00001/1.blob`);

    fault = (key, bytes) => (key.includes('/shard-00001/') ? foreign : bytes);
    const second = await runSync();
    assert.ok(second.state.phase === 'ABORTED', second.state.phase);
    assert.equal(second.state.reason.code, 'BLOB_HEADER_MISMATCH');
    assert.equal(second.state.reason.context.field, 'syncId');
    assert.equal(second.state.reason.context.expected, second.id);

    fault = (key, bytes) => {
      if (!key.includes('/shard-00002/')) return bytes;
      const copy = Uint8Array.from(bytes);
      copy[Math.floor(copy.length / 2)] = (copy[Math.floor(copy.length / 2)] ?? 0) ^ 0xff;
      return copy;
    };
    const third = await runSync();
    assert.ok(third.state.phase === 'ABORTED', third.state.phase);
    assert.equal(third.state.reason.code, 'BLOB_CHECKSUM_MISMATCH');
    const aborted = [second, third];

    if (layout === 'bucketed') {
      // A bucket job's blob corrupted in storage: refused when the bucket stage ends.
      fault = (key, bytes) => {
        if (!key.includes('/buckets/bucket-0/')) return bytes;
        const copy = Uint8Array.from(bytes);
        copy[Math.floor(copy.length / 2)] = (copy[Math.floor(copy.length / 2)] ?? 0) ^ 0xff;
        return copy;
      };
      const fourth = await runSync();
      assert.ok(fourth.state.phase === 'ABORTED', fourth.state.phase);
      assert.equal(fourth.state.reason.code, 'BLOB_CHECKSUM_MISMATCH');
      assert.ok(fourth.timings.MERGING !== undefined, 'it failed in the bucket stage');
      aborted.push(fourth);
    }

    const table = await coordinator.tables.describeTable(e.warehouse, { database: 'shop', table: 'orders' });
    assert.equal(table?.latestSnapshotId, 1, 'only the first sync committed');
    assert.equal(table?.rowCount, 400);
    assert.deepEqual(await pypaimonIds(e, 'shop', 'orders'), oneTo(400), 'pypaimon reads only the first sync');
    for (const sync of aborted) {
      assert.deepEqual((await listKeys(e, `.tributary/syncs/${sync.id}/`)).filter((k) => k.endsWith('.blob') || k.endsWith('.parquet') || k.endsWith('.run')), []);
      assert.deepEqual((await listKeys(e, 'shop.db/orders/')).filter((k) => k.includes(`/data-${sync.id}-`)), []);
    }
  });
});
