/**
 * What the blob writer does with commit messages beyond encoding them: count their file entries
 * and split a large one so that no frame of a blob grows with the shard. The message itself
 * (Paimon's `CommitMessageImpl` with its `DataIncrement`, `CompactIncrement` and `DataFileMeta`s) is
 * defined once, by @tributary/table, which writes and commits it; commit-message-codec.ts maps it to
 * the wire shape (proto/commit_message.proto) and back.
 *
 * Several messages may name the same partition and bucket: the committer treats them as one
 * (Paimon's commit concatenates their files), which is what lets `splitCommitMessage` keep each
 * message small.
 */
import type { CommitMessage } from '@tributary/table';

/** The number of data and index file entries a message carries (all ten lists). */
export function fileEntryCount(message: CommitMessage): number {
  const d = message.dataIncrement;
  const c = message.compactIncrement;
  return (
    d.newFiles.length +
    d.deletedFiles.length +
    d.changelogFiles.length +
    d.newIndexFiles.length +
    d.deletedIndexFiles.length +
    c.compactBefore.length +
    c.compactAfter.length +
    c.changelogFiles.length +
    c.newIndexFiles.length +
    c.deletedIndexFiles.length
  );
}

/**
 * Splits an append-only message (only `dataIncrement.newFiles`) into messages of at most
 * `maxFiles` new files each, same partition and bucket, so that no single frame of a blob grows
 * with the shard. Any other message is returned whole: the files of a compaction or a deletion
 * belong together.
 */
export function splitCommitMessage(message: CommitMessage, maxFiles: number): CommitMessage[] {
  const files = message.dataIncrement.newFiles;
  const appendOnly = fileEntryCount(message) === files.length;
  if (!appendOnly || files.length <= maxFiles || !(maxFiles >= 1)) return [message];
  const parts: CommitMessage[] = [];
  for (let start = 0; start < files.length; start += maxFiles) {
    const newFiles = files.slice(start, start + maxFiles);
    parts.push({ ...message, dataIncrement: { ...message.dataIncrement, newFiles } });
  }
  return parts;
}
