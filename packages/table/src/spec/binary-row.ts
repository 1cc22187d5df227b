/**
 * BinaryRow: Paimon's compact row bytes, used for partitions, min/max keys, statistics rows and
 * the bucket hash. Mirrors org.apache.paimon.data.BinaryRow and BinaryRowWriter
 * (AbstractBinaryWriter), and SerializationUtils.serializeBinaryRow for the arity-prefixed form.
 *
 * Java compares and hashes rows by their raw bytes (BinaryRow.equals / hashCode), so every byte
 * matters: a padding byte or a decimal one byte too long makes Java see a different partition.
 *
 * Layout of a row of arity n (little-endian, as Unsafe writes on every supported platform):
 *
 *   [header + null bits: ((n + 63 + 8) / 64) * 8 bytes][n slots of 8 bytes][variable part]
 *
 *   byte 0            RowKind (0 = +I for partitions, keys and stats)
 *   null bit of i     bit (i + 8), LSB first: byte (i + 8) >> 3, mask 1 << ((i + 8) & 7)
 *   fixed-width       value in the slot, unused slot bytes zero
 *   bytes ≤ 7         inline: slot bytes 0..len-1, byte 7 = 0x80 | len
 *   bytes > 7         variable part, zero-padded to 8; slot = (offset << 32) | len
 *   DECIMAL p > 18    16 reserved bytes, minimal big-endian two's complement; slot = (offset << 32) | byteLen
 *   TIMESTAMP p > 3   8 reserved bytes holding epoch millis; slot = (offset << 32) | nanoOfMilli
 *
 * Null DECIMAL(p > 18) and TIMESTAMP(p > 3) still reserve their variable bytes (zeroed) and keep the
 * offset in the slot, as BinaryRowWriter does (pypaimon does not; Java is the reference).
 */
import { errorFrom } from '@tributary/protocol';
import { tableErrors } from '../errors.ts';
import type { DataType, InternalRow, InternalValue, Timestamp } from './types.ts';

/** The arity-prefixed empty row (arity 0): 4-byte arity + 8-byte header. */
export const EMPTY_ROW: Uint8Array = new Uint8Array(12);

const HEADER_BITS = 8;
const MAX_INLINE = 7;
const INT64_MIN = -(1n << 63n);
const INT64_MAX = (1n << 63n) - 1n;

const utf8Encoder = new TextEncoder();
const utf8Decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

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

function roundToWord(n: number): number {
  return (n + 7) & ~7;
}

function invalidValue(message: string, field: number, type: DataType): Error {
  return errorFrom(tableErrors, 'ROW_VALUE_INVALID', message, { field, type: type.root });
}

function invalidRow(message: string, context: Record<string, number> = {}): Error {
  return errorFrom(tableErrors, 'BINARY_ROW_INVALID', message, context);
}

// ---------------------------------------------------------------------------------------------
// Encoding
// ---------------------------------------------------------------------------------------------

/** A value checked against its type and turned into the form the writer puts down. */
type Prepared =
  | { readonly kind: 'null'; readonly reserve: number }
  | { readonly kind: 'bytes'; readonly bytes: Uint8Array }
  | { readonly kind: 'other'; readonly value: InternalValue; readonly reserve: number };

const LONE_SURROGATE = /\p{Cs}/u;

function isTimestamp(v: InternalValue): v is Timestamp {
  return typeof v === 'object' && v !== null && !(v instanceof Uint8Array);
}

function checkInt(v: InternalValue, min: number, max: number, field: number, type: DataType): void {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) {
    throw invalidValue(`field ${field}: ${type.root} needs an integer in [${min}, ${max}], got ${String(v)}`, field, type);
  }
}

function checkTimestamp(v: InternalValue, precision: number, field: number, type: DataType): void {
  if (!isTimestamp(v) || !Number.isSafeInteger(v.epochMillis)) {
    throw invalidValue(`field ${field}: ${type.root} needs a Timestamp with integer epochMillis`, field, type);
  }
  const nanos = v.nanoOfMillis;
  if (!Number.isInteger(nanos) || nanos < 0 || nanos > 999_999) {
    throw invalidValue(`field ${field}: nanoOfMillis ${nanos} is not in [0, 999999]`, field, type);
  }
  if (isCompactTimestamp(precision) && nanos !== 0) {
    // Java would drop the nanoseconds silently; a value finer than its type is a caller bug.
    throw invalidValue(`field ${field}: TIMESTAMP(${precision}) cannot hold nanoseconds (${nanos})`, field, type);
  }
}

/** Checks a non-null value against its type (throws ROW_VALUE_INVALID) and prepares it. */
function prepare(v: InternalValue, type: DataType, field: number): Prepared {
  switch (type.root) {
    case 'BOOLEAN':
      if (typeof v !== 'boolean') throw invalidValue(`field ${field}: BOOLEAN needs a boolean`, field, type);
      return { kind: 'other', value: v, reserve: 0 };
    case 'TINYINT':
      checkInt(v, -128, 127, field, type);
      return { kind: 'other', value: v, reserve: 0 };
    case 'SMALLINT':
      checkInt(v, -32768, 32767, field, type);
      return { kind: 'other', value: v, reserve: 0 };
    case 'INT':
    case 'DATE':
    case 'TIME':
      checkInt(v, -2147483648, 2147483647, field, type);
      return { kind: 'other', value: v, reserve: 0 };
    case 'BIGINT':
      if (typeof v !== 'bigint' || v < INT64_MIN || v > INT64_MAX) {
        throw invalidValue(`field ${field}: BIGINT needs a bigint in the int64 range`, field, type);
      }
      return { kind: 'other', value: v, reserve: 0 };
    case 'FLOAT':
    case 'DOUBLE':
      if (typeof v !== 'number') throw invalidValue(`field ${field}: ${type.root} needs a number`, field, type);
      return { kind: 'other', value: v, reserve: 0 };
    case 'DECIMAL': {
      const limit = 10n ** BigInt(type.precision);
      if (typeof v !== 'bigint' || v <= -limit || v >= limit) {
        throw invalidValue(
          `field ${field}: DECIMAL(${type.precision}, ${type.scale}) needs an unscaled bigint with at most ${type.precision} digits`,
          field,
          type,
        );
      }
      return isCompactDecimal(type.precision) ? { kind: 'other', value: v, reserve: 0 } : { kind: 'other', value: v, reserve: 16 };
    }
    case 'CHAR':
    case 'VARCHAR':
      if (typeof v !== 'string') throw invalidValue(`field ${field}: ${type.root} needs a string`, field, type);
      if (LONE_SURROGATE.test(v)) throw invalidValue(`field ${field}: string holds a lone UTF-16 surrogate`, field, type);
      return { kind: 'bytes', bytes: utf8Encoder.encode(v) };
    case 'BINARY':
    case 'VARBINARY':
      if (!(v instanceof Uint8Array)) throw invalidValue(`field ${field}: ${type.root} needs a Uint8Array`, field, type);
      return { kind: 'bytes', bytes: v };
    case 'TIMESTAMP':
    case 'TIMESTAMP_LTZ':
      checkTimestamp(v, type.precision, field, type);
      return { kind: 'other', value: v, reserve: isCompactTimestamp(type.precision) ? 0 : 8 };
  }
}

function nullReserve(type: DataType): number {
  if (type.root === 'DECIMAL' && !isCompactDecimal(type.precision)) return 16;
  if ((type.root === 'TIMESTAMP' || type.root === 'TIMESTAMP_LTZ') && !isCompactTimestamp(type.precision)) return 8;
  return 0;
}

function prepareRow(values: InternalRow, types: readonly DataType[]): Prepared[] {
  if (values.length !== types.length) {
    throw errorFrom(tableErrors, 'ROW_VALUE_INVALID', `row has ${values.length} values for ${types.length} types`, {
      values: values.length,
      types: types.length,
    });
  }
  return types.map((type, i) => {
    const v = values[i] ?? null;
    if (v === null) {
      if (!type.nullable) throw invalidValue(`field ${i}: null in a NOT NULL ${type.root} column`, i, type);
      return { kind: 'null', reserve: nullReserve(type) };
    }
    return prepare(v, type, i);
  });
}

function variableSize(p: Prepared): number {
  if (p.kind === 'bytes') return p.bytes.length > MAX_INLINE ? roundToWord(p.bytes.length) : 0;
  return p.reserve;
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

function writeSlot(view: DataView, slot: number, p: Prepared, type: DataType): void {
  if (p.kind !== 'other') return;
  const v = p.value;
  switch (type.root) {
    case 'BOOLEAN':
      view.setUint8(slot, v === true ? 1 : 0);
      return;
    case 'TINYINT':
      view.setInt8(slot, v as number);
      return;
    case 'SMALLINT':
      view.setInt16(slot, v as number, true);
      return;
    case 'INT':
    case 'DATE':
    case 'TIME':
      view.setInt32(slot, v as number, true);
      return;
    case 'BIGINT':
      view.setBigInt64(slot, v as bigint, true);
      return;
    case 'FLOAT':
      view.setFloat32(slot, v as number, true);
      return;
    case 'DOUBLE':
      view.setFloat64(slot, v as number, true);
      return;
    case 'DECIMAL':
      view.setBigInt64(slot, v as bigint, true);
      return;
    case 'TIMESTAMP':
    case 'TIMESTAMP_LTZ':
      view.setBigInt64(slot, BigInt((v as Timestamp).epochMillis), true);
      return;
    default:
      return;
  }
}

/** Writes the variable-part bytes of one field at `cursor`; returns the bytes used. */
function writeVariable(out: Uint8Array, view: DataView, slot: number, cursor: number, p: Prepared, type: DataType): number {
  if (p.kind === 'null') {
    if (p.reserve > 0) view.setUint32(slot + 4, cursor, true);
    return p.reserve;
  }
  if (p.kind === 'bytes') {
    const len = p.bytes.length;
    if (len <= MAX_INLINE) {
      out.set(p.bytes, slot);
      out[slot + 7] = 0x80 | len;
      return 0;
    }
    out.set(p.bytes, cursor);
    view.setUint32(slot, len, true);
    view.setUint32(slot + 4, cursor, true);
    return roundToWord(len);
  }
  if (p.reserve === 0) return 0;
  if (type.root === 'DECIMAL') {
    const bytes = unscaledToBytes(p.value as bigint);
    out.set(bytes, cursor);
    view.setUint32(slot, bytes.length, true);
  } else {
    const ts = p.value as Timestamp;
    view.setBigInt64(cursor, BigInt(ts.epochMillis), true);
    view.setUint32(slot, ts.nanoOfMillis, true);
  }
  view.setUint32(slot + 4, cursor, true);
  return p.reserve;
}

/**
 * The raw row bytes (no arity prefix) of `values` typed by `types`, byte for byte as Java's
 * BinaryRowWriter writes them. `rowKind` is the header byte (0 = +I).
 */
export function encodeBinaryRow(values: InternalRow, types: readonly DataType[], rowKind = 0): Uint8Array {
  const prepared = prepareRow(values, types);
  const arity = types.length;
  const nullBytes = bitSetWidthInBytes(arity);
  const fixed = nullBytes + 8 * arity;
  let size = fixed;
  for (const p of prepared) size += variableSize(p);
  const out = new Uint8Array(size);
  const view = new DataView(out.buffer);
  out[0] = rowKind;
  let cursor = fixed;
  for (let i = 0; i < arity; i++) {
    const p = prepared[i] as Prepared;
    const type = types[i] as DataType;
    const slot = nullBytes + 8 * i;
    if (p.kind === 'null') {
      const bit = i + HEADER_BITS;
      out[bit >> 3] = (out[bit >> 3] as number) | (1 << (bit & 7));
    } else {
      writeSlot(view, slot, p, type);
    }
    cursor += writeVariable(out, view, slot, cursor, p, type);
  }
  return out;
}

/** SerializationUtils.serializeBinaryRow: 4-byte big-endian arity, then the row bytes. */
export function toArityPrefixed(rowBytes: Uint8Array, arity: number): Uint8Array {
  const out = new Uint8Array(4 + rowBytes.length);
  new DataView(out.buffer).setInt32(0, arity, false);
  out.set(rowBytes, 4);
  return out;
}

/** The arity-prefixed bytes of `values`, as stored in Avro `bytes` fields of manifests. */
export function serializeBinaryRow(values: InternalRow, types: readonly DataType[]): Uint8Array {
  return toArityPrefixed(encodeBinaryRow(values, types), types.length);
}

// ---------------------------------------------------------------------------------------------
// Decoding
// ---------------------------------------------------------------------------------------------

/** Splits an arity-prefixed row into its arity and row bytes (a view, not a copy). */
export function splitArityPrefixed(bytes: Uint8Array): { arity: number; rowBytes: Uint8Array } {
  if (bytes.length < 12) throw invalidRow(`arity-prefixed row of ${bytes.length} bytes is shorter than 12`, { length: bytes.length });
  const arity = new DataView(bytes.buffer, bytes.byteOffset, 4).getInt32(0, false);
  if (arity < 0) throw invalidRow(`negative arity ${arity}`, { arity });
  return { arity, rowBytes: bytes.subarray(4) };
}

/** SerializationUtils.deserializeBinaryRow, checked against the expected types. */
export function decodeBinaryRow(bytes: Uint8Array, types: readonly DataType[]): InternalValue[] {
  const { arity, rowBytes } = splitArityPrefixed(bytes);
  if (arity !== types.length) throw invalidRow(`row has arity ${arity}, expected ${types.length}`, { arity, expected: types.length });
  return decodeRowBytes(rowBytes, types);
}

/** Decodes raw row bytes (no arity prefix). Every length and offset is checked before use. */
export function decodeRowBytes(rowBytes: Uint8Array, types: readonly DataType[]): InternalValue[] {
  const arity = types.length;
  const nullBytes = bitSetWidthInBytes(arity);
  const fixed = nullBytes + 8 * arity;
  if (rowBytes.length < fixed || rowBytes.length % 8 !== 0) {
    throw invalidRow(`row of ${rowBytes.length} bytes does not fit arity ${arity} (fixed part ${fixed}, 8-aligned)`, {
      length: rowBytes.length,
      arity,
    });
  }
  const kind = rowBytes[0] as number;
  if (kind > 3) throw invalidRow(`unknown RowKind byte ${kind}`, { kind });
  const view = new DataView(rowBytes.buffer, rowBytes.byteOffset, rowBytes.length);
  const out: InternalValue[] = [];
  for (let i = 0; i < arity; i++) {
    const bit = i + HEADER_BITS;
    const isNull = ((rowBytes[bit >> 3] as number) & (1 << (bit & 7))) !== 0;
    const type = types[i] as DataType;
    out.push(isNull ? null : readField(rowBytes, view, nullBytes + 8 * i, fixed, type, i));
  }
  return out;
}

function readVariable(rowBytes: Uint8Array, view: DataView, slot: number, fixed: number, field: number): { offset: number; low: number } {
  const low = view.getUint32(slot, true);
  const offset = view.getUint32(slot + 4, true);
  if (offset < fixed || offset > rowBytes.length) {
    throw invalidRow(`field ${field}: variable offset ${offset} outside [${fixed}, ${rowBytes.length}]`, { field, offset });
  }
  return { offset, low };
}

function readBytes(rowBytes: Uint8Array, view: DataView, slot: number, fixed: number, field: number): Uint8Array {
  const mark = rowBytes[slot + 7] as number;
  if ((mark & 0x80) !== 0) {
    const len = mark & 0x7f;
    if (len > MAX_INLINE) throw invalidRow(`field ${field}: inline length ${len} > 7`, { field, len });
    return rowBytes.slice(slot, slot + len);
  }
  const { offset, low: len } = readVariable(rowBytes, view, slot, fixed, field);
  if (offset + len > rowBytes.length) throw invalidRow(`field ${field}: ${len} bytes at ${offset} run past the row end`, { field, offset, len });
  return rowBytes.slice(offset, offset + len);
}

/** Big-endian two's complement bytes to a bigint (BigInteger(byte[])). */
export function bytesToUnscaled(bytes: Uint8Array): bigint {
  let v = 0n;
  for (const b of bytes) v = (v << 8n) | BigInt(b);
  return bytes.length > 0 && ((bytes[0] as number) & 0x80) !== 0 ? v - (1n << BigInt(8 * bytes.length)) : v;
}

function readDecimal(rowBytes: Uint8Array, view: DataView, slot: number, fixed: number, type: DataType & { root: 'DECIMAL' }, field: number): bigint {
  let v: bigint;
  if (isCompactDecimal(type.precision)) {
    v = view.getBigInt64(slot, true);
  } else {
    const { offset, low: len } = readVariable(rowBytes, view, slot, fixed, field);
    if (len < 1 || len > 16 || offset + 16 > rowBytes.length) {
      throw invalidRow(`field ${field}: decimal of ${len} bytes at ${offset} is malformed`, { field, offset, len });
    }
    v = bytesToUnscaled(rowBytes.subarray(offset, offset + len));
  }
  const limit = 10n ** BigInt(type.precision);
  if (v <= -limit || v >= limit) throw invalidRow(`field ${field}: decimal exceeds precision ${type.precision}`, { field });
  return v;
}

function readTimestamp(rowBytes: Uint8Array, view: DataView, slot: number, fixed: number, precision: number, field: number): Timestamp {
  const toMillis = (raw: bigint): number => {
    if (raw < BigInt(Number.MIN_SAFE_INTEGER) || raw > BigInt(Number.MAX_SAFE_INTEGER)) {
      throw invalidRow(`field ${field}: timestamp millis out of the safe integer range`, { field });
    }
    return Number(raw);
  };
  if (isCompactTimestamp(precision)) return { epochMillis: toMillis(view.getBigInt64(slot, true)), nanoOfMillis: 0 };
  const { offset, low: nanos } = readVariable(rowBytes, view, slot, fixed, field);
  if (offset + 8 > rowBytes.length || nanos > 999_999) {
    throw invalidRow(`field ${field}: timestamp at ${offset} with nanos ${nanos} is malformed`, { field, offset, nanos });
  }
  return { epochMillis: toMillis(view.getBigInt64(offset, true)), nanoOfMillis: nanos };
}

function readField(rowBytes: Uint8Array, view: DataView, slot: number, fixed: number, type: DataType, field: number): InternalValue {
  switch (type.root) {
    case 'BOOLEAN':
      return rowBytes[slot] !== 0;
    case 'TINYINT':
      return view.getInt8(slot);
    case 'SMALLINT':
      return view.getInt16(slot, true);
    case 'INT':
    case 'DATE':
    case 'TIME':
      return view.getInt32(slot, true);
    case 'BIGINT':
      return view.getBigInt64(slot, true);
    case 'FLOAT':
      return view.getFloat32(slot, true);
    case 'DOUBLE':
      return view.getFloat64(slot, true);
    case 'DECIMAL':
      return readDecimal(rowBytes, view, slot, fixed, type, field);
    case 'CHAR':
    case 'VARCHAR':
      try {
        return utf8Decoder.decode(readBytes(rowBytes, view, slot, fixed, field));
      } catch (cause) {
        if (cause instanceof TypeError) throw invalidRow(`field ${field}: string is not valid UTF-8`, { field });
        throw cause;
      }
    case 'BINARY':
    case 'VARBINARY':
      return readBytes(rowBytes, view, slot, fixed, field);
    case 'TIMESTAMP':
    case 'TIMESTAMP_LTZ':
      return readTimestamp(rowBytes, view, slot, fixed, type.precision, field);
  }
}
