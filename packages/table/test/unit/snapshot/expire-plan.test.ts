// The pure rules of snapshot expiration: which ids may expire (Paimon's ExpireSnapshotsImpl.expire)
// and which files the expired deltas free (FileDeletionBase.getDataFileToDelete).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DEFAULT_RETENTION, dataFilesToDelete, endOfExpiry, expireBounds, manifestsToDelete } from '../../../src/snapshot/expire-plan.ts';

const retention = (o: Partial<typeof DEFAULT_RETENTION>) => ({ ...DEFAULT_RETENTION, ...o });

test('num-retained.min keeps the newest snapshots; num-retained.max forces older ones out', () => {
  assert.deepEqual(expireBounds({ earliest: 1, latest: 20, retention: retention({ retainMin: 10 }) }), { min: 1, maxExclusive: 11 });
  assert.deepEqual(expireBounds({ earliest: 1, latest: 20, retention: retention({ retainMin: 2, retainMax: 5 }) }), { min: 16, maxExclusive: 19 });
  // min retained below 1 still keeps the latest snapshot.
  assert.deepEqual(expireBounds({ earliest: 1, latest: 3, retention: retention({ retainMin: 0, retainMax: 0 }) }).maxExclusive, 3);
});

test('expire.limit and a pinned snapshot bound the range', () => {
  assert.equal(expireBounds({ earliest: 5, latest: 100, retention: retention({ retainMin: 1, maxDeletes: 3 }) }).maxExclusive, 8);
  assert.equal(expireBounds({ earliest: 5, latest: 100, retention: retention({ retainMin: 1 }), protectFrom: 7 }).maxExclusive, 7);
  assert.equal(expireBounds({ earliest: 5, latest: 100, retention: retention({ retainMin: 1 }), protectFrom: 2 }).maxExclusive, 2);
});

test('time-retained stops at the first young snapshot at or above min; below min age does not matter', () => {
  const times = new Map([[1, 100], [2, 200], [3, 300], [4, 400]]);
  assert.equal(endOfExpiry({ min: 1, maxExclusive: 4 }, 250, (id) => times.get(id)), 3);
  assert.equal(endOfExpiry({ min: 3, maxExclusive: 4 }, 250, (id) => times.get(id)), 3);
  assert.equal(endOfExpiry({ min: 3, maxExclusive: 4 }, 500, (id) => times.get(id)), 4);
  assert.equal(endOfExpiry({ min: 1, maxExclusive: 4 }, 50, (id) => times.get(id)), 1);
});

test('files deleted by the expired deltas go, unless re-added (level upgrade) or protected', () => {
  const deltas = [
    { kind: 'ADD' as const, keys: ['t/b0/a'] },
    { kind: 'DELETE' as const, keys: ['t/b0/x', 't/b0/x.extra'] },
    { kind: 'DELETE' as const, keys: ['t/b0/up'] },
    { kind: 'ADD' as const, keys: ['t/b0/up'] },
    { kind: 'DELETE' as const, keys: ['t/b0/tagged'] },
  ];
  assert.deepEqual(dataFilesToDelete(deltas, (key) => key === 't/b0/tagged'), ['t/b0/x', 't/b0/x.extra']);
});

test('manifests of expired snapshots that a kept one names stay', () => {
  assert.deepEqual(manifestsToDelete(['m1', 'm2', 'm1', 'l1'], new Set(['m2'])), ['m1', 'l1']);
});
