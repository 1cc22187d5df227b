/**
 * Reads kept by the revision they were made at. A caller names the revision of what it asks for (a
 * counter in Redis that every write of that thing bumps in the same step, read before the value);
 * while the revision has not moved, and for at most `maxAgeMs` (what no write announces: a key
 * deleted from outside, a writer of an earlier version), the kept value answers. Callers asking at
 * once at one revision share one read; a failed read is not kept. At most `entries` values are
 * kept, the least recently read out first.
 *
 * A request that follows a write reads the bumped revision, so it never gets a value from before
 * that write; a read made at an older revision is never handed to it, even while in flight.
 */
export class RevisionCache<V> {
  readonly maxAgeMs: number;
  readonly #entries: number;
  /** Oldest read first: a Map iterates in insertion order. */
  readonly #kept = new Map<string, { readonly revision: string; readonly readAt: number; readonly value: Promise<V> }>();

  /** 0: nothing is kept (every `get` reads). */
  constructor(maxAgeMs: number, entries: number) {
    this.maxAgeMs = maxAgeMs;
    this.#entries = entries;
  }

  /** The value of `key` at `revision`: kept, or read by `read` (and kept) when not. */
  get(key: string, revision: string, read: () => Promise<V>): Promise<V> {
    if (this.maxAgeMs <= 0) return read();
    const now = performance.now();
    const kept = this.#kept.get(key);
    if (kept !== undefined && kept.revision === revision && now - kept.readAt < this.maxAgeMs) return kept.value;
    const value = read();
    this.#kept.delete(key);
    this.#kept.set(key, { revision, readAt: now, value });
    if (this.#kept.size > this.#entries) this.#kept.delete(this.#kept.keys().next().value!);
    value.catch(() => {
      if (this.#kept.get(key)?.value === value) this.#kept.delete(key);
    });
    return value;
  }
}
