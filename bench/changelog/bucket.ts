/**
 * `node bench/changelog/bucket.ts`: one bucket job in this process, on a local warehouse, without
 * and with `changelog-producer = input` — the part of bench:changelog that differs between the two,
 * without the queues, S3 and the other processes (for `--cpu-prof` and quick comparisons).
 *
 * Two one-bucket tables of `--base-rows` rows (8 writers' runs merged by a bucket job, committed),
 * then per round a load of `--keys` keys (`--updates`, `--deletes` of existing keys spread over the
 * bucket, the rest new) written as 8 writers' runs and merged by the bucket job of each table:
 * `mergeBucket` (none) and `writeBucketChangelog` over `mergeBucketRuns` (input). Prints the CPU
 * time (user + system of this process) of each bucket job and the ratio, per round and the median.
 *
 * Flags: --base-rows 125000 --keys 12500 --updates 0.10 --deletes 0.01 --rounds 5 --dir /tmp/...
 * --profile PREFIX (CPU profiles of the measured `input` bucket jobs: PREFIX.<round>.cpuprofile).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import {
  LocalObjectStore,
  createTable,
  mergeBucket,
  mergeBucketRuns,
  writeBucketChangelog,
  type BucketMergeInput,
  type BucketRunFile,
  type InternalRow,
  type Table,
} from '@tributary/table';
import { median } from '../sync/stats.ts';

const { values } = parseArgs({
  options: {
    'base-rows': { type: 'string', default: '125000' },
    keys: { type: 'string', default: '12500' },
    updates: { type: 'string', default: '0.10' },
    deletes: { type: 'string', default: '0.01' },
    rounds: { type: 'string', default: '5' },
    dir: { type: 'string' },
    profile: { type: 'string' },
  },
});
const baseRows = Number(values['base-rows']);
const keys = Number(values.keys);
const updates = Math.round(keys * Number(values.updates));
const deletes = Math.round(keys * Number(values.deletes));
const rounds = Number(values.rounds);
const WRITERS = 8;
const STATUSES = ['NEW', 'PAID', 'SHIPPED', 'DELIVERED'];

function row(id: number, version: number, op: string | null = null): InternalRow {
  const h = Math.imul(id ^ (version * 0x9e3779b1), 0x85ebca6b) >>> 0;
  return [BigInt(id), 1 + (h % 64), BigInt((h >>> 6) % 100_000), STATUSES[h % 4] as string, op];
}

/** Writes rows as WRITERS writers' sorted runs under `runsPath`; returns the runs. */
async function writeRuns(table: Table, runsPath: string, rows: (writer: number) => InternalRow[]): Promise<BucketRunFile[]> {
  const runs: BucketRunFile[] = [];
  for (let w = 0; w < WRITERS; w++) {
    const write = await table.newWrite({ writerId: `w${w}`, dataPath: runsPath, sequenceSlot: w, bufferRows: 1_000_000, maxBufferedRows: 1_000_000 });
    const batch = rows(w);
    // The delete marker: rows with op = 'D' are retractions.
    await write.writeRows(batch, batch.map((r) => (r[4] === 'D' ? 3 : 0)));
    for (const m of await write.prepareCommit()) {
      for (const f of m.dataIncrement.newFiles) runs.push({ fileName: f.fileName, size: Number(f.fileSize), slot: w, minSequence: f.minSequenceNumber });
    }
  }
  return runs;
}

function input(table: Table, runsPath: string, runs: BucketRunFile[], writerId: string): BucketMergeInput {
  return { store: table.store, tablePath: table.path, runsPath, schema: table.schema, partition: new Uint8Array([0, 0, 0, 0]), bucket: 0, totalBuckets: 1, runs, writerId };
}

const profiles: unknown[] = [];

const cpu = (): number => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
};

/** With --profile FILE: a CPU profile of the measured `input` bucket jobs only, written at the end. */
const profiler = values.profile === undefined ? undefined : new Session();
profiler?.connect();
await profiler?.post('Profiler.enable');
await profiler?.post('Profiler.setSamplingInterval', { interval: 100 });

async function bucketJob(table: Table, runsPath: string, runs: BucketRunFile[], round: number, changelog: boolean): Promise<number> {
  const latest = await table.latestSnapshot();
  const base = latest === null ? null : Number(latest.id);
  const profiled = profiler !== undefined && changelog && round >= 0;
  if (profiled) await profiler.post('Profiler.start');
  const t0 = cpu();
  const writerId = `merge-${round}`;
  const bucket = input(table, runsPath, runs, writerId);
  const merged = changelog
    ? await writeBucketChangelog(bucket, mergeBucketRuns(bucket), await table.newChangelogWrite({ baseSnapshotId: base, writerId }))
    : await mergeBucket(bucket);
  const spent = cpu() - t0;
  if (profiled) profiles.push((await profiler.post('Profiler.stop')).profile);
  if (merged.message !== undefined) await table.newCommit(`bench-${round}`).commit([merged.message], base === null ? {} : { baseSnapshotId: base });
  return spent;
}

async function main(): Promise<void> {
  const dir = values.dir ?? mkdtempSync(join(tmpdir(), 'changelog-bucket-'));
  const store = new LocalObjectStore(dir);
  const fields = [
    { name: 'id', type: 'BIGINT NOT NULL' },
    { name: 'store_id', type: 'INT' },
    { name: 'amount', type: 'BIGINT' },
    { name: 'status', type: 'STRING' },
    { name: 'op', type: 'STRING' },
  ];
  const tables = {
    none: await createTable(store, { database: 'bench', name: 'none', schema: { fields, primaryKeys: ['id'], options: { bucket: '1' } } }),
    input: await createTable(store, { database: 'bench', name: 'input', schema: { fields, primaryKeys: ['id'], options: { bucket: '1', 'changelog-producer': 'input' } } }),
  };
  console.log(`bucket job: base ${baseRows} rows, loads of ${keys} keys (${updates} updates, ${deletes} deletes), ${WRITERS} writers' runs, ${rounds} rounds; ${dir}`);
  const baseRuns = (w: number) => {
    const out: InternalRow[] = [];
    for (let id = 1 + w; id <= baseRows; id += WRITERS) out.push(row(id, 0));
    return out;
  };
  for (const [name, table] of Object.entries(tables)) {
    const runsPath = `runs/base-${name}`;
    const spent = await bucketJob(table, runsPath, await writeRuns(table, runsPath, baseRuns), -1, name === 'input');
    console.log(`  base ${name}: ${spent.toFixed(2)} s CPU`);
  }
  const ratios: number[] = [];
  const times: Record<'none' | 'input', number[]> = { none: [], input: [] };
  for (let p = 0; p < rounds; p++) {
    const touched = updates + deletes;
    const stride = Math.max(1, Math.floor(baseRows / Math.max(1, touched)));
    const first = baseRows + p * keys + 1;
    const load = (w: number) => {
      const out: InternalRow[] = [];
      for (let j = w; j < touched; j += WRITERS) {
        const id = 1 + ((j * stride + p) % baseRows);
        out.push(j < updates ? row(id, p + 1) : row(id, p + 1, 'D'));
      }
      for (let j = w; j < keys - touched; j += WRITERS) out.push(row(first + j, p + 1));
      return out;
    };
    const spent: Record<string, number> = {};
    for (const name of p % 2 === 0 ? (['none', 'input'] as const) : (['input', 'none'] as const)) {
      const table = tables[name];
      const runsPath = `runs/load-${p}-${name}`;
      spent[name] = await bucketJob(table, runsPath, await writeRuns(table, runsPath, load), p, name === 'input');
    }
    const ratio = (spent.input as number) / (spent.none as number);
    ratios.push(ratio);
    times.none.push(spent.none as number);
    times.input.push(spent.input as number);
    console.log(`  round ${p}: none ${spent.none?.toFixed(3)} s, input ${spent.input?.toFixed(3)} s CPU, ratio ${ratio.toFixed(2)}×`);
  }
  console.log(`median CPU per job: none ${median(times.none).toFixed(3)} s, input ${median(times.input).toFixed(3)} s; ratio of medians ${(median(times.input) / median(times.none)).toFixed(2)}×`);
  console.log(`median ratio ${median(ratios).toFixed(2)}× (range ${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)}×)`);
  profiles.forEach((profile, i) => writeFileSync(`${values.profile}.${i}.cpuprofile`, JSON.stringify(profile)));
  if (values.dir === undefined) rmSync(dir, { recursive: true, force: true });
}

await main();
