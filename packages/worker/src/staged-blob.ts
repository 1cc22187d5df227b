/**
 * An attempt's CommitMessage blob (shard, bucket or compaction job alike): the header stamped with
 * the job, the version and the counts of the files it stages, and what the attempt's vote says of
 * it (CRC32C, SHA-256, rows, bytes, files).
 */
import { createHash } from 'node:crypto';
import { crc32c } from '@node-rs/crc32';
import { PAIMON_COMMIT_MESSAGE_VERSION, encodeBlob, type ShardReadPosition } from '@tributary/protocol';
import { TRIBUTARY_VERSION, type CommitMessage, type DataFileMeta } from '@tributary/table';

/** The job a blob answers: its sync (or compaction), its shard (or bucket, or compaction job), its token. */
export interface BlobJob {
  readonly syncId: string;
  readonly shardId: string;
  readonly head: { readonly schemaId: number };
  readonly voteToken: Uint8Array;
}

export interface StagedBlob {
  readonly blob: Uint8Array;
  readonly checksum: number;
  readonly sha256: string;
  readonly rows: number;
  readonly bytes: number;
  readonly files: number;
}

/** `files`: what the messages stage (new data files, or a compaction's files after). */
export function stagedBlob(job: BlobJob, attempt: number, tablePath: string, messages: readonly CommitMessage[], files: readonly DataFileMeta[], readPosition?: ShardReadPosition): StagedBlob {
  const rowCount = files.reduce((n, f) => n + f.rowCount, 0n);
  const byteCount = files.reduce((n, f) => n + f.fileSize, 0n);
  const blob = encodeBlob(
    {
      syncId: job.syncId,
      shardId: job.shardId,
      attempt,
      tablePath,
      schemaId: BigInt(job.head.schemaId),
      paimonFormatVersion: PAIMON_COMMIT_MESSAGE_VERSION,
      tributaryVersion: TRIBUTARY_VERSION,
      creationTimeMillis: BigInt(Date.now()),
      rowCount,
      byteCount,
      fileCount: BigInt(files.length),
      voteToken: job.voteToken,
      ...(readPosition === undefined ? {} : { readPosition }),
    },
    messages,
  );
  return { blob, checksum: crc32c(blob), sha256: createHash('sha256').update(blob).digest('hex'), rows: Number(rowCount), bytes: Number(byteCount), files: files.length };
}
