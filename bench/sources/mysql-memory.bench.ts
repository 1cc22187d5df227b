/**
 * A worker's memory on one large MySQL chunk, the MariaDB twin of postgres-memory.bench.ts: a table
 * of ROWS rows (BIGINT key, DECIMAL(12,2), DATETIME(6), text of ~40 characters, built with MariaDB's
 * sequence engine) is synced as ONE shard by one worker process (a coordinator in this process,
 * Redis, MinIO and MariaDB as the tests use them); the worker's peak resident set (VmHWM), its CPU
 * time and the wall time are printed. Run it with two sizes: a bounded worker's peak does not grow
 * with the chunk.
 *
 *   node bench/sources/mysql-memory.bench.ts [rows]
 */
import { createConnection } from 'mysql2/promise';
import { services } from '@tributary/testkit';
import { inProcessCoordinator, spawnWorker, stop, syncEnv, waitForPhase, withMariadb } from '../../test/integration/sync/harness.ts';
import { cpuSeconds, peakRssMb } from './proc.ts';

const ROWS = Number(process.argv[2] ?? 1_000_000);
const e = syncEnv('mysqlmem', withMariadb());
const database = e.prefix.replaceAll('-', '_');

const admin = await createConnection({ ...services.mariadb });
await admin.query(`CREATE DATABASE \`${database}\``);
const coordinator = await inProcessCoordinator(e);
const worker = await spawnWorker(e);
try {
  await admin.query(`CREATE TABLE \`${database}\`.big (id BIGINT NOT NULL PRIMARY KEY, amount DECIMAL(12,2), created DATETIME(6), note VARCHAR(64))`);
  await admin.query(
    `INSERT INTO \`${database}\`.big SELECT seq, (seq % 100000) / 100.0 - 500, TIMESTAMP '1999-01-01 00:00:00' + INTERVAL seq * 1234567 MICROSECOND, CONCAT('a note of about forty characters, ', seq) FROM \`${database}\`.seq_1_to_${ROWS}`,
  );
  const columns = [
    { name: 'id', type: 'BIGINT NOT NULL' },
    { name: 'amount', type: 'DECIMAL(12, 2)' },
    { name: 'created', type: 'TIMESTAMP(6)' },
    { name: 'note', type: 'STRING' },
  ];
  const created = await coordinator.app.inject({ method: 'POST', url: '/v1/tables', payload: { database: 'bench', name: 'big', columns } });
  if (created.statusCode !== 201) throw new Error(created.body);
  const pid = worker.pid ?? -1;
  const idleMb = peakRssMb(pid);
  const cpu0 = cpuSeconds(pid);
  const started = Date.now();
  const response = await coordinator.app.inject({
    method: 'POST',
    url: '/v1/syncs',
    payload: { table: { database: 'bench', table: 'big' }, source: { kind: 'mysql', connection: 'mariadb', databases: [database], tables: ['big'] } },
  });
  if (response.statusCode !== 202) throw new Error(response.body);
  const done = await waitForPhase(() => coordinator.syncs.get(response.json<{ id: string }>().id), ['COMMITTED', 'ABORTED'], 3_600_000);
  const seconds = (Date.now() - started) / 1000;
  console.log(
    `${done.state.phase}: ${ROWS.toLocaleString('en')} rows in one shard, ${seconds.toFixed(1)} s (${Math.round(ROWS / seconds).toLocaleString('en')} rows/s); worker CPU ${(cpuSeconds(pid) - cpu0).toFixed(1)} s; worker peak RSS ${Math.round(peakRssMb(pid))} MiB (${Math.round(idleMb)} MiB when ready)`,
  );
} finally {
  await stop(worker);
  await coordinator.close();
  await admin.query(`DROP DATABASE IF EXISTS \`${database}\``);
  await admin.end();
}
