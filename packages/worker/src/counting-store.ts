/**
 * Counts the bytes each shard write streams into its data files, for progress while a shard runs:
 * a store that passes everything through to the warehouse store and, for a `put` whose key carries
 * a registered writer's data-file marker, adds each body chunk to that writer's count as storage
 * takes it. A put that fails midway keeps what it counted (progress only; the vote's totals are the
 * file sizes of the finished files).
 */
import type { ObjectBody, ObjectStore, PutOptions } from '@tributary/table';

export interface ByteCounters {
  readonly store: ObjectStore;
  /** Starts counting the files whose keys contain `marker`; returns the count so far and a stop. */
  track(marker: string): { bytes: () => number; stop: () => void };
}

export function countingStore(inner: ObjectStore): ByteCounters {
  const counts = new Map<string, { n: number }>();
  const counterOf = (key: string) => {
    for (const [marker, counter] of counts) if (key.includes(marker)) return counter;
    return undefined;
  };
  const put = (key: string, body: ObjectBody, options?: PutOptions): Promise<void> => {
    const counter = counterOf(key);
    if (counter === undefined) return inner.put(key, body, options);
    if (body instanceof Uint8Array) {
      counter.n += body.byteLength;
      return inner.put(key, body, options);
    }
    return inner.put(key, counted(body, counter), options);
  };
  // Every other member is the inner store's own, called on the inner store (its private fields).
  const store = new Proxy(inner, {
    get(target, property) {
      if (property === 'put') return put;
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
  return {
    store,
    track(marker) {
      const counter = { n: 0 };
      counts.set(marker, counter);
      return { bytes: () => counter.n, stop: () => void counts.delete(marker) };
    },
  };
}

async function* counted(body: AsyncIterable<Uint8Array>, counter: { n: number }): AsyncGenerator<Uint8Array> {
  for await (const chunk of body) {
    counter.n += chunk.byteLength;
    yield chunk;
  }
}
