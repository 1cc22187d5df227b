/**
 * The shared ObjectStore contract on the local disk, plus what only a local store can show: its
 * temporary files and the hard-link publish.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { after, before, test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { isTributaryError } from '@tributary/errors';
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
// The benchmarks' mode (no flush to disk) keeps every other promise of the contract.
objectStoreContract('LocalObjectStore without fsync', async () => new LocalObjectStore(await freshRoot(), { fsync: false }));

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

test('get reads small objects with blocking calls and large ones asynchronously: the same bytes either way', async () => {
  // Sizes around the blocking read's bound (256 KiB), each object a distinct pseudo-random pattern.
  for (const size of [0, 1, 4095, 256 * 1024 - 1, 256 * 1024, 256 * 1024 + 1, 3 * 1024 * 1024 + 7]) {
    const body = new Uint8Array(size);
    for (let i = 0; i < size; i++) body[i] = (Math.imul(i + size, 2654435761) >>> 24) & 0xff;
    await store.put(`sized/${size}`, body);
    const read = await store.get(`sized/${size}`);
    assert.equal(read.length, size, `${size} bytes`);
    assert.ok(Buffer.from(read).equals(Buffer.from(body)), `${size} bytes read back differ`);
  }
  // A key that is a directory (the prefix of other keys) is not an object, as on S3.
  await assert.rejects(store.get('sized'), { code: 'OBJECT_NOT_FOUND' });
  // Replaced while readers read: each read is the old object or the new one, whole.
  const old = new Uint8Array(1000).fill(1);
  const next = new Uint8Array(2000).fill(2);
  await store.put('sized/replaced', old);
  const reads = await Promise.all([store.get('sized/replaced'), store.put('sized/replaced', next).then(() => store.get('sized/replaced'))]);
  assert.ok(reads[0].length === 1000 ? reads[0].every((b) => b === 1) : reads[0].every((b) => b === 2) && reads[0].length === 2000);
  assert.ok(reads[1].length === 2000 && reads[1].every((b) => b === 2));
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

test('4 processes racing putIfAbsent over 300 keys: every key has exactly one winner (link is atomic across processes)', async () => {
  // Paimon Java's local rename is only safe within one JVM; the link publish must hold across
  // processes. The processes start together (a stdin barrier) and walk the same keys, so they collide.
  const storeModule = new URL('../../../src/io/local-store.ts', import.meta.url).href;
  const script = `
    const { LocalObjectStore } = await import(${JSON.stringify(storeModule)});
    const store = new LocalObjectStore(process.argv[1]);
    const me = process.argv[2];
    process.stdout.write('ready\\n');
    await new Promise((resolve) => process.stdin.once('data', resolve));
    process.stdin.pause();
    const won = [];
    // Each process walks the keys in its own random order; in one shared order the first process
    // stays a step ahead and wins every key, which would test nothing.
    const order = Array.from({ length: 300 }, (_, i) => i).sort(() => Math.random() - 0.5);
    for (const i of order) {
      try {
        await store.putIfAbsent('race/snapshot-' + i, new TextEncoder().encode(me));
        won.push(i);
      } catch (error) {
        if (error.code !== 'OBJECT_ALREADY_EXISTS') throw error;
      }
    }
    process.stdout.write(JSON.stringify(won) + '\\n');`;
  const writers = ['p0', 'p1', 'p2', 'p3'];
  const children = writers.map((me) => spawn(process.execPath, ['--input-type=module', '-e', script, root, me]));
  const lines = children.map((child) => createInterface({ input: child.stdout })[Symbol.asyncIterator]());
  await Promise.all(lines.map((it) => it.next()));
  for (const child of children) child.stdin.end('go\n');
  const wins = await Promise.all(lines.map(async (it) => JSON.parse(String((await it.next()).value)) as number[]));
  assert.deepEqual(
    wins.flat().sort((a, b) => a - b),
    Array.from({ length: 300 }, (_, i) => i),
  );
  assert.ok(wins.filter((won) => won.length > 0).length > 1, `one process won everything: ${wins.map((w) => w.length).join(',')}`);
  for (const [w, won] of wins.entries()) {
    for (const i of won) assert.equal(new TextDecoder().decode(await store.get(`race/snapshot-${i}`)), writers[w]);
  }
});

test('a partition directory’s value (a cell of the table) is in no error of the local store', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'tributary-local-leak-'));
  try {
    const store = new LocalObjectStore(dir);
    const key = 'shop.db/orders/region=secret-cell/bucket-0/data-1.parquet';
    await assert.rejects(store.get(key), (e: unknown) => isTributaryError(e) && e.code === 'OBJECT_NOT_FOUND' && !`${e.message} ${JSON.stringify(e.context)}`.includes('secret-cell'));
    await store.put(key, new Uint8Array(1));
    await assert.rejects(store.putIfAbsent(key, new Uint8Array(1)), (e: unknown) => isTributaryError(e) && e.code === 'OBJECT_ALREADY_EXISTS' && !`${e.message} ${JSON.stringify(e.context)}`.includes('secret-cell'));
    // A directory where a file's key is: the file system's own message quotes the path.
    await assert.rejects(store.put(`${key}/under-a-file`, new Uint8Array(1)), (e: unknown) => isTributaryError(e) && !`${e.message} ${JSON.stringify(e.context)}`.includes('secret-cell'));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
