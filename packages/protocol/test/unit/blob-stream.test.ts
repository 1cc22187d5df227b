import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import {
  decodeBlob,
  decodeBlobStream,
  encodeBlob,
  encodeBlobStream,
  isTributaryError,
} from '@tributary/protocol';
import type { CommitMessage } from '@tributary/table';
import { expectationOf, sampleFile, sampleHeader, sampleMessage, sampleMessages } from '../support/samples.ts';
import { chunked } from '../support/vectors.ts';

const code = (expected: string) => (e: unknown) => isTributaryError(e) && e.code === expected;

async function collect(chunks: AsyncIterable<Uint8Array>): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  for await (const c of chunks) parts.push(c);
  return Buffer.concat(parts);
}

async function drain(messages: AsyncIterable<CommitMessage>): Promise<CommitMessage[]> {
  const out: CommitMessage[] = [];
  for await (const m of messages) out.push(m);
  return out;
}

test('the streaming encoder writes the same bytes as encodeBlob, whatever the chunk size', async () => {
  const header = sampleHeader();
  const messages = sampleMessages(7, 3);
  const whole = encodeBlob(header, messages);
  for (const chunkBytes of [1, 100, 1024, 1 << 20]) {
    const streamed = await collect(encodeBlobStream(header, messages.length, messages, { chunkBytes }));
    assert.deepEqual(streamed, Buffer.from(whole), `chunkBytes ${chunkBytes}`);
  }
});

test('the streaming encoder refuses a message count it was not promised, and never writes a trailer', async () => {
  const header = sampleHeader();
  const messages = sampleMessages(3, 1);
  await assert.rejects(collect(encodeBlobStream(header, 2, messages)), code('BLOB_MESSAGE_COUNT_MISMATCH'));
  const partial: Uint8Array[] = [];
  await assert.rejects(async () => {
    for await (const c of encodeBlobStream(header, 4, messages, { chunkBytes: 1 })) partial.push(c);
  }, code('BLOB_MESSAGE_COUNT_MISMATCH'));
  assert.throws(() => decodeBlob(Buffer.concat(partial), expectationOf(header)), isTributaryError);
  await assert.rejects(collect(encodeBlobStream(header, -1, [])), code('BLOB_VALUE_OUT_OF_RANGE'));
});

test('the stream decoder reads a Node Readable and yields every message', async () => {
  const header = sampleHeader();
  const messages = sampleMessages(5, 4);
  const blob = encodeBlob(header, messages);
  const stream = await decodeBlobStream(Readable.from(chunked(blob, [5, 300, 2])), expectationOf(header));
  assert.equal(stream.messageCount, 5);
  assert.deepEqual(stream.header, header);
  assert.deepEqual(await drain(stream.messages), messages);
});

test('a header mismatch is refused before any message is handed out', async () => {
  const header = sampleHeader();
  const blob = encodeBlob(header, sampleMessages(2, 1));
  await assert.rejects(
    decodeBlobStream(chunked(blob), { ...expectationOf(header), shardId: 'another' }),
    code('BLOB_HEADER_MISMATCH'),
  );
});

test('a corrupt trailer is thrown from the last step, after the messages, so a drained loop never misses it', async () => {
  const header = sampleHeader();
  const messages = sampleMessages(3, 2);
  const blob = Uint8Array.from(encodeBlob(header, messages));
  blob[blob.length - 1]! ^= 0xff;
  const stream = await decodeBlobStream(chunked(blob), expectationOf(header));
  const seen: CommitMessage[] = [];
  await assert.rejects(async () => {
    for await (const m of stream.messages) seen.push(m);
  }, code('BLOB_CHECKSUM_MISMATCH'));
  assert.equal(seen.length, 3);
});

test('bytes after the trailer are found even in a later chunk', async () => {
  const header = sampleHeader();
  const blob = encodeBlob(header, sampleMessages(1, 1));
  async function* source(): AsyncGenerator<Uint8Array> {
    yield blob;
    yield new Uint8Array(0);
    yield Uint8Array.of(1);
  }
  const stream = await decodeBlobStream(source(), expectationOf(header));
  await assert.rejects(drain(stream.messages), code('BLOB_TRAILING_BYTES'));
});

test('messages can be iterated only once; a second loop throws instead of seeing nothing', async () => {
  const header = sampleHeader();
  const stream = await decodeBlobStream(chunked(encodeBlob(header, sampleMessages(2, 1))), expectationOf(header));
  assert.equal((await drain(stream.messages)).length, 2);
  await assert.rejects(drain(stream.messages), code('BLOB_STREAM_MISUSE'));
});

test('a source yielding strings is refused with a typed error', async () => {
  async function* strings(): AsyncGenerator<unknown> {
    yield 'not bytes';
  }
  await assert.rejects(
    decodeBlobStream(strings() as AsyncIterable<Uint8Array>, expectationOf(sampleHeader())),
    code('BLOB_STREAM_MISUSE'),
  );
});

test('leaving the loop early releases the source', async () => {
  const header = sampleHeader();
  const blob = encodeBlob(header, sampleMessages(4, 1));
  let released = false;
  async function* source(): AsyncGenerator<Uint8Array> {
    try {
      yield* chunked(blob, [16]);
    } finally {
      released = true;
    }
  }
  const stream = await decodeBlobStream(source(), expectationOf(header));
  for await (const m of stream.messages) {
    void m;
    break;
  }
  assert.equal(released, true);
});

test('100,000 file entries flow from the encoder into the decoder one message at a time', async () => {
  const header = sampleHeader({ fileCount: 100_000n });
  const messageCount = 1_000;
  let produced = 0;
  function* lazyMessages(): Generator<CommitMessage> {
    for (let m = 0; m < messageCount; m++) {
      produced++;
      yield sampleMessage(Array.from({ length: 100 }, (_, f) => sampleFile(m * 100 + f)), m % 4);
    }
  }
  let largestChunk = 0;
  async function* observed(): AsyncGenerator<Uint8Array> {
    for await (const chunk of encodeBlobStream(header, messageCount, lazyMessages(), { chunkBytes: 64 * 1024 })) {
      largestChunk = Math.max(largestChunk, chunk.length);
      yield chunk;
    }
  }
  const stream = await decodeBlobStream(observed(), expectationOf(header));
  let files = 0;
  let maxAhead = 0;
  let consumed = 0;
  for await (const m of stream.messages) {
    consumed++;
    maxAhead = Math.max(maxAhead, produced - consumed);
    files += m.dataIncrement.newFiles.length;
  }
  assert.equal(files, 100_000);
  // The encoder runs at most one output chunk (a few messages) ahead of the decoder.
  assert.ok(maxAhead < 20, `encoder ran ${maxAhead} messages ahead`);
  assert.ok(largestChunk < 64 * 1024 + 64 * 1024, `largest chunk ${largestChunk}`);
});
