/**
 * One column chunk of a row group as Parquet pages, straight from a Column's typed arrays: a
 * dictionary page (strings with few distinct values) and v1 data pages of about 1 MiB (parquet-mr's
 * default page size, ParquetProperties.DEFAULT_PAGE_SIZE), each page compressed on its own.
 *
 *   data page (v1) = [definition levels: uint32 length + RLE runs]   only for OPTIONAL columns
 *                    values: PLAIN, or for a dictionary column a bit width byte and bit-packed ids
 *
 * Fixed-width values without nulls go out as a view of their typed array (no per-value work); the
 * physical conversions are those of ParquetRowDataWriter (see parquet-values.ts).
 */
import type { DataField, DataType } from '../spec/types.ts';
import type { Column } from '../format/column-batch.ts';
import { ENCODING, dataPageHeader, dictionaryPageHeader, type ColumnChunkInfo } from './parquet-footer.ts';
import { decimalByteLength, parquetElement, timestampEncoding, type PhysicalType } from './parquet-schema.ts';
import { decimalToFixedBytes } from './parquet-values.ts';

if (new Uint8Array(new Uint16Array([1]).buffer)[0] !== 1) {
  throw new Error('the Parquet encoder assumes a little-endian host');
}

export type Compress = (page: Uint8Array) => Uint8Array;

/** Collects a row group's bytes; `offset` is the file position of the next byte. */
export class PageCollector {
  readonly chunks: Uint8Array[] = [];
  offset: number;

  constructor(offset: number) {
    this.offset = offset;
  }

  push(bytes: Uint8Array): void {
    this.chunks.push(bytes);
    this.offset += bytes.length;
  }

  /** Everything collected, as one array. */
  bytes(): Uint8Array {
    const out = new Uint8Array(this.chunks.reduce((n, c) => n + c.length, 0));
    let at = 0;
    for (const chunk of this.chunks) {
      out.set(chunk, at);
      at += chunk.length;
    }
    return out;
  }
}

const PAGE_SIZE = 1024 * 1024;
/** Dictionary only while it stays small (parquet-mr's DEFAULT_DICTIONARY_PAGE_SIZE is 1 MiB). */
const MAX_DICTIONARY_BYTES = 1024 * 1024;
const TWO_32 = 4294967296;
const JULIAN_EPOCH_OFFSET_DAYS = 2_440_588;
const MILLIS_PER_DAY = 86_400_000;

/** Writes the column chunk of `column` rows [0, length) and returns its footer entry. */
export function writeColumnChunk(out: PageCollector, field: DataField, column: Column, length: number, codec: number, compress: Compress): ColumnChunkInfo {
  const element = parquetElement(field);
  const type = element.type as PhysicalType;
  const optional = element.repetition_type === 'OPTIONAL';
  const start = out.offset;
  let uncompressed = 0;
  let dictionaryPageOffset: number | undefined;
  const dictionary = column.kind === 'string' ? buildDictionary(column.values, column.validity, length) : undefined;
  if (dictionary) {
    dictionaryPageOffset = out.offset;
    const body = plainStrings(dictionary.values, undefined, 0, dictionary.values.length);
    const compressed = kept(compress(body));
    const header = dictionaryPageHeader(dictionary.values.length, body.length, compressed.length);
    out.push(header);
    out.push(compressed);
    uncompressed += header.length + body.length;
  }
  const dataPageOffset = out.offset;
  for (const [s, e] of pageRanges(column, length, dictionary !== undefined)) {
    const levels = optional ? definitionLevels(column.validity, s, e) : undefined;
    const values = dictionary ? dictionaryIds(dictionary, column.validity, s, e) : plainValues(field.type, column, s, e);
    const body = levels ? pageBody(levels, values) : values;
    const compressed = kept(compress(body));
    const encoding = dictionary ? ENCODING.PLAIN_DICTIONARY : ENCODING.PLAIN;
    const header = dataPageHeader(e - s, encoding, body.length, compressed.length);
    out.push(header);
    out.push(compressed);
    uncompressed += header.length + body.length;
  }
  return {
    type,
    path: field.name,
    codec,
    encodings: dictionary ? [ENCODING.PLAIN_DICTIONARY, ENCODING.RLE] : [ENCODING.PLAIN, ENCODING.RLE],
    numValues: length,
    uncompressedSize: uncompressed,
    compressedSize: out.offset - start,
    dataPageOffset,
    dictionaryPageOffset,
  };
}

/**
 * A compressed page to keep: a copy when it is one of the reused buffers below (a codec that
 * returns its input, none), which the next page overwrites. (`new Uint8Array(x)` copies; a Buffer's
 * `slice` would not.)
 */
function kept(compressed: Uint8Array): Uint8Array {
  return compressed.buffer === bodyBuffer.buffer || compressed.buffer === valuesBuffer.buffer ? new Uint8Array(compressed) : compressed;
}

/**
 * A page's body (its definition levels, then its values) is joined in one buffer reused page after
 * page (a new array per page was a twentieth of a bucket job's buffers, each one more towards
 * V8's next full collection): it lives only until `compress` returns.
 */
let bodyBuffer = new Uint8Array(0);

function pageBody(levels: Uint8Array, values: Uint8Array): Uint8Array {
  const length = levels.length + values.length;
  if (bodyBuffer.length < length) bodyBuffer = new Uint8Array(Math.max(length, 2 * bodyBuffer.length));
  bodyBuffer.set(levels);
  bodyBuffer.set(values, levels.length);
  return bodyBuffer.subarray(0, length);
}

/** Row ranges of about PAGE_SIZE encoded bytes each (exported for tests). */
export function pageRanges(column: Column, length: number, dictionary: boolean): [number, number][] {
  const ranges: [number, number][] = [];
  if (!dictionary && (column.kind === 'string' || column.kind === 'binary')) {
    let s = 0;
    let bytes = 0;
    for (let i = 0; i < length; i++) {
      bytes += (column.values[i] as string | Uint8Array).length + 4;
      if (bytes >= PAGE_SIZE) {
        ranges.push([s, i + 1]);
        s = i + 1;
        bytes = 0;
      }
    }
    if (s < length || ranges.length === 0) ranges.push([s, length]);
    return ranges;
  }
  const width = dictionary ? 2 : column.kind === 'bigint' ? 16 : column.kind === 'bool' ? 1 : 8;
  const rows = Math.max(1, Math.floor(PAGE_SIZE / width));
  for (let s = 0; s < length; s += rows) ranges.push([s, Math.min(length, s + rows)]);
  if (ranges.length === 0) ranges.push([0, 0]);
  return ranges;
}

/**
 * A page's definition levels and the indices of its non-null rows are written in buffers reused
 * page after page: the levels live until they are joined into the page's body (pageBody), the
 * indices until the page's values are.
 */
let levelsBuffer = new Uint8Array(0);
let rowsBuffer = new Int32Array(0);
/**
 * The PLAIN values of a page (the kinds below that write every byte they return) go into one more
 * reused buffer: they live until joined into the body, or compressed (a required column's page).
 */
let valuesBuffer: Buffer = Buffer.allocUnsafeSlow(0);

/** `size` bytes of valuesBuffer, at its start (contents undefined: the caller writes them all). */
function valuesBytes(size: number): Buffer {
  if (valuesBuffer.length < size) valuesBuffer = Buffer.allocUnsafeSlow(Math.max(size, 2 * valuesBuffer.length));
  return valuesBuffer.subarray(0, size);
}

/** Definition levels of rows [s, e) as RLE runs (bit width 1), prefixed by their byte length (in levelsBuffer). */
function definitionLevels(validity: Uint8Array | undefined, s: number, e: number): Uint8Array {
  const runs: number[] = [];
  let i = s;
  while (i < e) {
    const v = validity === undefined ? 1 : (validity[i] as number);
    let j = i + 1;
    while (j < e && (validity === undefined ? 1 : validity[j]) === v) j++;
    runs.push(j - i, v);
    i = j;
  }
  const size = 4 + runs.length * 6;
  if (levelsBuffer.length < size) levelsBuffer = new Uint8Array(Math.max(size, 2 * levelsBuffer.length));
  const out = levelsBuffer;
  let at = 4;
  for (let r = 0; r < runs.length; r += 2) {
    let header = (runs[r] as number) * 2;
    while (header >= 0x80) {
      out[at++] = (header % 0x80) | 0x80;
      header = Math.floor(header / 0x80);
    }
    out[at++] = header;
    out[at++] = runs[r + 1] as number;
  }
  new DataView(out.buffer).setUint32(0, at - 4, true);
  return out.subarray(0, at);
}

interface Dictionary {
  readonly values: string[];
  readonly ids: Int32Array;
  readonly bitWidth: number;
}

/** A dictionary of the distinct strings when it pays (at most half the values distinct, ≤ 1 MiB). */
function buildDictionary(values: readonly string[], validity: Uint8Array | undefined, length: number): Dictionary | undefined {
  const index = new Map<string, number>();
  const distinct: string[] = [];
  const ids = new Int32Array(length);
  let bytes = 0;
  let nonNull = 0;
  for (let i = 0; i < length; i++) {
    if (validity !== undefined && validity[i] === 0) continue;
    nonNull++;
    const v = values[i] as string;
    let id = index.get(v);
    if (id === undefined) {
      id = distinct.length;
      index.set(v, id);
      distinct.push(v);
      bytes += v.length * 3 + 4;
      if (bytes > MAX_DICTIONARY_BYTES || (distinct.length > 1024 && distinct.length * 2 > i + 1)) return undefined;
    }
    ids[i] = id;
  }
  if (nonNull === 0 || distinct.length * 2 > nonNull) return undefined;
  return { values: distinct, ids, bitWidth: Math.max(1, Math.ceil(Math.log2(distinct.length))) };
}

/** Dictionary ids of the non-null rows in [s, e): bit width byte, then one bit-packed run. */
function dictionaryIds(dictionary: Dictionary, validity: Uint8Array | undefined, s: number, e: number): Uint8Array {
  const w = dictionary.bitWidth;
  const ids: number[] = [];
  for (let i = s; i < e; i++) if (validity === undefined || validity[i] === 1) ids.push(dictionary.ids[i] as number);
  const groups = Math.ceil(ids.length / 8);
  const out = new Uint8Array(1 + 10 + groups * w);
  out[0] = w;
  let at = 1;
  if (groups > 0) {
    let header = groups * 2 + 1;
    while (header >= 0x80) {
      out[at++] = (header % 0x80) | 0x80;
      header = Math.floor(header / 0x80);
    }
    out[at++] = header;
    let acc = 0;
    let bits = 0;
    for (let k = 0; k < groups * 8; k++) {
      acc |= (ids[k] ?? 0) << bits;
      bits += w;
      while (bits >= 8) {
        out[at++] = acc & 0xff;
        acc >>>= 8;
        bits -= 8;
      }
    }
  }
  return out.subarray(0, at);
}

/** Indices of the non-null rows in [s, e) (in rowsBuffer), or undefined when there are no nulls there. */
function presentRows(validity: Uint8Array | undefined, s: number, e: number): Int32Array | undefined {
  if (validity === undefined) return undefined;
  let count = 0;
  for (let i = s; i < e; i++) count += validity[i] as number;
  if (count === e - s) return undefined;
  if (rowsBuffer.length < count) rowsBuffer = new Int32Array(Math.max(count, 2 * rowsBuffer.length));
  const rows = rowsBuffer.subarray(0, count);
  let k = 0;
  for (let i = s; i < e; i++) if (validity[i] === 1) rows[k++] = i;
  return rows;
}

function bytesOf(view: ArrayBufferView): Uint8Array {
  return new Uint8Array(view.buffer, view.byteOffset, view.byteLength);
}

/** PLAIN values of the non-null rows in [s, e). */
function plainValues(type: DataType, column: Column, s: number, e: number): Uint8Array {
  const rows = presentRows(column.validity, s, e);
  const n = rows ? rows.length : e - s;
  const at = (k: number): number => (rows ? (rows[k] as number) : s + k);
  switch (column.kind) {
    case 'bool': {
      const out = new Uint8Array(Math.ceil(n / 8));
      for (let k = 0; k < n; k++) if (column.values[at(k)] === 1) out[k >> 3]! |= 1 << (k & 7);
      return out;
    }
    case 'int32':
    case 'float32':
    case 'float64': {
      if (!rows) return bytesOf(column.values.subarray(s, e));
      const Values = column.values.constructor as Float64ArrayConstructor;
      const out = new Values(valuesBytes(n * Values.BYTES_PER_ELEMENT).buffer, 0, n);
      for (let k = 0; k < n; k++) out[k] = column.values[at(k)] as number;
      return bytesOf(out);
    }
    case 'int64': {
      const words = new Int32Array(column.values.buffer, column.values.byteOffset, column.values.length * 2);
      if (type.root === 'DECIMAL' && type.precision <= 9) {
        // INT32 decimal: the low word is the value (it fits in 32 bits).
        const out = new Int32Array(valuesBytes(4 * n).buffer, 0, n);
        for (let k = 0; k < n; k++) out[k] = words[2 * at(k)] as number;
        return bytesOf(out);
      }
      if (!rows) return bytesOf(column.values.subarray(s, e));
      const out = new Int32Array(valuesBytes(8 * n).buffer, 0, 2 * n);
      for (let k = 0; k < n; k++) {
        out[2 * k] = words[2 * at(k)] as number;
        out[2 * k + 1] = words[2 * at(k) + 1] as number;
      }
      return bytesOf(out);
    }
    case 'bigint': {
      const width = type.root === 'DECIMAL' ? decimalByteLength(type.precision) : 16;
      const out = new Uint8Array(n * width);
      for (let k = 0; k < n; k++) out.set(decimalToFixedBytes(column.values[at(k)] as bigint, width), k * width);
      return out;
    }
    case 'string':
      return plainStrings(column.values, rows, s, e);
    case 'binary': {
      let size = 0;
      for (let k = 0; k < n; k++) size += 4 + (column.values[at(k)] as Uint8Array).length;
      const out = new Uint8Array(size);
      const view = new DataView(out.buffer);
      let p = 0;
      for (let k = 0; k < n; k++) {
        const b = column.values[at(k)] as Uint8Array;
        view.setUint32(p, b.length, true);
        out.set(b, p + 4);
        p += 4 + b.length;
      }
      return out;
    }
    case 'timestamp':
      return plainTimestamps(type, column, n, at);
  }
}

/** PLAIN BYTE_ARRAY of strings (UTF-8), all of [s, e) or the listed rows. */
function plainStrings(values: readonly string[], rows: Int32Array | undefined, s: number, e: number): Uint8Array {
  const n = rows ? rows.length : e - s;
  let bound = 0;
  for (let k = 0; k < n; k++) bound += 4 + (values[rows ? (rows[k] as number) : s + k] as string).length * 3;
  const out = valuesBytes(bound);
  let p = 0;
  for (let k = 0; k < n; k++) {
    const v = values[rows ? (rows[k] as number) : s + k] as string;
    const written = out.write(v, p + 4, 'utf8');
    out.writeUInt32LE(written, p);
    p += 4 + written;
  }
  return new Uint8Array(out.buffer, out.byteOffset, p);
}

function plainTimestamps(type: DataType, column: Extract<Column, { kind: 'timestamp' }>, n: number, at: (k: number) => number): Uint8Array {
  const precision = type.root === 'TIMESTAMP' || type.root === 'TIMESTAMP_LTZ' ? type.precision : 3;
  const { millis, nanos } = column;
  const encoding = timestampEncoding(precision);
  if (encoding === 'INT96') {
    // ParquetRowDataWriter.timestampToInt96: truncating day division, so nanos-of-day keeps the sign.
    const out = valuesBytes(n * 12);
    const view = new DataView(out.buffer, out.byteOffset, out.length);
    for (let k = 0; k < n; k++) {
      const m = millis[at(k)] as number;
      const nanosOfDay = (m % MILLIS_PER_DAY) * 1_000_000 + (nanos[at(k)] as number); // |x| < 2^53
      const hi = Math.floor(nanosOfDay / TWO_32);
      view.setInt32(k * 12, nanosOfDay - hi * TWO_32, true);
      view.setInt32(k * 12 + 4, hi, true);
      view.setInt32(k * 12 + 8, Math.trunc(m / MILLIS_PER_DAY) + JULIAN_EPOCH_OFFSET_DAYS, true);
    }
    return out;
  }
  const out = new Int32Array(valuesBytes(8 * n).buffer, 0, 2 * n);
  for (let k = 0; k < n; k++) {
    const m = millis[at(k)] as number;
    // Timestamp.toMicros: millis * 1000 + nanoOfMillis / 1000. Doubles hold it exactly within
    // ±2^53 µs (about 1685..2255); beyond that, BigInt.
    const v = encoding === 'MILLIS' ? m : m * 1000 + Math.floor((nanos[at(k)] as number) / 1000);
    if (Number.isSafeInteger(v)) {
      const hi = Math.floor(v / TWO_32);
      out[2 * k] = v - hi * TWO_32;
      out[2 * k + 1] = hi;
    } else {
      const big = BigInt.asUintN(64, BigInt(m) * 1000n + BigInt(Math.floor((nanos[at(k)] as number) / 1000)));
      out[2 * k] = Number(big & 0xffffffffn);
      out[2 * k + 1] = Number(big >> 32n);
    }
  }
  return bytesOf(out);
}
