/**
 * The files source's CSV read path on its own, in one process: a CSV file of the load benchmark's
 * 11-column shape (bench/load/dataset.ts: integers, two DECIMALs, ASCII and unicode text (some
 * quoted, with commas and doubled quotes), DATE, TIMESTAMP(3) and TIMESTAMP(6), about one empty
 * field (NULL) in ten in every nullable column), generated here, read by the files source and
 * converted to the table's columns, interleaved (A B B A …):
 *
 * - `cells`: the batch's cells written into the table's columns (`columnConverter(…).batch`, what
 *   the worker does);
 * - `rows`: the same batches' rows of source values through the column converter's row path
 *   (`columnConverter(…)(rows)`);
 * - `before`: the read as the files source did it before the cells (every record through
 *   `csvRecords`, one await per record, projected into a row; batches of 10,000 rows through the
 *   row path).
 *
 * `parse` reads the batches without converting them (the floor of `cells` and `rows`). Prints
 * wall and CPU time per read and the medians and ranges (on a shared machine, CPU time is the
 * steadier figure). The garbage collector's share depends on the young generation's size: run it
 * with the worker's bound (`--max-semi-space-size=16`, packages/cli/bin/node-flags.js) to see what
 * a worker pays, and without it for Node's default.
 *
 *   node [--max-semi-space-size=16] packages/sources/bench/csv-read.bench.ts [rows = 500000] [pairs = 3]
 */
import { mkdtempSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cpuUsage, hrtime } from 'node:process';
import { pathToFileURL } from 'node:url';
import { openObjectStore, parseDataTypeString, type RowType } from '@tributary/table';
import { FilesSource } from '../src/files/source.ts';
import { csvValue } from '../src/files/csv-cells.ts';
import { csvRecords, utf8Text } from '../src/files/text-records.ts';
import { loadSourceAccess } from '../src/access.ts';
import type { SourceBatch, SourceRow } from '../src/source.ts';
import { columnConverter } from '../src/values/columns.ts';

const ROWS = Number(process.argv[2] ?? 500_000);
const PAIRS = Number(process.argv[3] ?? 3);

/** The load benchmark's columns (bench/load/dataset.ts LOAD_COLUMNS) as the table types they load into. */
const COLUMNS = [
  ['id', 'BIGINT NOT NULL'],
  ['customer_id', 'INT NOT NULL'],
  ['store_id', 'INT'],
  ['amount', 'DECIMAL(12, 2)'],
  ['tax', 'DECIMAL(18, 4)'],
  ['status', 'VARCHAR(16)'],
  ['note', 'VARCHAR(64)'],
  ['order_date', 'DATE'],
  ['created_at', 'TIMESTAMP(3) NOT NULL'],
  ['updated_at', 'TIMESTAMP(6)'],
  ['qty', 'INT'],
] as const;

const STATUSES = ['NEW', 'PAID', 'SHIPPED', 'DELIVERED', 'CANCELLED'];
const pad = (n: number, width = 2): string => String(n).padStart(width, '0');

/** Row `seq` (1-based): a formula of seq per column, empty (NULL) when seq mod 10 hits the column's residue, as dataset.ts. */
function line(seq: number): string {
  const nullable = (residue: number, text: string): string => (seq % 10 === residue ? '' : text);
  const day = (seq % 28) + 1;
  const month = (seq % 12) + 1;
  const date = `20${pad(10 + (seq % 15))}-${pad(month)}-${pad(day)}`;
  const time = `${pad(seq % 24)}:${pad(seq % 60)}:${pad((seq * 7) % 60)}`;
  const note = seq % 3 === 0 ? `"note ${seq}, ""ünïcödé"" 東京"` : `note ${seq} 😀`;
  return [
    String(seq),
    String((seq * 7919) % 1_000_000),
    nullable(1, String(seq % 500)),
    nullable(2, `${(seq * 37) % 100_000}.${pad(seq % 100)}`),
    nullable(3, `${(seq * 13) % 10_000}.${pad(seq % 10_000, 4)}`),
    nullable(4, STATUSES[seq % STATUSES.length] as string),
    nullable(5, note),
    nullable(6, date),
    `${date} ${time}.${pad(seq % 1000, 3)}`,
    nullable(7, `${date} ${time}.${pad(seq % 1_000_000, 6)}`),
    nullable(8, String(seq % 100)),
  ].join(',');
}

const dir = mkdtempSync(join(tmpdir(), 'bench-csv-'));
try {
  const path = join(dir, 'orders.csv');
  const lines = [COLUMNS.map(([name]) => name).join(',')];
  for (let seq = 1; seq <= ROWS; seq++) lines.push(line(seq));
  writeFileSync(path, `${lines.join('\n')}\n`);
  lines.length = 0;
  console.log(`${ROWS} rows, ${(statSync(path).size / 1e6).toFixed(1)} MB, pairs ${PAIRS}`);

  const root = pathToFileURL(realpathSync(dir)).href;
  const uri = `${root}/orders.csv`;
  const access = loadSourceAccess({ env: { TRIBUTARY_SOURCE_ROOTS: root }, readText: (p) => readFileSync(p, 'utf8'), realpath: (p) => Promise.resolve(realpathSync(p)) });
  const names = COLUMNS.map(([name]) => name);
  const table: RowType = { fields: COLUMNS.map(([name, type], id) => ({ id, name, type: parseDataTypeString(type) })) };
  const openStore = (r: string) => openObjectStore(r);
  const source = new FilesSource({ kind: 'files', format: 'csv', uris: [uri] }, { openStore, columns: names, access });
  const toColumns = columnConverter('bench', await source.columns(), table);
  const shard = { id: 'orders', spec: { files: [uri] } };

  const read = async (convert: (batch: SourceBatch) => number): Promise<number> => {
    let rows = 0;
    for await (const batch of source.open(shard)) rows += convert(batch);
    return rows;
  };
  /** The files source's CSV read before the cells (its `#rows` and `#batches`), through the row path. */
  const before = async (): Promise<number> => {
    const store = openStore(root);
    const chunks = async function* (): AsyncIterable<Uint8Array> {
      const meta = await store.stat('orders.csv');
      for (let offset = 0; offset < (meta?.size ?? 0); offset += 1 << 20) yield await store.getRange('orders.csv', offset, 1 << 20);
    };
    const rowsOf = async function* (): AsyncIterable<SourceRow> {
      let indexes: number[] | undefined;
      for await (const fields of csvRecords(utf8Text(chunks()), uri, { allowUnterminatedLastLine: false })) {
        if (indexes === undefined) indexes = names.map((c) => fields.indexOf(c));
        else yield indexes.map((i) => csvValue(fields[i]));
      }
    };
    let n = 0;
    let rows: SourceRow[] = [];
    for await (const row of rowsOf()) {
      rows.push(row);
      if (rows.length === 10_000) {
        n += toColumns(rows, n).length;
        rows = [];
      }
    }
    if (rows.length > 0) n += toColumns(rows, n).length;
    return n;
  };
  const modes: Record<string, () => Promise<number>> = {
    cells: () => read((batch) => toColumns.batch(batch).length),
    rows: () => read((batch) => toColumns(batch.rows, batch.firstRowPosition).length),
    before,
    parse: () => read((batch) => batch.columnar?.length ?? 0),
  };
  const results: Record<string, { wall: number; cpu: number }[]> = { cells: [], rows: [], before: [], parse: [] };
  const measure = async (name: string): Promise<void> => {
    const cpu = cpuUsage();
    const start = hrtime.bigint();
    const n = await (modes[name] as () => Promise<number>)();
    const wall = Number(hrtime.bigint() - start) / 1e9;
    const used = cpuUsage(cpu);
    const cpuSeconds = (used.user + used.system) / 1e6;
    if (n !== ROWS) throw new Error(`${name} read ${n} rows, not ${ROWS}`);
    (results[name] as { wall: number; cpu: number }[]).push({ wall, cpu: cpuSeconds });
    console.log(`${name.padEnd(8)} wall ${wall.toFixed(2)} s  cpu ${cpuSeconds.toFixed(2)} s (${Math.round(n / cpuSeconds).toLocaleString('en')} rows/cpu-s)`);
  };
  await measure('parse'); // warm-up (JIT, page cache)
  results.parse = [];
  const orders = [
    ['cells', 'rows', 'before'],
    ['before', 'rows', 'cells'],
    ['rows', 'cells', 'before'],
  ];
  for (let pair = 0; pair < PAIRS; pair++) for (const name of orders[pair % orders.length] as string[]) await measure(name);
  for (let pair = 0; pair < PAIRS; pair++) await measure('parse');
  const median = (xs: number[]): number => {
    const s = [...xs].sort((a, b) => a - b);
    const m = Math.floor(s.length / 2);
    return s.length % 2 === 1 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
  };
  const summary = (name: string): { cpu: number; wall: number } => {
    const r = results[name] as { wall: number; cpu: number }[];
    const cpus = r.map((x) => x.cpu);
    const walls = r.map((x) => x.wall);
    console.log(
      `${name.padEnd(8)} median cpu ${median(cpus).toFixed(2)} s [${Math.min(...cpus).toFixed(2)}–${Math.max(...cpus).toFixed(2)}]  wall ${median(walls).toFixed(2)} s [${Math.min(...walls).toFixed(2)}–${Math.max(...walls).toFixed(2)}]  (${r.length} runs)`,
    );
    return { cpu: median(cpus), wall: median(walls) };
  };
  const cells = summary('cells');
  const rows = summary('rows');
  const old = summary('before');
  summary('parse');
  console.log(`cells / rows: cpu ${(cells.cpu / rows.cpu).toFixed(2)}×, wall ${(cells.wall / rows.wall).toFixed(2)}×`);
  console.log(`cells / before: cpu ${(cells.cpu / old.cpu).toFixed(2)}×, wall ${(cells.wall / old.wall).toFixed(2)}×`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
