/**
 * Buffers for decompressed pages, handed out again once their reader says they are dead: a
 * before-image probe decompresses every page of every row group it walks (tens of MiB a bucket),
 * and a fresh buffer per page costs its allocation, its first-touch page faults and the full
 * garbage collections V8 runs as that memory comes and goes, a tenth of a probe's CPU measured.
 *
 *   take(n)     a buffer of n bytes, not zero-filled: a free one at least that large, else a new
 *               one; never one handed out since the last release
 *   release()   every buffer taken so far is free again: the caller promises that nothing it made
 *               from them (pages, typed-array views, byte-array values) is read any more
 *   clear()     lets every buffer go (for the collector)
 *
 * A buffer handed out is a view at offset 0 of an ArrayBuffer of its own, perhaps larger than
 * asked, so readers that view it by its byte offset and length (as hyparquet's decoders do) see
 * exactly the page. Values read out of a page that keep a view of its bytes (BINARY values) must be
 * copied before the release: ParquetDataFileReader.readRowsSparse copies them.
 */
import { Buffer } from 'node:buffer';

/** Sizes are rounded up to this, so that pages of a column a few bytes apart share buffers. */
const GRAIN = 64 * 1024;

export class PageArena {
  /** Free buffers, whole (their ArrayBuffer's full length). */
  #free: Uint8Array[] = [];
  /** Buffers handed out since the last release, whole. */
  #taken: Uint8Array[] = [];

  /** A buffer of `length` bytes whose content is undefined until written. */
  take(length: number): Uint8Array {
    let best = -1;
    for (let i = 0; i < this.#free.length; i++) {
      const size = (this.#free[i] as Uint8Array).byteLength;
      if (size >= length && (best < 0 || size < (this.#free[best] as Uint8Array).byteLength)) best = i;
    }
    let whole: Uint8Array;
    if (best >= 0) {
      whole = this.#free[best] as Uint8Array;
      this.#free[best] = this.#free[this.#free.length - 1] as Uint8Array;
      this.#free.pop();
    } else {
      const size = Math.ceil(Math.max(length, 1) / GRAIN) * GRAIN;
      whole = new Uint8Array(Buffer.allocUnsafeSlow(size).buffer, 0, size);
    }
    this.#taken.push(whole);
    return whole.subarray(0, length);
  }

  /** Every buffer taken is free for the next takes. */
  release(): void {
    for (const whole of this.#taken) this.#free.push(whole);
    this.#taken = [];
  }

  /** Drops every buffer, free or taken (a reader done with its file). */
  clear(): void {
    this.#free = [];
    this.#taken = [];
  }

  /** Bytes held, free and taken (tests). */
  get bytesHeld(): number {
    let n = 0;
    for (const b of this.#free) n += b.byteLength;
    for (const b of this.#taken) n += b.byteLength;
    return n;
  }
}
