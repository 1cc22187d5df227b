/**
 * The storage contract every table operation goes through.
 *
 * Mirrors the role of Paimon's `org.apache.paimon.fs.FileIO`, cut down to what an object store can
 * promise: no directories, no rename. Where Paimon publishes a snapshot with rename-if-absent
 * (`FileIO.tryToWriteAtomic`, unsafe on S3 without a catalog lock), we use `putIfAbsent`, which
 * both implementations make truly atomic (S3 `If-None-Match: *`; a hard link on a local disk).
 *
 * Keys are '/'-separated relative paths under the store's root (`snapshot/snapshot-3`,
 * `dt=2024-01-01/bucket-0/data-….parquet`). They never start or end with '/', and have no empty,
 * '.' or '..' segments; anything else is refused with OBJECT_KEY_INVALID (see object-key.ts).
 * A key must not also be the "directory" of another key (`a` and `a/b`): S3 can hold both, a file
 * system cannot, and Paimon's layout never needs it. The local store refuses the second one.
 *
 * Every failure is a `TributaryError` with a code from `tableErrors`:
 *   OBJECT_NOT_FOUND, OBJECT_ALREADY_EXISTS, OBJECT_RANGE_INVALID, OBJECT_KEY_INVALID   (not retryable)
 *   STORAGE_UNAVAILABLE                                                              (retryable)
 *   STORAGE_ACCESS_DENIED, STORAGE_BUCKET_NOT_FOUND, STORAGE_REQUEST_FAILED          (not retryable)
 * The adapters translate their native errors (S3 status codes, errno) into these codes, and nothing
 * outside the adapters looks at a native error.
 */
import type { Readable } from 'node:stream';

/**
 * What `put` accepts: a whole buffer, or a stream of chunks that is read once, front to back.
 * A `Readable` is an `AsyncIterable`; it is named for the reader's sake.
 */
export type ObjectBody = Uint8Array | AsyncIterable<Uint8Array> | Readable;

/** How a `put` may be sent. */
export interface PutOptions {
  /**
   * Whoever reads the object checks every byte of it against a hash it holds from elsewhere (a
   * sorted run's SHA-256 in its shard's checksummed blob, write/run-spill.ts), so the store need
   * not check the transfer itself: S3 sends the body unsigned and without a checksum (the bytes are
   * then hashed once, by the writer, instead of three times). A body altered on the way is stored,
   * and refused by that reader. Default false: the store checks what it keeps.
   */
  readonly readerVerifies?: boolean;
}

/** What a store knows about one object. */
export interface ObjectMeta {
  /** The key relative to the store's root. */
  readonly key: string;
  /** Size in bytes. */
  readonly size: number;
  /** When the object was last written, as the store reports it (used by garbage collection's age guard). */
  readonly lastModified: Date;
  /**
   * The version tag the store reports: S3's ETag (quotes removed); for a local file, a weak tag
   * `W/<size>-<mtime in ns>` made of its size and modification time. Undefined when the store gave none.
   */
  readonly etag?: string;
}

export interface ObjectStore {
  /** Where the store is rooted, as a URI (`file:///…` or `s3://bucket/prefix`), for messages and logs. */
  readonly uri: string;

  /**
   * Reads a whole object.
   * @throws OBJECT_NOT_FOUND if there is no object at `key`.
   */
  get(key: string): Promise<Uint8Array>;

  /**
   * Reads `length` bytes starting at `offset` (what a Parquet reader needs for the footer and the
   * column chunks). A range that runs past the end is cut at the end, so the result may be shorter
   * than `length`; `offset === size` gives an empty array. Each call reads one version of the
   * object; two calls around a `put` of the same key may read different versions (Paimon writes
   * every file once, except the LATEST hint, which is read whole).
   * @throws OBJECT_NOT_FOUND if there is no object at `key`.
   * @throws OBJECT_RANGE_INVALID if `offset > size`, or `offset`/`length` are not non-negative integers.
   */
  getRange(key: string, offset: number, length: number): Promise<Uint8Array>;

  /** The object's metadata, or `null` if there is no object at `key`. */
  stat(key: string): Promise<ObjectMeta | null>;

  /**
   * Writes an object, replacing any object at `key`. Readers see either the old object or the whole
   * new one, never a part: the local store writes a temporary file and renames it, S3 makes an
   * object visible only when its single PUT or its multipart upload completes. A large body is
   * streamed in parts (the S3 part size is configurable), so memory stays bounded by the part size.
   * If the body fails midway, `put` rejects with the body's own error, unchanged, and nothing is
   * written (an unfinished S3 multipart upload is aborted).
   */
  put(key: string, body: ObjectBody, options?: PutOptions): Promise<void>;

  /**
   * Writes an object only if there is none at `key`, atomically: of any number of concurrent
   * callers, exactly one succeeds and every other one fails with OBJECT_ALREADY_EXISTS, and the
   * stored object is the winner's whole body. A partly written object is never visible.
   *
   * This is how a snapshot is published. Caveat for callers that must know whether *they* won: an
   * S3 request whose response was lost and that the SDK retried can report OBJECT_ALREADY_EXISTS
   * although the first try wrote the object. The commit protocol covers this by looking for its
   * own commit identity in the snapshot that is there.
   * A body that fails midway rejects with its own error, as in `put`.
   * @throws OBJECT_ALREADY_EXISTS if an object exists at `key` (or another conditional write of the
   *   same key was in flight: S3 409 ConditionalRequestConflict).
   */
  putIfAbsent(key: string, body: ObjectBody): Promise<void>;

  /**
   * Lists every object whose key starts with `prefix` (a plain string prefix, not only whole
   * segments), in ascending order of the keys' UTF-8 bytes, page by page: memory stays bounded
   * whatever the number of objects. Objects written or deleted during the listing may or may not
   * appear. The local store's temporary files never appear.
   */
  list(prefix: string): AsyncIterable<ObjectMeta>;

  /**
   * The names of the "directories" directly below `dir` (`''` for the root, else a prefix ending in
   * '/'): the distinct next segments of the keys that continue past a '/' below it, in ascending
   * order, without listing what they hold (S3: a delimiter listing; local: one readdir). How a
   * catalog lists databases and tables.
   */
  listDirectories(dir: string): AsyncIterable<string>;

  /** Deletes the object at `key`; deleting a missing object succeeds (idempotent). */
  delete(key: string): Promise<void>;

  /**
   * Deletes every object in `keys` (missing ones included, as `delete` does). Not atomic: on a
   * failure some of the objects may already be gone, and retrying is safe.
   */
  deleteMany(keys: Iterable<string>): Promise<void>;

  /** Releases connections (S3 sockets); the store must not be used afterwards. */
  close(): Promise<void>;
}
