/**
 * Seeded, reproducible fuzzing of the decoders: 100,000 random mutations of the golden blobs.
 * Half of the mutated blobs get a fresh CRC32C trailer so the mutation reaches the framing, the
 * header and the protobuf messages instead of stopping at the checksum.
 *
 * Every outcome must be either a TributaryError with a code of the protocol catalogue, or a
 * successful decode whose result the encoder accepts again (what the decoder lets through is
 * always a value the encoder could have written). No untyped error, no hang: each decode is timed.
 * Every 10th case also runs through the streaming decoder, which must agree on success.
 *
 * Reproduce a failure with the seed and trial number printed in the assertion message.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { crc32c } from '@node-rs/crc32';
import {
  decodeBlob,
  decodeBlobStream,
  encodeBlob,
  isTributaryError,
  protocolErrors,
  type BlobExpectation,
  type DecodedBlob,
} from '@tributary/protocol';
import { SAMPLE_VOTE_TOKEN, expectationOf } from '../support/samples.ts';
import { chunked, goldenVectors, vectorVersions } from '../support/vectors.ts';

const SEED = 0x7a1b_2c3d;
const TRIALS = Number(process.env['TRIBUTARY_FUZZ_TRIALS'] ?? 100_000);
const STREAM_EVERY = 10;
/**
 * Per-decode budget, in CPU time of this thread (so a loaded machine that deschedules the test
 * does not count): the golden blobs are ~2 KB, a healthy decode takes microseconds, and a hang or
 * a quadratic path would take far longer.
 */
const SLOW_DECODE_MS = 250;

/** mulberry32: a small, fast, seedable PRNG (reproducible across runs and machines). */
function prng(seed: number): (n: number) => number {
  let a = seed >>> 0;
  return (n) => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (((t ^ (t >>> 14)) >>> 0) / 4294967296) * n;
  };
}

interface Corpus {
  readonly blob: Uint8Array;
  readonly expect: BlobExpectation;
}

const INTERESTING_U32 = [0, 1, 2, 3, 4, 0x7f, 0x80, 0xff, 0x100, 0xffff, 0x10000, 0x7fffffff, 0x80000000, 0xfffffffe, 0xffffffff];

type Mutation = (b: Uint8Array, r: (n: number) => number, corpus: readonly Corpus[]) => Uint8Array;

const MUTATIONS: readonly Mutation[] = [
  (b, r) => withByte(b, Math.floor(r(b.length)), (x) => x ^ (1 << Math.floor(r(8)))), // flip a bit
  (b, r) => withByte(b, Math.floor(r(b.length)), () => Math.floor(r(256))), // set a byte
  (b, r) => splice(b, Math.floor(r(b.length + 1)), 0, randomBytes(r, 1 + Math.floor(r(8)))), // insert
  (b, r) => splice(b, Math.floor(r(b.length)), 1 + Math.floor(r(16)), new Uint8Array(0)), // delete
  (b, r) => b.subarray(0, Math.floor(r(b.length))), // truncate
  (b, r) => concat(b, randomBytes(r, 1 + Math.floor(r(8)))), // append
  (b, r) => {
    // overwrite a u32 with an interesting value (length prefixes, counts)
    const at = Math.floor(r(Math.max(1, b.length - 3)));
    const out = Uint8Array.from(b);
    if (out.length >= at + 4) new DataView(out.buffer).setUint32(at, INTERESTING_U32[Math.floor(r(INTERESTING_U32.length))]!, false);
    return out;
  },
  (b, r) => {
    // duplicate a range in place
    const start = Math.floor(r(b.length));
    const length = 1 + Math.floor(r(32));
    return splice(b, start, 0, b.slice(start, start + length));
  },
  (b, r, corpus) => {
    // a prefix of this blob and a suffix of another
    const other = corpus[Math.floor(r(corpus.length))]!.blob;
    return concat(b.subarray(0, Math.floor(r(b.length))), other.subarray(Math.floor(r(other.length))));
  },
];

function withByte(b: Uint8Array, at: number, f: (x: number) => number): Uint8Array {
  const out = Uint8Array.from(b);
  if (at < out.length) out[at] = f(out[at]!) & 0xff;
  return out;
}

function splice(b: Uint8Array, at: number, remove: number, insert: Uint8Array): Uint8Array {
  return concat(b.subarray(0, at), insert, b.subarray(Math.min(b.length, at + remove)));
}

function concat(...parts: Uint8Array[]): Uint8Array {
  return new Uint8Array(Buffer.concat(parts));
}

function randomBytes(r: (n: number) => number, n: number): Uint8Array {
  return Uint8Array.from({ length: n }, () => Math.floor(r(256)));
}

function reseal(b: Uint8Array): Uint8Array {
  if (b.length < 4) return b;
  const out = Uint8Array.from(b);
  new DataView(out.buffer).setUint32(out.length - 4, crc32c(out.subarray(0, out.length - 4)), false);
  return out;
}

type Outcome = { ok: true; value: DecodedBlob } | { ok: false; code: string };

function decodeOutcome(bytes: Uint8Array, expect: BlobExpectation, where: string): Outcome {
  try {
    return { ok: true, value: decodeBlob(bytes, expect) };
  } catch (e) {
    assert.ok(isTributaryError(e) && e.code in protocolErrors, `${where}: untyped error ${String(e)}`);
    return { ok: false, code: e.code };
  }
}

async function streamOutcome(bytes: Uint8Array, expect: BlobExpectation, sizes: number[], where: string): Promise<boolean> {
  try {
    const stream = await decodeBlobStream(chunked(bytes, sizes), expect);
    for await (const m of stream.messages) void m;
    return true;
  } catch (e) {
    assert.ok(isTributaryError(e) && e.code in protocolErrors, `${where}: untyped error from the stream ${String(e)}`);
    return false;
  }
}

test(`${TRIALS} seeded mutations of the golden blobs: typed errors only, no hang`, async () => {
  const corpus: Corpus[] = vectorVersions().flatMap((v) =>
    goldenVectors(v).map((g) => ({ blob: g.blob, expect: expectationOf(g.header) })),
  );
  const r = prng(SEED);
  const codes = new Map<string, number>();
  let decoded = 0;
  let slowest = 0;
  for (let trial = 0; trial < TRIALS; trial++) {
    const where = `seed ${SEED}, trial ${trial}`;
    const source = corpus[Math.floor(r(corpus.length))]!;
    let bytes = source.blob;
    const rounds = 1 + Math.floor(r(3));
    for (let i = 0; i < rounds; i++) bytes = MUTATIONS[Math.floor(r(MUTATIONS.length))]!(bytes, r, corpus);
    if (r(2) < 1) bytes = reseal(bytes);

    const started = process.threadCpuUsage();
    const outcome = decodeOutcome(bytes, source.expect, where);
    const used = process.threadCpuUsage(started);
    slowest = Math.max(slowest, (used.user + used.system) / 1000);
    if (outcome.ok) {
      decoded++;
      // What the decoder accepts, the encoder accepts, and it decodes to the same value again (a
      // version 1 header, which has no vote token, gets one: the encoder writes the current version).
      const header = { ...outcome.value.header, voteToken: outcome.value.header.voteToken ?? SAMPLE_VOTE_TOKEN };
      const again = encodeBlob(header, outcome.value.messages);
      assert.deepEqual(decodeBlob(again, source.expect).messages, outcome.value.messages, where);
    } else {
      codes.set(outcome.code, (codes.get(outcome.code) ?? 0) + 1);
    }
    if (trial % STREAM_EVERY === 0) {
      const sizes = [1 + Math.floor(r(64)), 1 + Math.floor(r(512))];
      const streamed = await streamOutcome(bytes, source.expect, sizes, where);
      assert.equal(streamed, outcome.ok, `${where}: the stream decoder disagrees (${outcome.ok ? 'ok' : outcome.code})`);
    }
  }
  assert.ok(slowest < SLOW_DECODE_MS, `slowest decode took ${slowest.toFixed(1)} ms of CPU`);
  // The mutations reach every layer of the decoder, not just the checksum.
  for (const expected of ['BLOB_BAD_MAGIC', 'BLOB_TRUNCATED', 'BLOB_TRAILING_BYTES', 'BLOB_CHECKSUM_MISMATCH', 'BLOB_LENGTH_OUT_OF_RANGE', 'BLOB_MESSAGE_INVALID', 'BLOB_HEADER_INVALID', 'BLOB_HEADER_MISMATCH', 'BLOB_UNSUPPORTED_VERSION']) {
    assert.ok((codes.get(expected) ?? 0) > 0, `no mutation produced ${expected}: ${JSON.stringify([...codes])}`);
  }
  console.log(`fuzz: ${TRIALS} trials, ${decoded} decoded, slowest ${slowest.toFixed(2)} ms CPU, codes ${JSON.stringify(Object.fromEntries(codes))}`);
});
