import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { PrefetchQueue } from '../../../src/sync/prefetch-queue.ts';

/** A task that records its start and finishes when `release` is called. */
function gated(log: string[], name: string): { task: () => Promise<void>; release: () => void } {
  let resolve: () => void = () => undefined;
  const promise = new Promise<void>((r) => (resolve = r));
  return {
    task: async () => {
      log.push(`start ${name}`);
      await promise;
      log.push(`end ${name}`);
    },
    release: () => resolve(),
  };
}

const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** Resolves once the queue has run everything it was given. */
async function idle(queue: PrefetchQueue): Promise<void> {
  while (queue.running + queue.queued > 0) await tick();
}

describe('PrefetchQueue', () => {
  test('runs at most `limit` tasks at once, in order, and starts the next as one finishes', async () => {
    const log: string[] = [];
    const queue = new PrefetchQueue(2);
    const tasks = ['a', 'b', 'c', 'd'].map((n) => gated(log, n));
    for (const t of tasks) queue.push('s', t.task);
    assert.deepEqual(log, ['start a', 'start b']);
    assert.equal(queue.running, 2);
    assert.equal(queue.queued, 2);
    tasks[1]?.release();
    await tick();
    assert.deepEqual(log, ['start a', 'start b', 'end b', 'start c']);
    for (const t of tasks) t.release();
    await idle(queue);
    assert.deepEqual(log.filter((l) => l.startsWith('end')).sort(), ['end a', 'end b', 'end c', 'end d']);
  });

  test('drop forgets only the queued tasks of one key; running ones finish', async () => {
    const log: string[] = [];
    const queue = new PrefetchQueue(1);
    const first = gated(log, 'x1');
    queue.push('x', first.task);
    for (const name of ['x2', 'y1', 'x3', 'y2']) queue.push(name[0] ?? '', async () => void log.push(`start ${name}`));
    queue.drop('x');
    assert.equal(queue.queued, 2);
    first.release();
    await idle(queue);
    assert.deepEqual(log, ['start x1', 'end x1', 'start y1', 'start y2']);
  });

  test('settle drops the queued tasks of one key and waits for its running ones only', async () => {
    const log: string[] = [];
    const queue = new PrefetchQueue(2);
    const x1 = gated(log, 'x1');
    const y1 = gated(log, 'y1');
    queue.push('x', x1.task);
    queue.push('y', y1.task);
    for (const name of ['x2', 'y2', 'x3']) queue.push(name[0] ?? '', async () => void log.push(`start ${name}`));
    let settled = false;
    const settling = queue.settle('x').then(() => (settled = true));
    assert.equal(queue.queued, 1, "only y's queued task is left");
    await tick();
    assert.equal(settled, false, "settle waits for x's running task");
    x1.release();
    await settling;
    // y1 still runs: settle did not wait for another key's task; x's queued ones never ran.
    assert.equal(queue.running >= 1, true);
    y1.release();
    await idle(queue);
    assert.deepEqual(log, ['start x1', 'start y1', 'end x1', 'start y2', 'end y1']);
    // Nothing of the key: settles at once.
    await queue.settle('z');
  });

  test('close drops the queued tasks, waits for the running ones, and refuses new ones', async () => {
    const log: string[] = [];
    const queue = new PrefetchQueue(1);
    const running = gated(log, 'a');
    queue.push('s', running.task);
    queue.push('s', async () => void log.push('never'));
    let closed = false;
    const closing = queue.close().then(() => (closed = true));
    await tick();
    assert.equal(closed, false, 'close waits for the running task');
    running.release();
    await closing;
    queue.push('s', async () => void log.push('after close'));
    await tick();
    assert.deepEqual(log, ['start a', 'end a']);
    assert.equal(queue.running, 0);
  });

  test('a task that rejects frees its slot and leaves no unhandled rejection', async () => {
    const queue = new PrefetchQueue(1);
    const log: string[] = [];
    queue.push('s', () => Promise.reject(new Error('redis went away')));
    queue.push('s', async () => void log.push('next'));
    await queue.close();
    await tick();
    assert.equal(log.length, 0); // close dropped the queued one; the rejected one did not throw out
    const again = new PrefetchQueue(1);
    again.push('s', () => Promise.reject(new Error('boom')));
    again.push('s', async () => void log.push('next'));
    await idle(again);
    assert.deepEqual(log, ['next']);
  });

  test('refuses a limit that is not a positive integer', () => {
    assert.throws(() => new PrefetchQueue(0), RangeError);
    assert.throws(() => new PrefetchQueue(1.5), RangeError);
  });
});
