/**
 * The encoding of a load's sorted runs (a sync's bucketed layout): ColumnBatches written by a shard
 * job and read back, once, by the bucket job that merges them. Runs are staging, never part of the
 * table and never read by a Paimon reader, so they are not Parquet: a run is the columns' typed
 * arrays as they are in memory, with no statistics, dictionary, page or compression, and reads
 * back as views of the bytes read (strings: one UTF-8 decode per column per block).
 *
 *   segment = header · block* · end
 *   header  = "TRUN" · u8 version (1) · 3 zero bytes                                  8 bytes
 *   block   = record(BLOCK, rows, body length, CRC32C of the body) · body
 *   end     = record(END, total rows, number of blocks, 0)
 *   record  = u32 tag · u32 · u32 · u32 (little-endian)                                 16 bytes
 *   body    = one section per column of the row type, each starting at a multiple of 8:
 *             u8 kind · u8 has validity · 2 zero bytes · u32 (alias: the column it repeats;
 *             string: the UTF-8 byte length; else 0)
 *             [validity: one byte per row] · data
 *   data    bool: u8 per row · int32/float32: 4 bytes · int64/float64: 8 bytes
 *           timestamp: f64 millis, then i32 nanos of the milli · bigint: i64 low word, i64 high word
 *           string: u32 offsets in UTF-16 units (rows + 1), then the UTF-8 bytes of the values joined
 *           binary: u32 byte offsets (rows + 1), then the bytes
 *           alias: nothing, the column is the same as an earlier one (a key-value batch's _KEY_
 *           columns are its key fields' columns)
 *
 * Every part of a section is padded to 8 bytes. The segment's CRC32C (of all its bytes) is
 * carried by whoever references the segment (its name in the shard's blob, see
 * write/run-spill.ts) and checked when the run is read, with its length and its rows: a truncated,
 * altered or swapped run is refused (RUN_TRUNCATED, RUN_CORRUPT) and no value of a block whose own
 * CRC does not match is ever decoded.
 */
import { crc32c } from '@node-rs/crc32';
import { errorFrom } from '@tributary/errors';
import { tableErrors } from '../errors.ts';
import type { RowType } from '../spec/types.ts';
import { columnKindOf, type Column, type ColumnBatch, type ColumnKind } from './column-batch.ts';

export const RUN_VERSION = 1;
const MAGIC = 0x4e555254; // "TRUN" little-endian
const BLOCK = 0x4b4c4254; // "TBLK"
const END = 0x444e4554; // "TEND"
export const RUN_HEADER_BYTES = 8;
export const RUN_RECORD_BYTES = 16;

const KIND_CODE: Readonly<Record<ColumnKind, number>> = { bool: 1, int32: 2, int64: 3, float32: 4, float64: 5, bigint: 6, string: 7, binary: 8, timestamp: 9 };
const ALIAS = 0xff;
const TWO_64 = 1n << 64n;

if (new Uint8Array(new Uint16Array([1]).buffer)[0] !== 1) throw new Error('the run codec assumes a little-endian host');

const pad8 = (n: number): number => (n + 7) & ~7;
const utf8Encoder = new TextEncoder();
// ignoreBOM: a value that starts with U+FEFF keeps it (the default decoder drops a leading one).
const utf8Decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

export function runHeader(): Uint8Array {
  const out = new Uint8Array(RUN_HEADER_BYTES);
  const view = new DataView(out.buffer);
  view.setUint32(0, MAGIC, true);
  out[4] = RUN_VERSION;
  return out;
}

function record(tag: number, a: number, b: number, c: number): Uint8Array {
  const out = new Uint8Array(RUN_RECORD_BYTES);
  const view = new DataView(out.buffer);
  view.setUint32(0, tag, true);
  view.setUint32(4, a, true);
  view.setUint32(8, b, true);
  view.setUint32(12, c, true);
  return out;
}

export function runEnd(rows: number, blocks: number): Uint8Array {
  return record(END, rows, blocks, 0);
}

/**
 * One block: its record and body, rows [start, end) of every column (the caller keeps blocks under
 * 4 GiB). A column that appears twice in the batch (the same object) is written once.
 */
export function encodeRunBlock(batch: ColumnBatch, start = 0, end = batch.length): Uint8Array[] {
  const rows = end - start;
  const parts: Uint8Array[] = [];
  let length = 0;
  const push = (bytes: Uint8Array): void => {
    parts.push(bytes);
    length += bytes.length;
    const padding = pad8(bytes.length) - bytes.length;
    if (padding > 0) {
      parts.push(new Uint8Array(padding));
      length += padding;
    }
  };
  const seen = new Map<Column, number>();
  batch.columns.forEach((column, index) => {
    const head = new Uint8Array(8);
    const alias = seen.get(column);
    if (alias !== undefined) {
      head[0] = ALIAS;
      new DataView(head.buffer).setUint32(4, alias, true);
      push(head);
      return;
    }
    seen.set(column, index);
    head[0] = KIND_CODE[column.kind];
    head[1] = column.validity === undefined ? 0 : 1;
    push(head);
    if (column.validity !== undefined) push(column.validity.subarray(start, end));
    switch (column.kind) {
      case 'bool':
      case 'int32':
      case 'int64':
      case 'float32':
      case 'float64':
        push(bytesOf(column.values.subarray(start, end)));
        return;
      case 'timestamp':
        push(bytesOf(column.millis.subarray(start, end)));
        push(bytesOf(column.nanos.subarray(start, end)));
        return;
      case 'bigint': {
        const words = new BigInt64Array(2 * rows);
        for (let i = 0; i < rows; i++) {
          const v = column.values[start + i] as bigint;
          const high = v >> 64n;
          if (high < -(1n << 63n) || high >= 1n << 63n) throw errorFrom(tableErrors, 'DATA_FILE_TYPE_UNSUPPORTED', 'a DECIMAL value beyond 128 bits', { row: start + i });
          words[2 * i] = BigInt.asIntN(64, v);
          words[2 * i + 1] = high;
        }
        push(bytesOf(words));
        return;
      }
      case 'string': {
        const offsets = new Uint32Array(rows + 1);
        let at = 0;
        for (let i = 0; i < rows; i++) {
          at += (column.values[start + i] as string).length;
          offsets[i + 1] = at;
        }
        // One encode of the joined values: a lone surrogate becomes U+FFFD (as in a Parquet file),
        // one UTF-16 unit for one, so the offsets stay exact.
        const text = utf8Encoder.encode(start === 0 && end === column.values.length ? column.values.join('') : column.values.slice(start, end).join(''));
        new DataView(head.buffer).setUint32(4, text.length, true);
        push(bytesOf(offsets));
        push(text);
        return;
      }
      case 'binary': {
        const offsets = new Uint32Array(rows + 1);
        let at = 0;
        for (let i = 0; i < rows; i++) {
          at += (column.values[start + i] as Uint8Array).length;
          offsets[i + 1] = at;
        }
        const bytes = new Uint8Array(at);
        for (let i = 0; i < rows; i++) bytes.set(column.values[start + i] as Uint8Array, offsets[i] as number);
        push(bytesOf(offsets));
        push(bytes);
        return;
      }
    }
  });
  // Every byte is written below (padding included): no zero fill needed.
  const body: Uint8Array = Buffer.allocUnsafeSlow(length);
  let at = 0;
  for (const part of parts) {
    body.set(part, at);
    at += part.length;
  }
  return [record(BLOCK, rows, body.length, crc32c(body)), body];
}

function bytesOf(array: ArrayBufferView): Uint8Array {
  return new Uint8Array(array.buffer, array.byteOffset, array.byteLength);
}

/** A record read from a segment: a block (rows, body length, body CRC) or the end (total rows, blocks). */
export type RunRecord = { readonly kind: 'block'; readonly rows: number; readonly length: number; readonly crc: number } | { readonly kind: 'end'; readonly rows: number; readonly blocks: number };

/** What a run's reference says it is, to check it against; `name` is for errors only. */
export interface RunExpectation {
  readonly name: string;
  readonly size: number;
  /** Rows the reference counts, when it does. */
  readonly rows?: number | undefined;
}

export function runCorrupt(expected: RunExpectation, why: string): never {
  throw errorFrom(tableErrors, 'RUN_CORRUPT', `sorted run ${expected.name} is corrupt: ${why}`, { run: expected.name });
}

export function runTruncated(expected: RunExpectation, at: number): never {
  throw errorFrom(tableErrors, 'RUN_TRUNCATED', `sorted run ${expected.name} ends at byte ${at} of ${expected.size}`, { run: expected.name, size: expected.size });
}

export function checkRunHeader(bytes: Uint8Array, expected: RunExpectation): void {
  if (bytes.length < RUN_HEADER_BYTES) runTruncated(expected, bytes.length);
  const view = new DataView(bytes.buffer, bytes.byteOffset, RUN_HEADER_BYTES);
  if (view.getUint32(0, true) !== MAGIC) runCorrupt(expected, 'not a run (bad magic)');
  if (bytes[4] !== RUN_VERSION) runCorrupt(expected, `run encoding version ${bytes[4]}, this reader knows ${RUN_VERSION}`);
  if (bytes[5] !== 0 || bytes[6] !== 0 || bytes[7] !== 0) runCorrupt(expected, 'bad header');
}

export function parseRunRecord(bytes: Uint8Array, expected: RunExpectation): RunRecord {
  if (bytes.length < RUN_RECORD_BYTES) runTruncated(expected, bytes.length);
  const view = new DataView(bytes.buffer, bytes.byteOffset, RUN_RECORD_BYTES);
  const tag = view.getUint32(0, true);
  const a = view.getUint32(4, true);
  const b = view.getUint32(8, true);
  const c = view.getUint32(12, true);
  if (tag === BLOCK) return { kind: 'block', rows: a, length: b, crc: c };
  if (tag === END && c === 0) return { kind: 'end', rows: a, blocks: b };
  return runCorrupt(expected, 'bad record');
}

/**
 * Decodes one block's body (already read, `record` its record) into a batch of `rowType`. The
 * body's CRC is checked before anything is decoded; the columns are views of the body's bytes (of a
 * copy when the body does not start at a multiple of 8 in its buffer, as typed arrays need).
 */
export function decodeRunBlock(rowType: RowType, record: RunRecord & { kind: 'block' }, body: Uint8Array, expected: RunExpectation): ColumnBatch {
  if (body.length !== record.length) runTruncated(expected, body.length);
  if (crc32c(body) !== record.crc) runCorrupt(expected, 'a block does not match its checksum');
  const rows = record.rows;
  const bytes = body.byteOffset % 8 === 0 ? body : Uint8Array.from(body);
  const buffer = bytes.buffer;
  const base = bytes.byteOffset;
  const view = new DataView(buffer, base, bytes.length);
  let at = 0;
  const take = (length: number): number => {
    const start = at;
    if (!(length >= 0) || start + length > bytes.length) runCorrupt(expected, 'a column runs past its block');
    at = start + pad8(length);
    return start;
  };
  const columns: Column[] = [];
  rowType.fields.forEach((field, index) => {
    const head = take(8);
    const code = bytes[head] as number;
    if (code === ALIAS) {
      const of = view.getUint32(head + 4, true);
      const target = of < index ? columns[of] : undefined;
      if (target === undefined || target.kind !== columnKindOf(field.type)) runCorrupt(expected, `column ${index} repeats a column that cannot be its own`);
      columns.push(target);
      return;
    }
    const kind = columnKindOf(field.type);
    if (code !== KIND_CODE[kind]) runCorrupt(expected, `column ${index} is not of the table's type`);
    const hasValidity = bytes[head + 1];
    if ((hasValidity !== 0 && hasValidity !== 1) || bytes[head + 2] !== 0 || bytes[head + 3] !== 0 || (kind !== 'string' && view.getUint32(head + 4, true) !== 0)) {
      runCorrupt(expected, 'bad column header');
    }
    let validity: Uint8Array | undefined;
    if (hasValidity === 1) {
      validity = new Uint8Array(buffer, base + take(rows), rows);
      for (let i = 0; i < rows; i++) if ((validity[i] as number) > 1) runCorrupt(expected, 'bad validity');
    }
    switch (kind) {
      case 'bool':
        columns.push({ kind, validity, values: new Uint8Array(buffer, base + take(rows), rows) });
        return;
      case 'int32':
        columns.push({ kind, validity, values: new Int32Array(buffer, base + take(4 * rows), rows) });
        return;
      case 'float32':
        columns.push({ kind, validity, values: new Float32Array(buffer, base + take(4 * rows), rows) });
        return;
      case 'int64':
        columns.push({ kind, validity, values: new BigInt64Array(buffer, base + take(8 * rows), rows) });
        return;
      case 'float64':
        columns.push({ kind, validity, values: new Float64Array(buffer, base + take(8 * rows), rows) });
        return;
      case 'timestamp':
        columns.push({ kind, validity, millis: new Float64Array(buffer, base + take(8 * rows), rows), nanos: new Int32Array(buffer, base + take(4 * rows), rows) });
        return;
      case 'bigint': {
        const words = new BigInt64Array(buffer, base + take(16 * rows), 2 * rows);
        const values = new Array<bigint>(rows);
        for (let i = 0; i < rows; i++) {
          const low = words[2 * i] as bigint;
          const high = words[2 * i + 1] as bigint;
          values[i] = high === 0n ? BigInt.asUintN(64, low) : high === -1n && low < 0n ? low : high * TWO_64 + BigInt.asUintN(64, low);
        }
        columns.push({ kind, validity, values });
        return;
      }
      case 'string': {
        const offsets = offsetsAt(buffer, base + take(4 * (rows + 1)), rows, expected);
        const length = view.getUint32(head + 4, true);
        const start = take(length);
        const joined = decodeUtf8(bytes.subarray(start, start + length), expected);
        if (offsets[rows] !== joined.length) runCorrupt(expected, 'string offsets do not match the text');
        const values = new Array<string>(rows);
        for (let i = 0; i < rows; i++) values[i] = joined.slice(offsets[i], offsets[i + 1]);
        columns.push({ kind, validity, values });
        return;
      }
      case 'binary': {
        const offsets = offsetsAt(buffer, base + take(4 * (rows + 1)), rows, expected);
        const data = base + take(offsets[rows] as number);
        const values = new Array<Uint8Array>(rows);
        for (let i = 0; i < rows; i++) values[i] = new Uint8Array(buffer, data + (offsets[i] as number), (offsets[i + 1] as number) - (offsets[i] as number));
        columns.push({ kind, validity, values });
        return;
      }
    }
  });
  if (at !== bytes.length) runCorrupt(expected, 'a block holds bytes past its columns');
  return { rowType, length: rows, columns };
}

function offsetsAt(buffer: ArrayBufferLike, start: number, rows: number, expected: RunExpectation): Uint32Array {
  const offsets = new Uint32Array(buffer, start, rows + 1);
  if (offsets[0] !== 0) runCorrupt(expected, 'bad offsets');
  for (let i = 0; i < rows; i++) if ((offsets[i + 1] as number) < (offsets[i] as number)) runCorrupt(expected, 'bad offsets');
  return offsets;
}

function decodeUtf8(bytes: Uint8Array, expected: RunExpectation): string {
  try {
    return utf8Decoder.decode(bytes);
  } catch {
    return runCorrupt(expected, 'a string column is not UTF-8');
  }
}
