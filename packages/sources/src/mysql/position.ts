/**
 * A MySQL or MariaDB server's binary-log position, read on the connection a shard reads with, just
 * before its query: every change logged up to it is in the read (changes after it may be too), so
 * a change-data-capture job that starts from a shard's position misses nothing of it.
 *
 * `log`: the binlog `file` and `offset` (`SHOW MASTER STATUS`) and the `gtid` set (MySQL's
 * `Executed_Gtid_Set`, MariaDB's `@@gtid_binlog_pos`) when the server has them; `binlog: "off"`
 * when the server keeps no binary log (nothing to start a CDC job from); `unavailable` with the
 * server's error code when it refuses to say (the user lacks BINLOG MONITOR / REPLICATION CLIENT).
 * `order` sorts positions of one server in log order: the file name, then the offset in 20 digits.
 */
import type { ShardReadPosition } from '@tributary/protocol';
import type { Connection, RowDataPacket } from 'mysql2/promise';

/** `serverId`: `host:port`, never a user or a password. */
export async function binlogPosition(connection: Connection, serverId: string): Promise<ShardReadPosition> {
  let rows: RowDataPacket[];
  try {
    [rows] = await connection.query<RowDataPacket[]>({ sql: 'SHOW MASTER STATUS', rowsAsArray: false });
  } catch (error) {
    const code = typeof error === 'object' && error !== null && 'code' in error ? String(error.code) : 'unknown';
    return { server: { id: serverId, log: { unavailable: code }, order: '' } };
  }
  const status = rows[0];
  if (status === undefined) return { server: { id: serverId, log: { binlog: 'off' }, order: '' } };
  const file = String(status.File);
  const offset = Number(status.Position);
  let gtid = typeof status.Executed_Gtid_Set === 'string' ? status.Executed_Gtid_Set : undefined;
  if (gtid === undefined) {
    try {
      const [g] = await connection.query<RowDataPacket[]>({ sql: 'SELECT @@gtid_binlog_pos AS gtid', rowsAsArray: false });
      gtid = typeof g[0]?.gtid === 'string' ? g[0].gtid : undefined;
    } catch {
      // Not MariaDB: MySQL gave its GTID set in SHOW MASTER STATUS, or has none.
    }
  }
  return { server: { id: serverId, log: { file, offset, ...(gtid === undefined || gtid === '' ? {} : { gtid: gtid.replace(/\s+/g, '') }) }, order: binlogOrder(file, offset) } };
}

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
  const gtid = read.gtidSet === null || read.gtidSet === '' ? {} : { gtid: read.gtidSet.replace(/\s+/g, '') };
  return { server: { id: serverId, log: { file: read.binlogFile, offset: read.binlogPosition, ...gtid }, order: binlogOrder(read.binlogFile, read.binlogPosition) } };
}
