/**
 * The shared ObjectStore contract against the real MinIO started by infra/ (S3 path-style,
 * conditional writes), plus the S3-only behaviour: error mapping and URI opening.
 */
import assert from 'node:assert/strict';
import { CreateBucketCommand, HeadObjectCommand, ListMultipartUploadsCommand, S3Client } from '@aws-sdk/client-s3';
import { connect, createServer, type AddressInfo, type Socket } from 'node:net';
import { after, before, test } from 'node:test';
import { services, uniqueName } from '@tributary/testkit';
import { isTributaryError } from '@tributary/errors';
import { openObjectStore, S3ObjectStore, type ObjectStore, type RowType, type S3ConnectionOptions } from '@tributary/table';
import { batchFromRows } from '../../../src/format/column-batch.ts';
import { RunSpill, parseRunSegment, readRunSegment } from '../../../src/write/run-spill.ts';
import { objectStoreContract } from '../../support/object-store-contract.ts';

const MiB = 1024 * 1024;
const { bucket, endpoint, region, accessKeyId, secretAccessKey } = services.s3;
const connection: S3ConnectionOptions = { endpoint, region, accessKeyId, secretAccessKey, partSize: 5 * MiB };

function rawClient(): S3Client {
  return new S3Client({ endpoint, region, forcePathStyle: true, credentials: { accessKeyId, secretAccessKey } });
}

/** Creates the shared test bucket if it is missing, so this file does not depend on infra's order. */
async function ensureBucket(): Promise<void> {
  const client = rawClient();
  try {
    await client.send(new CreateBucketCommand({ Bucket: bucket }));
  } catch (error) {
    const name = (error as { name?: unknown }).name;
    if (name !== 'BucketAlreadyOwnedByYou' && name !== 'BucketAlreadyExists') throw error;
  } finally {
    client.destroy();
  }
}

/** Removes everything a store wrote under its prefix, then closes its client. */
async function cleanup(store: ObjectStore): Promise<void> {
  const keys: string[] = [];
  for await (const meta of store.list('')) keys.push(meta.key);
  await store.deleteMany(keys);
  await store.close();
}

objectStoreContract(
  'S3ObjectStore on MinIO',
  async () => {
    await ensureBucket();
    return new S3ObjectStore({ ...connection, bucket, prefix: `${uniqueName('object-store')}/warehouse` });
  },
  { cleanup },
);

let store: S3ObjectStore;
before(async () => {
  await ensureBucket();
  store = new S3ObjectStore({ ...connection, bucket, prefix: uniqueName('object-store') });
});
after(async () => {
  await cleanup(store);
});

test('openObjectStore opens s3:// and s3a:// URIs on the given connection', async () => {
  const prefix = uniqueName('object-store');
  for (const scheme of ['s3', 's3a']) {
    const opened = openObjectStore(`${scheme}://${bucket}/${prefix}/`, connection);
    assert.ok(opened instanceof S3ObjectStore);
    assert.equal(opened.uri, `s3://${bucket}/${prefix}`);
    await opened.put(`${scheme}-key`, new Uint8Array([1]));
    await opened.close();
  }
  const root = new S3ObjectStore({ ...connection, bucket, prefix });
  const keys: string[] = [];
  for await (const meta of root.list('')) keys.push(meta.key);
  assert.deepEqual(keys, ['s3-key', 's3a-key']);
  await root.deleteMany(keys);
  await root.close();
});

test('a key longer than S3 allows is OBJECT_KEY_INVALID (a caller\'s mistake), not a failed request; such a prefix lists nothing', async () => {
  // With the store's prefix, 1,025 bytes or more: S3 answered a bare 400, read as STORAGE_REQUEST_FAILED (a 500 from the API).
  const long = `dir/${'é'.repeat(600)}`;
  const tooLong = (e: unknown) => isTributaryError(e) && e.code === 'OBJECT_KEY_INVALID' && e.retryable === false && /over the 1024/.test(e.message);
  await assert.rejects(store.stat(long), tooLong, 'stat');
  await assert.rejects(store.get(long), tooLong, 'get');
  await assert.rejects(store.getRange(long, 0, 1), tooLong, 'getRange');
  await assert.rejects(store.put(long, new Uint8Array([1])), tooLong, 'put');
  const listed: string[] = [];
  for await (const meta of store.list(long)) listed.push(meta.key);
  assert.deepEqual(listed, []);
  // The limit counts the store's prefix: a key that fits alone but not after the prefix is refused too.
  const alone = 'x'.repeat(1024 - Buffer.byteLength(`${store.uri.split('/').slice(3).join('/')}/`) + 1);
  await assert.rejects(store.stat(alone), tooLong, 'a key over the limit only with the prefix');
});

test('wrong credentials give STORAGE_ACCESS_DENIED, not retryable', async () => {
  const denied = new S3ObjectStore({ ...connection, secretAccessKey: 'wrong-secret', bucket });
  try {
    await assert.rejects(denied.get('any/key'), { code: 'STORAGE_ACCESS_DENIED', retryable: false });
    await assert.rejects(denied.put('any/key', new Uint8Array([1])), { code: 'STORAGE_ACCESS_DENIED' });
  } finally {
    await denied.close();
  }
});

test('a missing bucket gives STORAGE_BUCKET_NOT_FOUND', async () => {
  const missing = new S3ObjectStore({ ...connection, bucket: uniqueName('no-such-bucket') });
  try {
    await assert.rejects(missing.get('k'), { code: 'STORAGE_BUCKET_NOT_FOUND', retryable: false });
    await assert.rejects(missing.put('k', new Uint8Array([1])), { code: 'STORAGE_BUCKET_NOT_FOUND' });
  } finally {
    await missing.close();
  }
});

test('an unreachable endpoint gives STORAGE_UNAVAILABLE, retryable', async () => {
  // Port 9 (discard) on loopback: nothing listens, the connection is refused at once.
  const offline = new S3ObjectStore({ ...connection, endpoint: 'http://127.0.0.1:9', bucket });
  try {
    await assert.rejects(offline.stat('k'), { code: 'STORAGE_UNAVAILABLE', retryable: true });
  } finally {
    await offline.close();
  }
});

test('a store that accepts the connection and never answers fails the request, retryable, instead of holding it for ever', async () => {
  // A listener that takes every connection and sends nothing back (a hung or half-open store).
  const sockets = new Set<Socket>();
  const silent = createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => {});
  });
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  const { port } = silent.address() as AddressInfo;
  const hung = new S3ObjectStore({ ...connection, endpoint: `http://127.0.0.1:${port}`, bucket, idleTimeoutMs: 300 });
  try {
    await assert.rejects(hung.get('k'), { code: 'STORAGE_UNAVAILABLE', retryable: true });
    assert.ok(sockets.size >= 1, 'the request reached the silent listener');
  } finally {
    await hung.close();
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => silent.close(() => resolve()));
  }
});

test('a large body goes up in parts of the configured size; a failed one leaves no upload behind', async () => {
  const prefix = uniqueName('mpu');
  const key = `${prefix}/big`;
  await store.put(key, new Uint8Array(16 * MiB));
  // A multipart object's ETag ends in -<parts>: 16 MiB in 5 MiB parts is 4 parts.
  const raw = rawClient();
  try {
    const head = await raw.send(new HeadObjectCommand({ Bucket: bucket, Key: `${store.uri.slice(`s3://${bucket}/`.length)}/${key}` }));
    assert.match(head.ETag ?? '', /-4"$/);
    async function* failing(): AsyncGenerator<Uint8Array> {
      yield new Uint8Array(11 * MiB);
      throw new Error('source broke');
    }
    await assert.rejects(store.put(`${prefix}/failed`, failing()));
    const uploads = await raw.send(new ListMultipartUploadsCommand({ Bucket: bucket, Prefix: store.uri.slice(`s3://${bucket}/`.length) }));
    assert.deepEqual(uploads.Uploads ?? [], []);
  } finally {
    raw.destroy();
  }
});

interface SeenRequest {
  readonly method: string;
  readonly headers: Readonly<Record<string, string>>;
}

/**
 * A proxy to MinIO that records every request's method and headers and, if `alter`, flips the first
 * byte of every PUT request's body on its way (a request's end is found by its Content-Length; a
 * body sent without one is passed on untouched, and the tests then fail on the count of bodies
 * altered).
 */
async function proxyTo(target: URL, alter: boolean): Promise<{ endpoint: string; seen: SeenRequest[]; altered: () => number; close: () => Promise<void> }> {
  let altered = 0;
  const seen: SeenRequest[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = connect(Number(target.port), target.hostname);
    sockets.add(client).add(upstream);
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
    upstream.pipe(client);
    let head = Buffer.alloc(0);
    let bodyLeft = 0;
    let flip = false;
    client.on('data', (data: Buffer) => {
      let rest = data;
      while (rest.length > 0) {
        if (bodyLeft > 0) {
          const body = Buffer.from(rest.subarray(0, bodyLeft));
          if (flip) {
            body[0] = (body[0] as number) ^ 0xff;
            altered += 1;
            flip = false;
          }
          upstream.write(body);
          bodyLeft -= body.length;
          rest = rest.subarray(body.length);
          continue;
        }
        head = Buffer.concat([head, rest]);
        rest = Buffer.alloc(0);
        const end = head.indexOf('\r\n\r\n');
        if (end < 0) break;
        const lines = head.subarray(0, end).toString('latin1').split('\r\n');
        const headers = Object.fromEntries(lines.slice(1).map((line) => [line.slice(0, line.indexOf(':')).trim().toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]));
        const method = (lines[0] ?? '').split(' ')[0] ?? '';
        seen.push({ method, headers });
        upstream.write(head.subarray(0, end + 4));
        rest = head.subarray(end + 4);
        head = Buffer.alloc(0);
        bodyLeft = Number(headers['content-length'] ?? 0);
        flip = alter && method === 'PUT' && bodyLeft > 0;
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    seen,
    altered: () => altered,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

type Proxy = Awaited<ReturnType<typeof proxyTo>>;

/** A store on `store`'s prefix reached through proxyTo(alter), with `options`; both closed after `use`. */
async function throughProxy(alter: boolean, options: Partial<S3ConnectionOptions>, use: (proxied: S3ObjectStore, proxy: Proxy, prefix: string) => Promise<void>): Promise<void> {
  const proxy = await proxyTo(new URL(endpoint), alter);
  const prefix = store.uri.slice(`s3://${bucket}/`.length);
  const proxied = new S3ObjectStore({ ...connection, ...options, endpoint: proxy.endpoint, bucket, prefix });
  try {
    await use(proxied, proxy, prefix);
  } finally {
    await proxied.close();
    await proxy.close();
  }
}

/** The requests the proxy saw that sent a body (PutObject, UploadPart). */
function bodiesSeen(proxy: Proxy): SeenRequest[] {
  return proxy.seen.filter((r) => r.method === 'PUT' && Number(r.headers['content-length'] ?? 0) > 0);
}

test('a body altered on its way is refused (the store checks its signed SHA-256): no object, no upload left behind', async () => {
  await throughProxy(true, {}, async (tampered, proxy, prefix) => {
    const raw = rawClient();
    try {
      const key = uniqueName('tampered');
      // One PutObject, then a multipart upload (two parts of the 5 MiB configured), then a conditional put.
      await assert.rejects(tampered.put(`${key}/small`, new Uint8Array(1000).fill(7)), (error: unknown) => isTributaryError(error));
      await assert.rejects(tampered.put(`${key}/large`, new Uint8Array(6 * MiB).fill(7)), (error: unknown) => isTributaryError(error));
      await assert.rejects(tampered.putIfAbsent(`${key}/once`, new Uint8Array(1000).fill(7)), (error: unknown) => isTributaryError(error));
      assert.ok(proxy.altered() >= 3, `the proxy altered ${proxy.altered()} bodies`);
      for (const name of ['small', 'large', 'once']) assert.equal(await store.stat(`${key}/${name}`), null, name);
      const uploads = await raw.send(new ListMultipartUploadsCommand({ Bucket: bucket, Prefix: `${prefix}/${key}` }));
      assert.deepEqual(uploads.Uploads ?? [], []);
    } finally {
      raw.destroy();
    }
  });
});

test('a put its reader verifies goes up unsigned and without a checksum; every other put is signed by its SHA-256', async () => {
  const key = uniqueName('unsigned');
  const small = new Uint8Array(1000).fill(3);
  const large = new Uint8Array(6 * MiB).fill(5);
  const checksummed = (r: SeenRequest): string[] => Object.keys(r.headers).filter((h) => h.startsWith('x-amz-checksum-') || h === 'x-amz-sdk-checksum-algorithm');
  await throughProxy(false, {}, async (watched, proxy) => {
    await watched.put(`${key}/small`, small, { readerVerifies: true });
    await watched.put(`${key}/large`, large, { readerVerifies: true });
    const unsigned = bodiesSeen(proxy);
    assert.equal(unsigned.length, 3, 'one PutObject, two parts');
    for (const r of unsigned) {
      assert.equal(r.headers['x-amz-content-sha256'], 'UNSIGNED-PAYLOAD');
      assert.deepEqual(checksummed(r), []);
      // The request itself is still signed, the payload hash header with it.
      assert.match(r.headers.authorization ?? '', /SignedHeaders=[^,]*x-amz-content-sha256/);
    }
    assert.deepEqual(await store.get(`${key}/small`), small);
    assert.deepEqual(await store.get(`${key}/large`), large);

    proxy.seen.length = 0;
    await watched.put(`${key}/signed`, small);
    await watched.putIfAbsent(`${key}/once`, small);
    await watched.put(`${key}/signed-large`, large, { readerVerifies: false });
    const signed = bodiesSeen(proxy);
    assert.equal(signed.length, 4);
    for (const r of signed) assert.match(r.headers['x-amz-content-sha256'] ?? '', /^[0-9a-f]{64}$/);
  });
});

test('with unsignedWhenVerified false (a store that refuses unsigned payloads) a put its reader verifies is signed too', async () => {
  const key = uniqueName('signed-only');
  await throughProxy(false, { unsignedWhenVerified: false }, async (signedOnly, proxy) => {
    await signedOnly.put(`${key}/small`, new Uint8Array(1000).fill(1), { readerVerifies: true });
    await signedOnly.put(`${key}/large`, new Uint8Array(6 * MiB).fill(2), { readerVerifies: true });
    const bodies = bodiesSeen(proxy);
    assert.equal(bodies.length, 3, 'one PutObject, two parts');
    for (const r of bodies) assert.match(r.headers['x-amz-content-sha256'] ?? '', /^[0-9a-f]{64}$/);
    assert.equal((await store.get(`${key}/large`)).length, 6 * MiB);
  });
});

test('a run altered on its way up is stored (its put goes unsigned) and refused when read: RUN_CORRUPT, never merged', async () => {
  const rowType: RowType = { fields: [{ id: 0, name: 'v', type: { root: 'BIGINT', nullable: false } }] };
  const batch = batchFromRows(rowType, Array.from({ length: 10_000 }, (_, i) => [BigInt(i)]));
  const object = `${uniqueName('run')}.run`;
  await throughProxy(true, {}, async (tampered, proxy) => {
    const spill = new RunSpill(tampered, object, object);
    const written = await spill.writeSegment(batch);
    await spill.close();
    assert.equal(proxy.altered(), 1, 'the run\'s one PUT was altered');
    const segment = parseRunSegment(written.name);
    assert.ok(segment?.checksum !== undefined);
    for (const whole of [true, false]) {
      const read = readRunSegment({ store, key: object, segment: { ...segment, checksum: segment.checksum }, size: written.size, rows: written.rows, whole }, rowType);
      await assert.rejects(
        (async () => {
          for await (const _ of read) void _;
        })(),
        (error: unknown) => isTributaryError(error) && error.code === 'RUN_CORRUPT',
      );
    }
  });
});

/** `size` bytes that differ from part to part and from body to body (`seed`), so a part swapped or reused shows. */
function patterned(size: number, seed: number): Uint8Array {
  const out = new Uint8Array(size);
  let x = seed * 2654435761 + 1;
  for (let i = 0; i < size; i++) {
    x = (x * 1103515245 + 12345) >>> 0;
    out[i] = x >>> 24;
  }
  return out;
}

/** `bytes` as a stream of chunks of `chunk` bytes (the last shorter), as a run's blocks arrive. */
async function* chunked(bytes: Uint8Array, chunk: number): AsyncGenerator<Uint8Array> {
  for (let at = 0; at < bytes.length; at += chunk) yield bytes.slice(at, at + chunk);
}

test('a streamed put its reader verifies goes up from reused part buffers: every size reads back byte for byte, one part is one PutObject', async () => {
  const key = uniqueName('parts');
  await throughProxy(false, {}, async (proxied, proxy) => {
    const sizes = [0, 1, 5 * MiB - 1, 5 * MiB, 5 * MiB + 1, 16 * MiB + 7];
    for (const [i, size] of sizes.entries()) {
      const body = patterned(size, i + 1);
      proxy.seen.length = 0;
      await proxied.put(`${key}/${size}`, chunked(body, MiB + 3), { readerVerifies: true });
      const requests = bodiesSeen(proxy);
      assert.equal(requests.length, size === 0 ? 0 : Math.ceil(size / (5 * MiB)), `requests with a body for ${size} bytes`);
      for (const r of requests) assert.equal(r.headers['x-amz-content-sha256'], 'UNSIGNED-PAYLOAD');
      const back = await store.get(`${key}/${size}`);
      assert.equal(back.length, size);
      assert.ok(Buffer.from(back).equals(body), `${size} bytes read back as written`);
    }
  });
});

test('streamed puts at once share the part buffers and each reads back as written', async () => {
  const key = uniqueName('parts-concurrent');
  await throughProxy(false, {}, async (proxied) => {
    const bodies = [1, 2, 3].map((seed) => patterned(11 * MiB + seed * 1000, seed + 10));
    await Promise.all(bodies.map((body, i) => proxied.put(`${key}/${i}`, chunked(body, 700_001), { readerVerifies: true })));
    // And again, now partly from the buffer the first three gave back.
    await Promise.all(bodies.map((body, i) => proxied.put(`${key}/again-${i}`, chunked(body.slice().reverse(), 3 * MiB), { readerVerifies: true })));
    for (const [i, body] of bodies.entries()) {
      assert.ok(Buffer.from(await store.get(`${key}/${i}`)).equals(body), `body ${i}`);
      assert.ok(Buffer.from(await store.get(`${key}/again-${i}`)).equals(body.slice().reverse()), `body again-${i}`);
    }
  });
});

test('a streamed put its reader verifies that breaks midway fails with its own error: no object, no upload left behind', async () => {
  const key = uniqueName('parts-broken');
  await throughProxy(false, {}, async (proxied, _proxy, prefix) => {
    const broke = new Error('source broke');
    async function* failing(): AsyncGenerator<Uint8Array> {
      yield patterned(11 * MiB, 5); // two parts sent, a third filling
      throw broke;
    }
    await assert.rejects(proxied.put(`${key}/failed`, failing(), { readerVerifies: true }), (error: unknown) => error === broke);
    assert.equal(await store.stat(`${key}/failed`), null);
    const raw = rawClient();
    try {
      const uploads = await raw.send(new ListMultipartUploadsCommand({ Bucket: bucket, Prefix: `${prefix}/${key}` }));
      assert.deepEqual(uploads.Uploads ?? [], []);
    } finally {
      raw.destroy();
    }
  });
  const missing = new S3ObjectStore({ ...connection, bucket: uniqueName('no-such-bucket').toLowerCase(), prefix: 'p' });
  try {
    await assert.rejects(missing.put('k', chunked(patterned(6 * MiB, 6), MiB), { readerVerifies: true }), (error: unknown) => isTributaryError(error) && error.code === 'STORAGE_BUCKET_NOT_FOUND');
  } finally {
    await missing.close();
  }
});
