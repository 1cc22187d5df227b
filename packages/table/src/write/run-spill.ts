/**
 * Sorted runs spilled as ONE object per spill (a sync's bucketed layout, TableWriteOptions.spill).
 *
 * A writer buffering rows for many (partition, bucket)s writes, at each spill, every bucket's
 * buffered rows as one *segment* of a single run object: the segments one after another, in
 * (partition, bucket) order, each a complete Parquet file (its own row groups and footer), so a
 * segment is read on its own with one ranged GET and the usual Parquet reader. A spill thus costs
 * one PUT however many buckets it touches (per-bucket run files cost one PUT, one footer and one
 * GET each, which dominated the shard stage of a partitioned load).
 *
 * A segment is named `<object>#<offset>` (RunSegment): the object's name under the runs path and
 * the segment's first byte; its length is the DataFileMeta's fileSize. A name without `#` is a
 * whole run file in the bucket's directory (runs written one file per bucket).
 */
import type { ObjectStore } from '../io/object-store.ts';
import type { FileSink } from '../parquet/parquet-writer.ts';
import { objectStoreSink } from './object-sink.ts';

/** Where one segment is: the run object's name (under the runs path) and the segment's first byte. */
export interface RunSegment {
  readonly object: string;
  readonly offset: number;
}

const SEPARATOR = '#';

export function runSegmentName(segment: RunSegment): string {
  return `${segment.object}${SEPARATOR}${segment.offset}`;
}

/** The segment a run's file name names, or undefined for a whole run file (no `#`). */
export function parseRunSegment(fileName: string): RunSegment | undefined {
  const at = fileName.lastIndexOf(SEPARATOR);
  if (at < 0) return undefined;
  const offset = Number(fileName.slice(at + 1));
  if (!(Number.isSafeInteger(offset) && offset >= 0) || at === 0) throw new Error(`not a run segment name: ${fileName}`);
  return { object: fileName.slice(0, at), offset };
}

/**
 * One spill being written: one object put (streamed), whose segments are the files the bucket
 * writers open while it is the current spill. Segments must be written one at a time (a writer
 * opens, writes and closes its file before the next one opens): their bytes are contiguous.
 */
export class RunSpill {
  readonly #object: string;
  readonly #sink: FileSink;
  #written = 0;
  #open = false;
  /** The data file name a bucket writer gave each segment → its name in the blob. */
  readonly #segments = new Map<string, string>();

  /** `key`: the object's key in the store; `object`: its name under the runs path. */
  constructor(store: ObjectStore, key: string, object: string) {
    this.#object = object;
    this.#sink = objectStoreSink(store, key);
  }

  /** The sink of one segment (FileSink of a bucket writer's next file); its close ends the segment, not the object. */
  segmentSink(fileName: string): FileSink {
    if (this.#open) throw new Error('RunSpill: a segment is already open');
    this.#open = true;
    this.#segments.set(fileName, runSegmentName({ object: this.#object, offset: this.#written }));
    return {
      write: async (chunk) => {
        await this.#sink.write(chunk);
        this.#written += chunk.length;
      },
      close: () => {
        this.#open = false;
        return Promise.resolve();
      },
      abort: (reason) => this.abort(reason),
    };
  }

  /** Each segment's name in the blob, keyed by the file name its writer gave it. */
  get segments(): ReadonlyMap<string, string> {
    return this.#segments;
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
