/**
 * The files source's Parquet read path on its own, in one process: a Parquet file of the load
 * benchmark's 11-column shape (bench/load/dataset.ts: integers, two DECIMALs, ASCII and unicode
 * text, DATE, TIMESTAMP(3) and TIMESTAMP(6), about one NULL in ten in every nullable column),
 * written by pyarrow (bench/load/python/orders_parquet.py in the oracle venv, infra/oracles.sh), read by the files source and converted
 * to the table's columns, the two ways a batch can reach them, interleaved (A B B A …):
 *
 * - `columnar`: the batch's cells written into the table's columns (`columnConverter(…).batch`,
 *   what the worker does);
 * - `rows`: the same batches' rows of source values (decoded from the cells, as the source built
 *   them before) through the column converter's row path (`columnConverter(…)(rows)`), as before.
 *
 * `decode` reads the batches without converting them (the table reader's decoding of the column
 * chunks, the floor of both). Prints wall and CPU time per read and the medians and ranges (on a
 * shared machine, CPU time is the steadier figure).
 *
 *   node packages/sources/bench/parquet-read.bench.ts [rows = 500000] [pairs = 3] [fixed|int]
 *
 * `fixed` (pyarrow's default) stores the DECIMALs as FIXED_LEN_BYTE_ARRAY; `int` as INT64 (as Spark does).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, realpathSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cpuUsage, hrtime } from 'node:process';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { openObjectStore, parseDataTypeString, type RowType } from '@tributary/table';
import { oraclePaths } from '@tributary/testkit';
import { FilesSource } from '../src/files/source.ts';
import { loadSourceAccess } from '../src/access.ts';
import type { SourceBatch } from '../src/source.ts';
import { columnConverter } from '../src/values/columns.ts';

const ROWS = Number(process.argv[2] ?? 500_000);
const PAIRS = Number(process.argv[3] ?? 3);
const DECIMALS = process.argv[4] === 'int' ? 'int' : 'fixed';

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

// Shard 0 of the load benchmark's dataset, written by pyarrow.
const WRITER = fileURLToPath(new URL('../../../bench/load/python/orders_parquet.py', import.meta.url));

const dir = mkdtempSync(join(tmpdir(), 'bench-parquet-'));
try {
  const path = join(dir, 'orders.parquet');
  execFileSync(oraclePaths.python, [WRITER, String(ROWS), '0', path, DECIMALS], { stdio: ['ignore', 'inherit', 'inherit'] });
  console.log(`${ROWS} rows, ${(statSync(path).size / 1e6).toFixed(1)} MB (snappy, DECIMAL as ${DECIMALS === 'int' ? 'INT64' : 'FIXED_LEN_BYTE_ARRAY'}), pairs ${PAIRS}`);

  const root = pathToFileURL(realpathSync(dir)).href;
  const access = loadSourceAccess({ env: { TRIBUTARY_SOURCE_ROOTS: root }, readText: (p) => readFileSync(p, 'utf8'), realpath: (p) => Promise.resolve(realpathSync(p)) });
  const names = COLUMNS.map(([name]) => name);
  const table: RowType = { fields: COLUMNS.map(([name, type], id) => ({ id, name, type: parseDataTypeString(type) })) };
  const source = new FilesSource({ kind: 'files', format: 'parquet', uris: [`${root}/orders.parquet`] }, { openStore: (r) => openObjectStore(r), columns: names, access });
  const toColumns = columnConverter('bench', await source.columns(), table);
  const shard = { id: 'orders', spec: { files: [`${root}/orders.parquet`] } };

  const read = async (convert: (batch: SourceBatch) => number): Promise<number> => {
    let rows = 0;
    for await (const batch of source.open(shard)) rows += convert(batch);
    return rows;
  };
  const modes: Record<string, () => Promise<number>> = {
    columnar: () => read((batch) => toColumns.batch(batch).length),
    rows: () => read((batch) => toColumns(batch.rows, batch.firstRowPosition, batch.file).length),
    decode: () => read((batch) => batch.columnar?.length ?? 0),
  };
  const results: Record<string, { wall: number; cpu: number }[]> = { columnar: [], rows: [], decode: [] };
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
  await measure('decode'); // warm-up (JIT, page cache)
  for (let pair = 0; pair < PAIRS; pair++) {
    const order = pair % 2 === 0 ? ['columnar', 'rows'] : ['rows', 'columnar'];
    for (const name of order) await measure(name);
  }
  for (let pair = 0; pair < PAIRS; pair++) await measure('decode');
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
  const columnar = summary('columnar');
  const rows = summary('rows');
  summary('decode');
  console.log(`columnar / rows: cpu ${(columnar.cpu / rows.cpu).toFixed(2)}×, wall ${(columnar.wall / rows.wall).toFixed(2)}×`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
