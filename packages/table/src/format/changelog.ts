/**
 * The changelog of one load into a primary-key table with `changelog-producer = input` and the
 * deduplicate merge engine, per key: the rule of Paimon's LookupChangelogMergeFunctionWrapper
 * (setChangelog) with row deduplication, computed by the writer instead of a Java compaction.
 *
 *   netted change of a key (upsert or delete) + its before-image in the base snapshot
 *     before absent, upsert                 ─► data +I(after)   changelog +I(after)
 *     before present, upsert, values differ ─► data +U(after)   changelog -U(before), +U(after)
 *     before present, upsert, equal         ─► nothing (only ignored fields differ: data +U, no changelog)
 *     before present, delete                ─► data -D(before)  changelog -D(before), the full stored row
 *     before absent, delete                 ─► nothing
 *     sequence.field: the stored row wins   ─► nothing
 *
 * Values are compared on their canonical form (what a data file stores: a timestamp cut to its
 * precision, doubles as Java compares them). Pure: rows in, rows out.
 */
import type { DataType, InternalRow, InternalValue, Timestamp } from '../spec/types.ts';
import { compareInternal } from './column-stats.ts';
import { RowKind, type RowKindByte } from './key-value.ts';

/** The final state of one key after netting a load: its row, or its deletion (the row may hold only the key). */
export interface KeyedChange {
  readonly kind: 'upsert' | 'delete';
  /** All table columns in table order; a delete needs only the key columns (the others may be null). */
  readonly row: InternalRow;
}

/** A key's stored record in the base snapshot: the merged winner (never a retraction). */
export interface StoredRecord {
  readonly row: InternalRow;
  readonly sequenceNumber: bigint;
}

/** One row of a changelog file; `sequence` says whose `_SEQUENCE_NUMBER` it carries. */
export interface ChangelogRow {
  readonly kind: RowKindByte;
  readonly row: InternalRow;
  /** 'before': the stored record's number (-U, -D, as Paimon's lookup producer does); 'new': the data row's. */
  readonly sequence: 'before' | 'new';
}

/** What one key contributes to the load: its data record (or none) and its changelog rows. */
export interface KeyOutcome {
  readonly data: { readonly kind: RowKindByte; readonly row: InternalRow } | null;
  readonly changelog: readonly ChangelogRow[];
}

export interface ChangelogRules {
  /** The table's column types, in table order (for the canonical form). */
  readonly types: readonly DataType[];
  /** Column indices left out of the no-op comparison (`changelog-producer.row-deduplicate-ignore-fields`). */
  readonly ignored: ReadonlySet<number>;
  /** Column indices of `sequence.field`, in order; empty without one. */
  readonly sequenceFields: readonly number[];
  /** `ignore-delete`: deletes change nothing. */
  readonly ignoreDelete: boolean;
}

const NOTHING: KeyOutcome = Object.freeze({ data: null, changelog: [] });

/** The data record and changelog rows of one key (see the table at the top of this file). */
export function keyOutcome(before: StoredRecord | null, change: KeyedChange, rules: ChangelogRules): KeyOutcome {
  const isDelete = change.kind === 'delete';
  if (before === null) {
    if (isDelete) return NOTHING;
    const row = canonicalRow(change.row, rules.types);
    return { data: { kind: RowKind.INSERT, row }, changelog: [{ kind: RowKind.INSERT, row, sequence: 'new' }] };
  }
  const after = isDelete ? change.row : canonicalRow(change.row, rules.types);
  // A change that carries sequence values older than the stored row's loses, as it would in a merge
  // (an upsert always carries them; a delete only when all its sequence fields are set).
  if ((!isDelete || carriesSequence(after, rules)) && compareSequence(after, before.row, rules) < 0) return NOTHING;
  const differs = isDelete ? [] : differingColumns(before.row, after);
  const difference = differs.length === 0 ? Difference.NONE : differs.every((i) => rules.ignored.has(i)) ? Difference.IGNORED_ONLY : Difference.CHANGED;
  switch (storedKeyOutcome(isDelete, difference, rules)) {
    case StoredOutcome.NOTHING:
      return NOTHING;
    // The tombstone is the stored row: with sequence.field it ties on the user sequence and wins on _SEQUENCE_NUMBER.
    case StoredOutcome.DELETE:
      return { data: { kind: RowKind.DELETE, row: before.row }, changelog: [{ kind: RowKind.DELETE, row: before.row, sequence: 'before' }] };
    case StoredOutcome.QUIET_UPDATE:
      return { data: { kind: RowKind.UPDATE_AFTER, row: after }, changelog: [] };
    case StoredOutcome.UPDATE:
      return {
        data: { kind: RowKind.UPDATE_AFTER, row: after },
        changelog: [
          { kind: RowKind.UPDATE_BEFORE, row: before.row, sequence: 'before' },
          { kind: RowKind.UPDATE_AFTER, row: after, sequence: 'new' },
        ],
      };
  }
}

/** How a key's new row differs from its stored row (canonical values; see differingColumns). */
export const Difference = { NONE: 0, IGNORED_ONLY: 1, CHANGED: 2 } as const;
export type Difference = (typeof Difference)[keyof typeof Difference];

/**
 * What a key with a before-image gives once the stored row has not won on sequence.field:
 *   NOTHING       a delete with ignore-delete; an upsert equal to the stored row
 *   DELETE        data -D(before), changelog -D(before)
 *   QUIET_UPDATE  data +U(after), no changelog (only ignored fields differ)
 *   UPDATE        data +U(after), changelog -U(before), +U(after)
 * The one home of that decision: keyOutcome (rows) and the column-wise path (changelog-batch.ts) both ask it.
 */
export const StoredOutcome = { NOTHING: 0, DELETE: 1, QUIET_UPDATE: 2, UPDATE: 3 } as const;
export type StoredOutcome = (typeof StoredOutcome)[keyof typeof StoredOutcome];

export function storedKeyOutcome(isDelete: boolean, difference: Difference, rules: Pick<ChangelogRules, 'ignoreDelete'>): StoredOutcome {
  if (isDelete) return rules.ignoreDelete ? StoredOutcome.NOTHING : StoredOutcome.DELETE;
  if (difference === Difference.NONE) return StoredOutcome.NOTHING;
  return difference === Difference.IGNORED_ONLY ? StoredOutcome.QUIET_UPDATE : StoredOutcome.UPDATE;
}

/** Indices of the columns whose canonical values differ. */
export function differingColumns(a: InternalRow, b: InternalRow): number[] {
  const out: number[] = [];
  for (let i = 0; i < Math.max(a.length, b.length); i++) if (!sameValue(a[i] ?? null, b[i] ?? null)) out.push(i);
  return out;
}

/** Equal as stored: null only equals null; otherwise Paimon's order finds no difference. */
export function sameValue(a: InternalValue, b: InternalValue): boolean {
  if (a === null || b === null) return a === b;
  return compareInternal(a, b) === 0;
}

/** The row as a data file stores it: timestamps cut to their column's precision (MILLIS or MICROS). */
export function canonicalRow(row: InternalRow, types: readonly DataType[]): InternalRow {
  let out: InternalValue[] | undefined;
  for (let i = 0; i < row.length; i++) {
    const type = types[i];
    const value = row[i] ?? null;
    if (value === null || type === undefined || (type.root !== 'TIMESTAMP' && type.root !== 'TIMESTAMP_LTZ')) continue;
    const ts = value as Timestamp;
    const nanos = type.precision <= 3 ? 0 : type.precision <= 6 ? ts.nanoOfMillis - (ts.nanoOfMillis % 1000) : ts.nanoOfMillis;
    if (nanos === ts.nanoOfMillis) continue;
    out ??= [...row];
    out[i] = { epochMillis: ts.epochMillis, nanoOfMillis: nanos };
  }
  return out ?? row;
}

function carriesSequence(row: InternalRow, rules: ChangelogRules): boolean {
  return rules.sequenceFields.length > 0 && rules.sequenceFields.every((i) => (row[i] ?? null) !== null);
}

/** The user sequence of two rows (UserDefinedSeqComparator: field by field, nulls first); 0 without sequence.field. */
export function compareSequence(a: InternalRow, b: InternalRow, rules: Pick<ChangelogRules, 'sequenceFields'>): number {
  for (const i of rules.sequenceFields) {
    const c = compareNullsFirst(a[i] ?? null, b[i] ?? null);
    if (c !== 0) return c;
  }
  return 0;
}

function compareNullsFirst(a: InternalValue, b: InternalValue): number {
  if (a === null || b === null) return a === b ? 0 : a === null ? -1 : 1;
  return compareInternal(a, b);
}

/** Field-by-field over the given columns, nulls first: Paimon's key order. */
export function compareKeys(a: InternalRow, b: InternalRow, keyIndex: readonly number[]): number {
  for (const i of keyIndex) {
    const c = compareNullsFirst(a[i] ?? null, b[i] ?? null);
    if (c !== 0) return c;
  }
  return 0;
}

/**
 * Nets the changes of one writer to one final change per key, in key order: the winner is the
 * greatest by (sequence.field, arrival), as a merge of the same records would pick it. `changes`
 * are in arrival order.
 */
export function netChanges(changes: readonly KeyedChange[], keyIndex: readonly number[], sequenceFields: readonly number[]): KeyedChange[] {
  const order = changes.map((_, i) => i);
  order.sort((a, b) => {
    const x = changes[a] as KeyedChange;
    const y = changes[b] as KeyedChange;
    return compareKeys(x.row, y.row, keyIndex) || compareSequence(x.row, y.row, { sequenceFields }) || a - b;
  });
  const out: KeyedChange[] = [];
  for (let i = 0; i < order.length; i++) {
    const next = order[i + 1];
    const change = changes[order[i] as number] as KeyedChange;
    if (next === undefined || compareKeys(change.row, (changes[next] as KeyedChange).row, keyIndex) !== 0) out.push(change);
  }
  return out;
}
