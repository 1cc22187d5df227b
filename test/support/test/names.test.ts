import { test } from 'node:test';
import assert from 'node:assert/strict';
import { uniqueName } from '../src/index.ts';

test('uniqueName gives a fresh name each call, with the prefix', () => {
  const names = new Set(Array.from({ length: 1000 }, () => uniqueName('t')));
  assert.equal(names.size, 1000);
  for (const n of names) assert.match(n, /^t-[0-9a-f]{8}$/);
});
