/**
 * The catalog's connection pool to its PostgreSQL or MySQL/MariaDB database, behind one small
 * interface: run a statement with `?` placeholders, get rows and the affected-row count. Driver
 * errors become typed errors that carry the driver's code, never the statement's values nor the
 * password.
 */
import { errorFrom, isTributaryError } from '@tributary/errors';
import type { Pool as MysqlPool, ResultSetHeader, RowDataPacket } from 'mysql2/promise';
import type pg from 'pg';
import { catalogErrors } from '../errors.ts';
import { placeholders } from './sql.ts';
import type { JdbcEndpoint } from './uri.ts';

export interface SqlResult {
  readonly rows: readonly Readonly<Record<string, unknown>>[];
  readonly affected: number;
}

export interface SqlClient {
  /** @throws CATALOG_UNAVAILABLE (connection), CATALOG_DUPLICATE_KEY (a key taken), CATALOG_REQUEST_FAILED */
  run(sql: string, params?: readonly (string | number)[]): Promise<SqlResult>;
  close(): Promise<void>;
}

export interface SqlCredentials {
  readonly user?: string;
  readonly password?: string;
}

/** Connections held at most (Paimon's `client-pool-size` default is 2; the lock's waits use one). */
const POOL_SIZE = 4;
const CONNECT_TIMEOUT_MS = 10_000;

/**
 * The driver of the endpoint's dialect is loaded here, when a jdbc catalog is opened: a process with
 * another catalog (the filesystem one by default) never holds either driver.
 */
export async function openSqlClient(endpoint: JdbcEndpoint, credentials: SqlCredentials): Promise<SqlClient> {
  return endpoint.dialect === 'postgresql'
    ? postgresClient((await import('pg')).default, endpoint, credentials)
    : mysqlClient((await import('mysql2/promise')).createPool, endpoint, credentials);
}

function postgresClient(driver: typeof pg, endpoint: JdbcEndpoint, credentials: SqlCredentials): SqlClient {
  const pool = new driver.Pool({
    host: endpoint.host,
    port: endpoint.port,
    database: endpoint.database,
    ...(credentials.user === undefined ? {} : { user: credentials.user }),
    ...(credentials.password === undefined ? {} : { password: credentials.password }),
    max: POOL_SIZE,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
  });
  pool.on('error', () => {}); // an idle connection lost: the next statement opens another
  return {
    async run(sql, params = []) {
      try {
        const result = await pool.query(placeholders('postgresql', sql), [...params]);
        return { rows: result.rows as Record<string, unknown>[], affected: result.rowCount ?? 0 };
      } catch (error) {
        throw driverError(error, 'postgresql');
      }
    },
    close: () => pool.end(),
  };
}

function mysqlClient(createPool: typeof import('mysql2/promise').createPool, endpoint: JdbcEndpoint, credentials: SqlCredentials): SqlClient {
  const pool: MysqlPool = createPool({
    host: endpoint.host,
    port: endpoint.port,
    database: endpoint.database,
    ...(credentials.user === undefined ? {} : { user: credentials.user }),
    ...(credentials.password === undefined ? {} : { password: credentials.password }),
    connectionLimit: POOL_SIZE,
    connectTimeout: CONNECT_TIMEOUT_MS,
  });
  return {
    async run(sql, params = []) {
      try {
        const [result] = await pool.query<RowDataPacket[] | ResultSetHeader>(sql, [...params]);
        return Array.isArray(result) ? { rows: result, affected: result.length } : { rows: [], affected: result.affectedRows };
      } catch (error) {
        throw driverError(error, 'mysql');
      }
    },
    close: () => pool.end(),
  };
}

/** Connection-level failures: the database is down, restarting or unreachable. */
const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENOTFOUND', 'EPIPE',
  'PROTOCOL_CONNECTION_LOST', 'ER_CON_COUNT_ERROR', 'ER_SERVER_SHUTDOWN',
  '57P01', '57P02', '57P03', '53300',
]);
/** A primary key already taken: PostgreSQL's unique_violation, MySQL's ER_DUP_ENTRY. */
const DUPLICATE_CODES = new Set(['23505', 'ER_DUP_ENTRY']);

function driverError(error: unknown, dialect: 'postgresql' | 'mysql') {
  if (isTributaryError(error)) return error;
  const code = typeof error === 'object' && error !== null && 'code' in error ? String(error.code) : 'UNKNOWN';
  const context = { dialect, driverCode: code };
  const connectionLost = error instanceof Error && /Connection terminated|connect ETIMEDOUT|timeout exceeded when trying to connect/i.test(error.message);
  if (UNAVAILABLE_CODES.has(code) || code.startsWith('08') || connectionLost) {
    return errorFrom(catalogErrors, 'CATALOG_UNAVAILABLE', `the catalog database did not answer (${code})`, context, { cause: error });
  }
  if (DUPLICATE_CODES.has(code)) {
    return errorFrom(catalogErrors, 'CATALOG_DUPLICATE_KEY', `the catalog database already holds that key (${code})`, context);
  }
  return errorFrom(catalogErrors, 'CATALOG_REQUEST_FAILED', `the catalog database refused a statement (${code})`, context);
}
