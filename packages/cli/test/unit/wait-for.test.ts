/** Waiting for a service at start: the back-off schedule, one line per failed attempt, the deadline. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FIRST_DELAY_MS, MAX_DELAY_MS, UnreachableError, nextDelay, waitFor } from '@tributary/cli';

function fakeClock() {
  let now = 0;
  const slept: number[] = [];
  return { now: () => now, sleep: async (ms: number) => void (slept.push(ms), (now += ms)), slept };
}

test('back-off doubles from 250 ms to 5 s', () => {
  const delays: number[] = [];
  let d: number | undefined;
  for (let i = 0; i < 8; i++) delays.push((d = nextDelay(d)));
  assert.deepEqual(delays, [FIRST_DELAY_MS, 500, 1000, 2000, 4000, MAX_DELAY_MS, MAX_DELAY_MS, MAX_DELAY_MS]);
});

test('gives up at the deadline: one line per failed attempt, never sleeping past it', async () => {
  const clock = fakeClock();
  const lines: string[] = [];
  const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1\n    at stack'), { code: 'ECONNREFUSED' });
  await assert.rejects(
    waitFor({ what: 'Redis at x', attempt: () => Promise.reject(refused), timeoutMs: 10_000, log: (l) => lines.push(l), ...clock }),
    (error: Error) => error instanceof UnreachableError && /Redis at x unreachable after 7 attempts in 10000 ms/.test(error.message),
  );
  assert.deepEqual(clock.slept, [250, 500, 1000, 2000, 4000, 2250]);
  assert.equal(lines.length, 6);
  assert.equal(lines[0], 'Redis at x unreachable (attempt 1): connect ECONNREFUSED 127.0.0.1:1; retrying in 250 ms');
  assert.ok(lines.every((l) => !l.includes('at stack')));
});

test('returns once an attempt succeeds, and says so after failures', async () => {
  const clock = fakeClock();
  const lines: string[] = [];
  let calls = 0;
  await waitFor({ what: 'S3', attempt: async () => void (++calls < 3 && (() => { throw new Error('down'); })()), timeoutMs: 60_000, log: (l) => lines.push(l), ...clock });
  assert.equal(calls, 3);
  assert.deepEqual(lines, ['S3 unreachable (attempt 1): down; retrying in 250 ms', 'S3 unreachable (attempt 2): down; retrying in 500 ms', 'S3 reachable (attempt 3)']);
});
