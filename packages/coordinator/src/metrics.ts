/**
 * The coordinator's Prometheus metrics, in a registry of its own (one per coordinator; tests run
 * several in one process). Counters move as this coordinator's store writes transitions (so each
 * transition counts once, whichever coordinator won it); gauges are read from Redis when scraped.
 * Labels: phase, queue, job state, and the table a committed sync loaded (`db.table`): never a
 * value, a token or a source.
 */
import type { Queue } from 'bullmq';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { SYNC_PHASES, isTerminal, type SyncRecord } from './sync/state.ts';
import type { SyncStore } from './sync/store.ts';

const QUEUE_STATES = ['waiting', 'active', 'delayed', 'prioritized', 'waiting-children', 'failed'] as const;

export interface MetricSources {
  readonly store: SyncStore;
  readonly queues: readonly Queue[];
  /** The write-shard queue: its active jobs are the busy worker slots. */
  readonly shardQueue: Queue;
}

export class CoordinatorMetrics {
  readonly registry = new Registry();
  readonly #rows: Counter<'table'>;
  readonly #bytes: Counter<'table'>;
  readonly #commitSeconds: Histogram;
  readonly #retries: Counter<'level'>;
  readonly #conflicts: Counter;
  readonly #ended: Counter<'phase'>;
  readonly #started: Counter;

  constructor() {
    const registers = [this.registry];
    this.#rows = new Counter({ name: 'tributary_rows_committed_total', help: 'Rows published by committed syncs', labelNames: ['table'], registers });
    this.#bytes = new Counter({ name: 'tributary_bytes_committed_total', help: 'Data-file bytes published by committed syncs', labelNames: ['table'], registers });
    this.#commitSeconds = new Histogram({
      name: 'tributary_commit_duration_seconds',
      help: 'Commit latency: from COMMITTING (every shard accepted and verified) to COMMITTED',
      buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
      registers,
    });
    this.#retries = new Counter({
      name: 'tributary_commit_retries_total',
      help: 'Commit retries: level="snapshot" a snapshot write tried again (a conflict or a storage error), level="job" a commit job that failed and runs again',
      labelNames: ['level'],
      registers,
    });
    this.#conflicts = new Counter({ name: 'tributary_commit_conflicts_total', help: 'Snapshot writes that lost the next snapshot id to another committer (then retried)', registers });
    this.#ended = new Counter({ name: 'tributary_syncs_finished_total', help: 'Syncs that reached COMMITTED or ABORTED', labelNames: ['phase'], registers });
    this.#started = new Counter({ name: 'tributary_syncs_started_total', help: 'Syncs created', registers });
    collectDefaultMetrics({ register: this.registry });
  }

  /** The gauges read at scrape time: syncs by phase, queue depth, busy and connected workers. */
  watch(sources: MetricSources): void {
    const registers = [this.registry];
    new Gauge({
      name: 'tributary_syncs',
      help: 'Syncs not yet COMMITTED or ABORTED, by phase',
      labelNames: ['phase'],
      registers,
      async collect() {
        const counts = await sources.store.activePhases();
        for (const phase of SYNC_PHASES) if (!isTerminal(phase)) this.set({ phase }, counts[phase] ?? 0);
      },
    });
    new Gauge({
      name: 'tributary_queue_jobs',
      help: 'Jobs in each BullMQ queue by state (waiting + prioritized: the queue depth)',
      labelNames: ['queue', 'state'],
      registers,
      async collect() {
        for (const queue of sources.queues) {
          const counts = await queue.getJobCounts(...QUEUE_STATES);
          for (const state of QUEUE_STATES) this.set({ queue: queue.name, state }, counts[state] ?? 0);
        }
      },
    });
    new Gauge({
      name: 'tributary_workers_busy',
      help: 'Shard jobs running now (busy worker slots)',
      registers,
      async collect() {
        this.set((await sources.shardQueue.getJobCounts('active')).active ?? 0);
      },
    });
    new Gauge({
      name: 'tributary_workers',
      help: 'Worker connections on the write-shard queue',
      registers,
      async collect() {
        this.set(await sources.shardQueue.getWorkersCount());
      },
    });
  }

  /** A transition this coordinator wrote (SyncStore's observer). */
  transition(record: SyncRecord, previous: SyncRecord | undefined): void {
    const state = record.state;
    if (previous === undefined) this.#started.inc();
    if (!isTerminal(state.phase) || (previous !== undefined && isTerminal(previous.state.phase))) return;
    this.#ended.inc({ phase: state.phase });
    if (state.phase !== 'COMMITTED') return;
    const table = `${record.plan.table.database}.${record.plan.table.table}`;
    let rows = 0;
    let bytes = 0;
    for (const a of Object.values(state.accepted)) {
      rows += a.rows;
      bytes += a.bytes;
    }
    this.#rows.inc({ table }, rows);
    this.#bytes.inc({ table }, bytes);
    const from = record.timings.COMMITTING;
    const to = record.timings.COMMITTED;
    if (from !== undefined && to !== undefined) this.#commitSeconds.observe((Date.parse(to) - Date.parse(from)) / 1000);
  }

  /** A snapshot published after `attempts` tries, `conflicts` of them lost to another committer. */
  published(attempts: number, conflicts: number): void {
    if (attempts > 1) this.#retries.inc({ level: 'snapshot' }, attempts - 1);
    if (conflicts > 0) this.#conflicts.inc(conflicts);
  }

  /** A commit job failed and BullMQ runs it again. */
  commitJobRetried(): void {
    this.#retries.inc({ level: 'job' });
  }
}
