/**
 * Small domain checks shared by the codecs. A check reports through a `Fail` callback so the same
 * rule gives BLOB_VALUE_OUT_OF_RANGE when the encoder is handed a bad value and
 * BLOB_MESSAGE_INVALID / BLOB_HEADER_INVALID when the decoder finds one in a blob.
 */
import type { ErrorContext } from '@tributary/errors';
import { type ProtocolErrorCode, protocolError } from './errors.ts';

/** Reports a bad value at `path` (e.g. `dataIncrement.newFiles[3].rowCount`); never returns. */
export type Fail = (path: string, reason: string) => never;

export function failWith(code: ProtocolErrorCode, context: ErrorContext = {}): Fail {
  return (path, reason) => {
    throw protocolError(code, `${path}: ${reason}`, { ...context, path, reason });
  };
}

const INT32_MIN = -(2 ** 31);
const INT32_MAX = 2 ** 31 - 1;

export function isInt32(value: number, min = INT32_MIN): boolean {
  return Number.isInteger(value) && value >= min && value <= INT32_MAX;
}

/** Lone UTF-16 surrogates cannot be written as UTF-8, so they would not survive a round trip. */
const LONE_SURROGATE = /\p{Cs}/u;

export function checkString(value: string, path: string, fail: Fail, nonEmpty: boolean): void {
  if (typeof value !== 'string') fail(path, 'not a string');
  if (nonEmpty && value.length === 0) fail(path, 'empty');
  if (LONE_SURROGATE.test(value)) fail(path, 'not well-formed UTF-16');
}

/**
 * A structural check of an arity-prefixed BinaryRow (Paimon `SerializationUtils.serializeBinaryRow`):
 * a 4-byte big-endian arity, then at least the row's fixed part, a null bitset of
 * `((arity + 63 + 8) / 64) * 8` bytes plus 8 bytes per field (`BinaryRow.calculateFixPartSizeInBytes`).
 * It catches empty, truncated and negative-arity values; it cannot check the variable part.
 */
export function checkBinaryRow(bytes: Uint8Array, path: string, fail: Fail): void {
  if (!(bytes instanceof Uint8Array)) fail(path, 'not a Uint8Array');
  if (bytes.length < 4) fail(path, 'shorter than the 4-byte arity prefix');
  // Big-endian int32, read by hand: a DataView per value costs more than the whole check.
  const arity = (bytes[0]! << 24) | (bytes[1]! << 16) | (bytes[2]! << 8) | bytes[3]!;
  if (arity < 0) fail(path, `negative arity ${arity}`);
  const fixedPart = Math.floor((arity + 63 + 8) / 64) * 8 + arity * 8;
  if (bytes.length - 4 < fixedPart) fail(path, `arity ${arity} needs ${fixedPart} row bytes, has ${bytes.length - 4}`);
}
