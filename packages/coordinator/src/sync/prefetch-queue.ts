/**
 * A bounded-concurrency queue of best-effort tasks, each filed under a key (the sync id): the
 * committer's blob prefetches. Two things the committer needs beyond a plain limiter:
 * - `drop(key)` forgets a key's queued tasks at once, without running them: when a sync leaves
 *   PREPARING its remaining prefetches are useless, and at 10,000 shards running each one only to
 *   find that out kept the commit waiting behind thousands of Redis reads.
 * - `settle(key)` drops a key's queued tasks and waits for its running ones: the commit of a sync
 *   whose last shards' prefetches are still queued (the queue runs about a second behind the
 *   shards at 10,000 of them) reads those blobs itself, at its own concurrency, instead of reading
 *   them beside the prefetches that would read them again.
 * - `close()` refuses new tasks, drops the queued ones and waits for those running, so a stopping
 *   coordinator closes its Redis connection only once no prefetch can still use it.
 * Tasks must not throw (a rejection is swallowed here so none is ever unhandled).
 */
export type PrefetchTask = () => Promise<void>;

export class PrefetchQueue {
  readonly #limit: number;
  readonly #queued: { readonly key: string; readonly task: PrefetchTask }[] = [];
  /** Each running task, with its key. */
  readonly #running = new Map<Promise<void>, string>();
  #closed = false;

  constructor(limit: number) {
    if (!Number.isInteger(limit) || limit < 1) throw new RangeError(`limit must be a positive integer, got ${limit}`);
    this.#limit = limit;
  }

  /** Tasks waiting for a slot. */
  get queued(): number {
    return this.#queued.length;
  }

  /** Tasks running now. */
  get running(): number {
    return this.#running.size;
  }

  /** Queues `task` under `key`; ignored once the queue is closed. */
  push(key: string, task: PrefetchTask): void {
    if (this.#closed) return;
    this.#queued.push({ key, task });
    this.#pump();
  }

  /** Forgets every queued task of `key` (running ones finish). */
  drop(key: string): void {
    let kept = 0;
    for (const entry of this.#queued) if (entry.key !== key) this.#queued[kept++] = entry;
    this.#queued.length = kept;
  }

  /** Forgets every queued task of `key` and resolves once its running ones have finished. */
  async settle(key: string): Promise<void> {
    this.drop(key);
    const running = [...this.#running].filter(([, k]) => k === key).map(([p]) => p);
    await Promise.all(running);
  }

  /** Stops taking tasks, drops the queued ones and resolves once the running ones have finished. */
  async close(): Promise<void> {
    this.#closed = true;
    this.#queued.length = 0;
    while (this.#running.size > 0) await Promise.all(this.#running.keys());
  }

  #pump(): void {
    while (!this.#closed && this.#running.size < this.#limit) {
      const next = this.#queued.shift();
      if (next === undefined) return;
      const running: Promise<void> = next
        .task()
        .catch(() => undefined)
        .finally(() => {
          this.#running.delete(running);
          this.#pump();
        });
      this.#running.set(running, next.key);
    }
  }
}
