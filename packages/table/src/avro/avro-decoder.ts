/**
 * Decoding of Avro's binary encoding (zig-zag varints, length-prefixed bytes and strings, blocked
 * arrays and maps) against a compiled `AvroNode`. Pure: bytes in, values out.
 */

import { errorFrom } from '@tributary/errors';
import { tableErrors } from '../errors.ts';
import type { AvroNode, AvroValue } from './avro.ts';

// ignoreBOM: a string that starts with U+FEFF keeps it (the default decoder drops a leading one).
const utf8Decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const MAX_UINT64 = (1n << 64n) - 1n;

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
