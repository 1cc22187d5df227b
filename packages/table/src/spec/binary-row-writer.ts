/**
 * Writing BinaryRow bytes. Mirrors org.apache.paimon.data.BinaryRowWriter / AbstractBinaryWriter
 * (the layout is described in binary-row.ts), including its reuse: one writer per row type keeps
 * a growing buffer, so the per-row cost of bucket hashing and partition keys is a few field writes
 * and no allocation beyond the returned bytes.
 *
 * Values are checked against their type as they are written (ROW_VALUE_INVALID): Java would
 * silently drop nanoseconds of a TIMESTAMP(3), and JS would silently replace a lone surrogate,
 * both of which would change keys and partitions behind the caller's back. The errors name the
 * field and the type, never the value (a key may be a user's e-mail address).
 */
import { errorFrom } from '@tributary/errors';
import { tableErrors } from '../errors.ts';
import type { DataType, InternalRow, InternalValue, Timestamp } from './types.ts';

export const HEADER_BITS = 8;
export const MAX_INLINE = 7;
const INT64_MIN = -(1n << 63n);
const INT64_MAX = (1n << 63n) - 1n;

/** BinaryRow.calculateBitSetWidthInBytes */
export function bitSetWidthInBytes(arity: number): number {
  return Math.floor((arity + 63 + HEADER_BITS) / 64) * 8;
}

/** BinaryRow.calculateFixPartSizeInBytes */
export function fixedPartSizeInBytes(arity: number): number {
  return bitSetWidthInBytes(arity) + 8 * arity;
}

/** DECIMAL with p ≤ 18 lives in the slot as its unscaled long (Decimal.isCompact). */
export function isCompactDecimal(precision: number): boolean {
  return precision <= 18;
}

/** TIMESTAMP with p ≤ 3 lives in the slot as epoch millis (Timestamp.isCompact). */
export function isCompactTimestamp(precision: number): boolean {
  return precision <= 3;
}

/** BigInteger.toByteArray(): big-endian two's complement, minimal length (0 is one byte). */
export function unscaledToBytes(v: bigint): Uint8Array {
  const magnitude = v < 0n ? -v - 1n : v;
  const bitLength = magnitude === 0n ? 0 : magnitude.toString(2).length;
  const out = new Uint8Array((bitLength >> 3) + 1);
  let rest = v;
  for (let i = out.length - 1; i >= 0; i--) {
    out[i] = Number(BigInt.asUintN(8, rest));
    rest >>= 8n;
  }
  return out;
}

const utf8 = new TextEncoder();
const roundToWord = (n: number): number => (n + 7) & ~7;

function invalid(message: string, field: number, type: DataType): Error {
  return errorFrom(tableErrors, 'ROW_VALUE_INVALID', `field ${field}: ${message}`, { field, type: type.root });
}

function checkInt(v: InternalValue, min: number, max: number, field: number, type: DataType): number {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) {
    throw invalid(`${type.root} needs an integer in [${min}, ${max}]`, field, type);
  }
  return v;
}

function checkTimestamp(v: InternalValue, precision: number, field: number, type: DataType): Timestamp {
  if (typeof v !== 'object' || v === null || v instanceof Uint8Array || !Number.isSafeInteger(v.epochMillis)) {
    throw invalid(`${type.root} needs a Timestamp with integer epochMillis`, field, type);
  }
  const nanos = v.nanoOfMillis;
  if (!Number.isInteger(nanos) || nanos < 0 || nanos > 999_999) throw invalid('nanoOfMillis is not an integer in [0, 999999]', field, type);
  if (isCompactTimestamp(precision) && nanos !== 0) {
    throw invalid(`TIMESTAMP(${precision}) cannot hold nanoseconds`, field, type);
  }
  return v;
}

function checkDecimal(v: InternalValue, precision: number, field: number, type: DataType): bigint {
  const limit = 10n ** BigInt(precision);
  if (typeof v !== 'bigint' || v <= -limit || v >= limit) {
    throw invalid(`DECIMAL(${precision}) needs an unscaled bigint with at most ${precision} digits`, field, type);
  }
  return v;
}

type WellFormed = string & { isWellFormed(): boolean };

/**
 * A reusable writer for rows of one type (BinaryRowWriter). `write` returns a view of the
 * internal buffer that is valid until the next call; `encode` returns a copy.
 */
export class BinaryRowEncoder {
  readonly types: readonly DataType[];
  readonly #nullBytes: number;
  readonly #fixed: number;
  #buf: Uint8Array;
  #view: DataView;
  #cursor = 0;

  constructor(types: readonly DataType[]) {
    this.types = types;
    this.#nullBytes = bitSetWidthInBytes(types.length);
    this.#fixed = this.#nullBytes + 8 * types.length;
    this.#buf = new Uint8Array(Math.max(64, this.#fixed * 2));
    this.#view = new DataView(this.#buf.buffer);
  }

  /** The copy of the row bytes of `values` (no arity prefix); `rowKind` is the header byte. */
  encode(values: InternalRow, rowKind = 0): Uint8Array {
    return this.write(values, rowKind).slice();
  }

  /** The row bytes of `values` in the writer's buffer, valid until the next call. */
  write(values: InternalRow, rowKind = 0): Uint8Array {
    const types = this.types;
    if (values.length !== types.length) {
      throw errorFrom(tableErrors, 'ROW_VALUE_INVALID', `row has ${values.length} values for ${types.length} types`, {
        values: values.length,
        types: types.length,
      });
    }
    this.#buf.fill(0, 0, this.#fixed);
    this.#buf[0] = rowKind;
    this.#cursor = this.#fixed;
    for (let i = 0; i < types.length; i++) {
      const v = values[i] ?? null;
      const type = types[i] as DataType;
      if (v === null) this.#writeNull(i, type);
      else this.#writeValue(i, this.#nullBytes + 8 * i, v, type);
    }
    return this.#buf.subarray(0, this.#cursor);
  }

  #ensure(size: number): void {
    if (size <= this.#buf.length) return;
    const grown = new Uint8Array(Math.max(size, this.#buf.length * 2));
    grown.set(this.#buf.subarray(0, this.#cursor));
    this.#buf = grown;
    this.#view = new DataView(grown.buffer);
  }

  /** Reserves `size` zeroed bytes of the variable part; returns their offset. */
  #reserve(size: number): number {
    const at = this.#cursor;
    this.#ensure(at + size);
    this.#buf.fill(0, at, at + size);
    this.#cursor = at + size;
    return at;
  }

  #writeNull(i: number, type: DataType): void {
    if (!type.nullable) throw invalid(`null in a NOT NULL ${type.root} column`, i, type);
    const bit = i + HEADER_BITS;
    this.#buf[bit >> 3] = (this.#buf[bit >> 3] as number) | (1 << (bit & 7));
    // Null non-compact decimals and timestamps still reserve their bytes (AbstractBinaryWriter).
    let reserve = 0;
    if (type.root === 'DECIMAL' && !isCompactDecimal(type.precision)) reserve = 16;
    if ((type.root === 'TIMESTAMP' || type.root === 'TIMESTAMP_LTZ') && !isCompactTimestamp(type.precision)) reserve = 8;
    if (reserve === 0) return;
    const at = this.#reserve(reserve); // may grow the buffer: take the view after it
    this.#view.setUint32(this.#nullBytes + 8 * i + 4, at, true);
  }

  #writeValue(i: number, slot: number, v: InternalValue, type: DataType): void {
    const view = this.#view;
    switch (type.root) {
      case 'BOOLEAN':
        if (typeof v !== 'boolean') throw invalid('BOOLEAN needs a boolean', i, type);
        this.#buf[slot] = v ? 1 : 0;
        return;
      case 'TINYINT':
        view.setInt8(slot, checkInt(v, -128, 127, i, type));
        return;
      case 'SMALLINT':
        view.setInt16(slot, checkInt(v, -32768, 32767, i, type), true);
        return;
      case 'INT':
      case 'DATE':
      case 'TIME':
        view.setInt32(slot, checkInt(v, -2147483648, 2147483647, i, type), true);
        return;
      case 'BIGINT':
        if (typeof v !== 'bigint' || v < INT64_MIN || v > INT64_MAX) throw invalid('BIGINT needs a bigint in the int64 range', i, type);
        view.setBigInt64(slot, v, true);
        return;
      case 'FLOAT':
      case 'DOUBLE':
        if (typeof v !== 'number') throw invalid(`${type.root} needs a number`, i, type);
        if (type.root === 'FLOAT') view.setFloat32(slot, v, true);
        else view.setFloat64(slot, v, true);
        return;
      case 'DECIMAL':
        this.#writeDecimal(slot, checkDecimal(v, type.precision, i, type), type.precision);
        return;
      case 'CHAR':
      case 'VARCHAR':
        if (typeof v !== 'string') throw invalid(`${type.root} needs a string`, i, type);
        if (!(v as WellFormed).isWellFormed()) throw invalid('string holds a lone UTF-16 surrogate', i, type);
        this.#writeString(slot, v);
        return;
      case 'BINARY':
      case 'VARBINARY':
        if (!(v instanceof Uint8Array)) throw invalid(`${type.root} needs a Uint8Array`, i, type);
        this.#writeBytes(slot, v);
        return;
      case 'TIMESTAMP':
      case 'TIMESTAMP_LTZ':
        this.#writeTimestamp(slot, checkTimestamp(v, type.precision, i, type), type.precision);
        return;
    }
  }

  #writeDecimal(slot: number, v: bigint, precision: number): void {
    if (isCompactDecimal(precision)) {
      this.#view.setBigInt64(slot, v, true);
      return;
    }
    const bytes = unscaledToBytes(v);
    const at = this.#reserve(16);
    this.#buf.set(bytes, at);
    this.#view.setUint32(slot, bytes.length, true);
    this.#view.setUint32(slot + 4, at, true);
  }

  #writeTimestamp(slot: number, ts: Timestamp, precision: number): void {
    if (isCompactTimestamp(precision)) {
      this.#view.setBigInt64(slot, BigInt(ts.epochMillis), true);
      return;
    }
    const at = this.#reserve(8);
    this.#view.setBigInt64(at, BigInt(ts.epochMillis), true);
    this.#view.setUint32(slot, ts.nanoOfMillis, true);
    this.#view.setUint32(slot + 4, at, true);
  }

  #writeString(slot: number, s: string): void {
    const at = this.#cursor;
    this.#ensure(at + 3 * s.length + 8);
    const buf = this.#buf;
    // ASCII (most keys and partition values) is copied unit by unit: cheaper than encodeInto.
    let written = 0;
    while (written < s.length) {
      const c = s.charCodeAt(written);
      if (c >= 0x80) break;
      buf[at + written++] = c;
    }
    if (written < s.length) written = utf8.encodeInto(s, buf.subarray(at)).written;
    if (written <= MAX_INLINE) {
      this.#buf.copyWithin(slot, at, at + written);
      this.#buf[slot + 7] = 0x80 | written;
      return;
    }
    this.#finishVariable(slot, at, written);
  }

  #writeBytes(slot: number, bytes: Uint8Array): void {
    if (bytes.length <= MAX_INLINE) {
      this.#buf.set(bytes, slot);
      this.#buf[slot + 7] = 0x80 | bytes.length;
      return;
    }
    const at = this.#cursor;
    this.#ensure(at + bytes.length + 8);
    this.#buf.set(bytes, at);
    this.#finishVariable(slot, at, bytes.length);
  }

  /** Zero-pads `len` bytes at `at` to a word and points the slot at them. */
  #finishVariable(slot: number, at: number, len: number): void {
    const end = at + roundToWord(len);
    this.#buf.fill(0, at + len, end);
    this.#view.setUint32(slot, len, true);
    this.#view.setUint32(slot + 4, at, true);
    this.#cursor = end;
  }
}

const encoders = new WeakMap<readonly DataType[], BinaryRowEncoder>();

/** The cached encoder of this types array (callers that reuse their array skip the setup). */
export function binaryRowEncoder(types: readonly DataType[]): BinaryRowEncoder {
  let encoder = encoders.get(types);
  if (encoder === undefined) {
    encoder = new BinaryRowEncoder(types);
    encoders.set(types, encoder);
  }
  return encoder;
}
