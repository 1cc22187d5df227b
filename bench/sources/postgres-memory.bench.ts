/**
 * A worker's memory on one large PostgreSQL chunk: a table of ROWS rows (int8 key, numeric(12,2),
 * timestamp(6), text of ~40 characters) is synced as ONE shard by one worker process (a coordinator
 * in this process, Redis, MinIO and PostgreSQL as the tests use them), and the worker's peak
 * resident set (VmHWM) is printed with the rows, its CPU time and the wall time. Run it with two sizes: a bounded
 * worker's peak does not grow with the chunk.
 *
 *   node bench/sources/postgres-memory.bench.ts [rows]
 */
import pg from 'pg';
import { services } from '@tributary/testkit';
import { inProcessCoordinator, spawnWorker, stop, syncEnv, waitForPhase } from '../../test/integration/sync/harness.ts';
import { cpuSeconds, peakRssMb } from './proc.ts';

const ROWS = Number(process.argv[2] ?? 1_000_000);
const { host, port, user, password } = services.postgres;
const e = syncEnv('pgmem', {
  connections: { pg: { kind: 'postgres', host, port, user, passwordEnv: 'BENCH_PG_PASSWORD' } },
  env: { BENCH_PG_PASSWORD: password },
});
const database = e.prefix.replaceAll('-', '_');

const admin = new pg.Client({ host, port, user, password, database: 'postgres' });
await admin.connect();
await admin.query(`CREATE DATABASE ${database}`);
const coordinator = await inProcessCoordinator(e);
const worker = await spawnWorker(e);
try {
  const db = new pg.Client({ host, port, user, password, database });
  await db.connect();
  await db.query('CREATE TABLE big (id int8 PRIMARY KEY, amount numeric(12,2), created timestamp(6), note text)');
  await db.query(
    `INSERT INTO big SELECT i, (i % 100000) / 100.0 - 500, timestamp '1999-01-01' + i * interval '1234567 microseconds', 'a note of about forty characters, ' || i FROM generate_series(1, ${ROWS}) AS i`,
  );
  await db.end();
  const columns = [
    { name: 'id', type: 'BIGINT NOT NULL' },
    { name: 'amount', type: 'DECIMAL(12, 2)' },
    { name: 'created', type: 'TIMESTAMP(6)' },
    { name: 'note', type: 'STRING' },
  ];
  const created = await coordinator.app.inject({ method: 'POST', url: '/v1/tables', payload: { database: 'bench', name: 'big', columns } });
  if (created.statusCode !== 201) throw new Error(created.body);
  const idleMb = peakRssMb(worker.pid ?? -1);
  const cpu0 = cpuSeconds(worker.pid ?? -1);
  const started = Date.now();
  const response = await coordinator.app.inject({
    method: 'POST',
    url: '/v1/syncs',
    payload: { table: { database: 'bench', table: 'big' }, source: { kind: 'postgres', connection: 'pg', databases: [database], tables: ['big'] } },
  });
  if (response.statusCode !== 202) throw new Error(response.body);
  const done = await waitForPhase(() => coordinator.syncs.get(response.json<{ id: string }>().id), ['COMMITTED', 'ABORTED'], 3_600_000);
  const seconds = (Date.now() - started) / 1000;
  console.log(
    `${done.state.phase}: ${ROWS.toLocaleString('en')} rows in one shard, ${seconds.toFixed(1)} s (${Math.round(ROWS / seconds).toLocaleString('en')} rows/s); worker CPU ${(cpuSeconds(worker.pid ?? -1) - cpu0).toFixed(1)} s; worker peak RSS ${peakRssMb(worker.pid ?? -1)} MiB (${idleMb} MiB when ready)`,
  );
} finally {
  await stop(worker);
  await coordinator.close();
  await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
  await admin.end();
}
