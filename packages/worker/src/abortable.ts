/**
 * Stop waiting when a signal aborts, whatever the awaited work is doing. A source blocked inside a
 * query or a request may not notice its signal at once (or at all); the attempt must end anyway,
 * so the caller races every step against the signal and leaves the late result to be dropped.
 */

/** Resolves as `promise` does, or rejects with the signal's reason as soon as it aborts. */
export function raceAbort<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) {
    promise.catch(() => undefined); // dropped: its rejection must not go unhandled
    return Promise.reject(signal.reason as Error);
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason as Error);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error as Error);
      },
    );
  });
}

/**
 * Iterates `iterable` until it ends or the signal aborts; on abort the pending `next()` is
 * abandoned (its outcome dropped) and the iterator is asked to return without being awaited: a
 * generator blocked in an await handles that request only once the await settles.
 */
export async function* untilAborted<T>(iterable: AsyncIterable<T>, signal: AbortSignal): AsyncGenerator<T> {
  const iterator = iterable[Symbol.asyncIterator]();
  let finished = false;
  try {
    for (;;) {
      const next = await raceAbort(iterator.next(), signal);
      if (next.done === true) {
        finished = true;
        return;
      }
      yield next.value;
    }
  } finally {
    if (!finished) {
      const closing = iterator.return?.();
      if (signal.aborted) closing?.catch(() => undefined);
      else await closing;
    }
  }
}
