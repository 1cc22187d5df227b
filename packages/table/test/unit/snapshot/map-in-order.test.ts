import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { mapInOrder } from '../../../src/snapshot/file-store-scan.ts';

test('mapInOrder keeps the order and never exceeds the limit', async () => {
  let inFlight = 0;
  let most = 0;
  const out = await mapInOrder([5, 1, 4, 2, 3, 0, 6], 3, async (x) => {
    inFlight++;
    most = Math.max(most, inFlight);
    await sleep(x * 3);
    inFlight--;
    return x * 10;
  });
  assert.deepEqual(out, [50, 10, 40, 20, 30, 0, 60]);
  assert.equal(most, 3);
  assert.deepEqual(await mapInOrder([], 4, () => Promise.resolve(1)), []);
  await assert.rejects(mapInOrder([1, 2], 2, (x) => (x === 2 ? Promise.reject(new Error('boom')) : Promise.resolve(x))), /boom/);
});
