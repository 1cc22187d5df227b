/**
 * A shard's read inside one consistent snapshot, and where in the server's binary log that snapshot
 * stands. On the read's own connection, before its SELECT:
 *
 *   SET SESSION TRANSACTION ISOLATION LEVEL REPEATABLE READ
 *   START TRANSACTION WITH CONSISTENT SNAPSHOT, READ ONLY       (the InnoDB read view starts here)
 *   MariaDB: SHOW STATUS LIKE 'binlog_snapshot_%'               (the binlog position of that view,
 *            SELECT BINLOG_GTID_POS(file, position)              taken atomically with it, and its GTIDs)
 *   MySQL:   SHOW MASTER STATUS (8.4: SHOW BINARY LOG STATUS)   (right after: at or after the view)
 *
 * The position says exactly what the shard holds on MariaDB (`consistent: true`): every transaction
 * up to it and none after. MySQL has no such status variable, so its position is read just after the
 * snapshot starts and a transaction may commit in between (`consistent: false`: a change-data
 * capture that starts there must tolerate replaying rows the shard already holds). With the binary
 * log off, file, position and GTID set are null; when the server refuses to tell (MySQL, a user
 * without REPLICATION CLIENT), they are null too and `unavailable` holds its error code: the read
 * goes on.
 */
import type { Connection, RowDataPacket } from 'mysql2/promise';

/**
 * Where a shard's consistent read stands in the server's history, as the server states it: what a
 * later change capture starts from. It leaves the source as the batch's read position
 * (position.ts), the one shape the worker and the coordinator know.
 */
export type ConsistentRead = {
  readonly kind: 'mysql-binlog';
  /** The connection name the source read through (the server's identity in this deployment), or host:port for inline credentials; never a password. */
  readonly source: string;
  readonly server: 'mariadb' | 'mysql';
  /** The server's `server_id`. */
  readonly serverId: number;
  /** The binary log file and the offset in it of the snapshot; null with the binary log off. */
  readonly binlogFile: string | null;
  readonly binlogPosition: number | null;
  /** The GTID set at the snapshot (`gtid_binlog_pos` form on MariaDB, `Executed_Gtid_Set` on MySQL); null when none. */
  readonly gtidSet: string | null;
  /** True when the position was taken atomically with the snapshot (MariaDB), false when just after it (MySQL). */
  readonly consistent: boolean;
  /** The server's error code when it refused to tell its binary-log position (a user without REPLICATION CLIENT); else null. */
  readonly unavailable: string | null;
};

/** Starts the consistent snapshot on `connection` and reads its position. */
export async function beginConsistentRead(connection: Connection, source: string): Promise<ConsistentRead> {
  await connection.query('SET SESSION TRANSACTION ISOLATION LEVEL REPEATABLE READ');
  await connection.query('START TRANSACTION WITH CONSISTENT SNAPSHOT, READ ONLY');
  const [[server]] = await connection.query<RowDataPacket[]>({ sql: 'SELECT VERSION(), @@server_id', rowsAsArray: true });
  const version = String(server?.[0] ?? '');
  const serverId = Number(server?.[1] ?? 0);
  if (/mariadb/i.test(version)) {
    const [status] = await connection.query<RowDataPacket[]>({ sql: "SHOW STATUS LIKE 'binlog_snapshot_%'", rowsAsArray: true });
    const value = (name: string) => status.find((r) => String(r[0]).toLowerCase() === name)?.[1];
    const file = String(value('binlog_snapshot_file') ?? '');
    const position = Number(value('binlog_snapshot_position') ?? 0);
    const off = { kind: 'mysql-binlog', source, server: 'mariadb', serverId, binlogFile: null, binlogPosition: null, gtidSet: null, consistent: true, unavailable: null } as const;
    if (file === '') return off;
    const [[gtid]] = await connection.query<RowDataPacket[]>({ sql: 'SELECT BINLOG_GTID_POS(?, ?)', rowsAsArray: true }, [file, position]);
    return { ...off, binlogFile: file, binlogPosition: position, gtidSet: nonEmpty(gtid?.[0]) };
  }
  let status: RowDataPacket | undefined;
  try {
    status = await masterStatus(connection);
  } catch (error) {
    const code = error instanceof Error && 'code' in error && typeof error.code === 'string' ? error.code : 'UNKNOWN';
    return { kind: 'mysql-binlog', source, server: 'mysql', serverId, binlogFile: null, binlogPosition: null, gtidSet: null, consistent: false, unavailable: code };
  }
  return {
    kind: 'mysql-binlog',
    source,
    server: 'mysql',
    serverId,
    binlogFile: nonEmpty(status?.File),
    binlogPosition: status?.Position === undefined || status.Position === null ? null : Number(status.Position),
    gtidSet: nonEmpty(status?.Executed_Gtid_Set),
    consistent: false,
    unavailable: null,
  };
}

/** SHOW MASTER STATUS, or its MySQL 8.4 name; undefined with the binary log off. */
async function masterStatus(connection: Connection): Promise<RowDataPacket | undefined> {
  try {
    const [rows] = await connection.query<RowDataPacket[]>({ sql: 'SHOW MASTER STATUS', rowsAsArray: false });
    return rows[0];
  } catch {
    const [rows] = await connection.query<RowDataPacket[]>({ sql: 'SHOW BINARY LOG STATUS', rowsAsArray: false });
    return rows[0];
  }
}

function nonEmpty(value: unknown): string | null {
  return value === null || value === undefined || String(value) === '' ? null : String(value);
}
