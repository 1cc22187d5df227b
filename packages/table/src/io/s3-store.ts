/**
 * ObjectStore on S3 or an S3-compatible store (MinIO), rooted at `s3://bucket/prefix`.
 *
 * Plays the part of Paimon's `org.apache.paimon.s3.S3FileIO`, which publishes a snapshot with a
 * temp file, a copy and an exists check; that is racy, so Java needs a catalog lock. Here
 * `putIfAbsent` sends `If-None-Match: *` on the PUT (and on CompleteMultipartUpload for a large
 * body), which S3 and MinIO evaluate atomically: 412 PreconditionFailed or 409
 * ConditionalRequestConflict for the losers, turned into OBJECT_ALREADY_EXISTS in this file and
 * nowhere else. It is safe only if every committer to a table does the same.
 */
import {
  DeleteObjectCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { Readable } from 'node:stream';
import { errorFrom } from '@tributary/errors';
import { tableErrors } from '../errors.ts';
import { checkDirectory, checkKey, checkPrefix, checkRange, isValidKey, loggableKey, rangePastEnd } from './object-key.ts';
import { watchBody } from './object-body.ts';
import type { ObjectBody, ObjectMeta, ObjectStore, PutOptions } from './object-store.ts';
import { isInvalidRange, isMissingObject, isPreconditionFailure, s3Error } from './s3-errors.ts';
import { LeanGet } from './s3-lean-get.ts';
import { PartPool, uploadInParts } from './s3-parts.ts';

/** S3's smallest part (all but the last); also our default part size is a multiple of it. */
const MIN_PART_SIZE = 5 * 1024 * 1024;
/** DeleteObjects takes at most 1,000 keys per request. */
const DELETE_BATCH = 1000;
/** The longest key S3 accepts, in UTF-8 bytes (bucket name aside). */
const MAX_KEY_BYTES = 1024;

/** How to reach the service; shared by every store opened on it (see open-object-store.ts). */
export interface S3ConnectionOptions {
  /** e.g. `http://127.0.0.1:9100` for MinIO; omit for AWS. */
  readonly endpoint?: string;
  /** Default `us-east-1`. */
  readonly region?: string;
  /** Static credentials; omit to use the SDK's default chain (environment, profile, instance role). */
  readonly accessKeyId?: string;
  readonly secretAccessKey?: string;
  /** Path-style URLs (`endpoint/bucket/key`), which MinIO needs. Default: true when `endpoint` is set. */
  readonly forcePathStyle?: boolean;
  /**
   * Bodies larger than this go up as a multipart upload with parts of this size. Default and minimum
   * 5 MiB (S3's smallest part).
   */
  readonly partSize?: number;
  /**
   * How many parts of one upload are in flight at once. Default 2. An upload holds about
   * partSize × (queueSize + 1): a bucketed shard's spill is one object of up to its run budget, and
   * with 8 MiB parts, 4 in flight, a worker's peak RSS was 20–30 MB higher for no speed measured on
   * MinIO (bench/load/README.md, "Fewer, larger spills").
   */
  readonly queueSize?: number;
  /** How long a request's connection may stay silent before the request fails (and is retried). Default 120 s. */
  readonly idleTimeoutMs?: number;
  /**
   * Send a put whose reader verifies it (PutOptions.readerVerifies: the bucketed layout's sorted
   * runs) as `UNSIGNED-PAYLOAD` without a checksum. Default true; false for a store, or a bucket
   * policy, that refuses unsigned payloads: such puts are then signed like any other.
   */
  readonly unsignedWhenVerified?: boolean;
  /** A client to use instead of building one from the fields above (its own settings then apply). */
  readonly client?: S3Client;
}

export interface S3StoreOptions extends S3ConnectionOptions {
  readonly bucket: string;
  /** Key prefix of the store's root inside the bucket, without leading or trailing '/'. */
  readonly prefix?: string;
}

export class S3ObjectStore implements ObjectStore {
  readonly uri: string;
  readonly bucket: string;
  readonly #root: string;
  readonly #client: S3Client;
  /**
   * The client for puts whose reader verifies them (PutOptions.readerVerifies): unsigned bodies, no
   * checksum; built at the first such put. Only when this store built its client: a client passed
   * in sends everything its way.
   */
  #unverifiedPuts: S3Client | undefined;
  /** The part buffers of streamed unsigned puts (s3-parts.ts), when this store built that client. */
  #parts: PartPool | undefined;
  readonly #connection: S3ConnectionOptions;
  /** Reads without the SDK's command pipeline, on a path-style custom endpoint (see s3-lean-get.ts). */
  readonly #lean: LeanGet | undefined;
  readonly #partSize: number;
  readonly #queueSize: number;

  constructor(options: S3StoreOptions) {
    const prefix = (options.prefix ?? '').replace(/^\/+|\/+$/g, '');
    if (options.bucket === '' || (prefix !== '' && !isValidKey(prefix))) {
      throw errorFrom(tableErrors, 'STORAGE_URI_INVALID', `invalid S3 location: s3://${options.bucket}/${prefix}`, {
        bucket: options.bucket,
        prefix,
      });
    }
    this.bucket = options.bucket;
    this.#root = prefix === '' ? '' : `${prefix}/`;
    this.uri = `s3://${options.bucket}/${prefix}`;
    this.#client = options.client ?? makeClient(options);
    this.#connection = options;
    this.#lean = LeanGet.of(this.#client);
    this.#partSize = Math.max(MIN_PART_SIZE, options.partSize ?? MIN_PART_SIZE);
    this.#queueSize = Math.max(1, options.queueSize ?? 2);
  }

  async get(key: string): Promise<Uint8Array> {
    const Key = this.#key(key);
    const lean = await this.#lean?.get(this.bucket, Key);
    if (lean !== undefined) return lean;
    try {
      const out = await this.#client.send(new GetObjectCommand({ Bucket: this.bucket, Key }));
      return out.Body === undefined ? new Uint8Array(0) : await out.Body.transformToByteArray();
    } catch (error) {
      throw s3Error(error, 'get', this.bucket, Key);
    }
  }

  /**
   * `getRange` of the ObjectStore contract; with `ifMatch` (an ETag as `stat` and `list` give it)
   * the read is of that version only, atomically (S3 `If-Match`): another version throws
   * OBJECT_CHANGED (a source file rewritten while a shard reads it must not mix two versions).
   */
  async getRange(key: string, offset: number, length: number, options: { readonly ifMatch?: string } = {}): Promise<Uint8Array> {
    const Key = this.#key(key);
    checkRange(key, offset, length);
    const IfMatch = options.ifMatch === undefined ? undefined : `"${options.ifMatch}"`;
    if (length > 0) {
      const lean = await this.#lean?.get(this.bucket, Key, { offset, length }, IfMatch);
      if (lean !== undefined) return lean;
      try {
        const Range = `bytes=${offset}-${offset + length - 1}`;
        const out = await this.#client.send(new GetObjectCommand({ Bucket: this.bucket, Key, Range, IfMatch }));
        const body = out.Body === undefined ? new Uint8Array(0) : await out.Body.transformToByteArray();
        // A store that ignores Range answers 200 with the whole object (no Content-Range).
        return out.ContentRange === undefined ? body.subarray(offset, offset + length) : body;
      } catch (error) {
        if (IfMatch !== undefined && isPreconditionFailure(error)) throw this.#changed(key);
        if (!isInvalidRange(error)) throw s3Error(error, 'getRange', this.bucket, Key);
      }
    }
    // An empty range, or S3's 416 (the range starts at or past the end, also for any range of an
    // empty object): the contract gives an empty result exactly when offset === size.
    const meta = await this.stat(key);
    if (meta === null) throw errorFrom(tableErrors, 'OBJECT_NOT_FOUND', `object not found: ${this.uri}/${loggableKey(key)}`, { key: loggableKey(key) });
    if (options.ifMatch !== undefined && meta.etag !== options.ifMatch) throw this.#changed(key);
    if (offset > meta.size) throw rangePastEnd(key, offset, meta.size);
    return new Uint8Array(0);
  }

  #changed(key: string): Error {
    return errorFrom(tableErrors, 'OBJECT_CHANGED', `object changed since its version was seen: ${this.uri}/${loggableKey(key)}`, { key: loggableKey(key), store: this.uri });
  }

  async stat(key: string): Promise<ObjectMeta | null> {
    const Key = this.#key(key);
    try {
      const out = await this.#client.send(new HeadObjectCommand({ Bucket: this.bucket, Key }));
      return { key, size: out.ContentLength ?? 0, lastModified: out.LastModified ?? new Date(0), ...etagOf(out.ETag) };
    } catch (error) {
      if (isMissingObject(error)) return null;
      throw s3Error(error, 'stat', this.bucket, Key);
    }
  }

  async put(key: string, body: ObjectBody, options: PutOptions = {}): Promise<void> {
    const Key = this.#key(key);
    const watched = body instanceof Uint8Array ? undefined : watchBody(body);
    try {
      const client = options.readerVerifies === true ? this.#unverifiedClient() : this.#client;
      if (watched !== undefined && this.#parts !== undefined && client === this.#unverifiedPuts) {
        await uploadInParts({ client, Bucket: this.bucket, Key, pool: this.#parts, queueSize: this.#queueSize }, watched.chunks);
      } else {
        await this.#upload(Key, watched?.chunks ?? body, false, client);
      }
    } catch (error) {
      const own = watched?.failure();
      throw own !== undefined ? own.error : s3Error(error, 'put', this.bucket, Key);
    }
  }

  async putIfAbsent(key: string, body: ObjectBody): Promise<void> {
    const Key = this.#key(key);
    const watched = body instanceof Uint8Array ? undefined : watchBody(body);
    try {
      await this.#upload(Key, watched?.chunks ?? body, true, this.#client);
    } catch (error) {
      const own = watched?.failure();
      if (own !== undefined) throw own.error;
      if (isPreconditionFailure(error)) {
        throw errorFrom(tableErrors, 'OBJECT_ALREADY_EXISTS', `object already exists: ${this.uri}/${loggableKey(key)}`, {
          key: loggableKey(key),
          store: this.uri,
        });
      }
      throw s3Error(error, 'putIfAbsent', this.bucket, Key);
    }
  }

  async *list(prefix: string): AsyncIterable<ObjectMeta> {
    checkPrefix(prefix);
    const Prefix = this.#root + prefix;
    if (Buffer.byteLength(Prefix) > MAX_KEY_BYTES) return; // no key is that long
    let ContinuationToken: string | undefined;
    do {
      const page = await this.#client
        .send(new ListObjectsV2Command({ Bucket: this.bucket, Prefix, ContinuationToken }))
        .catch((error: unknown) => {
          throw s3Error(error, 'list', this.bucket, Prefix);
        });
      for (const object of page.Contents ?? []) {
        if (object.Key === undefined) continue;
        const key = object.Key.slice(this.#root.length);
        yield { key, size: object.Size ?? 0, lastModified: object.LastModified ?? new Date(0), ...etagOf(object.ETag) };
      }
      ContinuationToken = page.IsTruncated === true ? page.NextContinuationToken : undefined;
    } while (ContinuationToken !== undefined);
  }

  async *listDirectories(dir: string): AsyncIterable<string> {
    checkDirectory(dir);
    const Prefix = this.#root + dir;
    let ContinuationToken: string | undefined;
    do {
      const page = await this.#client
        .send(new ListObjectsV2Command({ Bucket: this.bucket, Prefix, Delimiter: '/', ContinuationToken }))
        .catch((error: unknown) => {
          throw s3Error(error, 'list', this.bucket, Prefix);
        });
      for (const common of page.CommonPrefixes ?? []) {
        const name = common.Prefix?.slice(Prefix.length, -1);
        if (name !== undefined && name !== '') yield name;
      }
      ContinuationToken = page.IsTruncated === true ? page.NextContinuationToken : undefined;
    } while (ContinuationToken !== undefined);
  }

  async delete(key: string): Promise<void> {
    const Key = this.#key(key);
    try {
      // S3 answers 204 for a missing key too, which is the idempotence the contract promises.
      await this.#client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key }));
    } catch (error) {
      if (isMissingObject(error)) return;
      throw s3Error(error, 'delete', this.bucket, Key);
    }
  }

  async deleteMany(keys: Iterable<string>): Promise<void> {
    const all = [...keys].map((key) => this.#key(key));
    for (let start = 0; start < all.length; start += DELETE_BATCH) {
      const Objects = all.slice(start, start + DELETE_BATCH).map((Key) => ({ Key }));
      const out = await this.#client
        .send(new DeleteObjectsCommand({ Bucket: this.bucket, Delete: { Objects, Quiet: true } }))
        .catch((error: unknown) => {
          throw s3Error(error, 'deleteMany', this.bucket, Objects[0]?.Key ?? '');
        });
      const failed = (out.Errors ?? []).filter((e) => e.Code !== 'NoSuchKey');
      const first = failed[0];
      if (first !== undefined) {
        // A per-key failure has no HTTP status of its own; classify it by its S3 code.
        throw s3Error(
          { name: first.Code ?? 'Error', message: `${failed.length} of ${Objects.length} deletes failed: ${first.Message ?? ''}` },
          'deleteMany',
          this.bucket,
          first.Key ?? '',
        );
      }
    }
  }

  /** Closes the clients' sockets; also a client passed in the options, which the store then owns. */
  async close(): Promise<void> {
    this.#client.destroy();
    if (this.#unverifiedPuts !== this.#client) this.#unverifiedPuts?.destroy();
  }

  #unverifiedClient(): S3Client {
    if (this.#unverifiedPuts === undefined) {
      if (this.#connection.client !== undefined || this.#connection.unsignedWhenVerified === false) {
        this.#unverifiedPuts = this.#connection.client ?? this.#client;
      } else {
        this.#unverifiedPuts = makeClient(this.#connection, { unsignedBodies: true });
        // Its streamed bodies go up from reused part buffers: it asks for no checksums to list. One
        // is kept between uploads: keeping all of them (queueSize + 1) cost a worker ~30 MB of its
        // peak for ~1 % of its CPU (bench/load/README.md, "The collector's own threads").
        this.#parts = new PartPool(this.#partSize, 1);
      }
    }
    return this.#unverifiedPuts;
  }

  #key(key: string): string {
    checkKey(key);
    const full = this.#root + key;
    const bytes = Buffer.byteLength(full);
    if (bytes > MAX_KEY_BYTES) {
      // No object can have it: S3 answers such a request with a bare 400, which would read as the store's fault.
      throw errorFrom(tableErrors, 'OBJECT_KEY_INVALID', `invalid object key: ${bytes} bytes with the store's prefix, over the ${MAX_KEY_BYTES} an S3 key may have`, {
        key: loggableKey(key).slice(0, 200),
      });
    }
    return full;
  }

  /**
   * A body that fits in one part goes up as a single PutObject; anything larger, or a stream of
   * unknown length (but a streamed put of the unsigned client, which s3-parts.ts uploads), through
   * lib-storage's `Upload`, which buffers one part at a time, starts a
   * multipart upload only once the body exceeds a part, passes `IfNoneMatch` on to PutObject or
   * CompleteMultipartUpload, and aborts the multipart upload if anything fails, body included.
   */
  async #upload(Key: string, body: ObjectBody, ifAbsent: boolean, client: S3Client): Promise<void> {
    const IfNoneMatch = ifAbsent ? '*' : undefined;
    if (body instanceof Uint8Array && body.byteLength <= this.#partSize) {
      await client.send(new PutObjectCommand({ Bucket: this.bucket, Key, Body: body, IfNoneMatch }));
      return;
    }
    const Body = body instanceof Uint8Array || body instanceof Readable ? body : Readable.from(body);
    const upload = new Upload({
      client,
      params: { Bucket: this.bucket, Key, Body, IfNoneMatch },
      partSize: this.#partSize,
      queueSize: this.#queueSize,
    });
    await upload.done();
  }
}

/** How long connecting to the store may take. */
const S3_CONNECT_TIMEOUT_MS = 10_000;
/** How long a request's socket may stay silent (no byte either way) before the request fails, unless set. */
const S3_IDLE_TIMEOUT_MS = 120_000;

/**
 * `unsignedBodies`: a client for bodies their reader verifies (PutOptions.readerVerifies). SigV4
 * would hash each body (SHA-256) to sign it and the SDK add a CRC32 of it by default, and the store
 * check both; such a body goes up as `UNSIGNED-PAYLOAD` with no checksum asked for, and its headers
 * are still signed. Runs are most of a bucketed load's uploads (bench/load/README.md, "Runs sent
 * unsigned").
 */
function makeClient(options: S3ConnectionOptions, { unsignedBodies = false } = {}): S3Client {
  const credentials =
    options.accessKeyId !== undefined && options.secretAccessKey !== undefined
      ? { accessKeyId: options.accessKeyId, secretAccessKey: options.secretAccessKey }
      : undefined;
  const client = new S3Client({
    region: options.region ?? 'us-east-1',
    endpoint: options.endpoint,
    forcePathStyle: options.forcePathStyle ?? options.endpoint !== undefined,
    credentials,
    // Without these a connection that never answers (a half-open socket, a store that stopped
    // mid-response) holds its request, and the job or commit waiting on it, for ever. A timeout
    // is a TimeoutError, which the SDK retries like any transient failure.
    requestHandler: { connectionTimeout: S3_CONNECT_TIMEOUT_MS, socketTimeout: options.idleTimeoutMs ?? S3_IDLE_TIMEOUT_MS },
    ...(unsignedBodies ? { requestChecksumCalculation: 'WHEN_REQUIRED' as const } : {}),
  });
  if (unsignedBodies) {
    // Before the signer (finalizeRequest): it takes a payload hash header as given.
    client.middlewareStack.add(
      (next, context) => async (args) => {
        const input = args.input as { Body?: unknown };
        const request = args.request as { headers?: Record<string, string> };
        if (input.Body !== undefined && request.headers !== undefined && (context.commandName === 'PutObjectCommand' || context.commandName === 'UploadPartCommand')) {
          request.headers[PAYLOAD_HASH_HEADER] = UNSIGNED_PAYLOAD;
        }
        return next(args);
      },
      { step: 'build', name: 'tributaryUnsignedBody' },
    );
  }
  return client;
}

const PAYLOAD_HASH_HEADER = 'x-amz-content-sha256';
const UNSIGNED_PAYLOAD = 'UNSIGNED-PAYLOAD';

/** S3 quotes its ETags (`"abc…"`); the tag travels without them. */
function etagOf(etag: string | undefined): { etag?: string } {
  return etag === undefined || etag === '' ? {} : { etag: etag.replace(/^"(.*)"$/, '$1') };
}
