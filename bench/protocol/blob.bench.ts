/**
 * `npm run bench:protocol`: encode and decode a CommitMessage blob of 10,000 file entries
 * (100 messages × 100 files), whole-buffer and streamed, and stream one of 100,000 entries.
 * Each phase runs twice, each time in a fresh process: once timed (a warm-up, then ITERATIONS
 * runs) for MB/s, and once as a single run for its peak RSS, which is then that one operation's
 * own (plus the ~100 MB of a Node process with the modules loaded). MB/s counts blob bytes.
 * A benchmark, not a test: it prints numbers and checks only that the decode saw every file.
 */
import { spawnSync } from 'node:child_process';
import { cpus, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { decodeBlob, decodeBlobStream, encodeBlob, encodeBlobStream } from '@tributary/protocol';
import type { CommitMessage } from '@tributary/table';
import { EXPECT, header, message } from './sample-files.ts';

const FILES_PER_MESSAGE = 100;
const ITERATIONS = 10;
/** Set by the child process: 1 for the memory run, ITERATIONS for the timed run. */
let iterations = ITERATIONS;

interface PhaseResult {
  readonly phase: string;
  readonly files: number;
  readonly blobBytes: number;
  readonly seconds: number;
  readonly cpuSeconds: number;
  readonly mbPerSecond: number;
  readonly mbPerCpuSecond: number;
  readonly peakRssMb: number;
  readonly baselineRssMb: number;
}

function* messages(count: number): Generator<CommitMessage> {
  for (let m = 0; m < count; m++) yield message(m, FILES_PER_MESSAGE);
}

async function drainFiles(chunks: AsyncIterable<Uint8Array>): Promise<number> {
  const stream = await decodeBlobStream(chunks, EXPECT);
  let files = 0;
  for await (const m of stream.messages) files += m.dataIncrement.newFiles.length;
  return files;
}

async function* replay(blob: Uint8Array, chunkBytes: number): AsyncGenerator<Uint8Array> {
  for (let at = 0; at < blob.length; at += chunkBytes) yield blob.subarray(at, at + chunkBytes);
}

interface Timing {
  readonly seconds: number;
  /** User + system CPU time: the honest number on a shared, loaded machine. */
  readonly cpuSeconds: number;
}

/** Runs `body` ITERATIONS times after one warm-up; returns wall and CPU seconds per iteration. */
async function timed(body: () => Promise<void> | void, runs = iterations): Promise<Timing> {
  if (runs > 1) await body();
  const cpu = process.cpuUsage();
  const started = process.hrtime.bigint();
  for (let i = 0; i < runs; i++) await body();
  const used = process.cpuUsage(cpu);
  return {
    seconds: Number(process.hrtime.bigint() - started) / 1e9 / runs,
    cpuSeconds: (used.user + used.system) / 1e6 / runs,
  };
}

const PHASES: Record<string, (files: number) => Promise<Timing & { blobBytes: number }>> = {
  async encode(files) {
    const input = [...messages(files / FILES_PER_MESSAGE)];
    let blobBytes = 0;
    const timing = await timed(() => {
      blobBytes = encodeBlob(header(files), input).length;
    });
    return { ...timing, blobBytes };
  },
  async decode(files) {
    const blob = encodeBlob(header(files), [...messages(files / FILES_PER_MESSAGE)]);
    const timing = await timed(() => {
      const seen = decodeBlob(blob, EXPECT).messages.reduce((n, m) => n + m.dataIncrement.newFiles.length, 0);
      if (seen !== files) throw new Error(`decoded ${seen} files, expected ${files}`);
    });
    return { ...timing, blobBytes: blob.length };
  },
  async 'encode-stream'(files) {
    let blobBytes = 0;
    const timing = await timed(async () => {
      blobBytes = 0;
      for await (const chunk of encodeBlobStream(header(files), files / FILES_PER_MESSAGE, messages(files / FILES_PER_MESSAGE))) {
        blobBytes += chunk.length;
      }
    });
    return { ...timing, blobBytes };
  },
  async 'decode-stream'(files) {
    const blob = encodeBlob(header(files), [...messages(files / FILES_PER_MESSAGE)]);
    const timing = await timed(async () => {
      const seen = await drainFiles(replay(blob, 64 * 1024));
      if (seen !== files) throw new Error(`decoded ${seen} files, expected ${files}`);
    });
    return { ...timing, blobBytes: blob.length };
  },
  /** Encoder piped into decoder: neither the blob nor the messages are ever all in memory. */
  async 'stream-through'(files) {
    let blobBytes = 0;
    async function* counted(): AsyncGenerator<Uint8Array> {
      for await (const chunk of encodeBlobStream(header(files), files / FILES_PER_MESSAGE, messages(files / FILES_PER_MESSAGE))) {
        blobBytes += chunk.length;
        yield chunk;
      }
    }
    const timing = await timed(async () => {
      const seen = await drainFiles(counted());
      if (seen !== files) throw new Error(`decoded ${seen} files, expected ${files}`);
    }, 1);
    return { ...timing, blobBytes };
  },
};

async function runPhase(phase: string, files: number): Promise<PhaseResult> {
  const run = PHASES[phase];
  if (run === undefined) throw new Error(`unknown phase ${phase}`);
  const baselineRssMb = process.memoryUsage().rss / 2 ** 20;
  const { seconds, cpuSeconds, blobBytes } = await run(files);
  return {
    phase,
    files,
    blobBytes,
    seconds,
    cpuSeconds,
    mbPerSecond: blobBytes / 2 ** 20 / seconds,
    mbPerCpuSecond: blobBytes / 2 ** 20 / cpuSeconds,
    peakRssMb: process.resourceUsage().maxRSS / 1024,
    baselineRssMb,
  };
}

function main(): void {
  const plan: [string, number][] = [
    ['encode', 10_000],
    ['decode', 10_000],
    ['encode-stream', 10_000],
    ['decode-stream', 10_000],
    ['stream-through', 100_000],
  ];
  const child = (phase: string, files: number, runs: number): PhaseResult => {
    const args = [fileURLToPath(import.meta.url), phase, String(files), String(runs)];
    const run = spawnSync(process.execPath, args, { encoding: 'utf8' });
    if (run.status !== 0) throw new Error(`${phase} failed: ${run.stderr}`);
    return JSON.parse(run.stdout) as PhaseResult;
  };
  const results: PhaseResult[] = plan.map(([phase, files]) => {
    const timing = child(phase, files, ITERATIONS);
    const memory = child(phase, files, 1);
    return { ...timing, peakRssMb: memory.peakRssMb, baselineRssMb: memory.baselineRssMb };
  });
  const load = loadavg()[0]!.toFixed(1);
  console.log(`node ${process.version}, ${cpus().length} CPUs, load average ${load}; ${ITERATIONS} timed iterations after one warm-up`);
  console.log('MB = 2^20 bytes of blob; "cpu" columns use the process\'s own CPU time, "wall" the clock;');
  console.log('peak RSS is of a process that ran the operation once (its RSS after loading the modules in brackets)');
  console.log('phase            files  blob MB  wall ms  wall MB/s  cpu ms  cpu MB/s  peak RSS MB (at start)');
  for (const r of results) {
    console.log(
      `${r.phase.padEnd(15)} ${String(r.files).padStart(6)} ${(r.blobBytes / 2 ** 20).toFixed(2).padStart(8)} ` +
        `${(r.seconds * 1000).toFixed(1).padStart(8)} ${r.mbPerSecond.toFixed(1).padStart(10)} ` +
        `${(r.cpuSeconds * 1000).toFixed(1).padStart(7)} ${r.mbPerCpuSecond.toFixed(1).padStart(9)} ` +
        `${r.peakRssMb.toFixed(0).padStart(12)} (${r.baselineRssMb.toFixed(0)})`,
    );
  }
}

const [phase, files, runs] = process.argv.slice(2);
if (phase === undefined) {
  main();
} else {
  iterations = Number(runs ?? ITERATIONS);
  console.log(JSON.stringify(await runPhase(phase, Number(files))));
}
