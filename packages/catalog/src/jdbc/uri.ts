/**
 * Paimon's JDBC catalog `uri` (a JDBC URL, as the Java engines take it) as Node's drivers need it.
 * Pure: no connection is made here.
 */
import { errorFrom } from '@tributary/errors';
import { catalogErrors } from '../errors.ts';

/** The lock dialect Paimon picks by the URL's protocol; MariaDB servers speak MySQL's. */
export type JdbcDialect = 'postgresql' | 'mysql';

export interface JdbcEndpoint {
  readonly dialect: JdbcDialect;
  /** The URL's protocol as written (`mariadb` is MySQL's dialect to Tributary; Paimon Java's lock refuses it). */
  readonly protocol: 'postgresql' | 'mysql' | 'mariadb';
  readonly host: string;
  readonly port: number;
  readonly database: string;
}

const DEFAULT_PORTS = { postgresql: 5432, mysql: 3306, mariadb: 3306 } as const;

/** `jdbc:postgresql://host[:port]/database[?…]`, `jdbc:mysql://…` or `jdbc:mariadb://…`. @throws CATALOG_CONFIG_INVALID */
export function parseJdbcUri(uri: string): JdbcEndpoint {
  const invalid = (why: string) =>
    errorFrom(catalogErrors, 'CATALOG_CONFIG_INVALID', `catalog.uri is not a JDBC URL Tributary can use: ${why}`, { key: 'catalog.uri' });
  const match = /^jdbc:(postgresql|mysql|mariadb):(\/\/.*)$/.exec(uri);
  if (match === null) throw invalid('expected jdbc:postgresql://, jdbc:mysql:// or jdbc:mariadb://host:port/database');
  const protocol = match[1] as JdbcEndpoint['protocol'];
  let url: URL;
  try {
    url = new URL(`tributary:${match[2] as string}`);
  } catch {
    throw invalid('the host, port or path is malformed');
  }
  if (url.username !== '' || url.password !== '') throw invalid('credentials belong in catalog.user and the password variable, not in the URL');
  const database = decodeURIComponent(url.pathname.replace(/^\//, ''));
  if (url.hostname === '' || database === '' || database.includes('/')) throw invalid('a host and one database name are required');
  return {
    dialect: protocol === 'postgresql' ? 'postgresql' : 'mysql',
    protocol,
    host: url.hostname.replace(/^\[(.*)\]$/, '$1'),
    port: url.port === '' ? DEFAULT_PORTS[protocol] : Number(url.port),
    database,
  };
}
