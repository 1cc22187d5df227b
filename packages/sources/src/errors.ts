/**
 * The sources' error codes: what a source spec, a source's access (connections, roots), planning
 * (at the coordinator) and reading and converting rows (at a worker) can refuse. A shard job that
 * throws a non-retryable one fails for good and votes NO; a retryable one is retried with backoff.
 * The coordinator maps them to HTTP statuses with its own (http/problem.ts).
 */
import { defineErrorCatalogue } from '@tributary/protocol';

export const sourceErrors = defineErrorCatalogue({
  SOURCE_ROW_INVALID: {
    retryable: false,
    summary: 'A source row has a value that cannot be converted to its column (context: shard, position, column; file and fileRow when the source reads files).',
  },
  SOURCE_REJECTS_EXCEEDED: {
    retryable: false,
    summary: 'Under the `reject` bad-row policy, a shard rejected more rows (100,000) or bytes (64 MiB) of rejects than one attempt keeps; the shard fails and the sync aborts (context: shard, rejected).',
  },
  SOURCE_SCHEMA_MISMATCH: {
    retryable: false,
    summary:
      'The source has no column for a non-nullable table column, the names do not match the table (a file that has none of its columns, such as a CSV with another separator; two names that match one column ignoring case; a CSV header naming a column twice; a file column that is no column of the table, unless the source sets unknownColumns: ignore), or a file column has a type the source cannot read (a nested Parquet column) (context: file for a files source).',
  },
  SOURCE_FILE_MALFORMED: {
    retryable: false,
    summary:
      'A source file is not well-formed: an unclosed quote, a CSV record with more or fewer fields than the header, invalid UTF-8, a line that is not a JSON object, a last record without its line terminator (the file may be truncated), an unreadable or truncated Parquet file (context: file; line and column for text, row for Parquet).',
  },
  SOURCE_FILE_CHANGED: {
    retryable: false,
    summary:
      'A source file was rewritten, truncated or deleted after the plan listed it: its shard reads only the version listed (S3: every ranged GET sends If-Match with its ETag; a local file: its size and modification time are checked before and after each read), so it fails rather than load a mix of versions or record an ETag the rows were not read under; the sync aborts and nothing is committed. Sync again to load the new version (context: file).',
  },
  SOURCE_SPEC_INVALID: { retryable: false, summary: 'The source or shard description in the job is not valid.' },
  MYSQL_READ_FAILED: {
    retryable: true,
    summary: 'Reading a shard from MySQL failed (connection refused or lost, a server error); the shard is retried.',
  },
  MYSQL_SOURCE_UNAVAILABLE: {
    retryable: true,
    summary: 'The MySQL source could not be reached, or its connection broke, while the sync was planned; nothing was enqueued.',
  },
  MYSQL_SOURCE_INVALID: {
    retryable: false,
    summary: 'The MySQL source cannot be planned: no table matches, a table has no primary key, a name is unsupported, or a query was refused.',
  },
  MYSQL_SCHEMA_MISMATCH: {
    retryable: false,
    summary: 'A physical MySQL table lacks a column of the target table, has an extra one, or has a type that does not fit (context: database, table, column).',
  },
  POSTGRES_READ_FAILED: {
    retryable: true,
    summary: 'Reading a shard from PostgreSQL failed (connection refused or lost, a server error); the shard is retried from its start.',
  },
  POSTGRES_READ_REFUSED: {
    retryable: false,
    summary:
      "PostgreSQL refused a shard's read for the connection's role (SQLSTATE 42501): no privilege on the table, or row-level security applies to the role, whose policies would choose the rows loaded; not retried, the sync aborts with nothing committed.",
  },
  POSTGRES_SOURCE_UNAVAILABLE: {
    retryable: true,
    summary: 'The PostgreSQL source could not be reached, or its connection broke, while the sync was planned; nothing was enqueued.',
  },
  POSTGRES_SOURCE_INVALID: {
    retryable: false,
    summary:
      'The PostgreSQL source cannot be planned: no table matches, a table has no primary key or one of an unsupported type, a name is unsupported, inline credentials, or a query was refused (context: database, schema, table when known).',
  },
  POSTGRES_SCHEMA_MISMATCH: {
    retryable: false,
    summary: 'A physical PostgreSQL table lacks a column of the target table, has an extra one, or has a type that does not fit (context: database, schema, table, column).',
  },
  SOURCE_NOT_ALLOWED: {
    retryable: false,
    summary: 'A source URI is not under a configured source root (TRIBUTARY_SOURCE_ROOTS), or is not a plain file:///path or s3://bucket/key; the answer is the same whether or not it exists (HTTP 403).',
  },
  SOURCE_CREDENTIALS_INLINE: {
    retryable: false,
    summary: 'A database source gives host, port, user or password instead of naming a configured connection; allowed only when the operator sets TRIBUTARY_ALLOW_INLINE_CREDENTIALS.',
  },
  SOURCE_CONNECTION_UNKNOWN: { retryable: false, summary: 'The source names a connection that is not in the connections file (TRIBUTARY_CONNECTIONS_FILE) of this process.' },
  SOURCE_SECRET_UNAVAILABLE: {
    retryable: false,
    summary: 'The password file of a configured connection cannot be read, or its password variable is not set, in the process that connects.',
  },
  SOURCE_ACCESS_CONFIG_INVALID: { retryable: false, summary: 'The connections file or a source root is not valid; the process does not start.' },
});

export type SourceErrorCode = keyof typeof sourceErrors;
