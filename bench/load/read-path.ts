/**
 * The worker's MySQL read path on its own, in one process, on a shard of the load benchmark's
 * dataset (dataset.ts, built if missing): the MySQL source's read plus the column converter, the two
 * ways a batch can reach the columns, alternately:
 *
 * - `cells`: the text cells decoded straight into the columns (`columnConverter(…).batch`, what the
 *   worker does);
 * - `rows`: the same batches' rows (mysql2's row parser run over the kept bytes, then the source's
 *   decoders) through the row converter path (`columnConverter(…)(rows)`), as before the cells;
 * - `mysql2`: mysql2 alone streaming the same query with the source's options, every row dropped
 *   (the ceiling of bench:load, one reader).
 *
 * Prints wall and CPU time per read (on a shared machine, CPU time is the steadier figure).
 *
 *   node bench/load/read-path.ts [rows per shard = 100000] [runs = 3]
 */
import { cpuUsage, hrtime } from 'node:process';
import { createConnection } from 'mysql2';
import { parseDataTypeString, type RowType } from '@tributary/table';
import { columnConverter, loadSourceAccess, openSource, type SourceBatch } from '@tributary/sources';
import { ensureDataset, LOAD_COLUMNS } from './dataset.ts';

const rowsPerShard = Number(process.argv[2] ?? 100_000);
const runs = Number(process.argv[3] ?? 3);
const endpoint = {
  host: process.env.TRIBUTARY_MARIADB_HOST ?? '127.0.0.1',
  port: Number(process.env.TRIBUTARY_MARIADB_PORT ?? 3390),
  user: process.env.TRIBUTARY_MARIADB_USER ?? 'tributary',
  password: process.env.TRIBUTARY_MARIADB_PASSWORD ?? 'tributary',
};
const dataset = await ensureDataset(endpoint, 8, rowsPerShard, (line) => console.error(line));
const table = dataset.tables[0] ?? 'orders_0';
const access = loadSourceAccess({
  env: { TRIBUTARY_CONNECTIONS_FILE: '/connections.json', PW: endpoint.password },
  readText: () => JSON.stringify({ connections: { bench: { kind: 'mysql', host: endpoint.host, port: endpoint.port, user: endpoint.user, passwordEnv: 'PW' } } }),
  realpath: (path) => Promise.resolve(path),
});
const names = LOAD_COLUMNS.map((c) => c.name);
const rowType: RowType = { fields: LOAD_COLUMNS.map((c, id) => ({ id, name: c.name, type: parseDataTypeString(c.paimon) })) };
const noStore = () => {
  throw new Error('the MySQL source opens no store');
};
const source = openSource({ kind: 'mysql', connection: 'bench', databases: [dataset.database], tables: [table], batchRows: 10_000 }, { openStore: noStore, columns: names, access });
const toColumns = columnConverter('bench', await source.columns(), rowType);
const shard = { id: table, spec: { database: dataset.database, table, key: [{ name: 'id', kind: 'number' }] } };

async function viaSource(convert: (batch: SourceBatch) => number): Promise<number> {
  let rows = 0;
  for await (const batch of source.open(shard)) rows += convert(batch);
  return rows;
}

const cells = () => viaSource((batch) => toColumns.batch(batch).length);
const rows = () => viaSource((batch) => toColumns(batch.rows, batch.firstRowPosition).length);
const mysql2 = async (): Promise<number> => {
  const connection = createConnection({ ...endpoint, rowsAsArray: true, supportBigNumbers: true, bigNumberStrings: true, dateStrings: true });
  let n = 0;
  const stream = connection.query(`SELECT ${names.join(', ')} FROM \`${dataset.database}\`.${table} ORDER BY id`).stream({ highWaterMark: 10_000 });
  for await (const row of stream as AsyncIterable<unknown[]>) if (row.length > 0) n++;
  connection.destroy();
  return n;
};

const measure = async (name: string, read: () => Promise<number>) => {
  const cpu = cpuUsage();
  const start = hrtime.bigint();
  const n = await read();
  const wall = Number(hrtime.bigint() - start) / 1e9;
  const used = cpuUsage(cpu);
  const cpuSeconds = (used.user + used.system) / 1e6;
  if (n !== rowsPerShard) throw new Error(`${name} read ${n} rows, not ${rowsPerShard}`);
  console.log(`${name.padEnd(7)} ${n} rows  wall ${wall.toFixed(2)} s  cpu ${cpuSeconds.toFixed(2)} s (${Math.round(n / cpuSeconds).toLocaleString('en')} rows/cpu-s)`);
};
for (let run = 0; run < runs; run++) {
  await measure('cells', cells);
  await measure('rows', rows);
  await measure('mysql2', mysql2);
}
