/**
 * PostgreSQL's binary COPY format, decoded exactly (pure: bytes in, rows out). The stream is a
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
const PG_EPOCH_DAYS = 10_957;
const PG_EPOCH_MILLIS = PG_EPOCH_DAYS * 86_400_000;
const DAY_MS = 86_400_000;

export type Decode = (bytes: Buffer, start: number, end: number) => SourceValue;

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** A value of text, varchar, bpchar, json and enums: strict UTF-8 (the session's client encoding). */
const text: Decode = (b, s, e) => utf8.decode(b.subarray(s, e));

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

const NUMERIC_NEG = 0x4000;
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

/**
 * Splits a binary COPY stream into rows, chunk by chunk: a row cut between two chunks waits for
 * the next. `push` returns the complete rows of the bytes so far; `end` checks the stream ended on
 * its trailer.
 */
export class CopyBinaryReader {
  readonly #decoders: readonly Decode[];
  #pending: Buffer = Buffer.alloc(0);
  #headerRead = false;
  #trailerRead = false;

  constructor(decoders: readonly Decode[]) {
    this.#decoders = decoders;
  }

  push(chunk: Buffer): SourceValue[][] {
    const b = this.#pending.length === 0 ? chunk : Buffer.concat([this.#pending, chunk]);
    let at = 0;
    if (!this.#headerRead) {
      if (b.length < 19) {
        this.#pending = b;
        return [];
      }
      if (!b.subarray(0, 11).equals(SIGNATURE)) throw new RangeError('not a binary COPY stream');
      const extension = b.readUInt32BE(15);
      if (b.length < 19 + extension) {
        this.#pending = b;
        return [];
      }
      at = 19 + extension;
      this.#headerRead = true;
    }
    const rows: SourceValue[][] = [];
    const width = this.#decoders.length;
    for (;;) {
      if (this.#trailerRead || b.length - at < 2) break;
      const fields = b.readInt16BE(at);
      if (fields === -1) {
        this.#trailerRead = true;
        at += 2;
        break;
      }
      if (fields !== width) throw new RangeError(`a COPY row of ${fields} fields where ${width} were expected`);
      // The whole row must be here before any of it is decoded.
      let end = at + 2;
      let complete = true;
      for (let i = 0; i < fields; i++) {
        if (b.length - end < 4) {
          complete = false;
          break;
        }
        const length = b.readInt32BE(end);
        end += 4 + (length > 0 ? length : 0);
        if (end > b.length) {
          complete = false;
          break;
        }
      }
      if (!complete) break;
      const row: SourceValue[] = new Array<SourceValue>(width);
      let p = at + 2;
      for (let i = 0; i < width; i++) {
        const length = b.readInt32BE(p);
        p += 4;
        if (length < 0) row[i] = null;
        else {
          row[i] = (this.#decoders[i] as Decode)(b, p, p + length);
          p += length;
        }
      }
      rows.push(row);
      at = end;
    }
    // A copy of the rest, so that the consumed chunk can go.
    this.#pending = at === b.length ? Buffer.alloc(0) : at === 0 ? b : Buffer.from(b.subarray(at));
    return rows;
  }

  /** Throws unless the stream ended exactly after its trailer. */
  end(): void {
    if (!this.#trailerRead || this.#pending.length > 0) throw new RangeError('the COPY stream ended inside a row or without its trailer');
  }
}
