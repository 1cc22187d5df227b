/**
 * The bad-row policy, in one place: what happens to a source row with a value that does not fit its
 * column (SOURCE_ROW_INVALID from the converter: out of range, NULL in a NOT NULL column, a value of
 * the wrong kind).
 *
 * - `fail`: the error goes on, so the shard fails naming the shard, the row's position in it and the
 *   column (and the file and its row, for files), never a value; the sync aborts.
 * - `reject`: the row is left out of the batch and kept as one JSON line of the shard's rejects
 *   file: `{shard, row, column, reason, file?, fileRow?, values}`, where `values` holds the row's
 *   source values by column (bigints and decimals as text, bytes as `{base64}`, timestamps as
 *   `{epochMillis, nanoOfMillis}`). The file is data, written beside the shard's blob in the
 *   warehouse's staging area; values never go into an error, a log or a metric.
 *
 * Any other error (a malformed file, a read failure) fails the shard under either policy.
 */
import { errorFrom, isTributaryError } from '@tributary/protocol';
import type { InternalRow } from '@tributary/table';
import type { SourceBatch, SourceColumn, SourceRow, SourceValue } from '../source.ts';
import { sourceErrors } from '../errors.ts';
import type { RowConverter } from './convert.ts';

/**
 * What one attempt keeps of its rejected rows, in memory until the read ends: past either bound the
 * shard fails with SOURCE_REJECTS_EXCEEDED (a source of mostly bad rows is a problem to fix, and a
 * worker's memory stays bounded whatever the policy).
 */
export const MAX_REJECTED_ROWS = 100_000;
export const MAX_REJECTS_BYTES = 64 * 1024 * 1024;

export type BadRowPolicy = 'fail' | 'reject';

export interface BatchConverter {
  /** The batch's rows converted, less the rows rejected (`reject`); throws the first bad row (`fail`). */
  convert(batch: SourceBatch): InternalRow[];
  /** Rows rejected so far. */
  readonly rejected: number;
  /** The rejects file's content (NDJSON, in row order); empty when nothing was rejected. */
  rejectsFile(): Uint8Array;
}

export function batchConverter(convert: RowConverter, columns: readonly SourceColumn[], policy: BadRowPolicy, limits = { rows: MAX_REJECTED_ROWS, bytes: MAX_REJECTS_BYTES }): BatchConverter {
  const lines: string[] = [];
  let bytes = 0;
  return {
    convert(batch) {
      const out: InternalRow[] = [];
      batch.rows.forEach((row, i) => {
        const origin = batch.file && { uri: batch.file.uri, row: batch.file.firstRow + i };
        try {
          out.push(convert(row, batch.firstRowPosition + i, origin));
        } catch (error) {
          if (policy !== 'reject' || !isTributaryError(error) || error.code !== 'SOURCE_ROW_INVALID') throw error;
          const line = rejectLine(error.context, error.message, row, columns);
          bytes += Buffer.byteLength(line) + 1;
          if (lines.length >= limits.rows || bytes > limits.bytes) {
            const shard = String(error.context.shard);
            throw errorFrom(sourceErrors, 'SOURCE_REJECTS_EXCEEDED', `shard ${shard} rejected more than ${limits.rows} rows or ${limits.bytes} bytes of rows; fix the source or the table's types`, {
              shard,
              rejected: lines.length,
            });
          }
          lines.push(line);
        }
      });
      return out;
    },
    get rejected() {
      return lines.length;
    },
    rejectsFile: () => new TextEncoder().encode(lines.map((l) => `${l}\n`).join('')),
  };
}

function rejectLine(context: Readonly<Record<string, unknown>>, reason: string, row: SourceRow, columns: readonly SourceColumn[]): string {
  const values = Object.fromEntries(columns.map((c, i) => [c.name, jsonValue(row[i] ?? null)]));
  const { shard, position, column, file, fileRow } = context;
  return JSON.stringify({ shard, row: position, column, reason, ...(file === undefined ? {} : { file, fileRow }), values });
}

/** A source value as JSON, exactly: nothing rounded, bytes and instants in an explicit form. */
export function jsonValue(value: SourceValue): unknown {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number') return Number.isFinite(value) ? value : String(value);
  if (typeof value === 'bigint') return value.toString();
  if (value instanceof Uint8Array) return { base64: Buffer.from(value).toString('base64') };
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? 'Invalid Date' : value.toISOString();
  return { epochMillis: value.epochMillis, nanoOfMillis: value.nanoOfMillis };
}
