/**
 * How to read a PostgreSQL shard: binary COPY (what the source does) against a server-side cursor
 * fetched in pages, both in one REPEATABLE READ transaction, both decoding every value exactly into
 * the source's values (int8 as bigint, numeric as text, timestamp as an exact instant, text). The
 * same table of ROWS rows (int8 key, numeric(12,2), timestamp(6), text) is read RUNS times each way,
 * alternately; wall time and the process's CPU time are printed (on a shared machine, the CPU time
 * is the steadier figure).
 *
 *   node packages/sources/bench/postgres-read.bench.ts [rows] [runs]
 */
import { cpuUsage, hrtime } from 'node:process';
import pg from 'pg';
import { services, uniqueName } from '@tributary/testkit';
import { loadSourceAccess } from '../src/access.ts';
import { PostgresSource } from '../src/postgres/source.ts';
import type { SourceValue } from '../src/source.ts';
import { isoTimestamp } from '../src/values/temporal-text.ts';

const ROWS = Number(process.argv[2] ?? 1_000_000);
const RUNS = Number(process.argv[3] ?? 2);
const PAGE = 10_000;
const { host, port, user, password } = services.postgres;
const database = uniqueName('bench_pg').replaceAll('-', '_');

const admin = new pg.Client({ host, port, user, password, database: 'postgres' });
await admin.connect();
await admin.query(`CREATE DATABASE ${database}`);
try {
  const db = new pg.Client({ host, port, user, password, database });
  await db.connect();
  await db.query('CREATE TABLE big (id int8 PRIMARY KEY, amount numeric(12,2), created timestamp(6), note text)');
  await db.query(
    `INSERT INTO big SELECT i, (i % 100000) / 100.0 - 500, timestamp '1999-01-01' + i * interval '1234567 microseconds', 'note-' || i FROM generate_series(1, ${ROWS}) AS i`,
  );
  await db.query('VACUUM ANALYZE big');
  await db.end();

  const access = loadSourceAccess({
    env: { TRIBUTARY_CONNECTIONS_FILE: '/connections.json', PW: password },
    readText: () => JSON.stringify({ connections: { pg: { kind: 'postgres', host, port, user, passwordEnv: 'PW' } } }),
    realpath: (path) => Promise.resolve(path),
  });
  const columns = ['id', 'amount', 'created', 'note'];
  const source = new PostgresSource({ kind: 'postgres', connection: 'pg', databases: [database], tables: ['big'], batchRows: PAGE }, columns, access);
  const shard = { id: 'big', spec: { database, schema: 'public', table: 'big', key: [{ name: 'id', kind: 'integer' }] } };

  const copy = async (): Promise<number> => {
    let rows = 0;
    for await (const batch of source.open(shard)) rows += batch.rows.length;
    return rows;
  };

  // The cursor's text values, decoded to the same values the COPY path yields.
  const raw = (text: string) => text;
  const types = { getTypeParser: () => raw };
  const cursor = async (): Promise<number> => {
    const client = new pg.Client({ host, port, user, password, database, types });
    await client.connect();
    let rows = 0;
    try {
      await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
      await client.query('DECLARE c NO SCROLL CURSOR FOR SELECT id, amount, created, note FROM big ORDER BY id');
      for (;;) {
        const page = await client.query<(string | null)[]>({ text: `FETCH ${PAGE} FROM c`, rowMode: 'array' });
        if (page.rows.length === 0) break;
        const decoded: SourceValue[][] = page.rows.map((r) => [BigInt(r[0] ?? 0), r[1] ?? null, r[2] === null || r[2] === undefined ? null : (isoTimestamp(r[2]) ?? null), r[3] ?? null]);
        rows += decoded.length;
      }
      await client.query('COMMIT');
    } finally {
      await client.end();
    }
    return rows;
  };

  const measure = async (name: string, read: () => Promise<number>) => {
    const cpu = cpuUsage();
    const start = hrtime.bigint();
    const rows = await read();
    const wall = Number(hrtime.bigint() - start) / 1e9;
    const used = cpuUsage(cpu);
    const cpuSeconds = (used.user + used.system) / 1e6;
    if (rows !== ROWS) throw new Error(`${name} read ${rows} rows, not ${ROWS}`);
    console.log(
      `${name.padEnd(16)} ${rows} rows  wall ${wall.toFixed(2)} s (${Math.round(rows / wall).toLocaleString('en')} rows/s)  cpu ${cpuSeconds.toFixed(2)} s (${Math.round(rows / cpuSeconds).toLocaleString('en')} rows/cpu-s)  rss ${Math.round(process.memoryUsage().rss / 2 ** 20)} MiB`,
    );
  };
  for (let run = 0; run < RUNS; run++) {
    await measure('binary COPY', copy);
    await measure('cursor FETCH', cursor);
  }
} finally {
  await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
  await admin.end();
}
