/**
 * The table benchmark (`npm run bench:table`; see README.md): the same orders rows written by
 * Tributary, pypaimon and Paimon Java into an append table and a primary-key table (16 buckets) on
 * local disk, one process per peer and table, one after the other on the same machine. Every table
 * is then read back and checked against the formula's count and column sums, by Paimon Java for
 * the Tributary and Java tables and by pypaimon for its own. Prints rows/s, CPU time, peak RSS and
 * ratios.
 *
 *   npm run bench:table -- [--rows 2000000] [--chunk 100000] [--tables append,pk] [--peers tributary,pypaimon,paimon-java]
 *                          [--fsync off|on] [--no-warm] [--max-buffered-rows N]
 *
 * Fair by default: no peer flushes files to disk (Paimon Java's and pyarrow's local file systems do
 * not; `--fsync on` restores Tributary's durable default on its side only), and Tributary and Paimon
 * Java each write the rows once into a warm-up table in the same process before the timed write
 * (reported as the cold write; `--no-warm` times the first write). pypaimon runs once (no JIT).
 * The file counts are printed: `--max-buffered-rows` sets Tributary's write buffer (e.g. the row
 * count, for one file per partition-bucket as Paimon Java's 256 MB buffer gives here).
 *
 * Needs the pypaimon venv of `bash infra/oracles.sh` (.cache/venv), a JDK and Maven; the Java peer
 * is built here on first use and rebuilt only when its sources change.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { expectedTotals, TABLE_KINDS, type OrderTotals, type TableKind } from './orders.ts';

const here = fileURLToPath(new URL('.', import.meta.url));
const root = join(here, '..', '..');
const python = join(root, '.cache', 'venv', 'bin', 'python');
const javaDir = join(here, 'java');
const javaJar = join(javaDir, 'target', 'paimon-table-bench.jar');

const PEERS = ['tributary', 'pypaimon', 'paimon-java'] as const;
type Peer = (typeof PEERS)[number];

/** The JSON line each peer prints. */
interface PeerReport {
  readonly peer: Peer;
  readonly table: TableKind;
  readonly path: string;
  readonly rows: number;
  readonly files: number;
  readonly writeSeconds: number;
  readonly writeCpuSeconds: number;
  readonly totalSeconds: number;
  readonly peakRssBytes: number;
  /** The warm-up write in the same process before the timed one (absent without one). */
  readonly coldWriteSeconds?: number;
  readonly coldWriteCpuSeconds?: number;
}

/** How the peers are run (see the header). */
interface Fairness {
  readonly fsync: 'on' | 'off';
  readonly warm: boolean;
  readonly maxBufferedRows: string | undefined;
}

interface Result extends PeerReport {
  /** Process start to exit, measured here: includes runtime start-up and row generation. */
  readonly wallSeconds: number;
  readonly verified: string;
}

interface Output {
  readonly stdout: string;
  readonly stderr: string;
  readonly seconds: number;
}

function run(command: string, args: readonly string[], cwd = root): Promise<Output> {
  const start = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code === 0) resolve({ stdout, stderr, seconds: (performance.now() - start) / 1000 });
      else reject(new Error(`${command} ${args.join(' ')} exited with ${code}\n${stderr.slice(-4000)}`));
    });
  });
}

/** The last line of a peer's stdout, parsed. */
function lastJson(stdout: string): unknown {
  const lines = stdout.trim().split('\n');
  return JSON.parse(lines[lines.length - 1] ?? '');
}

/** Builds the Java peer unless target/ holds a build of exactly these sources and this JDK. */
async function buildJavaPeer(): Promise<void> {
  const sources = [join(javaDir, 'pom.xml'), ...(await listFiles(join(javaDir, 'src')))].sort();
  const hash = createHash('sha256');
  for (const file of sources) hash.update(file.slice(javaDir.length)).update(await readFile(file));
  // `java -version` answers on stderr.
  hash.update((await run('java', ['-version'])).stderr);
  const stamp = hash.digest('hex');
  const stampFile = join(javaDir, 'target', '.build-stamp');
  if (existsSync(javaJar) && existsSync(stampFile) && (await readFile(stampFile, 'utf8')) === stamp) return;
  console.error('bench: building the Paimon Java peer (mvn package)…');
  await run('mvn', ['--batch-mode', '--no-transfer-progress', '--quiet', 'clean', 'package'], javaDir);
  await writeFile(stampFile, stamp);
}

async function listFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries.filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name));
}

function peerCommand(peer: Peer, warehouse: string, table: TableKind, rows: number, chunk: number, fair: Fairness): [string, string[]] {
  switch (peer) {
    case 'tributary':
      return [
        process.execPath,
        [
          join(here, 'tributary.ts'),
          ...['--warehouse', warehouse, '--table', table, '--rows', `${rows}`, '--chunk', `${chunk}`, '--fsync', fair.fsync],
          ...(fair.warm ? ['--warm'] : []),
          ...(fair.maxBufferedRows === undefined ? [] : ['--max-buffered-rows', fair.maxBufferedRows]),
        ],
      ];
    case 'pypaimon':
      return [python, [join(here, 'python', 'bench.py'), '--warehouse', warehouse, '--table', table, '--rows', `${rows}`, '--chunk', `${chunk}`]];
    case 'paimon-java':
      return ['java', ['-jar', javaJar, 'write', warehouse, table, `${rows}`, `${chunk}`, ...(fair.warm ? ['warm'] : [])]];
  }
}

/** Reads a peer's table back (Paimon Java, or pypaimon for its own tables) and compares the totals. */
async function verify(peer: Peer, warehouse: string, report: PeerReport, expected: OrderTotals): Promise<string> {
  const tableName = report.path.slice(report.path.lastIndexOf('/') + 1);
  const reader = peer === 'pypaimon' ? 'pypaimon' : 'paimon-java';
  const { stdout } =
    reader === 'pypaimon'
      ? await run(python, [join(here, 'python', 'bench.py'), '--warehouse', warehouse, '--count', `bench.${tableName}`])
      : await run('java', ['-jar', javaJar, 'count', warehouse, 'bench', tableName]);
  const found = lastJson(stdout) as { rows: number; sumId: string; sumStoreId: string; sumAmountCents: string };
  const same =
    found.rows === expected.rows &&
    BigInt(found.sumId) === expected.sumId &&
    BigInt(found.sumStoreId) === expected.sumStoreId &&
    BigInt(found.sumAmountCents) === expected.sumAmountCents;
  if (!same) throw new Error(`${peer} ${report.table}: ${reader} read ${JSON.stringify(found)}, expected ${expected.rows} rows and other sums`);
  return `ok (${reader})`;
}

function formatTable(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]): string => cells.map((c, i) => (i < 2 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0))).join('  ');
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

const num = (n: number): string => Math.round(n).toLocaleString('en-US');
const mb = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(0)} MB`;

function report(results: readonly Result[]): string {
  const header = ['peer', 'table', 'rows/s', 'rows/CPU-s', 'write s', 'write CPU s', 'cold write s', 'cold CPU s', 'process s', 'peak RSS', 'files', 'check'];
  const rows = results.map((r) => [
    r.peer,
    r.table,
    num(r.rows / r.writeSeconds),
    num(r.rows / r.writeCpuSeconds),
    r.writeSeconds.toFixed(2),
    r.writeCpuSeconds.toFixed(2),
    r.coldWriteSeconds?.toFixed(2) ?? '–',
    r.coldWriteCpuSeconds?.toFixed(2) ?? '–',
    r.wallSeconds.toFixed(2),
    mb(r.peakRssBytes),
    `${r.files}`,
    r.verified,
  ]);
  const lines = [formatTable(header, rows), ''];
  const find = (peer: Peer, table: TableKind): Result | undefined => results.find((r) => r.peer === peer && r.table === table);
  for (const table of TABLE_KINDS) {
    const ours = find('tributary', table);
    if (ours === undefined) continue;
    for (const [peer, target] of [['pypaimon', 1], ['paimon-java', 0.5]] as const) {
      const other = find(peer, table);
      if (other === undefined) continue;
      const wall = other.writeSeconds / ours.writeSeconds;
      const cpu = other.writeCpuSeconds / ours.writeCpuSeconds;
      const goal = table === 'pk' ? ` (target ≥ ${target}: ${wall >= target ? 'met' : 'missed'})` : '';
      lines.push(`${table.padEnd(6)} Tributary / ${peer}: ${wall.toFixed(2)} by wall time, ${cpu.toFixed(2)} by CPU time${goal}`);
    }
    const rssOk = ours.peakRssBytes < 512 * 1024 * 1024;
    lines.push(`${table.padEnd(6)} Tributary peak RSS: ${mb(ours.peakRssBytes)} (target < 512 MB: ${rssOk ? 'met' : 'missed'})`);
  }
  return lines.join('\n');
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      rows: { type: 'string', default: '2000000' },
      chunk: { type: 'string', default: '100000' },
      tables: { type: 'string', default: TABLE_KINDS.join(',') },
      peers: { type: 'string', default: PEERS.join(',') },
      fsync: { type: 'string', default: 'off' },
      warm: { type: 'boolean', default: true },
      'max-buffered-rows': { type: 'string' },
    },
    allowNegative: true,
  });
  if (values.fsync !== 'on' && values.fsync !== 'off') throw new Error('--fsync off|on');
  const fair: Fairness = { fsync: values.fsync, warm: values.warm, maxBufferedRows: values['max-buffered-rows'] };
  const rows = Number(values.rows);
  const chunk = Number(values.chunk);
  if (!Number.isSafeInteger(rows) || rows < 1 || !Number.isSafeInteger(chunk) || chunk < 1) throw new Error('--rows and --chunk must be positive integers');
  const tables = values.tables.split(',') as TableKind[];
  const peers = values.peers.split(',') as Peer[];
  if (!tables.every((t) => TABLE_KINDS.includes(t)) || !peers.every((p) => PEERS.includes(p))) throw new Error(`--tables ${TABLE_KINDS.join(',')}; --peers ${PEERS.join(',')}`);
  if (peers.includes('pypaimon') && !existsSync(python)) throw new Error('the pypaimon venv is missing: run `bash infra/oracles.sh` first');
  // Paimon Java verifies the Tributary tables too, so it is built even when it does not write.
  await buildJavaPeer();

  const expected = expectedTotals(rows);
  const warehouse = await mkdtemp(join(tmpdir(), 'tributary-bench-'));
  const results: Result[] = [];
  try {
    for (const table of tables) {
      for (const peer of peers) {
        console.error(`bench: ${peer} writes ${num(rows)} rows into the ${table} table…`);
        const [command, args] = peerCommand(peer, warehouse, table, rows, chunk, fair);
        const { stdout, seconds } = await run(command, args);
        const peerReport = lastJson(stdout) as PeerReport;
        const verified = await verify(peer, warehouse, peerReport, expected);
        results.push({ ...peerReport, wallSeconds: seconds, verified });
        console.error(`bench: ${peer} ${table}: ${num(rows / peerReport.writeSeconds)} rows/s, ${mb(peerReport.peakRssBytes)} peak RSS, ${verified}`);
      }
    }
  } finally {
    await rm(warehouse, { recursive: true, force: true });
  }
  console.log(`\n${num(rows)} rows, chunks of ${num(chunk)}; write = write + commit, without start-up and row generation`);
  console.log(
    `fsync: ${fair.fsync === 'off' ? 'off on every side' : 'on for Tributary only (the peers never flush)'}; ` +
      `${fair.warm ? 'Tributary and Paimon Java timed on their second write in one process (the first is the cold write)' : 'every peer timed on its first write (cold)'}; ` +
      `Tributary's write buffer: ${fair.maxBufferedRows === undefined ? "the library's default" : `${fair.maxBufferedRows} rows`}; load average ${loadavg().map((l) => l.toFixed(1)).join(' / ')}\n`,
  );
  console.log(report(results));
}

await main();
