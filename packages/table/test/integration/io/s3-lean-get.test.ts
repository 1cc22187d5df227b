/**
 * S3ObjectStore's reads on a path-style endpoint (s3-lean-get.ts) against the real MinIO, through
 * a proxy that can tamper with MinIO's answers: the bytes must be exactly what the SDK's own
 * GetObject returns, and an answer that is not exactly the one asked for (a corrupted body, a cut
 * connection, the whole object for a range, another range) must never come back as data.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createServer, request as httpRequest, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { services, uniqueName } from '@tributary/testkit';
import { S3ObjectStore, type S3ConnectionOptions } from '@tributary/table';

const MiB = 1024 * 1024;
const { bucket, endpoint, region, accessKeyId, secretAccessKey } = services.s3;
const connection: S3ConnectionOptions = { endpoint, region, accessKeyId, secretAccessKey, partSize: 5 * MiB };

/** MinIO's answer to one request, as the proxy got it; what the proxy sends instead is the test's. */
interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}
interface Seen {
  readonly method: string;
  readonly viaSdk: boolean;
  readonly range: string | undefined;
}
/**
 * Sends `answer` as is, or cuts the connection after half its body (`cut`), or declares a body
 * larger than any buffer and cuts the connection after the real one (`huge`).
 */
type Tamper = (index: number, answer: Answer) => Answer | 'cut' | 'huge';

/** An HTTP proxy in front of MinIO: every request forwarded as is, every answer through `tamper`. */
class TamperingProxy {
  readonly seen: Seen[] = [];
  tamper: Tamper = (_index, answer) => answer;
  readonly #server: Server;

  constructor() {
    const upstream = new URL(endpoint);
    this.#server = createServer((req, res) => {
      const index = this.seen.length;
      this.seen.push({ method: req.method ?? '', viaSdk: req.headers['amz-sdk-invocation-id'] !== undefined, range: req.headers.range });
      const forward = httpRequest(
        { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: req.headers },
        (up) => {
          const chunks: Buffer[] = [];
          up.on('data', (chunk: Buffer) => chunks.push(chunk));
          up.on('end', () => {
            const answer = this.tamper(index, { status: up.statusCode ?? 502, headers: { ...up.headers }, body: Buffer.concat(chunks) });
            if (answer === 'cut' || answer === 'huge') {
              const body = Buffer.concat(chunks);
              const headers = { ...up.headers, ...(answer === 'huge' ? { 'content-length': String(2 ** 50) } : {}) };
              res.writeHead(up.statusCode ?? 502, headers);
              res.write(answer === 'cut' ? body.subarray(0, body.length >> 1) : body, () => res.destroy());
              return;
            }
            answer.headers['content-length'] = String(answer.body.length);
            res.writeHead(answer.status, answer.headers);
            res.end(answer.body);
          });
        },
      );
      req.pipe(forward);
    });
  }

  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.#server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  gets(): Seen[] {
    return this.seen.filter((s) => s.method === 'GET');
  }
}

const proxy = new TamperingProxy();
const prefix = uniqueName('lean-get');
let direct: S3ObjectStore;
let proxied: S3ObjectStore;
let sdk: S3Client;
const objects = new Map<string, Uint8Array>();

/** Random bytes as a plain Uint8Array (what the store returns; a Buffer would not deep-equal it). */
function random(length: number): Uint8Array {
  return new Uint8Array(randomBytes(length));
}

/** The SDK's own GetObject of `key` (directly on MinIO), whole or a range. */
async function sdkGet(key: string, range?: string): Promise<Uint8Array> {
  const out = await sdk.send(new GetObjectCommand({ Bucket: bucket, Key: `${prefix}/${key}`, Range: range }));
  return out.Body === undefined ? new Uint8Array(0) : out.Body.transformToByteArray();
}

before(async () => {
  const proxyEndpoint = await proxy.start();
  direct = new S3ObjectStore({ ...connection, bucket, prefix });
  proxied = new S3ObjectStore({ ...connection, endpoint: proxyEndpoint, bucket, prefix });
  sdk = new S3Client({ endpoint, region, forcePathStyle: true, credentials: { accessKeyId, secretAccessKey } });
  objects.set('small.bin', random(1000));
  objects.set("odd key/ü (1)!*'~.bin", random(3 * 1024 + 7));
  objects.set('empty', new Uint8Array(0));
  // Over one part: a multipart object, whose checksum is a composite of its parts' (`…-3`).
  objects.set('multipart.bin', random(12 * MiB + 5));
  for (const [key, bytes] of objects) await direct.put(key, bytes);
});

after(async () => {
  await direct.deleteMany([...objects.keys()]);
  await direct.close();
  await proxied.close();
  sdk.destroy();
  await proxy.stop();
});

test('reads skip the SDK pipeline and give exactly the bytes the SDK gives, whole and by range', async () => {
  proxy.seen.length = 0;
  proxy.tamper = (_index, answer) => answer;
  let reads = 0;
  for (const [key, bytes] of objects) {
    assert.deepEqual(await proxied.get(key), await sdkGet(key), key);
    assert.equal((await proxied.get(key)).length, bytes.length);
    reads += 2;
    if (bytes.length === 0) continue;
    const size = bytes.length;
    const ranges: Array<[number, number]> = [
      [0, 1],
      [0, size],
      [size - 1, 1],
      [size >> 1, Math.min(4096, size - (size >> 1))],
      // Past the end: S3 answers what there is, and so do both paths.
      [size - 10, 100],
    ];
    for (const [offset, length] of ranges) {
      const got = await proxied.getRange(key, offset, length);
      assert.deepEqual(got, await sdkGet(key, `bytes=${offset}-${offset + length - 1}`), `${key} ${offset}+${length}`);
      assert.deepEqual(got, bytes.subarray(offset, offset + length));
      reads++;
    }
  }
  const gets = proxy.gets();
  assert.equal(gets.length, reads, 'one GET per read');
  assert.deepEqual(gets.filter((s) => s.viaSdk), [], 'no read went through the SDK pipeline');
});

test('a whole object answered wrongly (a body that does not match its checksum, a length no buffer holds) is fetched again through the SDK, never returned corrupt', async () => {
  const bytes = objects.get('small.bin') as Uint8Array;
  const flip = (answer: Answer): Answer => {
    const body = Buffer.from(answer.body);
    if (body.length > 0) body[body.length >> 1] = (body[body.length >> 1] as number) ^ 0x20;
    return { ...answer, body };
  };
  proxy.seen.length = 0;
  proxy.tamper = (index, answer) => (index === 0 ? flip(answer) : answer);
  assert.deepEqual(await proxied.get('small.bin'), bytes);
  assert.deepEqual(
    proxy.gets().map((s) => s.viaSdk),
    [false, true],
    'the lean GET, then the SDK',
  );

  // A length no buffer can hold: not allocated, read again through the SDK.
  proxy.seen.length = 0;
  proxy.tamper = (index, answer) => (index === 0 ? 'huge' : answer);
  assert.deepEqual(await proxied.get('small.bin'), bytes);
  assert.deepEqual(
    proxy.gets().map((s) => s.viaSdk),
    [false, true],
  );

  // Every answer corrupted: the SDK's own validation refuses it too; no bytes come back.
  proxy.seen.length = 0;
  proxy.tamper = (_index, answer) => (answer.status === 200 ? flip(answer) : answer);
  await assert.rejects(proxied.get('small.bin'));
  assert.ok(proxy.gets().length >= 2);
});

test('a range answered with anything but that range is fetched again through the SDK', async () => {
  const key = 'multipart.bin';
  const bytes = objects.get(key) as Uint8Array;
  const offset = 6 * MiB - 100;
  const length = 200_000;
  const expected = bytes.subarray(offset, offset + length);
  const cases: Array<[string, (answer: Answer) => Answer | 'cut' | 'huge']> = [
    ['the connection cut halfway through the body', () => 'cut'],
    ['a body longer than its range', (answer) => ({ ...answer, body: Buffer.concat([answer.body, Buffer.from('x')]) })],
    ['200 and a body without Content-Range (a store that ignores Range)', (answer) => {
      const headers = { ...answer.headers };
      delete headers['content-range'];
      return { ...answer, status: 200, headers };
    }],
    // The bytes of the range one byte before, labelled as such: the same length, other data.
    ['another range than the one asked for', (answer) => ({
      ...answer,
      headers: { ...answer.headers, 'content-range': `bytes ${offset - 1}-${offset + length - 2}/${bytes.length}` },
      body: Buffer.from(bytes.subarray(offset - 1, offset + length - 1)),
    })],
  ];
  for (const [name, tamper] of cases) {
    proxy.seen.length = 0;
    proxy.tamper = (index, answer) => (index === 0 ? tamper(answer) : answer);
    assert.deepEqual(await proxied.getRange(key, offset, length), expected, name);
    assert.deepEqual(
      proxy.gets().map((s) => s.viaSdk),
      [false, true],
      name,
    );
  }
});

test('a read of a missing object still gives OBJECT_NOT_FOUND (the SDK path maps the 404)', async () => {
  proxy.tamper = (_index, answer) => answer;
  await assert.rejects(proxied.get('no/such/key'), { code: 'OBJECT_NOT_FOUND' });
  await assert.rejects(proxied.getRange('no/such/key', 0, 10), { code: 'OBJECT_NOT_FOUND' });
});
