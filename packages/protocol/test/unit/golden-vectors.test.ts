/**
 * Compatibility: the golden blobs of every envelope version still decode to their inputs, and
 * today's encoder reproduces the current version's blobs byte for byte. If this test fails after
 * a change to the .proto, the framing or protobufjs, the change altered the bytes: bump
 * ENVELOPE_VERSION, keep a reader for the old version, and add vectors for the new one
 * (test/vectors/protocol/README.md).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  ENVELOPE_VERSION,
  READABLE_ENVELOPE_VERSIONS,
  decodeBlob,
  decodeBlobStream,
  encodeBlob,
  isTributaryError,
} from '@tributary/protocol';
import { expectationOf } from '../support/samples.ts';
import { chunked, goldenVectors, invalidVectors, vectorVersions } from '../support/vectors.ts';

test('the current envelope version has golden vectors, and every version with vectors is readable', () => {
  const versions = vectorVersions();
  assert.ok(versions.includes(ENVELOPE_VERSION), `no test/vectors/protocol/v${ENVELOPE_VERSION}/`);
  for (const v of versions) assert.ok(READABLE_ENVELOPE_VERSIONS.includes(v), `envelope v${v} is no longer readable`);
  assert.ok(goldenVectors(ENVELOPE_VERSION).length >= 4);
});

test('today\'s encoder produces exactly the golden bytes of the current envelope version', () => {
  for (const g of goldenVectors(ENVELOPE_VERSION)) {
    const encoded = encodeBlob(g.header, g.messages);
    assert.equal(
      Buffer.from(encoded).toString('hex'),
      Buffer.from(g.blob).toString('hex'),
      `${g.name}: the encoder changed its bytes without an envelope version bump`,
    );
  }
});

test('every golden blob of every version decodes to its input, whole and streamed', async () => {
  for (const version of vectorVersions()) {
    for (const g of goldenVectors(version)) {
      const decoded = decodeBlob(g.blob, expectationOf(g.header));
      assert.equal(decoded.envelopeVersion, version);
      assert.deepEqual(decoded.header, g.header, g.name);
      assert.deepEqual(decoded.messages, g.messages, g.name);

      const stream = await decodeBlobStream(chunked(g.blob), expectationOf(g.header));
      const messages = [];
      for await (const m of stream.messages) messages.push(m);
      assert.deepEqual(stream.header, g.header, g.name);
      assert.deepEqual(messages, g.messages, g.name);
    }
  }
});

test('every invalid vector fails with the code named in its index, whole and streamed', async () => {
  for (const version of vectorVersions()) {
    const vectors = invalidVectors(version);
    assert.ok(vectors.length >= 10);
    for (const v of vectors) {
      assert.throws(
        () => decodeBlob(v.blob, v.expectation),
        (e: unknown) => isTributaryError(e) && e.code === v.decodeBlob,
        `${v.file} (${v.defect}) with decodeBlob`,
      );
      await assert.rejects(
        async () => {
          const stream = await decodeBlobStream(chunked(v.blob), v.expectation);
          for await (const m of stream.messages) void m;
        },
        (e: unknown) => isTributaryError(e) && e.code === v.decodeBlobStream,
        `${v.file} (${v.defect}) with decodeBlobStream`,
      );
    }
  }
});
