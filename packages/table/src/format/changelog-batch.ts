/**
 * The changelog rule of one load (changelog.ts) applied to a batch of merged key-value records
 * column by column: the bucket job's column-wise changelog path.
 *
 *   merged records (keys, `_SEQUENCE_NUMBER`, `_VALUE_KIND`, table columns; one per key, key order)
 *   + each key's before-image (or none)
 *     ─► the before-images as one batch; each merged row compared with its before-image column by
 *        column in place (how it differs: not at all, only in ignored fields, or in another)
 *     ─► per row, its outcome (changelog.ts `storedKeyOutcome`, the rule's one home) and where its
 *        data record and changelog rows come from: the merged row (+I, +U after images) or the
 *        before-image (-U, -D)
 *     ─► the data batch and the changelog batch gathered from those rows column by column
 *        (format/batch-merge.ts SegmentBuilder), their `_SEQUENCE_NUMBER` and `_VALUE_KIND` columns
 *        written per row
 *
 * A key without a before-image (most keys of a load that inserts) never becomes a row of values:
 * an upsert is `+I` of the merged row, a delete is nothing. A batch of nothing but such upserts
 * (a load's new keys, above the stored ones) is not gathered at all: its data and changelog batch
 * are one batch, the merged columns with new `_SEQUENCE_NUMBER` and `_VALUE_KIND` columns. With
 * `sequence.field` (where the stored row may win on the user sequence) a key with a before-image
 * goes through `keyOutcome` itself, its after row converted from the columns. Timestamps are cut to
 * their column's precision column by column first (canonicalRow's cut), so a merged row is the
 * canonical row keyOutcome would use. Pure: batches in, batches out.
 */
import type { InternalRow, InternalValue, RowType } from '../spec/types.ts';
import { SegmentBuilder, compareAt, prepareColumns, type PreparedColumns } from './batch-merge.ts';
import { batchFromRows, valueAt, type Column, type ColumnBatch } from './column-batch.ts';
import { Difference, StoredOutcome, keyOutcome, storedKeyOutcome, type ChangelogRow, type ChangelogRules, type StoredRecord } from './changelog.ts';
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

/**
 * Where each output row comes from, its kind and its sequence number: a new one (`offset` from the
 * batch's first, as a number) or a before-image's (`stored`, offset -1), so a row's number becomes
 * a BigInt only in the output column.
 */
class Picks {
  readonly source: Uint8Array;
  readonly row: Int32Array;
  readonly kind: Int32Array;
  readonly offset: Int32Array;
  readonly stored: bigint[] = [];
  length = 0;

  constructor(capacity: number) {
    this.source = new Uint8Array(capacity);
    this.row = new Int32Array(capacity);
    this.kind = new Int32Array(capacity);
    this.offset = new Int32Array(capacity);
  }

  add(source: number, row: number, kind: number, offset: number, stored?: bigint): void {
    const n = this.length++;
    this.source[n] = source;
    this.row[n] = row;
    this.kind[n] = kind;
    this.offset[n] = offset;
    if (stored !== undefined) this.stored.push(stored);
  }

  /** The `_SEQUENCE_NUMBER` column: `first` + offset, or the stored numbers in order. */
  sequences(first: bigint): BigInt64Array {
    const out = new BigInt64Array(this.length);
    const words = new Int32Array(out.buffer);
    const base = new Int32Array(BigInt64Array.of(first).buffer);
    const low = (base[LOW] as number) >>> 0;
    const high = base[HIGH] as number;
    let stored = 0;
    for (let i = 0; i < this.length; i++) {
      const offset = this.offset[i] as number;
      if (offset < 0) {
        out[i] = this.stored[stored++] as bigint;
        continue;
      }
      // first + offset on the two 32-bit words (offset < 2^31): no BigInt per row.
      const sum = low + offset;
      const carry = sum >= TWO_32 ? 1 : 0;
      words[2 * i + LOW] = sum - carry * TWO_32;
      words[2 * i + HIGH] = high + carry;
    }
    return out;
  }
}

/** `first`, `first` + 1, … (`length` numbers, below 2^31 of them), on the two 32-bit words as Picks.sequences. */
function consecutive(first: bigint, length: number): BigInt64Array {
  const out = new BigInt64Array(length);
  const words = new Int32Array(out.buffer);
  const base = new Int32Array(BigInt64Array.of(first).buffer);
  const low = (base[LOW] as number) >>> 0;
  const high = base[HIGH] as number;
  for (let i = 0; i < length; i++) {
    const sum = low + i;
    const carry = sum >= TWO_32 ? 1 : 0;
    words[2 * i + LOW] = sum - carry * TWO_32;
    words[2 * i + HIGH] = high + carry;
  }
  return out;
}

const TWO_32 = 2 ** 32;
const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;
const LOW = LITTLE_ENDIAN ? 0 : 1;
const HIGH = LITTLE_ENDIAN ? 1 : 0;

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
  if (insertsOnly(batch, kinds, images)) return inserts(batch, layout, next, counts);
  const kindValues = (kinds as Column & { kind: 'int32' }).values;
  // The before-images as one batch of the table's columns (row j: the j-th record with one).
  const storedRows: InternalRow[] = [];
  const storedAt = new Int32Array(batch.length);
  for (let i = 0; i < batch.length; i++) {
    const image = images[i] ?? null;
    storedAt[i] = image === null ? -1 : storedRows.push(image.row) - 1;
  }
  const stored = batchFromRows({ fields: layout.recordType.fields.slice(k + 2) }, storedRows);
  // How each merged row differs from its stored row, compared column by column. With sequence.field
  // (the stored row may win on the user sequence) keyOutcome decides each such key from its rows.
  const differences = rules.sequenceFields.length === 0 ? differencesOf(batch, k, stored, storedAt, rules.ignored) : undefined;
  const fields = batch.columns.slice(k + 2);
  /** Rows keyOutcome made anew (none in practice: a merged row is canonical already), as records. */
  const built: InternalRow[] = [];
  const data = new Picks(batch.length);
  const changelog = new Picks(2 * batch.length);
  let issued = 0;
  for (let i = 0; i < batch.length; i++) {
    const retract = isRetract(kindValues[i] as number);
    const j = storedAt[i] as number;
    if (j < 0) {
      // keyOutcome without a before-image: an upsert is +I of the row, a delete changes nothing.
      if (retract) continue;
      const offset = issued++;
      data.add(RECORDS, i, RowKind.INSERT, offset);
      changelog.add(RECORDS, i, RowKind.INSERT, offset);
      counts.inserts++;
      continue;
    }
    const image = images[i] as StoredRecord;
    if (differences === undefined) {
      const after: InternalValue[] = fields.map((c) => valueAt(c, i));
      const outcome = keyOutcome(image, { kind: retract ? 'delete' : 'upsert', row: after }, rules);
      if (outcome.data === null) continue;
      const offset = issued++;
      // A row of the outcome is the merged row, the before-image or (never in practice) a new row.
      const pick = (target: Picks, row: InternalRow, kind: number, stored?: bigint): void => {
        if (row === after) target.add(RECORDS, i, kind, stored === undefined ? offset : -1, stored);
        else if (row === image.row) target.add(BEFORE, j, kind, stored === undefined ? offset : -1, stored);
        else target.add(BUILT, built.push(recordOf(row, layout.keyIndex)) - 1, kind, stored === undefined ? offset : -1, stored);
      };
      pick(data, outcome.data.row, outcome.data.kind);
      for (const row of outcome.changelog) {
        pick(changelog, row.row, row.kind, row.sequence === 'before' ? image.sequenceNumber : undefined);
        countChangelogRow(counts, row);
      }
      continue;
    }
    const outcome = storedKeyOutcome(retract, differences[i] as Difference, rules);
    if (outcome === StoredOutcome.NOTHING) continue;
    const offset = issued++;
    if (outcome === StoredOutcome.DELETE) {
      data.add(BEFORE, j, RowKind.DELETE, offset);
      changelog.add(BEFORE, j, RowKind.DELETE, -1, image.sequenceNumber);
      counts.deletes++;
      continue;
    }
    data.add(RECORDS, i, RowKind.UPDATE_AFTER, offset);
    if (outcome === StoredOutcome.QUIET_UPDATE) continue;
    changelog.add(BEFORE, j, RowKind.UPDATE_BEFORE, -1, image.sequenceNumber);
    changelog.add(RECORDS, i, RowKind.UPDATE_AFTER, offset);
    counts.updates++;
  }
  const sources = [batch, asRecords(stored, layout, k), batchFromRows(layout.recordType, built)];
  return { data: gather(layout, k, sources, data, next), changelog: gather(layout, k, sources, changelog, next), next: next + BigInt(issued) };
}

/**
 * Per record with a before-image (`storedAt[i]` ≥ 0: its row in `stored`), how its merged row
 * differs from it, compared column by column in place (compareAt: Paimon's order, so equal exactly
 * where keyOutcome's sameValue is); 0 for the others. The key columns are equal by construction.
 */
function differencesOf(batch: ColumnBatch, k: number, stored: ColumnBatch, storedAt: Int32Array, ignored: ReadonlySet<number>): Uint8Array {
  const out = new Uint8Array(batch.length);
  const fields = stored.columns.length;
  const merged = prepareColumns(batch, Array.from({ length: fields }, (_, f) => k + 2 + f));
  const before = prepareColumns(stored, Array.from({ length: fields }, (_, f) => f));
  for (let f = 0; f < fields; f++) {
    const mark = ignored.has(f) ? Difference.IGNORED_ONLY : Difference.CHANGED;
    const a = merged[f] as PreparedColumns[number];
    const b = before[f] as PreparedColumns[number];
    for (let i = 0; i < batch.length; i++) {
      const j = storedAt[i] as number;
      if (j < 0 || (out[i] as number) >= mark) continue;
      if (compareAt(a, i, b, j) !== 0) out[i] = mark;
    }
  }
  return out;
}

/** A batch of the table's columns as one of the record type: the key columns are their fields' (as the gather takes them), `_SEQUENCE_NUMBER` and `_VALUE_KIND` placeholders the gather replaces. */
function asRecords(stored: ColumnBatch, layout: ChangelogBatchLayout, k: number): ColumnBatch {
  const placeholder = stored.columns[0] as Column;
  const columns = [...layout.keyIndex.map((f) => stored.columns[f] as Column), placeholder, placeholder, ...stored.columns];
  return { rowType: layout.recordType, length: stored.length, columns };
}

/** Whether every record is an upsert of a key without a before-image (a load's new keys, most batches of a load that inserts). */
function insertsOnly(batch: ColumnBatch, kinds: Column, images: readonly (StoredRecord | null)[]): boolean {
  const values = (kinds as Column & { kind: 'int32' }).values;
  for (let i = 0; i < batch.length; i++) if ((images[i] ?? null) !== null || isRetract(values[i] as number)) return false;
  return true;
}

/**
 * The outcome of a batch of inserts (insertsOnly): each record is `+I` of its merged row with the
 * next sequence number in both runs, so the data and the changelog batch are one batch, the merged
 * columns themselves with new `_SEQUENCE_NUMBER` and `_VALUE_KIND` columns: what the gather of the
 * general path would copy row by row, without the copy. The key columns are their fields' columns,
 * as the gather takes them (cut timestamps included).
 */
function inserts(batch: ColumnBatch, layout: ChangelogBatchLayout, next: bigint, counts: ChangelogCounts): ChangelogBatchResult {
  const k = layout.keyIndex.length;
  const length = batch.length;
  const columns = [...batch.columns];
  layout.keyIndex.forEach((f, i) => (columns[i] = batch.columns[k + 2 + f] as Column));
  columns[k] = { kind: 'int64', values: consecutive(next, length), validity: undefined };
  columns[k + 1] = { kind: 'int32', values: new Int32Array(length).fill(RowKind.INSERT), validity: undefined };
  counts.inserts += length;
  const out: ColumnBatch = { rowType: layout.recordType, length, columns };
  return { data: out, changelog: out, next: next + BigInt(length) };
}

/** A key-value record of a table row: its trimmed key, placeholder sequence number and kind (the output's replace them). */
function recordOf(row: InternalRow, keyIndex: readonly number[]): InternalRow {
  return [...keyIndex.map((i) => row[i] ?? null), 0n, RowKind.INSERT, ...row];
}

/** The picked rows as one batch of the record type, with the picks' sequence numbers (new ones from `first`) and kinds. */
function gather(layout: ChangelogBatchLayout, k: number, sources: readonly ColumnBatch[], picks: Picks, first: bigint): ColumnBatch | undefined {
  const length = picks.length;
  if (length === 0) return undefined;
  // The key columns are their fields' columns; `_SEQUENCE_NUMBER` and `_VALUE_KIND` are replaced
  // below, so they are not gathered (the builder hands back another column in their place).
  const sameAs = new Map<number, number>(layout.keyIndex.map((f, i) => [i, k + 2 + f]));
  sameAs.set(k, k + 2).set(k + 1, k + 2);
  const out = new SegmentBuilder(layout.recordType, sameAs);
  for (let r = 0; r < length; r++) out.push(sources[picks.source[r] as number] as ColumnBatch, picks.row[r] as number);
  const taken = out.take();
  const columns = [...taken.columns];
  columns[k] = { kind: 'int64', values: picks.sequences(first), validity: undefined };
  columns[k + 1] = { kind: 'int32', values: picks.kind.slice(0, length), validity: undefined };
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
