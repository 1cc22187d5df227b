/**
 * A CommitMessage blob as a worker stages it (the worker's stagedBlob), for the coordinator's tests
 * that stage shards by hand: the header's counts are those of the messages' new data files, the
 * version stamps the current ones, the creation time 0; with the vote an accepted attempt records.
 */
import { createHash } from 'node:crypto';
import { crc32c } from '@node-rs/crc32';
import { PAIMON_COMMIT_MESSAGE_VERSION, encodeBlob, type ShardReadPosition, type ShardVote } from '@tributary/protocol';
import type { CommitMessage } from '@tributary/table';

export interface TestBlobJob {
  readonly syncId: string;
  readonly shardId: string;
  readonly attempt: number;
  readonly tablePath: string;
  readonly voteToken: Uint8Array;
  readonly readPosition?: ShardReadPosition;
}

export function testBlob(job: TestBlobJob, messages: readonly CommitMessage[]): { blob: Uint8Array; vote: ShardVote } {
  const files = messages.flatMap((m) => m.dataIncrement.newFiles);
  const rowCount = files.reduce((n, f) => n + f.rowCount, 0n);
  const byteCount = files.reduce((n, f) => n + f.fileSize, 0n);
  const blob = encodeBlob(
    {
      syncId: job.syncId,
      shardId: job.shardId,
      attempt: job.attempt,
      tablePath: job.tablePath,
      schemaId: 0n,
      paimonFormatVersion: PAIMON_COMMIT_MESSAGE_VERSION,
      tributaryVersion: '0.1.0',
      creationTimeMillis: 0n,
      rowCount,
      byteCount,
      fileCount: BigInt(files.length),
      voteToken: job.voteToken,
      readPosition: job.readPosition,
    },
    messages,
  );
  const vote: ShardVote = { attemptId: String(job.attempt), checksum: crc32c(blob), sha256: createHash('sha256').update(blob).digest('hex'), rows: Number(rowCount), bytes: Number(byteCount) };
  return { blob, vote };
}
