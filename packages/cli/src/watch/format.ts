/**
 * What `tributary sync watch` shows, pure: from successive samples of a sync (its phase and each
 * shard's status and rows), per-shard rows/s and ETA and the sync's totals. Rates are measured
 * between this process's own samples (no clock of another machine is trusted); a finished shard's
 * rate is its rows over its duration. ETA needs the shard's expected rows (known for the generator)
 * or, for the sync, shards finished so far.
 */

export type ShardStatus = 'waiting' | 'running' | 'done' | 'failed';

export interface ShardSample {
  readonly id: string;
  readonly status: ShardStatus;
  /** Rows written so far (live while running when the workers report it; at the end otherwise). */
  readonly rows: number | null;
  readonly bytes: number | null;
  readonly durationMs: number | null;
}

export interface SyncSample {
  /** Local time of the sample, ms. */
  readonly at: number;
  readonly id: string;
  readonly phase: string;
  readonly shards: readonly ShardSample[];
  /** Rows each shard is expected to write, when the source says (the generator). */
  readonly expectedRowsPerShard: number | null;
  readonly snapshotId: number | null;
  readonly error: string | null;
  /**
   * The bucket jobs of a bucketed load (null: the direct layout, whose shards write the files):
   * accepted of `total` (null until the buckets are planned), rows merged so far.
   */
  readonly buckets?: { readonly accepted: number; readonly total: number | null; readonly rows: number } | null;
}

/** Where a running shard (by id) or the bucket stage (`MERGE`) was first seen, to measure its rate from. */
export type RateOrigins = Map<string | typeof MERGE, { readonly at: number; readonly rows: number }>;

/** The key of the bucket stage's origin in `RateOrigins`. */
export const MERGE: unique symbol = Symbol('the bucket stage');

export interface ShardLine {
  readonly id: string;
  readonly status: ShardStatus;
  readonly rows: number | null;
  readonly rowsPerSec: number | null;
  readonly etaSec: number | null;
}

export interface Progress {
  readonly done: number;
  readonly total: number;
  readonly rows: number;
  readonly rowsPerSec: number | null;
  readonly etaSec: number | null;
  readonly shards: readonly ShardLine[];
}

export const TERMINAL = new Set(['COMMITTED', 'ABORTED']);

/** Updates `origins` with shards seen running for the first time; returns the progress at `sample`. */
export function progressOf(sample: SyncSample, origins: RateOrigins, startedAt: number): Progress {
  const shards = sample.shards.map((s): ShardLine => {
    let rowsPerSec: number | null = null;
    if (s.status === 'done' && s.rows !== null && s.durationMs !== null && s.durationMs > 0) {
      rowsPerSec = (s.rows * 1000) / s.durationMs;
    } else if (s.status === 'running') {
      const origin = origins.get(s.id);
      if (origin === undefined) origins.set(s.id, { at: sample.at, rows: s.rows ?? 0 });
      else if (sample.at > origin.at && s.rows !== null) rowsPerSec = ((s.rows - origin.rows) * 1000) / (sample.at - origin.at);
    }
    let etaSec: number | null = null;
    if (s.status === 'done') etaSec = 0;
    else if (s.status === 'running' && sample.expectedRowsPerShard !== null && rowsPerSec !== null && rowsPerSec > 0) {
      etaSec = Math.max(0, (sample.expectedRowsPerShard - (s.rows ?? 0)) / rowsPerSec);
    }
    return { id: s.id, status: s.status, rows: s.rows, rowsPerSec, etaSec };
  });
  const done = shards.filter((s) => s.status === 'done').length;
  const rows = shards.reduce((sum, s) => sum + (s.rows ?? 0), 0);
  const elapsed = (sample.at - startedAt) / 1000;
  const rowsPerSec = elapsed > 0 ? rows / elapsed : null;
  let etaSec: number | null = null;
  if (TERMINAL.has(sample.phase)) etaSec = 0;
  else if (sample.phase === 'MERGING' && sample.buckets != null) etaSec = mergeEta(sample, sample.buckets.rows, rows, origins);
  else if (done === shards.length) etaSec = 0;
  else if (sample.expectedRowsPerShard !== null && rowsPerSec !== null && rowsPerSec > 0) {
    etaSec = Math.max(0, (sample.expectedRowsPerShard * shards.length - rows) / rowsPerSec);
  } else if (done > 0 && elapsed > 0) etaSec = ((shards.length - done) * elapsed) / done;
  return { done, total: shards.length, rows, rowsPerSec, etaSec, shards };
}

/**
 * MERGING: the bucket jobs merge the rows the shards read; the time left is the rows not merged yet
 * at the rate measured since this process first saw the stage.
 */
function mergeEta(sample: SyncSample, merged: number, read: number, origins: RateOrigins): number | null {
  const origin = origins.get(MERGE);
  if (origin === undefined) {
    origins.set(MERGE, { at: sample.at, rows: merged });
    return null;
  }
  if (sample.at <= origin.at || merged <= origin.rows) return null;
  return Math.max(0, ((read - merged) * (sample.at - origin.at)) / (merged - origin.rows) / 1000);
}

const count = (n: number) => Math.round(n).toLocaleString('en-US');
const rate = (r: number | null) => (r === null ? '—' : `${count(r)} rows/s`);
export function eta(seconds: number | null): string {
  if (seconds === null) return 'ETA —';
  if (seconds < 60) return `ETA ${Math.ceil(seconds)} s`;
  const m = Math.floor(seconds / 60);
  return m < 60 ? `ETA ${m} min ${Math.ceil(seconds - m * 60)} s` : `ETA ${Math.floor(m / 60)} h ${m % 60} min`;
}

/** The sync's one-line summary: what a non-terminal output prints whenever it changes. */
export function summaryLine(sample: SyncSample, p: Progress, elapsedMs: number): string {
  const end = sample.phase === 'COMMITTED' ? `  snapshot ${sample.snapshotId ?? '?'}` : sample.error === null ? '' : `  ${sample.error}`;
  const live = TERMINAL.has(sample.phase) ? '' : `  ${rate(p.rowsPerSec)}  ${eta(p.etaSec)}`;
  return `${sample.phase.padEnd(11)} shards ${p.done}/${p.total}  rows ${count(p.rows)}${bucketsPart(sample)}${live}  (${(elapsedMs / 1000).toFixed(1)} s)${end}`;
}

/** `  buckets 3/8` once a bucketed load has left PREPARING. */
function bucketsPart(sample: SyncSample): string {
  const b = sample.buckets;
  if (b == null || sample.phase === 'PLANNED' || sample.phase === 'PREPARING' || (b.total === null && b.accepted === 0)) return '';
  return `  buckets ${b.accepted}/${b.total ?? '?'}`;
}

const BAR = 20;
function bar(s: ShardLine, expected: number | null): string {
  const fraction = s.status === 'done' ? 1 : expected !== null && expected > 0 && s.rows !== null ? Math.min(1, s.rows / expected) : 0;
  const full = Math.round(fraction * BAR);
  return `[${'#'.repeat(full)}${(s.status === 'running' && full < BAR ? '>' : '.').repeat(full < BAR ? 1 : 0)}${'.'.repeat(Math.max(0, BAR - full - 1))}]`;
}

/** The terminal frame: the summary, then one line per shard (at most `maxShards`, running ones first). */
export function frame(sample: SyncSample, p: Progress, elapsedMs: number, maxShards = 20): string[] {
  const order: Record<ShardStatus, number> = { running: 0, failed: 1, waiting: 2, done: 3 };
  const shown = [...p.shards].sort((a, b) => order[a.status] - order[b.status]).slice(0, maxShards);
  const width = Math.max(8, ...shown.map((s) => s.id.length));
  const lines = [`sync ${sample.id}`, summaryLine(sample, p, elapsedMs)];
  for (const s of shown) {
    const rows = s.rows === null ? '' : `${count(s.rows)} rows`;
    const detail = s.status === 'running' ? `${rate(s.rowsPerSec)}  ${eta(s.etaSec)}` : s.status === 'done' ? rate(s.rowsPerSec) : '';
    lines.push(`  ${s.id.padEnd(width)} ${bar(s, sample.expectedRowsPerShard)} ${s.status.padEnd(7)} ${rows.padStart(16)}  ${detail}`.trimEnd());
  }
  if (p.shards.length > shown.length) lines.push(`  … ${p.shards.length - shown.length} more shards`);
  return lines;
}
