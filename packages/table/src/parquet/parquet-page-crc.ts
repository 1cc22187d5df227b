/**
 * The optional `crc` of a Parquet page header (parquet-format PageHeader field 4): the standard
 * CRC-32 (zlib's polynomial) of the page as stored after its header, `compressed_page_size`
 * bytes: a v1 data page's compressed levels and values, a v2 page's levels and compressed values,
 * a dictionary page's compressed values. pyarrow writes it with `write_page_checksum=True`,
 * parquet-java by default (`parquet.page.write-checksum.enabled`). A reader that checks it catches
 * a page whose bytes changed after it was written; without it, flipped bytes in a page often still
 * decode and load wrong values. A header without a crc is not checked. Pure: bytes in, a verdict out.
 */
import { crc32 } from 'node:zlib';
import { parquetHeader } from 'hyparquet/src/column.js';

/** The fields of a page header this needs (hyparquet's PageHeader). */
export interface PageCrcHeader {
  readonly type: string;
  readonly crc?: number | undefined;
}

/**
 * @throws Error when the header carries a crc that the page's stored bytes (`body`) do not match;
 * the message names the column and the page's offset, never a value.
 */
export function checkPageCrc(header: PageCrcHeader, body: Uint8Array, column: string, offset: number): void {
  if (header.crc === undefined || header.crc === null) return;
  // Thrift's i32 reads as a signed number; zlib's crc32 is unsigned.
  if ((crc32(body) | 0) !== (Number(header.crc) | 0)) {
    throw new Error(`column '${column}': the ${header.type} at byte ${offset} does not match its page checksum (CRC-32): the file is corrupt`);
  }
}

/**
 * Checks every page of a column chunk (`bytes`, from its first page header to its end, starting at
 * byte `offset` of the file). @throws Error on a crc mismatch or a page that runs past the chunk
 */
export function checkChunkPageCrcs(bytes: Uint8Array, column: string, offset: number): void {
  const reader = { view: new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength), offset: 0 };
  while (reader.offset < bytes.byteLength) {
    const at = reader.offset;
    const header = parquetHeader(reader);
    const end = reader.offset + header.compressed_page_size;
    if (header.compressed_page_size < 0 || end > bytes.byteLength) {
      throw new Error(`column '${column}': the ${header.type} at byte ${offset + at} runs past the end of its column chunk`);
    }
    checkPageCrc(header, bytes.subarray(reader.offset, end), column, offset + at);
    reader.offset = end;
  }
}
