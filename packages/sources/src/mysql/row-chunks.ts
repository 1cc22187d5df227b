/**
 * The rows of an object-mode stream a buffer at a time: every row the stream holds now, in one
 * array, then a wait for more. A `for await` over the stream itself costs a promise per row, which
 * at hundreds of thousands of rows a second is a visible share of a worker's time.
 */
import type { Readable } from 'node:stream';

export async function* rowChunks<T>(stream: Readable): AsyncGenerator<T[]> {
  for (;;) {
    const chunk: T[] = [];
    for (let row = stream.read() as T | null; row !== null; row = stream.read() as T | null) chunk.push(row);
    if (chunk.length > 0) {
      yield chunk;
      continue;
    }
    if (stream.errored) throw stream.errored;
    if (stream.readableEnded || stream.destroyed) return;
    await more(stream);
  }
}

/** Resolves when the stream has rows to read or has ended; rejects on its error. */
function more(stream: Readable): Promise<void> {
  return new Promise((resolve, reject) => {
    const done = () => {
      stream.off('readable', done);
      stream.off('end', done);
      stream.off('close', done);
      stream.off('error', failed);
      resolve();
    };
    const failed = (error: Error) => {
      done();
      reject(error);
    };
    stream.on('readable', done);
    stream.on('end', done);
    stream.on('close', done);
    stream.on('error', failed);
  });
}
