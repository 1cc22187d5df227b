/**
 * The table of part `layouts`: per table kind and layout, the median and range of each measure over
 * the runs; per pair, bucketed CPU / direct CPU and Paimon Java's read time direct / bucketed; the
 * targets (bucketed costs ≤ 1.3× the CPU of direct; Paimon Java reads the bucketed table ≥ 3×
 * faster) met or not.
 */
import type { Layout, LayoutRun, TableKind } from './layouts.ts';
import { median } from './stats.ts';

const sum = (xs: readonly number[]): number => xs.reduce((a, x) => a + x, 0);

/** "median [min–max]" with `digits` decimals. */
function spread(xs: readonly number[], digits: number): string {
  const f = (x: number): string => x.toLocaleString('en', { minimumFractionDigits: digits, maximumFractionDigits: digits });
  return xs.length === 1 ? f(xs[0] ?? NaN) : `${f(median(xs))} [${f(Math.min(...xs))}–${f(Math.max(...xs))}]`;
}

const cpuS = (r: LayoutRun): number => (r.coordinatorCpuMs + sum(r.workerCpuMs)) / 1000;

function rows(table: readonly (readonly string[])[]): string {
  const widths = table[0]?.map((_, c) => Math.max(...table.map((r) => (r[c] ?? '').length))) ?? [];
  return table.map((r) => r.map((cell, c) => (c === 0 ? cell.padEnd(widths[c] ?? 0) : cell.padStart(widths[c] ?? 0))).join('  ')).join('\n');
}

export function printLayouts(runs: readonly LayoutRun[]): void {
  const kinds = [...new Set(runs.map((r) => r.kind))] as TableKind[];
  for (const kind of kinds) {
    const of = (layout: Layout): LayoutRun[] => runs.filter((r) => r.kind === kind && r.asked === layout);
    const first = runs.find((r) => r.kind === kind);
    if (first === undefined) continue;
    console.log(`\n=== layouts, ${kind} table: ${first.shards} shards, ${first.rows.toLocaleString('en')} rows; median [min–max] over ${of('direct').length} direct and ${of('bucketed').length} bucketed runs ===`);
    console.log(`order: ${runs.filter((r) => r.kind === kind).map((r) => `${r.asked} (load ${r.load[0].toFixed(1)}→${r.load[1].toFixed(1)})`).join(', ')}`);
    const table: string[][] = [['layout', 'POST → COMMITTED s', 'rows/s', 'CPU s (coord. + workers)', 'coord. CPU s', 'files', 'worker peak RSS MB', 'Java read cold s', 'Java read warm s']];
    for (const layout of ['direct', 'bucketed'] as const) {
      const rs = of(layout);
      if (rs.length === 0) continue;
      table.push([
        layout,
        spread(rs.map((r) => r.endToEndMs / 1000), 1),
        spread(rs.map((r) => r.rows / (r.endToEndMs / 1000)), 0),
        spread(rs.map(cpuS), 1),
        spread(rs.map((r) => r.coordinatorCpuMs / 1000), 1),
        spread(rs.map((r) => r.files ?? NaN), 0),
        spread(rs.map((r) => Math.max(...r.workerPeakRssMb)), 0),
        spread(rs.map((r) => r.javaColdMs / 1000), 2),
        spread(rs.map((r) => r.javaWarmMs / 1000), 2),
      ]);
    }
    console.log(rows(table));
    const pairs = [...new Set(runs.filter((r) => r.kind === kind).map((r) => r.pair))];
    const cpuRatios: number[] = [];
    const coldRatios: number[] = [];
    const warmRatios: number[] = [];
    for (const pair of pairs) {
      const d = of('direct').find((r) => r.pair === pair);
      const b = of('bucketed').find((r) => r.pair === pair);
      if (d === undefined || b === undefined) continue;
      cpuRatios.push(cpuS(b) / cpuS(d));
      coldRatios.push(d.javaColdMs / b.javaColdMs);
      warmRatios.push(d.javaWarmMs / b.javaWarmMs);
    }
    if (cpuRatios.length === 0) continue;
    const cpu = median(cpuRatios);
    const warm = median(warmRatios);
    console.log(`per pair (${cpuRatios.length}): bucketed CPU / direct CPU = ${spread(cpuRatios, 2)} (target ≤ 1.3: ${cpu <= 1.3 ? 'met' : 'MISSED'})`);
    if (warmRatios.every(Number.isNaN)) console.log('per pair: Paimon Java read time not measured (--no-layouts-java)');
    else console.log(`per pair: Paimon Java read time direct / bucketed, warm = ${spread(warmRatios, 2)} (target ≥ 3: ${warm >= 3 ? 'met' : 'MISSED'}); cold (JVM start included) = ${spread(coldRatios, 2)}`);
  }
}
