/** Key and prefix rules shared by every ObjectStore (src/io/object-key.ts). */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { checkKey, checkPrefix, compareKeys, isTempName, isValidKey } from '../../../src/io/object-key.ts';

test('Paimon-shaped keys are valid', () => {
  for (const key of [
    'snapshot/snapshot-1',
    'snapshot/LATEST',
    'dt=2024-01-01/bucket-0/data-3f2a-0.parquet',
    'manifest/manifest-list-0',
    '.tributary/syncs/s1/shard-3/attempt-1',
    'a b/ü/%2F',
  ]) {
    assert.doesNotThrow(() => checkKey(key), key);
  }
});

test('keys that are not relative paths of proper segments are refused', () => {
  for (const key of ['', '/a', 'a/', 'a//b', './a', 'a/./b', 'a/..', '..', 'a\\b', 'a\0b', 'dir/.x.1234.tmp', '.a.tmp']) {
    assert.throws(() => checkKey(key), { code: 'OBJECT_KEY_INVALID' }, JSON.stringify(key));
    assert.equal(isValidKey(key), false, JSON.stringify(key));
  }
});

test('prefixes may end anywhere, but not start with / or hold bad segments', () => {
  for (const prefix of ['', 'a', 'a/', 'a/b', 'snapshot/snap', '.tributary/']) assert.doesNotThrow(() => checkPrefix(prefix));
  for (const prefix of ['/', '/a', 'a//b', '../a/', 'a/../b']) {
    assert.throws(() => checkPrefix(prefix), { code: 'OBJECT_KEY_INVALID' }, prefix);
  }
});

test('temporary names are dot files ending in .tmp', () => {
  assert.equal(isTempName('.snapshot-3.0f8fad5b-d9cb-469f-a165-70867728950e.tmp'), true);
  assert.equal(isTempName('snapshot-3.tmp'), false);
  assert.equal(isTempName('.tributary'), false);
});

test('compareKeys orders by UTF-8 bytes, as S3 lists', () => {
  fc.assert(
    fc.property(fc.string({ unit: 'grapheme' }), fc.string({ unit: 'grapheme' }), (a, b) => {
      const expected = Buffer.compare(Buffer.from(a), Buffer.from(b));
      assert.equal(Math.sign(compareKeys(a, b)), expected);
    }),
  );
  assert.ok(compareKeys('ｚ', '🌊') < 0); // JS's own string order says the opposite
  assert.ok('ｚ' > '🌊');
  assert.ok(compareKeys('a.b', 'a/x') < 0);
});
