/**
 * The schedule's fire lock on real Redis: a fire whose start outlasts the lock's expiry still holds
 * it, so the next fire of the schedule cannot decide beside it. Without that, the next fire read the
 * same last sync (the first fire records its sync only once its start returned), found it ended and
 * started a second sync from the same watermark.
 *
 * The wait inside the fire is for a condition seen in Redis (the lock renewed twice), not a fixed
 * sleep; the lock's expiry is short so that the start outlasts it.
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { isTributaryError } from '@tributary/protocol';
import { services, uniqueName } from '@tributary/testkit';
import { ScheduleStore } from '../../../src/schedule/store.ts';

const redis = new Redis({ ...services.redis, maxRetriesPerRequest: null });
after(() => redis.quit());

// Renewed every third of it: four renewals (about 5.3 s) outlast the expiry, and an event loop stalled
// for up to about 2.6 s (a loaded CI machine) still renews in time.
const TTL_MS = 4000;
const RENEWALS = 4;

describe('ScheduleStore.withFireLock', () => {
  test('a fire that outlasts the lock\'s expiry keeps the lock; the next fire is refused until it ends', async () => {
    const prefix = uniqueName('fire-lock');
    const store = new ScheduleStore(redis, prefix);
    const key = `${prefix}:schedule:s:firing`;
    let renewals = 0;
    await store.withFireLock(
      's',
      async () => {
        const holder = await redis.get(key);
        assert.ok(holder !== null);
        // The start of a slow plan: past the expiry, the lock is still this fire's.
        let last = await redis.pttl(key);
        const started = Date.now();
        for (let polls = 0; renewals < RENEWALS; polls++) {
          assert.ok(polls < 3000, 'the lock was renewed four times within 3,000 polls');
          await sleep(20);
          assert.equal(await redis.get(key), holder, 'the lock is still held by the fire that runs');
          const ttl = await redis.pttl(key);
          if (ttl > last) renewals++;
          last = ttl;
        }
        assert.ok(Date.now() - started > TTL_MS, 'the fire outlasted the expiry it started with');
        // The next fire (another fire time, another coordinator) is refused while this one decides.
        await assert.rejects(
          store.withFireLock('s', () => Promise.resolve('second'), { ttlMs: TTL_MS, waitMs: 0 }),
          (error: unknown) => isTributaryError(error) && error.code === 'SCHEDULE_FIRE_BUSY',
        );
      },
      { ttlMs: TTL_MS },
    );
    assert.equal(renewals, RENEWALS);
    assert.equal(await redis.exists(key), 0, 'released when the fire ended');
    assert.equal(await store.withFireLock('s', () => Promise.resolve('next'), { ttlMs: TTL_MS, waitMs: 0 }), 'next');
  });
});
