/**
 * Apache Thrift's TCompactProtocol, write side only, for Parquet's footer and page headers
 * (parquet.thrift, as parquet-mr's org.apache.parquet.format classes serialise them).
 *
 * A struct is written from a list of fields with explicit thrift types, so each field goes out as
 * the IDL declares it (an i8 stays an i8: readers that generate code from parquet.thrift reject a
 * field whose wire type differs from the IDL).
 */

export type ThriftValue =
  | { readonly t: 'bool'; readonly v: boolean }
  | { readonly t: 'i8'; readonly v: number }
  | { readonly t: 'i16' | 'i32'; readonly v: number }
  | { readonly t: 'i64'; readonly v: bigint | number }
  | { readonly t: 'binary'; readonly v: string | Uint8Array }
  | { readonly t: 'struct'; readonly v: ThriftStruct }
  | { readonly t: 'list'; readonly elem: 'i32' | 'binary' | 'struct'; readonly v: readonly (number | string | ThriftStruct)[] };

/** Fields by id; undefined fields are omitted (thrift optional). */
export type ThriftStruct = ReadonlyArray<readonly [id: number, value: ThriftValue | undefined]>;

const TYPE = { bool_true: 1, bool_false: 2, i8: 3, i16: 4, i32: 5, i64: 6, binary: 8, list: 9, struct: 12 } as const;

const encoder = new TextEncoder();

/** A growable byte buffer. */
class ByteSink {
  #buf = new Uint8Array(1024);
  #len = 0;

  get length(): number {
    return this.#len;
  }

  #reserve(n: number): void {
    if (this.#len + n <= this.#buf.length) return;
    const next = new Uint8Array(Math.max(this.#buf.length * 2, this.#len + n));
    next.set(this.#buf.subarray(0, this.#len));
    this.#buf = next;
  }

  byte(b: number): void {
    this.#reserve(1);
    this.#buf[this.#len++] = b & 0xff;
  }

  bytes(b: Uint8Array): void {
    this.#reserve(b.length);
    this.#buf.set(b, this.#len);
    this.#len += b.length;
  }

  /** Unsigned LEB128 of a non-negative integer below 2^53. */
  varint(n: number): void {
    while (n >= 0x80) {
      this.byte((n % 0x80) | 0x80);
      n = Math.floor(n / 0x80);
    }
    this.byte(n);
  }

  varbigint(n: bigint): void {
    while (n >= 0x80n) {
      this.byte(Number(n & 0x7fn) | 0x80);
      n >>= 7n;
    }
    this.byte(Number(n));
  }

  uint32le(n: number): void {
    this.#reserve(4);
    new DataView(this.#buf.buffer).setUint32(this.#len, n, true);
    this.#len += 4;
  }

  result(): Uint8Array {
    return this.#buf.subarray(0, this.#len);
  }
}

function zigzag32(n: number): number {
  return ((n << 1) ^ (n >> 31)) >>> 0;
}

function zigzag64(n: bigint): bigint {
  return BigInt.asUintN(64, (n << 1n) ^ (n >> 63n));
}

function writeValue(out: ByteSink, value: ThriftValue): void {
  switch (value.t) {
    case 'bool':
      out.byte(value.v ? TYPE.bool_true : TYPE.bool_false);
      return;
    case 'i8':
      out.byte(value.v);
      return;
    case 'i16':
    case 'i32':
      out.varint(zigzag32(value.v));
      return;
    case 'i64':
      out.varbigint(zigzag64(BigInt(value.v)));
      return;
    case 'binary': {
      const bytes = typeof value.v === 'string' ? encoder.encode(value.v) : value.v;
      out.varint(bytes.length);
      out.bytes(bytes);
      return;
    }
    case 'struct':
      writeStruct(out, value.v);
      return;
    case 'list': {
      const n = value.v.length;
      const elem = TYPE[value.elem];
      if (n < 15) out.byte((n << 4) | elem);
      else {
        out.byte(0xf0 | elem);
        out.varint(n);
      }
      for (const item of value.v) {
        if (value.elem === 'i32') writeValue(out, { t: 'i32', v: item as number });
        else if (value.elem === 'binary') writeValue(out, { t: 'binary', v: item as string });
        else writeStruct(out, item as ThriftStruct);
      }
      return;
    }
  }
}

function typeNibble(value: ThriftValue): number {
  if (value.t === 'bool') return value.v ? TYPE.bool_true : TYPE.bool_false;
  return TYPE[value.t];
}

/** Writes a struct: field headers with id deltas (ascending ids), values, then STOP. */
function writeStruct(out: ByteSink, struct: ThriftStruct): void {
  let last = 0;
  for (const [id, value] of struct) {
    if (value === undefined) continue;
    const delta = id - last;
    const nibble = typeNibble(value);
    if (delta > 0 && delta <= 15) out.byte((delta << 4) | nibble);
    else {
      out.byte(nibble);
      out.varint(zigzag32(id));
    }
    if (value.t !== 'bool') writeValue(out, value);
    last = id;
  }
  out.byte(0);
}

export function serializeStruct(struct: ThriftStruct): Uint8Array {
  const out = new ByteSink();
  writeStruct(out, struct);
  return out.result();
}

// Small constructors that keep struct literals readable.
export const i8 = (v: number): ThriftValue => ({ t: 'i8', v });
export const i16 = (v: number): ThriftValue => ({ t: 'i16', v });
export const i32 = (v: number): ThriftValue => ({ t: 'i32', v });
export const i64 = (v: bigint | number): ThriftValue => ({ t: 'i64', v });
export const bool = (v: boolean): ThriftValue => ({ t: 'bool', v });
export const str = (v: string): ThriftValue => ({ t: 'binary', v });
export const struct = (v: ThriftStruct): ThriftValue => ({ t: 'struct', v });
export const list = (elem: 'i32' | 'binary' | 'struct', v: readonly (number | string | ThriftStruct)[]): ThriftValue => ({ t: 'list', elem, v });
export const opt = <T>(v: T | undefined, f: (x: T) => ThriftValue): ThriftValue | undefined => (v === undefined ? undefined : f(v));
