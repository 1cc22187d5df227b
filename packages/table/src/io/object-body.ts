/**
 * Streamed bodies for `ObjectStore.put`. A body that fails midway (the Parquet encoder hit a bad
 * row, the source connection dropped) must reach the caller as its own error, not disguised as a
 * storage failure: its code and `retryable` flag are the caller's to decide. So the stores read a
 * streamed body through `watchBody`, and on any failure ask it first whether the body itself broke.
 */
import type { ObjectBody } from './object-store.ts';

export interface WatchedBody {
  /** The body's chunks, to be read once. */
  readonly chunks: AsyncIterable<Uint8Array>;
  /** The body's own failure, if reading it threw; `undefined` while it has not. */
  failure(): { readonly error: unknown } | undefined;
}

export function watchBody(body: Exclude<ObjectBody, Uint8Array>): WatchedBody {
  let failure: { error: unknown } | undefined;
  async function* chunks(): AsyncGenerator<Uint8Array> {
    const iterator = (body as AsyncIterable<Uint8Array>)[Symbol.asyncIterator]();
    for (;;) {
      let next: IteratorResult<Uint8Array>;
      try {
        next = await iterator.next();
      } catch (error) {
        failure = { error };
        throw error;
      }
      if (next.done === true) return;
      yield next.value;
    }
  }
  return { chunks: chunks(), failure: () => failure };
}
