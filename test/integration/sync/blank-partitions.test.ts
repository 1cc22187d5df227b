/**
 * A real sync (worker processes, MinIO) into tables partitioned by a string column holding NULL,
 * '', ' ' and '\t': distinct partitions in one directory (`p=__DEFAULT_PARTITION__/`). Each shard's
 * writer has one bucket writer per partition there, so their file names must differ although they
 * share the shard's writer id. The tables end with exactly the files' rows, read by Tributary,
 * pypaimon and Paimon Java.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { ChildProcess } from 'node:child_process';
import type { Coordinator } from '@tributary/coordinator';
import { dataFilesMessage, openObjectStore, openTable, type InternalRow } from '@tributary/table';
import { canonicalRows, paimonJava, pypaimon, services } from '@tributary/testkit';
import { inProcessCoordinator, listKeys, readRows, s3, spawnWorker, stop, syncEnv, waitForPhase } from './harness.ts';

const VALUES = [null, '', ' ', '\t', 'a'] as const;
const FILES = 2;
const ROWS_PER_VALUE = 3;

/** File f's rows: every partition value, ROWS_PER_VALUE ids each. */
function fileRows(f: number): { id: number; p: string | null; v: string }[] {
  return VALUES.flatMap((p, i) => Array.from({ length: ROWS_PER_VALUE }, (_, k) => {
    const id = f * 1000 + i * ROWS_PER_VALUE + k;
    return { id, p, v: `file ${f} row ${id}` };
  }));
}

describe('a sync into partitions that share the default directory', () => {
  const e = syncEnv('blank-partitions');
  const source = `s3://${services.s3.bucket}/${e.prefix}-src`;
  let coordinator: Coordinator;
  const workers: ChildProcess[] = [];

  before(async () => {
    const store = openObjectStore(source, s3);
    for (let f = 0; f < FILES; f++) {
      await store.put(`part-${f}.ndjson`, new TextEncoder().encode(fileRows(f).map((r) => JSON.stringify(r)).join('\n') + '\n'));
    }
    coordinator = await inProcessCoordinator(e);
    workers.push(...(await Promise.all([spawnWorker(e), spawnWorker(e)])));
  });
  after(async () => {
    await Promise.all(workers.map((w) => stop(w)));
    await coordinator.close();
  });

  const layouts = [
    { table: 'blank_append', primaryKeys: [] as string[], bucket: -1, values: VALUES },
    // Primary-key fields are NOT NULL: the files without the null partition's rows would not
    // convert, so this table gets its own source files below.
    { table: 'blank_pk', primaryKeys: ['id', 'p'], bucket: 2, values: VALUES.filter((p) => p !== null) },
  ];

  for (const layout of layouts) {
    test(`${layout.table}: every shard's partitions keep their own files, read exactly by three readers`, async () => {
      const pk = layout.primaryKeys.length > 0;
      const uris = [`${source}/part-*`];
      if (pk) {
        const store = openObjectStore(source, s3);
        for (let f = 0; f < FILES; f++) {
          const rows = fileRows(f).filter((r) => r.p !== null);
          await store.put(`pk/part-${f}.ndjson`, new TextEncoder().encode(rows.map((r) => JSON.stringify(r)).join('\n') + '\n'));
        }
        uris[0] = `${source}/pk/part-*`;
      }
      const created = await coordinator.app.inject({
        method: 'POST',
        url: '/v1/tables',
        payload: {
          database: 'shop',
          name: layout.table,
          columns: [
            { name: 'id', type: pk ? 'BIGINT NOT NULL' : 'BIGINT' },
            { name: 'p', type: pk ? 'STRING NOT NULL' : 'STRING' },
            { name: 'v', type: 'STRING' },
          ],
          partitionKeys: ['p'],
          primaryKeys: layout.primaryKeys,
          bucket: layout.bucket,
        },
      });
      assert.equal(created.statusCode, 201, created.body);
      const response = await coordinator.app.inject({
        method: 'POST',
        url: '/v1/syncs',
        payload: { table: { database: 'shop', table: layout.table }, source: { kind: 'files', format: 'ndjson', uris, filesPerShard: 1 } },
      });
      assert.equal(response.statusCode, 202, response.body);
      const id = response.json<{ id: string }>().id;
      const done = await waitForPhase(() => coordinator.syncs.get(id), ['COMMITTED', 'ABORTED'], 60_000);
      assert.equal(done.state.phase, 'COMMITTED', JSON.stringify(done.state));
      assert.equal(done.plan.shards.length, FILES);

      const expected: InternalRow[] = Array.from({ length: FILES }, (_, f) => fileRows(f))
        .flat()
        .filter((r) => layout.values.includes(r.p as never))
        .map((r) => [BigInt(r.id), r.p, r.v]);
      // One object on storage per live file: no writer overwrote another's file.
      const t = await openTable(e.store, 'shop', layout.table);
      const live = await t.newRead().plan();
      const keys = t.dataFileKeys(live.map((x) => dataFilesMessage(x.partition, x.bucket, x.totalBuckets, { newFiles: [x.file] })));
      const stored = (await listKeys(e, `shop.db/${layout.table}/`)).filter((k) => k.endsWith('.parquet'));
      assert.equal(new Set(keys).size, live.length, 'one path per live file');
      assert.deepEqual(stored.sort(), [...keys].sort(), 'the objects on storage are the live files');
      assert.ok(live.length >= layout.values.length * FILES, `${live.length} files: at least one per partition and shard`);
      assert.deepEqual(canonicalRows(await readRows(e, 'shop', layout.table)), canonicalRows(expected));
      const ref = { warehouse: e.warehouse, database: 'shop', table: layout.table };
      assert.deepEqual(canonicalRows((await pypaimon.read(ref)).rows), canonicalRows(expected), 'pypaimon');
      assert.deepEqual(canonicalRows((await paimonJava.read(ref)).rows), canonicalRows(expected), 'Paimon Java');
    });
  }
});
