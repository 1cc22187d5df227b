// A `lock` call whose answer never reaches the client: the metastore (infra/hive-metastore.sh) grants
// the lock, a TCP proxy in front of it swallows the answer, the client times out. The lock must not
// be left behind, holding off every other writer of the table until the metastore's transaction
// timeout (300 s): the catalog releases the locks it requested under that call's agent id.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { rm } from 'node:fs/promises';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { once } from 'node:events';
import { hiveCatalog } from '@tributary/catalog';
import { services } from '@tributary/testkit';
import { showTableLocks } from '../../src/hive/hive-lock.ts';
import { localWarehouse, metastore, metastoreUri, type Warehouse } from './hive-fixtures.ts';

/** A TCP proxy to the metastore that can stop passing answers on the connections open at the time. */
interface Proxy {
  readonly port: number;
  /** From now on, the bytes the metastore sends on the connections open now are dropped. */
  swallowAnswers(): number;
  close(): Promise<void>;
}

async function proxy(): Promise<Proxy> {
  const open = new Set<{ swallow: boolean; client: Socket; upstream: Socket }>();
  const server: Server = createServer((client) => {
    const upstream = connect(services.hiveMetastore.port, services.hiveMetastore.host);
    const pair = { swallow: false, client, upstream };
    open.add(pair);
    client.pipe(upstream);
    upstream.on('data', (b) => {
      if (!pair.swallow) client.write(b);
    });
    const end = () => {
      open.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on('close', end).on('error', end);
    upstream.on('close', end).on('error', end);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    port: (server.address() as { port: number }).port,
    swallowAnswers() {
      for (const pair of open) pair.swallow = true;
      return open.size;
    },
    async close() {
      for (const pair of open) pair.client.destroy();
      server.close();
      await once(server, 'close');
    },
  };
}

let w: Warehouse;
let p: Proxy;
const hms = metastore();

before(async () => {
  w = await localWarehouse('unanswered');
  p = await proxy();
});

after(async () => {
  await hms.call('drop_database', (c) => c.drop_database(w.database, false, true)).catch(() => {});
  hms.close();
  await p.close();
  await rm(w.root, { recursive: true, force: true });
});

test('a lock granted whose answer is lost is released, and the next writer takes the lock at once', async () => {
  const ref = { database: w.database, table: 'unanswered' };
  const catalog = hiveCatalog({ uri: metastoreUri(p.port), warehouse: w.root, store: w.store, lockEnabled: true, requestTimeoutMs: 10_000 });
  const other = hiveCatalog({ uri: metastoreUri(), warehouse: w.root, store: w.store, lockEnabled: true, lock: { acquireTimeoutMs: 120_000, checkMaxSleepMs: 200 } });
  try {
    await catalog.createDatabase(w.database); // opens the catalog's connection through the proxy
    assert.equal(p.swallowAnswers(), 1);
    let ran = false;
    await assert.rejects(
      catalog.withLock(ref, async () => {
        ran = true;
      }),
      (error: { code?: string; message?: string }) => error.code === 'CATALOG_UNAVAILABLE' && /did not answer lock/.test(error.message ?? ''),
    );
    assert.equal(ran, false);
    // The metastore granted the request; the sweep (on a new connection, answered) released it.
    assert.deepEqual(await showTableLocks(hms, ref), []);
    // Another writer gets the lock without waiting for the metastore's timeout (300 s).
    const started = Date.now();
    assert.equal(await other.withLock(ref, async () => 'in'), 'in');
    assert.ok(Date.now() - started < 60_000, `the next lock took ${Date.now() - started} ms`);
    // And the catalog whose answer was lost locks again once answers flow.
    assert.equal(await catalog.withLock(ref, async () => 'again'), 'again');
    assert.deepEqual(await showTableLocks(hms, ref), []);
  } finally {
    await catalog.close();
    await other.close();
  }
});
