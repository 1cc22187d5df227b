// The metastore stopped while a commit's refresh runs: the snapshot stays published, afterCommit
// returns without an error, the failure is reported and retried, and once the metastore is back
// the partitions appear. The test runs its own metastore (ownMetastore: infra/hive-metastore.sh on
// a free port with its own data directory) so that stopping it touches no other test.
import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import { after, before, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { openTable } from '@tributary/table';
import { ownMetastore, type OwnMetastore } from '@tributary/testkit';
import { hiveCatalog, type HiveCatalog, type HiveRefreshEvent } from '@tributary/catalog';
import { commitRows, localWarehouse, metastore, regionTable, type Warehouse } from './hive-fixtures.ts';

let own: OwnMetastore;
let w: Warehouse;
let catalog: HiveCatalog;
const events: HiveRefreshEvent[] = [];

before(async () => {
  own = await ownMetastore('outage');
  await own.start();
  w = await localWarehouse('outage');
  catalog = hiveCatalog({
    uri: own.uri,
    warehouse: w.root,
    store: w.store,
    requestTimeoutMs: 10_000,
    refresh: { attempts: 1000, initialDelayMs: 250, maxDelayMs: 1_000 },
    onRefresh: (e) => events.push(e),
  });
});

after(async () => {
  await catalog?.close();
  await own?.close();
  if (w !== undefined) await rm(w.root, { recursive: true, force: true });
});

test('a refresh while the metastore is stopped leaves the commit published, is reported and retried until the metastore is back', async () => {
  const ref = { database: w.database, table: 'events' };
  const table = await regionTable(w, 'events');
  await catalog.registerTable(ref, `${w.root}/${w.database}.db/events`);
  const snapshotId = await commitRows(table, [[1n, 'eu', 1], [2n, 'us', 2]], 'o1');

  await own.stop();
  assert.equal(await own.isUp(), false); // down
  // The refresh step of the commit: it does not throw, it reports and schedules a retry.
  await catalog.afterCommit(ref, { snapshotId, addedPartitions: [{ region: 'eu' }, { region: 'us' }] });
  assert.equal(events[0]?.status, 'retrying');
  assert.equal(events[0]?.error?.code, 'CATALOG_UNAVAILABLE');
  assert.deepEqual(catalog.pendingRefreshes().map((p) => [p.table, p.snapshotId, p.partitions]), [['events', snapshotId, 2]]);
  // The commit itself stands: the snapshot is the table's latest and reads its rows.
  const reopened = await openTable(w.store, w.database, 'events');
  assert.equal(Number((await reopened.latestSnapshot())?.id), snapshotId);
  assert.equal((await reopened.describe()).rowCount, 2);

  // Still retrying while the metastore is down.
  while (events.filter((e) => e.status === 'retrying').length < 3) await sleep(100);
  await own.start();
  while (!events.some((e) => e.status === 'refreshed')) await sleep(100);

  const done = events.find((e) => e.status === 'refreshed')!;
  assert.equal(done.snapshotId, snapshotId);
  assert.ok(done.attempt > 3, `refreshed at attempt ${done.attempt}`);
  assert.ok(events.every((e) => e.status !== 'failed'));
  assert.deepEqual(catalog.pendingRefreshes(), []);
  const hms = metastore(own.port);
  try {
    assert.deepEqual((await hms.call('get_partition_names', (c) => c.get_partition_names(w.database, 'events', -1))).sort(), ['region=eu', 'region=us']);
    const eu = await hms.call('get_partition', (c) => c.get_partition(w.database, 'events', ['eu']));
    assert.equal(eu.parameters.numRows, '1');
  } finally {
    hms.close();
  }
});
