import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PAIMON_COMMIT_MESSAGE_VERSION, decodeBlob, encodeBlob, isTributaryError, type BlobHeader } from '@tributary/protocol';
import { fromProtocolCommitMessage, toProtocolCommitMessage } from '../../src/protocol-messages.ts';
import type { CommitMessage } from '../../src/spec/commit-message.ts';
import type { DataFileMeta } from '../../src/spec/data-file-meta.ts';
import { DT_ROW, FULL_FILE, SPARSE_FILE } from './spec/manifest-fixtures.ts';

const message: CommitMessage<DataFileMeta> = {
  partition: DT_ROW,
  bucket: 3,
  totalBuckets: 16,
  newFiles: [FULL_FILE, SPARSE_FILE],
  deletedFiles: [],
  changelogFiles: [SPARSE_FILE],
};

test('a table message survives the protocol shape unchanged, every DataFileMeta field included', () => {
  assert.deepEqual(fromProtocolCommitMessage(toProtocolCommitMessage(message)), message);
});

test('and through a blob: encode, strict decode, back to the table shape', () => {
  const header: BlobHeader = {
    syncId: 'sync-1',
    shardId: 'shard-00000',
    attempt: 1,
    tablePath: 'db.db/t',
    schemaId: 0n,
    paimonFormatVersion: PAIMON_COMMIT_MESSAGE_VERSION,
    tributaryVersion: '0.1.0',
    creationTimeMillis: 0n,
    rowCount: 3n,
    byteCount: 10n,
    fileCount: 2n,
    voteToken: new Uint8Array(32),
  };
  const blob = encodeBlob(header, [toProtocolCommitMessage(message)]);
  const decoded = decodeBlob(blob, { syncId: 'sync-1', shardId: 'shard-00000', tablePath: 'db.db/t', schemaId: 0n });
  assert.deepEqual(decoded.messages.map(fromProtocolCommitMessage), [message]);
});

test('index files or compaction output in a message are refused with a typed error', () => {
  const wire = toProtocolCommitMessage(message);
  const compacted = { ...wire, compactIncrement: { ...wire.compactIncrement, compactAfter: wire.dataIncrement.newFiles } };
  assert.throws(
    () => fromProtocolCommitMessage(compacted),
    (e: unknown) => isTributaryError(e) && e.code === 'COMMIT_MESSAGE_UNSUPPORTED',
  );
});
