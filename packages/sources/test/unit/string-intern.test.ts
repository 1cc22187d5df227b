/**
 * StringIntern (values/string-intern.ts): whatever the cells, a kept string is exactly what decoding
 * the cell gives (same bytes, colliding hashes, lengths at and past the limit, UTF-8); a column of few
 * values is decoded once per value; a column of distinct values stops being looked up, then is tried
 * again.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { StringIntern } from '../../src/values/string-intern.ts';

const utf8 = (b: Uint8Array, s: number, e: number): string => Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('utf8', s, e);

/** Cells laid one after another in one buffer, as a batch's row bytes are. */
function laid(cells: readonly Uint8Array[]): { bytes: Uint8Array; bounds: [number, number][] } {
  const bytes = new Uint8Array(cells.reduce((n, c) => n + c.length + 3, 0));
  const bounds: [number, number][] = [];
  let at = 0;
  for (const c of cells) {
    bytes.set([0xfe, 0x01, 0x02], at); // bytes around a cell that are not the cell's
    at += 3;
    bytes.set(c, at);
    bounds.push([at, at + c.length]);
    at += c.length;
  }
  return { bytes, bounds };
}

test('a kept string is always the decoded cell: repeats, near-equal bytes, every length around the limit', () => {
  const cell = fc.oneof(
    fc.string({ maxLength: 12, unit: 'grapheme' }).map((s) => new Uint8Array(Buffer.from(s, 'utf8'))),
    fc.uint8Array({ maxLength: 40 }),
    fc.constantFrom(...['', 'a', 'b', 'ab', 'ba', 'PAID', 'PAIDx', '東京', 'x'.repeat(32), 'x'.repeat(33)].map((s) => new Uint8Array(Buffer.from(s)))),
  );
  fc.assert(
    fc.property(fc.array(cell, { maxLength: 300 }), fc.array(fc.nat({ max: 299 }), { maxLength: 600 }), (distinct, order) => {
      if (distinct.length === 0) return;
      const { bytes, bounds } = laid(order.map((i) => distinct[i % distinct.length] as Uint8Array));
      const intern = new StringIntern();
      for (const [s, e] of bounds) assert.equal(intern.get(bytes, s, e, utf8), utf8(bytes, s, e));
    }),
    { numRuns: 300 },
  );
});

test('1,024 slots, 2,000 distinct short values in turn: hash collisions never hand out another value\u2019s string', () => {
  const values = Array.from({ length: 2000 }, (_, i) => new Uint8Array(Buffer.from(`v${i}`)));
  const { bytes, bounds } = laid([...values, ...values, ...values.slice().reverse()]);
  const intern = new StringIntern();
  for (const [s, e] of bounds) assert.equal(intern.get(bytes, s, e, utf8), utf8(bytes, s, e));
});

test('few values are decoded once each; distinct values stop being looked up and are tried again later', () => {
  let decoded = 0;
  const counting = (b: Uint8Array, s: number, e: number): string => {
    decoded++;
    return utf8(b, s, e);
  };
  const statuses = ['NEW', 'PAID', 'SHIPPED', 'DELIVERED', 'CANCELLED'];
  const few = laid(Array.from({ length: 50_000 }, (_, i) => new Uint8Array(Buffer.from(statuses[i % 5] as string))));
  const intern = new StringIntern();
  const first = few.bounds.map(([s, e]) => intern.get(few.bytes, s, e, counting));
  assert.equal(decoded, 5, 'one decode per distinct value');
  assert.equal(new Set(first).size, 5);
  assert.ok(first[0] === first[5], 'the same string object handed out again');

  // Distinct values: after a window of misses the column is decoded directly (no lookup, nothing
  // kept), so a value seen again during the pause is decoded again; then it is looked up again.
  const distinct = laid(Array.from({ length: 40_000 }, (_, i) => new Uint8Array(Buffer.from(`note ${i}`))));
  const notes = new StringIntern();
  for (const [s, e] of distinct.bounds) notes.get(distinct.bytes, s, e, utf8);
  decoded = 0;
  const again = laid(Array.from({ length: 100 }, () => new Uint8Array(Buffer.from('note 1'))));
  for (const [s, e] of again.bounds) assert.equal(notes.get(again.bytes, s, e, counting), 'note 1');
  assert.equal(decoded, 100, 'paused: every cell decoded');
  // The first pause was 32 Ki cells, the one after the retry window that failed again 64 Ki.
  for (let i = 0; i < 128 * 1024; i++) notes.get(again.bytes, again.bounds[0]![0], again.bounds[0]![1], utf8);
  decoded = 0;
  for (const [s, e] of again.bounds) notes.get(again.bytes, s, e, counting);
  assert.ok(decoded <= 1, `looked up again after the pause (${decoded} decodes for 100 equal cells)`);
});

test('a value and a longer one it begins (or a shorter one) never share a kept string, whatever slot they fall in', () => {
  // 20,000 pairs: the longer value, then its prefix; a repeated value between them keeps the
  // column looked up (not paused), so the pairs that fall in one slot (about 1 in 1,024) are met.
  const cells: Uint8Array[] = [];
  for (let j = 0; j < 20_000; j++) cells.push(...[`q${j}x`, `q${j}`, 'PAID', 'PAID', 'PAID', `r${j}`, `r${j}yz`].map((s) => new Uint8Array(Buffer.from(s))));
  const { bytes, bounds } = laid(cells);
  const intern = new StringIntern();
  for (const [s, e] of bounds) assert.equal(intern.get(bytes, s, e, utf8), utf8(bytes, s, e));
});
