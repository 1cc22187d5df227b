/**
 * ZSTD pages decompressed through one reused decompression context.
 *
 * `zlib.zstdDecompressSync` creates (and frees) a zstd decompression context and a stream object
 * on every call, which costs far more than decompressing a small page: a compaction of 5,000 small
 * files decompresses about 30,000 pages of 50–300 bytes, measured at 7–13 µs each that way and
 * 1.2–3 µs through one context. Node has no public API for a reusable synchronous context, so this
 * drives the native handle of one `zlib.ZstdDecompress` stream (`_handle.writeSync`, `_writeState`:
 * what zlib's own synchronous functions call). Whenever that is not available (another Node
 * version) or a page does not decode to exactly its header's size with all its bytes consumed in
 * one call (a lying header, trailing data, a corrupt or truncated frame), the context is dropped
 * and the page decompressed again by `zstdDecompressSync`, so the result and every error are
 * zstdDecompressSync's own. A page that decodes whole leaves the context between frames, ready for
 * the next page (zstd starts a new frame at the next magic number); had it been cut inside its last
 * frame's trailer, the next page's magic number would not read as a whole page and be decoded again
 * by a fresh context.
 */
import { Buffer } from 'node:buffer';
import { constants, ZstdDecompress, zstdDecompressSync } from 'node:zlib';

/** Bounds a fresh context's output chunk so that a corrupt header cannot raise it. */
const CHUNK_MIN = 64;
const CHUNK_MAX = 16 * 1024 * 1024;
/**
 * The largest page decompressed through the shared context (its output is allocated from the
 * header's size, so a corrupt header cannot ask for more). Pages are about 1 MiB, and a full page of
 * a nullable column is a little over it (1 MiB of values and its definition levels).
 */
const REUSED_MAX_BYTES = CHUNK_MAX;

interface NativeHandle {
  writeSync(flush: number, input: Uint8Array, inOffset: number, inLength: number, output: Uint8Array, outOffset: number, outLength: number): void;
  reset(): void;
}

interface Context {
  readonly stream: ZstdDecompress;
  readonly handle: NativeHandle;
  /** After writeSync: [output bytes left, input bytes left]. */
  readonly state: Uint32Array;
}

let context: Context | undefined;
/** False once the reused context turned out unusable in this process (no such internals). */
let reusable = true;

function openContext(): Context | undefined {
  if (!reusable) return undefined;
  const stream = new ZstdDecompress();
  const inner = stream as unknown as { _handle?: Partial<NativeHandle>; _writeState?: unknown };
  const handle = inner._handle;
  const state = inner._writeState;
  if (handle === undefined || typeof handle.writeSync !== 'function' || typeof handle.reset !== 'function' || !(state instanceof Uint32Array) || state.length < 2) {
    reusable = false;
    stream.destroy();
    return undefined;
  }
  // A corrupt frame makes the stream destroy itself and emit 'error' later: nothing listens otherwise.
  stream.on('error', () => {});
  return { stream, handle: handle as NativeHandle, state };
}

/** True when pages are decompressed through a reused context in this process (tests). */
export function zstdContextReused(): boolean {
  context ??= openContext();
  return context !== undefined;
}

const MAGIC = 0xfd2fb528;

/**
 * Whether `input` starts with a zstd frame header that agrees with `size`: its content size field
 * equal to it, or absent. A reused context and a fresh one disagree on a few corrupt frames (a
 * frame declaring more content than its blocks hold decodes to nothing on the first, fails on the
 * second; so does an empty input after a frame): those go to a fresh context.
 */
export function declaresSize(input: Uint8Array, size: number): boolean {
  if (input.length < 6) return false;
  const view = new DataView(input.buffer, input.byteOffset, input.byteLength);
  if (view.getUint32(0, true) !== MAGIC) return false;
  const descriptor = input[4] as number;
  const singleSegment = (descriptor & 0x20) !== 0;
  const at = 5 + (singleSegment ? 0 : 1) + [0, 1, 2, 4][descriptor & 0x03]!;
  switch (descriptor >> 6) {
    case 0:
      return singleSegment ? input.length > at && input[at] === size : true;
    case 1:
      return input.length >= at + 2 && view.getUint16(at, true) + 256 === size;
    case 2:
      return input.length >= at + 4 && view.getUint32(at, true) === size;
    default:
      return input.length >= at + 8 && view.getBigUint64(at, true) === BigInt(size);
  }
}

/**
 * The decompressed page: `size` bytes (the page header's uncompressed size) when the header is right.
 * `allocate`: where the output goes (page-arena.ts: a reused buffer whose bytes are undefined);
 * a fresh buffer by default.
 */
export function decompressZstdPage(input: Uint8Array, size: number, allocate?: (length: number) => Uint8Array): Uint8Array {
  const sized = Number.isSafeInteger(size) && size >= 0;
  if (sized && size <= REUSED_MAX_BYTES && declaresSize(input, size)) {
    context ??= openContext();
    const c = context;
    if (c !== undefined) {
      // One byte more than the header says: a frame that decodes to more fills it and is caught.
      // Not zero-filled: a page is returned only when the frame wrote exactly its `size` bytes.
      const out = allocate === undefined ? new Uint8Array(Buffer.allocUnsafeSlow(size + 1).buffer, 0, size + 1) : allocate(size + 1);
      let whole = false;
      try {
        c.handle.writeSync(constants.ZSTD_e_end, input, 0, input.length, out, 0, out.length);
        whole = !c.stream.destroyed && c.state[0] === 1 && c.state[1] === 0;
      } catch {
        whole = false;
      }
      if (whole) return out.subarray(0, size);
      // The context may be inside a frame or failed: dropped (a reset costs about a new context).
      context = undefined;
      c.stream.destroy();
    }
  }
  // A fresh context: its output sized from the header (zlib's default chunk is 16 KiB per call).
  const out = zstdDecompressSync(input, sized ? { chunkSize: Math.max(CHUNK_MIN, Math.min(CHUNK_MAX, size + 1)) } : {});
  return new Uint8Array(out.buffer, out.byteOffset, out.byteLength); // a view: no copy
}
