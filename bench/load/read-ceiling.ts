/**
 * The source-read ceiling of the load benchmark: one reader process streams its shards with mysql2
 * (text protocol, rows as arrays, the connection options of the MySQL source) and drops every row.
 * Prints one JSON line: rows, seconds, CPU seconds.
 *
 *   node read-ceiling.ts PORT DB.TABLE …   (password in BENCH_MYSQL_PASSWORD)
 */
import { createConnection } from 'mysql2';

const [port = '3390', ...shards] = process.argv.slice(2);
const started = performance.now();
const cpu = process.cpuUsage();
let rows = 0;
for (const shard of shards) {
  const connection = createConnection({
    host: '127.0.0.1',
    port: Number(port),
    user: 'tributary',
    password: process.env.BENCH_MYSQL_PASSWORD ?? '',
    rowsAsArray: true,
    supportBigNumbers: true,
    bigNumberStrings: true,
    dateStrings: true,
  });
  const stream = connection.query(`SELECT * FROM ${shard} ORDER BY id`).stream({ highWaterMark: 10_000 });
  for await (const row of stream as AsyncIterable<unknown[]>) if (row.length > 0) rows++;
  connection.destroy();
}
const used = process.cpuUsage(cpu);
console.log(JSON.stringify({ rows, seconds: (performance.now() - started) / 1000, cpuSeconds: (used.user + used.system) / 1e6 }));
