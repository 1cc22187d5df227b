import assert from 'node:assert/strict';
import { test } from 'node:test';
import { COMMIT_BACKOFF_CAP_MS, commitBackoffMs } from '../../../src/sync/flow.ts';

test('commit retries double from 500 ms and never wait more than the cap, with ±20% jitter', () => {
  const middle = () => 0.5;
  assert.deepEqual([1, 2, 3, 4, 5].map((n) => commitBackoffMs(n, middle)), [500, 1000, 2000, 4000, 8000]);
  assert.equal(commitBackoffMs(7, middle), COMMIT_BACKOFF_CAP_MS); // 32 s doubled is past the cap
  assert.equal(commitBackoffMs(25, middle), COMMIT_BACKOFF_CAP_MS);
  assert.equal(commitBackoffMs(1000, middle), COMMIT_BACKOFF_CAP_MS); // no overflow to Infinity or NaN
  assert.equal(commitBackoffMs(1, () => 0), 400);
  assert.equal(commitBackoffMs(1, () => 1), 600);
  assert.equal(commitBackoffMs(30, () => 1), COMMIT_BACKOFF_CAP_MS * 1.2);
});
