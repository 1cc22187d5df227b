/**
 * The bucketed layout's sorted runs are part of the sync's integrity chain: a shard's blob names
 * each run segment with its offset, length, rows and CRC32C, and the bucket job reads nothing else.
 * The worker runs in this process over a store that tampers with the run objects as they are
 * written (a fault at the storage edge, after the shard computed what its blob says): a run cut
 * short, a byte of a value altered, or one shard's run object replaced by another shard's. Each
 * time the bucket job refuses the run with a typed error (RUN_TRUNCATED, RUN_CORRUPT), the sync
 * ends ABORTED with that reason, nothing is committed and nothing staged is left; an untampered
 * sync of the same table commits, and pypaimon reads exactly its rows.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Coordinator } from '@tributary/coordinator';
import { startShardWorker, type ShardWorker, type WorkerTables } from '@tributary/worker';
import { Table, warehouseTables, type ObjectBody, type ObjectStore } from '@tributary/table';
import { services } from '@tributary/testkit';
import { createOrdersTable, generatorSource, inProcessCoordinator, listKeys, oneTo, pypaimonIds, s3, syncEnv, waitForPhase, FAST_LOCKS } from './harness.ts';

/** What to put instead of a run object's bytes (`index`: the run objects written so far, from 0). */
type Tamper = (bytes: Uint8Array, index: number) => Uint8Array;

async function bytesOf(body: ObjectBody): Promise<Uint8Array> {
  if (body instanceof Uint8Array) return body;
  const chunks: Uint8Array[] = [];
  for await (const chunk of body as AsyncIterable<Uint8Array>) chunks.push(chunk);
  return Buffer.concat(chunks);
}

/** The real store, except that `put` of a run object (`….run`) goes through the current tamper. */
function tamperingStore(store: ObjectStore, tamper: () => Tamper | undefined, counter: { runs: number }): ObjectStore {
  return new Proxy(store, {
    get(target, property, receiver) {
      if (property === 'put') {
        return async (key: string, body: ObjectBody) => {
          const fault = tamper();
          if (fault === undefined || !key.endsWith('.run')) return target.put(key, body);
          return target.put(key, fault(await bytesOf(body), counter.runs++));
        };
      }
      const value: unknown = Reflect.get(target, property, receiver);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

describe('sorted runs that are not what the shard wrote are refused; nothing commits', () => {
  const e = syncEnv('bucketed-runs');
  let coordinator: Coordinator;
  let worker: ShardWorker;
  let tamper: Tamper | undefined;
  const counter = { runs: 0 };

  before(async () => {
    coordinator = await inProcessCoordinator(e);
    const real = warehouseTables(s3);
    const tables: WorkerTables = {
      openTable: async (warehouse, ref, schemaId) => {
        const table = await real.openTable(warehouse, ref, schemaId);
        return new Table(tamperingStore(table.store, () => tamper, counter), { database: table.database, name: table.name }, table.schema);
      },
      warehouseStore: (warehouse) => real.warehouseStore(warehouse),
    };
    // One spill per shard (the default run budget holds 300 rows): one run object per shard.
    worker = startShardWorker({ redis: services.redis, prefix: e.prefix, clusterSecret: e.clusterSecret, tables, concurrency: 2, ...FAST_LOCKS });
    await createOrdersTable(coordinator, 'shop', 'orders', { primaryKeys: ['order_id'], bucket: 2 });
  });
  after(async () => {
    await worker.close();
    await coordinator.close();
  });

  async function runSync(): Promise<Awaited<ReturnType<Coordinator['syncs']['get']>>> {
    counter.runs = 0;
    const response = await coordinator.app.inject({
      method: 'POST',
      url: '/v1/syncs',
      payload: { table: { database: 'shop', table: 'orders' }, source: generatorSource(2, 300), options: { layout: 'bucketed' } },
    });
    assert.equal(response.statusCode, 202, response.body);
    const id = response.json<{ id: string }>().id;
    // Waits for the sync's end: the shards, the bucket jobs (refused or not) and the commit or abort.
    return waitForPhase(() => coordinator.syncs.get(id), ['COMMITTED', 'ABORTED'], 120_000);
  }

  /** An aborted sync: the typed reason, in the bucket stage, and nothing of it left. */
  async function refused(sync: Awaited<ReturnType<typeof runSync>>, codes: readonly string[], what: string): Promise<void> {
    assert.ok(sync.state.phase === 'ABORTED', `${what}: ${JSON.stringify(sync.state)}`);
    assert.ok(codes.includes(sync.state.reason.code), `${what}: reason ${sync.state.reason.code}`);
    assert.ok(sync.timings.MERGING !== undefined, `${what}: it failed in the bucket stage`);
    assert.ok(sync.state.stagedDeleted, `${what}: staged files deleted`);
    assert.deepEqual((await listKeys(e, `.tributary/syncs/${sync.id}/`)).filter((k) => k.endsWith('.blob') || k.endsWith('.run') || k.endsWith('.parquet')), [], `${what}: no run or blob left`);
    assert.deepEqual((await listKeys(e, 'shop.db/orders/')).filter((k) => k.includes(`/data-${sync.id}-`)), [], `${what}: no data file of the sync left`);
  }

  test('a truncated run, an altered value and a swapped run object abort with RUN_* reasons; an intact sync then commits exactly', async () => {
    // The object cut 8 bytes short of what the blob says (its last segment's end record).
    tamper = (bytes, index) => (index === 0 ? bytes.subarray(0, bytes.length - 8) : bytes);
    await refused(await runSync(), ['RUN_TRUNCATED'], 'truncated');

    // One byte of the first key value (segment 0, block 0: header 8 + record 16 + the column's own 8).
    tamper = (bytes, index) => {
      if (index !== 0) return bytes;
      const altered = Uint8Array.from(bytes);
      altered[8 + 16 + 8 + 2] = (altered[8 + 16 + 8 + 2] as number) ^ 0x01;
      return altered;
    };
    await refused(await runSync(), ['RUN_CORRUPT'], 'altered');

    // The second run object written holds the first's bytes (another shard's runs, valid in themselves).
    let first: Uint8Array | undefined;
    tamper = (bytes, index) => {
      if (index === 0) first = bytes;
      return index === 1 && first !== undefined ? first : bytes;
    };
    await refused(await runSync(), ['RUN_CORRUPT', 'RUN_TRUNCATED'], 'swapped');

    tamper = undefined;
    const intact = await runSync();
    assert.equal(intact.state.phase, 'COMMITTED', JSON.stringify(intact.state));
    const table = await coordinator.tables.describeTable(e.warehouse, { database: 'shop', table: 'orders' });
    assert.equal(table?.latestSnapshotId, 1, 'only the intact sync committed');
    assert.deepEqual(await pypaimonIds(e, 'shop', 'orders'), oneTo(600), 'pypaimon reads exactly the intact sync');
  });
});
