/**
 * The shared ObjectStore contract on the local disk, plus what only a local store can show: its
 * temporary files and the hard-link publish.
 */
import assert from 'node:assert/strict';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { LocalObjectStore, openObjectStore, type ObjectMeta } from '@tributary/table';
import { objectStoreContract } from '../../support/object-store-contract.ts';

const roots: string[] = [];

async function freshRoot(): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), 'tributary-local-store-'));
  roots.push(root);
  return root;
}

after(async () => {
  await Promise.all(roots.map((root) => rm(root, { recursive: true, force: true })));
});

objectStoreContract('LocalObjectStore', async () => new LocalObjectStore(await freshRoot()));

let root: string;
let store: LocalObjectStore;
before(async () => {
  root = await freshRoot();
  store = new LocalObjectStore(root);
});

test('a put leaves no temporary file behind, and a stray one is never listed', async () => {
  await store.put('dir/a', new Uint8Array([1, 2, 3]));
  await store.putIfAbsent('dir/b', new Uint8Array([4]));
  assert.deepEqual((await readdir(join(root, 'dir'))).sort(), ['a', 'b']);
  // A writer that crashed between write and rename leaves `.<name>.<uuid>.tmp`.
  await writeFile(join(root, 'dir', '.c.0f8fad5b-d9cb-469f-a165-70867728950e.tmp'), 'partial');
  const listed: ObjectMeta[] = [];
  for await (const meta of store.list('dir/')) listed.push(meta);
  assert.deepEqual(
    listed.map((m) => m.key),
    ['dir/a', 'dir/b'],
  );
});

test('dot files and dot directories that are not temporary files are ordinary objects', async () => {
  await store.put('.tributary/syncs/s1/plan', new Uint8Array([9]));
  assert.deepEqual([...(await store.get('.tributary/syncs/s1/plan'))], [9]);
  const keys: string[] = [];
  for await (const meta of store.list('.tributary/')) keys.push(meta.key);
  assert.deepEqual(keys, ['.tributary/syncs/s1/plan']);
});

test('a relative root is refused', () => {
  assert.throws(() => new LocalObjectStore('relative/dir'), { code: 'STORAGE_URI_INVALID' });
});

test('openObjectStore opens file:// URIs and refuses what it cannot open', async () => {
  const opened = openObjectStore(pathToFileURL(root).href);
  assert.ok(opened instanceof LocalObjectStore);
  assert.equal(opened.uri, pathToFileURL(root).href);
  await opened.put('via-uri', new Uint8Array([7]));
  assert.deepEqual([...(await store.get('via-uri'))], [7]);
  for (const bad of ['not a uri', 'hdfs://nn/warehouse', 'file://host/path', 's3:///no-bucket', 's3://b/p?x=1']) {
    assert.throws(() => openObjectStore(bad), { code: 'STORAGE_URI_INVALID' }, bad);
  }
});
