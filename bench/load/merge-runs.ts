/**
 * `node --expose-gc bench/load/merge-runs.ts [--runs 1000] [--rows 2000] [--one-pass]`: one bucket
 * job's merge of many writers' runs, in this process, on a local store (no fsync): `--runs` writers
 * each spill one run of `--rows` rows (5 columns, two strings) into a one-bucket primary-key table's
 * runs path, then `mergeBucket` merges them. Prints one JSON line: the runs and their bytes, the
 * merge's CPU seconds, and the process's peak RSS (VmHWM) before and after the merge, so the merge's
 * growth is `hwmAfter - hwmBefore`. `--one-pass` merges every run at once (the merge before it
 * learnt to work in passes), for an A/B in separate processes.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { LocalObjectStore, createTable, mergeBucket, type BucketRunFile, type InternalRow } from '@tributary/table';

const { values } = parseArgs({ options: { runs: { type: 'string', default: '1000' }, rows: { type: 'string', default: '2000' }, 'one-pass': { type: 'boolean', default: false } } });
const writers = Number(values.runs);
const rowsPerRun = Number(values.rows);
const status = (field: string): number => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(readFileSync('/proc/self/status', 'utf8'))?.[1]) / 1024;

const dir = mkdtempSync(join(tmpdir(), 'merge-runs-'));
try {
  const store = new LocalObjectStore(dir, { fsync: false });
  const fields = [
    { name: 'id', type: 'BIGINT NOT NULL' },
    { name: 'store_id', type: 'INT' },
    { name: 'amount', type: 'BIGINT' },
    { name: 'status', type: 'STRING' },
    { name: 'note', type: 'STRING' },
  ];
  const table = await createTable(store, { database: 'bench', name: 'runs', schema: { fields, primaryKeys: ['id'], options: { bucket: '1' } } });
  const runs: BucketRunFile[] = [];
  const pad = 'x'.repeat(50);
  for (let w = 0; w < writers; w++) {
    const write = await table.newWrite({ writerId: `w${w}`, dataPath: 'runs', sequenceSlot: w, spill: true, maxBufferedRows: rowsPerRun + 1 });
    const rows: InternalRow[] = [];
    for (let i = 0; i < rowsPerRun; i++) {
      const id = i * writers + w;
      rows.push([BigInt(id), id % 97, BigInt(id * 3), `status-${id % 7}`, `${pad}${id}`]);
    }
    await write.writeRows(rows, rows.map(() => 0));
    for (const m of await write.prepareCommit()) {
      for (const f of m.dataIncrement.newFiles) runs.push({ fileName: f.fileName, size: Number(f.fileSize), rows: Number(f.rowCount), slot: w, minSequence: f.minSequenceNumber });
    }
  }
  (globalThis as { gc?: () => void }).gc?.();
  const hwmBefore = status('VmHWM');
  const rssBefore = status('VmRSS');
  const onePass = values['one-pass'] ? { fanIn: Number.POSITIVE_INFINITY, mergeBudgetBytes: Number.POSITIVE_INFINITY } : {};
  const t0 = process.cpuUsage();
  const started = performance.now();
  const merged = await mergeBucket({ store, tablePath: table.path, runsPath: 'runs', schema: table.schema, partition: new Uint8Array([0, 0, 0, 0]), bucket: 0, totalBuckets: 1, runs, writerId: 'merge', ...onePass });
  const cpu = process.cpuUsage(t0);
  if (merged.rows !== writers * rowsPerRun) throw new Error(`merged ${merged.rows} rows, expected ${writers * rowsPerRun}`);
  console.log(
    JSON.stringify({
      mode: values['one-pass'] ? 'one pass' : 'passes',
      runs: runs.length,
      runBytes: runs.reduce((n, r) => n + r.size, 0),
      rows: merged.rows,
      cpuS: Number(((cpu.user + cpu.system) / 1e6).toFixed(2)),
      wallS: Number(((performance.now() - started) / 1000).toFixed(2)),
      rssBeforeMB: Math.round(rssBefore),
      hwmBeforeMB: Math.round(hwmBefore),
      hwmAfterMB: Math.round(status('VmHWM')),
    }),
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
