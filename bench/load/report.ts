/**
 * The load benchmark's table: per contender the median and range of rows/s by wall time and by CPU
 * time over the rounds, peak RSS and file counts, then Tributary's ratios to each peer and whether
 * each target is met.
 */
import { median } from '../sync/stats.ts';

export interface Measurement {
  readonly contender?: string;
  readonly round?: number;
  readonly rows?: number;
  readonly loadAverage?: number;
  /** The load's wall time (Tributary: POST → COMMITTED; loaders: their own timing, start-up excluded). */
  readonly seconds: number;
  /** CPU time of every process of the contender over that time. */
  readonly cpuSeconds: number;
  readonly workerCpuSeconds?: number;
  readonly peakRssMb: number;
  /** The loader process's whole life, JVM or interpreter start-up included. */
  readonly processSeconds?: number;
  readonly check?: { readonly ok: boolean; readonly files: number; readonly detail: string };
  /** CPU seconds the local services (MinIO, MariaDB) used over the load, outside the contender's own. */
  readonly serviceCpu?: Readonly<Record<string, number>>;
  /** Tributary: how long the sync spent in each phase before COMMITTED (its record's phaseDurationsMs). */
  readonly phases?: Readonly<Record<string, number>>;
}

interface Report {
  readonly shards: number;
  readonly rowsPerShard: number;
  readonly measurements: readonly Measurement[];
  readonly loadAverage: readonly number[];
}

const int = (n: number) => (Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : '–');
const range = (values: readonly number[]) => `${int(Math.min(...values))}–${int(Math.max(...values))}`;

export function printReport(report: Report): void {
  const by = new Map<string, Measurement[]>();
  for (const m of report.measurements) by.set(m.contender ?? '?', [...(by.get(m.contender ?? '?') ?? []), m]);
  const rows = report.shards * report.rowsPerShard;
  console.log(`\n${report.shards} shards × ${report.rowsPerShard.toLocaleString('en-US')} rows = ${rows.toLocaleString('en-US')} rows; load average at the end ${report.loadAverage.map((l) => l.toFixed(2)).join(' ')}\n`);
  console.log('| contender | runs | rows/s (median) | range | CPU s (median) | rows/CPU-s (median) | range | peak RSS MB (max) | files | checked |');
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|---|');
  const summary = new Map<string, { wall: number; cpu: number; files: number; rss: number }>();
  for (const [contender, ms] of by) {
    const wall = ms.map((m) => rows / m.seconds);
    const cpu = ms.map((m) => rows / m.cpuSeconds);
    const files = ms.map((m) => m.check?.files ?? NaN);
    const rss = Math.max(...ms.map((m) => m.peakRssMb).filter(Number.isFinite));
    const checked = ms.every((m) => m.check === undefined) ? '(not a table)' : ms.every((m) => m.check?.ok === true) ? 'all ok' : 'FAILED';
    summary.set(contender, { wall: median(wall), cpu: median(cpu), files: median(files), rss });
    console.log(
      `| ${contender} | ${ms.length} | ${int(median(wall))} | ${range(wall)} | ${median(ms.map((m) => m.cpuSeconds)).toFixed(2)} | ${int(median(cpu))} | ${range(cpu)} | ${int(rss)} | ${files.every(Number.isNaN) ? '–' : [...new Set(files)].join(', ')} | ${checked} |`,
    );
  }
  const services = [...by].filter(([, ms]) => ms.some((m) => Object.keys(m.serviceCpu ?? {}).length > 0));
  if (services.length > 0) {
    const names = [...new Set(services.flatMap(([, ms]) => ms.flatMap((m) => Object.keys(m.serviceCpu ?? {}))))];
    console.log(`\n| contender | ${names.map((n) => `${n} CPU s (median)`).join(' | ')} | own + services CPU s (median) |`);
    console.log(`|---|${names.map(() => '---:|').join('')}---:|`);
    for (const [contender, ms] of services) {
      const cell = (n: string) => median(ms.map((m) => m.serviceCpu?.[n] ?? NaN)).toFixed(2);
      const all = median(ms.map((m) => m.cpuSeconds + Object.values(m.serviceCpu ?? {}).reduce((a, b) => a + b, 0)));
      console.log(`| ${contender} | ${names.map(cell).join(' | ')} | ${all.toFixed(2)} |`);
    }
  }
  const t = summary.get('tributary');
  if (t === undefined) return;
  const ratio = (peer: string, target: number, what: string) => {
    const p = summary.get(peer);
    if (p === undefined) return;
    const wall = t.wall / p.wall;
    const cpu = t.cpu / p.cpu;
    console.log(`| tributary / ${peer} | ${wall.toFixed(2)} | ${cpu.toFixed(2)} | ${what} ≥ ${target}: ${wall >= target ? 'met' : 'NOT met'} by wall, ${cpu >= target ? 'met' : 'NOT met'} by CPU |`);
  };
  console.log('\n| ratio (rows/s, medians) | by wall | by CPU | target |');
  console.log('|---|---:|---:|---|');
  ratio('baseline', 0, 'the baseline checkout (no target)');
  ratio('java', 1.5, 'Paimon Java');
  ratio('pypaimon', 5, 'pypaimon');
  ratio('mysql2', 0.5, 'mysql2 ceiling');
  ratio('mariadb', 0, 'mariadb client (no target)');
  ratio('psql', 0.5, 'psql ceiling (PostgreSQL)');
  console.log(`\nTributary worker peak RSS ${int(t.rss)} MB (target ≤ 384: ${t.rss <= 384 ? 'met' : 'NOT met'})`);
  const java = summary.get('java');
  if (java !== undefined && Number.isFinite(java.files)) {
    const within = Math.abs(t.files - java.files) <= 0.2 * java.files;
    console.log(`Files: Tributary ${int(t.files)}, Paimon Java ${int(java.files)} (target ±20%: ${within ? 'met' : 'NOT met'})`);
  }
}
