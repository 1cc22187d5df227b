/**
 * The checks of a changelog audit for one key in one snapshot: its changelog rows (in stream order)
 * against the key's stored row before the snapshot and after it. Pure.
 *
 *   UPDATE_AFTER_WITHOUT_BEFORE    +U not immediately preceded by a -U (a consumer adds and retracts nothing)
 *   UPDATE_BEFORE_WITHOUT_AFTER    -U not immediately followed by a +U
 *   BEFORE_IMAGE_MISMATCH          -U/-D whose row is not the stored row (or the key is not stored)
 *   DUPLICATE_INSERT               +I of a key that is stored (a consumer counts it twice)
 *   DELETE_OF_ABSENT_KEY           -D of a key that is not stored
 *   DATA_CHANGE_WITHOUT_CHANGELOG  the stored row changed and the snapshot has no changelog row for the key
 *   CHANGELOG_DIFFERS_FROM_DATA    replaying the key's rows does not end at the stored row after the snapshot
 *
 * "Stored" is the row a batch read of the table returns, compared without the columns of
 * `changelog-producer.row-deduplicate-ignore-fields` (their changes alone emit no changelog).
 */
import type { InternalRow } from '../spec/types.ts';
import { differingColumns } from './changelog.ts';
import { RowKind } from './key-value.ts';

export const AUDIT_FLAGS = [
  'UPDATE_AFTER_WITHOUT_BEFORE',
  'UPDATE_BEFORE_WITHOUT_AFTER',
  'BEFORE_IMAGE_MISMATCH',
  'DUPLICATE_INSERT',
  'DELETE_OF_ABSENT_KEY',
  'DATA_CHANGE_WITHOUT_CHANGELOG',
  'CHANGELOG_DIFFERS_FROM_DATA',
] as const;
export type AuditFlag = (typeof AUDIT_FLAGS)[number];

/** A flag raised by one changelog row (`row`: its index among the key's rows of the snapshot) or by the key (null). */
export interface RaisedFlag {
  readonly flag: AuditFlag;
  readonly row: number | null;
}

export function auditKey(
  before: InternalRow | null,
  after: InternalRow | null,
  rows: readonly { readonly kind: number; readonly row: InternalRow }[],
  ignored: ReadonlySet<number>,
): RaisedFlag[] {
  const same = (a: InternalRow | null, b: InternalRow | null) =>
    a === null || b === null ? a === b : differingColumns(a, b).every((i) => ignored.has(i));
  const flags: RaisedFlag[] = [];
  let state = before;
  rows.forEach(({ kind, row }, i) => {
    const raise = (flag: AuditFlag) => flags.push({ flag, row: i });
    if (kind === RowKind.UPDATE_BEFORE || kind === RowKind.DELETE) {
      if (kind === RowKind.UPDATE_BEFORE && rows[i + 1]?.kind !== RowKind.UPDATE_AFTER) raise('UPDATE_BEFORE_WITHOUT_AFTER');
      if (kind === RowKind.DELETE && state === null) raise('DELETE_OF_ABSENT_KEY');
      else if (!same(state, row)) raise('BEFORE_IMAGE_MISMATCH');
      state = null;
      return;
    }
    if (kind === RowKind.INSERT && state !== null) raise('DUPLICATE_INSERT');
    if (kind === RowKind.UPDATE_AFTER && rows[i - 1]?.kind !== RowKind.UPDATE_BEFORE) raise('UPDATE_AFTER_WITHOUT_BEFORE');
    state = row;
  });
  if (rows.length === 0) {
    if (!same(before, after)) flags.push({ flag: 'DATA_CHANGE_WITHOUT_CHANGELOG', row: null });
  } else if (!same(state, after)) {
    flags.push({ flag: 'CHANGELOG_DIFFERS_FROM_DATA', row: null });
  }
  return flags;
}
