/**
 * The table's CommitMessages ↔ the protocol's (what a worker's blob carries: Paimon's
 * CommitMessageImpl shape with its DataIncrement and CompactIncrement). The one place where the two
 * shapes meet: workers convert on the way into a blob, the coordinator on the way out.
 */
import {
  EMPTY_COMPACT_INCREMENT,
  FileSource,
  errorFrom,
  type CommitMessage as ProtocolCommitMessage,
  type FileMeta,
} from '@tributary/protocol';
import { tableErrors } from './errors.ts';
import type { CommitMessage } from './spec/commit-message.ts';
import type { DataFileMeta } from './spec/data-file-meta.ts';

/** A worker's prepared message as the protocol carries it. */
export function toProtocolCommitMessage(message: CommitMessage<DataFileMeta>): ProtocolCommitMessage {
  return {
    partition: message.partition,
    bucket: message.bucket,
    totalBuckets: message.totalBuckets,
    dataIncrement: {
      newFiles: message.newFiles.map(toFileMeta),
      deletedFiles: message.deletedFiles.map(toFileMeta),
      changelogFiles: message.changelogFiles.map(toFileMeta),
      newIndexFiles: [],
      deletedIndexFiles: [],
    },
    compactIncrement: EMPTY_COMPACT_INCREMENT,
  };
}

/**
 * A message from a blob as the table commits it. Index files and compaction output are refused:
 * Tributary's loads never write them, so a blob that carries them was not written by a shard.
 */
export function fromProtocolCommitMessage(message: ProtocolCommitMessage): CommitMessage<DataFileMeta> {
  const d = message.dataIncrement;
  const c = message.compactIncrement;
  const unsupported = d.newIndexFiles.length + d.deletedIndexFiles.length + c.compactBefore.length + c.compactAfter.length + c.changelogFiles.length;
  if (unsupported > 0) {
    throw errorFrom(tableErrors, 'COMMIT_MESSAGE_UNSUPPORTED', 'a commit message carries index or compaction files, which a load never writes', {
      bucket: message.bucket,
    });
  }
  return {
    partition: message.partition,
    bucket: message.bucket,
    totalBuckets: message.totalBuckets ?? -1,
    newFiles: d.newFiles.map(fromFileMeta),
    deletedFiles: d.deletedFiles.map(fromFileMeta),
    changelogFiles: d.changelogFiles.map(fromFileMeta),
  };
}

function toFileMeta(f: DataFileMeta): FileMeta {
  return {
    fileName: f.fileName,
    fileSize: f.fileSize,
    rowCount: f.rowCount,
    minKey: f.minKey,
    maxKey: f.maxKey,
    keyStats: f.keyStats,
    valueStats: f.valueStats,
    minSequenceNumber: f.minSequenceNumber,
    maxSequenceNumber: f.maxSequenceNumber,
    schemaId: f.schemaId,
    level: f.level,
    extraFiles: f.extraFiles,
    creationTimeMillis: f.creationTime === null ? null : BigInt(f.creationTime),
    deleteRowCount: f.deleteRowCount,
    embeddedIndex: f.embeddedIndex,
    fileSource: f.fileSource === null ? null : FileSource[f.fileSource],
    valueStatsCols: f.valueStatsCols,
    externalPath: f.externalPath,
    firstRowId: f.firstRowId,
    writeCols: f.writeCols,
    writeColsSequences: f.writeColsSequences,
  };
}

function fromFileMeta(f: FileMeta): DataFileMeta {
  const stats = (s: FileMeta['keyStats']) => ({ minValues: s.minValues, maxValues: s.maxValues, nullCounts: s.nullCounts ?? [] });
  return {
    fileName: f.fileName,
    fileSize: f.fileSize,
    rowCount: f.rowCount,
    minKey: f.minKey,
    maxKey: f.maxKey,
    keyStats: stats(f.keyStats),
    valueStats: stats(f.valueStats),
    minSequenceNumber: f.minSequenceNumber,
    maxSequenceNumber: f.maxSequenceNumber,
    schemaId: f.schemaId,
    level: f.level,
    extraFiles: f.extraFiles,
    creationTime: f.creationTimeMillis === null ? null : Number(f.creationTimeMillis),
    deleteRowCount: f.deleteRowCount,
    embeddedIndex: f.embeddedIndex,
    fileSource: f.fileSource === null ? null : f.fileSource === FileSource.APPEND ? 'APPEND' : 'COMPACT',
    valueStatsCols: f.valueStatsCols,
    externalPath: f.externalPath,
    firstRowId: f.firstRowId,
    writeCols: f.writeCols,
    writeColsSequences: f.writeColsSequences,
  };
}
