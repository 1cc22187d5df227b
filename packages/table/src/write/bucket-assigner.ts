/**
 * The bucket of every row of a batch, column-wise (FixedBucketRowKeyExtractor.bucket for a whole
 * batch): Math.abs(BinaryRow(bucket key).hashCode() % N).
 *
 * Encoding one BinaryRow object per row dominated the write path, so keys made only of INT, DATE,
 * TIME and BIGINT fields (the usual ids) are written straight from the typed arrays into one
 * reused row buffer, with BinaryRowWriter's layout: null bits from bit 8 of the header, one
 * little-endian 8-byte slot per field, unused bytes zero. Every other key goes through
 * encodeBinaryRow row by row. The two paths are checked against each other in the unit tests.
 */
import { valueAt, type Column, type ColumnBatch } from '../format/column-batch.ts';
import { bitSetWidthInBytes, encodeBinaryRow } from '../spec/binary-row.ts';
import { bucketOfHash, murmurHashBinaryRow } from '../spec/bucket.ts';
import type { DataType } from '../spec/types.ts';

const FAST_ROOTS = new Set(['INT', 'DATE', 'TIME', 'BIGINT']);

/** Whether keys of these types take the typed-array path. */
export function hasFastBucketPath(types: readonly DataType[]): boolean {
  return types.length > 0 && types.every((t) => FAST_ROOTS.has(t.root));
}

/** One bucket per row of `batch`, for the key columns at `indices` (of `types`). */
export function assignBuckets(batch: ColumnBatch, indices: readonly number[], types: readonly DataType[], numBuckets: number): Int32Array {
  const columns = indices.map((i) => batch.columns[i] as Column);
  return hasFastBucketPath(types) ? fastBuckets(batch.length, columns, numBuckets) : slowBuckets(batch.length, columns, types, numBuckets);
}

function slowBuckets(length: number, columns: readonly Column[], types: readonly DataType[], numBuckets: number): Int32Array {
  const out = new Int32Array(length);
  for (let row = 0; row < length; row++) {
    const bytes = encodeBinaryRow(columns.map((c) => valueAt(c, row)), types);
    out[row] = bucketOfHash(murmurHashBinaryRow(bytes), numBuckets);
  }
  return out;
}

function fastBuckets(length: number, columns: readonly Column[], numBuckets: number): Int32Array {
  const header = bitSetWidthInBytes(columns.length);
  const row = new Uint8Array(header + 8 * columns.length);
  const view = new DataView(row.buffer);
  const out = new Int32Array(length);
  for (let r = 0; r < length; r++) {
    row.fill(0);
    for (let f = 0; f < columns.length; f++) {
      const column = columns[f] as Column;
      const offset = header + 8 * f;
      if (column.validity !== undefined && column.validity[r] === 0) {
        const bit = f + 8;
        row[bit >> 3] = (row[bit >> 3] as number) | (1 << (bit & 7));
      } else if (column.kind === 'int32') {
        view.setInt32(offset, column.values[r] as number, true);
      } else if (column.kind === 'int64') {
        view.setBigInt64(offset, column.values[r] as bigint, true);
      }
    }
    out[r] = bucketOfHash(murmurHashBinaryRow(row), numBuckets);
  }
  return out;
}
