/**
 * A MySQL or MariaDB read's binary-log position in the contract's one shape (`SourceBatch.readPosition`),
 * which the worker puts into its blob and the coordinator folds into the snapshot's properties:
 * `{server: {id: "host:port", log, order}}`. `order` sorts positions of one server in log order:
 * the file name, then the offset in 20 digits.
 */
import type { ShardReadPosition } from '@tributary/protocol';
import type { ConsistentRead } from './snapshot.ts';

/** `mysql-bin.000042:00000000000001234567`: sorts by file, then offset. */
export function binlogOrder(file: string, offset: number): string {
  return `${file}:${String(offset).padStart(20, '0')}`;
}

/**
 * The consistent read's binlog position (snapshot.ts, taken with the read's snapshot) in the
 * contract's shape: `{file, offset, gtid?, consistent, serverId}` (`consistent`: `"true"` when taken
 * atomically with the snapshot, MariaDB; `"false"` when read just after it, MySQL; `serverId` the
 * server's `@@server_id`), `{binlog: "off"}` without a binary log, or `{unavailable: <code>}` when
 * the server would not say.
 */
export function binlogReadPosition(serverId: string, read: ConsistentRead): ShardReadPosition {
  if (read.unavailable !== null) return { server: { id: serverId, log: { unavailable: read.unavailable }, order: '' } };
  if (read.binlogFile === null || read.binlogPosition === null) return { server: { id: serverId, log: { binlog: 'off' }, order: '' } };
  const log: Record<string, string | number> = { file: read.binlogFile, offset: read.binlogPosition, consistent: String(read.consistent), serverId: read.serverId };
  if (read.gtidSet !== null && read.gtidSet !== '') log.gtid = read.gtidSet.replace(/\s+/g, '');
  return { server: { id: serverId, log, order: binlogOrder(read.binlogFile, read.binlogPosition) } };
}
