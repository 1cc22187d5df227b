/**
 * GETs of whole objects and of ranges without the SDK's command pipeline (no Paimon counterpart:
 * Java reads through Hadoop's S3A).
 *
 * Why: a worker merging a bucket reads its sorted runs block by block, about 850 ranged GETs of
 * ~0.5 MB per worker for 4,000,000 rows, and the coordinator reads every shard's blob. Measured on
 * MinIO (process CPU, 2-core machine), a GetObjectCommand cost ~1.2 ms of CPU more than the same
 * signed request sent through the client's own HTTP handler, and ~2 ms more for 0.5 MB, which it
 * collects chunk by chunk and copies again: the middleware stack (serde, endpoint rules, retry
 * bookkeeping, checksum plumbing) is run per request.
 *
 * How: the request is signed by the SDK's own SigV4 signer with the client's own credentials,
 * region and clock offset, and sent through the client's own HTTP handler (its sockets and
 * timeouts), and the body is read into one buffer of its Content-Length. It is used only for a
 * client with a custom endpoint and path-style addressing (MinIO and the other S3-compatible
 * stores), where the URL is `endpoint/bucket/key`; on AWS's own endpoints every read goes through
 * the SDK.
 *
 * Anything other than the exact answer expected gives `undefined`, and the caller then sends the
 * same GET through the SDK, which retries, maps errors and validates as always: a network error or
 * timeout, a status other than 200 (whole object) or 206 (range), a range answered with anything
 * but that range, a body shorter or longer than its Content-Length, a full-object checksum that
 * does not match or that this file cannot check. So a failing read costs one attempt more than
 * the SDK's own, and nothing this path returns is less checked than what the SDK would return:
 * like the SDK, it asks for the object's checksum (`x-amz-checksum-mode: ENABLED`) and checks a
 * full-object CRC32, CRC32C, SHA-1 or SHA-256 when the store sends one (a multipart object's
 * composite checksum, `…-N`, covers its parts, not the body, and is not checked by either).
 */
import type { S3Client } from '@aws-sdk/client-s3';
import { crc32c } from '@node-rs/crc32';
import { SignatureV4 } from '@smithy/signature-v4';
import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { crc32 } from 'node:zlib';

/** SHA-256 of an empty body: what the SDK signs as the payload of a GET. */
const EMPTY_SHA256 = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';

interface Endpoint {
  readonly protocol: string;
  readonly hostname: string;
  readonly port?: number | undefined;
  readonly path: string;
}

interface HttpResponse {
  readonly statusCode: number;
  readonly headers: Record<string, string | undefined>;
  readonly body: IncomingMessage;
}

interface Handler {
  handle(request: unknown, options?: unknown): Promise<{ response: HttpResponse }>;
}

/** The resolved client configuration this file reads (the SDK's own, not re-derived). */
interface ClientConfig {
  readonly isCustomEndpoint?: boolean;
  readonly forcePathStyle?: boolean;
  /** The endpoint names the bucket already: not `endpoint/bucket/key`. */
  readonly bucketEndpoint?: boolean;
  readonly endpoint?: () => Promise<Endpoint>;
  readonly region: () => Promise<string>;
  readonly credentials: ConstructorParameters<typeof SignatureV4>[0]['credentials'];
  readonly sha256: ConstructorParameters<typeof SignatureV4>[0]['sha256'];
  readonly requestHandler: unknown;
  readonly systemClockOffset?: number;
}

export class LeanGet {
  readonly #config: ClientConfig;
  #ready: Promise<{ endpoint: Endpoint; signer: SignatureV4; host: string }> | undefined;

  private constructor(config: ClientConfig) {
    this.#config = config;
  }

  /** A lean GET for `client`, or `undefined` when its reads must go through the SDK. */
  static of(client: S3Client): LeanGet | undefined {
    const config = client.config as unknown as ClientConfig;
    const handler = config.requestHandler as Partial<Handler> | undefined;
    if (config.isCustomEndpoint !== true || config.forcePathStyle !== true || config.bucketEndpoint === true || config.endpoint === undefined) return undefined;
    if (typeof handler?.handle !== 'function') return undefined;
    return new LeanGet(config);
  }

  /**
   * The object's bytes (`range` absent) or those of `range` (a length > 0; fewer bytes when the
   * object ends first, as S3 answers), of the version `ifMatch` (a quoted ETag) names if given, or
   * `undefined`: then do the GET through the SDK.
   */
  async get(bucket: string, key: string, range?: { readonly offset: number; readonly length: number }, ifMatch?: string): Promise<Uint8Array | undefined> {
    let response: HttpResponse;
    try {
      const { endpoint, signer, host } = await (this.#ready ??= this.#prepare());
      const headers: Record<string, string> = { host, 'x-amz-content-sha256': EMPTY_SHA256, 'x-amz-checksum-mode': 'ENABLED' };
      if (range !== undefined) headers.range = `bytes=${range.offset}-${range.offset + range.length - 1}`;
      // Another version answers 412, not taken here: the SDK's GET then gets it and says so.
      if (ifMatch !== undefined) headers['if-match'] = ifMatch;
      const request = {
        method: 'GET',
        protocol: endpoint.protocol,
        hostname: endpoint.hostname,
        port: endpoint.port,
        path: `${endpoint.path.replace(/\/+$/, '')}/${encodePath(bucket)}/${encodePath(key)}`,
        query: {},
        headers,
      };
      const signed = await signer.sign(request, { signingDate: new Date(Date.now() + (this.#config.systemClockOffset ?? 0)) });
      ({ response } = await (this.#config.requestHandler as Handler).handle(signed));
    } catch {
      this.#ready = undefined;
      return undefined;
    }
    const expected = expectedLength(response, range);
    if (expected === undefined) {
      discard(response);
      return undefined;
    }
    const body = await readExactly(response.body, expected);
    if (body === undefined) return undefined;
    return checksumsAgree(response.headers, body) ? body : undefined;
  }

  async #prepare(): Promise<{ endpoint: Endpoint; signer: SignatureV4; host: string }> {
    const config = this.#config;
    const endpoint = await (config.endpoint as () => Promise<Endpoint>)();
    const signer = new SignatureV4({
      credentials: config.credentials,
      region: await config.region(),
      service: 's3',
      sha256: config.sha256,
      uriEscapePath: false,
      applyChecksum: false,
    });
    const host = endpoint.port === undefined ? endpoint.hostname : `${endpoint.hostname}:${endpoint.port}`;
    return { endpoint, signer, host };
  }
}

/** Each '/'-separated segment URI-encoded as the SDK encodes an S3 key (RFC 3986, `!'()*` too). */
function encodePath(path: string): string {
  return path
    .split('/')
    .map((segment) => encodeURIComponent(segment).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`))
    .join('/');
}

/** The body length the answer must have, or `undefined` when it is not the answer asked for. */
function expectedLength(response: HttpResponse, range: { readonly offset: number; readonly length: number } | undefined): number | undefined {
  const declared = response.headers['content-length'];
  if (declared === undefined || !/^\d+$/.test(declared)) return undefined;
  const length = Number(declared);
  if (range === undefined) return response.statusCode === 200 ? length : undefined;
  if (response.statusCode !== 206) return undefined;
  const match = /^bytes (\d+)-(\d+)\/(\d+|\*)$/.exec(response.headers['content-range'] ?? '');
  if (match === null) return undefined;
  const first = Number(match[1]);
  const last = Number(match[2]);
  if (first !== range.offset || last < first || last > range.offset + range.length - 1 || last - first + 1 !== length) return undefined;
  return length;
}

/** Reads the body into one buffer of exactly `length` bytes, or gives `undefined` (short, long, failed). */
function readExactly(body: IncomingMessage, length: number): Promise<Uint8Array | undefined> {
  // Its own ArrayBuffer (not the shared pool's), returned only once every byte is written.
  let out: Uint8Array;
  try {
    out = new Uint8Array(Buffer.allocUnsafeSlow(length).buffer, 0, length);
  } catch {
    // A length no buffer can hold: the SDK's path reads it, or fails, as it would.
    body.on('error', () => {});
    body.destroy();
    return Promise.resolve(undefined);
  }
  let at = 0;
  return new Promise((resolve) => {
    const fail = (): void => {
      body.off('data', onData);
      body.destroy();
      resolve(undefined);
    };
    const onData = (chunk: Buffer): void => {
      if (at + chunk.length > length) return fail();
      out.set(chunk, at);
      at += chunk.length;
    };
    body.on('data', onData);
    body.once('end', () => resolve(at === length ? out : undefined));
    body.once('error', fail);
    body.once('close', () => {
      if (!body.complete) fail();
    });
  });
}

/** Lets an answer not taken go: a small one is read to its end (the connection stays usable). */
function discard(response: HttpResponse): void {
  const declared = Number(response.headers['content-length'] ?? NaN);
  response.body.on('error', () => {});
  if (declared <= 64 * 1024) response.body.resume();
  else response.body.destroy();
}

const CHECKSUMS: Record<string, (body: Uint8Array) => string> = {
  'x-amz-checksum-crc32': (body) => uint32Base64(crc32(body)),
  'x-amz-checksum-crc32c': (body) => uint32Base64(crc32c(body)),
  'x-amz-checksum-sha1': (body) => createHash('sha1').update(body).digest('base64'),
  'x-amz-checksum-sha256': (body) => createHash('sha256').update(body).digest('base64'),
};

/**
 * Whether every full-object checksum the store sent matches the body. A composite one (`…-N`, a
 * multipart object's checksum of its parts' checksums) is not a checksum of the body and is
 * skipped, as the SDK skips it; a full-object one of an algorithm not checked here is a "no".
 */
function checksumsAgree(headers: Record<string, string | undefined>, body: Uint8Array): boolean {
  for (const [name, value] of Object.entries(headers)) {
    if (!name.startsWith('x-amz-checksum-') || name === 'x-amz-checksum-type' || value === undefined) continue;
    if (/-\d+$/.test(value)) continue;
    const digest = CHECKSUMS[name];
    if (digest === undefined || digest(body) !== value) return false;
  }
  return true;
}

function uint32Base64(value: number): string {
  const bytes = Buffer.alloc(4);
  bytes.writeUInt32BE(value >>> 0, 0);
  return bytes.toString('base64');
}
