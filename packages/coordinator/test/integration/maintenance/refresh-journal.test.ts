/**
 * The after-commit journal (Redis) behind the catalog's Tables seam, on a local warehouse: a publish
 * gives the table its mark first, a mark only moves forward, a start finds the table whose latest
 * snapshot is newer than its mark and runs the after-commit step again with every live partition,
 * and a dropped table's mark is deleted. The catalog is the filesystem catalog with its after-commit
 * step recorded (what the Hive catalog would be asked to refresh).
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { Redis } from 'ioredis';
import { catalogTables, filesystemCatalog, type Catalog, type CommittedSnapshot } from '@tributary/catalog';
import { parseDataTypeString, warehouseTables, type TableRef } from '@tributary/table';
import { services, uniqueName } from '@tributary/testkit';
import { redisRefreshJournal } from '../../../src/maintenance/refresh-journal.ts';

const redis = new Redis({ ...services.redis, maxRetriesPerRequest: null });
const prefix = uniqueName('t-refresh-journal');
const key = `${prefix}:catalog:refreshed`;
let dir = '';
let warehouse = '';

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tributary-refresh-journal-'));
  warehouse = `file://${dir}`;
});
after(async () => {
  await redis.del(key);
  await redis.quit();
  await rm(dir, { recursive: true, force: true });
});

test('a publish marks the table first, a start resumes a refresh newer than the mark with the live partitions, a drop forgets the mark', async () => {
  const inner = warehouseTables();
  const journal = redisRefreshJournal(redis, prefix);
  const asked: { ref: TableRef; commit: CommittedSnapshot }[] = [];
  const fs = filesystemCatalog(warehouse, inner.warehouseStore(warehouse));
  // A catalog whose refresh never finishes (as a metastore that is away): the mark stays behind.
  const catalog: Catalog = { ...fs, afterCommit: async (ref, commit) => void asked.push({ ref, commit }) };
  const tables = catalogTables(inner, catalog, warehouse, { journal });
  const ref = { database: 'shop', table: 'visits' };
  await tables.createTable(warehouse, ref, {
    fields: [{ name: 'id', type: parseDataTypeString('BIGINT NOT NULL') }, { name: 'region', type: parseDataTypeString('STRING NOT NULL') }],
    partitionKeys: ['region'],
    options: { bucket: '-1' },
  });
  const publish = async (rows: [bigint, string][], identifier: bigint, base: number | null) => {
    const write = await (await tables.openTable(warehouse, ref)).newWrite({ writerId: `w${identifier}` });
    await write.writeRows(rows);
    return tables.publish(warehouse, ref, { messages: await write.prepareCommit(), identity: { commitUser: 'journal-test', commitIdentifier: identifier }, kind: 'APPEND', baseSnapshotId: base, properties: {} });
  };

  assert.deepEqual(await journal.marks(), []);
  const first = await publish([[1n, 'eu'], [2n, 'us']], 1n, null);
  await tables.drain();
  assert.equal(first.snapshotId, 1);
  assert.deepEqual(await journal.marks(), [{ ref, snapshotId: 0 }], 'marked at the base before the publish');
  assert.deepEqual(asked.map((a) => [a.commit.snapshotId, a.commit.addedPartitions]), [[1, [{ region: 'eu' }, { region: 'us' }]]]);

  // A second publish keeps the older mark: the refresh of snapshot 1 never finished.
  await publish([[3n, 'apac']], 2n, 1);
  await tables.drain();
  assert.deepEqual(await journal.marks(), [{ ref, snapshotId: 0 }]);

  // The next start: the latest snapshot (2) is newer than the mark, so every live partition is refreshed again.
  asked.length = 0;
  assert.equal(await tables.resumeAfterCommits(warehouse), 1);
  await tables.drain();
  assert.deepEqual(asked.map((a) => [a.ref, a.commit.snapshotId, a.commit.addedPartitions]), [[ref, 2, [{ region: 'apac' }, { region: 'eu' }, { region: 'us' }]]]);

  // Marks move forward only; a table refreshed up to its latest snapshot is not resumed.
  await journal.refreshed(ref, 2);
  await journal.refreshed(ref, 1);
  assert.deepEqual(await journal.marks(), [{ ref, snapshotId: 2 }]);
  asked.length = 0;
  assert.equal(await tables.resumeAfterCommits(warehouse), 0);
  assert.deepEqual(asked, []);

  // A mark whose table is gone from the warehouse is dropped at the start; a drop through the seam deletes its own.
  await journal.begin({ database: 'shop', table: 'gone' }, 0);
  assert.equal(await tables.resumeAfterCommits(warehouse), 0);
  assert.deepEqual(await journal.marks(), [{ ref, snapshotId: 2 }]);
  await tables.dropTable(warehouse, ref);
  assert.deepEqual(await journal.marks(), []);
});
