// ZSTD pages through one reused decompression context (parquet/zstd-pages.ts): every page must
// decode exactly as zstdDecompressSync decodes it alone (or fail as it fails), whatever came before
// it on the shared context: pages whose header size lies (smaller, larger), corrupt and truncated
// frames, a frame cut inside its checksum trailer, trailing bytes, two frames in one page (the header
// counting both or only the first), empty
// pages and pages too large for the shared context, in any order.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { constants, zstdCompressSync, zstdDecompressSync } from 'node:zlib';
import fc from 'fast-check';
import { PageArena } from '../../../src/parquet/page-arena.ts';
import { declaresSize, decompressZstdPage, zstdContextReused } from '../../../src/parquet/zstd-pages.ts';

const compress = (bytes: Uint8Array, checksum = false): Uint8Array =>
  new Uint8Array(zstdCompressSync(bytes, { params: { [constants.ZSTD_c_compressionLevel]: 3, [constants.ZSTD_c_checksumFlag]: checksum ? 1 : 0 } }));

/** Compressible bytes: runs of a few values, like a page of small integers or repeated strings. */
function pageBytes(length: number, seed: number): Uint8Array {
  const out = new Uint8Array(length);
  let x = seed | 1;
  for (let i = 0; i < length; i++) {
    x = Math.imul(x ^ (x >>> 15), 0x2c1b3c6d) >>> 0;
    out[i] = i % 7 === 0 ? x & 0xff : (i >> 4) & 0x0f;
  }
  return out;
}

type Outcome = { ok: true; bytes: Buffer } | { ok: false };

function outcome(f: () => Uint8Array): Outcome {
  try {
    const bytes = f();
    return { ok: true, bytes: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength) };
  } catch {
    return { ok: false };
  }
}

/**
 * The page decoded alone by zstdDecompressSync on a fresh context, its output chunk sized from the
 * header as pages always were (on a few corrupt frames zstd's verdict depends on the output size).
 */
function reference(input: Uint8Array, size: number): Outcome {
  const sized = Number.isSafeInteger(size) && size >= 0;
  return outcome(() => zstdDecompressSync(input, sized ? { chunkSize: Math.max(64, Math.min(16 * 1024 * 1024, size + 1)) } : {}));
}

function assertSame(input: Uint8Array, size: number, what: string, allocate?: (length: number) => Uint8Array): void {
  const want = reference(input, size);
  const got = outcome(() => decompressZstdPage(input, size, allocate));
  assert.equal(got.ok, want.ok, `${what}: ${want.ok ? 'decodes alone' : 'fails alone'}, ${got.ok ? 'decoded' : 'failed'} here`);
  if (got.ok && want.ok) assert.ok(got.bytes.equals(want.bytes), `${what}: ${got.bytes.length} bytes differ from the ${want.bytes.length} decoded alone`);
}

test('this Node reuses one context (else every page pays a context of its own)', () => {
  assert.equal(zstdContextReused(), true);
});

test('good pages of every size decode exactly, before and after bad ones', () => {
  // Up to 16 MiB through the shared context (pages are usually a little over 1 MiB), one byte more on a context of its own.
  const sizes = [0, 1, 17, 300, 4096, 65_536, 1024 * 1024, 1024 * 1024 + 1, 3 * 1024 * 1024, 16 * 1024 * 1024, 16 * 1024 * 1024 + 1, 1024 * 1024 + 5];
  for (const [i, size] of sizes.entries()) {
    const raw = pageBytes(size, i + 1);
    const frame = compress(raw, i % 2 === 0);
    const got = decompressZstdPage(frame, size);
    assert.equal(Buffer.compare(Buffer.from(got), Buffer.from(raw)), 0, `${size} bytes`);
    assert.equal(Object.getPrototypeOf(got), Uint8Array.prototype, `${size} bytes: a plain Uint8Array (a Buffer's slice() shares its bytes)`);
    assert.throws(() => decompressZstdPage(new Uint8Array([0x28, 0xb5, 0x2f, 0xfd, 0xff, 0xff, 0xff]), 10)); // a corrupt frame between
  }
});

test("a frame's content size is read from its header in each of its widths (1, 2, 4 and 8 bytes)", () => {
  for (const size of [0, 1, 255, 256, 257, 65_791, 65_792, 1024 * 1024]) {
    const frame = compress(pageBytes(size, size));
    assert.equal(declaresSize(frame, size), true, `${size} bytes`);
    assert.equal(declaresSize(frame, size + 1), false, `${size} bytes read as ${size + 1}`);
    if (size > 0) assert.equal(declaresSize(frame, size - 1), false, `${size} bytes read as ${size - 1}`);
  }
  // An 8-byte field (the writer's choice for sizes that fit in fewer bytes too), and no field at all.
  const eight = Uint8Array.from([0x28, 0xb5, 0x2f, 0xfd, 0xe0, 0x39, 0x05, 0, 0, 0, 0, 0, 0]);
  assert.equal(declaresSize(eight, 0x539), true);
  assert.equal(declaresSize(eight, 0x538), false);
  assert.equal(declaresSize(Uint8Array.from([0x28, 0xb5, 0x2f, 0xfd, 0x00, 0x58, 0, 0, 0]), 12345), true);
  assert.equal(declaresSize(Uint8Array.from([0x27, 0xb5, 0x2f, 0xfd, 0x20, 0x00, 0, 0, 0]), 0), false, 'not a zstd frame');
  assert.equal(declaresSize(new Uint8Array(0), 0), false, 'no frame');
});

test('a page whose header size is wrong decodes as it decodes alone (its length then tells)', () => {
  const raw = pageBytes(1000, 7);
  const frame = compress(raw);
  for (const size of [0, 1, 999, 1001, 5000, -1, Number.NaN, 2 ** 60]) assertSame(frame, size, `header says ${size}`);
  assert.equal(decompressZstdPage(frame, 999).length, 1000);
  assert.equal(decompressZstdPage(frame, 1001).length, 1000);
});

test('a frame cut inside its checksum does not spoil the next page', () => {
  const raw = pageBytes(500, 3);
  const cut = compress(raw, true).slice(0, -2);
  assertSame(cut, 500, 'cut frame');
  const next = pageBytes(300, 4);
  assert.equal(Buffer.compare(Buffer.from(decompressZstdPage(compress(next), 300)), Buffer.from(next)), 0);
});

/** What a page in a sequence is made into. */
const variant = fc.constantFrom('good', 'good-checksum', 'corrupt', 'truncated', 'cut-checksum', 'trailing', 'two-frames', 'two-frames-first-size', 'empty-input', 'size-small', 'size-large');

test('any sequence of good and bad pages: each decodes (or fails) as it does alone, into fresh buffers or reused dirty ones', () => {
  fc.assert(
    fc.property(fc.array(fc.tuple(variant, fc.integer({ min: 0, max: 3000 }), fc.integer()), { minLength: 1, maxLength: 30 }), fc.boolean(), (pages, reuse) => {
      // A page arena's buffers hold the last page's bytes: filled with garbage here, and handed out again after every page.
      const arena = new PageArena();
      const allocate = reuse ? (length: number) => arena.take(length).fill(0xa5) : undefined;
      for (const [kind, length, seed] of pages) {
        const raw = pageBytes(length, seed);
        let input = compress(raw, kind === 'good-checksum' || kind === 'cut-checksum');
        let size = length;
        if (kind === 'corrupt' && input.length > 6) {
          input = input.slice();
          input[Math.abs(seed) % (input.length - 4) + 4]! ^= 0x5a;
        }
        if (kind === 'truncated') input = input.slice(0, Math.max(1, input.length - 1 - (Math.abs(seed) % 8)));
        if (kind === 'cut-checksum') input = input.slice(0, -1 - (Math.abs(seed) % 3));
        if (kind === 'trailing') input = Uint8Array.from([...input, 0x28, 0xb5]);
        if (kind === 'two-frames' || kind === 'two-frames-first-size') {
          input = Uint8Array.from([...input, ...compress(raw)]);
          if (kind === 'two-frames') size = 2 * length;
        }
        if (kind === 'empty-input') input = new Uint8Array(0);
        if (kind === 'size-small') size = Math.max(0, length - 1);
        if (kind === 'size-large') size = length + 1;
        assertSame(input, size, `${kind} page of ${length} bytes${reuse ? ', reused buffer' : ''}`, allocate);
        arena.release();
      }
    }),
    { numRuns: 1000 },
  );
});
