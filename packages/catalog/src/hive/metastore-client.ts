/**
 * A Hive Metastore client over Thrift: the generated ThriftHiveMetastore client (./generated, from
 * thrift/hive_metastore_subset.thrift) on one TCP connection with the binary protocol and buffered
 * transport, as the metastore serves by default (`thrift://host:port`).
 *
 * Every call is bounded by `requestTimeoutMs`. A refused or broken connection, or a call that does
 * not answer in time, fails with CATALOG_UNAVAILABLE (retryable) and drops the connection; the next
 * call opens a new one. An exception the metastore throws is returned to the caller as a
 * `MetastoreException` (its Thrift name) so that callers branch on expected ones (NoSuchObject,
 * AlreadyExists); `rejected` turns the others into CATALOG_REQUEST_FAILED.
 */
import { errorFrom } from '@tributary/errors';
import thrift from 'thrift';
import ThriftHiveMetastore from './generated/ThriftHiveMetastore.js';
import { catalogErrors } from '../errors.ts';

export type MetastoreClient = ThriftHiveMetastore.Client;

export interface MetastoreAddress {
  readonly host: string;
  readonly port: number;
}

/** Parses `thrift://host:port`. @throws CATALOG_CONFIG_INVALID */
export function parseMetastoreUri(uri: string): MetastoreAddress {
  const match = /^thrift:\/\/([^/:\s]+|\[[0-9a-fA-F:]+\]):(\d{1,5})\/?$/.exec(uri);
  const port = match === null ? NaN : Number(match[2]);
  if (match === null || port < 1 || port > 65535) {
    throw errorFrom(catalogErrors, 'CATALOG_CONFIG_INVALID', 'the Hive catalog needs catalog.uri = thrift://host:port', { uri });
  }
  return { host: match[1]!.replace(/^\[|\]$/g, ''), port };
}

/** An exception the metastore threw (a Thrift exception struct): its name and message. */
export class MetastoreException extends Error {
  override readonly name = 'MetastoreException';
  readonly type: string;
  constructor(type: string, message: string) {
    super(message);
    this.type = type;
  }
}

/** The Thrift exception's name when `error` is one the metastore answered with, else null. */
function thriftExceptionType(error: unknown): string | null {
  if (!(error instanceof thrift.Thrift.TException)) return null;
  return error.name === '' ? 'TException' : error.name;
}

/** CATALOG_REQUEST_FAILED for an exception the caller does not expect; the metastore's message is kept only where it names no value. */
export function rejected(operation: string, error: MetastoreException, options: { keepMessage: boolean }): Error {
  const detail = options.keepMessage ? `: ${error.message}` : '';
  return errorFrom(catalogErrors, 'CATALOG_REQUEST_FAILED', `the Hive Metastore refused ${operation} (${error.type})${detail}`, { operation, exception: error.type });
}

export interface MetastoreConnectionOptions {
  /** Bound on one call, connecting included (default 30 s). */
  readonly requestTimeoutMs?: number;
}

interface Session {
  readonly connection: thrift.Connection;
  /** Resolves with the client once connected; rejects if the connection fails first. */
  readonly ready: Promise<MetastoreClient>;
  /** Rejects when the connection fails or closes, so that a call in flight fails at once. */
  readonly gone: Promise<never>;
}

export class MetastoreConnection {
  readonly #address: MetastoreAddress;
  readonly #timeoutMs: number;
  #session: Session | null = null;
  #closed = false;

  constructor(address: MetastoreAddress, options: MetastoreConnectionOptions = {}) {
    this.#address = address;
    this.#timeoutMs = options.requestTimeoutMs ?? 30_000;
  }

  /**
   * Runs one call. @throws MetastoreException (the metastore's own exception),
   * CATALOG_UNAVAILABLE (no connection, a broken one, or no answer in time)
   */
  async call<T>(operation: string, fn: (client: MetastoreClient) => Promise<T>): Promise<T> {
    const { host, port } = this.#address;
    if (this.#closed) throw errorFrom(catalogErrors, 'CATALOG_UNAVAILABLE', 'the Hive catalog is closed', { operation, host, port });
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer in ${this.#timeoutMs} ms`)), this.#timeoutMs);
    });
    const session = this.#connect();
    try {
      const client = await Promise.race([session.ready, timeout]);
      return await Promise.race([fn(client), session.gone, timeout]);
    } catch (error) {
      const type = thriftExceptionType(error);
      if (type !== null) throw new MetastoreException(type, String((error as { message?: unknown }).message ?? ''));
      this.#drop(session);
      throw errorFrom(catalogErrors, 'CATALOG_UNAVAILABLE', `the Hive Metastore at ${host}:${port} did not answer ${operation}: ${(error as Error).message}`, { operation, host, port }, { cause: error });
    } finally {
      clearTimeout(timer);
    }
  }

  close(): void {
    this.#closed = true;
    if (this.#session !== null) this.#drop(this.#session);
  }

  #connect(): Session {
    if (this.#session !== null) return this.#session;
    const { host, port } = this.#address;
    const connection = thrift.createConnection(host, port, {
      transport: thrift.TBufferedTransport,
      protocol: thrift.TBinaryProtocol,
      connect_timeout: this.#timeoutMs,
    });
    const gone = new Promise<never>((_, reject) => {
      connection.on('error', (error: Error) => reject(error));
      connection.on('close', () => reject(new Error('the connection closed')));
    });
    const ready = new Promise<MetastoreClient>((resolve, reject) => {
      connection.once('connect', () => resolve(thrift.createClient(ThriftHiveMetastore, connection)));
      gone.catch(reject);
    });
    const session: Session = { connection, ready, gone };
    gone.catch(() => {
      if (this.#session === session) this.#session = null;
    });
    ready.catch(() => {});
    this.#session = session;
    return session;
  }

  #drop(session: Session): void {
    if (this.#session === session) this.#session = null;
    session.connection.end();
  }
}
