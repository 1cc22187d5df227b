/**
 * ObjectStore on a local (POSIX) file system: one file per object under a root directory.
 *
 * Mirrors Paimon's `org.apache.paimon.fs.local.LocalFileIO`, with one deliberate difference: Java
 * publishes with `Files.move(ATOMIC_MOVE)` after an in-JVM lock and an exists check, which is not
 * atomic across processes (POSIX rename overwrites). Here `putIfAbsent` writes a temporary file in
 * full and then `link()`s it to the final name; `link` fails with EEXIST if the name is taken, so
 * exactly one of any number of racing processes wins and a partial object is never visible.
 *
 * Temporary files are `.<name>.<uuid>.tmp` in the target's directory (Java's naming), so a rename
 * or link never crosses a file system, and listings skip them.
 */
import { randomUUID } from 'node:crypto';
import { closeSync, constants, fstatSync, openSync, readSync, type Dirent } from 'node:fs';
import { link, mkdir, open, readdir, readFile, rename, stat, unlink } from 'node:fs/promises';
import { dirname, join, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import { errorFrom, isTributaryError, type TributaryError } from '@tributary/errors';
import { tableErrors } from '../errors.ts';
import { checkDirectory, checkKey, checkPrefix, checkRange, compareKeys, isTempName, loggableKey, rangePastEnd, withoutPartitionValues } from './object-key.ts';
import { watchBody } from './object-body.ts';
import type { ObjectBody, ObjectMeta, ObjectStore } from './object-store.ts';

/** How many deletes `deleteMany` runs at once. */
const DELETE_CONCURRENCY = 32;

/**
 * `get` reads an object up to this size with blocking calls (open, fstat, read, close: tens of
 * microseconds from the page cache) instead of four round trips through libuv's thread pool, which
 * cost several times the CPU: a compaction reads thousands of small data files whole (measured on
 * 5,000 files of about 6 KB: 60–70 ms of CPU against 330–400 ms). The event loop waits at most for
 * one such small read; larger objects are read asynchronously.
 */
const SYNC_GET_MAX_BYTES = 256 * 1024;

export interface LocalObjectStoreOptions {
  /**
   * Flush every object to disk before it becomes visible (default true). `false` is for scratch
   * warehouses and benchmarks only (Paimon Java's LocalFileIO does not flush either): a crash can
   * then leave an empty or partial object under its final name.
   */
  readonly fsync?: boolean;
}

export class LocalObjectStore implements ObjectStore {
  readonly uri: string;
  readonly #root: string;
  readonly #fsync: boolean;

  /** @param root an absolute directory; it is created on the first write if missing. */
  constructor(root: string, options: LocalObjectStoreOptions = {}) {
    if (!root.startsWith(sep)) {
      throw errorFrom(tableErrors, 'STORAGE_URI_INVALID', `local store root must be absolute: ${root}`, { root });
    }
    this.#root = root.length > 1 && root.endsWith(sep) ? root.slice(0, -1) : root;
    this.uri = pathToFileURL(this.#root).href;
    this.#fsync = options.fsync ?? true;
  }

  async get(key: string): Promise<Uint8Array> {
    const path = this.#path(key);
    try {
      return readSmallFileSync(path) ?? new Uint8Array(await readFile(path));
    } catch (error) {
      throw fsError(error, 'get', key);
    }
  }

  async getRange(key: string, offset: number, length: number): Promise<Uint8Array> {
    const path = this.#path(key);
    checkRange(key, offset, length);
    try {
      const file = await open(path, 'r');
      try {
        const { size } = await file.stat();
        if (offset > size) throw rangePastEnd(key, offset, size);
        const buffer = Buffer.alloc(Math.min(length, size - offset));
        let filled = 0;
        while (filled < buffer.length) {
          const { bytesRead } = await file.read(buffer, filled, buffer.length - filled, offset + filled);
          if (bytesRead === 0) break; // truncated behind our back; our own puts replace, never truncate
          filled += bytesRead;
        }
        return new Uint8Array(buffer.buffer, buffer.byteOffset, filled);
      } finally {
        await file.close();
      }
    } catch (error) {
      throw fsError(error, 'getRange', key);
    }
  }

  async stat(key: string): Promise<ObjectMeta | null> {
    const path = this.#path(key);
    try {
      const s = await stat(path, { bigint: true });
      return s.isFile() ? { key, size: Number(s.size), lastModified: s.mtime, etag: `W/${s.size}-${s.mtimeNs}` } : null;
    } catch (error) {
      if (errnoOf(error) === 'ENOENT' || errnoOf(error) === 'ENOTDIR') return null;
      throw fsError(error, 'stat', key);
    }
  }

  async put(key: string, body: ObjectBody): Promise<void> {
    const path = this.#path(key);
    const temp = await this.#writeTemp(path, key, body);
    try {
      await rename(temp, path);
    } catch (error) {
      await removeQuietly(temp);
      throw fsError(error, 'put', key);
    }
  }

  async putIfAbsent(key: string, body: ObjectBody): Promise<void> {
    const path = this.#path(key);
    const temp = await this.#writeTemp(path, key, body);
    try {
      await link(temp, path);
    } catch (error) {
      if (errnoOf(error) === 'EEXIST') {
        throw errorFrom(tableErrors, 'OBJECT_ALREADY_EXISTS', `object already exists: ${loggableKey(key)}`, { key: loggableKey(key), store: this.uri });
      }
      throw fsError(error, 'putIfAbsent', key);
    } finally {
      await removeQuietly(temp);
    }
  }

  async *list(prefix: string): AsyncIterable<ObjectMeta> {
    checkPrefix(prefix);
    yield* this.#walk('', prefix);
  }

  async *listDirectories(dir: string): AsyncIterable<string> {
    checkDirectory(dir);
    const entries = await this.#entries(dir);
    yield* entries
      .filter((e) => e.isDirectory())
      .map((e) => e.name)
      .sort((a, b) => compareKeys(`${a}/`, `${b}/`));
  }

  async delete(key: string): Promise<void> {
    const path = this.#path(key);
    try {
      await unlink(path);
    } catch (error) {
      const code = errnoOf(error);
      if (code === 'ENOENT' || code === 'ENOTDIR') return;
      throw fsError(error, 'delete', key);
    }
  }

  async deleteMany(keys: Iterable<string>): Promise<void> {
    const pending = [...keys];
    for (const key of pending) checkKey(key);
    const worker = async (): Promise<void> => {
      for (let key = pending.pop(); key !== undefined; key = pending.pop()) await this.delete(key);
    };
    await Promise.all(Array.from({ length: Math.min(DELETE_CONCURRENCY, pending.length) }, worker));
  }

  /** Nothing to release: every call opens and closes its own files. */
  async close(): Promise<void> {}

  #path(key: string): string {
    checkKey(key);
    return join(this.#root, ...key.split('/'));
  }

  /**
   * Writes the whole body to a fresh temporary file beside `path` and flushes it to disk, so that a
   * rename or link after a crash never leaves an empty or partial object behind (the classic
   * rename-without-fsync data loss on ext4; unless the store was opened with `fsync: false`).
   * Returns the temporary file's path.
   */
  async #writeTemp(path: string, key: string, body: ObjectBody): Promise<string> {
    const dir = dirname(path);
    const temp = join(dir, `.${path.slice(dir.length + 1)}.${randomUUID()}.tmp`);
    const watched = body instanceof Uint8Array ? undefined : watchBody(body);
    try {
      await mkdir(dir, { recursive: true });
      const file = await open(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o644);
      try {
        if (watched === undefined) {
          await file.writeFile(body as Uint8Array);
        } else {
          for await (const chunk of watched.chunks) await file.write(chunk);
        }
        if (this.#fsync) await file.sync();
      } finally {
        await file.close();
      }
      return temp;
    } catch (error) {
      await removeQuietly(temp);
      const own = watched?.failure();
      throw own !== undefined ? own.error : fsError(error, 'put', key);
    }
  }

  /** The entries of directory `dir` (a key prefix ending in '/', or ''); none when it does not exist. */
  async #entries(dir: string): Promise<Dirent[]> {
    try {
      return await readdir(join(this.#root, ...dir.split('/').filter((s) => s !== '')), { withFileTypes: true });
    } catch (error) {
      const code = errnoOf(error);
      if (code === 'ENOENT' || code === 'ENOTDIR') return [];
      throw fsError(error, 'list', dir);
    }
  }

  /**
   * Yields the objects under directory `dir` (a key prefix ending in '/', or '' for the root) whose
   * keys start with `prefix`, in key order. Entries sort as their keys do: a directory `a` as `a/`,
   * so that `a.b` (0x2E) comes before everything in `a/` (0x2F), as on S3.
   */
  async *#walk(dir: string, prefix: string): AsyncGenerator<ObjectMeta> {
    const entries = await this.#entries(dir);
    const named = entries
      .filter((e) => (e.isFile() && !isTempName(e.name)) || e.isDirectory())
      .map((e) => ({ entry: e, sortKey: dir + e.name + (e.isDirectory() ? '/' : '') }))
      .sort((a, b) => compareKeys(a.sortKey, b.sortKey));
    for (const { entry, sortKey } of named) {
      if (entry.isDirectory()) {
        if (sortKey.startsWith(prefix) || prefix.startsWith(sortKey)) yield* this.#walk(sortKey, prefix);
      } else if (sortKey.startsWith(prefix)) {
        const meta = await this.stat(sortKey).catch(() => null);
        if (meta !== null) yield meta; // null: deleted since readdir
      }
    }
  }
}

function errnoOf(error: unknown): string | undefined {
  if (typeof error === 'object' && error !== null && 'code' in error && typeof error.code === 'string') {
    return error.code;
  }
  return undefined;
}

async function removeQuietly(path: string): Promise<void> {
  await unlink(path).catch(() => undefined);
}

const READS = new Set(['get', 'getRange', 'stat', 'list']);

/** The whole file if it is a regular file of at most SYNC_GET_MAX_BYTES, read with blocking calls; else undefined. */
function readSmallFileSync(path: string): Uint8Array | undefined {
  const fd = openSync(path, 'r');
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile() || stats.size > SYNC_GET_MAX_BYTES) return undefined;
    const bytes = new Uint8Array(stats.size);
    let filled = 0;
    while (filled < bytes.length) {
      const read = readSync(fd, bytes, filled, bytes.length - filled, filled);
      if (read === 0) break; // truncated behind our back; our own puts replace, never truncate
      filled += read;
    }
    return filled === bytes.length ? bytes : bytes.subarray(0, filled);
  } finally {
    closeSync(fd);
  }
}

/** Translates a Node file-system error into the store's typed errors; typed errors pass through. */
function fsError(error: unknown, op: string, key: string): TributaryError {
  if (isTributaryError(error)) return error;
  const errno = errnoOf(error) ?? 'UNKNOWN';
  // A partition directory's value is a cell of the table: never in an error (loggableKey).
  const shown = loggableKey(key);
  const context = { key: shown, op, errno };
  const message = `${op} ${shown}: ${withoutPartitionValues(error instanceof Error ? error.message : String(error), key)}`;
  const options = { cause: error };
  switch (errno) {
    case 'ENOENT':
    case 'ENOTDIR':
    case 'EISDIR':
      // On a read the object is missing. On a write a path segment is both a file and a directory
      // (`a` and `a/b`), which S3 allows and a file system does not; Paimon's layout never does it.
      return READS.has(op)
        ? errorFrom(tableErrors, 'OBJECT_NOT_FOUND', `object not found: ${shown}`, context, options)
        : errorFrom(tableErrors, 'STORAGE_REQUEST_FAILED', `${message} (a key and a key prefix clash)`, context, options);
    case 'EACCES':
    case 'EPERM':
    case 'EROFS':
      return errorFrom(tableErrors, 'STORAGE_ACCESS_DENIED', message, context, options);
    case 'EMFILE':
    case 'ENFILE':
    case 'EAGAIN':
    case 'EBUSY':
    case 'EIO':
    case 'ENOSPC':
    case 'EDQUOT':
      return errorFrom(tableErrors, 'STORAGE_UNAVAILABLE', message, context, options);
    default:
      return errorFrom(tableErrors, 'STORAGE_REQUEST_FAILED', message, context, options);
  }
}
