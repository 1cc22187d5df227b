/**
 * A MySQL or MariaDB read's binary-log position in the contract's generic shape (`SourceBatch.position`),
 * which the worker puts into its blob and the coordinator folds into the snapshot's properties:
 * `{server: {id: "host:port", log, order}}`. `order` sorts positions of one server in log order:
 * the file name, then the offset in 20 digits.
 */
import type { ShardReadPosition } from '@tributary/protocol';

/** `mysql-bin.000042:00000000000001234567`: sorts by file, then offset. */
export function binlogOrder(file: string, offset: number): string {
  return `${file}:${String(offset).padStart(20, '0')}`;
}

/**
 * The consistent read's binlog position (snapshot.ts, taken with the read's snapshot) in the
 * contract's generic shape: `{file, offset, gtid?}`, `{binlog: "off"}` without a binary log, or
 * `{unavailable: <code>}` when the server would not say.
 */
export function genericBinlogPosition(
  serverId: string,
  read: { readonly binlogFile: string | null; readonly binlogPosition: number | null; readonly gtidSet: string | null; readonly unavailable: string | null },
): ShardReadPosition {
  if (read.unavailable !== null) return { server: { id: serverId, log: { unavailable: read.unavailable }, order: '' } };
  if (read.binlogFile === null || read.binlogPosition === null) return { server: { id: serverId, log: { binlog: 'off' }, order: '' } };
  const log: Record<string, string | number> = { file: read.binlogFile, offset: read.binlogPosition };
  if (read.gtidSet !== null && read.gtidSet !== '') log.gtid = read.gtidSet.replace(/\s+/g, '');
  return { server: { id: serverId, log, order: binlogOrder(read.binlogFile, read.binlogPosition) } };
}
