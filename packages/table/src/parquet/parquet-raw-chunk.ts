/**
 * One flat (non-nested) column chunk decoded page by page into a row → value reference, without
 * building a value per row: for reading a few rows of many (a before-image probe touches about one
 * row in a hundred, but in every page).
 *
 *   column chunk bytes ─► per page: header, decompression, definition levels and values
 *                         (a v1 page's levels, PLAIN values and dictionary ids into typed
 *                         arrays here, decodeV1Page; hyparquet's page decoders for every other
 *                         encoding and page version it reads)
 *                      ─► per page: its first row, the source it reads from (the dictionary or its
 *                         own values), its dictionary ids, and only for a page holding a null each
 *                         row's index among its values
 *
 * What this skips beside hyparquet's parquetRead: the assembly of each page into a JS array of one
 * value per row (for an OPTIONAL column, a definition level array and a push per row even when the
 * page has no null), the dereference of dictionary ids into a value per row, and any per-row work
 * at all for a page without nulls: a row is found by its page (RawChunk.at), and its value taken
 * from the page's source only when asked for. Pure: bytes in, references out.
 */
import type { ColumnMetaData, Compressors, DataPageHeader, DecodedArray, ParquetType, SchemaElement, SchemaTree } from 'hyparquet';
import { parquetHeader } from 'hyparquet/src/column.js';
import { decompressPage, readDataPage, readDataPageV2 } from 'hyparquet/src/datapage.js';
import { readPlain } from 'hyparquet/src/plain.js';
import { checkPageCrc } from './parquet-page-crc.ts';

/** A decoded column chunk: `at(row)` is the physical value of the row (null for a null). */
export interface RawChunk {
  readonly length: number;
  at(row: number): unknown;
}

/**
 * Decodes `bytes` (the whole column chunk, from its dictionary page or first data page) of a flat
 * column: `schemaPath` is the root and the column's element (max repetition level 0, max
 * definition level 0 or 1). `rows`: the row group's row count; `chunkOffset`: where the chunk
 * starts in the file (for messages). A page whose header carries a crc is checked before it is
 * decoded (parquet-page-crc.ts). `range`: only the data pages holding rows [from, to) of the group
 * are decompressed and decoded (a page before them is skipped by its header's row count, the
 * chunk is not read past them); `at` is then asked for rows of that range only.
 * @throws Error when the chunk is malformed, fails a page checksum or holds another number of rows (the caller wraps it)
 */
export function decodeRawChunk(
  bytes: Uint8Array,
  meta: ColumnMetaData,
  schemaPath: SchemaTree[],
  rows: number,
  compressors: Compressors,
  chunkOffset = 0,
  range: readonly [from: number, to: number] = [0, rows],
): RawChunk {
  const [from, to] = range;
  if (!(from >= 0 && from <= to && to <= rows)) throw new RangeError(`rows [${from}, ${to}) of a row group of ${rows}`);
  const element = schemaPath[schemaPath.length - 1]?.element as SchemaElement;
  if (schemaPath.length !== 2) throw new Error(`column '${element.name}' is nested`);
  const optional = element.repetition_type === 'OPTIONAL';
  const decoder = { pathInSchema: meta.path_in_schema, type: meta.type, element, schemaPath, codec: meta.codec, parsers: undefined as never, compressors, utf8: false };
  /**
   * Per page, in row order: its first row, its source in `sources` (the dictionary or the page's own
   * values), its dictionary ids (or undefined: value i of the source is the page's i-th non-null
   * value) and, only for a page holding a null, each row's index among the page's values (-1: null).
   * No per-row work for a page without nulls (the usual case): a row is found by its page.
   */
  const pages: Page[] = [];
  const sources: (DecodedArray | ByteValues)[] = [];
  let dictionary = -1;
  let row = 0;
  const reader = { view: new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength), offset: 0 };
  while (row < to && reader.offset < bytes.byteLength) {
    const at = reader.offset;
    const header = parquetHeader(reader);
    // A size that points backwards (or past the chunk) would walk the pages in a loop: refused.
    if (!(header.compressed_page_size >= 0 && reader.offset + header.compressed_page_size <= bytes.byteLength)) {
      throw new Error(`column '${element.name}': the page at byte ${chunkOffset + at} runs past its column chunk`);
    }
    const body = bytes.subarray(reader.offset, reader.offset + header.compressed_page_size);
    reader.offset += header.compressed_page_size;
    checkPageCrc(header, body, element.name, chunkOffset + at);
    if (header.type === 'DICTIONARY_PAGE') {
      const count = header.dictionary_page_header?.num_values ?? 0;
      const page = decompressPage(body, header.uncompressed_page_size, meta.codec, compressors);
      const byteValues = meta.type === 'BYTE_ARRAY' || (meta.type === 'FIXED_LEN_BYTE_ARRAY' && (element.type_length ?? 0) > 0);
      sources.push(
        byteValues
          ? new ByteValues(page, 0, count, meta.type === 'BYTE_ARRAY' ? undefined : element.type_length, true)
          : readPlain({ view: new DataView(page.buffer, page.byteOffset, page.byteLength), offset: 0 }, meta.type, count, element.type_length),
      );
      dictionary = sources.length - 1;
      continue;
    }
    // A flat column's page holds one value (or null) per row: its row count is in its header.
    const count = header.type === 'DATA_PAGE' ? header.data_page_header?.num_values : header.type === 'DATA_PAGE_V2' ? header.data_page_header_v2?.num_rows : undefined;
    if (count === undefined) continue; // an index page: no values
    if (count < 0) throw new Error(`column '${element.name}': a page of ${count} values`);
    if (row + count > rows) throw new Error(`column '${element.name}' holds more values than its row group's ${rows} rows`);
    if (row + count <= from) {
      row += count; // before the rows asked for: not decompressed
      continue;
    }
    let encoding: string;
    let decoded: { definitionLevels?: ArrayLike<number> | undefined; dataPage: DecodedArray | ByteValues };
    if (header.type === 'DATA_PAGE' && header.data_page_header !== undefined) {
      encoding = header.data_page_header.encoding;
      const page = decompressPage(body, header.uncompressed_page_size, meta.codec, compressors);
      decoded = decodeV1Page(page, header.data_page_header, meta.type, element.type_length, optional, dictionary < 0 ? 0 : (sources[dictionary] as DecodedArray | ByteValues).length) ?? readDataPage(page, header.data_page_header, decoder);
    } else if (header.type === 'DATA_PAGE_V2' && header.data_page_header_v2 !== undefined) {
      encoding = header.data_page_header_v2.encoding;
      decoded = readDataPageV2(body, header, decoder);
    } else {
      continue; // unreachable: count was undefined
    }
    const { definitionLevels: levels = [], dataPage } = decoded;
    const dictionaryIds = encoding.endsWith('_DICTIONARY');
    if (dictionaryIds && dictionary < 0) throw new Error(`column '${element.name}' has dictionary ids but no dictionary page`);
    let source = dictionary;
    if (!dictionaryIds) {
      sources.push(dataPage);
      source = sources.length - 1;
    }
    // Levels are empty when the page has no null (or the column is REQUIRED): value i is row i.
    let values = count;
    let nulls: Int32Array | undefined;
    if (optional && levels.length > 0) {
      nulls = new Int32Array(count);
      let v = 0;
      for (let i = 0; i < count; i++) nulls[i] = levels[i] === 1 ? v++ : -1;
      values = v;
    }
    if (values !== dataPage.length) throw new Error(`column '${element.name}': a page's definition levels do not match its ${dataPage.length} values`);
    if (count > 0) pages.push({ start: row, source: sources[source] as DecodedArray | ByteValues, ids: dictionaryIds ? (dataPage as DecodedArray) : undefined, index: nulls });
    row += count;
  }
  if (to === rows ? row !== rows : row < to) throw new Error(`column '${element.name}' holds ${row} values for its row group's ${rows} rows`);
  let last = 0;
  return {
    length: rows,
    at: (r) => {
      if (pages.length === 0) return null;
      // The page holding row r: the last one found (rows are asked near each other), else a binary search.
      let p = pages[last] as Page;
      if (r < p.start || (last + 1 < pages.length && r >= (pages[last + 1] as Page).start)) {
        let lo = 0;
        let hi = pages.length - 1;
        while (lo < hi) {
          const mid = (lo + hi + 1) >>> 1;
          if ((pages[mid] as Page).start <= r) lo = mid;
          else hi = mid - 1;
        }
        last = lo;
        p = pages[lo] as Page;
      }
      let i = r - p.start;
      if (p.index !== undefined) {
        i = p.index[i] as number;
        if (i < 0) return null;
      }
      const j = p.ids === undefined ? i : (p.ids[i] as number);
      return p.source instanceof ByteValues ? p.source.at(j) : p.source[j];
    },
  };
}

/** One data page of a decoded chunk (decodeRawChunk). */
interface Page {
  readonly start: number;
  readonly source: DecodedArray | ByteValues;
  readonly ids: DecodedArray | undefined;
  readonly index: Int32Array | undefined;
}

/**
 * A v1 data page of a flat column as its definition levels (undefined when it has no null) and its
 * values: its non-null values (PLAIN) or their dictionary ids (`*_DICTIONARY`, checked below
 * `dictionarySize`), decoded into typed arrays. Undefined for what it does not decode (another
 * encoding, BOOLEAN values, levels not in the RLE hybrid, ids wider than 24 bits): hyparquet's
 * readDataPage reads those. hyparquet's own path fills a JS array per page with a level per row,
 * one assignment at a time even for a page without a null (a single run), which was most of a
 * before-image probe's page decode.
 * @throws Error when the page is malformed
 */
export function decodeV1Page(
  page: Uint8Array,
  header: DataPageHeader,
  type: ParquetType,
  typeLength: number | undefined,
  optional: boolean,
  dictionarySize: number,
): { definitionLevels: Uint8Array | undefined; dataPage: DecodedArray | ByteValues } | undefined {
  const count = header.num_values;
  const dictionaryIds = header.encoding === 'PLAIN_DICTIONARY' || header.encoding === 'RLE_DICTIONARY';
  if ((header.encoding !== 'PLAIN' && !dictionaryIds) || type === 'BOOLEAN') return undefined;
  if (optional && header.definition_level_encoding !== 'RLE') return undefined;
  let at = 0;
  let levels: Uint8Array | undefined;
  let values = count;
  if (optional) {
    if (page.length < 4) throw new Error('a data page ends inside its definition levels');
    const length = (page[0] as number) | ((page[1] as number) << 8) | ((page[2] as number) << 16) | ((page[3] as number) << 24);
    if (length < 0 || 4 + length > page.length) throw new Error('a data page ends inside its definition levels');
    // A page without a null, as writers write it: one run of ones (no level array, no pass over it).
    if (!oneRunOfOnes(page, 4, 4 + length, count)) {
      levels = new Uint8Array(count);
      readHybrid(page, 4, 4 + length, 1, levels, count);
      values = 0;
      for (let i = 0; i < count; i++) values += levels[i] as number;
      if (values === count) levels = undefined; // no null: value i is row i
    }
    at = 4 + length;
  }
  if (!dictionaryIds) {
    if (type === 'BYTE_ARRAY' || (type === 'FIXED_LEN_BYTE_ARRAY' && (typeLength ?? 0) > 0)) return { definitionLevels: levels, dataPage: new ByteValues(page, at, values, type === 'BYTE_ARRAY' ? undefined : typeLength) };
    const reader = { view: new DataView(page.buffer, page.byteOffset, page.byteLength), offset: at };
    return { definitionLevels: levels, dataPage: readPlain(reader, type, values, typeLength) };
  }
  if (at >= page.length) {
    if (values === 0) return { definitionLevels: levels, dataPage: new Int32Array(0) };
    throw new Error('a data page ends before its dictionary ids');
  }
  const width = page[at] as number;
  if (width > 24 || dictionarySize === 0) return undefined; // hyparquet's path (the caller refuses ids without a dictionary)
  const ids = new Int32Array(values);
  if (width > 0) readHybrid(page, at + 1, page.length, width, ids, values);
  for (let i = 0; i < values; i++) if ((ids[i] as number) >= dictionarySize) throw new Error(`a dictionary id beyond the dictionary's ${dictionarySize} values`);
  return { definitionLevels: levels, dataPage: ids };
}

/**
 * A page's PLAIN byte-array values as where they are in its bytes: a value's view is made when it
 * is asked for (hyparquet's readPlain makes one per value when the page is decoded, all held as
 * long as the page is). `width`: FIXED_LEN_BYTE_ARRAY's length; undefined for BYTE_ARRAY, whose
 * values each follow their 4-byte little-endian length. `shared` (a dictionary): a value's view is
 * made once and given to every row that refers to it, as hyparquet's dictionary decoding does.
 */
export class ByteValues {
  readonly length: number;
  readonly #bytes: Uint8Array;
  readonly #starts: Int32Array;
  readonly #ends: Int32Array;
  readonly #views: (Uint8Array | undefined)[] | undefined;

  /** @throws Error when the values run past the page */
  constructor(bytes: Uint8Array, at: number, count: number, width: number | undefined, shared = false) {
    // Each value takes at least its 4-byte length or its width: a count the bytes cannot hold is
    // refused before anything is allocated for it.
    if (!(count >= 0 && count * (width ?? 4) <= bytes.length - at)) throw new Error('a data page ends inside its values');
    this.length = count;
    this.#bytes = bytes;
    this.#views = shared ? new Array<Uint8Array | undefined>(count) : undefined;
    this.#starts = new Int32Array(count);
    this.#ends = new Int32Array(count);
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    let offset = at;
    for (let i = 0; i < count; i++) {
      let length: number;
      if (width === undefined) {
        if (offset + 4 > bytes.length) throw new Error('a data page ends inside its values');
        length = view.getUint32(offset, true);
        offset += 4;
      } else length = width;
      if (offset + length > bytes.length) throw new Error('a data page ends inside its values');
      this.#starts[i] = offset;
      offset += length;
      this.#ends[i] = offset;
    }
  }

  /** Value `i` (a view of the page), or undefined past the last. */
  at(i: number): Uint8Array | undefined {
    if (!(i >= 0 && i < this.length)) return undefined;
    if (this.#views === undefined) return this.#bytes.subarray(this.#starts[i], this.#ends[i]);
    return (this.#views[i] ??= this.#bytes.subarray(this.#starts[i], this.#ends[i]));
  }
}

/**
 * Whether the one-bit levels in bytes[at, end) begin with an RLE run of ones at least `count` long
 * (a run header of at most two bytes): every row is defined, as readHybrid would find.
 */
function oneRunOfOnes(bytes: Uint8Array, at: number, end: number, count: number): boolean {
  if (at >= end) return false;
  let header = bytes[at++] as number;
  if (header >= 0x80) {
    if (at >= end || (bytes[at] as number) >= 0x80) return false;
    header = (header & 0x7f) + (bytes[at++] as number) * 128;
  }
  return header % 2 === 0 && header / 2 >= count && at < end && bytes[at] === 1;
}

/**
 * `count` values of `width` bits (1 to 24) of the RLE / bit-packed hybrid in bytes[at, end) into
 * `out`: a run of one value is a fill, a bit-packed run eight values per `width` bytes (values past
 * `count` in its last group are padding).
 * @throws Error when the runs end before `count` values, or a repeated value does not fit `width`
 */
function readHybrid(bytes: Uint8Array, at: number, end: number, width: number, out: Uint8Array | Int32Array, count: number): void {
  const valueBytes = (width + 7) >> 3;
  const mask = (1 << width) - 1;
  let seen = 0;
  while (seen < count) {
    let header = 0;
    for (let shift = 0; ; shift += 7) {
      if (at >= end || shift > 28) throw new Error('the hybrid encoding ends inside a run header');
      const byte = bytes[at++] as number;
      header += (byte & 0x7f) * 2 ** shift;
      if (byte < 0x80) break;
    }
    if (header % 2 === 0) {
      const n = header / 2;
      if (at + valueBytes > end) throw new Error('a run past the end of the hybrid encoding');
      let value = 0;
      for (let b = 0; b < valueBytes; b++) value |= (bytes[at++] as number) << (8 * b);
      if (value > mask) throw new Error(`a repeated value beyond ${width} bits`);
      const stop = Math.min(count, seen + n);
      out.fill(value, seen, stop);
      seen = stop;
    } else {
      const groups = (header - 1) / 2;
      if (at + groups * width > end) throw new Error('a bit-packed run past the end of the hybrid encoding');
      const n = groups * 8;
      const stop = Math.min(count, seen + n);
      let buffer = 0;
      let bits = 0;
      let p = at;
      for (let i = seen; i < stop; i++) {
        while (bits < width) {
          buffer |= (bytes[p++] as number) << bits;
          bits += 8;
        }
        out[i] = buffer & mask;
        buffer >>>= width;
        bits -= width;
      }
      seen = stop;
      at += groups * width;
    }
  }
}
