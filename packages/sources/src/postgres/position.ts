/**
 * A PostgreSQL read's WAL position in the contract's generic shape (`SourceBatch.position`), which
 * the worker puts into its blob and the coordinator folds into the snapshot's properties per server:
 * `{server: {id: "host:port", log: {lsn, database, snapshot}, order}}`, `order` being the LSN as two
 * 8-digit hex halves, so that text order is WAL order.
 */
import type { ShardReadPosition } from '@tributary/protocol';

export function walPosition(host: string, port: number, read: { readonly database: string; readonly lsn: string | null; readonly snapshot: string | null }): ShardReadPosition {
  const log: Record<string, string> = { database: read.database, lsn: read.lsn ?? 'unknown' };
  if (read.snapshot !== null) log.snapshot = read.snapshot;
  return { server: { id: `${host}:${port}`, log, order: read.lsn === null ? '' : lsnOrder(read.lsn) } };
}

/** `16/B374D848` → `00000016/B374D848`. */
export function lsnOrder(lsn: string): string {
  const [hi = '', lo = ''] = lsn.toUpperCase().split('/');
  return `${hi.padStart(8, '0')}/${lo.padStart(8, '0')}`;
}
