/**
 * The changelog rule of one load (changelog.ts, `keyOutcome`) applied to a batch of merged
 * key-value records column by column: the bucket job's column-wise changelog path.
 *
 *   merged records (keys, `_SEQUENCE_NUMBER`, `_VALUE_KIND`, table columns; one per key, key order)
 *   + each key's before-image (or none)
 *     ─► per row, where its data record and changelog rows come from: the merged row itself (+I, +U
 *        after images), the before-image (-U, -D), rarely a row keyOutcome built anew
 *     ─► the data batch and the changelog batch gathered from those rows column by column
 *        (format/batch-merge.ts SegmentBuilder), their `_SEQUENCE_NUMBER` and `_VALUE_KIND` columns
 *        written per row
 *
 * A key without a before-image (most keys of a load that inserts) never becomes a row of values:
 * an upsert is `+I` of the merged row, a delete is nothing. A key with one goes through
 * `keyOutcome` itself (its after row converted from the columns), so the rule has one home.
 * Timestamps are cut to their column's precision column by column first (canonicalRow's cut), so a
 * merged row is the canonical row keyOutcome would use. Pure: batches in, batches out.
 */
import type { InternalRow, InternalValue, RowType } from '../spec/types.ts';
import { SegmentBuilder } from './batch-merge.ts';
import { batchFromRows, valueAt, type Column, type ColumnBatch } from './column-batch.ts';
import { keyOutcome, type ChangelogRow, type ChangelogRules, type StoredRecord } from './changelog.ts';
import { RowKind, isRetract } from './key-value.ts';

/** The changelog rows one batch gave, by kind (a -U/+U pair counts once, as an update). */
export interface ChangelogCounts {
  inserts: number;
  updates: number;
  deletes: number;
}

export interface ChangelogBatchResult {
  /** The data records (+I, +U, -D), in key order; undefined when no key changed. */
  readonly data: ColumnBatch | undefined;
  /** The changelog rows, in key order, each -U right before its +U; undefined when none. */
  readonly changelog: ColumnBatch | undefined;
  /** The sequence number after the last one this batch used. */
  readonly next: bigint;
}

export interface ChangelogBatchLayout {
  /** The key-value record row type (keyValueRowType of the table's row type and trimmed keys). */
  readonly recordType: RowType;
  /** Per trimmed primary key, its column index in the table's row type. */
  readonly keyIndex: readonly number[];
}

const RECORDS = 0;
const BEFORE = 1;
const BUILT = 2;

/** Where each output row comes from, and its sequence number and kind. */
class Picks {
  readonly source: number[] = [];
  readonly row: number[] = [];
  readonly sequence: bigint[] = [];
  readonly kind: number[] = [];

  add(source: number, row: number, sequence: bigint, kind: number): void {
    this.source.push(source);
    this.row.push(row);
    this.sequence.push(sequence);
    this.kind.push(kind);
  }
}

/**
 * The data and changelog records of one batch of merged records. `images[i]` is row i's key's
 * stored record in the base snapshot (null: absent); `next` the first sequence number to give.
 * Counts are added to `counts`.
 */
export function changelogBatch(
  records: ColumnBatch,
  images: readonly (StoredRecord | null)[],
  rules: ChangelogRules,
  layout: ChangelogBatchLayout,
  next: bigint,
  counts: ChangelogCounts,
): ChangelogBatchResult {
  const k = layout.keyIndex.length;
  const batch = canonicalTimestamps(records, rules, k);
  const kinds = batch.columns[k + 1] as Column;
  const fields = batch.columns.slice(k + 2);
  const before: InternalRow[] = [];
  const beforeAt = new Int32Array(batch.length).fill(-1);
  const built: InternalRow[] = [];
  const data = new Picks();
  const changelog = new Picks();
  for (let i = 0; i < batch.length; i++) {
    const image = images[i] ?? null;
    const retract = isRetract(valueAt(kinds, i) as number);
    if (image === null) {
      // keyOutcome without a before-image: an upsert is +I of the row, a delete changes nothing.
      if (retract) continue;
      const sequence = next++;
      data.add(RECORDS, i, sequence, RowKind.INSERT);
      changelog.add(RECORDS, i, sequence, RowKind.INSERT);
      counts.inserts++;
      continue;
    }
    const after: InternalValue[] = fields.map((c) => valueAt(c, i));
    const outcome = keyOutcome(image, { kind: retract ? 'delete' : 'upsert', row: after }, rules);
    if (outcome.data === null) continue;
    const sourceOf = (row: InternalRow): [number, number] => {
      if (row === after) return [RECORDS, i];
      if (row === image.row) {
        if (beforeAt[i] === -1) beforeAt[i] = before.push(recordOf(row, image.sequenceNumber, layout.keyIndex)) - 1;
        return [BEFORE, beforeAt[i] as number];
      }
      return [BUILT, built.push(recordOf(row, 0n, layout.keyIndex)) - 1];
    };
    const sequence = next++;
    data.add(...sourceOf(outcome.data.row), sequence, outcome.data.kind);
    for (const row of outcome.changelog) {
      changelog.add(...sourceOf(row.row), row.sequence === 'before' ? image.sequenceNumber : sequence, row.kind);
      countChangelogRow(counts, row);
    }
  }
  const sources = [batch, batchFromRows(layout.recordType, before), batchFromRows(layout.recordType, built)];
  return { data: gather(layout, k, sources, data), changelog: gather(layout, k, sources, changelog), next };
}

/** A key-value record of a table row: its trimmed key, a sequence number and a placeholder kind. */
function recordOf(row: InternalRow, sequence: bigint, keyIndex: readonly number[]): InternalRow {
  return [...keyIndex.map((i) => row[i] ?? null), sequence, RowKind.INSERT, ...row];
}

/** The picked rows as one batch of the record type, with the picks' sequence numbers and kinds. */
function gather(layout: ChangelogBatchLayout, k: number, sources: readonly ColumnBatch[], picks: Picks): ColumnBatch | undefined {
  const length = picks.row.length;
  if (length === 0) return undefined;
  const out = new SegmentBuilder(layout.recordType, new Map(layout.keyIndex.map((f, i) => [i, k + 2 + f])));
  for (let r = 0; r < length; r++) out.push(sources[picks.source[r] as number] as ColumnBatch, picks.row[r] as number);
  const taken = out.take();
  const columns = [...taken.columns];
  columns[k] = { kind: 'int64', values: BigInt64Array.from(picks.sequence), validity: undefined };
  columns[k + 1] = { kind: 'int32', values: Int32Array.from(picks.kind), validity: undefined };
  return { ...taken, columns };
}

/** Counts one changelog row in `counts` (a -U counts nothing: its +U counts the update). */
export function countChangelogRow(counts: ChangelogCounts, row: Pick<ChangelogRow, 'kind'>): void {
  if (row.kind === RowKind.INSERT) counts.inserts++;
  else if (row.kind === RowKind.DELETE) counts.deletes++;
  else if (row.kind === RowKind.UPDATE_AFTER) counts.updates++;
}

/**
 * The batch with each TIMESTAMP / TIMESTAMP_LTZ column of precision ≤ 6 cut to it (canonicalRow,
 * column by column); the batch itself when nothing needs a cut (rows read back from a data file
 * never do).
 */
function canonicalTimestamps(batch: ColumnBatch, rules: ChangelogRules, k: number): ColumnBatch {
  let columns: Column[] | undefined;
  rules.types.forEach((type, f) => {
    if ((type.root !== 'TIMESTAMP' && type.root !== 'TIMESTAMP_LTZ') || type.precision > 6) return;
    const column = batch.columns[k + 2 + f] as Column & { kind: 'timestamp' };
    const unit = type.precision <= 3 ? 1_000_000 : 1000;
    if (column.nanos.every((n) => n % unit === 0)) return;
    const nanos = column.nanos.map((n) => n - (n % unit));
    columns ??= [...batch.columns];
    columns[k + 2 + f] = { ...column, nanos };
  });
  // A _KEY_ column keeps its uncut values: the output takes every key column from its field's column.
  return columns === undefined ? batch : { ...batch, columns };
}
