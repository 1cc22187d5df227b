/**
 * Validation of object keys and list prefixes, shared by every ObjectStore implementation so that
 * a key valid on one store is valid on all (no Paimon counterpart: Java's `Path` is looser).
 */
import { errorFrom } from '@tributary/errors';
import { tableErrors } from '../errors.ts';

/**
 * The local store's temporary files: `.<name>.<uuid>.tmp` (Java's `FileIO` uses the same dot-file
 * convention so that readers skip them). Keys may not look like one, so a listing can skip them.
 */
const TEMP_NAME = /^\..*\.tmp$/;

export function isTempName(name: string): boolean {
  return TEMP_NAME.test(name);
}

/**
 * `key` as errors and logs may show it: a partition directory `name=value` keeps its name, and its
 * value (a cell of the table) becomes its length, `name=<7 bytes>`. Nothing else changes.
 */
export function loggableKey(key: string): string {
  return key.split('/').map(loggableSegment).join('/');
}

/** `text` (an error's own message, which may quote a path) with each partition directory of `key` as loggableKey shows it. */
export function withoutPartitionValues(text: string, key: string): string {
  let out = text;
  for (const segment of new Set(key.split('/'))) if (loggableSegment(segment) !== segment) out = out.split(segment).join(loggableSegment(segment));
  return out;
}

function loggableSegment(segment: string): string {
  const at = segment.indexOf('=');
  return at < 0 ? segment : `${segment.slice(0, at)}=<${Buffer.byteLength(segment.slice(at + 1))} bytes>`;
}

/** Throws OBJECT_KEY_INVALID unless `key` is a '/'-separated relative path of proper segments. */
export function checkKey(key: string): void {
  const problem = keyProblem(key);
  if (problem !== null) {
    throw errorFrom(tableErrors, 'OBJECT_KEY_INVALID', `invalid object key ${JSON.stringify(key)}: ${problem}`, {
      key,
    });
  }
}

/** Whether `key` is valid (as `checkKey` decides), without throwing. */
export function isValidKey(key: string): boolean {
  return keyProblem(key) === null;
}

function keyProblem(key: string): string | null {
  if (key.length === 0) return 'empty';
  if (key.includes('\0')) return 'contains NUL';
  if (key.includes('\\')) return "contains '\\' (keys use '/')";
  if (key.startsWith('/')) return 'absolute (starts with /)';
  const segments = key.split('/');
  for (const segment of segments) {
    if (segment === '') return 'has an empty segment';
    if (segment === '.' || segment === '..') return `has a '${segment}' segment`;
  }
  const last = segments[segments.length - 1] ?? '';
  if (isTempName(last)) return 'names a temporary file (.<name>.tmp)';
  return null;
}

/**
 * Throws OBJECT_KEY_INVALID unless `prefix` could start a valid key: empty, or relative without
 * '.', '..' or empty segments before its last '/'. The part after the last '/' may be partial.
 */
export function checkPrefix(prefix: string): void {
  if (prefix === '') return;
  const cut = prefix.lastIndexOf('/');
  const whole = cut === -1 ? '' : prefix.slice(0, cut);
  const problem =
    prefix.startsWith('/') || prefix.includes('\\') || prefix.includes('\0')
      ? 'absolute or contains \\ or NUL'
      : whole === ''
        ? null
        : keyProblem(whole);
  if (problem !== null) {
    throw errorFrom(tableErrors, 'OBJECT_KEY_INVALID', `invalid list prefix ${JSON.stringify(prefix)}: ${problem}`, {
      prefix,
    });
  }
}

/** Throws OBJECT_KEY_INVALID unless `dir` is '' or a valid key followed by '/'. */
export function checkDirectory(dir: string): void {
  if (dir === '') return;
  const problem = !dir.endsWith('/') ? "does not end with '/'" : dir.startsWith('/') || dir.includes('\\') || dir.includes('\0') ? 'absolute or contains \\ or NUL' : keyProblem(dir.slice(0, -1));
  if (problem !== null) {
    throw errorFrom(tableErrors, 'OBJECT_KEY_INVALID', `invalid directory ${JSON.stringify(dir)}: ${problem}`, { prefix: dir });
  }
}

/** Throws OBJECT_RANGE_INVALID unless offset and length are non-negative safe integers. */
export function checkRange(key: string, offset: number, length: number): void {
  if (!Number.isSafeInteger(offset) || !Number.isSafeInteger(length) || offset < 0 || length < 0) {
    throw errorFrom(tableErrors, 'OBJECT_RANGE_INVALID', `invalid range offset=${offset} length=${length} for ${loggableKey(key)}`, {
      key,
      offset,
      length,
    });
  }
}

/** The error for a range that starts past the end of an object. */
export function rangePastEnd(key: string, offset: number, size: number): Error {
  return errorFrom(tableErrors, 'OBJECT_RANGE_INVALID', `range starts at ${offset}, past the end of ${loggableKey(key)} (${size} bytes)`, {
    key,
    offset,
    size,
  });
}

/** Orders keys as S3 does: by their UTF-8 bytes (JS string order differs for astral characters). */
export function compareKeys(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}
