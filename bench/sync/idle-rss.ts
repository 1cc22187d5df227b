/**
 * `node bench/sync/idle-rss.ts [--runs 3] [--settle 8] [--baseline <checkout>] [--node-args "<flags>"]`:
 * the resident memory of a started coordinator that runs no sync. Each run starts `tributary
 * coordinator` (bin/tributary.js, as deployed, so with the Node flags it gives a coordinator) on a
 * fresh key prefix against the local Redis and MinIO, waits for its ready line and then `--settle`
 * seconds, and reads from /proc: VmRSS, VmHWM (the peak, start-up included) and its CPU time; then
 * it asks the process for `process.memoryUsage()` and its V8 heap spaces through a preloaded probe
 * (NODE_OPTIONS `--import`, printed on stderr). With `--baseline`, another checkout (e.g. `git
 * worktree add` of main) is started in alternation with this one (ours, baseline, ours, …).
 * `--node-args`: more Node flags for both (e.g. "--max-semi-space-size=8"), to try a flag.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { cpuSeconds, peakRssMb, startProcess, stopProcess } from './processes.ts';
import { median } from './stats.ts';

const here = fileURLToPath(new URL('../../', import.meta.url));
const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '3' },
    settle: { type: 'string', default: '8' },
    baseline: { type: 'string' },
    'node-args': { type: 'string', default: '' },
  },
});
const runs = Number(values.runs);
const settleMs = Number(values.settle) * 1000;

// The probe: on SIGUSR2, one line of JSON on stderr with the process's memory, heap spaces and code.
const probe = join(mkdtempSync(join(tmpdir(), 'idle-rss-')), 'probe.mjs');
writeFileSync(
  probe,
  `import { getHeapSpaceStatistics, getHeapCodeStatistics } from 'node:v8';
process.on('SIGUSR2', () => {
  const spaces = Object.fromEntries(getHeapSpaceStatistics().filter((s) => s.physical_space_size > 0).map((s) => [s.space_name, s.physical_space_size]));
  process.stderr.write('IDLE-RSS-PROBE ' + JSON.stringify({ ...process.memoryUsage(), spaces, code: getHeapCodeStatistics() }) + '\\n');
});
`,
);

const mb = (bytes: number): number => Math.round((bytes / 1048576) * 10) / 10;

interface Run {
  readonly rss: number;
  readonly hwm: number;
  readonly cpu: number;
  readonly heapTotal: number;
  readonly heapUsed: number;
  readonly external: number;
  readonly newSpace: number;
  readonly oldSpace: number;
}

function vmRssMb(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('VmRSS:'));
  return Number(/(\d+)/.exec(line ?? '')?.[1] ?? NaN) / 1024;
}

async function once(from: string): Promise<Run> {
  const env = {
    ...process.env,
    TRIBUTARY_CLUSTER_SECRET: randomBytes(32).toString('base64url'),
    TRIBUTARY_PREFIX: `idle-rss-${randomBytes(4).toString('hex')}`,
    TRIBUTARY_PORT: '0',
    TRIBUTARY_LOG_LEVEL: 'warn',
    NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --import ${probe} ${values['node-args']}`.trim(),
  };
  const { child } = await startProcess('coordinator', env, [], from);
  const pid = child.pid ?? -1;
  let probed = '';
  child.stderr?.on('data', (d: Buffer) => (probed += d.toString()));
  await new Promise((r) => setTimeout(r, settleMs));
  const rss = vmRssMb(pid);
  const hwm = peakRssMb(pid);
  const cpu = cpuSeconds(pid);
  child.kill('SIGUSR2');
  for (let i = 0; i < 50 && !probed.includes('IDLE-RSS-PROBE'); i++) await new Promise((r) => setTimeout(r, 100));
  await stopProcess(child);
  const line = probed.split('\n').find((l) => l.startsWith('IDLE-RSS-PROBE ')) ?? '';
  const m = JSON.parse(line.slice('IDLE-RSS-PROBE '.length) || '{}') as NodeJS.MemoryUsage & { spaces?: Record<string, number> };
  return {
    rss,
    hwm,
    cpu,
    heapTotal: mb(m.heapTotal),
    heapUsed: mb(m.heapUsed),
    external: mb(m.external),
    newSpace: mb(m.spaces?.new_space ?? NaN),
    oldSpace: mb(m.spaces?.old_space ?? NaN),
  };
}

const summary = (xs: number[]): string => `${median(xs).toFixed(1)} [${Math.min(...xs).toFixed(1)}–${Math.max(...xs).toFixed(1)}]`;

const sides: [string, string][] = [['ours', here]];
if (values.baseline !== undefined) sides.push(['baseline', values.baseline]);
const results = new Map<string, Run[]>(sides.map(([name]) => [name, []]));
console.log(`load average at start: ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}`);
for (let i = 0; i < runs; i++) {
  for (const [name, from] of sides) {
    const run = await once(from);
    results.get(name)?.push(run);
    console.log(`${name} run ${i + 1}: ${JSON.stringify(run)}`);
  }
}
console.log(`load average at end: ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}`);
console.log('\n| code | RSS idle (MB) | peak VmHWM (MB) | start CPU (s) | heap total | heap used | external | new space | old space |');
console.log('|---|---|---|---|---|---|---|---|---|');
for (const [name, rs] of results) {
  const col = (k: keyof Run): string => summary(rs.map((r) => r[k]));
  console.log(`| ${name} | ${col('rss')} | ${col('hwm')} | ${col('cpu')} | ${col('heapTotal')} | ${col('heapUsed')} | ${col('external')} | ${col('newSpace')} | ${col('oldSpace')} |`);
}
