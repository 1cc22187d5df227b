/**
 * `node bench/compact/job.ts --warehouse DIR`: compaction jobs in this process, on a table an
 * earlier `bench:compact --warehouse DIR` built — the part of bench:compact that runs on a worker,
 * without the queues and the other processes (for `--cpu-prof` and quick comparisons).
 *
 * Plans a full compaction of `bench.base` (the planning's CPU printed), then rewrites `--jobs`
 * buckets one after another, each `--repeat` times, and prints each rewrite's CPU time (user +
 * system of this process) and rows. The table is only read: the new files go to a temporary
 * directory (`--out`), deleted at the end.
 *
 * Flags: --warehouse DIR (required) --table base --jobs 2 --repeat 2 --out DIR
 * --profile PREFIX (a CPU profile of each rewrite after the first: PREFIX.<n>.cpuprofile).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { LocalObjectStore, compactBucket, openTable, planTableCompaction, type ObjectStore } from '@tributary/table';

const { values } = parseArgs({
  options: {
    warehouse: { type: 'string' },
    table: { type: 'string', default: 'base' },
    jobs: { type: 'string', default: '2' },
    repeat: { type: 'string', default: '2' },
    out: { type: 'string' },
    profile: { type: 'string' },
  },
});
if (values.warehouse === undefined) throw new Error('--warehouse DIR is required');

const cpu = (): number => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
};

/** Reads from `source`, writes to `sink`: the table stays as it was. */
function readOnlyOver(source: ObjectStore, sink: ObjectStore): ObjectStore {
  return {
    uri: source.uri,
    get: (key) => source.get(key),
    getRange: (key, offset, length) => source.getRange(key, offset, length),
    stat: (key) => source.stat(key),
    put: (key, body) => sink.put(key, body),
    putIfAbsent: (key, body) => sink.putIfAbsent(key, body),
    list: (prefix) => source.list(prefix),
    listDirectories: (dir) => source.listDirectories(dir),
    delete: (key) => sink.delete(key),
    deleteMany: (keys) => sink.deleteMany(keys),
    close: () => source.close(),
  };
}

async function main(): Promise<void> {
  const source = new LocalObjectStore(values.warehouse as string);
  const out = values.out ?? mkdtempSync(join(tmpdir(), 'compact-job-'));
  const store = readOnlyOver(source, new LocalObjectStore(out));
  const table = await openTable(store, 'bench', values.table);
  let t0 = cpu();
  const plan = await planTableCompaction({ store, path: table.path, schema: table.schema }, { full: true });
  console.log(`plan: ${plan.liveFiles} live files, ${plan.buckets.length} jobs, ${(cpu() - t0).toFixed(2)} s CPU`);
  const profiler = values.profile === undefined ? undefined : new Session();
  profiler?.connect();
  await profiler?.post('Profiler.enable');
  await profiler?.post('Profiler.setSamplingInterval', { interval: 200 });
  const jobs = plan.buckets.slice(0, Number(values.jobs));
  let n = 0;
  for (let r = 0; r < Number(values.repeat); r++) {
    for (const b of jobs) {
      const profiled = profiler !== undefined && n > 0;
      if (profiled) await profiler.post('Profiler.start');
      t0 = cpu();
      const w0 = performance.now();
      const done = await compactBucket({ store, tablePath: table.path, schema: table.schema, partition: b.partition, bucket: b.bucket, totalBuckets: b.totalBuckets, unit: b.unit, writerId: `job-${n}` });
      const spent = cpu() - t0;
      const wall = (performance.now() - w0) / 1000;
      if (profiled) writeFileSync(`${values.profile}.${n}.cpuprofile`, JSON.stringify((await profiler.post('Profiler.stop')).profile));
      const after = done.message.compactIncrement.compactAfter;
      console.log(
        `bucket ${b.bucket}: ${b.unit.files.length} files, ${done.inputRows} rows in → ${done.rows} rows in ${after.length} files (${after.reduce((s, f) => s + Number(f.fileSize), 0)} bytes); ${spent.toFixed(2)} s CPU, ${wall.toFixed(2)} s wall`,
      );
      n += 1;
    }
  }
  if (values.out === undefined) rmSync(out, { recursive: true, force: true });
}

await main();
