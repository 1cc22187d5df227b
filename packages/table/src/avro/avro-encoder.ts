/**
 * Encoding of Avro's binary encoding (zig-zag varints, length-prefixed bytes and strings, blocked
 * arrays and maps) against a compiled `AvroNode`. Pure: values in, bytes out.
 */

import { errorFrom } from '@tributary/errors';
import { tableErrors } from '../errors.ts';
import { EncodedDatum, isRecord, type AvroNode, type AvroValue } from './avro.ts';

const utf8Encoder = new TextEncoder();
/** |v| below 2^51: the zig-zag value 2|v| stays below 2^53. */
const SAFE_LONG_NUMBER = 2 ** 51;

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
    // |value| < 2^51 exactly when |Number(value)| < 2^51 (2^51 is a double, and rounding keeps order).
    const v = Number(value);
    if (v > -SAFE_LONG_NUMBER && v < SAFE_LONG_NUMBER) {
      this.writeSafeLong(v);
      return;
    }
    let n = BigInt.asUintN(64, (value << 1n) ^ (value >> 63n));
    while (n >= 0x80n) {
      this.byte(Number(n & 0x7fn) | 0x80);
      n >>= 7n;
    }
    this.byte(Number(n));
  }

  /**
   * A long given as an integer of magnitude below 2^51, without BigInt arithmetic: its zig-zag
   * value fits a double exactly.
   */
  writeSafeLong(v: number): void {
    let z = v >= 0 ? v * 2 : -v * 2 - 1;
    this.ensure(8);
    const buf = this.buf;
    let at = this.length;
    while (z >= 128) {
      buf[at++] = (z % 128) | 0x80;
      z = Math.floor(z / 128);
    }
    buf[at++] = z;
    this.length = at;
  }

  writeInt(value: number): void {
    let n = ((value << 1) ^ (value >> 31)) >>> 0;
    while (n >= 0x80) {
      this.byte((n & 0x7f) | 0x80);
      n >>>= 7;
    }
    this.byte(n);
  }

  /** A count or length: a non-negative safe integer, written as a long without BigInt arithmetic. */
  writeLength(n: number): void {
    let z = n * 2;
    this.ensure(10);
    while (z >= 128) {
      this.buf[this.length++] = (z % 128) | 0x80;
      z = Math.floor(z / 128);
    }
    this.buf[this.length++] = z;
  }

  writeBoolean(value: boolean): void {
    this.byte(value ? 1 : 0);
  }

  writeFixed(bytes: Uint8Array): void {
    const n = bytes.length;
    this.ensure(n);
    if (n <= 32) {
      // Short keys and stats (most of a manifest): a loop beats TypedArray.prototype.set's setup.
      const buf = this.buf;
      const at = this.length;
      for (let i = 0; i < n; i++) buf[at + i] = bytes[i] as number;
    } else {
      this.buf.set(bytes, this.length);
    }
    this.length += n;
  }

  writeBytes(bytes: Uint8Array): void {
    this.writeLength(bytes.length);
    this.writeFixed(bytes);
  }

  /**
   * UTF-8 straight into the buffer behind a one-byte length guess; longer strings (64+ bytes)
   * are shifted once to make room for their longer length varint.
   */
  writeString(value: string): void {
    const n = value.length;
    this.ensure(n * 3 + 10);
    const start = this.length;
    if (n < 64) {
      // Short ASCII (file names, most map keys): copied char by char, no encoder call.
      const buf = this.buf;
      let i = 0;
      for (; i < n; i++) {
        const c = value.charCodeAt(i);
        if (c >= 0x80) break;
        buf[start + 1 + i] = c;
      }
      if (i === n) {
        buf[start] = n * 2;
        this.length = start + 1 + n;
        return;
      }
    }
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

/** A value that does not fit its schema, on its way up to `writeDatum`, which names where (`path`). */
class Refused {
  path = '';
  readonly expected: string;
  readonly value: unknown;
  constructor(expected: string, value: unknown) {
    this.expected = expected;
    this.value = value;
  }
}

function badValue(path: string, expected: string, value: unknown): Error {
  const got = value === null ? 'null' : typeof value;
  return errorFrom(tableErrors, 'AVRO_VALUE_INVALID', `${path}: expected ${expected}, got ${got}`, { path });
}

/**
 * Encodes one datum with `node`. Unions are written by the first branch the value fits, checked
 * in order, so `["null", T]` writes index 0 for null and 1 otherwise (Paimon's readers require
 * null to be branch 0). A value that does not fit is refused with AVRO_VALUE_INVALID naming
 * where it is under `path` (e.g. `$._FILE._KEY_STATS`).
 */
export function writeDatum(writer: AvroWriter, node: AvroNode, value: AvroValue, path = '$'): void {
  try {
    datumWriter(node)(writer, value);
  } catch (e) {
    if (e instanceof Refused) throw badValue(`${path}${e.path}`, e.expected, e.value);
    throw e;
  }
}

/**
 * Encodes record datums with `node` ahead of the file they go into: each as an EncodedDatum (views
 * of one buffer), which writeDatum copies where `node` is expected. Refuses a value as writeDatum would.
 */
export function encodeDatums(node: AvroNode, values: readonly AvroValue[]): EncodedDatum[] {
  if (node.kind !== 'record') throw new Error('only record datums are encoded ahead');
  const writer = new AvroWriter();
  const ends: number[] = [];
  for (const value of values) {
    writeDatum(writer, node, value);
    ends.push(writer.length);
  }
  const bytes = writer.bytes().slice();
  let start = 0;
  return ends.map((end) => {
    const datum = new EncodedDatum(node, bytes.subarray(start, end));
    start = end;
    return datum;
  });
}

/** Writes one datum; throws `Refused` (internal) for a value that does not fit. */
type DatumWriter = (writer: AvroWriter, value: AvroValue) => void;

const writers = new WeakMap<AvroNode, DatumWriter>();

/**
 * An encoder for `node`, built once as a tree of closures (no per-value dispatch on the schema and
 * no path strings unless a value is refused), cached per node. Recursive schemas resolve through a
 * trampoline registered before the build, as `datumReader` does.
 */
function datumWriter(node: AvroNode): DatumWriter {
  const cached = writers.get(node);
  if (cached !== undefined) return cached;
  let built: DatumWriter | undefined;
  writers.set(node, (w, v) => (built as DatumWriter)(w, v));
  built = buildWriter(node);
  writers.set(node, built);
  return built;
}

function buildWriter(node: AvroNode): DatumWriter {
  switch (node.kind) {
    case 'null':
      return (_w, v) => {
        if (v !== null) throw new Refused('null', v);
      };
    case 'boolean':
      return (w, v) => {
        if (typeof v !== 'boolean') throw new Refused('boolean', v);
        w.writeBoolean(v);
      };
    case 'int':
      return (w, v) => {
        if (typeof v !== 'number' || !Number.isInteger(v) || v < -(2 ** 31) || v >= 2 ** 31) throw new Refused('a 32-bit integer', v);
        w.writeInt(v);
      };
    case 'long':
      return (w, v) => {
        if (typeof v !== 'bigint') throw new Refused('a 64-bit bigint', v);
        const n = Number(v);
        if (n > -SAFE_LONG_NUMBER && n < SAFE_LONG_NUMBER) {
          w.writeSafeLong(n); // within 64 bits, no BigInt arithmetic
          return;
        }
        if (BigInt.asIntN(64, v) !== v) throw new Refused('a 64-bit bigint', v);
        w.writeLong(v);
      };
    case 'float':
      return (w, v) => {
        if (typeof v !== 'number') throw new Refused('number', v);
        w.writeFloat(v);
      };
    case 'double':
      return (w, v) => {
        if (typeof v !== 'number') throw new Refused('number', v);
        w.writeDouble(v);
      };
    case 'bytes':
      return (w, v) => {
        if (!(v instanceof Uint8Array)) throw new Refused('Uint8Array', v);
        w.writeBytes(v);
      };
    case 'fixed': {
      const size = node.size;
      return (w, v) => {
        if (!(v instanceof Uint8Array)) throw new Refused('Uint8Array', v);
        if (v.length !== size) throw new Refused(`${size} bytes`, v);
        w.writeFixed(v);
      };
    }
    case 'string':
      return (w, v) => {
        if (typeof v !== 'string') throw new Refused('string', v);
        w.writeString(v);
      };
    case 'enum': {
      const symbols = node.symbols;
      return (w, v) => {
        const index = typeof v === 'string' ? symbols.indexOf(v) : -1;
        if (index < 0) throw new Refused(`one of ${symbols.join(', ')}`, v);
        w.writeInt(index);
      };
    }
    case 'union':
      return unionWriter(node.branches);
    case 'array': {
      const item = datumWriter(node.items);
      return (w, v) => {
        if (!Array.isArray(v)) throw new Refused('array', v);
        const items = v as readonly AvroValue[];
        if (items.length > 0) {
          w.writeLength(items.length);
          let i = 0;
          try {
            for (; i < items.length; i++) item(w, items[i] as AvroValue);
          } catch (e) {
            throw under(e, `[${i}]`);
          }
        }
        w.writeLength(0);
      };
    }
    case 'map': {
      const value = datumWriter(node.values);
      return (w, v) => {
        if (!(v instanceof Map)) throw new Refused('Map', v);
        const map = v as ReadonlyMap<string, AvroValue>;
        if (map.size > 0) {
          w.writeLength(map.size);
          for (const [k, item] of map) {
            w.writeString(k);
            try {
              value(w, item);
            } catch (e) {
              throw under(e, `.${k}`);
            }
          }
        }
        w.writeLength(0);
      };
    }
    case 'record': {
      const names = node.fields.map((f) => f.name);
      const fields = node.fields.map((f) => datumWriter(f.node));
      return (w, v) => {
        if (v instanceof EncodedDatum) {
          if (v.node !== node) throw new Refused('a datum encoded with this record schema', v);
          w.writeFixed(v.bytes);
          return;
        }
        if (!isRecord(v)) throw new Refused('record', v);
        let i = 0;
        try {
          for (; i < fields.length; i++) (fields[i] as DatumWriter)(w, v[names[i] as string] ?? null);
        } catch (e) {
          throw under(e, `.${names[i] ?? ''}`);
        }
      };
    }
  }
}

/** `e` with `segment` put in front of its path, if it is a refusal. */
function under(e: unknown, segment: string): unknown {
  if (e instanceof Refused) e.path = `${segment}${e.path}`;
  return e;
}

/** A union: the first branch the value fits, checked in order (`["null", T]` without a search). */
function unionWriter(branches: readonly AvroNode[]): DatumWriter {
  const writers = branches.map(datumWriter);
  const [first, second] = branches;
  const secondWriter = writers[1];
  if (branches.length === 2 && first?.kind === 'null' && second !== undefined && secondWriter !== undefined) {
    return (w, v) => {
      if (v === null) {
        w.writeInt(0);
        return;
      }
      if (!fits(second, v)) throw new Refused('a value of one of the union branches', v);
      w.writeInt(1);
      secondWriter(w, v);
    };
  }
  return (w, v) => {
    const index = branches.findIndex((b) => fits(b, v));
    const branch = writers[index];
    if (branch === undefined) throw new Refused('a value of one of the union branches', v);
    w.writeInt(index);
    branch(w, v);
  };
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
    case 'record': return isRecord(value) || (value instanceof EncodedDatum && value.node === node);
    case 'union': return node.branches.some((b) => fits(b, value));
  }
}
