/**
 * Decompression of one raw Snappy block (https://github.com/google/snappy/blob/main/format_description.txt),
 * as Avro's `snappy` codec stores it. Paimon's data-file Avro writer defaults to snappy
 * (`AvroFileFormat`, `avro.codec`), so a manifest written with `manifest.compression=snappy` or
 * by another tool may use it. Decode only: we write zstandard.
 */

import { errorFrom } from '@tributary/protocol';
import { tableErrors } from '../errors.ts';

function corrupt(message: string): Error {
  return errorFrom(tableErrors, 'AVRO_CORRUPT', `snappy: ${message}`);
}

function readUncompressedLength(input: Uint8Array): { length: number; offset: number } {
  let length = 0;
  let shift = 0;
  let offset = 0;
  for (;;) {
    if (offset >= input.length || shift > 28) throw corrupt('bad length preamble');
    const b = input[offset++] as number;
    length += (b & 0x7f) * 2 ** shift;
    if ((b & 0x80) === 0) return { length, offset };
    shift += 7;
  }
}

/** Reads a little-endian integer of `n` bytes at `at`. */
function readLE(input: Uint8Array, at: number, n: number): number {
  if (at + n > input.length) throw corrupt('truncated tag');
  let v = 0;
  for (let i = n - 1; i >= 0; i--) v = v * 256 + (input[at + i] as number);
  return v;
}

export function snappyDecompress(input: Uint8Array): Uint8Array {
  const { length, offset: start } = readUncompressedLength(input);
  const out = new Uint8Array(length);
  let pos = start;
  let written = 0;
  while (pos < input.length) {
    const tag = input[pos++] as number;
    const type = tag & 3;
    if (type === 0) {
      let len = tag >>> 2;
      if (len >= 60) {
        const extra = len - 59;
        len = readLE(input, pos, extra);
        pos += extra;
      }
      len += 1;
      if (pos + len > input.length || written + len > length) throw corrupt('literal overruns');
      out.set(input.subarray(pos, pos + len), written);
      pos += len;
      written += len;
      continue;
    }
    let len: number;
    let distance: number;
    if (type === 1) {
      len = ((tag >>> 2) & 7) + 4;
      distance = ((tag >>> 5) << 8) | readLE(input, pos, 1);
      pos += 1;
    } else {
      const size = type === 2 ? 2 : 4;
      len = (tag >>> 2) + 1;
      distance = readLE(input, pos, size);
      pos += size;
    }
    if (distance === 0 || distance > written || written + len > length) throw corrupt('bad copy');
    // Byte by byte: a copy may overlap its own output (run-length encoding).
    for (let i = 0; i < len; i++, written++) out[written] = out[written - distance] as number;
  }
  if (written !== length) throw corrupt(`decoded ${written} bytes, expected ${length}`);
  return out;
}
