// The compression and table-wide stats mode of each kind of file, with Paimon's precedence: the
// changelog option for changelog files only, then the per-level map for the file's level (never
// for an append table's files), then the table-wide option, then the default. Bad values are
// refused by option name.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isTributaryError } from '@tributary/errors';
import { APPEND_FILE, CHANGELOG_FILE, DATA_FILE_LEVEL_0, checkFileOptions, fileCompression, fileStatsMode } from '../../../src/spec/file-options.ts';

const refusedWith = (code: string, option: string) => (error: unknown) => {
  assert.ok(isTributaryError(error), String(error));
  assert.equal(error.code, code);
  assert.equal((error.context as { option?: string }).option, option);
  return true;
};

test('defaults: zstd at level 1, truncate(16), for every kind of file', () => {
  for (const kind of [DATA_FILE_LEVEL_0, CHANGELOG_FILE, APPEND_FILE, { level: 5, changelog: false }]) {
    assert.deepEqual(fileCompression({}, kind), { compression: 'zstd', zstdLevel: 1 });
    assert.deepEqual(fileStatsMode({}, kind), { kind: 'truncate', length: 16 });
  }
});

test('compression: changelog option, then the per-level map, then file.compression', () => {
  const options = {
    'file.compression': 'GZIP',
    'file.compression.per.level': ' 0 : uncompressed , 5:zstd',
    'changelog-file.compression': 'none',
    'file.compression.zstd-level': '9',
  };
  assert.deepEqual(fileCompression(options, DATA_FILE_LEVEL_0), { compression: 'none', zstdLevel: 9 });
  assert.deepEqual(fileCompression(options, { level: 5, changelog: false }), { compression: 'zstd', zstdLevel: 9 });
  assert.deepEqual(fileCompression(options, { level: 3, changelog: false }), { compression: 'gzip', zstdLevel: 9 });
  assert.deepEqual(fileCompression(options, CHANGELOG_FILE), { compression: 'none', zstdLevel: 9 });
  // Paimon's append writer reads file.compression only.
  assert.deepEqual(fileCompression(options, APPEND_FILE), { compression: 'gzip', zstdLevel: 9 });
  // Without a changelog option a changelog file is a level-0 file.
  const { 'changelog-file.compression': _, ...noChangelog } = options;
  assert.deepEqual(fileCompression(noChangelog, CHANGELOG_FILE), { compression: 'none', zstdLevel: 9 });
  assert.deepEqual(fileCompression({ 'file.compression': 'gzip', 'changelog-file.compression': '  ' }, CHANGELOG_FILE).compression, 'gzip');
});

test('codecs Paimon names but Tributary does not write are written as zstd; an unknown codec is refused', () => {
  for (const codec of ['snappy', 'LZ4', 'lz4_raw', 'lzo', 'brotli']) {
    assert.equal(fileCompression({ 'file.compression': codec }, DATA_FILE_LEVEL_0).compression, 'zstd', codec);
  }
  assert.throws(() => fileCompression({ 'file.compression': 'zip' }, DATA_FILE_LEVEL_0), refusedWith('TABLE_OPTION_INVALID', 'file.compression'));
  assert.throws(() => fileCompression({ 'changelog-file.compression': 'zlib' }, CHANGELOG_FILE), refusedWith('TABLE_OPTION_INVALID', 'changelog-file.compression'));
  assert.throws(() => fileCompression({ 'file.compression.zstd-level': '23' }, DATA_FILE_LEVEL_0), refusedWith('TABLE_OPTION_INVALID', 'file.compression.zstd-level'));
  assert.throws(() => fileCompression({ 'file.compression.zstd-level': '1.5' }, DATA_FILE_LEVEL_0), refusedWith('TABLE_OPTION_INVALID', 'file.compression.zstd-level'));
});

test('stats mode: changelog-file.stats-mode, then metadata.stats-mode.per.level, then metadata.stats-mode', () => {
  const options = {
    'metadata.stats-mode': 'full',
    'metadata.stats-mode.per.level': '0:counts,5:truncate(8)',
    'changelog-file.stats-mode': 'NONE',
  };
  assert.deepEqual(fileStatsMode(options, DATA_FILE_LEVEL_0), { kind: 'counts' });
  assert.deepEqual(fileStatsMode(options, { level: 5, changelog: false }), { kind: 'truncate', length: 8 });
  assert.deepEqual(fileStatsMode(options, { level: 2, changelog: false }), { kind: 'full' });
  assert.deepEqual(fileStatsMode(options, CHANGELOG_FILE), { kind: 'none' });
  assert.deepEqual(fileStatsMode(options, APPEND_FILE), { kind: 'full' });
  assert.throws(() => fileStatsMode({ 'changelog-file.stats-mode': 'truncate(0)' }, CHANGELOG_FILE), refusedWith('TABLE_OPTION_INVALID', 'changelog-file.stats-mode'));
  assert.throws(() => fileStatsMode({ 'metadata.stats-mode': 'most' }, DATA_FILE_LEVEL_0), refusedWith('TABLE_OPTION_INVALID', 'metadata.stats-mode'));
});

test('checkFileOptions refuses a malformed per-level map and a bad value at a level no file is written at yet', () => {
  for (const text of ['0', '0:', 'x:zstd', '-1:zstd', '0:zstd,,1:gzip']) {
    assert.throws(() => checkFileOptions({ 'file.compression.per.level': text }), refusedWith('TABLE_OPTION_INVALID', 'file.compression.per.level'), text);
  }
  assert.throws(() => checkFileOptions({ 'file.compression.per.level': '0:zstd,5:zip' }), refusedWith('TABLE_OPTION_INVALID', 'file.compression.per.level'));
  assert.throws(() => checkFileOptions({ 'metadata.stats-mode.per.level': '4:sometimes' }), refusedWith('TABLE_OPTION_INVALID', 'metadata.stats-mode.per.level'));
  checkFileOptions({ 'file.compression.per.level': '0:zstd,5:gzip', 'metadata.stats-mode.per.level': '0:none,5:full', 'changelog-file.stats-mode': 'counts' });
});
