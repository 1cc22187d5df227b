import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import {
  DEFAULT_STATS_MODE,
  EMPTY_STATS,
  applyStatsMode,
  parseStatsMode,
  simpleStats,
  statsModesFor,
  statsToBinary,
  truncateMax,
  truncateMin,
} from '../../../src/spec/simple-stats.ts';
import { decodeBinaryRow } from '../../../src/spec/binary-row.ts';
import { compareBytes, compareUtf8 } from '../../../src/spec/key-comparator.ts';
import { parseDataType } from '../../../src/spec/data-type-json.ts';

const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');

describe('SimpleStats', () => {
  test('EMPTY_STATS: two empty rows, no null counts', () => {
    assert.equal(hex(EMPTY_STATS.minValues), '000000000000000000000000');
    assert.equal(hex(EMPTY_STATS.maxValues), '000000000000000000000000');
    assert.deepEqual(EMPTY_STATS.nullCounts, []);
    assert.deepEqual(simpleStats([], [], [], []), EMPTY_STATS);
  });
  test('min/max rows are arity-prefixed BinaryRows; unknown bounds are allowed on NOT NULL columns', () => {
    const types = [parseDataType('INT NOT NULL'), parseDataType('STRING')];
    const s = simpleStats([5, null], [9, null], [0n, null], types);
    assert.equal(hex(s.minValues), '00000002' + '0002000000000000' + '0500000000000000' + '0000000000000000');
    assert.deepEqual(decodeBinaryRow(s.maxValues, types.map((t) => ({ ...t, nullable: true }))), [9, null]);
    assert.deepEqual(s.nullCounts, [0n, null]);
  });
  test('null counts must match the columns', () => {
    assert.throws(() => simpleStats([1], [1], [], [parseDataType('INT')]), (e: unknown) => (e as { code?: string }).code === 'ROW_VALUE_INVALID');
  });
});

describe('stats modes (SimpleColStatsCollector)', () => {
  test('parse', () => {
    assert.deepEqual(parseStatsMode('none'), { kind: 'none' });
    assert.deepEqual(parseStatsMode('Counts'), { kind: 'counts' });
    assert.deepEqual(parseStatsMode('FULL'), { kind: 'full' });
    assert.deepEqual(parseStatsMode('truncate(16)'), DEFAULT_STATS_MODE);
    for (const bad of ['truncate(0)', 'truncate', 'all', 'truncate(-1)']) {
      assert.throws(() => parseStatsMode(bad), (e: unknown) => (e as { code?: string }).code === 'SCHEMA_INVALID', bad);
    }
  });
  test('per-field modes and keep-first-n columns (StatsCollectorFactories)', () => {
    const modes = statsModesFor(
      { 'metadata.stats-mode': 'full', 'fields.c.stats-mode': 'counts', 'metadata.stats-keep-first-n-columns': '2' },
      ['a', 'b', 'c', 'd'],
    );
    assert.deepEqual(modes, [{ kind: 'full' }, { kind: 'full' }, { kind: 'counts' }, { kind: 'none' }]);
    assert.deepEqual(statsModesFor({}, ['x']), [DEFAULT_STATS_MODE]);
  });
  test('none, counts, full', () => {
    const stats = { min: 'a', max: 'z', nullCount: 3n };
    assert.deepEqual(applyStatsMode(stats, { kind: 'none' }), { min: null, max: null, nullCount: null });
    assert.deepEqual(applyStatsMode(stats, { kind: 'counts' }), { min: null, max: null, nullCount: 3n });
    assert.deepEqual(applyStatsMode(stats, { kind: 'full' }), stats);
  });
});

describe('truncate(16) (TruncateSimpleColStatsCollector)', () => {
  const t16 = DEFAULT_STATS_MODE;
  test('short values are kept as they are', () => {
    const s = { min: 'sixteen-chars-ok', max: 'é'.repeat(16), nullCount: 0n };
    assert.deepEqual(applyStatsMode(s, t16), s);
  });
  test('long strings: min is the 16-code-point prefix, max bumps its last code point', () => {
    const r = applyStatsMode({ min: 'abcdefghijklmnopqrstuvwxyz', max: 'abcdefghijklmnopqrstuvwxyz', nullCount: 1n }, t16);
    assert.deepEqual(r, { min: 'abcdefghijklmnop', max: 'abcdefghijklmnoq', nullCount: 1n });
  });
  test('code points, not UTF-16 units, are counted', () => {
    const s = '😀'.repeat(20);
    assert.equal(truncateMin(s, 16), '😀'.repeat(16));
    assert.equal(truncateMax(s, 16), '😀'.repeat(15) + '😁');
  });
  test('U+10FFFF cannot be bumped: the previous code point is', () => {
    assert.equal(truncateMax('a' + '\u{10FFFF}'.repeat(20), 16), 'b');
  });
  test('no bound at all: min and max both become unknown', () => {
    const s = '\u{10FFFF}'.repeat(17);
    assert.deepEqual(applyStatsMode({ min: 'a', max: s, nullCount: 0n }, t16), { min: null, max: null, nullCount: 0n });
  });
  test('bytes: prefix for min; last byte below 0xFF incremented for max', () => {
    const v = new Uint8Array([...Array(15).fill(1), 0xfe, 0xff, 7]);
    assert.equal(hex(truncateMin(v, 16) as Uint8Array), '01'.repeat(15) + 'fe');
    assert.equal(hex(truncateMax(v, 16) as Uint8Array), '01'.repeat(15) + 'ff');
    assert.equal(hex(truncateMax(new Uint8Array([1, ...Array(16).fill(0xff)]), 16) as Uint8Array), '02');
    assert.equal(truncateMax(new Uint8Array(17).fill(0xff), 16), null);
  });
  test('other types pass through', () => {
    assert.deepEqual(applyStatsMode({ min: -5n, max: 9n, nullCount: 0n }, t16), { min: -5n, max: 9n, nullCount: 0n });
  });
  test('bounds stay bounds (fast-check): min ≤ value ≤ max', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 40 }), fc.integer({ min: 1, max: 20 }), (s, n) => {
        const min = truncateMin(s, n) as string;
        const max = truncateMax(s, n);
        assert.ok(compareUtf8(min, s) <= 0);
        if (max !== null) assert.ok(compareUtf8(max as string, s) >= 0);
      }),
      { numRuns: 1000 },
    );
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 40 }), fc.integer({ min: 1, max: 20 }), (b, n) => {
        assert.ok(compareBytes(truncateMin(b, n) as Uint8Array, b) <= 0);
        const max = truncateMax(b, n);
        if (max !== null) assert.ok(compareBytes(max as Uint8Array, b) >= 0);
      }),
      { numRuns: 1000 },
    );
  });
});

describe('statsToBinary (SimpleStatsConverter)', () => {
  const fields = [
    { id: 0, name: 'id', type: parseDataType('BIGINT NOT NULL') },
    { id: 1, name: 'note', type: parseDataType('STRING NOT NULL') },
    { id: 2, name: 'n', type: parseDataType('INT') },
  ];
  const long = 'x'.repeat(40);
  test('every column kept: _VALUE_STATS_COLS is null; an unknown max on a NOT NULL column encodes', () => {
    const modes = statsModesFor({}, fields.map((f) => f.name));
    const exact = [
      { min: 1n, max: 9n, nullCount: 0n },
      { min: long, max: '\u{10FFFF}'.repeat(17), nullCount: 0n },
      { min: null, max: null, nullCount: 4n },
    ];
    const r = statsToBinary(exact.map((s, i) => applyStatsMode(s, modes[i] ?? DEFAULT_STATS_MODE)), fields);
    assert.equal(r.statsColumns, null);
    const nullable = fields.map((f) => ({ ...f.type, nullable: true }));
    assert.deepEqual(decodeBinaryRow(r.stats.minValues, nullable), [1n, null, null]);
    assert.deepEqual(decodeBinaryRow(r.stats.maxValues, nullable), [9n, null, null]);
    assert.deepEqual(r.stats.nullCounts, [0n, 0n, 4n]);
  });
  test('dense store drops none columns and lists the kept ones; all-mode keeps them', () => {
    const stats = [{ min: 1n, max: 2n, nullCount: 0n }, { min: null, max: null, nullCount: null }, { min: 5, max: 5, nullCount: 0n }];
    const dense = statsToBinary(stats, fields);
    assert.deepEqual(dense.statsColumns, ['id', 'n']);
    assert.equal(hex(dense.stats.minValues).slice(0, 8), '00000002');
    assert.deepEqual(dense.stats.nullCounts, [0n, 0n]);
    const all = statsToBinary(stats, fields, false);
    assert.equal(all.statsColumns, null);
    assert.deepEqual(all.stats.nullCounts, [0n, null, 0n]);
  });
  test('no columns with stats: empty rows and an empty column list', () => {
    const none = { min: null, max: null, nullCount: null };
    const r = statsToBinary([none, none, none], fields);
    assert.deepEqual(r.statsColumns, []);
    assert.deepEqual(r.stats, EMPTY_STATS);
  });
});
