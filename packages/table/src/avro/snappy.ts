/**
 * Decompression of one raw Snappy block (https://github.com/google/snappy/blob/main/format_description.txt),
 * as Avro's `snappy` codec stores it. Paimon's data-file Avro writer defaults to snappy
 * (`AvroFileFormat`, `avro.codec`), so a manifest written with `manifest.compression=snappy` or
 * by another tool may use it. Decode only: we write zstandard.
 *
 * The block itself is decoded by hyparquet's `snappyUncompress`, which decodes into a buffer of
 * the caller's size and skips the length preamble. What it lacks is kept here: reading that
 * preamble to size the output, and turning its plain errors into the typed AVRO_CORRUPT.
 */
import { snappyUncompress } from 'hyparquet';
import { errorFrom } from '@tributary/errors';
import { tableErrors } from '../errors.ts';

function corrupt(message: string): Error {
  return errorFrom(tableErrors, 'AVRO_CORRUPT', `snappy: ${message}`);
}

/** The uncompressed length, a varint of at most 32 bits at the start of the block. */
function uncompressedLength(input: Uint8Array): number {
  let length = 0;
  let shift = 0;
  let offset = 0;
  for (;;) {
    if (offset >= input.length || shift > 28) throw corrupt('bad length preamble');
    const b = input[offset++] as number;
    length += (b & 0x7f) * 2 ** shift;
    if ((b & 0x80) === 0) return length;
    shift += 7;
  }
}

export function snappyDecompress(input: Uint8Array): Uint8Array {
  const out = new Uint8Array(uncompressedLength(input));
  try {
    snappyUncompress(input, out);
  } catch (cause) {
    throw corrupt(cause instanceof Error ? cause.message : 'undecodable block');
  }
  return out;
}
