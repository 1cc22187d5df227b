/**
 * Property tests (fast-check): exact round trips of any message, and a typed error for any
 * single-byte change or truncation of a valid blob, from both decoders.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  decodeBlob,
  decodeBlobStream,
  decodeCommitMessage,
  encodeBlob,
  encodeCommitMessage,
  isTributaryError,
  protocolErrors,
  type BlobExpectation,
} from '@tributary/protocol';
import { blobHeader, commitMessage } from '../support/arbitraries.ts';
import { expectationOf } from '../support/samples.ts';
import { chunked } from '../support/vectors.ts';

const RUNS = 200;

const blobCase = fc
  .record({ header: blobHeader, messages: fc.array(commitMessage, { maxLength: 3 }) })
  .map(({ header, messages }) => ({ header, messages, blob: encodeBlob(header, messages), expect: expectationOf(header) }));

const isProtocolError = (e: unknown): boolean => isTributaryError(e) && e.code in protocolErrors;

async function decodeStreamed(bytes: Uint8Array, expect: BlobExpectation, sizes: number[]): Promise<number> {
  const stream = await decodeBlobStream(chunked(bytes, sizes), expect);
  let n = 0;
  for await (const m of stream.messages) n += m.bucket === m.bucket ? 1 : 0;
  return n;
}

test('any commit message round-trips exactly', () => {
  fc.assert(
    fc.property(commitMessage, (message) => {
      assert.deepEqual(decodeCommitMessage(encodeCommitMessage(message)), message);
    }),
    { numRuns: RUNS },
  );
});

test('any blob round-trips exactly, whole and streamed in any chunking', async () => {
  await fc.assert(
    fc.asyncProperty(blobCase, fc.array(fc.integer({ min: 1, max: 50 }), { minLength: 1, maxLength: 5 }), async (c, sizes) => {
      const decoded = decodeBlob(c.blob, c.expect);
      assert.deepEqual(decoded.header, c.header);
      assert.deepEqual(decoded.messages, c.messages);
      const stream = await decodeBlobStream(chunked(c.blob, sizes), c.expect);
      const streamed = [];
      for await (const m of stream.messages) streamed.push(m);
      assert.deepEqual(streamed, c.messages);
    }),
    { numRuns: RUNS },
  );
});

test('any single-byte change of a valid blob gives a typed error from both decoders', async () => {
  await fc.assert(
    fc.asyncProperty(blobCase, fc.nat(), fc.integer({ min: 1, max: 255 }), async (c, position, xor) => {
      const changed = Uint8Array.from(c.blob);
      const at = position % changed.length;
      changed[at]! ^= xor;
      assert.throws(() => decodeBlob(changed, c.expect), isProtocolError, `byte ${at} ^ ${xor}`);
      await assert.rejects(decodeStreamed(changed, c.expect, [13]), isProtocolError, `streamed, byte ${at} ^ ${xor}`);
    }),
    { numRuns: RUNS },
  );
});

test('any truncation of a valid blob gives a typed error from both decoders', async () => {
  await fc.assert(
    fc.asyncProperty(blobCase, fc.nat(), async (c, cut) => {
      const truncated = c.blob.subarray(0, cut % c.blob.length);
      assert.throws(() => decodeBlob(truncated, c.expect), isProtocolError, `cut at ${truncated.length}`);
      await assert.rejects(decodeStreamed(truncated, c.expect, [9]), isProtocolError, `streamed, cut at ${truncated.length}`);
    }),
    { numRuns: RUNS },
  );
});
