/**
 * Avro's binary encoding (zig-zag varints, length-prefixed bytes and strings, blocked arrays and
 * maps), read and written against a compiled `AvroNode`. Pure: bytes in, values out.
 */

import { errorFrom } from '@tributary/protocol';
import { tableErrors } from '../errors.ts';
import type { AvroNode, AvroRecord, AvroValue } from './avro.ts';

const utf8Decoder = new TextDecoder('utf-8', { fatal: true });
const utf8Encoder = new TextEncoder();
const MAX_UINT64 = (1n << 64n) - 1n;
/** |v| below 2^51: the zig-zag value 2|v| stays below 2^53. */
const SAFE_LONG = 1n << 51n;

function corrupt(message: string, offset: number): Error {
  return errorFrom(tableErrors, 'AVRO_CORRUPT', message, { offset });
}

/** A cursor over Avro-encoded bytes. */
export class AvroReader {
  readonly bytes: Uint8Array;
  offset: number;
  private readonly view: DataView;

  constructor(bytes: Uint8Array, offset = 0) {
    // A plain Uint8Array view, so that slices handed out are never Node Buffers.
    this.bytes = new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.offset = offset;
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  get remaining(): number {
    return this.bytes.length - this.offset;
  }

  readLong(): bigint {
    // Fast path: up to 7 bytes (49 bits) accumulate exactly in a double; one BigInt at the end.
    let low = 0;
    let scale = 1;
    for (let i = 0; i < 7; i++) {
      if (this.offset >= this.bytes.length) throw corrupt('truncated varint', this.offset);
      const b = this.bytes[this.offset++] as number;
      low += (b & 0x7f) * scale;
      if ((b & 0x80) === 0) return low % 2 === 0 ? BigInt(low / 2) : -BigInt((low + 1) / 2);
      scale *= 128;
    }
    return this.readLongTail(BigInt(low));
  }

  /** The rest of a varint longer than 7 bytes, with BigInt arithmetic. */
  private readLongTail(low: bigint): bigint {
    let result = low;
    let shift = 49n;
    for (;;) {
      if (this.offset >= this.bytes.length) throw corrupt('truncated varint', this.offset);
      const b = this.bytes[this.offset++] as number;
      result |= BigInt(b & 0x7f) << shift;
      if ((b & 0x80) === 0) break;
      shift += 7n;
      if (shift > 63n) throw corrupt('varint longer than 10 bytes', this.offset);
    }
    result &= MAX_UINT64;
    return (result >> 1n) ^ -(result & 1n);
  }

  readInt(): number {
    let result = 0;
    let shift = 0;
    for (;;) {
      if (this.offset >= this.bytes.length) throw corrupt('truncated varint', this.offset);
      const b = this.bytes[this.offset++] as number;
      result += (b & 0x7f) * 2 ** shift;
      if ((b & 0x80) === 0) break;
      shift += 7;
      if (shift > 28) throw corrupt('int varint longer than 5 bytes', this.offset);
    }
    const half = Math.floor(result / 2);
    return result % 2 === 0 ? half : -half - 1;
  }

  /** A count or length: a long that must be a safe, non-negative JS number. */
  readLength(): number {
    const n = this.readLong();
    if (n < 0n || n > BigInt(this.remaining)) throw corrupt(`invalid length ${n}`, this.offset);
    return Number(n);
  }

  readFixed(size: number): Uint8Array {
    if (size > this.remaining) throw corrupt(`truncated: need ${size} bytes`, this.offset);
    const out = this.bytes.subarray(this.offset, this.offset + size);
    this.offset += size;
    return out;
  }

  /** A view into the input (no copy: small typed-array allocations dominate decoding otherwise). */
  readBytes(): Uint8Array {
    return this.readFixed(this.readLength());
  }

  readString(): string {
    const raw = this.readFixed(this.readLength());
    try {
      return utf8Decoder.decode(raw);
    } catch (cause) {
      throw errorFrom(tableErrors, 'AVRO_CORRUPT', 'string is not valid UTF-8', { offset: this.offset }, { cause });
    }
  }

  readFloat(): number {
    const at = this.offset;
    this.readFixed(4);
    return this.view.getFloat32(at, true);
  }

  readDouble(): number {
    const at = this.offset;
    this.readFixed(8);
    return this.view.getFloat64(at, true);
  }

  /** Reads the item count of the next block of an array or map (0 ends it). */
  readBlockCount(): number {
    const n = this.readLong();
    if (n >= 0n) {
      if (n > BigInt(this.remaining)) throw corrupt(`invalid block count ${n}`, this.offset);
      return Number(n);
    }
    this.readLong(); // byte size of the block, only useful for skipping
    if (-n > BigInt(this.remaining)) throw corrupt(`invalid block count ${n}`, this.offset);
    return Number(-n);
  }
}

/** Decodes one datum written with `node`. */
export function readDatum(reader: AvroReader, node: AvroNode): AvroValue {
  return datumReader(node)(reader);
}

export type DatumReader = (reader: AvroReader) => AvroValue;

const readers = new WeakMap<AvroNode, DatumReader>();

/**
 * A decoder for `node`, built once as a tree of closures (no per-value dispatch on the schema),
 * cached per node. Recursive schemas resolve through a trampoline registered before the build.
 */
export function datumReader(node: AvroNode): DatumReader {
  const cached = readers.get(node);
  if (cached !== undefined) return cached;
  let built: DatumReader | undefined;
  readers.set(node, (reader) => (built as DatumReader)(reader));
  built = buildReader(node);
  readers.set(node, built);
  return built;
}

function buildReader(node: AvroNode): DatumReader {
  switch (node.kind) {
    case 'null': return () => null;
    case 'boolean': return (r) => r.readFixed(1)[0] !== 0;
    case 'int': return (r) => r.readInt();
    case 'long': return (r) => r.readLong();
    case 'float': return (r) => r.readFloat();
    case 'double': return (r) => r.readDouble();
    case 'bytes': return (r) => r.readBytes();
    case 'string': return (r) => r.readString();
    case 'fixed': return (r) => r.readFixed(node.size);
    case 'enum':
      return (r) => {
        const symbol = node.symbols[r.readInt()];
        if (symbol === undefined) throw corrupt('enum index out of range', r.offset);
        return symbol;
      };
    case 'union': return unionReader(node.branches.map(datumReader));
    case 'array': {
      const item = datumReader(node.items);
      return (r) => {
        const out: AvroValue[] = [];
        for (let n = r.readBlockCount(); n > 0; n = r.readBlockCount()) {
          for (let i = 0; i < n; i++) out.push(item(r));
        }
        return out;
      };
    }
    case 'map': {
      const value = datumReader(node.values);
      return (r) => {
        const out = new Map<string, AvroValue>();
        for (let n = r.readBlockCount(); n > 0; n = r.readBlockCount()) {
          for (let i = 0; i < n; i++) out.set(r.readString(), value(r));
        }
        return out;
      };
    }
    case 'record': return recordReader(node.fields);
  }
}

function unionReader(branches: readonly DatumReader[]): DatumReader {
  const [first, second] = branches;
  if (branches.length === 2 && first !== undefined && second !== undefined) {
    return (r) => {
      const index = r.readInt();
      if (index === 0) return first(r);
      if (index === 1) return second(r);
      throw corrupt('union index out of range', r.offset);
    };
  }
  return (r) => {
    const branch = branches[r.readInt()];
    if (branch === undefined) throw corrupt('union index out of range', r.offset);
    return branch(r);
  };
}

function recordReader(fields: readonly { readonly name: string; readonly node: AvroNode }[]): DatumReader {
  const names = fields.map((f) => f.name);
  const fieldReaders = fields.map((f) => datumReader(f.node));
  // A field named "__proto__" (a valid Avro name) must not replace the prototype.
  const safe = !names.includes('__proto__');
  return (r) => {
    const out: Record<string, AvroValue> = {};
    for (let i = 0; i < names.length; i++) {
      const value = (fieldReaders[i] as DatumReader)(r);
      if (safe) out[names[i] as string] = value;
      else Object.defineProperty(out, names[i] as string, { value, enumerable: true, writable: true });
    }
    return out;
  };
}

/** A growable output buffer with Avro's primitive encodings. */
export class AvroWriter {
  private buf = new Uint8Array(4096);
  private view = new DataView(this.buf.buffer);
  length = 0;

  private ensure(extra: number): void {
    if (this.length + extra <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.length + extra) size *= 2;
    const next = new Uint8Array(size);
    next.set(this.buf.subarray(0, this.length));
    this.buf = next;
    this.view = new DataView(next.buffer);
  }

  private byte(b: number): void {
    this.ensure(1);
    this.buf[this.length++] = b;
  }

  writeLong(value: bigint): void {
    if (value > -SAFE_LONG && value < SAFE_LONG) {
      // Fast path without BigInt arithmetic: the zig-zag value fits a double exactly.
      const v = Number(value);
      let z = v >= 0 ? v * 2 : -v * 2 - 1;
      while (z >= 128) {
        this.byte((z % 128) | 0x80);
        z = Math.floor(z / 128);
      }
      this.byte(z);
      return;
    }
    let n = BigInt.asUintN(64, (value << 1n) ^ (value >> 63n));
    while (n >= 0x80n) {
      this.byte(Number(n & 0x7fn) | 0x80);
      n >>= 7n;
    }
    this.byte(Number(n));
  }

  writeInt(value: number): void {
    let n = ((value << 1) ^ (value >> 31)) >>> 0;
    while (n >= 0x80) {
      this.byte((n & 0x7f) | 0x80);
      n >>>= 7;
    }
    this.byte(n);
  }

  writeFixed(bytes: Uint8Array): void {
    this.ensure(bytes.length);
    this.buf.set(bytes, this.length);
    this.length += bytes.length;
  }

  writeBytes(bytes: Uint8Array): void {
    this.writeLong(BigInt(bytes.length));
    this.writeFixed(bytes);
  }

  /**
   * UTF-8 straight into the buffer behind a one-byte length guess; longer strings (64+ bytes)
   * are shifted once to make room for their longer length varint.
   */
  writeString(value: string): void {
    this.ensure(value.length * 3 + 10);
    const start = this.length;
    const { written } = utf8Encoder.encodeInto(value, this.buf.subarray(start + 1));
    if (written < 64) {
      this.buf[start] = written * 2;
      this.length = start + 1 + written;
      return;
    }
    let headerSize = 1;
    while (written * 2 >= 128 ** headerSize) headerSize++;
    this.buf.copyWithin(start + headerSize, start + 1, start + 1 + written);
    let z = written * 2;
    let at = start;
    while (z >= 128) {
      this.buf[at++] = (z % 128) | 0x80;
      z = Math.floor(z / 128);
    }
    this.buf[at] = z;
    this.length = start + headerSize + written;
  }

  writeFloat(value: number): void {
    this.ensure(4);
    this.view.setFloat32(this.length, value, true);
    this.length += 4;
  }

  writeDouble(value: number): void {
    this.ensure(8);
    this.view.setFloat64(this.length, value, true);
    this.length += 8;
  }

  /** The bytes written so far (a view: copy before writing more if you keep it). */
  bytes(): Uint8Array {
    return this.buf.subarray(0, this.length);
  }

  reset(): void {
    this.length = 0;
  }
}

function badValue(path: string, expected: string, value: unknown): Error {
  const got = value === null ? 'null' : typeof value;
  return errorFrom(tableErrors, 'AVRO_VALUE_INVALID', `${path}: expected ${expected}, got ${got}`, { path });
}

/**
 * Encodes one datum with `node`. Unions are written by the first branch the value fits, checked
 * in order, so `["null", T]` writes index 0 for null and 1 otherwise (Paimon's readers require
 * null to be branch 0).
 */
export function writeDatum(writer: AvroWriter, node: AvroNode, value: AvroValue, path = '$'): void {
  switch (node.kind) {
    case 'null':
      if (value !== null) throw badValue(path, 'null', value);
      return;
    case 'boolean':
      if (typeof value !== 'boolean') throw badValue(path, 'boolean', value);
      writer.writeFixed(Uint8Array.of(value ? 1 : 0));
      return;
    case 'int':
      if (typeof value !== 'number' || !Number.isInteger(value) || value < -(2 ** 31) || value >= 2 ** 31) {
        throw badValue(path, 'a 32-bit integer', value);
      }
      writer.writeInt(value);
      return;
    case 'long':
      if (typeof value !== 'bigint' || BigInt.asIntN(64, value) !== value) throw badValue(path, 'a 64-bit bigint', value);
      writer.writeLong(value);
      return;
    case 'float':
    case 'double':
      if (typeof value !== 'number') throw badValue(path, 'number', value);
      if (node.kind === 'float') writer.writeFloat(value);
      else writer.writeDouble(value);
      return;
    case 'bytes':
    case 'fixed':
      if (!(value instanceof Uint8Array)) throw badValue(path, 'Uint8Array', value);
      if (node.kind === 'fixed' && value.length !== node.size) throw badValue(path, `${node.size} bytes`, value);
      if (node.kind === 'bytes') writer.writeBytes(value);
      else writer.writeFixed(value);
      return;
    case 'string':
      if (typeof value !== 'string') throw badValue(path, 'string', value);
      writer.writeString(value);
      return;
    default:
      writeComplex(writer, node, value, path);
  }
}

function writeComplex(writer: AvroWriter, node: AvroNode, value: AvroValue, path: string): void {
  switch (node.kind) {
    case 'enum': {
      const index = typeof value === 'string' ? node.symbols.indexOf(value) : -1;
      if (index < 0) throw badValue(path, `one of ${node.symbols.join(', ')}`, value);
      writer.writeInt(index);
      return;
    }
    case 'union': {
      const index = node.branches.findIndex((b) => fits(b, value));
      const branch = node.branches[index];
      if (branch === undefined) throw badValue(path, 'a value of one of the union branches', value);
      writer.writeInt(index);
      writeDatum(writer, branch, value, path);
      return;
    }
    case 'array':
      if (!Array.isArray(value)) throw badValue(path, 'array', value);
      if (value.length > 0) {
        writer.writeLong(BigInt(value.length));
        value.forEach((item: AvroValue, i) => writeDatum(writer, node.items, item, `${path}[${i}]`));
      }
      writer.writeLong(0n);
      return;
    case 'map':
      if (!(value instanceof Map)) throw badValue(path, 'Map', value);
      if (value.size > 0) {
        writer.writeLong(BigInt(value.size));
        for (const [k, v] of value) {
          writer.writeString(k);
          writeDatum(writer, node.values, v, `${path}.${k}`);
        }
      }
      writer.writeLong(0n);
      return;
    case 'record':
      if (!isRecord(value)) throw badValue(path, 'record', value);
      for (const field of node.fields) writeDatum(writer, field.node, value[field.name] ?? null, `${path}.${field.name}`);
      return;
    default:
      throw badValue(path, node.kind, value);
  }
}

export function isRecord(value: AvroValue | undefined): value is AvroRecord {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    && !(value instanceof Uint8Array) && !(value instanceof Map);
}

/** Whether `value` has the JS shape of `node` (shallow; used to pick a union branch). */
function fits(node: AvroNode, value: AvroValue): boolean {
  switch (node.kind) {
    case 'null': return value === null;
    case 'boolean': return typeof value === 'boolean';
    case 'int': case 'float': case 'double': return typeof value === 'number';
    case 'long': return typeof value === 'bigint';
    case 'bytes': case 'fixed': return value instanceof Uint8Array;
    case 'string': case 'enum': return typeof value === 'string';
    case 'array': return Array.isArray(value);
    case 'map': return value instanceof Map;
    case 'record': return isRecord(value);
    case 'union': return node.branches.some((b) => fits(b, value));
  }
}
