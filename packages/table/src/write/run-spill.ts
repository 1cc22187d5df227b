/**
 * Sorted runs spilled as ONE object per spill (a sync's bucketed layout, TableWriteOptions.spill).
 *
 * A writer buffering rows for many (partition, bucket)s writes, at each spill, every bucket's
 * buffered rows as one *segment* of a single run object: the segments one after another, in
 * (partition, bucket) order, each a complete run in the run encoding (format/run-codec.ts), so a
 * segment is read on its own with ranged GETs. A spill thus costs one PUT however many buckets it
 * touches (per-bucket run files cost one PUT and one GET each, which dominated the shard stage of
 * a partitioned load).
 *
 * A segment is named `<object>#<offset>.<sha256>` (RunSegment): the object's name under the runs
 * path, the segment's first byte and the SHA-256 of its bytes (64 hex digits); its length is the
 * DataFileMeta's fileSize and its rows the rowCount. The reader checks all three, so the shard's
 * blob (itself checksummed and voted) pins every byte of every run the bucket job merges: whoever can
 * write the staging area cannot rewrite a run into one that passes (a CRC32C, which the blocks still
 * carry against corruption, can be matched by choosing four bytes; a SHA-256 cannot). A name with an
 * 8-digit CRC32C instead is an older writer's run, refused (RUN_CORRUPT). A name `<object>#<offset>`
 * without a checksum is a Parquet segment of an older writer, and a name without `#` a whole Parquet
 * run file in the bucket's directory (runs written one file per bucket); both are read as Parquet
 * (bucket-merge.ts).
 */
import { createHash } from 'node:crypto';
import { isTributaryError } from '@tributary/errors';
import type { ObjectStore } from '../io/object-store.ts';
import type { FileSink } from '../parquet/parquet-writer.ts';
import type { ColumnBatch } from '../format/column-batch.ts';
import {
  RUN_HEADER_BYTES,
  RUN_RECORD_BYTES,
  checkRunHeader,
  decodeRunBlock,
  encodeRunBlock,
  parseRunRecord,
  runEnd,
  runHeader,
  runCorrupt,
  runTruncated,
  type RunExpectation,
} from '../format/run-codec.ts';
import type { RowType } from '../spec/types.ts';
import { objectStoreSink } from './object-sink.ts';

/** Where one segment is: the run object's name (under the runs path), its first byte and (run encoding) its checksum. */
export interface RunSegment {
  readonly object: string;
  readonly offset: number;
  /**
   * The SHA-256 of the segment's bytes, 64 hex digits (an older writer's CRC32C: 8 digits, which
   * the reader refuses). Absent: a Parquet segment (an older writer's).
   */
  readonly checksum?: string | undefined;
}

const SEPARATOR = '#';
const SEGMENT = /^([0-9]+)(?:\.([0-9a-f]{64}|[0-9a-f]{8}))?$/;
const SHA256_HEX = /^[0-9a-f]{64}$/;

export function runSegmentName(segment: RunSegment): string {
  return `${segment.object}${SEPARATOR}${segment.offset}${segment.checksum === undefined ? '' : `.${segment.checksum}`}`;
}

/** The segment a run's file name names, or undefined for a whole run file (no `#`). */
export function parseRunSegment(fileName: string): RunSegment | undefined {
  const at = fileName.lastIndexOf(SEPARATOR);
  if (at < 0) return undefined;
  const match = SEGMENT.exec(fileName.slice(at + 1));
  const offset = Number(match?.[1]);
  if (match === null || !Number.isSafeInteger(offset) || at === 0) throw new Error(`not a run segment name: ${fileName}`);
  return { object: fileName.slice(0, at), offset, checksum: match[2] };
}

/** One segment written: its name in the blob, its length and rows. */
export interface WrittenSegment {
  readonly name: string;
  readonly size: number;
  readonly rows: number;
}

/** Rows per block of a segment by default (a bucket job holds one block of each run it merges). */
export const RUN_BLOCK_ROWS = 4096;

/**
 * One spill being written: one object put (streamed), its segments written one after another
 * (each `writeSegment` awaited before the next).
 */
export class RunSpill {
  readonly #object: string;
  readonly #sink: FileSink;
  readonly #blockRows: number;
  #written = 0;

  /** `key`: the object's key in the store; `object`: its name under the runs path. */
  constructor(store: ObjectStore, key: string, object: string, blockRows = RUN_BLOCK_ROWS) {
    this.#object = object;
    // Every byte is checked against the segments' SHA-256s when read (readRunSegment).
    this.#sink = objectStoreSink(store, key, { readerVerifies: true });
    this.#blockRows = Math.max(1, blockRows);
  }

  /** Writes `batch` (rows [0, length)) as the next segment. */
  async writeSegment(batch: ColumnBatch): Promise<WrittenSegment> {
    return this.writeSegmentOf([batch]);
  }

  /**
   * Writes the batches, one after another, as the next segment, holding one batch at a time (a
   * bucket job's intermediate merge streams its merged rows this way).
   */
  async writeSegmentOf(batches: Iterable<ColumnBatch> | AsyncIterable<ColumnBatch>): Promise<WrittenSegment> {
    const offset = this.#written;
    const hash = createHash('sha256');
    const write = async (parts: readonly Uint8Array[]): Promise<void> => {
      for (const part of parts) {
        hash.update(part);
        await this.#sink.write(part);
        this.#written += part.length;
      }
    };
    await write([runHeader()]);
    let blocks = 0;
    let rows = 0;
    for await (const batch of batches) {
      for (let start = 0; start < batch.length; start += this.#blockRows) {
        const end = Math.min(batch.length, start + this.#blockRows);
        await write(encodeRunBlock(batch, start, end));
        blocks += 1;
      }
      rows += batch.length;
    }
    await write([runEnd(rows, blocks)]);
    return { name: runSegmentName({ object: this.#object, offset, checksum: hash.digest('hex') }), size: this.#written - offset, rows };
  }

  get bytes(): number {
    return this.#written;
  }

  /** Completes the object's put: only now are the segments in the store. */
  async close(): Promise<void> {
    await this.#sink.close();
  }

  async abort(reason: unknown): Promise<void> {
    await this.#sink.abort?.(reason);
  }
}

/** How a segment in the run encoding is read. */
export interface RunSegmentRead {
  readonly store: ObjectStore;
  /** The run object's key in the store. */
  readonly key: string;
  readonly segment: RunSegment & { readonly checksum: string };
  /** The segment's length (the blob's fileSize). */
  readonly size: number;
  /** The segment's rows, when the reference counts them (the bucket plan does). */
  readonly rows?: number | undefined;
  /** Read the segment in one request (it fits the caller's memory budget); else block by block. */
  readonly whole: boolean;
}

/**
 * The batches of one segment, block by block. Its bytes are checked against its name's SHA-256, its
 * length and its rows: a whole segment before any batch is returned, a segment read block by
 * block as it goes (each block's own CRC32C before it is decoded, the SHA-256 of the whole at its
 * end, so an altered segment fails the merge before the merge ends). Errors: RUN_TRUNCATED,
 * RUN_CORRUPT (also for a name pinning the segment by CRC32C only: an older writer's).
 */
export async function* readRunSegment(read: RunSegmentRead, rowType: RowType): AsyncGenerator<ColumnBatch> {
  const { store, key, segment, size } = read;
  const expected: RunExpectation = { name: runSegmentName(segment), size, rows: read.rows };
  if (!SHA256_HEX.test(segment.checksum)) runCorrupt(expected, 'its reference pins it by a CRC32C, not a SHA-256 (a run of an older worker: let syncs planned before an upgrade finish)');
  if (size < RUN_HEADER_BYTES + RUN_RECORD_BYTES) runTruncated(expected, size);
  const range = async (offset: number, length: number): Promise<Uint8Array> => {
    let bytes: Uint8Array;
    try {
      bytes = await store.getRange(key, segment.offset + offset, length);
    } catch (error) {
      if (isTributaryError(error) && error.code === 'OBJECT_RANGE_INVALID') runTruncated(expected, offset);
      throw error;
    }
    if (bytes.length !== length) runTruncated(expected, offset + bytes.length);
    return bytes;
  };
  const whole = read.whole ? await range(0, size) : undefined;
  if (whole !== undefined && sha256Hex(whole) !== segment.checksum) runCorrupt(expected, 'its bytes do not match its checksum');
  const hash = createHash('sha256');
  /** Bytes [offset, offset + length) of the segment, counted into the running hash (read in order). */
  const next = async (offset: number, length: number): Promise<Uint8Array> => {
    const bytes = whole === undefined ? await range(offset, length) : whole.subarray(offset, offset + length);
    if (whole === undefined) hash.update(bytes);
    return bytes;
  };
  let at = 0;
  const first = await next(0, RUN_HEADER_BYTES + RUN_RECORD_BYTES);
  checkRunHeader(first, expected);
  let record = parseRunRecord(first.subarray(RUN_HEADER_BYTES), expected);
  at = first.length;
  let rows = 0;
  let blocks = 0;
  while (record.kind === 'block') {
    if (at + record.length + RUN_RECORD_BYTES > size) runTruncated(expected, size);
    const bytes = await next(at, record.length + RUN_RECORD_BYTES);
    at += bytes.length;
    const batch = decodeRunBlock(rowType, record, bytes.subarray(0, record.length), expected);
    rows += batch.length;
    blocks += 1;
    record = parseRunRecord(bytes.subarray(record.length), expected);
    if (batch.length > 0) yield batch;
  }
  if (at !== size) runCorrupt(expected, `it ends at byte ${at}, its reference says ${size}`);
  if (whole === undefined && hash.digest('hex') !== segment.checksum) runCorrupt(expected, 'its bytes do not match its checksum');
  if (record.rows !== rows || record.blocks !== blocks) runCorrupt(expected, 'its end does not count its blocks');
  if (read.rows !== undefined && read.rows !== rows) runCorrupt(expected, `it holds ${rows} rows, its reference says ${read.rows}`);
}

function sha256Hex(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}
