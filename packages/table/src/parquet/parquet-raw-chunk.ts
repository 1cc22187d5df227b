/**
 * One flat (non-nested) column chunk decoded page by page into a row → value reference, without
 * building a value per row: for reading a few rows of many (a before-image probe touches about one
 * row in a hundred, but in every page).
 *
 *   column chunk bytes ─► per page: header, decompression, definition levels and values
 *                         (hyparquet's page decoders: every encoding and codec it reads)
 *                      ─► per row: the source it reads from (the dictionary or one page's values)
 *                         and the value's index in it, or null
 *
 * What this skips beside hyparquet's parquetRead: the assembly of each page into a JS array of one
 * value per row (for an OPTIONAL column, a definition level array and a push per row even when the
 * page has no null) and the dereference of dictionary ids into a value per row. A value is taken
 * from its source only when asked for (RawChunk.at). Pure: bytes in, references out.
 */
import type { ColumnMetaData, Compressors, DecodedArray, SchemaElement, SchemaTree } from 'hyparquet';
import { parquetHeader } from 'hyparquet/src/column.js';
import { decompressPage, readDataPage, readDataPageV2 } from 'hyparquet/src/datapage.js';
import { readPlain } from 'hyparquet/src/plain.js';

/** A decoded column chunk: `at(row)` is the physical value of the row (null for a null). */
export interface RawChunk {
  readonly length: number;
  at(row: number): unknown;
}

/**
 * Decodes `bytes` (the whole column chunk, from its dictionary page or first data page) of a flat
 * column: `schemaPath` is the root and the column's element (max repetition level 0, max
 * definition level 0 or 1). `rows`: the row group's row count.
 * @throws Error when the chunk is malformed or holds another number of rows (the caller wraps it)
 */
export function decodeRawChunk(
  bytes: Uint8Array,
  meta: ColumnMetaData,
  schemaPath: SchemaTree[],
  rows: number,
  compressors: Compressors,
): RawChunk {
  const element = schemaPath[schemaPath.length - 1]?.element as SchemaElement;
  if (schemaPath.length !== 2) throw new Error(`column '${element.name}' is nested`);
  const optional = element.repetition_type === 'OPTIONAL';
  const decoder = { pathInSchema: meta.path_in_schema, type: meta.type, element, schemaPath, codec: meta.codec, parsers: undefined as never, compressors, utf8: false };
  /** Per row: the index of its source in `sources` (-1: null) and of its value in that source. */
  const sourceOf = new Int32Array(rows).fill(-1);
  const indexOf = new Int32Array(rows);
  const sources: DecodedArray[] = [];
  let dictionary = -1;
  let row = 0;
  const reader = { view: new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength), offset: 0 };
  while (row < rows && reader.offset < bytes.byteLength) {
    const header = parquetHeader(reader);
    const body = bytes.subarray(reader.offset, reader.offset + header.compressed_page_size);
    reader.offset += header.compressed_page_size;
    if (header.type === 'DICTIONARY_PAGE') {
      const count = header.dictionary_page_header?.num_values ?? 0;
      const page = decompressPage(body, header.uncompressed_page_size, meta.codec, compressors);
      sources.push(readPlain({ view: new DataView(page.buffer, page.byteOffset, page.byteLength), offset: 0 }, meta.type, count, element.type_length));
      dictionary = sources.length - 1;
      continue;
    }
    let count: number;
    let encoding: string;
    let decoded: { definitionLevels?: number[] | undefined; dataPage: DecodedArray };
    if (header.type === 'DATA_PAGE' && header.data_page_header !== undefined) {
      count = header.data_page_header.num_values;
      encoding = header.data_page_header.encoding;
      decoded = readDataPage(decompressPage(body, header.uncompressed_page_size, meta.codec, compressors), header.data_page_header, decoder);
    } else if (header.type === 'DATA_PAGE_V2' && header.data_page_header_v2 !== undefined) {
      count = header.data_page_header_v2.num_rows;
      encoding = header.data_page_header_v2.encoding;
      decoded = readDataPageV2(body, header, decoder);
    } else {
      continue; // an index page: no values
    }
    if (row + count > rows) throw new Error(`column '${element.name}' holds more values than its row group's ${rows} rows`);
    const { definitionLevels: levels = [], dataPage } = decoded;
    const dictionaryIds = encoding.endsWith('_DICTIONARY');
    if (dictionaryIds && dictionary < 0) throw new Error(`column '${element.name}' has dictionary ids but no dictionary page`);
    let source = dictionary;
    if (!dictionaryIds) {
      sources.push(dataPage);
      source = sources.length - 1;
    }
    // Levels are empty when the page has no null (or the column is REQUIRED): value i is row i.
    const hasLevels = optional && levels.length > 0;
    let v = 0;
    for (let i = 0; i < count; i++, row++) {
      if (hasLevels && levels[i] !== 1) continue;
      const at = v++;
      sourceOf[row] = source;
      indexOf[row] = dictionaryIds ? (dataPage[at] as number) : at;
    }
    if (v !== dataPage.length) throw new Error(`column '${element.name}': a page's definition levels do not match its ${dataPage.length} values`);
  }
  if (row !== rows) throw new Error(`column '${element.name}' holds ${row} values for its row group's ${rows} rows`);
  return {
    length: rows,
    at: (r) => {
      const s = sourceOf[r] as number;
      return s < 0 ? null : (sources[s] as DecodedArray)[indexOf[r] as number];
    },
  };
}
