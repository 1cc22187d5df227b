/**
 * Encoding of Avro's binary encoding (zig-zag varints, length-prefixed bytes and strings, blocked
 * arrays and maps) against a compiled `AvroNode`. Pure: values in, bytes out.
 */

import { errorFrom } from '@tributary/errors';
import { tableErrors } from '../errors.ts';
import { isRecord, type AvroNode, type AvroValue } from './avro.ts';

const utf8Encoder = new TextEncoder();
/** |v| below 2^51: the zig-zag value 2|v| stays below 2^53. */
const SAFE_LONG = 1n << 51n;

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
