import assert from 'node:assert/strict';
import { test } from 'node:test';
import { raceAbort, untilAborted } from '../../src/abortable.ts';

const never = <T>(): Promise<T> => new Promise<T>(() => undefined);

test('raceAbort: the value when it comes first; the abort reason at once when the work never settles', async () => {
  assert.equal(await raceAbort(Promise.resolve(7), new AbortController().signal), 7);
  const controller = new AbortController();
  const raced = raceAbort(never<number>(), controller.signal);
  controller.abort(new Error('stop'));
  await assert.rejects(raced, /stop/);
  // Already aborted: rejects without waiting, and the dropped work's later failure is handled.
  await assert.rejects(raceAbort(Promise.reject(new Error('late')), controller.signal), /stop/);
});

test('untilAborted: yields every item, then ends the wait of a source blocked in next() when the signal aborts', async () => {
  const controller = new AbortController();
  let returned = false;
  async function* blocked(): AsyncGenerator<number> {
    try {
      yield 1;
      yield 2;
      await never(); // a query that never answers
    } finally {
      returned = true;
    }
  }
  const seen: number[] = [];
  await assert.rejects(
    (async () => {
      for await (const n of untilAborted(blocked(), controller.signal)) {
        seen.push(n);
        if (n === 2) setTimeout(() => controller.abort(new Error('aborted')), 10);
      }
    })(),
    /aborted/,
  );
  assert.deepEqual(seen, [1, 2]);
  assert.equal(returned, false, 'the blocked generator is asked to return but not awaited');
});

test('untilAborted: a consumer that stops early closes the source', async () => {
  let returned = false;
  async function* source(): AsyncGenerator<number> {
    try {
      for (let i = 0; ; i++) yield i;
    } finally {
      returned = true;
    }
  }
  for await (const n of untilAborted(source(), new AbortController().signal)) if (n === 3) break;
  assert.equal(returned, true);
});
