// PageArena (parquet/page-arena.ts): buffers handed out since the last release never share bytes;
// after a release the same memory is handed out again (that is its point); a buffer is exactly the
// length asked, a view at offset 0 of memory of its own; clear lets everything go.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { PageArena } from '../../../src/parquet/page-arena.ts';

/** Whether two views share any byte. */
function overlap(a: Uint8Array, b: Uint8Array): boolean {
  return a.buffer === b.buffer && a.byteOffset < b.byteOffset + b.byteLength && b.byteOffset < a.byteOffset + a.byteLength;
}

test('buffers taken between releases are exact, apart and at offset 0; a release hands the same memory out again', () => {
  fc.assert(
    fc.property(fc.array(fc.array(fc.integer({ min: 0, max: 300_000 }), { maxLength: 12 }), { minLength: 1, maxLength: 8 }), (rounds) => {
      const arena = new PageArena();
      for (const lengths of rounds) {
        const taken = lengths.map((n) => arena.take(n));
        for (const [i, b] of taken.entries()) {
          assert.equal(b.byteLength, lengths[i], 'the length asked');
          assert.equal(b.byteOffset, 0, 'a view at offset 0');
          assert.equal(Object.getPrototypeOf(b), Uint8Array.prototype, 'a plain Uint8Array');
          for (const other of taken.slice(0, i)) assert.ok(!overlap(b, other) && b.buffer !== other.buffer, 'buffers taken since the last release are apart');
        }
        // Written through, then read back: no buffer sees another's bytes.
        for (const [i, b] of taken.entries()) b.fill(i & 0xff);
        for (const [i, b] of taken.entries()) assert.ok(b.every((x) => x === (i & 0xff)), `buffer ${i} kept its own bytes`);
        arena.release();
      }
      arena.clear();
      assert.equal(arena.bytesHeld, 0);
    }),
    { numRuns: 200 },
  );
});

test('after a release the next take of a fitting size gets a buffer it had before (not a new allocation)', () => {
  const arena = new PageArena();
  const first = arena.take(1_100_000);
  const small = arena.take(10);
  arena.release();
  const again = arena.take(1_048_600);
  assert.equal(again.buffer, first.buffer, 'the 1 MiB page reuses the earlier page\'s memory');
  const tiny = arena.take(5);
  assert.equal(tiny.buffer, small.buffer, 'the smallest fitting free buffer is taken, not the large one');
  const fresh = arena.take(2_000_000);
  assert.ok(fresh.buffer !== first.buffer && fresh.buffer !== small.buffer, 'nothing free fits: a new buffer');
  // Row groups of the same shape, one after another: the memory held stops growing after the first.
  arena.release();
  const shape = [1_048_600, 5, 2_000_000, 1_100_000];
  for (const n of shape) arena.take(n);
  arena.release();
  const held = arena.bytesHeld;
  assert.ok(held >= shape.reduce((a, b) => a + b, 0), 'the first group of that shape holds all its pages at once');
  for (let group = 0; group < 10; group++) {
    for (const n of shape) arena.take(n);
    arena.release();
    assert.equal(arena.bytesHeld, held, `group ${group}: the same buffers again`);
  }
});
