import { test } from 'node:test';
import assert from 'node:assert/strict';
import { manifestFileMeta } from '../../../src/write/manifest-writer.ts';
import type { ManifestEntry } from '../../../src/spec/manifest-entry.ts';
import { EMPTY_ROW, SPARSE_FILE } from '../spec/manifest-fixtures.ts';

test('manifestFileMeta counts added and deleted files (as bigints), buckets, levels and the highest schema id', () => {
  const entry = (kind: 'ADD' | 'DELETE', bucket: number, level: number, schemaId: bigint): ManifestEntry => ({
    kind,
    partition: EMPTY_ROW,
    bucket,
    totalBuckets: 4,
    file: { ...SPARSE_FILE, level, schemaId },
  });
  const entries = [entry('ADD', 2, 0, 1n), entry('DELETE', 0, 3, 4n), entry('ADD', 3, 1, 2n), entry('ADD', 1, 0, 0n), entry('DELETE', 2, 5, 3n)];
  const meta = manifestFileMeta('manifest-x-0', 1234, entries, [], 9);
  assert.equal(meta.numAddedFiles, 3n);
  assert.equal(meta.numDeletedFiles, 2n);
  assert.equal(meta.fileSize, 1234n);
  assert.equal(meta.schemaId, 4n);
  assert.deepEqual([meta.minBucket, meta.maxBucket, meta.minLevel, meta.maxLevel], [0, 3, 0, 5]);
  const none = manifestFileMeta('manifest-x-1', 1, [], [], 9);
  assert.equal(none.numAddedFiles, 0n);
  assert.equal(none.numDeletedFiles, 0n);
  assert.equal(none.schemaId, 9n);
});
