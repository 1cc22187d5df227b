/**
 * Avro object container files (https://avro.apache.org/docs/1.11.1/specification/#object-container-files):
 * magic `Obj\x01`, a metadata map holding `avro.schema` and `avro.codec`, a 16-byte sync marker,
 * then blocks of (record count, byte size, compressed records, sync marker).
 *
 * Paimon writes manifests with Java's `DataFileWriter` through `AvroFileFormat`, codec
 * `zstandard` at `file.compression.zstd-level` (default 1) for `manifest.compression=zstd`.
 * We write the schema JSON verbatim, so logical types (`timestamp-millis` on `_CREATION_TIME`)
 * reach the header, which Java's reader needs.
 *
 * Pure: the sync marker is derived from the content (an MD5 of the schema, the codec and the
 * blocks as written, compressed) instead of being random, so the same records always give the
 * same bytes. (Hashing the compressed blocks, not the raw records, hashes a tenth of the bytes.)
 */

import { createHash } from 'node:crypto';
import { constants, crc32, deflateRawSync, inflateRawSync, zstdCompressSync, zstdDecompressSync } from 'node:zlib';
import { errorFrom, isTributaryError } from '@tributary/errors';
import { tableErrors } from '../errors.ts';
import { compileSchema, type AvroNode, type AvroSchema, type AvroValue } from './avro.ts';
import { AvroReader, datumReader } from './avro-decoder.ts';
import { AvroWriter, writeDatum } from './avro-encoder.ts';
import { snappyDecompress } from './snappy.ts';

const MAGIC = Uint8Array.of(0x4f, 0x62, 0x6a, 0x01); // "Obj" 1
const SYNC_SIZE = 16;
/** Java's `DataFileConstants.DEFAULT_SYNC_INTERVAL`: a block is flushed once it reaches 64 KiB. */
const DEFAULT_BLOCK_SIZE = 64_000;
const utf8 = new TextEncoder();
// ignoreBOM: a string that starts with U+FEFF keeps it (the default decoder drops a leading one).
const utf8Decoder = new TextDecoder('utf-8', { ignoreBOM: true });

export type AvroWriteCodec = 'null' | 'deflate' | 'zstandard';

export interface AvroWriteOptions {
  readonly codec?: AvroWriteCodec;
  /** zstd level for `zstandard`; Paimon's default `file.compression.zstd-level` is 1. */
  readonly zstdLevel?: number;
  /** Uncompressed bytes per block before it is flushed. */
  readonly blockSize?: number;
}

export interface AvroFile {
  /** The writer's schema, parsed from the `avro.schema` header entry. */
  readonly schema: unknown;
  readonly codec: string;
  readonly metadata: ReadonlyMap<string, Uint8Array>;
  readonly records: AvroValue[];
}

function corrupt(message: string, context: Record<string, number | string> = {}): Error {
  return errorFrom(tableErrors, 'AVRO_CORRUPT', message, context);
}

function compress(codec: AvroWriteCodec, data: Uint8Array, zstdLevel: number): Uint8Array {
  switch (codec) {
    case 'null': return data;
    case 'deflate': return deflateRawSync(data);
    case 'zstandard': return zstdCompressSync(data, { params: { [constants.ZSTD_c_compressionLevel]: zstdLevel } });
  }
}

function decompress(codec: string, data: Uint8Array): Uint8Array {
  try {
    switch (codec) {
      case 'null': return data;
      case 'deflate': return inflateRawSync(data);
      case 'zstandard': return zstdDecompressSync(data);
      case 'snappy': return snappyWithChecksum(data);
    }
  } catch (cause) {
    if (isTributaryError(cause)) throw cause;
    throw errorFrom(tableErrors, 'AVRO_CORRUPT', `cannot decompress ${codec} block`, { codec }, { cause });
  }
  throw errorFrom(tableErrors, 'AVRO_CODEC_UNSUPPORTED', `Avro codec "${codec}" is not supported`, { codec });
}

/** Avro's snappy codec appends the big-endian CRC-32 of the uncompressed block. */
function snappyWithChecksum(data: Uint8Array): Uint8Array {
  if (data.length < 4) throw corrupt('snappy block shorter than its checksum');
  const out = snappyDecompress(data.subarray(0, data.length - 4));
  const expected = new DataView(data.buffer, data.byteOffset + data.length - 4, 4).getUint32(0, false);
  if (crc32(out) !== expected) throw corrupt('snappy block checksum mismatch');
  return out;
}

/**
 * Writer schemas compiled once per schema object: the same node keeps the same encoder, whose
 * closures V8 has already optimised (a manifest schema is one constant, written for every file).
 */
const compiledSchemas = new WeakMap<object, AvroNode>();

export function compiledSchema(schema: AvroSchema): AvroNode {
  if (typeof schema !== 'object') return compileSchema(schema);
  let node = compiledSchemas.get(schema);
  if (node === undefined) {
    node = compileSchema(schema);
    compiledSchemas.set(schema, node);
  }
  return node;
}

/** Encodes `records` as an Avro object container file with `schema` written verbatim. */
export function writeAvroFile(schema: AvroSchema, records: Iterable<AvroValue>, options: AvroWriteOptions = {}): Uint8Array {
  const codec = options.codec ?? 'zstandard';
  const blockSize = options.blockSize ?? DEFAULT_BLOCK_SIZE;
  const schemaJson = JSON.stringify(schema);
  const node = compiledSchema(schema);
  const hash = createHash('md5').update(schemaJson).update(codec);
  const blocks: { count: number; data: Uint8Array }[] = [];
  const body = new AvroWriter();
  let count = 0;
  const flush = (): void => {
    if (count === 0) return;
    const data = compress(codec, body.bytes(), options.zstdLevel ?? 1).slice();
    hash.update(data);
    blocks.push({ count, data });
    body.reset();
    count = 0;
  };
  for (const record of records) {
    writeDatum(body, node, record);
    count++;
    if (body.length >= blockSize) flush();
  }
  flush();
  const sync = new Uint8Array(hash.digest());
  const out = new AvroWriter();
  out.writeFixed(MAGIC);
  writeMetadata(out, new Map([['avro.schema', utf8.encode(schemaJson)], ['avro.codec', utf8.encode(codec)]]));
  out.writeFixed(sync);
  for (const block of blocks) {
    out.writeLong(BigInt(block.count));
    out.writeBytes(block.data);
    out.writeFixed(sync);
  }
  return out.bytes().slice();
}

function writeMetadata(out: AvroWriter, metadata: ReadonlyMap<string, Uint8Array>): void {
  out.writeLong(BigInt(metadata.size));
  for (const [key, value] of metadata) {
    out.writeString(key);
    out.writeBytes(value);
  }
  out.writeLong(0n);
}

function readMetadata(reader: AvroReader): Map<string, Uint8Array> {
  const metadata = new Map<string, Uint8Array>();
  for (let n = reader.readBlockCount(); n > 0; n = reader.readBlockCount()) {
    for (let i = 0; i < n; i++) metadata.set(reader.readString(), reader.readBytes());
  }
  return metadata;
}

function readHeader(reader: AvroReader): { schema: unknown; node: AvroNode; codec: string; metadata: Map<string, Uint8Array>; sync: Uint8Array } {
  const magic = reader.readFixed(Math.min(MAGIC.length, reader.remaining));
  if (magic.length !== MAGIC.length || magic.some((b, i) => b !== MAGIC[i])) throw corrupt('not an Avro object container file (bad magic)');
  const metadata = readMetadata(reader);
  const schemaBytes = metadata.get('avro.schema');
  if (schemaBytes === undefined) throw corrupt('Avro header has no avro.schema');
  let schema: unknown;
  try {
    schema = JSON.parse(utf8Decoder.decode(schemaBytes));
  } catch (cause) {
    throw errorFrom(tableErrors, 'AVRO_SCHEMA_INVALID', 'avro.schema is not JSON', {}, { cause });
  }
  const codecBytes = metadata.get('avro.codec');
  const codec = codecBytes === undefined ? 'null' : utf8Decoder.decode(codecBytes);
  const sync = reader.readFixed(SYNC_SIZE).slice();
  return { schema, node: compileSchema(schema), codec, metadata, sync };
}

/** Decodes a whole Avro object container file, reading every record with the writer's schema. */
export function readAvroFile(bytes: Uint8Array): AvroFile {
  const reader = new AvroReader(bytes);
  const { schema, node, codec, metadata, sync } = readHeader(reader);
  const records: AvroValue[] = [];
  const readRecord = datumReader(node);
  while (reader.remaining > 0) {
    const count = reader.readLong();
    const size = reader.readLength();
    const block = decompress(codec, reader.readFixed(size));
    const marker = reader.readFixed(SYNC_SIZE);
    if (marker.some((b, i) => b !== sync[i])) throw corrupt('sync marker mismatch', { offset: reader.offset });
    const blockReader = new AvroReader(block);
    for (let i = 0n; i < count; i++) records.push(readRecord(blockReader));
    if (blockReader.remaining !== 0) throw corrupt('trailing bytes in an Avro block', { offset: reader.offset });
  }
  return { schema, codec, metadata, records };
}
