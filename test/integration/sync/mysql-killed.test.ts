/**
 * A MySQL shard's worker SIGKILLed in the middle of its read: BullMQ re-runs the job on another
 * worker, which starts the shard over in a new consistent snapshot (a clean restart: new attempt,
 * new data files, new rejects file), and the committed table holds every source row exactly once;
 * the killed attempt's files are never referenced, and the rejects listing names only accepted
 * attempts (one row is rejected under `badRows: reject`). A test hook (`faults.delayMsPerBatch`, test mode
 * only) keeps the shard reading long enough to be killed mid-way.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { ChildProcess } from 'node:child_process';
import { createConnection, type Connection } from 'mysql2/promise';
import type { Coordinator } from '@tributary/coordinator';
import { openTable } from '@tributary/table';
import { services } from '@tributary/testkit';
import { inProcessCoordinator, oneTo, pypaimonIds, readRows, shardProgressRows, spawnWorker, stop, syncEnv, waitForPhase, waitUntil, withMariadb } from './harness.ts';

const ROWS = 4000;
/** The one row whose note is NULL, for a NOT NULL column: rejected. */
const BAD = 1500;

describe('a MySQL shard whose worker is killed mid-read (real processes, short BullMQ locks)', () => {
  const e = syncEnv('mykill', withMariadb());
  const database = e.prefix.replaceAll('-', '_');
  let admin: Connection;
  let coordinator: Coordinator;
  const workers: ChildProcess[] = [];

  before(async () => {
    admin = await createConnection({ ...services.mariadb });
    await admin.query(`CREATE DATABASE \`${database}\``);
    await admin.query(`CREATE TABLE \`${database}\`.orders (id BIGINT NOT NULL PRIMARY KEY, note VARCHAR(16))`);
    await admin.query(`INSERT INTO \`${database}\`.orders SELECT seq, IF(seq = ${BAD}, NULL, CONCAT('n', seq)) FROM \`${database}\`.seq_1_to_${ROWS}`);
    coordinator = await inProcessCoordinator(e);
    const created = await coordinator.app.inject({
      method: 'POST',
      url: '/v1/tables',
      payload: { database: 'shop', name: 'killed', columns: [{ name: 'id', type: 'BIGINT NOT NULL' }, { name: 'note', type: 'STRING NOT NULL' }], primaryKeys: ['id'], bucket: 2 },
    });
    assert.equal(created.statusCode, 201, created.body);
  });

  after(async () => {
    await Promise.all(workers.map((w) => stop(w)));
    await coordinator?.close();
    await admin?.query(`DROP DATABASE IF EXISTS \`${database}\``);
    await admin?.end();
  });

  test('the shard re-runs from its start on another worker and the table holds each row exactly once', async () => {
    const first = await spawnWorker(e);
    workers.push(first);
    // 2 shards of 2,000 rows, batches of 100 with a 60 ms pause: about 1.2 s of reading each. The direct
    // layout, so the table's files are the shard attempts' own (the bucketed layout's killed shard: worker-faults).
    const source = { kind: 'mysql', connection: 'mariadb', databases: [database], tables: ['orders'], splitRows: 2000, batchRows: 100, faults: { delayMsPerBatch: 60 } };
    const response = await coordinator.app.inject({ method: 'POST', url: '/v1/syncs', payload: { table: { database: 'shop', table: 'killed' }, source, mode: 'upsert', options: { badRows: 'reject', layout: 'direct' } } });
    assert.equal(response.statusCode, 202, response.body);
    const id = response.json<{ id: string }>().id;
    const running = await waitUntil(async () => (await coordinator.store.attempts(id)).find((a) => a.status === 'running'), 'a shard runs');
    await waitUntil(async () => (await shardProgressRows(e, id, running.shardId)) > 0, `shard ${running.shardId} wrote rows`);
    await stop(first, 'SIGKILL');
    workers.push(await spawnWorker(e));

    const done = await waitForPhase(() => coordinator.syncs.get(id), ['COMMITTED', 'ABORTED'], 90_000);
    assert.equal(done.state.phase, 'COMMITTED', JSON.stringify(done.state));
    const attempts = (await coordinator.store.attempts(id)).filter((a) => a.shardId === running.shardId);
    const dead = attempts.find((a) => a.attemptId === running.attemptId);
    assert.equal(dead?.status, 'abandoned', JSON.stringify(attempts));
    const winner = done.state.accepted[running.shardId]?.attemptId;
    assert.ok(winner !== undefined && winner !== running.attemptId, 'a later attempt was accepted');

    const ids = (await readRows(e, 'shop', 'killed')).map((r) => r[0] as bigint).sort((a, b) => Number(a - b));
    const expected = oneTo(ROWS).filter((i) => i !== BigInt(BAD));
    assert.deepEqual(ids, expected, 'each source row exactly once, less the rejected one');
    assert.deepEqual(await pypaimonIds(e, 'shop', 'killed'), expected, 'pypaimon reads each source row exactly once');
    const rejects = (await coordinator.app.inject({ method: 'GET', url: `/v1/syncs/${id}/rejects` })).json<{ rejectedRows: number; files: { shardId: string; attemptId: string; rows: number }[] }>();
    const badShard = `${database}.orders.p00000`;
    assert.deepEqual(rejects, { ...rejects, rejectedRows: 1, files: [{ ...rejects.files[0], shardId: badShard, attemptId: done.state.accepted[badShard]?.attemptId, rows: 1 }] });
    const files = (await (await openTable(e.store, 'shop', 'killed')).newRead().plan()).map((entry) => entry.file.fileName);
    assert.ok(files.some((name) => name.includes(`-${running.shardId}-a${winner}-`)), `the accepted attempt's files are referenced: ${files.join(', ')}`);
    assert.ok(!files.some((name) => name.includes(`-${running.shardId}-a${running.attemptId}-`)), `the killed attempt's files are not: ${files.join(', ')}`);
  });
});
