import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isTributaryError } from '@tributary/errors';
import { FileStoreScan } from '../../../src/snapshot/file-store-scan.ts';
import { ManifestCache } from '../../../src/snapshot/manifest-cache.ts';
import { decodeManifestFile, encodeManifestFile, type ManifestEntry } from '../../../src/spec/manifest-entry.ts';
import { decodeManifestList, encodeManifestList, type ManifestFileMeta } from '../../../src/spec/manifest-file-meta.ts';
import { countedStore as counted } from '../../support/counted-store.ts';
import { EMPTY_STATS, SAMPLE_ENTRIES } from '../spec/manifest-fixtures.ts';

/** `n` entries (SAMPLE_ENTRIES' files renamed), as a manifest file. */
function manifest(n: number, tag: string): { entries: ManifestEntry[]; bytes: Uint8Array } {
  const entries = Array.from({ length: n }, (_, i): ManifestEntry => {
    const sample = SAMPLE_ENTRIES[i % SAMPLE_ENTRIES.length] as ManifestEntry;
    return { ...sample, file: { ...sample.file, fileName: `data-${tag}-${i}.parquet` } };
  });
  return { entries, bytes: encodeManifestFile(entries) };
}

test('a kept manifest file is read from the store once, decoded as a fresh read decodes it, frozen, and shared by concurrent reads', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'tributary-manifest-cache-'));
  try {
    const store = counted(dir);
    const { bytes } = manifest(5, 'a');
    await store.put('t/manifest/manifest-a-0', bytes);
    const list: ManifestFileMeta[] = [
      { fileName: 'manifest-a-0', fileSize: BigInt(bytes.length), numAddedFiles: 5n, numDeletedFiles: 0n, partitionStats: EMPTY_STATS, schemaId: 0n, minBucket: 0, maxBucket: 3, minLevel: 0, maxLevel: 0, minRowId: null, maxRowId: null },
    ];
    await store.put('t/manifest/manifest-list-a-0', encodeManifestList(list));
    const cache = new ManifestCache();
    const scan = new FileStoreScan(store, 't', [], cache);

    const [first, second] = await Promise.all([scan.readManifest('manifest-a-0'), scan.readManifest('manifest-a-0')]);
    assert.equal(first, second, 'concurrent reads share one decode');
    assert.deepEqual(first, decodeManifestFile(bytes));
    assert.ok(Object.isFrozen(first));
    assert.equal(await scan.readManifest('manifest-a-0'), first);
    assert.deepEqual(await scan.readManifestList('manifest-list-a-0'), decodeManifestList(encodeManifestList(list)));
    await scan.readManifestList('manifest-list-a-0');
    assert.deepEqual(Object.fromEntries(store.reads), { 't/manifest/manifest-a-0': 1, 't/manifest/manifest-list-a-0': 1 });
    assert.deepEqual(cache.stats(), { hits: 3, misses: 2 });

    // Without a cache every read goes to the store.
    const plain = new FileStoreScan(store, 't', []);
    await plain.readManifest('manifest-a-0');
    await plain.readManifest('manifest-a-0');
    assert.equal(store.reads.get('t/manifest/manifest-a-0'), 3);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('another store is another file; past maxEntries over all stores the least recently used go; a failed read is not kept', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'tributary-manifest-cache-'));
  const other = await mkdtemp(join(tmpdir(), 'tributary-manifest-cache-'));
  try {
    const store = counted(dir);
    const elsewhere = counted(other);
    const a = manifest(4, 'a');
    const b = manifest(4, 'b');
    await store.put('m/a', a.bytes);
    await store.put('m/b', b.bytes);
    await elsewhere.put('m/a', b.bytes); // the same key in another warehouse holds other entries
    const cache = new ManifestCache({ maxEntries: 10 });

    assert.deepEqual(await cache.manifest(store, 'm/a'), a.entries);
    assert.deepEqual(await cache.manifest(elsewhere, 'm/a'), b.entries);
    await cache.manifest(store, 'm/b'); // 12 entries over both stores > 10: the store's a goes
    await cache.manifest(elsewhere, 'm/a'); // kept
    await cache.manifest(store, 'm/a'); // read again; b is now the least recently used and goes
    await cache.manifest(store, 'm/b'); // read again
    assert.deepEqual(Object.fromEntries(store.reads), { 'm/a': 2, 'm/b': 2 });
    assert.deepEqual(Object.fromEntries(elsewhere.reads), { 'm/a': 1 });

    // A file of more entries than the whole cache is answered, not kept.
    const big = manifest(11, 'big');
    await store.put('m/big', big.bytes);
    assert.deepEqual(await cache.manifest(store, 'm/big'), big.entries);
    await cache.manifest(store, 'm/big');
    assert.equal(store.reads.get('m/big'), 2);

    // A missing file fails each time it is asked for, and is read once it exists.
    const missing = (e: unknown) => isTributaryError(e) && e.code === 'OBJECT_NOT_FOUND';
    await assert.rejects(cache.manifest(store, 'm/late'), missing);
    await assert.rejects(cache.manifest(store, 'm/late'), missing);
    await store.put('m/late', a.bytes);
    assert.deepEqual(await cache.manifest(store, 'm/late'), a.entries);
    assert.equal(store.reads.get('m/late'), 3);

    assert.throws(() => new ManifestCache({ maxEntries: 0 }), RangeError);
  } finally {
    await rm(dir, { recursive: true, force: true });
    await rm(other, { recursive: true, force: true });
  }
});
