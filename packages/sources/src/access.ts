/**
 * What a sync may read, as the operator configured it, shared by the coordinator (which plans) and
 * the workers (which read): named database connections whose secrets come from files or the
 * environment, never from a request; the roots under which file sources may lie; and whether inline
 * credentials are allowed at all. Pure: the few reads it needs (a secret file, the connections file,
 * a realpath) are handed in by the process that owns the I/O.
 *
 * The attacker's view decides the URI checks: a source URI is refused unless its plain structure
 * (no `.`/`..`/empty segment, no encoded `/` or `\`, no query, no host on `file:`) puts it under a
 * root; a `file:` path must also resolve (realpath) inside the root. Every refusal is the same
 * SOURCE_NOT_ALLOWED naming only the URI's index, so it says nothing about what exists.
 */
import { z } from 'zod';
import { errorFrom, type TributaryError } from '@tributary/protocol';
import { sourceErrors } from './errors.ts';

export const ConnectionName = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/);

const EnvName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/);

/** A MySQL/MariaDB server and the user to log in as; the password from a file or a variable, never inline. */
export const MysqlConnection = z.strictObject({
  kind: z.literal('mysql'),
  host: z.string().min(1),
  port: z.number().int().min(1).max(65_535).default(3306),
  user: z.string().min(1),
  /** An absolute path; the file's content, less one trailing newline, is the password (read at each connect). */
  passwordFile: z.string().startsWith('/').optional(),
  /** The name of an environment variable of the process that connects. */
  passwordEnv: EnvName.optional(),
});
export type MysqlConnection = z.infer<typeof MysqlConnection>;

/**
 * A PostgreSQL server and the role to log in as; the password from a file or a variable, never
 * inline. `database` is the one connected to for listing the server's databases (each matching
 * database is then connected to by name).
 */
export const PostgresConnection = z.strictObject({
  kind: z.literal('postgres'),
  host: z.string().min(1),
  port: z.number().int().min(1).max(65_535).default(5432),
  user: z.string().min(1),
  database: z.string().min(1).default('postgres'),
  passwordFile: z.string().startsWith('/').optional(),
  passwordEnv: EnvName.optional(),
});
export type PostgresConnection = z.infer<typeof PostgresConnection>;

/** An S3-compatible store that files sources (`s3://` URIs) are read from with their own credentials. */
export const S3Connection = z.strictObject({
  kind: z.literal('s3'),
  /** e.g. `http://minio.internal:9000` (path-style then); omit for AWS. */
  endpoint: z.url().optional(),
  region: z.string().min(1).optional(),
  accessKeyId: z.string().min(1),
  secretAccessKeyFile: z.string().startsWith('/').optional(),
  secretAccessKeyEnv: EnvName.optional(),
});
export type S3Connection = z.infer<typeof S3Connection>;

export const SourceConnection = z.discriminatedUnion('kind', [MysqlConnection, PostgresConnection, S3Connection]);
export type SourceConnection = z.infer<typeof SourceConnection>;

/** The connections file (`TRIBUTARY_CONNECTIONS_FILE`, JSON). */
export const SourceAccessFile = z
  .strictObject({
    connections: z.record(ConnectionName, SourceConnection).default({}),
    /** `file:///dir` and `s3://bucket/prefix` roots file sources must lie under. */
    sourceRoots: z.array(z.string().min(1)).default([]),
    /** Accept host, port, user and password in a sync request (they are then stored with its plan). */
    allowInlineCredentials: z.boolean().default(false),
  })
  .superRefine((file, ctx) => {
    for (const [name, c] of Object.entries(file.connections)) {
      const ref = secretRef(c);
      if ((ref.file === undefined) === (ref.env === undefined)) {
        const fields = c.kind !== 's3' ? 'passwordFile and passwordEnv' : 'secretAccessKeyFile and secretAccessKeyEnv';
        ctx.addIssue({ code: 'custom', path: ['connections', name], message: `needs exactly one of ${fields}` });
      }
    }
  });
export type SourceAccessFile = z.infer<typeof SourceAccessFile>;

/** Where a connection's secret is: a file, or a variable. */
function secretRef(c: SourceConnection): { file?: string | undefined; env?: string | undefined } {
  return c.kind !== 's3' ? { file: c.passwordFile, env: c.passwordEnv } : { file: c.secretAccessKeyFile, env: c.secretAccessKeyEnv };
}

/** A configured root, split: `file` roots are absolute paths, `s3` roots a bucket and key segments. */
export type SourceRoot = { readonly scheme: 'file'; readonly segments: readonly string[] } | { readonly scheme: 's3'; readonly bucket: string; readonly segments: readonly string[] };

/** The reads the checks need, done by the process that owns the I/O. */
export interface SourceAccessIo {
  readonly env: Readonly<Record<string, string | undefined>>;
  /** A whole text file (the connections file, a password file). */
  readText(path: string): string;
  /** The canonical path (symlinks resolved); rejects with an `ENOENT`/`ENOTDIR` code when it does not exist. */
  realpath(path: string): Promise<string>;
}

export interface SourceAccess {
  readonly connections: Readonly<Record<string, SourceConnection>>;
  readonly roots: readonly SourceRoot[];
  readonly allowInlineCredentials: boolean;
  readonly io: SourceAccessIo;
}

/** Nothing allowed: no connection, no root, no inline credentials (and so nothing to read). */
export function noSourceAccess(): SourceAccess {
  const nothing = (): never => {
    throw new Error('no source access is configured');
  };
  return { connections: {}, roots: [], allowInlineCredentials: false, io: { env: {}, readText: nothing, realpath: () => Promise.reject(new Error('no source access is configured')) } };
}

/**
 * The access a process is configured with:
 *   TRIBUTARY_CONNECTIONS_FILE             the connections file (JSON, SourceAccessFile)
 *   TRIBUTARY_SOURCE_ROOTS                 more roots, comma-separated
 *   TRIBUTARY_ALLOW_INLINE_CREDENTIALS=1   accept credentials in sync requests
 * Throws SOURCE_ACCESS_CONFIG_INVALID (never quoting the file's values) when the file or a root is not valid.
 */
export function loadSourceAccess(io: SourceAccessIo): SourceAccess {
  const path = io.env.TRIBUTARY_CONNECTIONS_FILE;
  let file: SourceAccessFile = { connections: {}, sourceRoots: [], allowInlineCredentials: false };
  if (path !== undefined && path !== '') {
    let json: unknown;
    try {
      json = JSON.parse(io.readText(path));
    } catch {
      throw configError(`the connections file ${path} cannot be read as JSON`);
    }
    const parsed = SourceAccessFile.safeParse(json);
    if (!parsed.success) {
      const issues = parsed.error.issues.map((i) => `${i.path.join('.') || '/'}: ${i.message}`).join('; ');
      throw configError(`the connections file ${path} is not valid: ${issues}`);
    }
    file = parsed.data;
  }
  const extra = (io.env.TRIBUTARY_SOURCE_ROOTS ?? '').split(',').map((r) => r.trim()).filter((r) => r !== '');
  const inline = io.env.TRIBUTARY_ALLOW_INLINE_CREDENTIALS;
  return {
    connections: file.connections,
    roots: [...file.sourceRoots, ...extra].map(parseRoot),
    allowInlineCredentials: file.allowInlineCredentials || inline === '1' || inline === 'true',
    io,
  };
}

function configError(message: string): TributaryError {
  return errorFrom(sourceErrors, 'SOURCE_ACCESS_CONFIG_INVALID', message);
}

/** `file:///dir` or `s3://bucket[/prefix]`, trailing slashes ignored. */
export function parseRoot(text: string): SourceRoot {
  const location = sourceLocation(text.replace(/\/+$/, ''));
  if (location === undefined) throw configError(`source root ${JSON.stringify(text)} is not a plain file:///path or s3://bucket/prefix`);
  return location;
}

/**
 * Splits a directory URI (a root, or the directory of a source file) the way the object stores
 * read it, or undefined when anything in it could be read two ways: segments are percent-decoded
 * and none may be empty, `.`, `..`, or hold `/`, `\` or NUL; `s3a:` is `s3:`; `file:` takes no
 * host but `localhost`. The bucket or `/` itself has no segments.
 */
export function sourceLocation(uri: string): SourceRoot | undefined {
  const m = /^(file|s3a?):\/\/([^/?#]*)(\/[^?#]*)?$/i.exec(uri);
  if (m === null) return undefined;
  const scheme = (m[1] ?? '').toLowerCase();
  const host = m[2] ?? '';
  const rawPath = m[3] ?? '';
  const raw = rawPath === '' || rawPath === '/' ? [] : rawPath.slice(1).split('/');
  const segments: string[] = [];
  for (const segment of raw) {
    let decoded: string;
    try {
      decoded = decodeURIComponent(segment);
    } catch {
      return undefined;
    }
    if (decoded === '' || decoded === '.' || decoded === '..' || /[/\\\0]/.test(decoded)) return undefined;
    segments.push(decoded);
  }
  if (scheme === 'file') return host === '' || host.toLowerCase() === 'localhost' ? { scheme: 'file', segments } : undefined;
  return /^[a-z0-9][a-z0-9.-]{1,62}$/.test(host) ? { scheme: 's3', bucket: host, segments } : undefined;
}

function startsWith(segments: readonly string[], root: readonly string[]): boolean {
  return root.length <= segments.length && root.every((s, i) => segments[i] === s);
}

/**
 * A request's file URI (`…/orders.csv`) or name-prefix URI (`…/orders-*`, listed at plan time) as
 * the directory it reads from, and the path to resolve for `file:` (the file, or the listed
 * directory); undefined when it is not plain.
 */
function requestLocation(uri: string): { directory: SourceRoot; path: string } | undefined {
  if (/[?#]/.test(uri)) return undefined;
  const prefix = uri.endsWith('*');
  const body = prefix ? uri.slice(0, -1) : uri;
  const cut = body.lastIndexOf('/');
  const directory = cut === -1 ? undefined : sourceLocation(body.slice(0, cut));
  if (directory === undefined) return undefined;
  const raw = body.slice(cut + 1);
  let name: string;
  try {
    name = decodeURIComponent(raw);
  } catch {
    return undefined;
  }
  if ((name === '' && !prefix) || name === '.' || name === '..' || /[/\\\0*]/.test(name) || /[\\\0*]/.test(raw)) return undefined;
  // The stores decode the directory (fileURLToPath) but take the name as written: so does the path.
  const segments = prefix ? directory.segments : [...directory.segments, raw];
  return { directory, path: `/${segments.join('/')}` };
}

/** Whether a request's file or name-prefix URI lies under one of the roots by its structure alone. */
export function uriUnderRoots(uri: string, roots: readonly SourceRoot[]): boolean {
  const location = requestLocation(uri);
  if (location === undefined) return false;
  const { directory } = location;
  return roots.some(
    (root) =>
      root.scheme === directory.scheme &&
      (root.scheme === 'file' || (directory.scheme === 's3' && root.bucket === directory.bucket)) &&
      startsWith(directory.segments, root.segments),
  );
}

/**
 * Whether a local path (of a URI that passed `uriUnderRoots`) resolves inside a `file:` root once
 * symlinks are followed. A missing path is judged by its deepest existing ancestor, so that a link
 * out of the root says nothing about what exists behind it.
 */
export async function pathInsideRoots(path: string, roots: readonly SourceRoot[], realpath: SourceAccessIo['realpath']): Promise<boolean> {
  const real = await existingRealpath(path, realpath);
  for (const root of roots) {
    if (root.scheme !== 'file') continue;
    const rootReal = await realpath(`/${root.segments.join('/')}`).catch(() => undefined);
    if (rootReal === undefined) continue;
    if (real === rootReal || real.startsWith(rootReal === '/' ? '/' : `${rootReal}/`)) return true;
  }
  return false;
}

async function existingRealpath(path: string, realpath: SourceAccessIo['realpath']): Promise<string> {
  let current = path;
  for (;;) {
    try {
      return await realpath(current);
    } catch (error) {
      const code = typeof error === 'object' && error !== null && 'code' in error ? error.code : undefined;
      if ((code !== 'ENOENT' && code !== 'ENOTDIR') || current === '/') throw error;
      current = current.slice(0, current.lastIndexOf('/')) || '/';
    }
  }
}

/** The one refusal of a source location, the same whatever the reason and whether or not it exists. */
export function sourceNotAllowed(index: number): TributaryError {
  return errorFrom(sourceErrors, 'SOURCE_NOT_ALLOWED', `source URI ${index} is not under a configured source root`, { index });
}

/**
 * Checks a file or name-prefix URI against the roots, by structure and, for `file:`, by realpath
 * (the file, or the directory a prefix lists): throws SOURCE_NOT_ALLOWED. `index` is the URI's
 * position in the request, the only thing the refusal names.
 */
export async function checkSourceUri(uri: string, index: number, access: SourceAccess): Promise<void> {
  const location = requestLocation(uri);
  if (location === undefined || !uriUnderRoots(uri, access.roots)) throw sourceNotAllowed(index);
  if (location.directory.scheme !== 'file') return;
  let inside = false;
  try {
    inside = await pathInsideRoots(location.path, access.roots, access.io.realpath);
  } catch {
    // Unreadable (EACCES, a loop): refused like anything outside.
  }
  if (!inside) throw sourceNotAllowed(index);
}

/** Where a MySQL source connects, with the password read from its file or variable. */
export interface MysqlEndpoint {
  readonly host: string;
  readonly port: number;
  readonly user: string;
  readonly password: string;
  /** How messages name it: `connection <name>`, or `host:port` for inline credentials. */
  readonly label: string;
}

/** What a MySQL spec says about where to connect (see MysqlSourceSpec). */
export interface MysqlTarget {
  readonly connection?: string | undefined;
  readonly host?: string | undefined;
  readonly port?: number | undefined;
  readonly user?: string | undefined;
  readonly password?: string | undefined;
}

/**
 * The endpoint of a MySQL source: its named connection from this process's configuration, or its
 * inline credentials when the operator allows them. Throws SOURCE_CONNECTION_UNKNOWN,
 * SOURCE_CREDENTIALS_INLINE or SOURCE_SECRET_UNAVAILABLE (naming the file or variable, never a value).
 */
export function mysqlEndpoint(target: MysqlTarget, access: SourceAccess): MysqlEndpoint {
  if (target.connection === undefined) {
    if (!access.allowInlineCredentials) {
      throw errorFrom(sourceErrors, 'SOURCE_CREDENTIALS_INLINE', 'a MySQL source names a configured connection; host, port, user and password in a request are refused');
    }
    if (target.host === undefined || target.user === undefined || target.password === undefined) {
      throw errorFrom(sourceErrors, 'SOURCE_CREDENTIALS_INLINE', 'a MySQL source without a connection needs host, user and password');
    }
    const port = target.port ?? 3306;
    return { host: target.host, port, user: target.user, password: target.password, label: `${target.host}:${port}` };
  }
  const c = access.connections[target.connection];
  if (c?.kind !== 'mysql') {
    throw errorFrom(sourceErrors, 'SOURCE_CONNECTION_UNKNOWN', `no MySQL connection named ${JSON.stringify(target.connection)} is configured`, { connection: target.connection });
  }
  return { host: c.host, port: c.port, user: c.user, password: connectionSecret(target.connection, c, access.io), label: `connection ${target.connection}` };
}

/** Where a PostgreSQL source connects: a named connection of this process, with its password read. */
export interface PostgresEndpoint {
  readonly host: string;
  readonly port: number;
  readonly user: string;
  readonly password: string;
  /** The database to connect to for listing the others. */
  readonly database: string;
  /** How messages name it: `connection <name>`. */
  readonly label: string;
}

/**
 * The endpoint of a PostgreSQL source's named connection in this process's configuration. A
 * PostgreSQL source has no inline credentials: SOURCE_CONNECTION_UNKNOWN or
 * SOURCE_SECRET_UNAVAILABLE (naming the file or variable, never a value).
 */
export function postgresEndpoint(connection: string, access: SourceAccess): PostgresEndpoint {
  const c = access.connections[connection];
  if (c?.kind !== 'postgres') {
    throw errorFrom(sourceErrors, 'SOURCE_CONNECTION_UNKNOWN', `no PostgreSQL connection named ${JSON.stringify(connection)} is configured`, { connection });
  }
  return { host: c.host, port: c.port, user: c.user, password: connectionSecret(connection, c, access.io), database: c.database, label: `connection ${connection}` };
}

/** An S3 connection's settings, in the shape the object stores take, with its secret key read. */
export interface S3Credentials {
  readonly endpoint?: string;
  readonly region?: string;
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
}

/** The credentials of a named S3 connection; throws SOURCE_CONNECTION_UNKNOWN or SOURCE_SECRET_UNAVAILABLE. */
export function s3Credentials(connection: string, access: SourceAccess): S3Credentials {
  const c = access.connections[connection];
  if (c?.kind !== 's3') {
    throw errorFrom(sourceErrors, 'SOURCE_CONNECTION_UNKNOWN', `no S3 connection named ${JSON.stringify(connection)} is configured`, { connection });
  }
  return {
    ...(c.endpoint === undefined ? {} : { endpoint: c.endpoint }),
    ...(c.region === undefined ? {} : { region: c.region }),
    accessKeyId: c.accessKeyId,
    secretAccessKey: connectionSecret(connection, c, access.io),
  };
}

function connectionSecret(name: string, c: SourceConnection, io: SourceAccessIo): string {
  const ref = secretRef(c);
  if (ref.env !== undefined) {
    const value = io.env[ref.env];
    if (value === undefined) {
      throw errorFrom(sourceErrors, 'SOURCE_SECRET_UNAVAILABLE', `the secret variable of connection ${name} is not set in this process`, { connection: name, variable: ref.env });
    }
    return value;
  }
  try {
    return io.readText(ref.file ?? '').replace(/\r?\n$/, '');
  } catch {
    throw errorFrom(sourceErrors, 'SOURCE_SECRET_UNAVAILABLE', `the secret file of connection ${name} cannot be read by this process`, { connection: name });
  }
}

/** A source spec fit to show or store outside the plan (API answers, outcome.json): an inline password becomes `***`. */
export function redactSource(source: Readonly<Record<string, unknown>>): Record<string, unknown> {
  return typeof source.password === 'string' ? { ...source, password: '***' } : { ...source };
}
