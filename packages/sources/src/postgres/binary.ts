/**
 * PostgreSQL's binary COPY format, framed and decoded exactly (pure: bytes in, cells or rows out). The stream is a
 * signature and header, then one tuple per row (a 16-bit field count, then per field a 32-bit
 * length, -1 for NULL, and the value in its type's binary send format), then a -1 trailer.
 *
 * Values are taken from their binary forms, so nothing passes through text or a JS float:
 * int8 is a bigint; float4/float8 their IEEE bits (NaN, infinities and -0 included); numeric
 * its base-10000 digits written out as exact decimal text (`NaN`, `Infinity`, `-Infinity` as such);
 * date, time and timestamps their integer days or microseconds from 2000-01-01, made exact
 * `Timestamp`s (timestamptz is UTC on the wire, whatever the session's time zone). Values no table
 * type can hold (infinite dates and timestamps, microseconds of a time) become values the converter
 * refuses for their column, so such a row fails its shard rather than loading something else.
 */
import type { Timestamp } from '@tributary/table';
import type { SourceValue } from '../source.ts';

const SIGNATURE = Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1');

/** Seconds between 1970-01-01 and PostgreSQL's epoch, 2000-01-01. */
export const PG_EPOCH_DAYS = 10_957;
export const PG_EPOCH_MILLIS = PG_EPOCH_DAYS * 86_400_000;
const DAY_MS = 86_400_000;

export type Decode = (bytes: Buffer, start: number, end: number) => SourceValue;

// ignoreBOM: a value that starts with U+FEFF keeps it (the default decoder drops a leading one).
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * A value of text, varchar, bpchar, json and enums: strict UTF-8 (the session's client encoding);
 * ASCII, the common case, is read without the decoder (the same string).
 */
export const text: Decode = (b, s, e) => {
  for (let i = s; i < e; i++) if ((b[i] as number) >= 0x80) return utf8.decode(b.subarray(s, e));
  return b.toString('latin1', s, e);
};

/** The decoder of a type by its pg_type.typname (an enum is `text`); undefined when not supported. */
export function binaryDecoder(typeName: string): Decode | undefined {
  switch (typeName) {
    case 'bool':
      return (b, s) => b[s] === 1;
    case 'int2':
      return (b, s) => b.readInt16BE(s);
    case 'int4':
      return (b, s) => b.readInt32BE(s);
    case 'int8':
      return (b, s) => b.readBigInt64BE(s);
    case 'float4':
      return (b, s) => b.readFloatBE(s);
    case 'float8':
      return (b, s) => b.readDoubleBE(s);
    case 'numeric':
      return numericText;
    case 'text':
    case 'varchar':
    case 'bpchar':
    case 'json':
    case 'enum':
      return text;
    case 'jsonb':
      // A version byte (1), then the text.
      return (b, s, e) => {
        if (b[s] !== 1) throw new RangeError(`jsonb binary version ${b[s]} is not supported`);
        return utf8.decode(b.subarray(s + 1, e));
      };
    case 'uuid':
      return (b, s) => {
        const hex = b.toString('hex', s, s + 16);
        return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
      };
    case 'bytea':
      return (b, s, e) => new Uint8Array(b.subarray(s, e));
    case 'date':
      return (b, s) => dateValue(b.readInt32BE(s));
    case 'time':
      // Microseconds of the day as milliseconds: a fraction (digits below the ms) is refused by TIME.
      return (b, s) => int64(b, s) / 1000;
    case 'timestamp':
    case 'timestamptz':
      return (b, s) => timestampValue(b.readInt32BE(s), b.readUInt32BE(s + 4));
    default:
      return undefined;
  }
}

/** Days from 2000-01-01 as a Date at midnight UTC; ±infinity as text the DATE converter refuses. */
function dateValue(days: number): SourceValue {
  if (days === 0x7fffffff) return 'infinity';
  if (days === -0x80000000) return '-infinity';
  return new Date((days + PG_EPOCH_DAYS) * DAY_MS); // an invalid Date beyond JS's range: refused too
}

/** A signed 64-bit integer as a double (exact within ±2^53, the range of every time of day). */
function int64(b: Buffer, s: number): number {
  return b.readInt32BE(s) * 4_294_967_296 + b.readUInt32BE(s + 4);
}

/**
 * Microseconds from 2000-01-01 (high and low 32 bits) as an exact instant, without a bigint:
 * hi·2^32 + lo = (hi·4,294,967)·1000 + (hi·296 + lo), and hi·296 + lo is exact in a double.
 * ±infinity (the int64 extremes) become text the TIMESTAMP converter refuses.
 */
export function timestampValue(hi: number, lo: number): SourceValue | Timestamp {
  if (hi === 0x7fffffff && lo === 0xffffffff) return 'infinity';
  if (hi === -0x80000000 && lo === 0) return '-infinity';
  const small = hi * 296 + lo;
  const smallMillis = Math.floor(small / 1000);
  return { epochMillis: hi * 4_294_967 + smallMillis + PG_EPOCH_MILLIS, nanoOfMillis: (small - smallMillis * 1000) * 1000 };
}

export const NUMERIC_NEG = 0x4000;
const NUMERIC_NAN = 0xc000;
const NUMERIC_PINF = 0xd000;
const NUMERIC_NINF = 0xf000;

/** numeric's send format (ndigits, weight, sign, dscale, base-10000 digits) as exact decimal text with dscale places. */
export function numericText(b: Buffer, s: number): string {
  const ndigits = b.readUInt16BE(s);
  const weight = b.readInt16BE(s + 2);
  const sign = b.readUInt16BE(s + 4);
  const dscale = b.readUInt16BE(s + 6);
  if (sign === NUMERIC_NAN) return 'NaN';
  if (sign === NUMERIC_PINF) return 'Infinity';
  if (sign === NUMERIC_NINF) return '-Infinity';
  const group = (i: number): string => (i >= 0 && i < ndigits ? String(b.readUInt16BE(s + 8 + 2 * i)).padStart(4, '0') : '0000');
  let integer = '';
  for (let i = 0; i <= weight; i++) integer += group(i);
  integer = integer.replace(/^0+/, '') || '0';
  let fraction = '';
  for (let i = weight + 1; fraction.length < dscale; i++) fraction += group(i);
  fraction = fraction.slice(0, dscale);
  const digits = dscale > 0 ? `${integer}.${fraction}` : integer;
  return sign === NUMERIC_NEG && /[1-9]/.test(digits) ? `-${digits}` : digits;
}

/** Complete rows of a binary COPY stream, framed but not decoded: cell `r * width + c` is `bytes[starts[i], ends[i])`, a start of -1 NULL. */
export interface CopyBlock {
  readonly bytes: Buffer;
  readonly length: number;
  readonly width: number;
  readonly starts: Int32Array;
  readonly ends: Int32Array;
}

/** A 32-bit big-endian signed integer (no bounds check: the framing has checked the bytes are there). */
const int32At = (b: Buffer, p: number): number => ((b[p] as number) << 24) | ((b[p + 1] as number) << 16) | ((b[p + 2] as number) << 8) | (b[p + 3] as number);

/**
 * Frames a binary COPY stream into blocks of complete rows, chunk by chunk, without decoding a
 * value: the bytes of a block are held in one buffer (a row cut between two chunks waits for the
 * next), and each cell's start and end in it are recorded. `push` takes a chunk; while `full` (at
 * least `maxRows` complete rows held), `take` hands out a block of exactly `maxRows` rows; `take`
 * at the end hands out the rest, and `end` checks the stream ended exactly after its trailer.
 */
export class CopyFrames {
  readonly #width: number;
  readonly #maxRows: number;
  #bytes: Buffer;
  /** Bytes held; `#scanned`: the end of the last complete row (or of the header or trailer). */
  #size = 0;
  #scanned = 0;
  #rows = 0;
  #starts: Int32Array;
  #ends: Int32Array;
  #headerRead = false;
  #trailerRead = false;

  constructor(width: number, maxRows = Number.POSITIVE_INFINITY, capacity = 64 * 1024) {
    this.#width = width;
    this.#maxRows = maxRows;
    this.#bytes = Buffer.allocUnsafe(capacity);
    const cells = width * Math.min(maxRows, 1024);
    this.#starts = new Int32Array(cells);
    this.#ends = new Int32Array(cells);
  }

  get full(): boolean {
    return this.#rows >= this.#maxRows;
  }

  push(chunk: Buffer): void {
    const needed = this.#size + chunk.length;
    if (needed > this.#bytes.length) {
      const grown = Buffer.allocUnsafe(Math.max(needed, this.#bytes.length * 2));
      this.#bytes.copy(grown, 0, 0, this.#size);
      this.#bytes = grown;
    }
    chunk.copy(this.#bytes, this.#size);
    this.#size = needed;
    this.#scan();
  }

  /** The complete rows held (at most `maxRows`), as a block; the bytes after them stay for the next. */
  take(): CopyBlock {
    const cells = this.#rows * this.#width;
    const block: CopyBlock = { bytes: this.#bytes.subarray(0, this.#scanned), length: this.#rows, width: this.#width, starts: this.#starts.slice(0, cells), ends: this.#ends.slice(0, cells) };
    const rest = this.#size - this.#scanned;
    const next = Buffer.allocUnsafe(Math.max(this.#bytes.length, rest));
    this.#bytes.copy(next, 0, this.#scanned, this.#size);
    this.#bytes = next;
    this.#size = rest;
    this.#scanned = 0;
    this.#rows = 0;
    this.#scan();
    return block;
  }

  /** Throws unless the stream ended exactly after its trailer (every row taken or still held). */
  end(): void {
    if (!this.#trailerRead || this.#size > this.#scanned) throw new RangeError('the COPY stream ended inside a row or without its trailer');
  }

  #scan(): void {
    const b = this.#bytes;
    const size = this.#size;
    const width = this.#width;
    let at = this.#scanned;
    if (!this.#headerRead) {
      if (size < 19) return;
      if (!b.subarray(0, 11).equals(SIGNATURE)) throw new RangeError('not a binary COPY stream');
      const extension = b.readUInt32BE(15);
      if (size < 19 + extension) return;
      at = 19 + extension;
      this.#headerRead = true;
    }
    while (!this.#trailerRead && this.#rows < this.#maxRows && size - at >= 2) {
      const fields = (((b[at] as number) << 24) >> 16) | (b[at + 1] as number);
      if (fields === -1) {
        this.#trailerRead = true;
        at += 2;
        break;
      }
      if (fields !== width) throw new RangeError(`a COPY row of ${fields} fields where ${width} were expected`);
      const base = this.#rows * width;
      if (base + width > this.#starts.length) this.#grow(base + width);
      const starts = this.#starts;
      const ends = this.#ends;
      // The whole row must be here before it counts.
      let p = at + 2;
      let complete = true;
      for (let i = 0; i < width; i++) {
        if (size - p < 4) {
          complete = false;
          break;
        }
        const length = int32At(b, p);
        p += 4;
        if (length < 0) {
          starts[base + i] = -1;
          ends[base + i] = -1;
        } else {
          if (size - p < length) {
            complete = false;
            break;
          }
          starts[base + i] = p;
          ends[base + i] = p + length;
          p += length;
        }
      }
      if (!complete) break;
      this.#rows++;
      at = p;
    }
    this.#scanned = at;
  }

  #grow(cells: number): void {
    const starts = new Int32Array(Math.max(cells, this.#starts.length * 2));
    const ends = new Int32Array(starts.length);
    starts.set(this.#starts);
    ends.set(this.#ends);
    this.#starts = starts;
    this.#ends = ends;
  }
}

/** The rows of a block, each value decoded by its column's decoder (NULL as null). */
export function decodeRows(block: CopyBlock, decoders: readonly Decode[]): SourceValue[][] {
  const { bytes, length, width, starts, ends } = block;
  const rows = new Array<SourceValue[]>(length);
  for (let r = 0, i = 0; r < length; r++) {
    const row = new Array<SourceValue>(width);
    for (let c = 0; c < width; c++, i++) {
      const start = starts[i] as number;
      row[c] = start < 0 ? null : (decoders[c] as Decode)(bytes, start, ends[i] as number);
    }
    rows[r] = row;
  }
  return rows;
}

/**
 * Splits a binary COPY stream into decoded rows, chunk by chunk (CopyFrames, then each value
 * decoded): `push` returns the complete rows of the bytes so far; `end` checks the stream ended on
 * its trailer.
 */
export class CopyBinaryReader {
  readonly #decoders: readonly Decode[];
  readonly #frames: CopyFrames;

  constructor(decoders: readonly Decode[]) {
    this.#decoders = decoders;
    this.#frames = new CopyFrames(decoders.length);
  }

  push(chunk: Buffer): SourceValue[][] {
    this.#frames.push(chunk);
    return decodeRows(this.#frames.take(), this.#decoders);
  }

  /** Throws unless the stream ended exactly after its trailer. */
  end(): void {
    this.#frames.end();
  }
}
