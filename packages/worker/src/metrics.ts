/**
 * The worker's Prometheus metrics, in a registry of its own (one per ShardWorker, so several in one
 * process do not mix): what its shard attempts wrote and how long they took, and how many of its
 * job slots are busy. Labels are outcomes only: never a table, a sync or a value.
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export type AttemptOutcome = 'succeeded' | 'failed' | 'released' | 'settled';

export class WorkerMetrics {
  readonly registry = new Registry();
  readonly #rows = new Counter({
    name: 'tributary_worker_rows_written_total',
    help: 'Rows written into data files by shard attempts that succeeded; accepted="true": the attempt is its shard\u2019s vote (a later duplicate is "false")',
    labelNames: ['accepted'] as const,
    registers: [this.registry],
  });
  readonly #bytes = new Counter({
    name: 'tributary_worker_bytes_written_total',
    help: 'Data-file bytes written by shard attempts that succeeded (accepted as for rows)',
    labelNames: ['accepted'] as const,
    registers: [this.registry],
  });
  readonly #attempts = new Counter({
    name: 'tributary_worker_shard_attempts_total',
    help: 'Shard job executions ended, by outcome (released: stopped by a shutdown and put back in the queue; settled: ran nothing, the job already had an accepted attempt)',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });
  readonly #duration = new Histogram({
    name: 'tributary_worker_shard_duration_seconds',
    help: 'Duration of shard attempts, by outcome',
    labelNames: ['outcome'] as const,
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800],
    registers: [this.registry],
  });
  readonly #busy = new Gauge({ name: 'tributary_worker_busy_jobs', help: 'Shard jobs running in this worker now', registers: [this.registry] });
  readonly #concurrency = new Gauge({ name: 'tributary_worker_concurrency', help: 'Shard jobs this worker runs at once at most', registers: [this.registry] });

  constructor(concurrency: number) {
    this.#concurrency.set(concurrency);
    collectDefaultMetrics({ register: this.registry });
  }

  started(): void {
    this.#busy.inc();
  }

  ended(outcome: AttemptOutcome, seconds: number, written?: { rows: number; bytes: number; accepted: boolean }): void {
    this.#busy.dec();
    this.#attempts.inc({ outcome });
    this.#duration.observe({ outcome }, seconds);
    if (written !== undefined) {
      const accepted = String(written.accepted);
      this.#rows.inc({ accepted }, written.rows);
      this.#bytes.inc({ accepted }, written.bytes);
    }
  }
}
