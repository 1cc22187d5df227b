import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { test } from 'node:test';
import { openObjectStore, type ObjectBody, type PutOptions } from '@tributary/table';
import { countingStore } from '../../src/counting-store.ts';

async function* chunks(...sizes: number[]): AsyncGenerator<Uint8Array> {
  for (const n of sizes) yield new Uint8Array(n);
}

test('counts the bytes streamed into the files of a tracked writer only, and passes everything through', async () => {
  const inner = openObjectStore(pathToFileURL(mkdtempSync(join(tmpdir(), 'counting-'))).href);
  const { store, track } = countingStore(inner);
  const a = track('/data-w1-');
  await store.put('t/bucket-0/data-w1-x-0.parquet', chunks(3, 4));
  await store.put('t/bucket-0/data-w2-x-0.parquet', chunks(100));
  await store.put('t/bucket-1/data-w1-y-0.parquet', new Uint8Array(5));
  assert.equal(a.bytes(), 12);
  assert.equal((await store.stat('t/bucket-0/data-w1-x-0.parquet'))?.size, 7, 'the bytes reached the store');
  assert.equal((await store.get('t/bucket-0/data-w2-x-0.parquet')).byteLength, 100, 'other members are the inner store\u2019s');
  a.stop();
  await store.put('t/bucket-0/data-w1-z-0.parquet', chunks(9));
  assert.equal(a.bytes(), 12, 'nothing counted after stop');
});

test('passes a put\u2019s options on to the inner store, counted or not (a run\u2019s readerVerifies reaches S3)', async () => {
  const inner = openObjectStore(pathToFileURL(mkdtempSync(join(tmpdir(), 'counting-'))).href);
  const seen: unknown[] = [];
  const spy = new Proxy(inner, {
    get(target, property) {
      if (property === 'put') return (key: string, body: ObjectBody, options?: PutOptions) => (seen.push(options), target.put(key, body));
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
  const { store, track } = countingStore(spy);
  track('/data-w1-');
  await store.put('t/bucket-0/data-w1-x.run', chunks(3), { readerVerifies: true });
  await store.put('t/bucket-0/data-w1-y.run', new Uint8Array(2), { readerVerifies: true });
  await store.put('t/bucket-0/data-w2-x.run', chunks(3), { readerVerifies: true });
  await store.put('t/bucket-0/data-w2-y.parquet', chunks(3));
  assert.deepEqual(seen, [{ readerVerifies: true }, { readerVerifies: true }, { readerVerifies: true }, undefined]);
});
