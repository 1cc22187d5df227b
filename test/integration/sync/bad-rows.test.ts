/**
 * The bad-row policy through REST, with real workers: a MariaDB table with a NULL in a NOT NULL
 * column, a TINYINT that is no boolean and a zero date, and a generator shard with an amount that is
 * no number.
 *
 * - `fail` (the default): the sync aborts naming the shard, the row's position and the column, and
 *   never a value.
 * - `reject`: the sync commits every other row; the rejected rows are counted in the sync's status,
 *   listed by GET /v1/syncs/{id}/rejects and written, with their values, to the shard's rejects
 *   file in the staging area. The policy is in the persisted plan.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { ChildProcess } from 'node:child_process';
import { createConnection, type Connection } from 'mysql2/promise';
import type { Coordinator } from '@tributary/coordinator';
import { createOrdersTable, generatorSource, inProcessCoordinator, readRows, spawnWorker, stop, syncEnv, waitForPhase, withMariadb } from './harness.ts';
import { services } from '@tributary/testkit';

interface Rejects {
  syncId: string;
  policy: string;
  rejectedRows: number;
  files: { shardId: string; attemptId: string; rows: number; key: string }[];
}

describe('bad rows: fail or reject (MariaDB and the generator, 2 worker processes)', () => {
  const e = syncEnv('badrows', withMariadb());
  const database = e.prefix.replaceAll('-', '_');
  let admin: Connection;
  let coordinator: Coordinator;
  const workers: ChildProcess[] = [];
  const secret = 'p4ssw0rd-in-a-cell';

  before(async () => {
    admin = await createConnection({ ...services.mariadb });
    await admin.query(`CREATE DATABASE \`${database}\` CHARACTER SET utf8mb4`);
    await admin.query("SET SESSION sql_mode = ''");
    await admin.query(`CREATE TABLE \`${database}\`.accounts (id INT NOT NULL PRIMARY KEY, qty INT NULL, paid TINYINT(1), opened DATE, note VARCHAR(32) CHARACTER SET utf8mb4)`);
    const rows = Array.from({ length: 40 }, (_, i) => [i + 1, i, i % 2, '2024-01-01', `行-${i + 1}`]);
    await admin.query(`INSERT INTO \`${database}\`.accounts VALUES ?`, [rows]);
    await admin.query(`UPDATE \`${database}\`.accounts SET qty = NULL, note = ? WHERE id = 6`, [secret]); // NULL into NOT NULL
    await admin.query(`UPDATE \`${database}\`.accounts SET paid = 7 WHERE id = 17`); // not a boolean
    await admin.query(`UPDATE \`${database}\`.accounts SET opened = '0000-00-00' WHERE id = 33`); // a zero date (policy fail)
    coordinator = await inProcessCoordinator(e);
    workers.push(...(await Promise.all([spawnWorker(e), spawnWorker(e)])));
    const created = await coordinator.app.inject({
      method: 'POST',
      url: '/v1/tables',
      payload: {
        database: 'shop',
        name: 'accounts',
        columns: [
          { name: 'id', type: 'INT NOT NULL' },
          { name: 'qty', type: 'INT NOT NULL' },
          { name: 'paid', type: 'BOOLEAN' },
          { name: 'opened', type: 'DATE' },
          { name: 'note', type: 'STRING' },
        ],
        primaryKeys: ['id'],
        bucket: 1,
      },
    });
    assert.equal(created.statusCode, 201, created.body);
  });

  after(async () => {
    await Promise.all(workers.map((w) => stop(w)));
    await coordinator?.close();
    await admin?.query(`DROP DATABASE IF EXISTS \`${database}\``);
    await admin?.end();
  });

  const mysql = () => ({ kind: 'mysql', connection: 'mariadb', databases: [database], tables: ['accounts'], splitRows: 15, batchRows: 4 });

  async function sync(table: string, source: Record<string, unknown>, options?: Record<string, unknown>) {
    const response = await coordinator.app.inject({ method: 'POST', url: '/v1/syncs', payload: { table: { database: 'shop', table }, source, ...(options ? { options } : {}) } });
    assert.equal(response.statusCode, 202, response.body);
    const id = response.json<{ id: string }>().id;
    return { id, done: await waitForPhase(() => coordinator.syncs.get(id), ['COMMITTED', 'ABORTED'], 90_000) };
  }

  test('fail (the default): the sync aborts naming the shard, the row and the column, never a value', async () => {
    const { id, done } = await sync('accounts', mysql());
    assert.ok(done.state.phase === 'ABORTED', JSON.stringify(done.state));
    const reason = done.state.reason;
    assert.equal(reason.code, 'SOURCE_ROW_INVALID');
    assert.deepEqual({ shard: reason.context.shard, position: reason.context.position, column: reason.context.column }, { shard: `${database}.accounts.p00000`, position: 5, column: 'qty' });
    assert.match(reason.message, new RegExp(`shard ${database}\\.accounts\\.p00000, row 5, column qty: null in a NOT NULL column`));
    const view = await coordinator.app.inject({ method: 'GET', url: `/v1/syncs/${id}` });
    assert.equal(view.json<{ plan: { options: { badRows: string } } }>().plan.options.badRows, 'fail');
    assert.ok(!view.body.includes(secret), 'no cell value in the sync view');
  });

  test('reject: every other row commits; the rejected ones are counted, listed and kept with their values', async () => {
    const { id, done } = await sync('accounts', mysql(), { badRows: 'reject' });
    assert.equal(done.state.phase, 'COMMITTED', JSON.stringify(done.state));
    const ids = (await readRows(e, 'shop', 'accounts')).map((r) => r[0]).sort((a, b) => Number(a) - Number(b));
    assert.deepEqual(ids, Array.from({ length: 40 }, (_, i) => i + 1).filter((i) => ![6, 17, 33].includes(i)));

    const view = await coordinator.app.inject({ method: 'GET', url: `/v1/syncs/${id}` });
    const body = view.json<{ rejectedRows: number; rowsRead: number; plan: { options: { badRows: string } } }>();
    assert.deepEqual({ rejected: body.rejectedRows, read: body.rowsRead, policy: body.plan.options.badRows }, { rejected: 3, read: 37, policy: 'reject' }); // once committed, rowsRead counts the rows the accepted blobs hold
    assert.ok(!view.body.includes(secret), 'no cell value in the sync view');

    const listed = await coordinator.app.inject({ method: 'GET', url: `/v1/syncs/${id}/rejects` });
    assert.equal(listed.statusCode, 200, listed.body);
    const rejects = listed.json<Rejects>();
    assert.equal(rejects.policy, 'reject');
    assert.equal(rejects.rejectedRows, 3);
    assert.deepEqual(rejects.files.map((f) => [f.shardId, f.rows]), [
      [`${database}.accounts.p00000`, 1],
      [`${database}.accounts.p00001`, 1],
      [`${database}.accounts.p00002`, 1],
    ]);
    const lines = [];
    for (const file of rejects.files) {
      assert.match(file.key, new RegExp(`^\\.tributary/syncs/${id}/${file.shardId.replaceAll('.', '\\.')}/${file.attemptId}\\.rejects\\.ndjson$`));
      const text = new TextDecoder().decode(await e.store.get(file.key));
      lines.push(...text.trimEnd().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>));
    }
    assert.deepEqual(
      lines.map((l) => [l.shard, l.row, l.column, (l.values as Record<string, unknown>).id]),
      [
        [`${database}.accounts.p00000`, 5, 'qty', 6],
        [`${database}.accounts.p00001`, 1, 'paid', 17],
        [`${database}.accounts.p00002`, 2, 'opened', 33],
      ],
    );
    assert.deepEqual(lines[0]?.values, { id: 6, qty: null, paid: true, opened: '2024-01-01', note: secret });
    assert.equal((lines[2]?.values as Record<string, unknown>).opened, '0000-00-00');
  });

  test('reject on the generator: the same policy for every source', async () => {
    await createOrdersTable(coordinator, 'shop', 'orders_rejects');
    const { id, done } = await sync('orders_rejects', generatorSource(3, 200, { batchRows: 50, faults: { badRow: { shard: 1, position: 77 } } }), { badRows: 'reject' });
    assert.equal(done.state.phase, 'COMMITTED', JSON.stringify(done.state));
    assert.equal((await readRows(e, 'shop', 'orders_rejects')).length, 599);
    const rejects = (await coordinator.app.inject({ method: 'GET', url: `/v1/syncs/${id}/rejects` })).json<Rejects>();
    assert.deepEqual(rejects.files.map((f) => [f.shardId, f.rows]), [['shard-00001', 1]]);
    const [line] = new TextDecoder().decode(await e.store.get(rejects.files[0]?.key ?? '')).trimEnd().split('\n');
    const parsed = JSON.parse(line ?? '{}') as { row: number; column: string; values: { order_id: string; amount: string } };
    assert.deepEqual([parsed.row, parsed.column, parsed.values.order_id, parsed.values.amount], [77, 'amount', '278', 'not-a-number']);
  });

  test('an unknown policy is refused with 400 before anything is planned', async () => {
    const response = await coordinator.app.inject({ method: 'POST', url: '/v1/syncs', payload: { table: { database: 'shop', table: 'accounts' }, source: mysql(), options: { badRows: 'drop' } } });
    assert.equal(response.statusCode, 400, response.body);
    assert.equal(response.json<{ code: string }>().code, 'REQUEST_INVALID');
  });
});
