/**
 * The worker's error codes. A shard job that throws a non-retryable one fails for good
 * (BullMQ UnrecoverableError) and votes NO for its sync; a retryable one is retried with backoff.
 */
import { defineErrorCatalogue } from '@tributary/protocol';

export const workerErrors = defineErrorCatalogue({
  SOURCE_ROW_INVALID: {
    retryable: false,
    summary: 'A source row has a value that cannot be converted to its column (context: shard, position, column; file and fileRow when the source reads files).',
  },
  SOURCE_SCHEMA_MISMATCH: {
    retryable: false,
    summary: 'The source has no column for a non-nullable table column, the names do not match the table, or a file column has a type the source cannot read (a nested Parquet column).',
  },
  SOURCE_FILE_MALFORMED: {
    retryable: false,
    summary:
      'A source file is not well-formed: an unclosed quote, a CSV record with more or fewer fields than the header, invalid UTF-8, a line that is not a JSON object, a last record without its line terminator (the file may be truncated), an unreadable or truncated Parquet file (context: file; line and column for text, row for Parquet).',
  },
  SOURCE_SPEC_INVALID: { retryable: false, summary: 'The source or shard description in the job is not valid.' },
  MYSQL_READ_FAILED: {
    retryable: true,
    summary: 'Reading a shard from MySQL failed (connection refused or lost, a server error); the shard is retried.',
  },
  SYNC_NOT_ACCEPTING: {
    retryable: false,
    summary: 'The sync left PREPARING (aborted or committing) while this shard ran; the attempt stopped.',
  },
  SHARD_JOB_INVALID: { retryable: false, summary: 'The write-shard job data does not match its schema.' },
  SHARD_NOT_PLANNED: {
    retryable: false,
    summary: 'A write-shard job names a sync without a persisted plan, or a shard its plan does not have; the job is refused before any work.',
  },
  SHARD_TOKEN_INVALID: {
    retryable: false,
    summary: 'A write-shard job does not carry its shard\u2019s vote token (not enqueued by the coordinator, or the cluster secrets differ); the job is refused before any work.',
  },
});

export type WorkerErrorCode = keyof typeof workerErrors;
