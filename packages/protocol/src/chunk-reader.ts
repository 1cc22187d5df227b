/**
 * Exact reads over an async sequence of byte chunks (a Node Readable, an S3 body, an async
 * generator), with a running CRC32C over everything read. Holds at most one pending chunk plus
 * the bytes of the read in progress, and never allocates more than the caller asked for (the
 * caller checks every announced length against its limits first).
 */
import { crc32c } from '@node-rs/crc32';
import { protocolError } from './errors.ts';

export class ChunkReader {
  readonly #chunks: AsyncIterator<Uint8Array>;
  #pending: Uint8Array = new Uint8Array(0);
  #done = false;
  #crc = 0;
  /** Bytes consumed so far. */
  offset = 0;

  constructor(source: AsyncIterable<Uint8Array>) {
    this.#chunks = source[Symbol.asyncIterator]();
  }

  /** CRC32C of every byte read so far. */
  get crc(): number {
    return this.#crc;
  }

  /**
   * Reads exactly `length` bytes, or fewer only if the source ends first (the caller turns a
   * short read into BLOB_TRUNCATED with the right context).
   */
  async read(length: number): Promise<Uint8Array> {
    if (this.#pending.length >= length) return this.#take(length);
    const out = new Uint8Array(length);
    let filled = 0;
    while (filled < length) {
      if (this.#pending.length === 0 && !(await this.#pull())) break;
      const part = this.#take(Math.min(length - filled, this.#pending.length));
      out.set(part, filled);
      filled += part.length;
    }
    return filled === length ? out : out.subarray(0, filled);
  }

  /** Reads without adding to the CRC (the trailer itself). */
  async readUnchecked(length: number): Promise<Uint8Array> {
    const crc = this.#crc;
    const bytes = await this.read(length);
    this.#crc = crc;
    return bytes;
  }

  /** True when the source has no more bytes; pulls at most until one non-empty chunk. */
  async atEnd(): Promise<boolean> {
    while (this.#pending.length === 0) {
      if (!(await this.#pull())) return true;
    }
    return false;
  }

  /** Lets the source release its resources (a Readable is destroyed, a generator returns). */
  async close(): Promise<void> {
    if (!this.#done) {
      this.#done = true;
      await this.#chunks.return?.();
    }
  }

  #take(length: number): Uint8Array {
    const part = this.#pending.subarray(0, length);
    this.#pending = this.#pending.subarray(length);
    this.#crc = crc32c(part, this.#crc);
    this.offset += length;
    return part;
  }

  async #pull(): Promise<boolean> {
    if (this.#done) return false;
    const next = await this.#chunks.next();
    if (next.done === true) {
      this.#done = true;
      return false;
    }
    const chunk: unknown = next.value;
    // Node streams in object mode or string mode hand out other things; refuse them plainly.
    if (!(chunk instanceof Uint8Array)) {
      throw protocolError('BLOB_STREAM_MISUSE', 'a blob stream must yield Uint8Array chunks', {
        offset: this.offset,
        chunkType: typeof chunk,
      });
    }
    this.#pending = chunk;
    return true;
  }
}
