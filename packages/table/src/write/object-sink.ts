/**
 * A FileSink (parquet/parquet-writer.ts) that streams a file into an ObjectStore with `put`.
 *
 * The encoder pushes chunks; `put` pulls them as an async iterable. A pushed chunk is handed over
 * only when `put` asks for the next one, so at most one chunk waits here: memory stays bounded by
 * the store's part size, whatever the file size. `abort` fails the iterable, so `put` rejects and,
 * by the ObjectStore contract, nothing becomes visible.
 */
import type { ObjectStore, PutOptions } from '../io/object-store.ts';
import type { FileSink } from '../parquet/parquet-writer.ts';

interface Pending {
  readonly chunk: Uint8Array | null;
  readonly error?: unknown;
  readonly taken: () => void;
}

export function objectStoreSink(store: ObjectStore, key: string, options?: PutOptions): FileSink {
  const queue: Pending[] = [];
  let wake: (() => void) | undefined;
  const offer = (chunk: Uint8Array | null, error?: unknown): Promise<void> =>
    new Promise((taken) => {
      queue.push({ chunk, error, taken });
      wake?.();
    });

  async function* body(): AsyncGenerator<Uint8Array> {
    for (;;) {
      while (queue.length === 0) await new Promise<void>((resolve) => (wake = resolve));
      const next = queue.shift() as Pending;
      next.taken();
      if (next.error !== undefined) throw next.error instanceof Error ? next.error : new Error(String(next.error));
      if (next.chunk === null) return;
      yield next.chunk;
    }
  }

  const done = store.put(key, body(), options);
  // Surface a put failure on the next write/close rather than as an unhandled rejection.
  let failure: unknown;
  done.catch((error: unknown) => {
    failure = error;
    for (const p of queue.splice(0)) p.taken();
  });

  return {
    async write(chunk) {
      if (failure !== undefined) throw failure;
      await Promise.race([offer(chunk), done.then(() => undefined)]);
      if (failure !== undefined) throw failure;
    },
    async close() {
      if (failure !== undefined) throw failure;
      void offer(null);
      await done;
    },
    async abort(reason) {
      void offer(null, reason ?? new Error('aborted'));
      await done.catch(() => undefined);
    },
  };
}
