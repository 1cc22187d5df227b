import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rebasedFileName, rebasedFrom } from '../../../src/write/sequence-rebase.ts';
import { overlappingClusters, type ShardFile } from '../../../src/read/shared-keys.ts';

test('a rebased file name depends on the original and the new first number, and leads back to the original', () => {
  const cases: [string, bigint, string][] = [
    ['data-sync-1-shard-0-a1-0.parquet', 42n, 'data-sync-1-shard-0-a1-0-seq42.parquet'],
    ['data-0f3c9a2e-7d1b-4c55-9e0a-1b2c3d4e5f60-12.parquet', 9223372036854775000n, 'data-0f3c9a2e-7d1b-4c55-9e0a-1b2c3d4e5f60-12-seq9223372036854775000.parquet'],
    ['noext', 7n, 'noext-seq7'],
  ];
  for (const [original, first, rebased] of cases) {
    assert.equal(rebasedFileName(original, first), rebased);
    assert.equal(rebasedFrom(rebased), original);
    assert.equal(rebasedFrom(original), original, 'an original name is its own original');
  }
});

test('overlappingClusters: files joined while their key ranges overlap; single-shard clusters left out', () => {
  const compare = (a: readonly unknown[], b: readonly unknown[]) => (a[0] as number) - (b[0] as number);
  const f = (shard: number, min: number, max: number): ShardFile<string> => ({ shard, file: `${shard}:${min}-${max}`, minKey: [min], maxKey: [max] });
  const names = (clusters: ShardFile<string>[][]) => clusters.map((c) => c.map((x) => x.file));
  assert.deepEqual(names(overlappingClusters([f(0, 1, 10), f(1, 20, 30)], compare)), [], 'disjoint ranges: nothing to read');
  assert.deepEqual(names(overlappingClusters([f(1, 5, 12), f(0, 1, 10), f(2, 40, 50)], compare)), [['0:1-10', '1:5-12']]);
  assert.deepEqual(names(overlappingClusters([f(0, 1, 10), f(0, 3, 4), f(0, 9, 20)], compare)), [], 'one shard only: repeats are not collisions');
  assert.deepEqual(names(overlappingClusters([f(0, 1, 100), f(1, 50, 60), f(2, 99, 120), f(1, 121, 130)], compare)), [['0:1-100', '1:50-60', '2:99-120']]);
  assert.deepEqual(names(overlappingClusters([f(0, 10, 10), f(1, 10, 10)], compare)), [['0:10-10', '1:10-10']], 'touching at one key overlaps');
});
