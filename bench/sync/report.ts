/**
 * The benchmark's results and the table it prints: every number measured, the ratios, and the
 * targets (coordination under 10% of end-to-end time; commit under 2 s at 1,000 shards,
 * growing linearly).
 */
import type { SyncMeasurement } from './sync-run.ts';
import type { BaselineMeasurement } from './table-only.ts';
import type { ApiLoadResult } from './api-load.ts';
import type { CommitCopyResult } from '@tributary/testkit';
import { median } from './stats.ts';

export interface EndToEndResult extends SyncMeasurement {
  readonly snapshotRows: number;
  /** CPU time of each worker and of the coordinator from POST to COMMITTED. */
  readonly workerCpuMs: readonly number[];
  readonly coordinatorCpuMs: number;
  readonly coordinatorPeakRssMb?: number;
}

export interface TinyResult extends SyncMeasurement {
  readonly snapshotRows: number;
  readonly coordinatorPeakRssMb: number;
  /** The coordinator process's CPU time (user + system) from its start to its stop, start-up included. */
  readonly coordinatorCpuS: number;
  /** Start of the coordinator and workers → stopped: how long this size took. */
  readonly wallMs: number;
  /** Paimon Java's own commit() of the same messages, in order (the first in a cold JVM); empty if not run. */
  readonly javaCommits: readonly CommitCopyResult[];
  /** The commit latencies of the same sync run again on the same processes (--tiny-syncs), warm; the fields above are the first, cold, sync's. */
  readonly warmCommitLatenciesMs: readonly number[];
}

export interface Results {
  readonly run: string;
  readonly warehouse: string;
  readonly shards: number;
  readonly rowsPerShard: number;
  readonly workers: number;
  /** CPU model and count, and the 1-minute load average as each part started (other work on the machine skews the numbers). */
  readonly machine: string;
  readonly load: Record<string, number>;
  /** One per --repeat: an end-to-end sync and a table-only write of the same rows. */
  readonly rounds: Round[];
  readonly tiny: TinyResult[];
}

export interface Round {
  readonly index: number;
  endToEnd?: EndToEndResult;
  tableOnly?: BaselineMeasurement & { readonly snapshotRows: number };
}

const s = (ms: number): string => `${(ms / 1000).toFixed(2)} s`;
const n = (x: number): string => Math.round(x).toLocaleString('en');
const ok = (pass: boolean): string => (pass ? 'met' : 'MISSED');
const pct = (x: number): string => `${(x * 100).toFixed(1)}%`;
const sum = (xs: readonly number[]): number => xs.reduce((a, x) => a + x, 0);

function rows(table: readonly (readonly string[])[]): string {
  const widths = table[0]?.map((_, c) => Math.max(...table.map((r) => (r[c] ?? '').length))) ?? [];
  return table.map((r) => r.map((cell, c) => (c === 0 ? cell.padEnd(widths[c] ?? 0) : cell.padStart(widths[c] ?? 0))).join('  ')).join('\n');
}

function phases(p: Readonly<Record<string, number>>): string {
  return ['PLANNED', 'PREPARING', 'COMMITTING', 'ABORTING']
    .filter((k) => p[k] !== undefined)
    .map((k) => `${k} ${n(p[k] ?? 0)} ms`)
    .join(', ');
}

export function printResults(r: Results): void {
  const total = r.shards * r.rowsPerShard;
  console.log(`\n=== Sync benchmark ${r.run}: ${r.shards} shards × ${n(r.rowsPerShard)} rows = ${n(total)} rows, ${r.workers} worker processes ===`);
  const load = Object.entries(r.load).map(([part, l]) => `${part} ${l.toFixed(1)}`).join(', ');
  console.log(`machine: ${r.machine}; 1-min load average at the start of each part: ${load}\n`);
  const table: string[][] = [['', 'time', 'rows/s', 'rows in snapshot', 'notes']];
  for (const { index, endToEnd: e, tableOnly: b } of r.rounds) {
    if (e !== undefined) {
      const cpu = `CPU: workers ${e.workerCpuMs.map((w) => s(w)).join(', ')}, coordinator ${s(e.coordinatorCpuMs)}; ${e.retries} retries`;
      table.push([`#${index} end to end (POST → COMMITTED)`, s(e.endToEndMs), n(e.rows / (e.endToEndMs / 1000)), n(e.snapshotRows), cpu]);
      table.push([`#${index}   POST → snapshot visible`, s(e.postToVisibleMs), '', '', '']);
    }
    if (b !== undefined) {
      const notes = `writers ${b.writerMs.map((w) => s(w)).join(', ')} (CPU ${b.writerCpuMs.map((w) => s(w)).join(', ')}); commit ${n(b.commitMs)} ms`;
      table.push([`#${index} table only (write + one commit)`, s(b.totalMs), n(b.rows / (b.totalMs / 1000)), n(b.snapshotRows), notes]);
    }
  }
  if (table.length > 1) console.log(rows(table));
  const wallCosts: number[] = [];
  const cpuCosts: number[] = [];
  for (const { index, endToEnd: e, tableOnly: b } of r.rounds) {
    if (e !== undefined) {
      console.log(`\n#${index} phases: ${phases(e.phaseDurationsMs)}`);
      console.log(`#${index} commit latency (last shard finished → snapshot seen by a reader): ${n(e.commitLatencyMs)} ms (to the snapshot's own time: ${n(e.commitLatencySnapshotMs)} ms)`);
      if (e.coordinatorPeakRssMb !== undefined) console.log(`#${index} coordinator peak RSS: ${e.coordinatorPeakRssMb.toFixed(0)} MB`);
    }
    if (e === undefined || b === undefined) continue;
    const cost = (e.endToEndMs - b.totalMs) / e.endToEndMs;
    // Wall time swings with whatever else the machine runs; CPU time of the processes does much less.
    const syncCpu = sum(e.workerCpuMs) + e.coordinatorCpuMs;
    const cpuCost = (syncCpu - sum(b.writerCpuMs)) / syncCpu;
    wallCosts.push(cost);
    cpuCosts.push(cpuCost);
    console.log(`#${index} cost of coordination = (end to end − table only) / end to end = ${pct(cost)}; end-to-end rate / table-only rate = ${(b.totalMs / e.endToEndMs).toFixed(3)}`);
    console.log(`#${index} cost of coordination in CPU time = (workers + coordinator − table-only writers) / (workers + coordinator) = ${pct(cpuCost)}`);
  }
  if (wallCosts.length > 0) {
    const wall = median(wallCosts);
    console.log(`\ncost of coordination, median of ${wallCosts.length}: ${pct(wall)} wall (target < 10%: ${ok(wall < 0.1)}), ${pct(median(cpuCosts))} CPU`);
  }
  if (r.tiny.length > 0) printTiny(r.tiny);
}

function printTiny(tiny: readonly TinyResult[]): void {
  console.log('\ncommit latency vs shard count (tiny shards):');
  const table: string[][] = [
    ['shards', 'commit latency', 'to snapshot time', 'COMMITTING', 'PREPARING', 'POST → COMMITTED', 'per 1,000 shards', 'coord. peak RSS', 'coord. CPU', 'size took'],
  ];
  for (const t of tiny) {
    table.push([
      n(t.shards),
      `${n(t.commitLatencyMs)} ms`,
      `${n(t.commitLatencySnapshotMs)} ms`,
      `${n(t.phaseDurationsMs.COMMITTING ?? NaN)} ms`,
      `${n(t.phaseDurationsMs.PREPARING ?? NaN)} ms`,
      s(t.endToEndMs),
      `${n((t.commitLatencyMs / t.shards) * 1000)} ms`,
      `${t.coordinatorPeakRssMb.toFixed(0)} MB`,
      `${t.coordinatorCpuS.toFixed(1)} s`,
      s(t.wallMs),
    ]);
  }
  console.log(rows(table));
  for (let i = 1; i < tiny.length; i++) {
    const [a, c] = [tiny[i - 1], tiny[i]];
    if (a === undefined || c === undefined) continue;
    console.log(`  ${n(a.shards)} → ${n(c.shards)} shards (×${(c.shards / a.shards).toFixed(0)}): commit latency ×${(c.commitLatencyMs / a.commitLatencyMs).toFixed(1)}`);
  }
  const withJava = tiny.filter((t) => t.javaCommits.length > 0);
  if (withJava.length > 0) {
    console.log("\nagainst Paimon Java's own commit() of the same messages (one per data file; the first commit in a cold JVM, the rest warm; ours: the first sync on fresh processes, the rest warm, --tiny-syncs):");
    const java: string[][] = [
      ['shards', 'messages', 'ours cold', 'Java cold', 'ours cold / Java cold', 'ours warm (median [range])', 'Java warm (median [range])', 'Java warm CPU', 'ours cold / Java warm', 'ours warm / Java warm (target ≤ 1.2)'],
    ];
    const spread = (ms: readonly number[]) => (ms.length > 0 ? `${n(median(ms))} ms [${n(Math.min(...ms))}–${n(Math.max(...ms))}]` : '–');
    const ratio = (a: number, b: number, target?: number) => (Number.isFinite(a / b) ? `${(a / b).toFixed(2)}×${target === undefined ? '' : ` (${ok(a / b <= target)})`}` : '–');
    for (const t of withJava) {
      const [cold, ...warm] = t.javaCommits;
      const warmMs = warm.map((c) => c.commitMs);
      const javaWarm = warmMs.length > 0 ? median(warmMs) : NaN;
      const oursWarm = t.warmCommitLatenciesMs.length > 0 ? median(t.warmCommitLatenciesMs) : NaN;
      java.push([
        n(t.shards),
        n(cold?.messages ?? NaN),
        `${n(t.commitLatencyMs)} ms`,
        `${n(cold?.commitMs ?? NaN)} ms`,
        ratio(t.commitLatencyMs, cold?.commitMs ?? NaN),
        spread(t.warmCommitLatenciesMs),
        spread(warmMs),
        warm.length > 0 ? `${n(median(warm.map((c) => c.commitCpuMs)))} ms` : '–',
        ratio(t.commitLatencyMs, javaWarm, Number.isFinite(oursWarm) ? undefined : 1.2),
        ratio(oursWarm, javaWarm, 1.2),
      ]);
    }
    console.log(rows(java));
  }
  const at1000 = tiny.find((t) => t.shards === 1000);
  if (at1000 !== undefined) console.log(`commit latency at 1,000 shards: ${n(at1000.commitLatencyMs)} ms (target < 2 s: ${ok(at1000.commitLatencyMs < 2000)})`);
  const bad = tiny.filter((t) => t.snapshotRows !== t.rows);
  if (bad.length > 0) console.log(`ROW COUNT MISMATCH at ${bad.map((t) => t.shards).join(', ')} shards`);
}

/** Median (and range) over the rounds of each contender's percentiles, per call, with CPU per request of the server and of the client. */
export function printApiLoad(result: ApiLoadResult): void {
  console.log(`\nAPI under load: ${result.syncs.toLocaleString('en')} syncs × ${result.shards.toLocaleString('en')} shards stored (median over rounds [min–max], ms)`);
  console.log(
    `${'contender'.padEnd(10)} ${'call'.padEnd(26)} ${'p50'.padEnd(22)}${'p95'.padEnd(22)}${'p99'.padEnd(22)}${'wall'.padEnd(22)}${'server CPU/req'.padEnd(22)}${'client CPU/req'.padEnd(22)}load`,
  );
  const keys = [...new Set(result.bursts.map((b) => `${b.contender}\u0000${b.call}`))];
  const fmt = (xs: number[], digits = 1): string => `${median(xs).toFixed(digits)} [${Math.min(...xs).toFixed(digits)}–${Math.max(...xs).toFixed(digits)}]`.padEnd(22);
  for (const key of keys) {
    const [contender = '', call = ''] = key.split('\u0000');
    const bs = result.bursts.filter((b) => b.contender === contender && b.call === call);
    console.log(
      `${contender.padEnd(10)} ${call.padEnd(26)} ${fmt(bs.map((b) => b.p50))}${fmt(bs.map((b) => b.p95))}${fmt(bs.map((b) => b.p99))}${fmt(bs.map((b) => b.wallMs), 0)}` +
        `${fmt(bs.map((b) => (b.cpuS * 1000) / b.requests), 2)}${fmt(bs.map((b) => (b.clientCpuS * 1000) / b.requests), 2)}${bs.map((b) => b.load.toFixed(1)).join('/')}`,
    );
  }
  const at = (b: ApiLoadResult['bursts'][number]) => b.concurrency >= 200 && b.contender === 'ours';
  const worst = result.bursts.filter(at);
  if (worst.length > 0) {
    for (const kind of [...new Set(worst.map((b) => b.call))]) {
      const p99 = median(worst.filter((b) => b.call === kind).map((b) => b.p99));
      console.log(`target p99 < 50 ms, ours, ${kind}: median p99 ${p99.toFixed(1)} ms (${p99 < 50 ? 'met' : 'NOT met'})`);
    }
  }
  if (result.sustained.length > 0) {
    console.log(`\nSustained (autocannon: every connection sends its next request when the last is answered; median over rounds [min–max]; CPU in ms per request)`);
    console.log(`${'contender'.padEnd(10)} ${'call'.padEnd(28)} ${'req/s'.padEnd(22)}${'p50'.padEnd(22)}${'p99'.padEnd(22)}${'coordinator CPU'.padEnd(22)}${'Redis CPU'.padEnd(22)}${'client CPU'.padEnd(22)}load`);
    const fmt = (xs: number[], digits = 1): string => `${median(xs).toFixed(digits)} [${Math.min(...xs).toFixed(digits)}–${Math.max(...xs).toFixed(digits)}]`.padEnd(22);
    for (const key of [...new Set(result.sustained.map((r) => `${r.contender}\u0000${r.call}`))]) {
      const [contender = '', call = ''] = key.split('\u0000');
      const rs = result.sustained.filter((r) => r.contender === contender && r.call === call);
      const per = (pick: (r: (typeof rs)[number]) => number) => rs.map((r) => (pick(r) * 1000) / r.requests);
      console.log(
        `${contender.padEnd(10)} ${call.padEnd(28)} ${fmt(rs.map((r) => r.rps), 0)}${fmt(rs.map((r) => r.p50))}${fmt(rs.map((r) => r.p99))}` +
          `${fmt(per((r) => r.cpuS), 3)}${fmt(per((r) => r.redisCpuS), 3)}${fmt(per((r) => r.clientCpuS), 3)}${rs.map((r) => r.load.toFixed(1)).join('/')}`,
      );
    }
    for (const r of [...new Set(result.sustained.filter((r) => r.contender === 'ours' && r.connections >= 200).map((r) => r.call))]) {
      const p99 = median(result.sustained.filter((s) => s.contender === 'ours' && s.call === r).map((s) => s.p99));
      console.log(`target p99 < 50 ms, ours, ${r}: median p99 ${p99.toFixed(1)} ms (${p99 < 50 ? 'met' : 'NOT met'})`);
    }
  }
  console.log(`coordinator peak RSS: ${Object.entries(result.peakRssMb).map(([n, mb]) => `${n} ${mb.toFixed(0)} MB`).join(', ')}`);
}
