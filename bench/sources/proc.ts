/** A process's CPU time and peak resident set, from /proc (Linux), for the memory benchmarks. */
import { readFileSync } from 'node:fs';

/** utime + stime of /proc/<pid>/stat, in seconds. */
export function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** VmHWM of /proc/<pid>/status: the process's peak resident set, in MiB. */
export function peakRssMb(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8').split('\n').find((l) => l.startsWith('VmHWM:')) ?? '';
  return Math.round(Number(/\d+/.exec(line)?.[0] ?? 0) / 1024);
}
