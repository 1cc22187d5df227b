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
import { errorFrom } from '@tributary/errors';
import { tableErrors } from '../errors.ts';
import { binaryRowEncoder, bitSetWidthInBytes, HEADER_BITS, isCompactDecimal, isCompactTimestamp, MAX_INLINE } from './binary-row-writer.ts';
import type { DataType, InternalRow, InternalValue, Timestamp } from './types.ts';

export {
  BinaryRowEncoder,
  binaryRowEncoder,
  bitSetWidthInBytes,
  fixedPartSizeInBytes,
  isCompactDecimal,
  isCompactTimestamp,
  unscaledToBytes,
} from './binary-row-writer.ts';

/** The arity-prefixed empty row (arity 0): 4-byte arity + 8-byte header. */
export const EMPTY_ROW: Uint8Array = new Uint8Array(12);

const utf8Decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

function invalidRow(message: string, context: Record<string, number> = {}): Error {
  return errorFrom(tableErrors, 'BINARY_ROW_INVALID', message, context);
}

// ---------------------------------------------------------------------------------------------
// Encoding (binary-row-writer.ts does the work)
// ---------------------------------------------------------------------------------------------

/**
 * The raw row bytes (no arity prefix) of `values` typed by `types`, byte for byte as Java's
 * BinaryRowWriter writes them. `rowKind` is the header byte (0 = +I).
 */
export function encodeBinaryRow(values: InternalRow, types: readonly DataType[], rowKind = 0): Uint8Array {
  return binaryRowEncoder(types).encode(values, rowKind);
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
  return toArityPrefixed(binaryRowEncoder(types).write(values), types.length);
}

// ---------------------------------------------------------------------------------------------
// Decoding
// ---------------------------------------------------------------------------------------------

/** The arity of an arity-prefixed row (4 bytes, big-endian), checked: ≥ 0, and room for a row. */
function prefixedArity(bytes: Uint8Array): number {
  if (bytes.length < 12) throw invalidRow(`arity-prefixed row of ${bytes.length} bytes is shorter than 12`, { length: bytes.length });
  const arity = ((bytes[0] as number) << 24) | ((bytes[1] as number) << 16) | ((bytes[2] as number) << 8) | (bytes[3] as number);
  if (arity < 0) throw invalidRow(`negative arity ${arity}`, { arity });
  return arity;
}

/** SerializationUtils.deserializeBinaryRow, checked against the expected types. */
export function decodeBinaryRow(bytes: Uint8Array, types: readonly DataType[]): InternalValue[] {
  const arity = prefixedArity(bytes);
  if (arity !== types.length) throw invalidRow(`row has arity ${arity}, expected ${types.length}`, { arity, expected: types.length });
  return decodeRowBytes(bytes.subarray(4), types);
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

/** The last partition keyed, and its key: most calls in a row (a commit's entries) name one partition. */
let lastPartition = new Uint8Array(0);
let lastPartitionKey = '';

/** A partition's arity-prefixed BinaryRow bytes as a map key (hex): equal bytes, equal key. */
export function partitionKey(partition: Uint8Array): string {
  const n = partition.length;
  if (n === lastPartition.length) {
    let i = 0;
    while (i < n && partition[i] === lastPartition[i]) i++;
    if (i === n) return lastPartitionKey;
  }
  const key = Buffer.from(partition.buffer, partition.byteOffset, partition.byteLength).toString('hex');
  // A copy: the caller's bytes may change after this returns.
  lastPartition = partition.slice();
  lastPartitionKey = key;
  return key;
}

/** A (partition, bucket) as a map key. */
export function bucketKey(partition: Uint8Array, bucket: number): string {
  return `${partitionKey(partition)}/${bucket}`;
}
