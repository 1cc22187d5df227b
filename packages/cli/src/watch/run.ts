/**
 * `tributary sync watch`: polls the sync and all its shards until the sync ends. On a terminal the
 * frame (format.ts) is redrawn in place; otherwise one summary line is printed each time it
 * changes. Resolves with the last sample.
 */
import type { Api } from '../client.ts';
import { frame, progressOf, summaryLine, TERMINAL, type RateOrigins, type ShardSample, type ShardStatus, type SyncSample } from './format.ts';

interface ShardView {
  readonly id: string;
  readonly acceptedAttempt: string | null;
  readonly attempts: readonly { readonly status: string; readonly rows?: number; readonly bytes?: number }[];
  readonly rows: number | null;
  readonly bytes: number | null;
  readonly durationMs: number | null;
}

interface SyncView {
  readonly id: string;
  readonly phase: string;
  readonly state: { readonly reason?: { readonly code: string; readonly message: string } };
  readonly plan: { readonly source: { readonly kind: string; readonly rowsPerShard?: number } };
  readonly snapshotId: number | null;
  readonly shards: readonly ShardView[];
  readonly nextShardsCursor: string | null;
  readonly stages?: { readonly buckets: { readonly accepted: number; readonly total: number | null; readonly rows: number } | null };
}

function status(s: ShardView): ShardStatus {
  if (s.acceptedAttempt !== null) return 'done';
  const last = s.attempts.at(-1);
  if (last === undefined) return 'waiting';
  if (last.status === 'running') return 'running';
  if (last.status === 'failed') return 'failed';
  return 'waiting';
}

export async function sampleSync(api: Api, id: string, at: () => number = Date.now): Promise<SyncSample> {
  const path = `/v1/syncs/${encodeURIComponent(id)}`;
  const sync = await api.request<SyncView>('GET', path);
  const shards = [...sync.shards];
  for (let cursor = sync.nextShardsCursor; cursor !== null; ) {
    const page = await api.request<{ shards: ShardView[]; nextCursor: string | null }>('GET', `${path}/shards?limit=1000&cursor=${encodeURIComponent(cursor)}`);
    shards.push(...page.shards);
    cursor = page.nextCursor;
  }
  return {
    at: at(),
    id: sync.id,
    phase: sync.phase,
    snapshotId: sync.snapshotId,
    error: sync.state.reason === undefined ? null : `${sync.state.reason.code}: ${sync.state.reason.message}`,
    expectedRowsPerShard: sync.plan.source.kind === 'generator' ? (sync.plan.source.rowsPerShard ?? null) : null,
    buckets: sync.stages?.buckets == null ? null : { accepted: sync.stages.buckets.accepted, total: sync.stages.buckets.total, rows: sync.stages.buckets.rows },
    shards: shards.map(
      (s): ShardSample => ({
        id: s.id,
        status: status(s),
        rows: s.rows ?? s.attempts.at(-1)?.rows ?? null,
        bytes: s.bytes ?? s.attempts.at(-1)?.bytes ?? null,
        durationMs: s.durationMs,
      }),
    ),
  };
}

export interface WatchOptions {
  readonly out: NodeJS.WritableStream & { readonly isTTY?: boolean };
  readonly intervalMs: number;
}

export async function watchSync(api: Api, id: string, options: WatchOptions): Promise<SyncSample> {
  const origins: RateOrigins = new Map();
  const started = Date.now();
  let drawn = 0;
  let lastLine = '';
  for (;;) {
    const sample = await sampleSync(api, id);
    const progress = progressOf(sample, origins, started);
    const elapsed = sample.at - started;
    if (options.out.isTTY === true) {
      const lines = frame(sample, progress, elapsed);
      // Up to the first line drawn last time, clear to the end of the screen, draw again.
      options.out.write(`${drawn > 0 ? `\x1b[${drawn}F\x1b[J` : ''}${lines.join('\n')}\n`);
      drawn = lines.length;
    } else {
      // A line when the phase, the shards or buckets done or the rows change; not for the clock alone.
      const key = `${sample.phase} ${progress.done} ${progress.rows} ${sample.buckets?.accepted ?? ''}`;
      if (key !== lastLine) options.out.write(`${summaryLine(sample, progress, elapsed)}\n`);
      lastLine = key;
    }
    if (TERMINAL.has(sample.phase)) return sample;
    await new Promise((resolve) => setTimeout(resolve, options.intervalMs));
  }
}
