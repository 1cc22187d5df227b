/**
 * Streaming forms of the blob codec, for blobs with many file entries: memory holds one message
 * (and one output chunk) at a time, never the whole blob plus all its decoded messages.
 *
 * The catch of streaming is that the CRC32C trailer comes last, so messages are handed out before
 * the checksum has been verified. The contract (README.md, "Streaming and the checksum"):
 *
 *   - `decodeBlobStream` checks magic, envelope version, the header's framing and the expectation
 *     (sync, shard, table, schema id, attempt) before it returns;
 *   - `messages` yields each message as soon as it is decoded and validated;
 *   - the iteration **completes only after** the trailer matched and the source ended with no
 *     trailing bytes; any defect is thrown from the iterator, at the latest from its last step;
 *   - so a consumer may stage work from the messages (write manifest files, which nothing
 *     references yet) but must not act on them (publish a snapshot) before the loop finished
 *     without an error. A loop left early (break, throw) has verified nothing.
 *
 * Errors carry the same codes as decodeBlob, but the order differs: a corrupt byte inside a
 * message may surface as BLOB_MESSAGE_INVALID here, where the whole-buffer decoder reports
 * BLOB_CHECKSUM_MISMATCH, and a short source is always BLOB_TRUNCATED.
 */
import { crc32c } from '@node-rs/crc32';
import { protocolError } from './errors.ts';
import { type BlobExpectation, type BlobHeader, checkExpectation, decodeBlobHeader, encodeBlobHeader } from './blob-header.ts';
import { ChunkReader } from './chunk-reader.ts';
import { decodeCommitMessage, encodeCommitMessage } from './commit-message-codec.ts';
import type { CommitMessage } from '@tributary/table';
import {
  type BlobLimits,
  CRC_BYTES,
  U32_BYTES,
  checkEnvelopeVersion,
  checkLimit,
  checkMagic,
  encodePrefix,
  readU32,
  resolveLimits,
  truncated,
  writeU32,
} from './envelope.ts';

export interface EncodeStreamOptions {
  /** Bytes to gather before yielding a chunk (default 256 KiB; one large message may exceed it). */
  readonly chunkBytes?: number;
}

/**
 * Encodes a blob as a sequence of chunks (feed it to `Readable.from` or an S3 multipart upload).
 * `messageCount` goes into the blob before the messages; if `messages` yields another number of
 * messages, the stream throws BLOB_MESSAGE_COUNT_MISMATCH and never writes a checksum, so no
 * valid blob can come out of it.
 */
export async function* encodeBlobStream(
  header: BlobHeader,
  messageCount: number,
  messages: AsyncIterable<CommitMessage> | Iterable<CommitMessage>,
  options: EncodeStreamOptions = {},
): AsyncGenerator<Uint8Array, void, undefined> {
  if (!Number.isInteger(messageCount) || messageCount < 0 || messageCount > 0xffffffff) {
    throw protocolError('BLOB_VALUE_OUT_OF_RANGE', 'messageCount must be an integer in [0, 2^32)', {
      value: String(messageCount),
    });
  }
  const chunkBytes = options.chunkBytes ?? 256 * 1024;
  const headerBytes = encodeBlobHeader(header);
  const count = new Uint8Array(U32_BYTES);
  writeU32(count, 0, messageCount);
  const out = new ChunkWriter(chunkBytes);
  out.add(encodePrefix(headerBytes.length), headerBytes, count);
  let seen = 0;
  for await (const message of messages) {
    if (++seen > messageCount) throw countMismatch(messageCount, seen);
    const body = encodeCommitMessage(message);
    const length = new Uint8Array(U32_BYTES);
    writeU32(length, 0, body.length);
    out.add(length, body);
    if (out.full) yield out.flush();
  }
  if (seen !== messageCount) throw countMismatch(messageCount, seen);
  yield out.finish();
}

function countMismatch(declared: number, seen: number): Error {
  return protocolError('BLOB_MESSAGE_COUNT_MISMATCH', `the blob declares ${declared} messages, got ${seen}`, {
    declared,
    seen,
  });
}

/** Gathers small parts into chunks and keeps the running CRC32C of everything emitted. */
class ChunkWriter {
  readonly #target: number;
  #parts: Uint8Array[] = [];
  #size = 0;
  #crc = 0;

  constructor(target: number) {
    this.#target = target;
  }

  get full(): boolean {
    return this.#size >= this.#target;
  }

  add(...parts: Uint8Array[]): void {
    for (const part of parts) {
      this.#parts.push(part);
      this.#size += part.length;
    }
  }

  flush(): Uint8Array {
    const chunk = new Uint8Array(this.#size);
    let at = 0;
    for (const part of this.#parts) {
      chunk.set(part, at);
      at += part.length;
    }
    this.#crc = crc32c(chunk, this.#crc);
    this.#parts = [];
    this.#size = 0;
    return chunk;
  }

  /** The last chunk, with the CRC32C trailer over every byte before it. */
  finish(): Uint8Array {
    const body = this.flush();
    const last = new Uint8Array(body.length + CRC_BYTES);
    last.set(body, 0);
    writeU32(last, body.length, this.#crc);
    return last;
  }
}

export interface BlobStream {
  readonly envelopeVersion: number;
  /** Already checked against the expectation; covered by the checksum once `messages` completes. */
  readonly header: BlobHeader;
  readonly messageCount: number;
  /** Single use. Completes only after the checksum and the end of the source were verified. */
  readonly messages: AsyncIterable<CommitMessage>;
}

/**
 * Opens a streamed blob: reads and checks everything up to the first message, then hands out the
 * messages one by one (see the contract at the top of this file).
 */
export async function decodeBlobStream(
  source: AsyncIterable<Uint8Array>,
  expect: BlobExpectation,
  limits: Partial<BlobLimits> = {},
): Promise<BlobStream> {
  const bounds = resolveLimits(limits);
  const reader = new ChunkReader(source);
  try {
    const magic = await reader.read(4);
    checkMagic(magic);
    if (magic.length < 4) throw truncated('magic', reader.offset);
    const version = await readExact(reader, 2, 'envelope version');
    const envelopeVersion = (version[0]! << 8) | version[1]!;
    checkEnvelopeVersion(envelopeVersion);
    const headerLength = await readU32Field(reader, 'header length');
    checkLimit('header length', headerLength, bounds.maxHeaderBytes, reader.offset - U32_BYTES);
    const headerBytes = await readExact(reader, headerLength, 'header');
    const messageCount = await readU32Field(reader, 'message count');
    checkLimit('message count', messageCount, bounds.maxMessages, reader.offset - U32_BYTES);
    const header = decodeBlobHeader(headerBytes, envelopeVersion);
    checkExpectation(header, expect);
    const messages = singleUse(readMessages(reader, messageCount, bounds));
    return { envelopeVersion, header, messageCount, messages };
  } catch (error) {
    await reader.close();
    throw error;
  }
}

async function* readMessages(reader: ChunkReader, count: number, limits: BlobLimits): AsyncGenerator<CommitMessage> {
  try {
    for (let i = 0; i < count; i++) {
      const length = await readU32Field(reader, `message ${i} length`);
      checkLimit(`message ${i} length`, length, limits.maxMessageBytes, reader.offset - U32_BYTES);
      const body = await readExact(reader, length, `message ${i}`);
      yield decodeCommitMessage(body, i);
    }
    const computed = reader.crc;
    const trailer = await reader.readUnchecked(CRC_BYTES);
    if (trailer.length < CRC_BYTES) throw truncated('checksum trailer', reader.offset);
    const stored = readU32(trailer, 0);
    if (stored !== computed) {
      throw protocolError('BLOB_CHECKSUM_MISMATCH', 'the blob CRC32C trailer does not match its bytes', {
        stored,
        actual: computed,
      });
    }
    if (!(await reader.atEnd())) {
      throw protocolError('BLOB_TRAILING_BYTES', 'bytes follow the checksum trailer', { offset: reader.offset });
    }
  } finally {
    await reader.close();
  }
}

/** An iterable that refuses a second iteration instead of silently yielding nothing. */
function singleUse<T>(iterator: AsyncGenerator<T>): AsyncIterable<T> {
  let used = false;
  return {
    [Symbol.asyncIterator]() {
      if (used) {
        throw protocolError('BLOB_STREAM_MISUSE', 'the messages of a blob stream can be iterated only once');
      }
      used = true;
      return iterator;
    },
  };
}

async function readExact(reader: ChunkReader, length: number, what: string): Promise<Uint8Array> {
  const bytes = await reader.read(length);
  if (bytes.length < length) throw truncated(what, reader.offset);
  return bytes;
}

async function readU32Field(reader: ChunkReader, what: string): Promise<number> {
  return readU32(await readExact(reader, U32_BYTES, what), 0);
}
