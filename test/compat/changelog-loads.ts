// What the changelog cross-read tests share: a load through Tributary's changelog writer committed
// on the latest snapshot, and a changelog row (ours or one Paimon Java's `$audit_log` returns) as
// comparable text.
import type { InternalRow, KeyedChange, Table } from '@tributary/table';
import { canonicalRows } from '@tributary/testkit';

/** RowKind bytes as `$audit_log` names them. */
export const KINDS = ['+I', '-U', '+U', '-D'];

/** One canonical row as text (bigints as text). */
export const changelogText = (r: readonly unknown[]): string => JSON.stringify(canonicalRows([r as InternalRow])[0], (_, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v));

/** One load of `changes` on the latest snapshot (none for the first), committed. */
export async function loadChanges(table: Table, changes: readonly KeyedChange[]): Promise<void> {
  const latest = await table.latestSnapshot();
  const base = latest === null ? null : Number(latest.id);
  const write = await table.newChangelogWrite({ baseSnapshotId: base, writerId: 'compat' });
  await write.write(changes);
  await table.newCommit(`loader-${base ?? 0}`).commit(write.prepareCommit(), base === null ? {} : { baseSnapshotId: base });
}

/** The changelog rows of snapshot `snapshotId` as Tributary reads them, each as `[kind, ...row]` text. */
export async function ourChangelog(table: Table, snapshotId: number): Promise<string[]> {
  const out: string[] = [];
  for await (const r of table.changelog(snapshotId)) out.push(changelogText([KINDS[r.kind], ...r.row]));
  return out;
}
