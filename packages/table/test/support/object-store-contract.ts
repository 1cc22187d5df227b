/**
 * The ObjectStore contract (src/io/object-store.ts) as one suite, run against every implementation:
 * the local disk in test/unit/io, MinIO in test/integration/io. Each test writes under its own
 * unique prefix, so the tests run in parallel on one shared store.
 */
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import { uniqueName } from '@tributary/testkit';
import type { ObjectMeta, ObjectStore } from '@tributary/table';

const MiB = 1024 * 1024;

export interface ContractOptions {
  /** Releases what `makeStore` set up (objects, clients, directories). */
  readonly cleanup?: (store: ObjectStore) => Promise<void>;
}

export function objectStoreContract(
  name: string,
  makeStore: () => Promise<ObjectStore>,
  options: ContractOptions = {},
): void {
  describe(`ObjectStore contract: ${name}`, () => {
    let store: ObjectStore;
    before(async () => {
      store = await makeStore();
    });
    after(async () => {
      await options.cleanup?.(store);
    });
    const key = (suffix: string): string => `${uniqueName('contract')}/${suffix}`;

    test('put then get returns the same bytes: empty, small, 20 MB (multipart)', async () => {
      const bodies = [new Uint8Array(0), new TextEncoder().encode('hello, 世界 🌊'), new Uint8Array(randomBytes(20 * MiB))];
      for (const body of bodies) {
        const k = key(`object-${body.length}`);
        await store.put(k, body);
        assertSameBytes(await store.get(k), body);
        assert.equal((await store.stat(k))?.size, body.length);
      }
    });

    test('put streams an AsyncIterable and a Readable of 20 MB in odd-sized chunks', async () => {
      const body = new Uint8Array(randomBytes(20 * MiB + 17));
      const asIterable = key('iterable');
      const asReadable = key('readable');
      await store.put(asIterable, chunked(body, 1_000_003));
      await store.put(asReadable, Readable.from(chunked(body, 65_536)));
      assertSameBytes(await store.get(asIterable), body);
      assertSameBytes(await store.get(asReadable), body);
    });

    test('put of an empty stream writes an empty object', async () => {
      const k = key('empty-stream');
      await store.put(k, chunked(new Uint8Array(0), 1));
      assert.equal((await store.get(k)).length, 0);
      assert.equal((await store.stat(k))?.size, 0);
    });

    test('put replaces an existing object', async () => {
      const k = key('replaced');
      await store.put(k, bytes('first version, longer'));
      await store.put(k, bytes('second'));
      assert.equal(text(await store.get(k)), 'second');
    });

    test('getRange reads a slice, clips at the end, and refuses a start past the end', async () => {
      const k = key('ranged');
      const body = bytes('0123456789');
      await store.put(k, body);
      assert.equal(text(await store.getRange(k, 2, 3)), '234');
      assert.equal(text(await store.getRange(k, 0, 10)), '0123456789');
      assert.equal(text(await store.getRange(k, 8, 100)), '89');
      assert.equal((await store.getRange(k, 10, 5)).length, 0);
      assert.equal((await store.getRange(k, 4, 0)).length, 0);
      await assert.rejects(store.getRange(k, 11, 1), { code: 'OBJECT_RANGE_INVALID' });
      await assert.rejects(store.getRange(k, -1, 1), { code: 'OBJECT_RANGE_INVALID' });
      await assert.rejects(store.getRange(k, 0, 1.5), { code: 'OBJECT_RANGE_INVALID' });
      const empty = key('empty');
      await store.put(empty, new Uint8Array(0));
      assert.equal((await store.getRange(empty, 0, 8)).length, 0);
      await assert.rejects(store.getRange(empty, 1, 8), { code: 'OBJECT_RANGE_INVALID' });
    });

    test('getRange reads the footer of a 12 MB object, as a Parquet reader does', async () => {
      const k = key('footer');
      const body = new Uint8Array(randomBytes(12 * MiB));
      await store.put(k, body);
      assertSameBytes(await store.getRange(k, body.length - 8, 8), body.subarray(body.length - 8));
      assertSameBytes(await store.getRange(k, 5 * MiB - 3, MiB), body.subarray(5 * MiB - 3, 6 * MiB - 3));
    });

    test('a missing key: get and getRange give OBJECT_NOT_FOUND, stat gives null', async () => {
      const k = key('missing');
      await assert.rejects(store.get(k), { name: 'TributaryError', code: 'OBJECT_NOT_FOUND', retryable: false });
      await assert.rejects(store.getRange(k, 0, 4), { code: 'OBJECT_NOT_FOUND' });
      await assert.rejects(store.getRange(k, 0, 0), { code: 'OBJECT_NOT_FOUND' });
      assert.equal(await store.stat(k), null);
    });

    test('keys that are not relative /-separated paths are refused with OBJECT_KEY_INVALID', async () => {
      const base = uniqueName('contract');
      for (const bad of ['', '/abs', `${base}/`, `${base}//x`, `${base}/./x`, `${base}/../x`, `${base}/.x.1.tmp`, 'a\\b']) {
        await assert.rejects(store.put(bad, bytes('x')), { code: 'OBJECT_KEY_INVALID' }, JSON.stringify(bad));
        await assert.rejects(store.get(bad), { code: 'OBJECT_KEY_INVALID' }, JSON.stringify(bad));
      }
      await assert.rejects(collect(store.list('/abs')), { code: 'OBJECT_KEY_INVALID' });
    });

    test('list gives every object under a string prefix, in UTF-8 byte order, with sizes', async () => {
      const base = uniqueName('contract');
      // No key is also a "directory" of another (`a` and `a/x`): the contract leaves that out.
      const names = ['a.b', 'a/x', 'a/y/z', 'a0', 'b/c/d', 'bb', 'é', 'z', '🌊', 'ｚ'];
      // UTF-8 order: 'ｚ' (EF BD 9A) before '🌊' (F0 9F 8C 8A); JS string order has them the other way.
      const order = ['a.b', 'a/x', 'a/y/z', 'a0', 'b/c/d', 'bb', 'z', 'é', 'ｚ', '🌊'];
      await Promise.all(names.map((n, i) => store.put(`${base}/${n}`, new Uint8Array(i))));
      const all = await collect(store.list(`${base}/`));
      // '.' (0x2E) < '/' (0x2F), so `a.b` sorts before everything under `a/`, as on S3.
      assert.deepEqual(
        all.map((m) => m.key),
        order.map((n) => `${base}/${n}`),
      );
      assert.deepEqual(
        all.map((m) => m.size),
        order.map((n) => names.indexOf(n)),
      );
      assert.ok(all.every((m) => m.lastModified instanceof Date && !Number.isNaN(m.lastModified.getTime())));
      assert.deepEqual(keysOf(await collect(store.list(`${base}/a`))), ['a.b', 'a/x', 'a/y/z', 'a0'].map((n) => `${base}/${n}`));
      assert.deepEqual(keysOf(await collect(store.list(`${base}/b`))), [`${base}/b/c/d`, `${base}/bb`]);
      assert.deepEqual(keysOf(await collect(store.list(`${base}/a/y/`))), [`${base}/a/y/z`]);
      assert.deepEqual(await collect(store.list(`${base}/nothing-here/`)), []);
      assert.deepEqual(await collect(store.list(`${uniqueName('contract')}/`)), []);
    });

    test('listDirectories gives the directories directly below a directory, in key order, not the objects', async () => {
      const base = uniqueName('contract');
      const names = ['a.db/t1/schema/schema-0', 'a.db/t2/x', 'a.db/top', 'b.db/t/y', 'c', 'é.db/t/z', 'a0.db/u/v'];
      await Promise.all(names.map((n) => store.put(`${base}/${n}`, new Uint8Array(1))));
      assert.deepEqual(await collect(store.listDirectories(`${base}/`)), ['a.db', 'a0.db', 'b.db', 'é.db']);
      assert.deepEqual(await collect(store.listDirectories(`${base}/a.db/`)), ['t1', 't2']);
      assert.deepEqual(await collect(store.listDirectories(`${base}/a.db/t1/schema/`)), []);
      assert.deepEqual(await collect(store.listDirectories(`${base}/nothing-here/`)), []);
      assert.ok((await collect(store.listDirectories(''))).includes(base));
      await assert.rejects(collect(store.listDirectories(`${base}`)), { code: 'OBJECT_KEY_INVALID' });
      await assert.rejects(collect(store.listDirectories(`${base}/../`)), { code: 'OBJECT_KEY_INVALID' });
    });

    test('list pages through 1,100 objects; deleteMany removes them all', async () => {
      const base = uniqueName('contract');
      const keys = Array.from({ length: 1100 }, (_, i) => `${base}/k-${String(i).padStart(5, '0')}`);
      await forEachLimit(keys, 32, (k) => store.put(k, bytes(k)));
      const listed = await collect(store.list(`${base}/`));
      assert.deepEqual(keysOf(listed), keys);
      assert.ok(listed.every((m) => m.size === m.key.length));
      await store.deleteMany([...keys, `${base}/never-existed`]);
      assert.deepEqual(await collect(store.list(`${base}/`)), []);
    });

    test('delete is idempotent', async () => {
      const k = key('deleted');
      await store.delete(k);
      await store.put(k, bytes('x'));
      await store.delete(k);
      await store.delete(k);
      assert.equal(await store.stat(k), null);
      await assert.rejects(store.get(k), { code: 'OBJECT_NOT_FOUND' });
      await store.deleteMany([]);
    });

    test('putIfAbsent writes a new key and refuses an existing one with OBJECT_ALREADY_EXISTS', async () => {
      const k = key('snapshot-1');
      await store.putIfAbsent(k, bytes('first'));
      await assert.rejects(store.putIfAbsent(k, bytes('second')), {
        name: 'TributaryError',
        code: 'OBJECT_ALREADY_EXISTS',
        retryable: false,
      });
      await assert.rejects(store.putIfAbsent(k, chunked(bytes('streamed, one part'), 4)), { code: 'OBJECT_ALREADY_EXISTS' });
      await assert.rejects(store.putIfAbsent(k, chunked(new Uint8Array(randomBytes(11 * MiB)), MiB)), {
        code: 'OBJECT_ALREADY_EXISTS',
      });
      assert.equal(text(await store.get(k)), 'first');
    });

    test('16 concurrent putIfAbsent of one key: exactly one winner, whose body is stored', async () => {
      const k = key('snapshot-race');
      const bodies = Array.from({ length: 16 }, (_, i) => bytes(`writer ${i} ${'.'.repeat(i * 100)}`));
      const outcomes = await Promise.allSettled(bodies.map((body) => store.putIfAbsent(k, body)));
      const winners = outcomes.flatMap((o, i) => (o.status === 'fulfilled' ? [i] : []));
      const losers = outcomes.flatMap((o) => (o.status === 'rejected' ? [o.reason as unknown] : []));
      assert.equal(winners.length, 1, `winners: ${JSON.stringify(winners)}`);
      assert.equal(losers.length, 15);
      for (const reason of losers) assert.equal((reason as { code?: unknown }).code, 'OBJECT_ALREADY_EXISTS');
      assertSameBytes(await store.get(k), bodies[winners[0] ?? -1] ?? new Uint8Array(0));
    });

    test('3 concurrent multipart putIfAbsent (11 MB each): exactly one winner', async () => {
      const k = key('big-race');
      const bodies = Array.from({ length: 3 }, () => new Uint8Array(randomBytes(11 * MiB)));
      const outcomes = await Promise.allSettled(bodies.map((body) => store.putIfAbsent(k, chunked(body, MiB))));
      const winners = outcomes.flatMap((o, i) => (o.status === 'fulfilled' ? [i] : []));
      assert.equal(winners.length, 1);
      for (const o of outcomes) if (o.status === 'rejected') assert.equal((o.reason as { code?: unknown }).code, 'OBJECT_ALREADY_EXISTS');
      assertSameBytes(await store.get(k), bodies[winners[0] ?? -1] ?? new Uint8Array(0));
    });

    test('an object being written is invisible until it is complete', async () => {
      const k = key('slow');
      let release = (): void => undefined;
      const gate = new Promise<void>((resolve) => (release = resolve));
      let reachedGate = (): void => undefined;
      const atGate = new Promise<void>((resolve) => (reachedGate = resolve));
      async function* slowBody(): AsyncGenerator<Uint8Array> {
        yield new Uint8Array(randomBytes(6 * MiB));
        reachedGate();
        await gate;
        yield bytes('tail');
      }
      const writing = store.putIfAbsent(k, slowBody());
      await atGate;
      assert.equal(await store.stat(k), null);
      assert.deepEqual(await collect(store.list(k)), []);
      release();
      await writing;
      assert.equal((await store.stat(k))?.size, 6 * MiB + 4);
    });

    test('a body that fails midway rejects the put and leaves nothing behind', async () => {
      const base = uniqueName('contract');
      async function* failing(): AsyncGenerator<Uint8Array> {
        yield new Uint8Array(randomBytes(6 * MiB));
        throw new Error('source broke');
      }
      async function* failingSmall(): AsyncGenerator<Uint8Array> {
        yield bytes('a little');
        throw new Error('small source broke');
      }
      // The caller gets its own error back, not a storage error: its code and retryability are its own.
      await assert.rejects(store.put(`${base}/put`, failing()), { message: 'source broke' });
      await assert.rejects(store.putIfAbsent(`${base}/put-if-absent`, failing()), { message: 'source broke' });
      await assert.rejects(store.put(`${base}/small`, Readable.from(failingSmall())), { message: 'small source broke' });
      assert.deepEqual(await collect(store.list(`${base}/`)), []);
      await store.putIfAbsent(`${base}/put-if-absent`, bytes('later'));
      assert.equal(text(await store.get(`${base}/put-if-absent`)), 'later');
    });
  });
}

function bytes(s: string): Uint8Array {
  return new TextEncoder().encode(s);
}

function text(b: Uint8Array): string {
  return new TextDecoder().decode(b);
}

/** Compares by length and digest, so a 20 MB mismatch prints two hashes, not two buffers. */
function assertSameBytes(actual: Uint8Array, expected: Uint8Array): void {
  assert.equal(actual.length, expected.length);
  assert.equal(sha256(actual), sha256(expected));
}

function sha256(b: Uint8Array): string {
  return createHash('sha256').update(b).digest('hex');
}

async function* chunked(body: Uint8Array, size: number): AsyncGenerator<Uint8Array> {
  for (let at = 0; at < body.length; at += size) yield body.subarray(at, at + size);
}

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

function keysOf(metas: readonly ObjectMeta[]): string[] {
  return metas.map((m) => m.key);
}

async function forEachLimit<T>(items: readonly T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const item = items[next++] as T;
      await fn(item);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}
